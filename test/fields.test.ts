// Field sets of JSON values (src/battery/fields.ts), for spec §Generic rules for optional fields 1.
import { describe, expect, it } from 'vitest';
import { displayPath, fieldPaths, fitsSkeleton, missingFields, shapeOf, skeletonOf } from '../src/carrier/fields.js';
import { summariseItems } from '../src/carrier/list-items.js';
import { prng } from './support/prng.js';

/** The union of the field paths of several items, as the nulls suite builds it. */
function unionOf(...items: unknown[]): Set<string> {
  const union = new Set<string>();
  for (const item of items) for (const path of fieldPaths(item)) union.add(path);
  return union;
}

describe('fieldPaths', () => {
  it.each([
    ['a flat object', { id: 1, name: 'x', note: null }, ['id', 'name', 'note']],
    [
      'a nested object',
      { id: 1, carrier: { name: 'x', address: { city: 'y' } } },
      ['id', 'carrier', 'carrier.name', 'carrier.address', 'carrier.address.city'],
    ],
    [
      'an array of objects, whose elements share one path',
      { parcels: [{ weight: 1 }, { size: 2 }] },
      ['parcels', 'parcels[].weight', 'parcels[].size'],
    ],
    ['an array of scalars', { tags: ['a', 'b'] }, ['tags']],
    ['an empty array and an empty object', { tags: [], meta: {} }, ['tags', 'meta']],
    ['a top-level array', [{ id: 1 }, { name: 'x' }], ['[].id', '[].name']],
    ['nested arrays', { grid: [[{ x: 1 }]] }, ['grid', 'grid[][].x']],
  ])('lists the paths of %s', (_what, value, paths) => {
    expect([...fieldPaths(value)].map(displayPath).sort()).toEqual([...paths].sort());
  });

  it.each([null, 'text', 42, true, undefined])('has no paths for %j', (value) => {
    expect(fieldPaths(value).size).toBe(0);
  });

  it('stops below the maximum depth', () => {
    const deep = { a: { b: { c: { d: { e: { f: { g: 1 } } } } } } };
    expect([...fieldPaths(deep)].map(displayPath)).toEqual(['a', 'a.b', 'a.b.c', 'a.b.c.d', 'a.b.c.d.e']);
  });

  it('keeps keys that contain a dot apart from nested keys', () => {
    expect([...fieldPaths({ 'a.b': { c: 1 } })].map(displayPath).sort()).toEqual(['["a.b"]', '["a.b"].c']);
    expect(fieldPaths({ 'a.b': 1 })).not.toEqual(fieldPaths({ a: { b: 1 } }));
  });
});

describe('missingFields', () => {
  it('finds nothing missing in an item that has every field', () => {
    const a = { id: 1, carrier: { name: 'x' } };
    expect(missingFields(a, unionOf(a, { id: 2, carrier: { name: 'y' } }))).toEqual([]);
  });

  it('finds an omitted top-level field', () => {
    const union = unionOf({ id: 1, note: 'n' }, { id: 2 });
    expect(missingFields({ id: 2 }, union)).toEqual(['note']);
  });

  it('finds an omitted nested field', () => {
    const union = unionOf({ carrier: { name: 'x', phone: null } }, { carrier: { name: 'y' } });
    expect(missingFields({ carrier: { name: 'y' } }, union)).toEqual(['carrier.phone']);
  });

  it('does not count the children of a null parent as missing', () => {
    const union = unionOf({ id: 1, carrier: { name: 'x', address: { city: 'c' } } });
    expect(missingFields({ id: 2, carrier: null }, union)).toEqual([]);
    expect(missingFields({ id: 2, carrier: { name: 'y', address: null } }, union)).toEqual([]);
  });

  it('counts an omitted parent once, not its children', () => {
    const union = unionOf({ id: 1, carrier: { name: 'x', address: { city: 'c' } } });
    expect(missingFields({ id: 2 }, union)).toEqual(['carrier']);
  });

  it('does not count the children of a scalar where another item has an object', () => {
    const union = unionOf({ carrier: { name: 'x' } });
    expect(missingFields({ carrier: 'x' }, union)).toEqual([]);
  });

  it('finds a field omitted in the elements of an array', () => {
    const union = unionOf({ parcels: [{ weight: 1, size: 2 }] });
    expect(missingFields({ parcels: [{ weight: 3 }] }, union)).toEqual(['parcels[].size']);
  });

  it('does not count element fields of an empty array as missing', () => {
    const union = unionOf({ parcels: [{ weight: 1 }] });
    expect(missingFields({ parcels: [] }, union)).toEqual([]);
  });

  it('finds a field omitted in the items of a top-level array', () => {
    expect(missingFields([{ id: 1 }], unionOf([{ id: 1, name: 'x' }]))).toEqual(['[].name']);
  });
});

