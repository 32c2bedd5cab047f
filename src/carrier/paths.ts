/** The paths of the Carrier-Platform API (spec §Endpoints). */

// The spec's constants live at the bottom floor (the reference server and the lint rules use them too).
export {
  API_VERSION,
  LEGACY_TOKEN_PATH,
  LEGACY_USER_PATH,
  PAGING_HEADER_NAMES,
  TOKEN_PATH,
  USER_PATH,
} from '../core/carrier-spec.js';

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
