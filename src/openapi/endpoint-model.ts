import {
  NOT_PROBED_METHODS,
  WRITE_METHODS,
  type EndpointSpec,
  type QueryParameterSpec,
  type WriteOperationSpec,
} from '../carrier/endpoint-specs.js';
import { parseHeaderLine, RESERVED_HEADER_NAMES } from '../http/extra-headers.js';
import { classify, listShapeOf, type ItemsAt } from './list-detection.js';
import { operationsBeyond31, operationsOf, querystringSpecs, streamGap } from './oas32.js';
import { isObject, pointerOf, resolve, type Json } from './pointer.js';

export { pagedByQuery, wordsOf } from './list-detection.js';

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

/**
 * The status code of an operation's success response: 200, then the 2XX range, then the lowest
 * 2nn (the run judges this response and lint checks it: one choice for both).
 */
export function successCode(responses: Json): string | undefined {
  return [
    '200',
    '2XX',
    '2xx',
    ...Object.keys(responses)
      .filter((k) => /^2\d\d$/.test(k))
      .sort(),
  ].find((k) => k in responses);
}

/** The first 2xx response of an operation (successCode), with where it lives. */
function successResponse(
  document: Json,
  operationPointer: string,
  operation: Json,
): { code: string; value: Json; pointer: string } | undefined {
  const responses = isObject(operation.responses) ? operation.responses : {};
  const code = successCode(responses);
  if (code === undefined) return undefined;
  const found = resolve(document, responses[code], `${operationPointer}/responses/${pointerOf(code)}`);
  return isObject(found.value) ? { code, value: found.value, pointer: found.pointer } : undefined;
}

/** The JSON body of a response, or why there is none to judge. */
function bodyOf(response: { code: string; value: Json; pointer: string }): Body | { gap: string } {
  const content = isObject(response.value.content) ? response.value.content : {};
  const types = Object.keys(content);
  if (types.length === 0) return { gap: `its ${response.code} response declares no body` };
  const ranked = types
    .map((t) => ({ t, rank: jsonRank(t) }))
    .filter((x): x is { t: string; rank: number } => x.rank !== undefined);
  const best = ranked.sort((a, b) => a.rank - b.rank)[0];
  if (!best)
    return {
      gap:
        streamGap(response.code, content) ??
        `its ${response.code} response declares no JSON body (${types.join(', ')})`,
    };
  const media = content[best.t];
  if (!isObject(media) || !('schema' in media))
    return {
      gap: streamGap(response.code, content) ?? `its ${response.code} response declares ${best.t} without a schema`,
    };
  return { mediaType: best.t, pointer: `${response.pointer}/content/${pointerOf(best.t)}/schema` };
}

/**
 * The items of a body that is an array, or a wrapper around one; undefined for any other body.
 * `lint` asks the same of a document (OAS-PAGE-PARAMS, OAS-PAGE-HEADERS), and so does its Spectral
 * function, which is built from lint's rules (src/lint/spectral-function.ts).
 */
export function itemsOf(
  document: Json,
  body: Pick<Body, 'pointer'>,
  path: string,
  queryNames: readonly string[] = [],
): ItemsAt | undefined {
  return listShapeOf(document, body, path, queryNames).items;
}