describe('missingFields, for the cases a review found', () => {
  it('finds a field omitted in arrays of arrays', () => {
    expect(missingFields({ m: [[{ x: 1 }]] }, fieldPaths({ m: [[{ x: 1, y: 2 }]] }))).toEqual(['m[][].y']);
    expect(missingFields([[{ x: 1 }]], fieldPaths([[{ x: 1, y: 2 }]]))).toEqual(['[][].y']);
  });

  it('finds a field omitted below a key that contains a dot', () => {
    expect(missingFields({ 'a.b': {} }, fieldPaths({ 'a.b': { c: 1 } }))).toEqual(['["a.b"].c']);
  });
});

describe('shapeOf', () => {
  /** The plain recursion shapeOf shortcuts for scalar fields (every field recursed into). */
  const reference = (value: unknown, depth = 0): string => {
    if (depth > 4) return '';
    if (Array.isArray(value))
      return value.length === 0 ? '-' : `[${[...new Set(value.map((e) => reference(e, depth + 1)))].sort().join('|')}]`;
    if (value === null || typeof value !== 'object') return '-';
    let shape = '{';
    for (const [key, child] of Object.entries(value))
      shape += `${/^[\w$-]+$/.test(key) ? key : JSON.stringify(key)}:${reference(child, depth + 1)},`;
    return `${shape}}`;
  };

  it('is what the plain recursion gives, at every depth', () => {
    const deep = { a: { b: { c: { d: { e: 1, f: { g: 2 }, h: [] } } } }, i: null };
    for (const value of [
      { id: 'x', n: 1, s: null, t: '' },
      deep,
      [deep, { 'a b': [1, { c: 2 }] }],
      { a: [[[[[[1]]]]]] },
      {},
      [],
      3,
    ]) {
      expect(shapeOf(value)).toBe(reference(value));
    }
  });
});

describe('skeletons: a shape told without writing it', () => {
  /** A random JSON value of a few keys and kinds, nested up to 7 levels (beyond MAX_DEPTH). */
  function randomValue(next: () => number, depth = 0): unknown {
    const r = next();
    if (depth > 6 || r < 0.3) return [null, 1, '', 'x', true][Math.floor(next() * 5)];
    if (r < 0.4) return next() < 0.5 ? [] : [randomValue(next, depth + 1)];
    const out: Record<string, unknown> = {};
    for (const key of ['a', 'b', 'c.d', 'e'].slice(0, 1 + Math.floor(next() * 4)))
      if (next() < 0.8) out[key] = randomValue(next, depth + 1);
    return out;
  }

  it('a value fits the skeleton of another exactly when shapeOf gives both one string (where there is a skeleton)', () => {
    const next = prng(12);
    let fits = 0;
    let checked = 0;
    for (let i = 0; i < 3000; i += 1) {
      const a = randomValue(next);
      const b = next() < 0.5 ? structuredClone(a) : randomValue(next);
      const skeleton = skeletonOf(a);
      if (skeleton === undefined) continue;
      checked += 1;
      const same = shapeOf(a) === shapeOf(b);
      expect(fitsSkeleton(b, skeleton), `${JSON.stringify(a)} / ${JSON.stringify(b)}`).toBe(same);
      if (same) fits += 1;
    }
    // Both sides of the property were exercised.
    expect(fits).toBeGreaterThan(500);
    expect(checked - fits).toBeGreaterThan(500);
  });

  it('tells apart what shapeOf tells apart: key order, an empty object, null against an object, a non-empty array', () => {
    const skeleton = skeletonOf({ a: 1, b: { c: null } });
    if (skeleton === undefined) throw new Error('no skeleton');
    expect(fitsSkeleton({ a: 'x', b: { c: 2 } }, skeleton)).toBe(true);
    expect(fitsSkeleton({ b: { c: 2 }, a: 'x' }, skeleton)).toBe(false);
    expect(fitsSkeleton({ a: 1, b: {} }, skeleton)).toBe(false);
    expect(fitsSkeleton({ a: 1, b: null }, skeleton)).toBe(false);
    expect(fitsSkeleton({ a: [1], b: { c: 2 } }, skeleton)).toBe(false);
    expect(fitsSkeleton({ a: [], b: { c: 2 } }, skeleton)).toBe(true);
    expect(skeletonOf({ a: [1] })).toBeUndefined();
  });

  it("groups a page's items as writing every shape does", () => {
    const next = prng(7);
    for (let page = 0; page < 50; page += 1) {
      const kinds = Array.from({ length: 3 }, () => randomValue(next));
      const items = Array.from({ length: 40 }, (_, i) => ({
        id: i,
        ...(structuredClone(kinds[Math.floor(next() * 3)]) as object),
      }));
      const byShape = new Map<string, number[]>();
      for (const item of items) byShape.set(shapeOf(item), [...(byShape.get(shapeOf(item)) ?? []), item.id]);
      const grouped = summariseItems(items).shapes.map((g) => [g.shape, g.indexes.map((i) => items[i]?.id)]);
      expect(grouped).toEqual([...byShape]);
    }
  });
});
