/** The paths of the Carrier-Platform API (spec §Endpoints). */

/** spec §Obtain an access token: `POST {auth_url}/uaa/oauth2/token`. */
export const TOKEN_PATH = '/uaa/oauth2/token';
/** spec §Obtain an access token, legacy path: the gateway rewrites it to TOKEN_PATH. */
export const LEGACY_TOKEN_PATH = '/uaa/oauth/token';
/** spec §Get the current user: `GET {base_url}/users/me`. */
export const USER_PATH = '/users/me';
/** spec §Get the current user, legacy path: the gateway rewrites it to USER_PATH. */
export const LEGACY_USER_PATH = '/uaa/userinfo';

/** The response headers of a paged response (spec §Pagination). */
export const PAGING_HEADER_NAMES = ['Total-Pages', 'Page-Size', 'Page-Number', 'Total-Elements'] as const;

/** The documented value of the mandatory `Accept-Version` header (spec §Versioning 1). */
export const API_VERSION = '1';

/** `{base_url}/tenants/{tenantId}/<endpoint_path>` (spec §Tenant-scoped endpoints). */
export function tenantPath(tenantId: string, endpointPath: string): string {
  return `/tenants/${encodeURIComponent(tenantId)}/${endpointPath.replace(/^\/+/, '')}`;
}

/**
 * Joins a base URL (which may carry a path prefix, e.g. `https://gw.example/api`) and an API path.
 * `new URL(path, base)` would drop the prefix, so the path is appended instead.
 */
export function apiUrl(base: string, path: string): URL {
  const url = new URL(base);
  const q = path.indexOf('?');
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${q < 0 ? path : path.slice(0, q)}`;
  url.search = q < 0 ? '' : path.slice(q);
  return url;
}
