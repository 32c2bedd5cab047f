/**
 * Field sets of JSON values, for spec §Generic rules for optional fields 1: an optional field
 * without data is null, never omitted, so every item of a list carries every field.
 *
 * A path is a list of segments: a key, or ELEMENT for "an element of this array" (every element
 * shares it). Sets hold paths encoded as JSON, so keys containing `.` or `[` stay unambiguous.
 * Values nested deeper than MAX_DEPTH are not followed.
 */

const MAX_DEPTH = 4;
/** The segment for the elements of an array. */
const ELEMENT = 0;
type Segment = string | typeof ELEMENT;

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function collect(value: unknown, prefix: Segment[], depth: number, out: Set<string>): void {
  if (depth > MAX_DEPTH) return;
  if (Array.isArray(value)) {
    for (const element of value) collect(element, [...prefix, ELEMENT], depth + 1, out);
    return;
  }
  if (!isObject(value)) return;
  for (const [key, child] of Object.entries(value)) {
    const path = [...prefix, key];
    out.add(JSON.stringify(path));
    collect(child, path, depth + 1, out);
  }
}

/** Every field path of `value`, encoded. */
export function fieldPaths(value: unknown): Set<string> {
  const out = new Set<string>();
  collect(value, [], 0, out);
  return out;
}

/** A path as a reader writes it: `carrier.name`, `tags[].id`, `["a.b"].c`. */
export function displayPath(encoded: string): string {
  const segments = JSON.parse(encoded) as Segment[];
  return segments
    .map((s, i) =>
      s === ELEMENT ? '[]' : /^[A-Za-z_$][\w$-]*$/.test(s) ? `${i === 0 ? '' : '.'}${s}` : `[${JSON.stringify(s)}]`,
    )
    .join('');
}

/**
 * The paths of `union` that `value` lacks, for display. A path below a field that is null, a
 * scalar or an empty array is not missing: the parent has no data to hold it.
 */
export function missingFields(value: unknown, union: ReadonlySet<string>): string[] {
  const own = fieldPaths(value);
  return [...union]
    .filter((path) => !own.has(path) && parentCanHold(value, JSON.parse(path) as Segment[]))
    .map(displayPath);
}

function parentCanHold(value: unknown, path: readonly Segment[]): boolean {
  let nodes: unknown[] = [value];
  for (const segment of path.slice(0, -1)) {
    nodes =
      segment === ELEMENT
        ? nodes.flatMap((n): unknown[] => (Array.isArray(n) ? (n as unknown[]) : []))
        : nodes.map((n) => (isObject(n) ? n[segment] : undefined));
    if (nodes.length === 0) return false;
  }
  const last = path.at(-1);
  // The final segment's holder: an object for a key, a non-empty array for an element.
  return last === ELEMENT ? nodes.some((n) => Array.isArray(n) && n.length > 0) : nodes.some(isObject);
}

/**
 * The shape of a value: its fields, recursively, and whether each holds an object, a non-empty
 * array or neither (null, a scalar, an empty array). Two items of one shape get the same verdict
 * from missingFields, so a page walk keeps one example per shape instead of every item. Built in
 * one pass, as it runs for every item of every page.
 */
export function shapeOf(value: unknown, depth = 0): string {
  if (depth > MAX_DEPTH) return '';
  if (Array.isArray(value)) {
    if (value.length === 0) return '-';
    const elements = new Set<string>();
    for (const element of value) elements.add(shapeOf(element, depth + 1));
    return `[${[...elements].sort().join('|')}]`;
  }
  if (!isObject(value)) return '-';
  // Keys in their own order: items whose fields come in another order form another group, which
  // the nulls check judges just as exactly; not sorting keeps this cheap.
  let shape = '{';
  for (const key in value) {
    const child = value[key];
    // A scalar or null is '-' (what shapeOf gives it above MAX_DEPTH), written without the call: most fields are.
    shape += `${quoted(key)}:${depth >= MAX_DEPTH || (child !== null && typeof child === 'object') ? shapeOf(child, depth + 1) : '-'},`;
  }
  return `${shape}}`;
}

/**
 * A shape held as a structure rather than a string, to tell that another value has the very same
 * shape (shapeOf gives both the same string) without writing it: a page's items mostly share one
 * shape. '-' is a scalar, null or empty array; '' a value below MAX_DEPTH; an object its keys in
 * order, with their skeletons. Undefined where a non-empty array sits within MAX_DEPTH: its shape
 * is a set of element shapes, which is left to shapeOf.
 */
export type Skeleton = '-' | '' | { keys: string[]; children: Skeleton[] };

export function skeletonOf(value: unknown, depth = 0): Skeleton | undefined {
  if (depth > MAX_DEPTH) return '';
  if (Array.isArray(value)) return value.length === 0 ? '-' : undefined;
  if (!isObject(value)) return '-';
  const keys: string[] = [];
  const children: Skeleton[] = [];
  for (const key in value) {
    const child = skeletonOf(value[key], depth + 1);
    if (child === undefined) return undefined;
    keys.push(key);
    children.push(child);
  }
  return { keys, children };
}

/** Whether `value` has the shape the skeleton holds: true only where shapeOf gives both one string. */
export function fitsSkeleton(value: unknown, skeleton: Skeleton, depth = 0): boolean {
  if (skeleton === '') return true;
  if (skeleton === '-') return Array.isArray(value) ? value.length === 0 : !isObject(value);
  if (!isObject(value)) return false;
  const { keys, children } = skeleton;
  let i = 0;
  for (const key in value) {
    if (i >= keys.length || keys[i] !== key) return false;
    const child = children[i];
    if (child === undefined || !fitsSkeleton(value[key], child, depth + 1)) return false;
    i += 1;
  }
  return i === keys.length;
}

const quotedKeys = new Map<string, string>();

/** A key as it appears in a shape: quoted when it has delimiter characters (cached: keys repeat). */
function quoted(key: string): string {
  let q = quotedKeys.get(key);
  if (q === undefined) {
    q = /^[\w$-]+$/.test(key) ? key : JSON.stringify(key);
    if (quotedKeys.size < 10_000) quotedKeys.set(key, q);
  }
  return q;
}
