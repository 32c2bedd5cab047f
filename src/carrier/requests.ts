import type { BasicEncoding } from '../core/basic-credentials.js';
import type { HttpRequest, HttpResponse, RequestAuth } from '../http/client.js';
import { API_VERSION, TOKEN_PATH, apiUrl } from './paths.js';

/** Where the API under test lives: spec §Notation, {base_url} and {auth_url}. */
export interface Target {
  baseUrl: string;
  authUrl: string;
  /**
   * Form fields the deployment's token endpoint needs besides grant_type (`--token-param`,
   * `--scope`): RFC 6749 §4.4.2 `scope`, RFC 8707 `resource`, Auth0's `audience`. Sent with every
   * token request, the checks' included: without them the endpoint refuses for their absence,
   * and a check would judge that instead of what it tests.
   */
  tokenParams?: readonly (readonly [string, string])[];
  /**
   * `post`: the run's own token requests (preflight, the shared token's renewals) send the client
   * credentials in the form body, RFC 6749 §2.3.1's client_secret_post, which it says is NOT
   * RECOMMENDED and the spec does not allow (§Obtain an access token: HTTP Basic): because
   * --client-auth post says so, or because the preflight found HTTP Basic refused and
   * client_secret_post accepted. The checks of the token endpoint still send Basic: that is what
   * they test. Where Basic gets no token, the token response and the token's use are judged on
   * client_secret_post (src/battery/token-response.ts workingClientAuth).
   */
  clientAuth?: 'basic' | 'post';
}

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  /** How they go into the Basic header: RFC 6749 §2.3.1 form-encoding (the default), or as they are. */
  encoding?: BasicEncoding;
}

/** Sends one request through the HTTP layer, recording it for the check that asks. */
export type Send = (req: HttpRequest) => Promise<HttpResponse>;

/** How the `Accept-Version` header is sent: `null` leaves it out (spec §Versioning 2). */
export interface VersionHeader {
  acceptVersion?: string | null;
  /** The header name as spelled on the wire; field names are case-insensitive (RFC 9110 §5.1). */
  acceptVersionName?: string;
}

function versionHeaders(v: VersionHeader): Record<string, string> {
  const value = v.acceptVersion === undefined ? API_VERSION : v.acceptVersion;
  return value === null ? {} : { [v.acceptVersionName ?? 'Accept-Version']: value };
}

export interface TokenRequestOptions extends VersionHeader {
  /** TOKEN_PATH unless a check probes the legacy path. */
  path?: string;
  /** `null`: send no client authentication at all. */
  credentials: ClientCredentials | null;
  /** The Basic scheme name as spelled on the wire (default "Basic"). */
  basicScheme?: string;
  /** `post`: the credentials go in the form body (client_secret_post), not in Basic; see Target.clientAuth. */
  clientAuth?: 'basic' | 'post';
  /** `null` leaves grant_type out; default `client_credentials` (spec §Obtain an access token). */
  grantType?: string | null;
  extraParams?: Record<string, string>;
  purpose: string;
}

/**
 * The token request of spec §Obtain an access token: `POST {auth_url}/uaa/oauth2/token` with
 * HTTP Basic client authentication and a form body (RFC 6749 §4.4.2).
 */
