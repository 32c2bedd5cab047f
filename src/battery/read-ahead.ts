/**
 * The pages a walk has read and not yet judged, by their index in the walk: a ring of slots, not
 * a Map.
 *
 * Why not a Map: a walk adds and deletes one entry per page, and V8 rebuilds a Map's table every
 * few deletions. The table it leaves behind keeps a pointer to the new one (for iterators that
 * still walk the old one), and its entries. Once one such table has lived long enough to be moved
 * to the old generation, every young-generation collection found the tables and pages after it
 * alive through it, dead as they were, and moved them to the old generation too: a walk of a
 * million items ran a full collection every few hundred pages (19, against 5 with this ring;
 * docs/speed.md). The slots of a ring are overwritten in place.
 *
 * Indices within `span` of each other have slots of their own; any other index (the last page,
 * read first) waits in a Map beside the ring, which sees a few entries per walk.
 */
export class ReadAhead<T> {
  readonly #mask: number;
  readonly #indices: Int32Array;
  readonly #values: (T | undefined)[];
  readonly #others = new Map<number, T>();

  /** `span`: how many consecutive indices may be held at once (the walk's read-ahead window, plus one). */
  constructor(span: number) {
    let size = 8;
    while (size < span) size *= 2;
    this.#mask = size - 1;
    this.#indices = new Int32Array(size).fill(-1);
    this.#values = new Array<T | undefined>(size).fill(undefined);
  }

  has(index: number): boolean {
    return this.#indices[index & this.#mask] === index || this.#others.has(index);
  }

  get(index: number): T | undefined {
    const slot = index & this.#mask;
    return this.#indices[slot] === index ? this.#values[slot] : this.#others.get(index);
  }

  set(index: number, value: T): void {
    const slot = index & this.#mask;
    const held = this.#indices[slot];
    if (held === -1 || held === index) {
      this.#indices[slot] = index;
      this.#values[slot] = value;
      if (this.#others.size > 0) this.#others.delete(index);
    } else {
      this.#others.set(index, value);
    }
  }

  delete(index: number): void {
    const slot = index & this.#mask;
    if (this.#indices[slot] === index) {
      this.#indices[slot] = -1;
      this.#values[slot] = undefined;
    } else {
      this.#others.delete(index);
    }
  }
}
