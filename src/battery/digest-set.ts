/**
 * A set of strings that keeps 64-bit digests instead of the strings, in one typed array (open
 * addressing, linear probing): the items of a list of 1 000 000 are told apart in ~16 MB, where a
 * `Set` of their keys takes ~100 MB and puts every key on the garbage collector's books. With each
 * digest it keeps a number (the page an item was first seen on).
 *
 * Two different keys share a digest with a probability of about n² / 2^65: 3 × 10^-8 for a
 * million items, so a reported duplicate is, for any list a server can serve, a real one.
 */

/** Fraction of the slots in use before the table grows. */
const MAX_LOAD = 0.75;
const MIN_CAPACITY = 1024;
/** Words per slot: the digest's two halves and the value, side by side (one cache line per probe). */
const WORDS = 3;
const TWO_32 = 4294967296;

/** The low half of the last digest computed (returned beside the high half without allocating). */
let low = 0;

/**
 * cyrb53's mixing (public domain, bryc), both 32-bit lanes kept: a 64-bit digest of the UTF-16
 * code units, fast in JavaScript (Math.imul) and well spread for ids, UUIDs and JSON alike.
 * Returns the high half; the low half is left in `low`.
 */
function digestInto(key: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < key.length; i += 1) {
    const ch = key.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  low = h2 >>> 0;
  return h1 >>> 0;
}

/** The 64-bit digest of `key`, as its high and low halves. */
export function digest64(key: string): [number, number] {
  const high = digestInto(key);
  return [high, low];
}

export class DigestSet {
  #capacity: number;
  /** WORDS per slot: high half, low half, value; a zero digest marks an empty slot. */
  #table: Uint32Array;
  #size = 0;

  /** `expected`: how many keys will be added (e.g. Total-Elements), to size the table once. */
  constructor(expected = 0) {
    this.#capacity = Math.max(MIN_CAPACITY, Math.ceil(expected / MAX_LOAD) + 1);
    this.#table = new Uint32Array(this.#capacity * WORDS);
  }

  get size(): number {
    return this.#size;
  }

  /** Bytes held by the table. */
  get bytes(): number {
    return this.#table.byteLength;
  }

  /**
   * Adds `key` with `value` unless it is there: returns undefined when it was added, else the
   * value it was first added with.
   */
  addIfAbsent(key: string, value: number): number | undefined {
    const hi = digestInto(key);
    // (0, 0) is the empty mark: a key with that digest is moved off it.
    const lo = hi === 0 && low === 0 ? 1 : low;
    const table = this.#table;
    let at = this.#home(hi) * WORDS;
    for (;;) {
      const a = table[at] as number;
      const b = table[at + 1] as number;
      if (a === 0 && b === 0) break;
      if (a === hi && b === lo) return table[at + 2];
      at += WORDS;
      if (at === table.length) at = 0;
    }
    table[at] = hi;
    table[at + 1] = lo;
    table[at + 2] = value >>> 0;
    this.#size += 1;
    if (this.#size > this.#capacity * MAX_LOAD) this.#grow();
    return undefined;
  }

  /** The home slot of a digest: its high half scaled to the table (no division). */
  #home(hi: number): number {
    return Math.floor(hi * (this.#capacity / TWO_32));
  }

  #grow(): void {
    const old = this.#table;
    this.#capacity *= 2;
    this.#table = new Uint32Array(this.#capacity * WORDS);
    for (let from = 0; from < old.length; from += WORDS) {
      const hi = old[from] as number;
      const lo = old[from + 1] as number;
      if (hi === 0 && lo === 0) continue;
      let at = this.#home(hi) * WORDS;
      while (this.#table[at] !== 0 || this.#table[at + 1] !== 0) {
        at += WORDS;
        if (at === this.#table.length) at = 0;
      }
      this.#table[at] = hi;
      this.#table[at + 1] = lo;
      this.#table[at + 2] = old[from + 2] as number;
    }
  }
}
