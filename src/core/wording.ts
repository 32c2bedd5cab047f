import { isLineSeparator, renderUnsafe } from './text-safety.js';

/**
 * Wording helpers for every message and report: durations, one-line text, plurals, times, and
 * printable text (the text-safety rule, as dropping). Plain text: no escaping for any output.
 */

/** "12 ms", "1.25 s", "2 min 5 s": durations a person reads, not a parser. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '? ms';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/**
 * Collapses every run of whitespace (newlines included, and U+2028/U+2029, which some viewers
 * break lines on) into one space, then cuts to `max` code points with "…". Cutting by code point
 * rather than UTF-16 unit keeps surrogate pairs whole.
 */
export function oneLine(text: string, max = Number.POSITIVE_INFINITY): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const chars = Array.from(flat);
  if (chars.length <= max) return flat;
  return `${chars
    .slice(0, Math.max(0, max - 1))
    .join('')
    .trimEnd()}…`;
}

/** "1 exchange", "2 exchanges". */
export function plural(n: number, word: string, words = `${word}s`): string {
  return `${n} ${n === 1 ? word : words}`;
}

/** "2026-11-22 09:30:00 UTC" from an ISO timestamp; anything unparsable is returned as it is. */
export function formatUtc(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/**
 * Removes what src/core/text-safety.ts calls unsafe: what a terminal would act on instead of print (ESC
 * and CSI start colour and cursor sequences; a target's error text must not be able to rewrite
 * the log), bidirectional controls, zero-width characters; U+2028 and U+2029 become a space. Tab,
 * LF and CR stay: `oneLine` turns them into spaces.
 */
export function printable(text: string): string {
  return renderUnsafe(text, (code) => (isLineSeparator(code) ? ' ' : ''));
}
