import type { QueryParameterSpec } from '../carrier/endpoint-specs.js';
import { isObject, pointerOf, resolve, type Json } from './pointer.js';
import { isDataKey, isNameMap } from './refs.js';

/**
 * What OpenAPI 3.2 (September 2025) adds that the harness reads, as a thin layer over the 3.1
 * reading (issue 37 item 9; 3.2's schemas are JSON Schema 2020-12 as 3.1's, and a 3.1 document is
 * a valid 3.2 one). @readme/openapi-parser's bundle (json-schema-ref-parser) reads 3.2 documents
 * as it reads any JSON; what it does not know is here:
 *
 * - `$self` (OAS 3.2, OpenAPI Object): the base URI of the document's relative references, applied before
 *   the parser follows them (self.ts).
 * - `in: querystring` (Parameter Object): the whole query string, one parameter described by `content`.
 *   One of application/x-www-form-urlencoded with an object schema is a set of query fields:
 *   `normalise` adds each as an `in: query` parameter (required when the querystring and the
 *   schema both require it; its example from the media type's), so the endpoint model fills them
 *   as it fills query parameters and --parameter names them one by one. Any other (JSON, say) is
 *   one value the harness does not serialise itself: a required one is sent as its example's
 *   `serializedValue` (Example Object), which is what goes on the wire, else the endpoint is skipped
 *   until --parameter NAME=VALUE gives the whole query string (`querystringSpecs`).
 * - The `query` operation and `additionalOperations` (Path Item Object): operations, counted and linted as
 *   any (`operationsOf`); the endpoints under test stay the GETs.
 * - `itemSchema` (Media Type Object): a sequential media type (application/jsonl, text/event-stream…)
 *   describes each item of a stream; the harness does not judge streams (`streamGap`).
 * - Media Type Objects may be `$ref`s to `components/mediaTypes` (Components Object): `normalise` puts a copy
 *   where it is used, so that the readers find `schema` where 3.1 has it.
 * - Tags' `parent` and `kind`, `summary` of responses, the device authorization flow…: nothing the
 *   harness reads.
 */

/** Whether a bundled document is OpenAPI 3.2 (`3.2`, `3.2.0`…: 3.2's `openapi` field may leave the patch number out). */
export function isOpenApi32(document: Json): boolean {
  return typeof document.openapi === 'string' && /^3\.2(\.|$)/.test(document.openapi);
}

/** The methods of a Path Item's fixed operation fields, 3.2's `query` included (OAS 3.2, Path Item Object). */
export const OPERATION_FIELDS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace', 'query'] as const;

/** One operation of a path item: its method as the request sends it, and its place under the path item. */
export interface PathOperation {
  /** `get`, `query`, or an `additionalOperations` key as written (`LINK`). */
  method: string;
  /** The tokens after the path item's pointer: `['get']`, `['additionalOperations', 'LINK']`. */
  at: string[];
  value: Json;
}

/** Every operation of a (resolved) path item: its fixed fields, then 3.2's `additionalOperations`. */
export function operationsOf(pathItem: Json): PathOperation[] {
  const out: PathOperation[] = [];
  for (const method of OPERATION_FIELDS) {
    const value = pathItem[method];
    if (isObject(value)) out.push({ method, at: [method], value });
  }
  if (isObject(pathItem.additionalOperations)) {
    for (const [method, value] of Object.entries(pathItem.additionalOperations))
      if (isObject(value)) out.push({ method, at: ['additionalOperations', method], value });
  }
  return out;
}

/** How many operations a (resolved) path item has beside the eight fixed methods of 3.0 and 3.1: 3.2's `query` and `additionalOperations`. */
export function operationsBeyond31(pathItem: Json): number {
  return operationsOf(pathItem).filter((o) => o.method === 'query' || o.at[0] === 'additionalOperations').length;
}

// --- normalise --------------------------------------------------------------------------------

const FORM = 'application/x-www-form-urlencoded';

/**
 * A querystring parameter's one media type and its object schema's properties (each by the
 * pointer of its schema), when it is a form; undefined otherwise. `at`: the parameter's pointer.
 */
