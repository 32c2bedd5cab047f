import { isObject, resolve, type Json } from '../openapi/pointer.js';
import { allowsNull } from './rules.js';

/**
 * What RESOURCE-FIELDS-PRESENT tells a server that omitted declared properties. "Send null
 * instead" is the spec's remedy for an optional property (spec §Generic rules for optional fields
 * 1), whatever its schema says of null: the spec over the document (issue 37 item 1), and
 * RESOURCE-SCHEMA accepts that null. Where the document's schema does not allow null for it, the
 * message says so too: that is the document's fault, which `lint` reports as OAS-NULLABLE. A
 * required property that does not allow null has a value whenever it is sent: send it.
 *
 * The schema is read as lint's OAS-NULLABLE reads it: required when the schema or one of its
 * `allOf` members lists it, null allowed as allowsNull says. Paths are missingDeclared's
 * (src/battery/resources.ts): `a.b`, `lines[0].amount`; a name it cannot follow keeps the
 * spec's remedy.
 */

type Kind = 'null' | 'document' | 'value';

/** Whether a value that is an object may meet a schema: false only where its `type`, `const` or `enum` rule objects out. */
export function mayBeObject(document: Json, schema: unknown, depth = 0): boolean {
  if (schema === false) return false;
  if (!isObject(schema) || depth > 16) return true;
  // 3.1: a type beside a $ref applies with it (JSON Schema 2020-12 core §8.2.3.1).
  if (!('type' in schema) && typeof schema.$ref === 'string')
    return mayBeObject(document, resolve(document, { $ref: schema.$ref }, schema.$ref).value, depth + 1);
  const { type } = schema;
  if (typeof type === 'string') return type === 'object';
  if (Array.isArray(type)) return type.includes('object');
  if ('const' in schema) return isObject(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.some(isObject);
  if (Array.isArray(schema.allOf) && !schema.allOf.every((m) => mayBeObject(document, m, depth + 1))) return false;
  for (const k of ['anyOf', 'oneOf'] as const)
    if (Array.isArray(schema[k]) && !schema[k].some((a) => mayBeObject(document, a, depth + 1))) return false;
  return true;
}

/**
 * The schema of property `name` of `schema` (its own, an `allOf` member's, or that of the one
 * anyOf/oneOf arm that admits an object: the X of "X or null", an expanded object), and whether it is required there; `declared` is false for a name that is only
 * listed in `required`, which another `allOf` member may declare.
 */
function propertyOf(
  document: Json,
  schema: unknown,
  name: string,
  depth = 0,
): { schema: unknown; required: boolean; declared: boolean } | undefined {
  const s = resolve(document, schema, '').value;
  if (!isObject(s) || depth > 16) return undefined;
  const listed = (v: unknown): boolean => Array.isArray(v) && v.includes(name);
  const allOf = Array.isArray(s.allOf) ? (s.allOf as unknown[]) : [];
  const required =
    listed(s.required) ||
    allOf.some((m) => {
      const v = resolve(document, m, '').value;
      return isObject(v) && listed(v.required);
    });
  if (isObject(s.properties) && Object.hasOwn(s.properties, name))
    return { schema: s.properties[name], required, declared: true };
  for (const member of allOf) {
    const found = propertyOf(document, member, name, depth + 1);
    if (found?.declared) return { ...found, required: found.required || required };
  }
  // The one arm that admits an object, as missingDeclared follows it (src/battery/resources.ts collectDeclared).
  for (const key of ['anyOf', 'oneOf'] as const) {
    const objects = (Array.isArray(s[key]) ? (s[key] as unknown[]) : []).filter((arm) => mayBeObject(document, arm));
    if (objects.length === 1) return propertyOf(document, objects[0], name, depth + 1);
  }
  // Listed in required with no schema: anything, null included.
  return required ? { schema: {}, required: true, declared: false } : undefined;
}

/** Which remedy an omitted property at `path` (missingDeclared's form) of the schema at `pointer` has. */
function kindOf(document: Json, pointer: string, path: string): Kind {
  const tokens = path.match(/\[\d+\]|[^.[\]]+/g) ?? [];
  let schema: unknown = { $ref: pointer };
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i] as string;
    if (token.startsWith('[')) {
      const s = resolve(document, schema, '').value;
      if (!isObject(s) || s.items === undefined) return 'null';
      schema = s.items;
      continue;
    }
    const found = propertyOf(document, schema, token);
    if (!found) return 'null';
    if (i < tokens.length - 1) {
      schema = found.schema;
      continue;
    }
    if (allowsNull(document, found.schema)) return 'null';
    return found.required ? 'value' : 'document';
  }
  return 'null';
}

/** `omits "a", "b", which the schema declares (…)`, with the remedy the document allows for each. */
export function omissionMessage(document: Json, pointer: string, missing: readonly string[]): string {
  const quoted = (list: readonly string[]): string => list.map((m) => `"${m}"`).join(', ');
  const head = `omits ${quoted(missing)}, which the schema declares`;
  const by: Record<Kind, string[]> = { null: [], document: [], value: [] };
  for (const path of missing) by[kindOf(document, pointer, path)].push(path);
  if (by.document.length === 0 && by.value.length === 0) return `${head} (send null instead)`;
  const remedies: string[] = [];
  if (by.null.length > 0) remedies.push(`send null for ${quoted(by.null)} instead`);
  if (by.document.length > 0)
    remedies.push(
      `send null for ${quoted(by.document)} instead: optional, so null without data (spec §Generic rules for optional fields 1), though the document's schema does not say null (its finding OAS-NULLABLE, in the report's document findings)`,
    );
  if (by.value.length > 0)
    remedies.push(`the schema requires ${quoted(by.value)} and does not allow null: send the value`);
  return `${head} (${remedies.join('; ')})`;
}
