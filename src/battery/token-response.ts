import { LEGACY_TOKEN_PATH, TOKEN_PATH, USER_PATH } from '../carrier/paths.js';
import {
  credentialsRefused,
  getResource,
  readIssuedToken,
  requestToken,
  type ClientCredentials,
} from '../carrier/requests.js';
import { WHOLE_SECOND_MS, type HttpResponse } from '../http/client.js';
import type { CheckContext } from './check.js';
import {
  LEGACY_TOKEN_ENDPOINT,
  TOKEN_ENDPOINT,
  basicRefusedAt,
  sharedProbe,
  workingAnswer,
  type Endpoint,
} from './endpoints.js';
import { expectChallenge, expectJsonObject, expectNoToken, expectStatus } from './expect.js';
import { judgeOfMissingToken } from './token.js';
import { expiresInProblem, tokenFieldProblems } from '../carrier/token-judges.js';
import { describeValue } from './describe.js';

export { describeValue };

/** Token-endpoint steps shared by the token and legacy suites. */

/**
 * A token request with the configured credentials and everything valid, for a check that uses
 * the token (not one that tests the request): in HTTP Basic, the spec's, unless the endpoint
 * refused that in a run that goes with client_secret_post (basicRefusedAt).
 */
export async function requestValidToken(c: CheckContext, path = TOKEN_PATH): Promise<HttpResponse> {
  const post = await basicRefusedAt(c, path === LEGACY_TOKEN_PATH ? LEGACY_TOKEN_ENDPOINT : TOKEN_ENDPOINT);
  return requestToken(c.send, c.target, {
    path,
    credentials: c.credentials,
    ...(post ? { clientAuth: 'post' as const } : {}),
    purpose: `token request to ${path} with valid client credentials${post ? ' in the form body (client_secret_post: HTTP Basic got no token)' : ''}`,
  });
}

/**
 * The body of the endpoint's answer to a valid token request, shared by the checks that examine
 * it, or undefined after an error that points at the check judging that answer. In a run that
 * goes with client_secret_post, where HTTP Basic got no token, the client_secret_post answer is
 * judged, and the check says so: what the token response holds does not depend on how the
 * client authenticated.
 */
export async function issuedTokenBody(
  c: CheckContext,
  endpoint: Endpoint = TOKEN_ENDPOINT,
): Promise<{ res: HttpResponse; body: Record<string, unknown> } | undefined> {
  const res = await workingAnswer(c, endpoint);
  if (await basicRefusedAt(c, endpoint)) notePostAnswer(c, endpoint);
  if (res.status !== 200) {
    c.error(
      `cannot check: the token request with valid credentials answered ${res.status}, not 200 (see ${endpoint.judgedBy})`,
      res,
    );
    return undefined;
  }
  const parsed = res.json();
  if (!parsed.ok || parsed.value === null || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) {
    c.error(`cannot check: the token response is not a JSON object (see ${endpoint.judgedBy})`, res);
    return undefined;
  }
  return { res, body: parsed.value as Record<string, unknown> };
}

/** Says that the check judged the client_secret_post answer, and why. */
export function notePostAnswer(c: CheckContext, endpoint: Endpoint): void {
  c.note(
    `judged on the answer to the client credentials in the form body (client_secret_post): ${endpoint.label} gave no token to the same credentials in HTTP Basic (see ${endpoint.judgedBy})`,
  );
}

/** Judges a token response the check itself is about: 200 and a JSON object, or failures. */
export function judgeTokenResponse(
  c: CheckContext,
  res: HttpResponse,
  what: string,
): Record<string, unknown> | undefined {
  if (!expectStatus(c, res, [200], what)) return undefined;
  return expectJsonObject(c, res, `${what}: the response`);
}

/** A token as the check obtained it: when it asked, and the lifetime the server declared. */
export interface IssuedNow {
  res: HttpResponse;
  token: string;
  sentAt: number;
  expiresIn: number;
}

