/**
 * Many literal strings found in a text in one pass: the redactor looks for every spelling of every
 * secret it knows (tens per secret, long ones for a JWT: its hex, its `\u` escapes) in every text it
 * is given, and a scan per spelling made each body cost as many scans as there were spellings.
 *
 * Rabin–Karp on a fixed window: each pattern is filed under the hash of its first ANCHOR code
 * units; the text's windows are hashed as they roll (no allocation), and only where a window's hash
 * is filed are the patterns compared. Adding a pattern costs its anchor, not a rebuilt automaton:
 * a run learns a secret per token it is issued.
 */

/** Patterns are filed by their first ANCHOR code units: none may be shorter. */
export const ANCHOR = 4;
const BASE = 0x10001;
/** BASE ** (ANCHOR - 1), mod 2^32: what the code unit leaving the window weighed. */
const LEAVING = Math.imul(Math.imul(BASE, BASE), BASE);
const FILTER_SIZE = 1 << 16;
const FILTER_MASK = FILTER_SIZE - 1;

export interface Found {
  start: number;
  end: number;
  /** The pattern found first there (the leftmost, and of those the longest). */
  pattern: number;
}

function anchorHash(text: string, at: number): number {
  let h = 0;
  for (let i = at; i < at + ANCHOR; i += 1) h = (Math.imul(h, BASE) + text.charCodeAt(i)) | 0;
  return h;
}

export class LiteralMatcher {
  readonly #patterns: string[] = [];
  readonly #index = new Map<string, number>();
  /** Anchor hash → the patterns filed under it, longest first. */
  readonly #buckets = new Map<number, number[]>();
  /** Whether any anchor hash has these low 16 bits: most windows are passed over on one array read. */
  readonly #filter = new Uint8Array(FILTER_SIZE);

  /** Adds a pattern (shorter than ANCHOR: refused, -1); returns its index, or the existing one's. */
  add(pattern: string): number {
    const known = this.#index.get(pattern);
    if (known !== undefined) return known;
    if (pattern.length < ANCHOR) return -1;
    const index = this.#patterns.push(pattern) - 1;
    this.#index.set(pattern, index);
    const hash = anchorHash(pattern, 0);
    this.#filter[hash & FILTER_MASK] = 1;
    const bucket = this.#buckets.get(hash) ?? [];
    const at = bucket.findIndex((i) => (this.#patterns[i]?.length ?? 0) < pattern.length);
    bucket.splice(at < 0 ? bucket.length : at, 0, index);
    this.#buckets.set(hash, bucket);
    return index;
  }

  has(pattern: string): boolean {
    return this.#index.has(pattern);
  }

  get size(): number {
    return this.#patterns.length;
  }

  /** The longest pattern that starts at `at` in `text`, or -1. */
  #longestAt(text: string, at: number, hash: number): number {
    if (this.#filter[hash & FILTER_MASK] === 0) return -1;
    const bucket = this.#buckets.get(hash);
    if (bucket === undefined) return -1;
    for (const i of bucket) if (text.startsWith(this.#patterns[i] ?? '', at)) return i;
    return -1;
  }

  /**
   * Where the patterns occur in `text`, as spans that do not overlap: occurrences that overlap are
   * one span (nothing of either is left between them), named by the leftmost, longest one.
   */
  find(text: string): Found[] {
    const found: Found[] = [];
    if (this.#patterns.length === 0 || text.length < ANCHOR) return found;
    let hash = anchorHash(text, 0);
    let open: Found | undefined;
    for (let at = 0; at + ANCHOR <= text.length; at += 1) {
      if (at > 0)
        hash =
          (Math.imul(hash - Math.imul(text.charCodeAt(at - 1), LEAVING), BASE) + text.charCodeAt(at + ANCHOR - 1)) | 0;
      if (open !== undefined && at >= open.end) {
        found.push(open);
        open = undefined;
      }
      const pattern = this.#longestAt(text, at, hash);
      if (pattern < 0) continue;
      const end = at + (this.#patterns[pattern]?.length ?? 0);
      if (open === undefined) open = { start: at, end, pattern };
      else if (end > open.end) open.end = end;
    }
    if (open !== undefined) found.push(open);
    return found;
  }
}