function formOf(
  document: Json,
  parameter: Json,
  at: string,
): { media: Json; properties: Json; required: Set<string> } | undefined {
  const content = isObject(parameter.content) ? parameter.content : {};
  const types = Object.keys(content);
  if (types.length !== 1 || types[0]?.split(';')[0]?.trim().toLowerCase() !== FORM) return undefined;
  const type = types[0];
  const found = resolve(document, content[type], `${at}/content/${pointerOf(type)}`);
  const media = found.value;
  if (!isObject(media)) return undefined;
  const schema = resolve(document, media.schema, `${found.pointer}/schema`);
  if (!isObject(schema.value)) return undefined;
  const properties: Json = {};
  const required = new Set<string>();
  const merge = (s: Json, at: string, depth: number): void => {
    if (depth > 8) return;
    (Array.isArray(s.allOf) ? (s.allOf as unknown[]) : []).forEach((member, i) => {
      const m = resolve(document, member, `${at}/allOf/${i}`);
      if (isObject(m.value)) merge(m.value, m.pointer, depth + 1);
    });
    if (isObject(s.properties))
      for (const name of Object.keys(s.properties)) properties[name] = `${at}/properties/${pointerOf(name)}`;
    for (const r of Array.isArray(s.required) ? (s.required as unknown[]) : [])
      if (typeof r === 'string') required.add(r);
  };
  merge(schema.value, schema.pointer, 0);
  if (Object.keys(properties).length === 0) return undefined;
  return { media, properties, required };
}

/** The media type's example, as data: `example`, else the first Example Object's `dataValue` or `value`, else its `serializedValue` read as a form. */
function formExample(document: Json, media: Json): Json | undefined {
  if (isObject(media.example)) return media.example;
  const examples = isObject(media.examples) ? Object.values(media.examples) : [];
  const first = resolve(document, examples[0], '').value;
  if (!isObject(first)) return undefined;
  if (isObject(first.dataValue)) return first.dataValue;
  if (isObject(first.value)) return first.value;
  if (typeof first.serializedValue === 'string')
    return Object.fromEntries(new URLSearchParams(first.serializedValue.replace(/^\?/, '')));
  return undefined;
}

/**
 * The document with 3.2's additions put where the 3.0/3.1 readers (endpoint-model.ts, lint's
 * rules) look: each form querystring's fields appended to its parameter list as query parameters
 * (appended: the pointers of the parameters already there do not move), each Media Type `$ref`
 * replaced by a copy of what it points to. Parts it does not change are shared with `document`.
 */
export function normalise(document: Json): Json {
  const withMedia = inlineMediaTypes(document, document) as Json;
  if (!isObject(withMedia.paths)) return withMedia;
  const paths: Json = {};
  let changed = false;
  for (const [template, raw] of Object.entries(withMedia.paths)) {
    if (!isObject(raw)) {
      paths[template] = raw;
      continue;
    }
    const item: Json = { ...raw };
    let itemChanged = false;
    const itemPointer = `#/paths/${pointerOf(template)}`;
    const expand = (holder: Json, holderPointer: string): void => {
      if (!Array.isArray(holder.parameters)) return;
      const fields: Json[] = [];
      for (const [i, p] of (holder.parameters as unknown[]).entries()) {
        const found = resolve(withMedia, p, `${holderPointer}/parameters/${i}`);
        const parameter = found.value;
        if (!isObject(parameter) || parameter.in !== 'querystring') continue;
        const form = formOf(withMedia, parameter, found.pointer);
        if (!form) continue;
        const example = formExample(withMedia, form.media);
        for (const [name, pointer] of Object.entries(form.properties)) {
          fields.push({
            name,
            in: 'query',
            required: parameter.required === true && form.required.has(name),
            schema: { $ref: pointer as string },
            ...(example && name in example ? { example: example[name] } : {}),
            'x-querystring': parameter.name,
          });
        }
      }
      if (fields.length === 0) return;
      holder.parameters = [...(holder.parameters as unknown[]), ...fields];
      itemChanged = true;
    };
    expand(item, itemPointer);
    for (const op of operationsOf(item)) {
      const copy: Json = { ...op.value };
      expand(copy, `${itemPointer}${op.at.map((t) => `/${pointerOf(t)}`).join('')}`);
      if (copy.parameters === op.value.parameters) continue;
      if (op.at[0] === 'additionalOperations')
        item.additionalOperations = { ...(item.additionalOperations as Json), [op.method]: copy };
      else item[op.method] = copy;
    }
    paths[template] = itemChanged ? item : raw;
    changed ||= itemChanged;
  }
  return changed ? { ...withMedia, paths } : withMedia;
}

