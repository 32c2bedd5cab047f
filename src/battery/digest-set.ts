/**
 * A set of strings that keeps 64-bit digests instead of the strings, in typed arrays (open
 * addressing, linear probing): the items of a list of 1 000 000 are told apart in ~12.7 MB, where a
 * `Set` of their keys takes ~100 MB and puts every key on the garbage collector's books. With each
 * digest it keeps a number (the page an item was first seen on).
 *
 * Two different keys share a digest with a probability of about n² / 2^65: 3 × 10^-8 for a
 * million items, so a reported duplicate is, for any list a server can serve, a real one.
 */

/**
 * Fraction of the slots in use before the table grows. Linear probing at 0.8 inspects ~13 slots
 * for a new key (~3 for a known one), 8 bytes each, side by side in memory: cheap next to hashing
 * the key, and a table a sixth smaller than at 0.67.
 */
const MAX_LOAD = 0.8;
const MIN_CAPACITY = 1024;
const TWO_32 = 4294967296;
/** The largest value a key can carry: 17 bits, enough for a page number up to MAX_WALK_PAGES (100 000). */
export const MAX_DIGEST_VALUE = 2 ** 17 - 1;

/** The low half of the last digest computed (returned beside the high half without allocating). */
let low = 0;

/**
 * cyrb53's mixing (public domain, bryc), both 32-bit lanes kept: a 64-bit digest of the UTF-16
 * code units, fast in JavaScript (Math.imul) and well spread for ids, UUIDs and JSON alike.
 * Returns the high half; the low half is left in `low`.
 */
function digestInto(key: string, seed: number): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
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

/**
 * Seeds by kind of key: keys of different kinds (an item's id, an item's JSON) are digested by
 * different functions, so that equal strings of two kinds are told apart like any two keys.
 */
const SEEDS = [0, 0x9e3779b9 | 0];

/** The 64-bit digest of `key` (of kind `kind`, 0 or 1), as its high and low halves. */
export function digest64(key: string, kind = 0): [number, number] {
  const high = digestInto(key, SEEDS[kind] ?? 0);
  return [high, low];
}

export class DigestSet {
  #capacity: number;
  /** Two words per slot: the digest's high and low halves; a zero digest marks an empty slot. */
  #digests: Uint32Array;
  /** Each slot's value: its low 16 bits here, its 17th bit in `#high` (one bit a slot): 10.1 bytes a slot in all. */
  #values: Uint16Array;
  #high: Uint8Array;
  #size = 0;

  /** `expected`: how many keys will be added (e.g. Total-Elements), to size the table once. */
  constructor(expected = 0) {
    this.#capacity = Math.max(MIN_CAPACITY, Math.ceil(expected / MAX_LOAD) + 1);
    [this.#digests, this.#values, this.#high] = DigestSet.#tables(this.#capacity);
  }

  static #tables(capacity: number): [Uint32Array, Uint16Array, Uint8Array] {
    return [new Uint32Array(capacity * 2), new Uint16Array(capacity), new Uint8Array(Math.ceil(capacity / 8))];
  }

  get size(): number {
    return this.#size;
  }

  /** Bytes held by the table. */
  get bytes(): number {
    return this.#digests.byteLength + this.#values.byteLength + this.#high.byteLength;
  }

  /**
   * Adds `key` of kind `kind` (0 or 1: the same string of the other kind is another key) with
   * `value` (0 to MAX_DIGEST_VALUE) unless it is there: returns undefined when it was added, else
   * the value it was first added with.
   */
  addIfAbsent(key: string, value: number, kind = 0): number | undefined {
    if (!(value >= 0 && value <= MAX_DIGEST_VALUE && Number.isInteger(value)))
      throw new RangeError(`DigestSet value ${value} is not an integer from 0 to ${MAX_DIGEST_VALUE}`);
    const hi = digestInto(key, SEEDS[kind] ?? 0);
    // (0, 0) is the empty mark: a key with that digest is moved off it.
    const lo = hi === 0 && low === 0 ? 1 : low;
    const digests = this.#digests;
    let slot = this.#home(hi);
    for (;;) {
      const a = digests[2 * slot] as number;
      const b = digests[2 * slot + 1] as number;
      if (a === 0 && b === 0) break;
      if (a === hi && b === lo) return this.#valueAt(slot);
      slot += 1;
      if (slot === this.#capacity) slot = 0;
    }
    this.#put(slot, hi, lo, value);
    this.#size += 1;
    if (this.#size > this.#capacity * MAX_LOAD) this.#grow();
    return undefined;
  }

  #valueAt(slot: number, values = this.#values, high = this.#high): number {
    const bit = ((high[slot >>> 3] as number) >>> (slot & 7)) & 1;
    return (values[slot] as number) + bit * 65536;
  }

  #put(slot: number, hi: number, lo: number, value: number): void {
    this.#digests[2 * slot] = hi;
    this.#digests[2 * slot + 1] = lo;
    this.#values[slot] = value & 0xffff;
    if (value > 0xffff) this.#high[slot >>> 3] = (this.#high[slot >>> 3] as number) | (1 << (slot & 7));
  }

  /** The home slot of a digest: its high half scaled to the table (multiply-shift, no division, any table size). */
  #home(hi: number): number {
    return Math.floor(hi * (this.#capacity / TWO_32));
  }

  #grow(): void {
    const [digests, values, high] = [this.#digests, this.#values, this.#high];
    const oldCapacity = this.#capacity;
    this.#capacity *= 2;
    [this.#digests, this.#values, this.#high] = DigestSet.#tables(this.#capacity);
    for (let from = 0; from < oldCapacity; from += 1) {
      const hi = digests[2 * from] as number;
      const lo = digests[2 * from + 1] as number;
      if (hi === 0 && lo === 0) continue;
      let slot = this.#home(hi);
      while (this.#digests[2 * slot] !== 0 || this.#digests[2 * slot + 1] !== 0) {
        slot += 1;
        if (slot === this.#capacity) slot = 0;
      }
      this.#put(slot, hi, lo, this.#valueAt(from, values, high));
    }
  }
}
