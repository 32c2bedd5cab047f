import { getResource, readIssuedToken, requestToken, type Send } from '../carrier/requests.js';
import { TOKEN_PATH } from '../carrier/paths.js';
import { Recorder, type HttpResponse } from '../http/client.js';
import { redactor } from '../core/redact.js';
import type { CheckContext } from './check.js';
import { getBattery } from './context.js';
import {
  endpointHeaders,
  resolveInTenant,
  sharedProbe,
  tenantEndpoint,
  validAnswer,
  USER_ENDPOINT,
  type Endpoint,
} from './endpoints.js';
import { PrerequisiteError } from './errors.js';
import { extractItems } from '../carrier/list-items.js';

/**
 * Tenant isolation proven with a second client (issue 39, TENANT-FOREIGN): a tenant proven to
 * exist and to hold data, because its own client reads that data, is then asked for with the
 * first client's token; and the first client's tenant with the second's. A refusal (403 or 404)
 * of a tenant id made up at random proves only that an unknown tenant is refused (TENANT-UNKNOWN).
 *
 * The second client's requests go through the HTTP layer like every other (recorded, redacted),
 * with a token of its own, asked for at the token endpoint with its credentials.
 */

/** The second client as the battery knows it (src/battery/wiring.ts Isolation). */
type SecondClient = NonNullable<CheckContext['settings']['isolation']['secondClient']>;

/** A token taken this long before its expires_in runs out is renewed instead: it could expire in flight. */
const RENEW_AHEAD_MS = 2000;

/** The second client's token requests: one recorder for the worker, cited by the checks that used them. */
const tokenRecorder = new Recorder(false);
let current: { token: string; validUntil: number } | undefined;
let pending: Promise<{ token: string; validUntil: number }> | undefined;

/** The second client's access token: its preflight's while valid, else a new one (one request in flight at a time). */
async function secondToken(c: CheckContext, second: SecondClient, renew: boolean): Promise<string> {
  c.uses(tokenRecorder);
  const now = Date.now();
  if (current === undefined && second.token !== undefined)
    current = { token: second.token.accessToken, validUntil: second.token.sentAt + second.token.expiresIn * 1000 };
  if (!renew && current !== undefined && current.validUntil - now > RENEW_AHEAD_MS) return current.token;
  pending ??= (async () => {
    const sentAt = Date.now();
    const send: Send = (req) => getBattery().http.send({ ...req, priority: 'high' }, tokenRecorder);
    const res = await requestToken(send, c.target, {
      credentials: second.credentials,
      ...(c.target.clientAuth === 'post' ? { clientAuth: 'post' as const } : {}),
      purpose: `POST ${TOKEN_PATH}: a token of the second client (it proves tenant isolation)`,
    });
    const issued = readIssuedToken(res);
    if (issued === undefined)
      throw new PrerequisiteError(
        `the second client got no access token: the token endpoint answered ${res.status} (see TOKEN-ISSUE)`,
      );
    redactor.addSecret(issued.accessToken, 'access-token');
    const lifetime = Number.isFinite(issued.expiresIn) && issued.expiresIn > 0 ? issued.expiresIn : 60;
    current = { token: issued.accessToken, validUntil: sentAt + lifetime * 1000 };
    return current;
  })().finally(() => (pending = undefined));
  return (await pending).token;
}

/**
 * `GET path` with the second client's token and the endpoint's required `headers`, through `via`.
 * A 401 is asked again once with a new token (said in the check's notes): the token may have run
 * out, and only its refusal while surely valid is evidence.
 */
export async function getAsSecondClient(
  c: CheckContext,
  path: string,
  purpose: string,
  headers: Record<string, string>,
  via: Send = c.send,
): Promise<HttpResponse> {
  const second = c.settings.isolation.secondClient;
  if (second === undefined) throw new PrerequisiteError('no second client (--second-client-id)');
  const first = await getResource(via, c.target, {
    path,
    auth: { kind: 'bearer', token: await secondToken(c, second, false) },
    headers,
    purpose,
  });
  if (first.status !== 401) return first;
  c.recorder.retries.push(
    `GET ${path.split('?')[0] ?? path} was refused (401) with the second client's token; sent again once with a new one before judging`,
  );
  return getResource(via, c.target, {
    path,
    auth: { kind: 'bearer', token: await secondToken(c, second, true) },
    headers,
    purpose: `${purpose} (again, with a new token of the second client)`,
  });
}

