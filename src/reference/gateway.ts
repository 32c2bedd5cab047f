/**
 * The gateway in front of routing: rewrites legacy paths to their current ones (spec §Obtain an
 * access token, §Get the current user — "the gateway rewrites it"). A rewrite, never a redirect:
 * the client gets the target's answer directly, and the query string is kept.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { LEGACY_TOKEN_PATH, LEGACY_USER_PATH, TOKEN_PATH, USER_PATH } from '../core/carrier-spec.js';

/** Legacy path → current path. Matched on the path alone, so a wrong method gets the target's 405. */
export const LEGACY_REWRITES: ReadonlyMap<string, string> = new Map([
  [LEGACY_TOKEN_PATH, TOKEN_PATH],
  [LEGACY_USER_PATH, USER_PATH],
]);

export interface RequestTarget {
  /** The path after rewriting, still percent-encoded as received. */
  readonly path: string;
  readonly query: URLSearchParams;
  /** The raw query string without `?` (empty when absent). */
  readonly rawQuery: string;
}

/**
 * Splits an origin-form request target (RFC 9112 §3.2.1). Deliberately not `new URL(...)`: a
 * target like `//evil/x` would otherwise be read as an authority. With `legacyRewrites` false
 * (a real gateway in front rewrites them) the legacy paths are left as they are, i.e. unknown.
 */
export function routeTarget(requestUrl: string, legacyRewrites = true): RequestTarget {
  const q = requestUrl.indexOf('?');
  const rawPath = q === -1 ? requestUrl : requestUrl.slice(0, q);
  const rawQuery = q === -1 ? '' : requestUrl.slice(q + 1);
  const path = (legacyRewrites ? LEGACY_REWRITES.get(rawPath) : undefined) ?? rawPath;
  return { path, query: new URLSearchParams(rawQuery), rawQuery };
}

/**
 * The path under which a gateway in front serves the API, as it declares it in
 * `X-Forwarded-Prefix` (a de facto header: Spring, Traefik, ASP.NET read it), for the Link
 * targets the server writes: behind `location /api/` a link to `/tenants/...` would lead out of
 * the API. Only a plain path (`/seg/seg`) is taken; anything else is ignored.
 */
export function forwardedPrefix(headers: IncomingHttpHeaders): string {
  const value = headers['x-forwarded-prefix'];
  const prefix = typeof value === 'string' ? value.replace(/\/+$/, '') : '';
  // Segments of unreserved characters (RFC 3986 §2.3), none of them a dot segment (§3.3).
  return /^(\/(?!\.\.?(\/|$))[A-Za-z0-9._~-]+)+$/.test(prefix) ? prefix : '';
}
