/**
 * The one rule for which characters of someone else's text (a target's answers, a document, a
 * report or bundle) may not reach a reader as they are: the console and the CI log, one-line
 * messages, the HTML report, and the shell commands of a reproduction. Each of those sinks keeps
 * only its rendering of them (dropped, `?`, `[U+XXXX]`, a printf escape); the set is decided here
 * alone, so that a character added to it is handled by every sink at once (issue 40 item 3).
 *
 * Unsafe:
 * - C0 controls but TAB, LF and CR (ESC and the others start terminal sequences; whitespace is each
 *   sink's to keep or flatten), DEL and the C1 controls (U+0080-U+009F: CSI among them);
 * - the bidirectional controls and marks (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C):
 *   text that reads otherwise than it is (the "Trojan Source" attack, CVE-2021-42574);
 * - the zero-width characters and the byte order mark (U+200B-U+200D, U+2060, U+FEFF): names that
 *   look equal and are not, a command split invisibly;
 * - the line and paragraph separators (U+2028, U+2029): line breaks in some viewers, not in others;
 * - the noncharacters U+FFFE and U+FFFF, and lone surrogates (no text holds them; XML cannot).
 */

/** Whether the code point `code` is unsafe to write as it is (see above). TAB, LF and CR are not: each sink decides. */
export function isUnsafeCode(code: number): boolean {
  if (code < 0x20) return code !== 0x09 && code !== 0x0a && code !== 0x0d;
  if (code >= 0x7f && code <= 0x9f) return true;
  if (code < 0x061c) return false;
  if (code === 0x061c) return true;
  if (code >= 0x200b && code <= 0x200f) return true;
  if (code >= 0x2028 && code <= 0x202e) return true;
  if (code >= 0x2060 && code <= 0x2069) return code === 0x2060 || code >= 0x2066;
  if (code >= 0xd800 && code <= 0xdfff) return true;
  return code === 0xfeff || code === 0xfffe || code === 0xffff;
}

/** The line and paragraph separators: a sink that drops the others may write a space for these. */
export function isLineSeparator(code: number): boolean {
  return code === 0x2028 || code === 0x2029;
}

/**
 * `text` with each unsafe character (and each whitespace character `flatten` names) replaced by
 * what `render` makes of it (its code point given), code point by code point: a surrogate pair is
 * one character, a lone surrogate is unsafe.
 */
export function renderUnsafe(text: string, render: (code: number) => string, flatten = ''): string {
  let out = '';
  let start = 0;
  for (let i = 0; i < text.length; ) {
    const code = text.codePointAt(i) ?? 0;
    const width = code > 0xffff ? 2 : 1;
    if (isUnsafeCode(code) || (code < 0x20 && flatten.includes(String.fromCharCode(code)))) {
      out += text.slice(start, i) + render(code);
      start = i + width;
    }
    i += width;
  }
  return start === 0 ? text : out + text.slice(start);
}
