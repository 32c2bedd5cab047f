import type { DocumentSection } from '../model/run-report.js';
import type { PrecompiledValidators } from './standalone.js';

/**
 * The tenant endpoints a run tests (spec §Tenant-scoped endpoints: `{base_url}/tenants/{tenantId}/
 * <endpoint_path>`), from wherever the user named them: an OpenAPI document (--openapi), a list
 * (--paged-path) or a single resource (--endpoint). Plain data: it crosses from the runner to the
 * battery's workers.
 */

export interface EndpointSpec {
  /** The path under the tenant, with its parameters: `shipments`, `shipments/{shipmentId}`. */
  path: string;
  /** A list pages (spec §Pagination); a single resource does not. */
  kind: 'list' | 'single';
  /** Where the endpoint was named, for messages: `--paged-path`, `--endpoint`, `openapi: listShipments`. */
  source: string;
  /**
   * The JSON Schema of one item (a list) or of the body (a single resource): a JSON pointer into
   * the run's OpenAPI document (`ApiDescription.document`), e.g. `#/components/schemas/Shipment`.
   */
  schema?: string;
  /** Why the body of a valid answer is not judged against a schema (RESOURCE-SCHEMA and RESOURCE-FIELDS-PRESENT skip it with this reason). */
  schemaGap?: string;
  /** What made it a list: paging declared (page, size, paging headers), an array body, or a wrapper around one. */
  listBy?: 'paging' | 'array' | 'wrapped-array';
  /** The property of a wrapper body (`{"data": [...]}`) that holds a list's items; absent: the body is the array. */
  itemsProperty?: string;
  /**
   * Why its kind is not certain (src/openapi/list-detection.ts): said in the console and the
   * reports, with the option that overrides it (--paged-path PATH for a list, --endpoint PATH for
   * a single resource).
   */
  uncertain?: string;
  /** Where its items would be, were it a list: taken when --paged-path makes a list of a resource whose body holds an array. */
  asList?: { schema?: string; itemsProperty?: string };
  /** A list's whole body schema: what --endpoint, making a single resource of it, judges. */
  asSingle?: { schema: string };
  /** The required query parameters, sent with every request of the endpoint (src/openapi/endpoint-model.ts). */
  query?: QueryParameterSpec[];
  /** The required header parameters (Xero's `xero-tenant-id`), sent with every request of the endpoint, filled as query parameters are. */
  headers?: QueryParameterSpec[];
  /**
   * Path parameters the document gives a value for (an example, a default, an enum): used where no
   * --parameter and no list above gives one (`thumbnail.{extension}` with an enum), never invented.
   */
  pathValues?: QueryParameterSpec[];
}

/**
 * The methods of write operations (issue 41), judged by probes that never send content, in the
 * order reports count them; OpenAPI 3.2's QUERY and a document's additionalOperations (PURGE,
 * LINK) are probed the same way, counted after them.
 */
export const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;
/**
 * Methods no probe is sent with: GET (the GET checks judge it), HEAD (GET's without content),
 * OPTIONS (a gateway answers a CORS preflight without credentials, as the Fetch standard has it),
 * TRACE (echoes the request: nothing to refuse).
 */
export const NOT_PROBED_METHODS = ['GET', 'HEAD', 'OPTIONS', 'TRACE'] as const;

/**
 * A write operation under the tenant path (issue 41): the header and tenant rules hold on it as on
 * every endpoint (spec §Endpoints, §Tenant-scoped endpoints), and it is judged by requests that
 * cannot change data (src/battery/writes.ts): they never carry content.
 */
export interface WriteOperationSpec {
  /** POST, PUT, PATCH, DELETE, QUERY, or a method of additionalOperations: an HTTP token (RFC 9110 §9.1). */
  method: string;
  /** The path under the tenant, as the document writes it: `shipments`, `shipments/{shipmentId}`. */
  path: string;
  /** Where it was named, for messages: `openapi: createShipment`. */
  source: string;
  /** The media type of the content it takes (its requestBody); absent: it declares none. */
  contentType?: string;
  /** Required query parameters, filled as a GET's are. */
  query?: QueryParameterSpec[];
  /** Required header parameters, filled as a GET's are. */
  headers?: QueryParameterSpec[];
}