/** A value valid for a simple schema, made up; undefined when none can be made with confidence. */
function inventedValue(schema: Json): string | undefined {
  const type: unknown = Array.isArray(schema.type) ? (schema.type as unknown[]).find((t) => t !== 'null') : schema.type;
  const format = typeof schema.format === 'string' ? schema.format : undefined;
  if (type === 'boolean') return 'true';
  if (type === 'integer' || type === 'number') {
    const min =
      typeof schema.minimum === 'number'
        ? Math.ceil(schema.minimum)
        : typeof schema.exclusiveMinimum === 'number'
          ? Math.floor(schema.exclusiveMinimum) + 1
          : 1;
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
  return typeof schema.maxLength === 'number' && schema.maxLength < length
    ? undefined
    : 'a'.repeat(Math.min(length, 64));
}

/** A query value as the URL carries it: a scalar in its JSON text, an array as its first element. */
function queryText(value: unknown): string | undefined {
  if (Array.isArray(value)) return value.length > 0 ? queryText(value[0]) : undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** How a required parameter (query, header or path) is filled from the document, or why it cannot be. */
export function fillQueryParameter(document: Json, parameter: Json): QueryParameterSpec {
  const name = String(parameter.name);
  const where = parameter.in === 'header' ? 'header' : parameter.in === 'path' ? 'path' : 'query';
  const schema = resolve(document, parameter.schema, '').value;
  const s = isObject(schema) ? schema : {};
  const firstExample = (examples: unknown): unknown => {
    if (Array.isArray(examples)) return examples[0];
    if (!isObject(examples)) return undefined;
    const first = Object.values(examples)[0];
    const resolved = resolve(document, first, '').value;
    return isObject(resolved) ? resolved.value : undefined;
  };
  const enumValues = Array.isArray(s.enum)
    ? s.enum
    : isObject(s.items) && Array.isArray(s.items.enum)
      ? s.items.enum
      : undefined;
  const candidates: [NonNullable<QueryParameterSpec['from']>, unknown][] = [
    ['example', parameter.example],
    ['example', firstExample(parameter.examples)],
    ['example', s.example],
    ['example', firstExample(s.examples)],
    ['default', s.default],
    ['enum', enumValues?.[0]],
  ];
  // An example or default outside the enum (Azure Service Fabric Mesh's api-version example
  // `2018-09-01-privatepreview` beside its enum `[2018-09-01-preview]`) is a value a conformant
  // server may refuse: the schema's word is the one a request must keep.
  const allowed = enumValues?.map(queryText);
  for (const [from, value] of candidates) {
    const text = queryText(value);
    if (text !== undefined && (allowed === undefined || allowed.includes(text))) return { name, value: text, from };
  }
  const itemSchema = s.type === 'array' && isObject(s.items) ? (resolve(document, s.items, '').value as Json) : s;
  const invented = isObject(itemSchema) ? inventedValue(itemSchema) : undefined;
  if (invented !== undefined) return { name, value: invented, from: 'invented' };
  const what =
    typeof s.pattern === 'string'
      ? `a pattern (${s.pattern.slice(0, 60)})`
      : s.type === undefined
        ? 'no type'
        : `type ${JSON.stringify(s.type)}${typeof s.format === 'string' ? ` and format ${s.format}` : ''}`;
  return {
    name,
    problem: `required ${where} parameter ${name} has no example, default or enum, and its schema (${what}) gives no value to make up`,
  };
}

/** An OpenAPI parameter's identity: a path item's parameter is overridden by the operation's of the same name and location (OAS 3.1 §4.8.9.1). */
function parametersOf(document: Json, pathItem: Json, operation: Json): Json[] {
  const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? (v as unknown[]) : []);
  const byKey = new Map<string, Json>();
  for (const p of [...listOf(pathItem.parameters), ...listOf(operation.parameters)]) {
    const value = resolve(document, p, '').value;
    if (isObject(value) && typeof value.name === 'string' && typeof value.in === 'string')
      byKey.set(`${value.in}:${value.name}`, value);
  }
  return [...byKey.values()];
}

/** All operations of the document, and the GETs under the tenant path as endpoints under test. */
export interface EndpointModel {
  endpoints: EndpointSpec[];
  /** The write operations (POST, PUT, PATCH, DELETE) under the tenant path (issue 41). */
  writes: WriteOperationSpec[];
  /** Every operation (method and path) the document declares. */
  operations: number;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** A method name a probe may carry: an RFC 9110 §5.6.2 token, of a sensible length. */
const PROBED_METHOD = /^[!#$%&'*+\-.^_`|~0-9A-Z]{1,32}$/;

/** The endpoint model of a bundled document whose schemas are read as JSON Schema 2020-12. */
export function endpointModel(document: Json): EndpointModel {
  const paths = isObject(document.paths) ? document.paths : {};
  const endpoints: EndpointSpec[] = [];
  const writes: WriteOperationSpec[] = [];
  let operations = 0;
  for (const [template, item] of Object.entries(paths)) {
    const pathItem = resolve(document, item, `#/paths/${pointerOf(template)}`);
    if (!isObject(pathItem.value)) continue;
    operations +=
      METHODS.filter((m) => isObject((pathItem.value as Json)[m])).length + operationsBeyond31(pathItem.value);
    const relative = TENANT_PATH.exec(template)?.[1];
    if (relative === undefined) continue;
    // POST, PUT, PATCH, DELETE first (as reports count them), then QUERY and additionalOperations.
    const rank = (m: string): number => {
      const i = (WRITE_METHODS as readonly string[]).indexOf(m);
      return i === -1 ? WRITE_METHODS.length : i;
    };
    const probed = operationsOf(pathItem.value)
      .map(({ method, value }) => ({ name: method.toUpperCase(), value }))
      // A method a request line can carry (RFC 9110 §9.1: a token), nothing else: the key is the document's.
      .filter(({ name }) => !(NOT_PROBED_METHODS as readonly string[]).includes(name) && PROBED_METHOD.test(name))
      .sort((a, b) => rank(a.name) - rank(b.name));
    for (const { name, value } of probed)
      writes.push(writeOf(document, relative, template, name, pathItem.value, value));
    if (!isObject(pathItem.value.get)) continue;
    endpoints.push(
      endpointOf(document, relative, template, pathItem.value, pathItem.value.get, `${pathItem.pointer}/get`),
    );
  }
  return { endpoints, writes, operations };
}

/**
 * A write operation as its probes send it (src/battery/writes.ts): its method and path, the media
 * type of the content it takes (JSON first, as for a response), and its required query and header
 * parameters, filled as a GET's are. Its path parameters are never filled from the document: the
 * probes name ids that cannot exist.
 */
function writeOf(
  document: Json,
  path: string,
  template: string,
  method: WriteOperationSpec['method'],
  pathItem: Json,
  operation: Json,
): WriteOperationSpec {
  const parameters = parametersOf(document, pathItem, operation);
  const requestBody = resolve(document, operation.requestBody, '').value;
  const content = isObject(requestBody) && isObject(requestBody.content) ? Object.keys(requestBody.content) : [];
  const contentType = isObject(requestBody)
    ? (content
        .map((t) => ({ t, rank: jsonRank(t) ?? 9 }))
        .sort((a, b) => a.rank - b.rank)[0]
        ?.t.replace(/\*\/\*|application\/\*(\+json)?/, 'application/json') ?? 'application/json')
    : undefined;
  const query = parameters
    .filter((p) => p.in === 'query' && p.required === true)
    .map((p) => fillQueryParameter(document, p));
  const headers = parameters
    .filter(
      (p) => p.in === 'header' && p.required === true && !RESERVED_HEADER_NAMES.includes(String(p.name).toLowerCase()),
    )
    .map((p) => headerValue(document, p));
  const source = `openapi: ${typeof operation.operationId === 'string' ? operation.operationId : `${method} ${template}`}`;
  return {
    method,
    path,
    source,
    ...(contentType !== undefined ? { contentType } : {}),
    ...(query.length > 0 ? { query } : {}),
    ...(headers.length > 0 ? { headers } : {}),
  };
}

function endpointOf(
  document: Json,
  path: string,
  template: string,
  pathItem: Json,
  operation: Json,
  operationPointer: string,
): EndpointSpec {
  const parameters = parametersOf(document, pathItem, operation);
  const tenantName = /^\/tenants\/\{([^}/]+)\}/.exec(template)?.[1];
  const query = parameters.filter((p) => p.in === 'query');
  const response = successResponse(document, operationPointer, operation);
  const body = response ? bodyOf(response) : { gap: 'it declares no 2xx response' };
  const classified = classify(document, 'pointer' in body ? body : undefined, path, query, response, operation);
  const { kind, listBy, items } = classified;
  let schema: string | undefined;
  let schemaGap: string | undefined;
  if (!('pointer' in body)) schemaGap = body.gap;
  else if (kind === 'single') schema = body.pointer;
  else if (items === undefined)
    schemaGap = `it is a list (it declares page, size or paging headers), but its ${response?.code ?? '2xx'} body is neither an array nor a wrapper with one array of items`;
  else if (items.schema === undefined) schemaGap = 'its list body declares no schema for its items';
  else schema = items.schema;
  // Required header parameters (Xero's `xero-tenant-id`, Box's `boxapi`) are filled as query
  // parameters are (issue 37 item 4); those the harness sets check by check (Accept-Version,
  // Authorization…) are its own to send.
  const headers = parameters
    .filter(
      (p) => p.in === 'header' && p.required === true && !RESERVED_HEADER_NAMES.includes(String(p.name).toLowerCase()),
    )
    .map((p) => headerValue(document, p));
  // Path parameters the document gives a value for, never invented: an id is better taken from the list above.
  const pathValues = parameters
    .filter((p) => p.in === 'path' && typeof p.name === 'string' && p.name !== tenantName)
    .map((p) => fillQueryParameter(document, p))
    .filter((p) => p.value !== undefined && p.from !== 'invented');
  // page and size are the walk's to set (spec §Pagination: page defaults to 1); a document that
  // requires them gets the spec's first page and the walk's size in the valid request.
  const required = [
    ...query
      .filter((p) => p.required === true && p.name !== 'page' && p.name !== 'size')
      .map((p) => fillQueryParameter(document, p)),
    ...querystringSpecs(document, parameters),
  ];
  const requiredPaging = query
    .filter((p) => p.required === true && (p.name === 'page' || p.name === 'size'))
    .map((p) => fillQueryParameter(document, p));
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
    ...(classified.uncertain !== undefined ? { uncertain: classified.uncertain } : {}),
    ...(classified.candidate
      ? {
          asList: {
            ...(classified.candidate.schema !== undefined ? { schema: classified.candidate.schema } : {}),
            ...(classified.candidate.property !== undefined ? { itemsProperty: classified.candidate.property } : {}),
          },
        }
      : {}),
    ...(kind === 'list' && 'pointer' in body ? { asSingle: { schema: body.pointer } } : {}),
    ...(headers.length > 0 ? { headers } : {}),
    ...(pathValues.length > 0 ? { pathValues } : {}),
  };
}

/**
 * A required header parameter's value, as fillQueryParameter makes it, if it can be sent: the
 * document is untrusted, and a value that is no field value (CR, LF, NUL, other controls: RFC 9110
 * §5.5) is the document's problem, never a header the harness writes.
 */
function headerValue(document: Json, parameter: Json): QueryParameterSpec {
  const filled = fillQueryParameter(document, parameter);
  if (filled.value === undefined) return filled;
  const parsed = parseHeaderLine(`${filled.name}: ${filled.value}`);
  return Array.isArray(parsed)
    ? filled
    : {
        name: filled.name,
        problem: `required header parameter ${filled.name}: the document's value cannot be sent (${parsed.problem})`,
      };
}
