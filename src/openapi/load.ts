import { bundle } from '@readme/openapi-parser';
import type { ApiDescription, EndpointSpec } from '../api/endpoint-specs.js';
import { PAGING_HEADER_NAMES } from '../api/paths.js';
import { UsageError } from '../errors.js';
import { DOCUMENT_LIMITS, DocumentFiles, LimitExceeded, measure, pathOf, type DocumentLimits, type Resolver } from './document-files.js';
import { documentAsJsonSchema } from './json-schema.js';
import { isObject, pointerOf, resolve, type Json } from './pointer.js';

/**
 * --openapi FILE: the tenant endpoints of the user's API, from their OpenAPI 3.0 or 3.1 document
 * (YAML or JSON, `$ref`s across files). @readme/openapi-parser bundles it into one (external
 * `$ref`s inlined, internal ones kept, so that recursive schemas stay finite); the harness never
 * resolves references itself. The document is untrusted input: its files are read and parsed by
 * document-files.ts, the parser's file resolver, inside one folder and within limits (issue 28).
 * It does not validate the document against the
 * OpenAPI schema at every run (a third of a second of start-up for every run; the reference's own
 * document is validated in the tests): what the harness reads of it is checked as it is read.
 *
 * Every GET operation under `/tenants/{tenantId}/…` is an endpoint under test (spec §Tenant-scoped
 * endpoints). It is a list when it declares a `page` or `size` query parameter or one of the
 * paging response headers (spec §Pagination); otherwise a single resource. Its schema is the JSON
 * body of its 2xx response: for a list, the schema of one item (the array, or the one array
 * property of an object body, as the battery reads lists).
 */

const TENANT_PATH = /^\/tenants\/\{[^}/]+\}\/(.+)$/;


/** application/json, or any `+json` structured syntax suffix (RFC 6839 §3.1), parameters ignored. */
function isJsonMediaType(type: string): boolean {
  const essence = type.split(';')[0]?.trim().toLowerCase() ?? '';
  return essence === 'application/json' || /^[a-z]+\/[^\s/]+\+json$/.test(essence);
}

/** Where a document's `$ref`s may lead (--openapi-root; default: the document's folder), and the limits it is read within. */
export interface LoadOptions {
  root?: string | undefined;
  limits?: Readonly<DocumentLimits>;
}

/** What bundleDocument may do besides: name the document as the command does, and see each file read. */
export interface BundleOptions extends LoadOptions {
  /** How messages name the document: `--openapi FILE` (the run), `lint FILE`. */
  label?: string;
  /** Called with the parsed value of every file the confined resolver hands the parser (lint traces findings back to them). */
  onFile?: (path: string, value: unknown) => void;
}

/**
 * The document's files read through document-files.ts (confined, bounded), bundled by
 * @readme/openapi-parser, and the bundle measured again: one document, within the limits.
 */
export async function bundleDocument(file: string, options: BundleOptions = {}): Promise<Json> {
  const label = options.label ?? '--openapi';
  const files = new DocumentFiles(file, options.root, options.limits ?? DOCUMENT_LIMITS);
  const resolverOptions = files.resolverOptions() as { resolve: { file: Resolver } };
  const { onFile } = options;
  if (onFile) {
    const confined = resolverOptions.resolve.file;
    resolverOptions.resolve.file = {
      ...confined,
      read: async (ref) => {
        const value = await confined.read(ref);
        const path = pathOf(ref.url);
        if (path !== undefined) onFile(path, value);
        return value;
      },
    };
  }
  let bundled: Json;
  try {
    bundled = (await bundle(file, resolverOptions as unknown as Parameters<typeof bundle>[1])) as unknown as Json;
  } catch (err) {
    // What the harness's resolver refused or could not read, said by it; else the parser's word.
    if (files.failure) throw files.failure;
    // The parser's walks recurse, into each $ref as they meet it: a chain of $refs thousands long,
    // or files nested in files, can take it past the stack (each file is within the limits).
    if (err instanceof RangeError) throw new UsageError(`${label} ${file}: the parser ran out of stack following the document's $refs (a chain of $refs thousands long, or $ref'd files nested in one another)`);
    throw new UsageError(`${label} ${file}: cannot read it as an OpenAPI document: ${oneLine((err as Error).message)}`);
  }
  // Should a version of the parser ever ignore the resolver, its own would have read the files
  // unconfined: refuse rather than use them.
  if (!files.documentRead) throw new Error(`@readme/openapi-parser did not read ${file} through the harness's resolver; the document is not used`);
  // External $refs are inlined by the bundle: bounded again as one document, for the harness and
  // the battery's workers, which walk it whole.
  try {
    measure(bundled, files.limits.totalBytes, files.limits.depth);
  } catch (err) {
    if (!(err instanceof LimitExceeded)) throw err;
    throw new UsageError(`${label} ${file}: bundled with its $refs, ${err.message}`);
  }
  return bundled;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 300);
}

