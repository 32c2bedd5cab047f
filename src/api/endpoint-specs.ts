import type { DocumentSection } from '../report/model.js';
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
}

/** The endpoints and, with --openapi, the document whose schemas they point into. */
export interface ApiDescription {
  endpoints: EndpointSpec[];
  /** The OpenAPI document, bundled (no external $ref left) and its schemas read as JSON Schema 2020-12. */
  document?: Record<string, unknown>;
  /** The file it came from, for the report. */
  file?: string;
  /** The validators of the endpoints' schemas, compiled where the document was read (src/api/standalone.ts). */
  validators?: PrecompiledValidators;
  /** The document's lint findings, found where it was read (src/lint/in-run.ts): for the report, never for the battery. */
  lint?: DocumentSection;
}

/** `{name}` path parameters of a path, in order. */
export function pathParameters(path: string): string[] {
  return [...path.matchAll(/\{([^}/]+)\}/g)].map((m) => m[1] ?? '');
}

/** "GET /tenants/{tenantId}/shipments": how reports name a tenant endpoint. */
export function endpointLabel(path: string): string {
  return `GET /tenants/{tenantId}/${path}`;
}

/** The endpoints of --paged-path and --endpoint, after those of the OpenAPI document (each path once). */
export function mergeEndpoints(fromDocument: readonly EndpointSpec[], pagedPaths: readonly string[], singles: readonly string[]): EndpointSpec[] {
  const byPath = new Map<string, EndpointSpec>(fromDocument.map((e) => [e.path, e]));
  for (const path of pagedPaths) byPath.set(path, { ...byPath.get(path), path, kind: 'list', source: byPath.get(path)?.source ?? '--paged-path' });
  for (const path of singles) byPath.set(path, { ...byPath.get(path), path, kind: 'single', source: byPath.get(path)?.source ?? '--endpoint' });
  return [...byPath.values()];
}

/** "5 tenant endpoints: 2 lists, 3 single resources". */
export function describeEndpoints(endpoints: readonly EndpointSpec[]): string {
  const lists = endpoints.filter((e) => e.kind === 'list').length;
  const singles = endpoints.length - lists;
  const n = (count: number, one: string, many: string): string => `${count} ${count === 1 ? one : many}`;
  return `${n(endpoints.length, 'tenant endpoint', 'tenant endpoints')}: ${n(lists, 'list', 'lists')}, ${n(singles, 'single resource', 'single resources')}`;
}
