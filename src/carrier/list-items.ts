import { fitsSkeleton, shapeOf, skeletonOf, type Skeleton } from './fields.js';

/**
 * The items of a list response. The spec does not show the body of a paged response (spec
 * §Pagination shows only its headers), so both common shapes are read: a JSON array, or an
 * object with exactly one array-valued property (`{"items": [...], ...}`), or the one the
 * document names (`property`).
 */
export function extractItems(
  body: unknown,
  property?: string,
): { items: unknown[] } | { problem: string; noArray?: true } {
  if (Array.isArray(body)) return { items: body };
  // The document names the wrapper's property (src/openapi/endpoint-model.ts): that one, whatever other arrays the body has.
  if (property !== undefined && body !== null && typeof body === 'object' && Object.hasOwn(body, property)) {
    const items = (body as Record<string, unknown>)[property];
    return Array.isArray(items)
      ? { items }
      : { problem: `the list body's "${property}" is ${JSON.stringify(items)?.slice(0, 80)}, not an array of items` };
  }
  if (body !== null && typeof body === 'object') {
    const arrays = Object.entries(body).filter(([, v]) => Array.isArray(v));
    if (arrays.length === 1) return { items: arrays[0]?.[1] as unknown[] };
    if (arrays.length === 0) return { problem: 'the list body is an object without an array of items', noArray: true };
    return {
      problem: `the list body has several arrays (${arrays.map(([k]) => k).join(', ')}); cannot tell which holds the items`,
    };
  }
  return {
    problem: `the list body is ${JSON.stringify(body)?.slice(0, 80)}, not a JSON array of items`,
    noArray: true,
  };
}

/**
 * The identity of an item for duplicate detection: its `id` when it is a string or a number (as
 * a string: `42` and `"42"` are one id), else its JSON. The two kinds never meet: an item keyed by
 * its JSON is digested apart from ids (see `KeyKind` and DigestSet), so an id spelled like
 * another item's JSON is not that item.
 *
 * The id is the very string JSON.parse made: keying a page allocates no string, and digesting a
 * flat string is ~3 times quicker than digesting a concatenation (`"id:" + id`).
 */
export function itemKey(item: unknown): { key: string; kind: KeyKind } {
  const id = itemId(item);
  return id === undefined ? { key: JSON.stringify(item), kind: KEY_JSON } : { key: id, kind: KEY_ID };
}

/** What an item's key is: its id, or its JSON. */
export type KeyKind = typeof KEY_ID | typeof KEY_JSON;
export const KEY_ID = 0;
export const KEY_JSON = 1;

/** An item's id as a string (a number's in decimal), or undefined when it has no string or number id. */
export function itemId(item: unknown): string | undefined {
  if (item !== null && typeof item === 'object' && 'id' in item) {
    const id = item.id;
    if (typeof id === 'string') return id;
    if (typeof id === 'number') return String(id);
  }
  return undefined;
}

/** A short label of an item for messages. */
export function itemLabel(item: unknown): string {
  const { key, kind } = itemKey(item);
  return labelOf(key, kind);
}

function labelOf(key: string, kind: KeyKind): string {
  return kind === KEY_ID ? `id ${key}` : key.slice(0, 80);
}

/** Items of one shape on a page (see fields.ts shapeOf): one example stands for all of them. */
export interface ShapeGroup {
  /** The shape (fields.ts shapeOf), computed once here for every item. */
  shape: string;
  example: unknown;
  /** The indexes of the items of this shape, in page order. */
  indexes: number[];
}

/**
 * What a page walk keeps of a page's items: their keys in order and their shapes, enough for
 * every check, without keeping a 100 000-item list in memory.
 */
export interface PageItems {
  /** Each item's key (see itemKey), in page order. */
  keys: string[];
  /** 1 where an item's key is its JSON (KEY_JSON); undefined when every item has an id. */
  jsonKeyed: Uint8Array | undefined;
  shapes: ShapeGroup[];
}

/** The kind of the key of item `i`. */
export function keyKindAt(items: PageItems, i: number): KeyKind {
  return items.jsonKeyed?.[i] === KEY_JSON ? KEY_JSON : KEY_ID;
}

/** The label of item `i` of a page, for messages. */
export function itemLabelAt(items: PageItems, i: number): string {
  return labelOf(items.keys[i] ?? '', keyKindAt(items, i));
}

/** Whether two pages hold the same items (by key) in the same order. */
export function sameItems(a: PageItems, b: PageItems): boolean {
  if (a.keys.length !== b.keys.length) return false;
  for (let i = 0; i < a.keys.length; i += 1)
    if (a.keys[i] !== b.keys[i] || keyKindAt(a, i) !== keyKindAt(b, i)) return false;
  return true;
}

/** `withShapes`: group the items by shape, which only the nulls check needs. */
export function summariseItems(items: readonly unknown[], withShapes = true): PageItems {
  const keys: string[] = [];
  let jsonKeyed: Uint8Array | undefined;
  const shapes = new Map<string, ShapeGroup>();
  // The group of the item before, with its shape as a skeleton: an item that fits it joins it
  // without its shape being written (most items of a page share one shape).
  let last: { group: ShapeGroup; skeleton: Skeleton | undefined } | undefined;
  const skeletons = new Map<ShapeGroup, Skeleton | undefined>();
  for (let i = 0; i < items.length; i += 1) {
    const item = items[i];
    const id = itemId(item);
    if (id !== undefined) keys.push(id);
    else {
      keys.push(JSON.stringify(item));
      (jsonKeyed ??= new Uint8Array(items.length))[i] = KEY_JSON;
    }
    if (!withShapes) continue;
    if (last?.skeleton !== undefined && fitsSkeleton(item, last.skeleton)) {
      last.group.indexes.push(i);
      continue;
    }
    const shape = shapeOf(item);
    let group = shapes.get(shape);
    if (group) group.indexes.push(i);
    else shapes.set(shape, (group = { shape, example: item, indexes: [i] }));
    if (last?.group !== group) {
      if (!skeletons.has(group)) skeletons.set(group, skeletonOf(group.example));
      last = { group, skeleton: skeletons.get(group) };
    }
  }
  return { keys, jsonKeyed, shapes: [...shapes.values()] };
}