export function requestToken(send: Send, target: Target, opts: TokenRequestOptions): Promise<HttpResponse> {
  const form = new URLSearchParams();
  const grantType = opts.grantType === undefined ? 'client_credentials' : opts.grantType;
  if (grantType !== null) form.set('grant_type', grantType);
  for (const [name, value] of target.tokenParams ?? []) form.append(name, value);
  for (const [name, value] of Object.entries(opts.extraParams ?? {})) form.append(name, value);
  const post = opts.clientAuth === 'post' && opts.credentials !== null;
  if (post && opts.credentials) {
    // RFC 6749 §2.3.1: client_id and client_secret as form parameters (the form encodes them).
    form.append('client_id', opts.credentials.clientId);
    form.append('client_secret', opts.credentials.clientSecret);
  }
  const auth: RequestAuth =
    opts.credentials && !post
      ? { kind: 'client-basic', ...opts.credentials, ...(opts.basicScheme ? { scheme: opts.basicScheme } : {}) }
      : { kind: 'none' };
  return send({
    method: 'POST',
    url: apiUrl(target.authUrl, opts.path ?? TOKEN_PATH),
    headers: { ...versionHeaders(opts), 'Content-Type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
    auth,
    purpose: opts.purpose,
  });
}

export interface ResourceRequestOptions extends VersionHeader {
  /** The API path, with its query, e.g. `/users/me` or `/tenants/{id}/shipments?page=2`. */
  path: string;
  auth: RequestAuth;
  purpose: string;
  /** The endpoint's own required header fields (the document's header parameters: src/battery/endpoints.ts endpointHeaders). */
  headers?: Record<string, string>;
}

/** `GET {base_url}<path>` with `Accept-Version` and an Authorization (spec §Endpoints). */
export function getResource(send: Send, target: Target, opts: ResourceRequestOptions): Promise<HttpResponse> {
  return send({
    method: 'GET',
    url: apiUrl(target.baseUrl, opts.path),
    headers: { ...opts.headers, ...versionHeaders(opts) },
    auth: opts.auth,
    purpose: opts.purpose,
  });
}

/** The size of the content a write probe announces and never sends (src/http/header-only.ts): a JSON object's `{}`. */
export const PROMISED_CONTENT_LENGTH = 2;

export interface WriteRequestOptions extends ResourceRequestOptions {
  /** POST, PUT, PATCH, DELETE, QUERY or another method the document declares (src/openapi/endpoint-model.ts). */
  method: string;
  /** The media type of the content the operation takes; absent: the request announces none. */
  contentType?: string;
}

/**
 * A write operation's request with no content (issue 41): one that takes content announces it
 * with `Expect: 100-continue` and never sends it (HttpRequest.promisedContent), so that it is
 * judged on its header section alone; one that takes none (a DELETE) goes as it is.
 */
export function writeWithoutContent(send: Send, target: Target, opts: WriteRequestOptions): Promise<HttpResponse> {
  return send({
    method: opts.method,
    url: apiUrl(target.baseUrl, opts.path),
    headers: { ...opts.headers, ...versionHeaders(opts) },
    auth: opts.auth,
    purpose: opts.purpose,
    ...(opts.contentType !== undefined
      ? { promisedContent: { type: opts.contentType, length: PROMISED_CONTENT_LENGTH } }
      : {}),
  });
}

/**
 * Content that no JSON schema accepts, because it is no JSON text (RFC 8259 §2): what a write
 * probe of tier 2 sends (issue 41, --write-probes invalid-content), so that a server that skipped
 * the rule under test still has nothing it could act on.
 */
export const INVALID_JSON_CONTENT = '{';

/** A write operation's request with content that is not JSON (INVALID_JSON_CONTENT), in the operation's JSON media type. */
export function writeWithInvalidContent(
  send: Send,
  target: Target,
  opts: WriteRequestOptions & { contentType: string },
): Promise<HttpResponse> {
  return send({
    method: opts.method,
    url: apiUrl(target.baseUrl, opts.path),
    headers: { ...opts.headers, ...versionHeaders(opts), 'content-type': opts.contentType },
    auth: opts.auth,
    purpose: opts.purpose,
    body: INVALID_JSON_CONTENT,
  });
}

/** `GET` of an absolute URL (a Link target) with a bearer token and the documented version, and the endpoint's own header fields. */
export function getUrl(
  send: Send,
  url: string | URL,
  auth: RequestAuth,
  purpose: string,
  headers: Record<string, string> = {},
): Promise<HttpResponse> {
  return send({ method: 'GET', url, headers: { ...headers, ...versionHeaders({}) }, auth, purpose });
}

export interface IssuedToken {
  accessToken: string;
  tokenType: string;
  expiresIn: number;
}

/** The token of a successful token response, or undefined when there is none to use. */
export function readIssuedToken(res: HttpResponse): IssuedToken | undefined {
  if (res.status !== 200) return undefined;
  const parsed = res.json();
  if (!parsed.ok || parsed.value === null || typeof parsed.value !== 'object') return undefined;
  const body = parsed.value as Record<string, unknown>;
  if (typeof body.access_token !== 'string' || body.access_token === '') return undefined;
  return {
    accessToken: body.access_token,
    tokenType: typeof body.token_type === 'string' ? body.token_type : '',
    expiresIn: typeof body.expires_in === 'number' ? body.expires_in : Number(body.expires_in),
  };
}

/** The OAuth error code of a response body, if it has one (RFC 6749 §5.2). */
export function oauthErrorCode(res: HttpResponse): string | undefined {
  const parsed = res.json();
  const code =
    parsed.ok && parsed.value !== null && typeof parsed.value === 'object'
      ? (parsed.value as { error?: unknown }).error
      : undefined;
  return typeof code === 'string' ? code : undefined;
}

/**
 * The token endpoint refused the client's authentication (RFC 6749 §5.2: invalid_client, with
 * 401 when the client authenticated with the Authorization header, as the harness does).
 */
export function credentialsRefused(res: HttpResponse): boolean {
  return res.status === 401 || (res.status === 400 && oauthErrorCode(res) === 'invalid_client');
}
