/**
 * Reading an OpenAPI document's schemas as JSON Schema 2020-12, which is what ajv validates with.
 *
 * OpenAPI 3.1 schemas are JSON Schema 2020-12 already (OAS 3.1 §4.8.24). OpenAPI 3.0 schemas are a
 * dialect of draft-04 that differs where it matters for null: `nullable: true` admits null
 * alongside `type` (OAS 3.0.3 §4.7.24.1), which 2020-12 writes `type: [T, "null"]`; and
 * `exclusiveMinimum`/`exclusiveMaximum` are booleans qualifying `minimum`/`maximum`. Those are
 * rewritten here; everything else 3.0 adds (`example`, `xml`, `discriminator`...) is an annotation
 * that ajv, without strict mode, ignores.
 */

import { isObject, type Json } from './pointer.js';

/** Schema keywords whose value is a schema, and those whose value is a map or list of schemas. */
const SUBSCHEMA = ['items', 'additionalProperties', 'not', 'contains', 'propertyNames', 'if', 'then', 'else'];
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', 'dependentSchemas'];
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];

/** One OpenAPI 3.0 schema object, and every schema inside it, as JSON Schema 2020-12 (a copy). */
export function fromOpenApi30(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  const out: Json = { ...schema };
  for (const key of SUBSCHEMA) if (key in out) out[key] = fromOpenApi30(out[key]);
  for (const key of SUBSCHEMA_MAPS) {
    const map = out[key];
    if (isObject(map)) out[key] = Object.fromEntries(Object.entries(map).map(([k, v]) => [k, fromOpenApi30(v)]));
  }
  for (const key of SUBSCHEMA_LISTS) {
    const list = out[key];
    if (Array.isArray(list)) out[key] = list.map((s) => fromOpenApi30(s));
  }
  for (const [exclusive, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
    if (typeof out[exclusive] !== 'boolean') continue;
    if (out[exclusive] === true && typeof out[bound] === 'number') {
      out[exclusive] = out[bound];
      delete out[bound];
    } else {
      delete out[exclusive];
    }
  }
  if (out.nullable !== true) {
    delete out.nullable;
    return out;
  }
  delete out.nullable;
  // A $ref's siblings are ignored in 3.0, but `nullable` beside one is common and means what it says.
  if (typeof out.$ref === 'string') return { anyOf: [{ $ref: out.$ref }, { type: 'null' }] };
  if (typeof out.type === 'string') {
    out.type = [out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
    return out;
  }
  // Without a type (an allOf, say) OAS 3.0.3 leaves nullable without effect, but documents use it
  // to mean "or null": read it that way rather than fail a conformant null.
  return { anyOf: [out, { type: 'null' }] };
}

/**
 * The whole document with every schema of an OpenAPI 3.0 document rewritten (`fromOpenApi30`):
 * component schemas and every `schema` of a parameter, header or media type. A 3.1 document is
 * returned as it is.
 */
export function documentAsJsonSchema(document: Json): Json {
  if (typeof document.openapi !== 'string' || !document.openapi.startsWith('3.0')) return document;
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (!isObject(node)) return node;
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, k === 'schema' ? fromOpenApi30(v) : rewrite(v)]));
  };
  const out = rewrite(document) as Json;
  const components = out.components;
  if (isObject(components) && isObject(components.schemas)) {
    out.components = { ...components, schemas: Object.fromEntries(Object.entries(components.schemas).map(([k, v]) => [k, fromOpenApi30(v)])) };
  }
  return out;
}
