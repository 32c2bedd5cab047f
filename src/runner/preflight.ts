import { USER_PATH } from '../api/paths.js';
import { getResource, readIssuedToken, requestToken, type ClientCredentials, type Target } from '../api/requests.js';
import type { SharedToken } from '../battery/wiring.js';
import { RunAbortedError } from '../errors.js';
import { TransportError, type HttpClient } from '../http/client.js';
import type { Redactor } from '../redact.js';

/**
 * Before the battery: make sure the target answers at all (else exit 3 with one clear line
 * instead of fifty errored checks), obtain the token every check shares, and find the tenant
 * under test when none was given (spec §Get the current user: the tenants the user may access).
 */

export interface Preflight {
  sharedToken?: SharedToken;
  sharedTokenProblem?: string;
  tenantId?: string;
  tenantProblem?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Sends a preflight request. When no HTTP response even begins (refused, DNS, TLS, silence),
 * the target cannot be reached and the run ends (exit 3); a response that begins and then
 * breaks means the target is there but misbehaves, which the battery will report check by check.
 */
async function reach<T>(what: string, url: string, send: () => Promise<T>): Promise<T | TransportError> {
  try {
    return await send();
  } catch (err) {
    if (err instanceof TransportError && err.beforeResponse) throw new RunAbortedError(`cannot reach the ${what} at ${url}: ${err.message}`);
    if (err instanceof TransportError) return err;
    throw err;
  }
}

export async function preflight(http: HttpClient, target: Target, credentials: ClientCredentials, redactor: Redactor, tenantId: string | undefined): Promise<Preflight> {
  const send = (req: Parameters<HttpClient['send']>[0]) => http.send(req);
  const out: Preflight = {};

  const sentAt = Date.now();
  const tokenRes = await reach('token endpoint', target.authUrl, () => requestToken(send, target, { credentials, purpose: 'obtain the shared access token' }));
  const receivedAt = Date.now();
  if (tokenRes instanceof TransportError) {
    out.sharedTokenProblem = `the token request failed: ${tokenRes.message}`;
    out.tenantProblem = `no tenant was given (--tenant-id) and there is no token to ask /users/me with`;
    if (tenantId !== undefined) out.tenantId = tenantId;
    return out;
  }
  const issued = readIssuedToken(tokenRes);
  if (issued) {
    redactor.addSecret(issued.accessToken, 'access-token');
    const expiresIn = Number.isInteger(issued.expiresIn) && issued.expiresIn > 0 ? issued.expiresIn : 60;
    out.sharedToken = { accessToken: issued.accessToken, expiresIn, sentAt, receivedAt };
  } else {
    const parsed = tokenRes.json();
    const code = parsed.ok && parsed.value !== null && typeof parsed.value === 'object' ? (parsed.value as { error?: unknown }).error : undefined;
    out.sharedTokenProblem = `the token request with the configured credentials answered ${tokenRes.status}${typeof code === 'string' ? ` ${code}` : ''}${tokenRes.status === 401 ? ': check --client-id and --client-secret' : ''}`;
  }

  if (tenantId !== undefined) {
    out.tenantId = tenantId;
    return out;
  }
  if (!out.sharedToken) {
    out.tenantProblem = `no tenant was given (--tenant-id) and /users/me cannot be asked without a token (${out.sharedTokenProblem ?? 'no token'})`;
    return out;
  }
  const token = out.sharedToken.accessToken;
  const userRes = await reach('API', target.baseUrl, () => getResource(send, target, { path: USER_PATH, auth: { kind: 'bearer', token }, purpose: 'find the tenant under test' }));
  if (userRes instanceof TransportError) {
    out.tenantProblem = `no tenant was given (--tenant-id) and GET /users/me failed: ${userRes.message}`;
    return out;
  }
  const parsed = userRes.json();
  const tenants = parsed.ok && parsed.value !== null && typeof parsed.value === 'object' ? (parsed.value as { tenants?: unknown }).tenants : undefined;
  const first = Array.isArray(tenants) ? (tenants[0] as { id?: unknown } | undefined) : undefined;
  if (userRes.status === 200 && typeof first?.id === 'string' && UUID.test(first.id)) out.tenantId = first.id;
  else out.tenantProblem = `no tenant was given (--tenant-id) and GET /users/me (${userRes.status}) lists no tenant with a UUID id`;
  return out;
}
