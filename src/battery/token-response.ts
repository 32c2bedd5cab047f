import { TOKEN_PATH, USER_PATH } from '../api/paths.js';
import { getResource, requestToken, type ClientCredentials } from '../api/requests.js';
import type { HttpResponse } from '../http/client.js';
import type { CheckContext } from './check.js';
import { expectChallenge, expectJsonObject, expectNoToken, expectStatus } from './expect.js';

/** Token-endpoint steps shared by the token and legacy suites. */

/** A token request with the configured credentials and everything valid. */
export function requestValidToken(c: CheckContext, path = TOKEN_PATH): Promise<HttpResponse> {
  return requestToken(c.send, c.target, { path, credentials: c.credentials, purpose: `token request to ${path} with valid client credentials` });
}

/**
 * The body of a successful token response, or undefined after recording why there is none:
 * as an error when `asPrerequisite` (the check tests something else and cannot go on).
 */
export async function issuedTokenBody(c: CheckContext, path = TOKEN_PATH, asPrerequisite = true): Promise<{ res: HttpResponse; body: Record<string, unknown> } | undefined> {
  const res = await requestValidToken(c, path);
  if (asPrerequisite) {
    if (res.status !== 200) {
      c.error(`cannot check: the token request with valid credentials answered ${res.status}, not 200 (see TOKEN-ISSUE)`, res);
      return undefined;
    }
    const parsed = res.json();
    if (!parsed.ok || parsed.value === null || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) {
      c.error('cannot check: the token response is not a JSON object (see TOKEN-ISSUE)', res);
      return undefined;
    }
    return { res, body: parsed.value as Record<string, unknown> };
  }
  if (!expectStatus(c, res, [200], `POST ${path} with valid client credentials`)) return undefined;
  const body = expectJsonObject(c, res, `POST ${path} response`);
  return body ? { res, body } : undefined;
}

/** spec §Access token response: the three fields and their types (RFC 6749 §5.1). */
export function tokenFieldProblems(body: Record<string, unknown>): string[] {
  const problems: string[] = [];
  if (typeof body.access_token !== 'string' || body.access_token === '') problems.push(`access_token must be a non-empty string, got ${describeValue(body.access_token)}`);
  if (typeof body.token_type !== 'string' || body.token_type.toLowerCase() !== 'bearer') problems.push(`token_type must be "bearer", got ${describeValue(body.token_type)}`);
  const expiresIn = body.expires_in;
  if (typeof expiresIn !== 'number' || !Number.isInteger(expiresIn) || expiresIn <= 0) problems.push(`expires_in must be a positive integer, got ${describeValue(expiresIn)}`);
  return problems;
}

/** A value as a reader needs to see it: its JSON, and for strings that it is a string. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'no such field';
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  return JSON.stringify(value);
}

/** The token is accepted by GET /users/me (spec §Authentication 4). */
export async function expectTokenWorks(c: CheckContext, token: string, where: string): Promise<boolean> {
  const res = await getResource(c.send, c.target, { path: USER_PATH, auth: { kind: 'bearer', token }, purpose: `GET ${USER_PATH} with the token from ${where}` });
  return expectStatus(c, res, [200], `GET ${USER_PATH} with the token from ${where}`);
}

/** A client id no server knows, for the unknown-client probes. */
export function unknownClient(credentials: ClientCredentials): ClientCredentials {
  return { clientId: `carrier-conformance-unknown-client-${process.pid}`, clientSecret: credentials.clientSecret };
}

/** The configured client with a secret that differs from the real one. */
export function wrongSecret(credentials: ClientCredentials): ClientCredentials {
  return { clientId: credentials.clientId, clientSecret: `${credentials.clientSecret}-wrong` };
}

/**
 * A token request with bad client credentials sent with HTTP Basic is refused: 401 (RFC 6749
 * §5.2 requires it when the client authenticated with the Authorization header), no token,
 * error invalid_client and a Basic challenge.
 */
export async function expectClientRefused(c: CheckContext, credentials: ClientCredentials, path: string, what: string): Promise<void> {
  const res = await requestToken(c.send, c.target, { path, credentials, purpose: what });
  const refused = expectStatus(c, res, [401], what);
  expectNoToken(c, res, what);
  if (!refused) return;
  expectErrorCode(c, res, ['invalid_client'], what);
  expectChallenge(c, res, 'Basic', what);
}

/**
 * The `error` code of an RFC 6749 §5.2 error response is one of `codes`. The body is read as
 * JSON whatever its Content-Type: its format is TOKEN-ERROR-FORMAT's business.
 */
export function expectErrorCode(c: CheckContext, res: HttpResponse, codes: readonly string[], what: string): boolean {
  const parsed = res.json();
  const error = parsed.ok && parsed.value !== null && typeof parsed.value === 'object' ? (parsed.value as Record<string, unknown>).error : undefined;
  if (typeof error === 'string' && codes.includes(error)) return true;
  const got = typeof error === 'string' ? `"${error}"` : parsed.ok ? 'a body without an error code' : 'a body that is not JSON';
  c.fail(`${what}: expected error ${codes.map((x) => `"${x}"`).join(' or ')}, got ${got}`, res);
  return false;
}