/** Paths of the endpoints in the second client's tenant, resolved once per worker. */
const secondPaths = new Map<string, Promise<string | { unresolved: string }>>();

/**
 * The endpoint's request path in the second client's tenant: its parameters filled from that
 * tenant's lists, read with the second client's token (the first tenant's ids name nothing there).
 */
export function pathInSecondTenant(c: CheckContext, endpoint: Endpoint): Promise<string | { unresolved: string }> {
  const spec = endpoint.spec;
  const tenantId = c.settings.isolation.secondClient?.tenantId;
  if (spec === undefined || tenantId === undefined)
    return Promise.resolve({ unresolved: 'not a tenant endpoint of the second client' });
  let path = secondPaths.get(spec.path);
  if (path === undefined) {
    path = resolveInTenant(c, spec, {
      tenantId,
      givenFirst: false,
      list: (parent) => secondAnswer(c, tenantEndpoint(parent)).catch(() => undefined),
    });
    secondPaths.set(spec.path, path);
  }
  return path;
}

/**
 * The second client's answer to the endpoint's valid request in its own tenant, sent once per
 * worker and recorded apart (cited by each check that judges with it), or why it cannot be made.
 */
export async function secondAnswer(
  c: CheckContext,
  endpoint: Endpoint,
): Promise<HttpResponse | { unresolved: string }> {
  const path = await pathInSecondTenant(c, endpoint);
  if (typeof path !== 'string') return path;
  return sharedProbe(c, `second-client ${path}`, (send) =>
    getAsSecondClient(
      c,
      path,
      `${endpoint.label}: the second client reads its own tenant`,
      endpointHeaders(endpoint.spec),
      send,
    ),
  );
}

/**
 * What data a 2xx answer holds: a list's items, or a single resource's object. Undefined when it
 * holds none (an empty list, a body that is not an object), with why.
 */
export function dataIn(
  endpoint: Endpoint,
  res: HttpResponse,
): { items: number } | { resource: Record<string, unknown> } | { none: string } {
  const parsed = res.json();
  if (!parsed.ok) return { none: 'its body is not JSON' };
  if (endpoint.spec?.kind === 'list') {
    const extracted = extractItems(parsed.value, endpoint.spec.itemsProperty);
    if (!('items' in extracted)) return { none: extracted.problem };
    return extracted.items.length > 0 ? { items: extracted.items.length } : { none: 'the list is empty' };
  }
  return parsed.value !== null && typeof parsed.value === 'object' && !Array.isArray(parsed.value)
    ? { resource: parsed.value as Record<string, unknown> }
    : { none: 'its body is not a JSON object' };
}

/** The tenant ids a /users/me answer lists, lower case (empty when it lists none or failed). */
export function listedTenants(res: HttpResponse | undefined): string[] {
  const parsed = res && res.status === 200 ? res.json() : undefined;
  const tenants =
    parsed?.ok && parsed.value !== null && typeof parsed.value === 'object'
      ? (parsed.value as { tenants?: unknown }).tenants
      : undefined;
  if (!Array.isArray(tenants)) return [];
  return tenants
    .map((t) => (t as { id?: unknown } | null)?.id)
    .filter((id): id is string => typeof id === 'string')
    .map((id) => id.toLowerCase());
}

/**
 * Why isolation cannot be shown between the run's tenant and another (`other`, with how the
 * message names it), or undefined when it can: the same tenant, or one the first client's
 * /users/me lists (it may access it), or a second client that may access the first tenant.
 */
export async function notForeign(c: CheckContext, other: string, named: string): Promise<string | undefined> {
  const own = c.settings.tenantId?.toLowerCase();
  const id = other.toLowerCase();
  if (own === id)
    return `${named} ${other} is the tenant under test: isolation is shown between two tenants; give another`;
  const firstSees = listedTenants(await validAnswer(c, USER_ENDPOINT).catch(() => undefined));
  if (firstSees.includes(id))
    return `${named} ${other} is one the run's client may access (its /users/me lists it): no isolation to show; give a tenant it may not access`;
  const second = c.settings.isolation.secondClient;
  if (named.includes('second client') && own !== undefined && second?.tenants?.includes(own))
    return `the second client may access the tenant under test ${own} (its /users/me lists it): give a second client of another tenant only`;
  return undefined;
}
