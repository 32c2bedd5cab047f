import { pathKey, wirePath, type EndpointSpec, type WriteOperationSpec } from '../carrier/endpoint-specs.js';
import { LEGACY_TOKEN_PATH, LEGACY_USER_PATH, TOKEN_PATH, USER_PATH } from '../carrier/paths.js';

/**
 * Issue 43 (work in progress): which of the spec's endpoints a captured exchange is, by the spec's
 * own paths (§Endpoints) and the tenant pattern, under whatever path prefix a gateway adds. With
 * an OpenAPI document (`traffic --openapi`), a tenant path is matched to the document's templates,
 * whose GETs say whether they are lists and which schema their bodies have; a path the document
 * does not declare falls back to the id guess and is counted (the document's gap, not the server's).
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
  /** With a document: the GET endpoint it declares at this path (its kind and schema). */
  spec?: EndpointSpec;
  /** With a document: a tenant path the document declares no operation at. */
  undocumented?: boolean;
}

/** A document's tenant templates, most literal first: `shipments/export` before `shipments/{id}`. */
export interface DocumentedPaths {
  templates: { path: string; pattern: RegExp; literals: number; get?: EndpointSpec; methods: Set<string> }[];
}

export function documentedPaths(
  endpoints: readonly EndpointSpec[],
  writes: readonly WriteOperationSpec[],
): DocumentedPaths {
  const byPath = new Map<string, DocumentedPaths['templates'][number]>();
  const entry = (path: string): DocumentedPaths['templates'][number] => {
    const key = pathKey(wirePath(path));
    let known = byPath.get(key);
    if (!known) {
      const segments = key.split('/');
      const pattern = new RegExp(
        `^${segments.map((s) => (/^\{[^}]+\}$/.test(s) ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}$`,
      );
      known = { path: key, pattern, literals: segments.filter((s) => !s.startsWith('{')).length, methods: new Set() };
      byPath.set(key, known);
    }
    return known;
  };
  for (const spec of endpoints) {
    const known = entry(spec.path);
    known.get ??= spec;
    known.methods.add('GET');
  }
  for (const write of writes) entry(write.path).methods.add(write.method.toUpperCase());
  return { templates: [...byPath.values()].sort((a, b) => b.literals - a.literals) };
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
export function endpointOf(method: string, url: string, documented?: DocumentedPaths): ObservedEndpoint | undefined {
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
  if (documented !== undefined) {
    const relative = rest.split('/').map(decodeSafely).join('/');
    const match = documented.templates.find((t) => t.pattern.test(relative));
    if (match)
      return {
        kind: 'tenant',
        legacy: false,
        label: `${verb} /tenants/{tenantId}/${match.path}`,
        prefix,
        tenantId: decodeSafely(tenantId),
        ...(match.get !== undefined && (verb === 'GET' || verb === 'HEAD') ? { spec: match.get } : {}),
        ...(match.methods.has(verb === 'HEAD' ? 'GET' : verb) ? {} : { undocumented: true }),
      };
  }
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
    ...(documented !== undefined ? { undocumented: true } : {}),
  };
}

function decodeSafely(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