/** "POST /tenants/{tenantId}/shipments": how reports name a write operation. */
export function operationLabel(op: Pick<WriteOperationSpec, 'method' | 'path'>): string {
  return `${op.method} /tenants/{tenantId}/${op.path}`;
}

/** A required parameter: the value the document gives it (and where from), or why it has none. */
export interface QueryParameterSpec {
  name: string;
  value?: string;
  /** `invented`: made up from the schema's type and format, so a 4xx to it is not the target's failure; `parameter`: --parameter (or --header) gave it. */
  from?: 'example' | 'default' | 'enum' | 'invented' | 'parameter';
  /** Why no value could be made; the endpoint is then skipped unless --parameter (or --header) gives one. */
  problem?: string;
  /** OpenAPI 3.2 `in: querystring`: the value is the whole query string, sent as it is (src/openapi/oas32.ts). */
  whole?: boolean;
}

/**
 * The path a request for a document's path key goes to: without a `#…` suffix, which documents
 * use to tell variants of one request apart (Box's `/shared_items#folders`; a fragment is never
 * sent, RFC 9110 §7.1) and which is not part of the path (issue 37 item 6).
 */
export function wirePath(path: string): string {
  const hash = path.indexOf('#');
  return hash < 0 ? path : path.slice(0, hash);
}

/** The endpoints and, with --openapi, the document whose schemas they point into. */
export interface ApiDescription {
  endpoints: EndpointSpec[];
  /** The write operations under the tenant path (issue 41), from the document. */
  writes?: WriteOperationSpec[];
  /** The OpenAPI document, bundled (no external $ref left) and its schemas read as JSON Schema 2020-12. */
  document?: Record<string, unknown>;
  /** The file it came from, for the report. */
  file?: string;
  /** The files it read beside itself (its `$ref`s), named from its folder, each by SHA-256. */
  files?: { file: string; sha256: string }[];
  /** How many operations (every method) the document declares; the GETs under the tenant path are `endpoints`. */
  operations?: number;
  /** The validators of the endpoints' schemas, compiled where the document was read (src/carrier/standalone.ts). */
  validators?: PrecompiledValidators;
  /** The document's lint findings, found where it was read (src/lint/in-run.ts): for the report, never for the battery. */
  lint?: DocumentSection;
}

/** `{name}` path parameters of a path, in order. */
export function pathParameters(path: string): string[] {
  return [...path.matchAll(/\{([^}/]+)\}/g)].map((m) => m[1] ?? '');
}

/** An endpoint whose kind the operator gave: nothing left uncertain, no alternative reading. */
function withoutGuess(spec: EndpointSpec): EndpointSpec {
  const out = { ...spec };
  delete out.uncertain;
  delete out.asList;
  delete out.asSingle;
  return out;
}

/**
 * An endpoint path as a key the user may write either way: without the trailing slash Django REST
 * framework's router writes its paths with (`shipments/`, `shipments/{id}/`), so that an
 * --expectations file keyed `shipments` finds them (issue 38 item 9).
 */
export function pathKey(path: string): string {
  return path.replace(/\/+$/, '');
}

/** "GET /tenants/{tenantId}/shipments": how reports name a tenant endpoint. */
export function endpointLabel(path: string): string {
  return `GET /tenants/{tenantId}/${path}`;
}

