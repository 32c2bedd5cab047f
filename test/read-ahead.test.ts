// The pages a walk has read and not yet judged (src/battery/read-ahead.ts): a ring of slots that
// must behave as the Map it replaced, also for indices that share a slot. Pure units, no network.
import { describe, expect, it } from 'vitest';
import { ReadAhead } from '../src/battery/read-ahead.js';

describe('ReadAhead', () => {
  it('holds, gives back and forgets pages by index, as a Map does', () => {
    const pages = new ReadAhead<string>(9);
    expect(pages.has(0)).toBe(false);
    pages.set(0, 'page 1');
    pages.set(3, 'page 4');
    expect([pages.has(0), pages.get(0), pages.has(3), pages.get(3), pages.has(1), pages.get(1)]).toEqual([
      true,
      'page 1',
      true,
      'page 4',
      false,
      undefined,
    ]);
    pages.delete(0);
    expect([pages.has(0), pages.get(0), pages.get(3)]).toEqual([false, undefined, 'page 4']);
    pages.delete(7);
    expect(pages.get(3)).toBe('page 4');
  });

  it('keeps an index whose slot is taken (the last page, read first) beside the ring', () => {
    const pages = new ReadAhead<string>(8);
    pages.set(2, 'page 3');
    pages.set(10_002, 'the last page');
    expect([pages.get(2), pages.get(10_002), pages.has(10_002)]).toEqual(['page 3', 'the last page', true]);
    pages.delete(2);
    expect([pages.has(2), pages.get(10_002)]).toEqual([false, 'the last page']);
    pages.delete(10_002);
    expect(pages.has(10_002)).toBe(false);
  });

  it('gives every index of a window its own slot, however far the walk has gone', () => {
    const span = 18;
    const pages = new ReadAhead<number>(span);
    // A window sliding over 1000 pages, as a walk's: `span` pages held at once, the oldest judged.
    for (let i = 0; i < 1000; i += 1) {
      pages.set(i, i);
      if (i >= span - 1) {
        const held = Array.from({ length: span }, (_, k) => pages.get(i - k));
        expect(held).toEqual(Array.from({ length: span }, (_, k) => i - k));
        pages.delete(i - span + 1);
      }
    }
  });

  it('sets an index again as one entry, wherever it was kept', () => {
    const pages = new ReadAhead<string>(8);
    pages.set(1, 'a');
    pages.set(9, 'b');
    pages.delete(1);
    pages.set(9, 'c');
    expect(pages.get(9)).toBe('c');
    pages.delete(9);
    expect(pages.has(9)).toBe(false);
  });
});
