import type { EndpointSpec, QueryParameterSpec } from '../api/endpoint-specs.js';
import { PAGING_HEADER_NAMES } from '../api/paths.js';
import { operationsBeyond31, querystringSpecs, streamGap } from './oas32.js';
import { isObject, pointerOf, resolve, type Json } from './pointer.js';

/**
 * The endpoint model (issue 29): what the battery tests of an OpenAPI document, built once from
 * it, here and nowhere else. Every GET operation under `/tenants/{tenantId}/…` (spec
 * §Tenant-scoped endpoints) becomes one EndpointSpec that says how to request it validly (its
 * required query parameters and how each is filled), whether it is a list and where its items
 * sit, which schema its body is judged against, and, when something cannot be done, why: an
 * operation is never dropped silently, so each per-endpoint check lists every one, judged or
 * skipped with its reason.
 *
 * - A list (spec §Pagination: paging "applies to search endpoints and others returning multiple
 *   elements") is an operation that declares `page` or `size` or a paging header, or whose success
 *   body is an array, or a wrapper object around one (`{data: […], links: …}`, allOf members
 *   merged). A wrapper is told from a resource that merely has an array field by its shape: its
 *   one array property has a collection's name (`data`, `items`, `results`…) or sits among paging
 *   metadata only (`page`, `next_page_uri`, `has_more`…; `total_count` too when the operation
 *   takes paging parameters of any spelling, `per_page`, `limit`, `cursor`), and the path does
 *   not end in a path parameter.
 * - The success response is 200, else 2XX, else the lowest 2nn; its body is the JSON one:
 *   `application/json`, else a `+json` type other than problem+json (RFC 9457's error format),
 *   else a wildcard (`*∕*`, springdoc's default; `application/*`, `application/*+json`).
 * - A required query parameter is filled as a client would: the parameter's `example` or first
 *   `examples` value, its schema's `example`/`examples`, `default`, first `enum` value, else a
 *   value valid for the schema's type and format, which is marked invented: a 4xx to a request
 *   carrying an invented value is not the target's failure. `--parameter NAME=VALUE` (or
 *   `PATH:NAME=VALUE`, for one endpoint) overrides any of them, in the battery.
 */

const TENANT_PATH = /^\/tenants\/\{[^}/]+\}\/(.+)$/;

/** Names a list's one array property goes by in wrappers of real APIs. */
const COLLECTION_NAMES = new Set(['data', 'items', 'results', 'content', 'records', 'elements', 'values', 'entries', 'list', 'rows', 'hits', 'nodes', 'edges', 'objects', 'resources', 'collection', 'members', 'embedded', '_embedded']);
/** Words of the properties a wrapper has beside its items: paging and hypermedia metadata (`next_page_uri`, `totalCount`, `has_more`). */
const METADATA_WORDS = new Set(['sort', 'order', 'page', 'pages', 'total', 'next', 'prev', 'previous', 'first', 'last', 'cursor', 'continuation', 'token', 'count', 'offset', 'limit', 'skip', 'start', 'end', 'size', 'number', 'more', 'has', 'links', 'link', 'meta', 'metadata', 'paging', 'pagination', 'info', 'self', 'uri', 'url', 'href', 'object', 'kind', 'truncated', 'elements', 'results', 'items']);
/** Of those, the words only paging uses: one must be there, or `{total, lines: [...]}` (a cart) would pass for a list. */
const PAGING_WORDS = new Set(['page', 'pages', 'next', 'prev', 'previous', 'cursor', 'continuation', 'offset', 'limit', 'more', 'paging', 'pagination']);

/** A property name's words, lower case: `next_page_uri`, `nextPageUri` and `next-page-uri` are [next, page, uri]. */
export function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

/**
 * Whether the properties beside a body's one array make it a wrapper: all of them paging or
 * hypermedia metadata, at least one of them paging's own (Twilio's `{accounts: [...], page,
 * next_page_uri, ...}`). A false list would be judged by the paging checks and fail a conformant
 * server; a missed one is only not judged as a list: the test leans to the second.
 */
function isPagingMetadata(others: readonly string[], pagedByQuery: boolean): boolean {
  const words = others.map(wordsOf);
  return words.length > 0 && words.every((w) => w.length > 0 && w.every((x) => METADATA_WORDS.has(x))) && (pagedByQuery || words.some((w) => w.some((x) => PAGING_WORDS.has(x))));
}

/**
 * Whether an operation takes paging query parameters of any spelling (`per_page`, `pageSize`,
 * `limit`, `cursor`, `PageToken`): with one, a wrapper's metadata need not name paging itself
 * (GitHub's `{total_count, labels: [...]}` under `per_page` and `page`).
 */