/** The endpoints of --paged-path and --endpoint, after those of the OpenAPI document (each path once). */
export function mergeEndpoints(
  fromDocument: readonly EndpointSpec[],
  pagedPaths: readonly string[],
  singles: readonly string[],
): EndpointSpec[] {
  const byPath = new Map<string, EndpointSpec>(fromDocument.map((e) => [e.path, e]));
  // The operator's word settles what the document left uncertain: a resource made a list takes
  // the items its array would be, a list made a resource its whole body.
  for (const path of pagedPaths) {
    const known = byPath.get(path);
    const spec: EndpointSpec = { ...known, path, kind: 'list', source: known?.source ?? '--paged-path' };
    if (known?.kind === 'single' && known.asList) {
      Object.assign(spec, known.asList);
      if (known.asList.schema === undefined) {
        delete spec.schema;
        spec.schemaGap = 'its list body declares no schema for its items';
      }
    }
    byPath.set(path, withoutGuess(spec));
  }
  for (const path of singles) {
    const known = byPath.get(path);
    const spec: EndpointSpec = { ...known, path, kind: 'single', source: known?.source ?? '--endpoint' };
    if (known?.kind === 'list') {
      delete spec.itemsProperty;
      delete spec.listBy;
      if (known.asSingle) spec.schema = known.asSingle.schema;
    }
    byPath.set(path, withoutGuess(spec));
  }
  return [...byPath.values()];
}

/**
 * "5 tenant endpoints: 2 lists, 3 single resources", with the document's count of operations
 * when there is one ("… (GETs under /tenants/{tenantId}/, of the document's 12 operations)"),
 * and how many cannot be judged whole, and why.
 */
export function describeEndpoints(
  endpoints: readonly EndpointSpec[],
  operations?: number,
  writes?: { operations: readonly WriteOperationSpec[]; probed: boolean },
): string {
  const lists = endpoints.filter((e) => e.kind === 'list').length;
  const singles = endpoints.length - lists;
  const n = (count: number, one: string, many: string): string => `${count} ${count === 1 ? one : many}`;
  const of =
    operations === undefined
      ? ''
      : ` (GETs under /tenants/{tenantId}/, of the document's ${n(operations, 'operation', 'operations')})`;
  const required = (e: EndpointSpec): QueryParameterSpec[] => [...(e.query ?? []), ...(e.headers ?? [])];
  const unfilled = endpoints.filter((e) => required(e).some((p) => p.value === undefined)).length;
  const invented = endpoints.filter((e) => required(e).some((p) => p.from === 'invented')).length;
  const gaps = endpoints.filter((e) => e.schemaGap !== undefined).length;
  const uncertain = endpoints.filter((e) => e.uncertain !== undefined).length;
  const remarks = [
    ...(unfilled > 0
      ? [
          `${n(unfilled, 'has', 'have')} a required query or header parameter without a value (skipped unless --parameter or --header gives one)`,
        ]
      : []),
    ...(invented > 0 ? [`${n(invented, 'gets', 'get')} a required query or header value made up from its schema`] : []),
    ...(gaps > 0 ? [`${n(gaps, 'has', 'have')} no JSON body schema to judge`] : []),
    ...(uncertain > 0
      ? [`${n(uncertain, 'is', 'are')} of a kind the document leaves uncertain (KIND NOT CERTAIN, at the end)`]
      : []),
  ];
  const methods = [...new Set([...WRITE_METHODS, ...(writes?.operations.map((w) => w.method) ?? [])])];
  const byMethod = methods
    .map((m) => [m, writes?.operations.filter((w) => w.method === m).length ?? 0] as const)
    .filter(([, count]) => count > 0)
    .map(([m, count]) => `${count} ${m}`);
  // issue 41 item 5: the write operations by method, and whether they are probed.
  const written =
    byMethod.length === 0
      ? ''
      : `; write operations ${writes?.probed === false ? 'not probed (--write-probes none)' : 'probed without content'}: ${byMethod.join(', ')}`;
  return `${n(endpoints.length, 'tenant endpoint', 'tenant endpoints')}: ${n(lists, 'list', 'lists')}, ${n(singles, 'single resource', 'single resources')}${of}${remarks.length > 0 ? `; ${remarks.join('; ')}` : ''}${written}`;
}
