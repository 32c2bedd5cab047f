/**
 * The Carrier-Platform API's fixed names (spec §Endpoints, §Pagination, §Versioning): defined once
 * here, for the harness (src/carrier/paths.ts), the reference server and the lint rules alike.
 */

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