export function pagedByQuery(names: readonly string[]): boolean {
  return names.some((n) => wordsOf(n).some((w) => PAGING_WORDS.has(w) || w === 'per'));
}

/** Where an operation's JSON body schema lives and which media type declares it. */
interface Body {
  mediaType: string;
  pointer: string;
}

/** application/json, or any `+json` structured syntax suffix (RFC 6839 §3.1), parameters ignored. */
function essence(type: string): string {
  return type.split(';')[0]?.trim().toLowerCase() ?? '';
}

/** How well a declared media type names the JSON body of a success: lower is better; undefined: not JSON. */
function jsonRank(type: string): number | undefined {
  const e = essence(type);
  if (e === 'application/json') return 0;
  if (e === 'application/problem+json') return 3;
  if (/^[a-z]+\/[^\s/*]+\+json$/.test(e)) return 1;
  // Wildcards (springdoc declares `*/*` by default): the body is whatever the server sends, JSON here.
  if (e === '*/*' || e === 'application/*' || e === 'application/*+json') return 2;
  return undefined;
}

/** The first 2xx response of an operation (200, then 2XX, then any 2nn), with where it lives. */
function successResponse(document: Json, operationPointer: string, operation: Json): { code: string; value: Json; pointer: string } | undefined {
  const responses = isObject(operation.responses) ? operation.responses : {};
  const code = ['200', '2XX', '2xx', ...Object.keys(responses).filter((k) => /^2\d\d$/.test(k)).sort()].find((k) => k in responses);
  if (code === undefined) return undefined;
  const found = resolve(document, responses[code], `${operationPointer}/responses/${pointerOf(code)}`);
  return isObject(found.value) ? { code, value: found.value, pointer: found.pointer } : undefined;
}

/** The JSON body of a response, or why there is none to judge. */
function bodyOf(response: { code: string; value: Json; pointer: string }): Body | { gap: string } {
  const content = isObject(response.value.content) ? response.value.content : {};
  const types = Object.keys(content);
  if (types.length === 0) return { gap: `its ${response.code} response declares no body` };
  const ranked = types.map((t) => ({ t, rank: jsonRank(t) })).filter((x): x is { t: string; rank: number } => x.rank !== undefined);
  const best = ranked.sort((a, b) => a.rank - b.rank)[0];
  if (!best) return { gap: streamGap(response.code, content) ?? `its ${response.code} response declares no JSON body (${types.join(', ')})` };
  const media = content[best.t];
  if (!isObject(media) || !('schema' in media)) return { gap: streamGap(response.code, content) ?? `its ${response.code} response declares ${best.t} without a schema` };
  return { mediaType: best.t, pointer: `${response.pointer}/content/${pointerOf(best.t)}/schema` };
}

/** Whether a (resolved) schema describes an array. */
function isArraySchema(schema: unknown): schema is Json {
  if (!isObject(schema)) return false;
  const { type } = schema;
  return type === 'array' || (Array.isArray(type) && type.includes('array')) || ('items' in schema && type === undefined);
}

/**
 * The properties an object schema declares, its allOf members' merged (the last declaration of a
 * name wins: a member refining a base, as Train Travel's lists refine `Wrapper-Collection`'s
 * `data`), each with the pointer of its schema, resolved.
 */
function propertiesOf(document: Json, schema: unknown, pointer: string, depth = 0): Map<string, { value: unknown; pointer: string }> {
  const out = new Map<string, { value: unknown; pointer: string }>();
  const s = resolve(document, schema, pointer);
  if (!isObject(s.value) || depth > 16) return out;
  const members = Array.isArray(s.value.allOf) ? (s.value.allOf as unknown[]) : [];
  members.forEach((m, i) => {
    for (const [k, v] of propertiesOf(document, m, `${s.pointer}/allOf/${i}`, depth + 1)) out.set(k, v);
  });
  if (isObject(s.value.properties)) {
    for (const [name, child] of Object.entries(s.value.properties)) out.set(name, resolve(document, child, `${s.pointer}/properties/${pointerOf(name)}`));
  }
  return out;
}

/** Where a list body's items are: the array itself, or a wrapper's one array property. */
interface ItemsAt {
  /** The pointer of one item's schema, when the array declares one. */
  schema?: string;
  /** The wrapper's property that holds the items; absent for an array body. */
  property?: string;
}

/**
 * The items of a body that is an array, or a wrapper around one; undefined for any other body.
 * `lint` asks the same of a document (OAS-PAGE-PARAMS, OAS-PAGE-HEADERS), and the Spectral
 * function (spectral-functions/carrierConventions.js) repeats it for Spectral's resolved model.
 */
export function itemsOf(document: Json, body: Pick<Body, 'pointer'>, path: string, queryNames: readonly string[] = []): ItemsAt | undefined {
  const resolved = resolve(document, { $ref: body.pointer }, body.pointer);
  const items = (array: Json, at: string): ItemsAt => ('items' in array ? { schema: `${at}/items` } : {});
  if (isArraySchema(resolved.value)) return items(resolved.value, resolved.pointer);
  // A resource by id is one resource, whatever arrays it holds.
  if (/\}$/.test(path)) return undefined;
  const properties = propertiesOf(document, { $ref: body.pointer }, body.pointer);
  const arrays = [...properties].filter(([, p]) => isArraySchema(p.value));
  if (arrays.length !== 1 || !arrays[0]) return undefined;
  const [name, array] = arrays[0];
  const others = [...properties.keys()].filter((k) => k !== name);
  if (!COLLECTION_NAMES.has(name.toLowerCase()) && !isPagingMetadata(others, pagedByQuery(queryNames))) return undefined;
  return { ...items(array.value as Json, array.pointer), property: name };
}

function pagingDeclared(query: readonly Json[], response: { value: Json } | undefined): boolean {
  if (query.some((p) => p.name === 'page' || p.name === 'size')) return true;
  const headers = response && isObject(response.value.headers) ? Object.keys(response.value.headers) : [];
  return headers.some((h) => PAGING_HEADER_NAMES.some((name) => name.toLowerCase() === h.toLowerCase()));
}

/** A value valid for a simple schema, made up; undefined when none can be made with confidence. */
function inventedValue(schema: Json): string | undefined {
  const type: unknown = Array.isArray(schema.type) ? (schema.type as unknown[]).find((t) => t !== 'null') : schema.type;
  const format = typeof schema.format === 'string' ? schema.format : undefined;
  if (type === 'boolean') return 'true';
  if (type === 'integer' || type === 'number') {
    const min = typeof schema.minimum === 'number' ? Math.ceil(schema.minimum) : typeof schema.exclusiveMinimum === 'number' ? Math.floor(schema.exclusiveMinimum) + 1 : 1;
    const max = typeof schema.maximum === 'number' ? schema.maximum : Infinity;
    return min <= max ? String(min) : undefined;
  }
  if (type !== 'string' || typeof schema.pattern === 'string') return undefined;
  const today = new Date().toISOString();
  if (format === 'date') return today.slice(0, 10);
  if (format === 'date-time') return `${today.slice(0, 19)}Z`;
  if (format === 'uuid') return '00000000-0000-4000-8000-000000000000';
  if (format !== undefined && format !== '') return undefined;
  const length = typeof schema.minLength === 'number' ? Math.max(1, schema.minLength) : 1;
  return typeof schema.maxLength === 'number' && schema.maxLength < length ? undefined : 'a'.repeat(Math.min(length, 64));
}

/** A query value as the URL carries it: a scalar in its JSON text, an array as its first element. */
function queryText(value: unknown): string | undefined {
  if (Array.isArray(value)) return value.length > 0 ? queryText(value[0]) : undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** How a required query parameter is filled from the document, or why it cannot be. */
export function fillQueryParameter(document: Json, parameter: Json): QueryParameterSpec {
  const name = String(parameter.name);
  const schema = resolve(document, parameter.schema, '').value;
  const s = isObject(schema) ? schema : {};
  const firstExample = (examples: unknown): unknown => {
    if (Array.isArray(examples)) return examples[0];
    if (!isObject(examples)) return undefined;
    const first = Object.values(examples)[0];
    const resolved = resolve(document, first, '').value;
    return isObject(resolved) ? resolved.value : undefined;
  };
  const enumValues = Array.isArray(s.enum) ? s.enum : isObject(s.items) && Array.isArray(s.items.enum) ? s.items.enum : undefined;
  const candidates: [NonNullable<QueryParameterSpec['from']>, unknown][] = [
    ['example', parameter.example],
    ['example', firstExample(parameter.examples)],
    ['example', s.example],
    ['example', firstExample(s.examples)],
    ['default', s.default],
    ['enum', enumValues?.[0]],
  ];
  for (const [from, value] of candidates) {
    const text = queryText(value);
    if (text !== undefined) return { name, value: text, from };
  }
  const itemSchema = s.type === 'array' && isObject(s.items) ? (resolve(document, s.items, '').value as Json) : s;
  const invented = isObject(itemSchema) ? inventedValue(itemSchema) : undefined;
  if (invented !== undefined) return { name, value: invented, from: 'invented' };
  const what = typeof s.pattern === 'string' ? `a pattern (${s.pattern.slice(0, 60)})` : s.type === undefined ? 'no type' : `type ${JSON.stringify(s.type)}${typeof s.format === 'string' ? ` and format ${s.format}` : ''}`;
  return { name, problem: `required query parameter ${name} has no example, default or enum, and its schema (${what}) gives no value to make up` };
}

/** An OpenAPI parameter's identity: a path item's parameter is overridden by the operation's of the same name and location (OAS 3.1 §4.8.9.1). */
function parametersOf(document: Json, pathItem: Json, operation: Json): Json[] {
  const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? (v as unknown[]) : []);
  const byKey = new Map<string, Json>();
  for (const p of [...listOf(pathItem.parameters), ...listOf(operation.parameters)]) {
    const value = resolve(document, p, '').value;
    if (isObject(value) && typeof value.name === 'string' && typeof value.in === 'string') byKey.set(`${value.in}:${value.name}`, value);
  }
  return [...byKey.values()];
}

/** All operations of the document, and the GETs under the tenant path as endpoints under test. */
export interface EndpointModel {
  endpoints: EndpointSpec[];
  /** Every operation (method and path) the document declares. */
  operations: number;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** The endpoint model of a bundled document whose schemas are read as JSON Schema 2020-12. */
export function endpointModel(document: Json): EndpointModel {
  const paths = isObject(document.paths) ? document.paths : {};
  const endpoints: EndpointSpec[] = [];
  let operations = 0;
  for (const [template, item] of Object.entries(paths)) {
    const pathItem = resolve(document, item, `#/paths/${pointerOf(template)}`);
    if (!isObject(pathItem.value)) continue;
    operations += METHODS.filter((m) => isObject((pathItem.value as Json)[m])).length + operationsBeyond31(pathItem.value);
    const relative = TENANT_PATH.exec(template)?.[1];
    if (relative === undefined || !isObject(pathItem.value.get)) continue;
    endpoints.push(endpointOf(document, relative, template, pathItem.value, pathItem.value.get, `${pathItem.pointer}/get`));
  }
  return { endpoints, operations };
}

function endpointOf(document: Json, path: string, template: string, pathItem: Json, operation: Json, operationPointer: string): EndpointSpec {
  const parameters = parametersOf(document, pathItem, operation);
  const query = parameters.filter((p) => p.in === 'query');
  const response = successResponse(document, operationPointer, operation);
  const body = response ? bodyOf(response) : { gap: 'it declares no 2xx response' };
  const items = 'pointer' in body ? itemsOf(document, body, path, query.map((p) => String(p.name))) : undefined;
  const paged = pagingDeclared(query, response);
  const kind = items !== undefined || paged ? 'list' : 'single';
  const listBy: EndpointSpec['listBy'] = kind === 'single' ? undefined : paged ? 'paging' : items?.property !== undefined ? 'wrapped-array' : 'array';
  let schema: string | undefined;
  let schemaGap: string | undefined;
  if (!('pointer' in body)) schemaGap = body.gap;
  else if (kind === 'single') schema = body.pointer;
  else if (items === undefined) schemaGap = `it is a list (it declares page, size or paging headers), but its ${response?.code ?? '2xx'} body is neither an array nor a wrapper with one array of items`;
  else if (items.schema === undefined) schemaGap = 'its list body declares no schema for its items';
  else schema = items.schema;
  // page and size are the walk's to set (spec §Pagination: page defaults to 1); a document that
  // requires them gets the spec's first page and the walk's size in the valid request.
  const required = [...query.filter((p) => p.required === true && p.name !== 'page' && p.name !== 'size').map((p) => fillQueryParameter(document, p)), ...querystringSpecs(document, parameters)];
  const requiredPaging = query.filter((p) => p.required === true && (p.name === 'page' || p.name === 'size')).map((p) => fillQueryParameter(document, p));
  for (const p of requiredPaging) required.push(p.name === 'page' ? { name: 'page', value: '1', from: 'default' } : p);
  const source = `openapi: ${typeof operation.operationId === 'string' ? operation.operationId : `GET ${template}`}`;
  return {
    path,
    kind,
    source,
    ...(listBy ? { listBy } : {}),
    ...(schema !== undefined ? { schema } : {}),
    ...(schemaGap !== undefined ? { schemaGap } : {}),
    ...(items?.property !== undefined ? { itemsProperty: items.property } : {}),
    ...(required.length > 0 ? { query: required } : {}),
  };
}