/** Each `content` map's Media Type `$ref`s into `components/mediaTypes` replaced by a copy of their target (following a chain); parts without one are shared. */
function inlineMediaTypes(document: Json, node: unknown): unknown {
  const done = new Map<object, unknown>();
  const walk = (value: unknown, names: boolean, media: boolean): unknown => {
    if (value === null || typeof value !== 'object') return value;
    if (!media && done.has(value)) return done.get(value);
    let out: unknown = value;
    if (Array.isArray(value)) {
      const items = value.map((v) => walk(v, false, false));
      if (items.some((v, i) => v !== value[i])) out = items;
    } else {
      let copy: Json | undefined;
      for (const [key, child] of Object.entries(value as Json)) {
        let next: unknown;
        if (
          names &&
          media &&
          isObject(child) &&
          typeof child.$ref === 'string' &&
          child.$ref.startsWith('#/components/mediaTypes/')
        )
          next = walk(resolve(document, child, '').value, false, false);
        else if (names) next = walk(child, false, false);
        else if (isDataKey(key, child)) continue;
        else next = walk(child, isObject(child) && isNameMap(key), key === 'content');
        if (next !== child) (copy ??= { ...(value as Json) })[key] = next;
      }
      out = copy ?? value;
    }
    if (!media) done.set(value, out);
    return out;
  };
  return walk(node, false, false);
}

// --- the endpoint model's view ----------------------------------------------------------------

/**
 * The required querystring parameters of an operation that are not forms (a form's fields are
 * query parameters already: `normalise`), as the endpoint model's required query values: the
 * first example's `serializedValue` (OAS 3.2 Example Object: the value as serialised, what goes on the wire),
 * else none, and the endpoint is skipped until --parameter gives the whole query string.
 */
export function querystringSpecs(document: Json, parameters: readonly Json[]): QueryParameterSpec[] {
  const out: QueryParameterSpec[] = [];
  for (const parameter of parameters) {
    if (parameter.in !== 'querystring' || parameter.required !== true || formOf(document, parameter, '#')) continue;
    const name = String(parameter.name);
    const content = isObject(parameter.content) ? parameter.content : {};
    const type = (Object.keys(content)[0] ?? '(no content)').slice(0, 60);
    const media = resolve(document, content[type], '').value;
    const examples = [
      ...(isObject(parameter.examples) ? Object.values(parameter.examples) : []),
      ...(isObject(media) && isObject(media.examples) ? Object.values(media.examples) : []),
    ];
    const serialised = examples
      .map((e) => resolve(document, e, '').value)
      .find((e): e is Json => isObject(e) && typeof e.serializedValue === 'string');
    if (serialised)
      out.push({ name, value: String(serialised.serializedValue).replace(/^\?/, ''), from: 'example', whole: true });
    else
      out.push({
        name,
        whole: true,
        problem: `required querystring parameter ${name} is the whole query string as ${type}, and no example gives its serializedValue (the harness does not serialise ${type} itself; the value --parameter gives is sent as the whole query string)`,
      });
  }
  return out;
}

/** Media types whose items are a sequence (OAS 3.2, "Sequential Media Types"): JSON Lines, NDJSON, JSON Text Sequences, server-sent events, multipart/mixed. */
const SEQUENTIAL = /^(application\/(jsonl|x-ndjson|json-seq|x-jsonlines)|text\/event-stream|multipart\/mixed)$/;

/** Why a response is not judged when what it declares is a stream (an `itemSchema`, or a sequential media type); undefined otherwise. */
export function streamGap(code: string, content: Json): string | undefined {
  const streams = Object.entries(content).filter(
    ([type, media]) =>
      (isObject(media) && 'itemSchema' in media) || SEQUENTIAL.test(type.split(';')[0]?.trim().toLowerCase() ?? ''),
  );
  if (streams.length === 0) return undefined;
  return `its ${code} response is a stream (${streams.map(([t]) => t).join(', ')}${streams.some(([, m]) => isObject(m) && 'itemSchema' in m) ? ', itemSchema' : ''}), whose items the harness does not judge`;
}
