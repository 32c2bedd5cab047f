import { mayBeObject } from '../lint/omission.js';
import { at, isObject, pointerOf, type Json } from '../openapi/pointer.js';

/**
 * Which of a list item's field paths are fields in the sense of spec §Generic rules for optional
 * fields 1, as its schema says (issue 37 item 2): NULLS-SAME-FIELDS holds every item to the
 * fields other items carry, and without a schema every key is a field. With one, two kinds of key
 * are not:
 * - the keys of a map (`additionalProperties` or `patternProperties` beside no declaration of that
 *   key: Jira's `Project.roles`, Adyen's `AdditionalSettings.properties`): data, which differ from
 *   item to item as values do;
 * - the properties only some branches of a union declare (Box's event `source`, a user, a file or
 *   a folder): an item of one branch does not omit another branch's properties.
 * Below such a key nothing is compared either. A key the schema does not declare in a plain object
 * is still compared: the schema says nothing of it, and items of one list carry the same fields.
 */

/** A path's segments, as src/battery/fields.ts encodes them: a key, or 0 for an array's elements. */
type Segment = string | 0;

const MAX_SCHEMAS = 200;

/** The schemas that certainly apply where these do: each, its $ref's target, its allOf members, and the one arm of a union that admits an object (the X of "X or null"). */
function certain(document: Json, pointers: readonly string[]): { all: string[]; unions: string[][] } {
  const all: string[] = [];
  const unions: string[][] = [];
  const seen = new Set<string>();
  const stack = [...pointers];
  while (stack.length > 0 && all.length < MAX_SCHEMAS) {
    const here = stack.pop() as string;
    if (seen.has(here)) continue;
    seen.add(here);
    const s = at(document, here);
    if (!isObject(s)) continue;
    all.push(here);
    if (typeof s.$ref === 'string' && s.$ref.startsWith('#')) stack.push(s.$ref);
    if (Array.isArray(s.allOf)) s.allOf.forEach((_, i) => stack.push(`${here}/allOf/${i}`));
    for (const k of ['anyOf', 'oneOf'] as const) {
      const arms = s[k];
      if (!Array.isArray(arms)) continue;
      const objects = arms.map((a, i) => [a, `${here}/${k}/${i}`] as const).filter(([a]) => mayBeObject(document, a));
      if (objects.length === 1) stack.push((objects[0] as readonly [unknown, string])[1]);
      else if (objects.length > 1) unions.push(objects.map(([, p]) => p));
    }
  }
  return { all, unions };
}

const declares = (document: Json, pointer: string, key: string): boolean => {
  const s = at(document, pointer);
  return isObject(s) && isObject(s.properties) && Object.hasOwn(s.properties, key);
};

const isMap = (document: Json, pointer: string): boolean => {
  const s = at(document, pointer);
  if (!isObject(s)) return false;
  // A property named as a placeholder (Mist's `ips: {"{vlan}": …}`) stands for keys that are data.
  const placeholder = isObject(s.properties) && Object.keys(s.properties).some((k) => /^\{[^{}]+\}$/.test(k));
  return (
    placeholder || isObject(s.additionalProperties) || s.additionalProperties === true || isObject(s.patternProperties)
  );
};

/**
 * Whether NULLS-SAME-FIELDS compares the field at `path` of items of the schema at `pointer`.
 * Below a property every arm of a union declares (HERE's geofence, a circle or a polygon, each with
 * its own `definition`), the arms stay alternatives: a key only some of them declare (the polygon's
 * `points`) is one branch's, not an omission of the others.
 */
export function comparedField(document: Json, pointer: string, path: readonly Segment[]): boolean {
  // Each alternative: the schemas that certainly apply together on one branch.
  let alternatives: string[][] = [[pointer]];
  for (const segment of path) {
    // A placeholder's own key (`"{vlan}"`): data, as the keys it stands for.
    if (typeof segment === 'string' && /^\{[^{}]+\}$/.test(segment)) return false;
    const next: string[][] = [];
    let declaredBy = 0;
    let known = 0;
    for (const current of alternatives) {
      if (current.length === 0) continue;
      known += 1;
      const { all, unions } = certain(document, current);
      if (segment === 0) {
        next.push(
          all
            .filter((p) => isObject(at(document, p)) && isObject((at(document, p) as Json).items))
            .map((p) => `${p}/items`),
        );
        declaredBy += 1;
        continue;
      }
      const declaring = all.filter((p) => declares(document, p, segment));
      if (declaring.length > 0) {
        next.push(declaring.map((p) => `${p}/properties/${pointerOf(segment)}`));
        declaredBy += 1;
        continue;
      }
      // Declared by some arms of a union only: another branch's property, not an omission.
      const inArms: string[][] = [];
      for (const arms of unions) {
        const found = arms.map((arm) => certain(document, [arm]).all.filter((p) => declares(document, p, segment)));
        const some = found.filter((f) => f.length > 0).length;
        if (some > 0 && some < arms.length) return false;
        if (some === arms.length)
          for (const f of found) inArms.push(f.map((p) => `${p}/properties/${pointerOf(segment)}`));
      }
      if (inArms.length > 0) {
        next.push(...inArms);
        declaredBy += 1;
        continue;
      }
      // A key of a map is data; under a union of objects, which branch's key it is cannot be told.
      if (all.some((p) => isMap(document, p)) || unions.length > 0) return false;
    }
    if (known === 0) return true;
    // Declared on some branches only (or beside a map on none): one branch's key.
    if (declaredBy > 0 && declaredBy < known) return false;
    alternatives = declaredBy === 0 ? [[]] : next;
  }
  return true;
}

/** comparedField over encoded paths (src/battery/fields.ts), each decided once per list. */
export function fieldFilter(document: Json | undefined, pointer: string | undefined): (encoded: string) => boolean {
  if (!document || pointer === undefined) return () => true;
  const memo = new Map<string, boolean>();
  return (encoded) => {
    let known = memo.get(encoded);
    if (known === undefined) {
      known = comparedField(document, pointer, JSON.parse(encoded) as Segment[]);
      if (memo.size < 10_000) memo.set(encoded, known);
    }
    return known;
  };
}
