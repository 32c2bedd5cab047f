import { LEGACY_TOKEN_PATH, LEGACY_USER_PATH, TOKEN_PATH, USER_PATH, tenantPath } from '../api/paths.js';
import { getResource, requestToken, type Send, type VersionHeader } from '../api/requests.js';
import { Recorder, type HttpResponse, type RequestAuth } from '../http/client.js';
import type { CheckContext } from './check.js';
import { getBattery } from './context.js';

/**
 * The endpoints that rules "on every endpoint" apply to (spec §Endpoints: every endpoint requires
 * Accept-Version; every endpoint but the token endpoint requires a bearer token). Each one knows
 * how to send a request that is valid in every respect but the one a check varies.
 *
 * Each endpoint's answer to a fully valid request (`validAnswer`) is fetched once and shared: the
 * check named in `judgedBy` judges it, and every check that varies one thing on the endpoint
 * needs it to have succeeded first. A probe is only evidence when the same request without the
 * variation works: a 401 without a token proves nothing on an endpoint that refuses everything,
 * and a 400 without Accept-Version nothing on one that answers 400 to anything. When the valid
 * request fails, the probes on that endpoint are errors that point at `judgedBy`, so that one
 * root cause is reported once.
 */

export interface Endpoint {
  /** e.g. "POST /uaa/oauth2/token" or "GET /tenants/{tenantId}/shipments". */
  label: string;
  kind: 'token' | 'resource';
  /** The check that judges the endpoint's answer to a valid request. */
  judgedBy: string;
  send(c: CheckContext, variation: VersionHeader & { auth?: RequestAuth }, purpose: string): Promise<HttpResponse>;
  /** The valid request, sent through `send` (which records it where the caller wants). */
  sendValid(c: CheckContext, send: Send, purpose: string): Promise<HttpResponse>;
}

function tokenEndpoint(path: string, legacy: boolean): Endpoint {
  const label = `POST ${path}${legacy ? ' (legacy)' : ''}`;
  return {
    label,
    kind: 'token',
    judgedBy: legacy ? 'LEGACY-TOKEN' : 'TOKEN-ISSUE',
    send: (c, v, purpose) => requestToken(c.send, c.target, { path, credentials: c.credentials, ...v, purpose: `${label}: ${purpose}` }),
    sendValid: (c, send, purpose) => requestToken(send, c.target, { path, credentials: c.credentials, purpose: `${label}: ${purpose}` }),
  };
}

function resourceEndpoint(path: string, label: string, judgedBy: string): Endpoint {
  return {
    label,
    kind: 'resource',
    judgedBy,
    send: (c, v, purpose) => getResource(c.send, c.target, { path, auth: v.auth ?? c.bearer(), ...v, purpose: `${label}: ${purpose}` }),
    sendValid: (c, send, purpose) => getResource(send, c.target, { path, auth: c.bearer(), purpose: `${label}: ${purpose}` }),
  };
}

/** The tenant endpoints configured with --paged-path, for the tenant under test. */
export function tenantEndpoints(c: CheckContext): Endpoint[] {
  const { tenantId, pagedPaths } = c.settings;
  if (tenantId === undefined) return [];
  return pagedPaths.map((p) => resourceEndpoint(tenantPath(tenantId, p), `GET /tenants/{tenantId}/${p}`, 'TENANT-ACCESS'));
}

export const USER_ENDPOINT = resourceEndpoint(USER_PATH, `GET ${USER_PATH}`, 'USER-OK');
export const LEGACY_USER_ENDPOINT = resourceEndpoint(LEGACY_USER_PATH, `GET ${LEGACY_USER_PATH} (legacy)`, 'LEGACY-USERINFO');
export const TOKEN_ENDPOINT = tokenEndpoint(TOKEN_PATH, false);
export const LEGACY_TOKEN_ENDPOINT = tokenEndpoint(LEGACY_TOKEN_PATH, true);

/** /users/me, its legacy path and every configured tenant endpoint. */
export function resourceEndpoints(c: CheckContext): Endpoint[] {
  return [USER_ENDPOINT, LEGACY_USER_ENDPOINT, ...tenantEndpoints(c)];
}

/** The token endpoint and its legacy path. */
export function tokenEndpoints(): Endpoint[] {
  return [TOKEN_ENDPOINT, LEGACY_TOKEN_ENDPOINT];
}

/** Every endpoint of the API that this run knows of. */
export function allEndpoints(c: CheckContext): Endpoint[] {
  return [...tokenEndpoints(), ...resourceEndpoints(c)];
}

const validAnswers = new Map<string, { answer: Promise<HttpResponse>; recorder: Recorder }>();

/**
 * The endpoint's answer to a fully valid request (the documented Accept-Version, a valid token
 * or the configured client credentials), sent once per worker and recorded apart; checks cite it.
 */
export function validAnswer(c: CheckContext, endpoint: Endpoint): Promise<HttpResponse> {
  let shared = validAnswers.get(endpoint.label);
  if (!shared) {
    const recorder = new Recorder();
    const send: Send = (req) => getBattery().http.send(req, recorder);
    // The check that sends it accounts for the token renewals it needed.
    const answer = endpoint.sendValid(c, send, 'a valid request').finally(() => (c.sharedTokenRequests += recorder.tokenRequests));
    validAnswers.set(endpoint.label, (shared = { answer, recorder }));
  }
  c.uses(shared.recorder);
  return shared.answer;
}

/** A token endpoint succeeds with 200 (a token); a resource endpoint with any 2xx. */
export function succeeded(endpoint: Endpoint, res: HttpResponse): boolean {
  return endpoint.kind === 'token' ? res.status === 200 : res.status >= 200 && res.status < 300;
}

/**
 * The precondition of every probe on an endpoint: its valid request succeeds. Otherwise an error
 * that points at the check judging the endpoint, and false.
 */
export async function requireWorking(c: CheckContext, endpoint: Endpoint): Promise<boolean> {
  const res = await validAnswer(c, endpoint);
  if (succeeded(endpoint, res)) return true;
  c.error(`cannot judge ${endpoint.label}: even a valid request gets ${res.status} there (see ${endpoint.judgedBy})`, res);
  return false;
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