/**
 * A token issued just now, for a check that uses it at once (a shared one might be close to its
 * expiry by the time a late check runs), or undefined after an error pointing at `judgedBy`.
 */
export async function freshToken(c: CheckContext, endpoint: Endpoint = TOKEN_ENDPOINT): Promise<IssuedNow | undefined> {
  const sentAt = Date.now();
  const res = await requestValidToken(c, endpoint === LEGACY_TOKEN_ENDPOINT ? LEGACY_TOKEN_PATH : TOKEN_PATH);
  const issued = readIssuedToken(res);
  // The legacy path's token is LEGACY-TOKEN's to judge, status and fields alike.
  const judge = endpoint === LEGACY_TOKEN_ENDPOINT ? endpoint.judgedBy : judgeOfMissingToken(res);
  if (!issued)
    c.error(
      `cannot check: the token request with valid credentials answered ${res.status} without an access_token string (see ${judge})`,
      res,
    );
  return issued ? { res, token: issued.accessToken, sentAt, expiresIn: issued.expiresIn } : undefined;
}

/**
 * The token is accepted by GET /users/me (spec §Authentication 4). A 401 is judged only when the
 * answer came while the token was surely still valid: before `sentAt + expires_in`, less a second
 * for whole-second clocks. Later, a slow moment that outlasted a short-lived token could be the
 * cause: 'inconclusive', noted, for the check to try again with a new token.
 */
export async function judgeTokenUse(
  c: CheckContext,
  issued: IssuedNow,
  where: string,
): Promise<'accepted' | 'judged' | 'inconclusive'> {
  const what = `GET ${USER_PATH} with the token from ${where}`;
  const res = await getResource(c.send, c.target, {
    path: USER_PATH,
    auth: { kind: 'bearer', token: issued.token },
    purpose: what,
  });
  if (res.status === 200) return 'accepted';
  const lifetime = Number.isInteger(issued.expiresIn) && issued.expiresIn > 0 ? issued.expiresIn * 1000 : Infinity;
  if (res.status === 401 && res.receivedAt > issued.sentAt + lifetime - WHOLE_SECOND_MS) {
    c.note(
      `${what}: refused ${((res.receivedAt - issued.sentAt) / 1000).toFixed(1)} s after the token was asked for, when its expires_in (${issued.expiresIn} s) less a second had run out: not evidence either way`,
    );
    return 'inconclusive';
  }
  expectStatus(c, res, [200], what);
  return 'judged';
}

/** A fresh token from `endpoint` works: tried twice if a slow moment makes the first try inconclusive. */
export async function expectFreshTokenWorks(c: CheckContext, endpoint: Endpoint, where: string): Promise<void> {
  for (let attempt = 1; attempt <= 2; attempt += 1) {
    const issued = await freshToken(c, endpoint);
    if (!issued || (await judgeTokenUse(c, issued, where)) !== 'inconclusive') return;
  }
  c.error(
    `cannot judge: twice the token from ${where} was refused only once its expires_in (less a second) had run out; the target answers too slowly for tokens this short-lived`,
  );
}

// The token response's rules, shared with judging captured traffic (issue 43).
export { expiresInProblem, tokenFieldProblems };

/** A client id no server knows, for the unknown-client probes. */
export function unknownClient(credentials: ClientCredentials): ClientCredentials {
  return { ...credentials, clientId: `carrier-conformance-unknown-client-${process.pid}` };
}

/** The configured client with a secret that differs from the real one (encoded the same way). */
export function wrongSecret(credentials: ClientCredentials): ClientCredentials {
  return { ...credentials, clientSecret: `${credentials.clientSecret}-wrong` };
}

/** A grant type no server supports: RFC 6749 §4.5 extension grants are absolute URIs. */
export const UNSUPPORTED_GRANT = 'urn:carrier-conformance:unsupported-grant-type';

