import { LEGACY_TOKEN_PATH, LEGACY_USER_PATH, TOKEN_PATH, USER_PATH } from '../carrier/paths.js';

/**
 * Issue 43 (work in progress): which of the spec's endpoints a captured exchange is, by the spec's
 * own paths (§Endpoints) and the tenant pattern, under whatever path prefix a gateway adds. With
 * an OpenAPI document, a later part matches the document's templates instead of the id guess.
 */

export interface ObservedEndpoint {
  kind: 'token' | 'user' | 'tenant';
  /** The spec's legacy path (rewritten by the gateway, spec §Legacy paths). */
  legacy: boolean;
  /** As the reports name it: "POST /uaa/oauth2/token", "GET /tenants/{tenantId}/shipments/{id}". */
  label: string;
  /** The path prefix before the spec's path ("/api"), "" for none. */
  prefix: string;
  tenantId?: string;
}

/** A path segment that is an id rather than a collection's name: a UUID, a number, or a long opaque token. */
const ID_SEGMENT = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\d+|[A-Za-z0-9_-]{20,})$/i;

const FIXED: readonly [string, ObservedEndpoint['kind'], boolean][] = [
  [TOKEN_PATH, 'token', false],
  [LEGACY_TOKEN_PATH, 'token', true],
  [USER_PATH, 'user', false],
  [LEGACY_USER_PATH, 'user', true],
];

/** The endpoint of `method url`, or undefined for a request to no endpoint of the spec's. */
export function endpointOf(method: string, url: string): ObservedEndpoint | undefined {
  let path: string;
  try {
    path = new URL(url).pathname.replace(/\/+$/, '');
  } catch {
    return undefined;
  }
  const verb = method.toUpperCase();
  for (const [fixed, kind, legacy] of FIXED) {
    if (!path.endsWith(fixed)) continue;
    return { kind, legacy, label: `${verb} ${fixed}`, prefix: path.slice(0, -fixed.length) };
  }
  const tenant = /^(.*?)\/tenants\/([^/]+)\/(.+)$/.exec(path);
  if (!tenant) return undefined;
  const [, prefix = '', tenantId = '', rest = ''] = tenant;
  const template = rest
    .split('/')
    .map((segment) => (ID_SEGMENT.test(decodeSafely(segment)) ? '{id}' : decodeSafely(segment)))
    .join('/');
  return {
    kind: 'tenant',
    legacy: false,
    label: `${verb} /tenants/{tenantId}/${template}`,
    prefix,
    tenantId: decodeSafely(tenantId),
  };
}

function decodeSafely(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
