import { LEGACY_TOKEN_PATH, LEGACY_USER_PATH, TOKEN_PATH, USER_PATH, tenantPath } from '../api/paths.js';
import { getResource, requestToken, type VersionHeader } from '../api/requests.js';
import type { HttpResponse, RequestAuth } from '../http/client.js';
import type { CheckContext } from './check.js';

/**
 * The endpoints that rules "on every endpoint" apply to (spec §Endpoints: every endpoint requires
 * Accept-Version; every endpoint but the token endpoint requires a bearer token). Each one knows
 * how to send a request that is valid in every respect but the one a check varies.
 */

export interface Endpoint {
  /** e.g. "POST /uaa/oauth2/token" or "GET /tenants/{tenantId}/shipments". */
  label: string;
  kind: 'token' | 'resource';
  send(c: CheckContext, variation: VersionHeader & { auth?: RequestAuth }, purpose: string): Promise<HttpResponse>;
}

function tokenEndpoint(path: string, legacy: boolean): Endpoint {
  const label = `POST ${path}${legacy ? ' (legacy)' : ''}`;
  return {
    label,
    kind: 'token',
    send: (c, v, purpose) => requestToken(c.send, c.target, { path, credentials: c.credentials, ...v, purpose: `${label}: ${purpose}` }),
  };
}

function resourceEndpoint(path: string, label: string): Endpoint {
  return {
    label,
    kind: 'resource',
    send: async (c, v, purpose) => getResource(c.send, c.target, { path, auth: v.auth ?? (await c.bearer()), ...v, purpose: `${label}: ${purpose}` }),
  };
}

/** The tenant endpoints configured with --paged-path, for the tenant under test. */
export function tenantEndpoints(c: CheckContext): Endpoint[] {
  const { tenantId, pagedPaths } = c.settings;
  if (tenantId === undefined) return [];
  return pagedPaths.map((p) => resourceEndpoint(tenantPath(tenantId, p), `GET /tenants/{tenantId}/${p}`));
}

/** /users/me, its legacy path and every configured tenant endpoint. */
export function resourceEndpoints(c: CheckContext): Endpoint[] {
  return [resourceEndpoint(USER_PATH, `GET ${USER_PATH}`), resourceEndpoint(LEGACY_USER_PATH, `GET ${LEGACY_USER_PATH} (legacy)`), ...tenantEndpoints(c)];
}

/** The token endpoint and its legacy path. */
export function tokenEndpoints(): Endpoint[] {
  return [tokenEndpoint(TOKEN_PATH, false), tokenEndpoint(LEGACY_TOKEN_PATH, true)];
}

/** Every endpoint of the API that this run knows of. */
export function allEndpoints(c: CheckContext): Endpoint[] {
  return [...tokenEndpoints(), ...resourceEndpoints(c)];
}

/**
 * Notes, once per check, that tenant endpoints were left out and why, so that a run without
 * --paged-path does not look as if it had covered them.
 */
export function noteMissingTenantEndpoints(c: CheckContext): void {
  const { pagedPaths, tenantId, tenantProblem } = c.settings;
  if (pagedPaths.length === 0) c.note('no tenant endpoints were checked: none configured (--paged-path)');
  else if (tenantId === undefined) c.error(`the tenant endpoints could not be checked: ${tenantProblem ?? 'no tenant under test'}`);
}
