/**
 * Reading an OpenAPI document's schemas as JSON Schema 2020-12, which is what ajv validates with.
 *
 * OpenAPI 3.1 schemas are JSON Schema 2020-12 already (OAS 3.1 §4.8.24). OpenAPI 3.0 schemas are a
 * dialect of draft-04 that differs where it matters for null: `nullable: true` admits null
 * alongside `type` (OAS 3.0.3 §4.7.24.1), which 2020-12 writes `type: [T, "null"]`; and
 * `exclusiveMinimum`/`exclusiveMaximum` are booleans qualifying `minimum`/`maximum`. Those are
 * rewritten here; everything else 3.0 adds (`example`, `xml`, `discriminator`...) is an annotation
 * that ajv, without strict mode, ignores.
 *
 * `nullable` is read as 3.0 means it wherever it appears, 3.1 documents included, and so is
 * `x-nullable`, the vendor extension Swagger 2 converters write for it (issue 29 item 3): both
 * are how their authors say "or null", and real 3.1 documents keep them (Codat's has 13 beside a
 * `$ref`). Left as they are, ajv reads `nullable` as its own keyword, which refuses to compile
 * without `type` ("\"nullable\" cannot be used without \"type\""), and ignores `x-nullable`:
 * a conformant null would fail.
 */

import { isObject, type Json } from './pointer.js';

/** Schema keywords whose value is a schema, and those whose value is a map or list of schemas. */
export const SUBSCHEMA = [
  'items',
  'additionalProperties',
  'not',
  'contains',
  'propertyNames',
  'if',
  'then',
  'else',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
  'additionalItems',
];
export const SUBSCHEMA_MAPS = ['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions'];
export const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];

/** One OpenAPI 3.0 schema object, and every schema inside it, as JSON Schema 2020-12 (a copy). */
export function fromOpenApi30(schema: unknown): unknown {
  return rewriteSchema(schema, true);
}

/** One OpenAPI 3.1 schema object with `nullable`/`x-nullable` read as 3.0 means them (a copy). */
export function fromOpenApi31(schema: unknown): unknown {
  return rewriteSchema(schema, false);
}

