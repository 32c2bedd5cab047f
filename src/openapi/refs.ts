import { isObject, type Json } from './pointer.js';

/**
 * Walking an OpenAPI document for its `$ref`s (swagger2.ts rewrites them to where a conversion
 * moved their targets, self.ts to where `$self` makes them lead, oas32.ts replaces Media Type
 * ones), without taking data for structure or a name for a keyword: a `$ref` inside an `example`
 * or `default` value, an `enum` or an extension is data, not a reference; but a schema property
 * named `example` or `default`, a `default` response, an `x-request-id` header are names in a map,
 * and what they hold is walked.
 */

/** Keys whose values are data: examples, defaults, enumerations, constants, Example Objects' values. */
const DATA = new Set(['example', 'default', 'enum', 'const', 'dataValue', 'serializedValue', 'value']);

/** Keys whose values are maps from names (property names, status codes, media types, component names…) to objects. */
const NAME_MAPS = new Set([
  'properties',
  'patternProperties',
  'definitions',
  '$defs',
  'dependentSchemas',
  'schemas',
  'parameters',
  'responses',
  'headers',
  'securitySchemes',
  'securityDefinitions',
  'requestBodies',
  'links',
  'callbacks',
  'pathItems',
  'mediaTypes',
  'paths',
  'webhooks',
  'content',
  'encoding',
  'additionalOperations',
]);

/** Whether the value at `key` of an object (not a map of names) is data, never walked: see DATA; `examples` as a schema's list (a map of Example Objects is walked); extensions. */
export function isDataKey(key: string, value: unknown): boolean {
  return DATA.has(key) || key.startsWith('x-') || (key === 'examples' && Array.isArray(value));
}

/** Whether the object at `key` is a map of names (its keys are never keywords). */
export function isNameMap(key: string): boolean {
  return NAME_MAPS.has(key);
}

/**
 * The value with every `$ref` string passed through `map`, outside data. An object met twice (a
 * YAML alias, a schema shared by a conversion) is rewritten once and shared; parts without a
 * `$ref` to change are the value's own. `stopAtId`: below a schema with an `$id`, JSON Schema sets
 * the base of its references, and they are left as they are.
 */
export function mapRefs(node: unknown, map: (ref: string) => string, options: { stopAtId?: boolean } = {}): unknown {
  const done = [new Map<object, unknown>(), new Map<object, unknown>()];
  const walk = (value: unknown, names: boolean): unknown => {
    if (value === null || typeof value !== 'object') return value;
    const memo = done[names ? 1 : 0] as Map<object, unknown>;
    const known = memo.get(value);
    if (known !== undefined) return known;
    let out: unknown = value;
    if (Array.isArray(value)) {
      const items = value.map((v) => walk(v, false));
      if (items.some((v, i) => v !== value[i])) out = items;
    } else if (!(options.stopAtId && !names && typeof (value as Json).$id === 'string')) {
      let copy: Json | undefined;
      for (const [key, child] of Object.entries(value as Json)) {
        let next: unknown;
        if (names) next = walk(child, false);
        else if (key === '$ref' && typeof child === 'string') next = map(child);
        else if (isDataKey(key, child)) continue;
        else next = walk(child, isObject(child) && isNameMap(key));
        if (next !== child) (copy ??= { ...(value as Json) })[key] = next;
      }
      out = copy ?? value;
    }
    memo.set(value, out);
    return out;
  };
  return walk(node, false);
}