/** The first 2xx response of an operation (200, then 2XX, then any 2nn), with where it lives. */
function successResponse(document: Json, operationPointer: string, operation: Json): { value: Json; pointer: string } | undefined {
  const responses = isObject(operation.responses) ? operation.responses : {};
  const code = ['200', '2XX', '2xx', ...Object.keys(responses).filter((k) => /^2\d\d$/.test(k)).sort()].find((k) => k in responses);
  if (code === undefined) return undefined;
  const found = resolve(document, responses[code], `${operationPointer}/responses/${pointerOf(code)}`);
  return isObject(found.value) ? { value: found.value, pointer: found.pointer } : undefined;
}

/** Where the JSON body schema of a response is, or undefined when it declares none. */
function bodySchemaPointer(response: { value: Json; pointer: string }): string | undefined {
  const content = isObject(response.value.content) ? response.value.content : {};
  const type = Object.keys(content).find(isJsonMediaType);
  if (type === undefined) return undefined;
  const media = content[type];
  return isObject(media) && 'schema' in media ? `${response.pointer}/content/${pointerOf(type)}/schema` : undefined;
}

/** The schema of one item of a list body: `items` of an array, or of an object's one array property. */
function itemSchemaPointer(document: Json, bodyPointer: string): string | undefined {
  const body = resolve(document, { $ref: bodyPointer }, bodyPointer);
  if (!isObject(body.value)) return undefined;
  if (body.value.type === 'array' || 'items' in body.value) return 'items' in body.value ? `${body.pointer}/items` : undefined;
  const properties = isObject(body.value.properties) ? body.value.properties : {};
  const arrays = Object.entries(properties).filter(([name, schema]) => {
    const resolved = resolve(document, schema, `${body.pointer}/properties/${pointerOf(name)}`).value;
    return isObject(resolved) && (resolved.type === 'array' || 'items' in resolved);
  });
  if (arrays.length !== 1 || !arrays[0]) return undefined;
  const property = resolve(document, arrays[0][1], `${body.pointer}/properties/${pointerOf(arrays[0][0])}`);
  return `${property.pointer}/items`;
}

function isList(document: Json, parameters: unknown[], response: { value: Json } | undefined): boolean {
  const query = parameters.map((p) => resolve(document, p, '').value).filter(isObject);
  if (query.some((p) => p.in === 'query' && (p.name === 'page' || p.name === 'size'))) return true;
  const headers = response && isObject(response.value.headers) ? Object.keys(response.value.headers) : [];
  return headers.some((h) => PAGING_HEADER_NAMES.some((name) => name.toLowerCase() === h.toLowerCase()));
}

/** The tenant endpoints a (bundled, JSON Schema-read) OpenAPI document describes. */
export function endpointsOf(document: Json): EndpointSpec[] {
  const paths = isObject(document.paths) ? document.paths : {};
  const endpoints: EndpointSpec[] = [];
  for (const [template, item] of Object.entries(paths)) {
    const relative = TENANT_PATH.exec(template)?.[1];
    const pathItem = resolve(document, item, `#/paths/${pointerOf(template)}`);
    if (relative === undefined || !isObject(pathItem.value) || !isObject(pathItem.value.get)) continue;
    const operation = pathItem.value.get;
    const operationPointer = `${pathItem.pointer}/get`;
    const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? (v as unknown[]) : []);
    const parameters = [...listOf(pathItem.value.parameters), ...listOf(operation.parameters)];
    const response = successResponse(document, operationPointer, operation);
    const kind = isList(document, parameters, response) ? 'list' : 'single';
    const body = response && bodySchemaPointer(response);
    const schema = body === undefined ? undefined : kind === 'list' ? itemSchemaPointer(document, body) : body;
    const source = `openapi: ${typeof operation.operationId === 'string' ? operation.operationId : `GET ${template}`}`;
    endpoints.push({ path: relative, kind, source, ...(schema !== undefined ? { schema } : {}) });
  }
  return endpoints;
}

/** Reads, validates and bundles the document, and finds its tenant endpoints. */
export async function loadOpenApi(file: string, options: LoadOptions = {}): Promise<ApiDescription> {
  const raw = await bundleDocument(file, options);
  const declared = raw.openapi ?? raw.swagger;
  const version = typeof declared === 'string' ? declared : '';
  if (!/^3\.[01]\./.test(version)) throw new UsageError(`--openapi ${file}: OpenAPI ${version || '(no version)'} is not supported; give an OpenAPI 3.0 or 3.1 document`);
  if (!isObject(raw.paths)) throw new UsageError(`--openapi ${file}: the document has no "paths" object`);
  const document = documentAsJsonSchema(raw);
  const endpoints = endpointsOf(document);
  if (endpoints.length === 0) throw new UsageError(`--openapi ${file}: no GET operation under /tenants/{tenantId}/ in the document: nothing to test (the spec's tenant-scoped pattern)`);
  return { endpoints, document, file };
}