function rewriteSchema(schema: unknown, v30: boolean): unknown {
  if (!isObject(schema)) return schema;
  const out: Json = { ...schema };
  for (const key of SUBSCHEMA) {
    if (!(key in out)) continue;
    const value = out[key];
    // draft-04's tuple form of `items` (an array of schemas), seen in converted documents.
    out[key] = Array.isArray(value) ? value.map((s) => rewriteSchema(s, v30)) : rewriteSchema(value, v30);
  }
  for (const key of SUBSCHEMA_MAPS) {
    const map = out[key];
    if (isObject(map)) out[key] = Object.fromEntries(Object.entries(map).map(([k, v]) => [k, rewriteSchema(v, v30)]));
  }
  for (const key of SUBSCHEMA_LISTS) {
    const list = out[key];
    if (Array.isArray(list)) out[key] = list.map((s) => rewriteSchema(s, v30));
  }
  // 3.1's exclusiveMinimum/Maximum are numbers already (JSON Schema 2020-12 validation §6.2).
  if (v30) {
    for (const [exclusive, bound] of [
      ['exclusiveMinimum', 'minimum'],
      ['exclusiveMaximum', 'maximum'],
    ] as const) {
      if (typeof out[exclusive] !== 'boolean') continue;
      if (out[exclusive] === true && typeof out[bound] === 'number') {
        out[exclusive] = out[bound];
        delete out[bound];
      } else {
        delete out[exclusive];
      }
    }
  }
  const nullable = out.nullable === true || out['x-nullable'] === true;
  delete out.nullable;
  delete out['x-nullable'];
  // 3.0: "This object cannot be extended with additional properties and any properties added SHALL
  // be ignored" (OAS 3.0.3 §4.7.25, Reference Object): Xero's `Contact: {$ref: Contact, type:
  // string}` is a Contact (issue 37 item 7). `nullable` (above) and readOnly/writeOnly are kept, as
  // their authors mean them (issue 29 item 3).
  if (v30 && typeof out.$ref === 'string') {
    for (const key of Object.keys(out))
      if (key !== '$ref' && key !== 'readOnly' && key !== 'writeOnly') delete out[key];
  }
  if (!nullable) return nullMemberAsBranch(out);
  if (typeof out.$ref === 'string') {
    // A $ref's siblings are ignored in 3.0 (OAS 3.0.3 §4.7.25), but `nullable` beside one is
    // common and means what it says; in 3.1 they apply with it (JSON Schema 2020-12 core §8.2.3.1).
    // readOnly/writeOnly stay on the wrapper: authors write them beside the $ref, and the harness reads them there (a writeOnly property is never served).
    const access = Object.fromEntries(
      (['readOnly', 'writeOnly'] as const).filter((k) => out[k] === true).map((k) => [k, true]),
    );
    return { anyOf: [v30 ? { $ref: out.$ref } : out, { type: 'null' }], ...access };
  }
  // `const` admits one value: null needs a branch of its own.
  if (!('const' in out) && (typeof out.type === 'string' || Array.isArray(out.type))) {
    const types = ([] as unknown[]).concat(out.type);
    if (!types.includes('null')) out.type = [...types, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
    return out;
  }
  // Without a type (an allOf, say) OAS 3.0.3 leaves nullable without effect, but documents use it
  // to mean "or null": read it that way rather than fail a conformant null.
  return { anyOf: [out, { type: 'null' }] };
}

/** A schema that says only "null" (`{type: "null"}`, perhaps with a description). */
function isBareNull(schema: unknown): boolean {
  return (
    isObject(schema) &&
    schema.type === 'null' &&
    Object.keys(schema).every((k) => k === 'type' || k === 'description' || k === 'title')
  );
}

/**
 * `allOf: [X, {type: "null"}]` read as "X or null". Converters write `nullable: true` beside a
 * `$ref` that way (APIs.guru's Codat: `currency: {allOf: [{$ref: …/currency}, {type: "null"}]}`,
 * 40-odd properties), which JSON Schema reads as "X and null": null alone, when X admits it, and
 * a string currency fails. Nobody writes a property that can only be null that way (`type:
 * "null"` says it), so the harness reads it as its authors meant, like `nullable` (issue 29
 * item 3: documents read as their authors meant them).
 */
function nullMemberAsBranch(schema: Json): Json {
  const members = schema.allOf;
  if (!Array.isArray(members) || members.length < 2 || !members.some(isBareNull)) return schema;
  const rest = members.filter((m) => !isBareNull(m));
  if (rest.length === 0) return schema;
  return { anyOf: [{ ...schema, allOf: rest }, { type: 'null' }] };
}

/**
 * The whole document with every schema rewritten: component schemas and every `schema` of a
 * parameter, header or media type. An OpenAPI 3.0 document is read as JSON Schema 2020-12
 * (`fromOpenApi30`); a 3.1 document is one already, but for `nullable`/`x-nullable` and
 * `allOf` with a null member (`fromOpenApi31`), and comes back as it is when it has none of them.
 */
export function documentAsJsonSchema(document: Json): Json {
  const v30 = typeof document.openapi === 'string' && document.openapi.startsWith('3.0');
  if (!v30 && !/"(?:x-)?nullable":true|"type":"null"/.test(JSON.stringify(document))) return document;
  const rewriteOne = (schema: unknown): unknown => rewriteSchema(schema, v30);
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (!isObject(node)) return node;
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, k === 'schema' ? rewriteOne(v) : rewrite(v)]));
  };
  const out = rewrite(document) as Json;
  const components = out.components;
  if (isObject(components) && isObject(components.schemas)) {
    out.components = {
      ...components,
      schemas: Object.fromEntries(Object.entries(components.schemas).map(([k, v]) => [k, rewriteOne(v)])),
    };
  }
  return out;
}