/** The bad token requests that several checks judge (each one rule of the answer, TOKEN-ERROR-FORMAT its format). */
export type BadTokenRequest =
  | 'wrong-secret'
  | 'unknown-client'
  | 'no-credentials'
  | 'no-grant-type'
  | 'unsupported-grant-type';

/** What each bad request is, in the words of the report. */
export const BAD_TOKEN_REQUESTS: Record<BadTokenRequest, string> = {
  'wrong-secret': 'a wrong client secret',
  'unknown-client': 'an unknown client id',
  'no-credentials': 'no client credentials',
  'no-grant-type': 'no grant_type',
  'unsupported-grant-type': `grant_type=${UNSUPPORTED_GRANT}`,
};

/** A bad token request to `path`, sent once per worker and shared by the checks that judge it. */
export function badTokenRequest(c: CheckContext, which: BadTokenRequest, path = TOKEN_PATH): Promise<HttpResponse> {
  const options = {
    'wrong-secret': { credentials: wrongSecret(c.credentials) },
    'unknown-client': { credentials: unknownClient(c.credentials) },
    'no-credentials': { credentials: null },
    'no-grant-type': { credentials: c.credentials, grantType: null },
    'unsupported-grant-type': { credentials: c.credentials, grantType: UNSUPPORTED_GRANT },
  }[which];
  const purpose = `POST ${path} with ${BAD_TOKEN_REQUESTS[which]}`;
  // The grant_type probes vary the request that gets a token; the others test HTTP Basic itself.
  const grantProbe = which === 'no-grant-type' || which === 'unsupported-grant-type';
  return sharedProbe(c, purpose, async (send) => {
    const post =
      grantProbe && (await basicRefusedAt(c, path === LEGACY_TOKEN_PATH ? LEGACY_TOKEN_ENDPOINT : TOKEN_ENDPOINT));
    return requestToken(send, c.target, {
      path,
      ...options,
      ...(post ? { clientAuth: 'post' as const } : {}),
      purpose: post ? `${purpose} (client_secret_post)` : purpose,
    });
  });
}

/** The client authentication of a request that varies something else (grant_type, a parameter) of the one that gets a token. */
export async function workingClientAuth(c: CheckContext): Promise<{ clientAuth?: 'post' }> {
  return (await basicRefusedAt(c, TOKEN_ENDPOINT)) ? { clientAuth: 'post' } : {};
}

/**
 * A token request with bad client credentials sent with HTTP Basic is refused: 401 (RFC 6749
 * §5.2 requires it when the client authenticated with the Authorization header), no token,
 * error invalid_client and a Basic challenge.
 */
export function expectClientRefused(c: CheckContext, res: HttpResponse, what: string): void {
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
  const error =
    parsed.ok && parsed.value !== null && typeof parsed.value === 'object'
      ? (parsed.value as Record<string, unknown>).error
      : undefined;
  if (typeof error === 'string' && codes.includes(error)) return true;
  const got =
    typeof error === 'string' ? `"${error}"` : parsed.ok ? 'a body without an error code' : 'a body that is not JSON';
  c.fail(`${what}: expected error ${codes.map((x) => `"${x}"`).join(' or ')}, got ${got}`, res);
  return false;
}

/**
 * The configured credentials were refused (401 invalid_client) on a request that varied
 * something else: when a valid request is refused too right now, the credentials are the cause
 * and the check cannot judge its own rule, an error that points at TOKEN-ISSUE. A valid request
 * that still succeeds means the refusal was the server's answer to the variation: judged.
 */
export async function credentialsRefusedNow(c: CheckContext, res: HttpResponse, what: string): Promise<boolean> {
  if (!credentialsRefused(res)) return false;
  const control = await requestValidToken(c);
  if (control.status === 200) return false;
  c.error(
    `${what}: refused (${res.status}), but so is a valid token request now (${control.status}): the configured credentials are refused, so nothing about this rule was learnt (see TOKEN-ISSUE)`,
    res,
  );
  return true;
}
