import { fitsSkeleton, shapeOf, skeletonOf, type Skeleton } from './fields.js';

/**
 * The items of a list response. The spec does not show the body of a paged response (spec
 * §Pagination shows only its headers), so both common shapes are read: a JSON array, or an
 * object with exactly one array-valued property (`{"items": [...], ...}`).
 */
export function extractItems(body: unknown): { items: unknown[] } | { problem: string } {
  if (Array.isArray(body)) return { items: body };
  if (body !== null && typeof body === 'object') {
    const arrays = Object.entries(body).filter(([, v]) => Array.isArray(v));
    if (arrays.length === 1) return { items: arrays[0]?.[1] as unknown[] };
    return { problem: arrays.length === 0 ? 'the list body is an object without an array of items' : `the list body has several arrays (${arrays.map(([k]) => k).join(', ')}); cannot tell which holds the items` };
  }
  return { problem: `the list body is ${JSON.stringify(body)}, not a JSON array of items` };
}

/** The identity of an item for duplicate detection: its `id` when it has one, else its JSON. */
export function itemKey(item: unknown): string {
  if (item !== null && typeof item === 'object' && 'id' in item) {
    const id = (item).id;
    if (typeof id === 'string' || typeof id === 'number') return `id:${String(id)}`;
  }
  return `json:${JSON.stringify(item)}`;
}

/** A short label of an item for messages. */
export function itemLabel(item: unknown): string {
  return keyLabel(itemKey(item));
}

/** The label of an item from its key. */
export function keyLabel(key: string): string {
  return key.startsWith('id:') ? `id ${key.slice(3)}` : key.slice(5, 85);
}

/** Items of one shape on a page (see fields.ts shapeOf): one example stands for all of them. */
export interface ShapeGroup {
  /** The shape (fields.ts shapeOf), computed once here for every item. */
  shape: string;
  example: unknown;
  /** Keys of the items of this shape, in page order. */
  keys: string[];
}

/**
 * What a page walk keeps of a page's items: their keys in order and their shapes, enough for
 * every check, without keeping a 100 000-item list in memory.
 */
export interface PageItems {
  keys: string[];
  shapes: ShapeGroup[];
}

/** `withShapes`: group the items by shape, which only the nulls check needs. */
export function summariseItems(items: readonly unknown[], withShapes = true): PageItems {
  const keys: string[] = [];
  const shapes = new Map<string, ShapeGroup>();
  // The group of the item before, with its shape as a skeleton: an item that fits it joins it
  // without its shape being written (most items of a page share one shape).
  let last: { group: ShapeGroup; skeleton: Skeleton | undefined } | undefined;
  const skeletons = new Map<ShapeGroup, Skeleton | undefined>();
  for (const item of items) {
    const key = itemKey(item);
    keys.push(key);
    if (!withShapes) continue;
    if (last?.skeleton !== undefined && fitsSkeleton(item, last.skeleton)) {
      last.group.keys.push(key);
      continue;
    }
    const shape = shapeOf(item);
    let group = shapes.get(shape);
    if (group) group.keys.push(key);
    else shapes.set(shape, (group = { shape, example: item, keys: [key] }));
    if (last?.group !== group) {
      if (!skeletons.has(group)) skeletons.set(group, skeletonOf(group.example));
      last = { group, skeleton: skeletons.get(group) };
    }
  }
  return { keys, shapes: [...shapes.values()] };
}
