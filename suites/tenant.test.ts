/**
 * tenant: every tenant endpoint, /tenants/{tenantId}/<path> (spec §Tenant-scoped endpoints,
 * §Tenant identifier, §Authentication 5): the tenant under test is served, another tenant and a
 * malformed tenant id are refused, never with a 5xx and never with data. Each check is applied to
 * every list and single resource, each with its own outcome.
 */
import { isDeepStrictEqual } from 'node:util';
import { getResource } from '../src/api/requests.js';
import type { CheckContext } from '../src/battery/check.js';
import { check, suite } from '../src/battery/check.js';
import { notValidByDocument, onEach, probeWhenWorking, requireWorking, tenantEndpoints, validAnswer, type Endpoint } from '../src/battery/endpoints.js';
import { carriesResource, dataIn, getAsSecondClient, notForeign, pathInSecondTenant, secondAnswer } from '../src/battery/isolation.js';
import { expectStatus, expectStatusClass } from '../src/battery/expect.js';
import { extractItems } from '../src/battery/list-items.js';
import { HttpResponse } from '../src/http/client.js';

/** Not a UUID, but a plausible path segment. */
const NOT_A_UUID = 'not-a-uuid';

function endpointsOrSkip(c: CheckContext): Endpoint[] {
  if (c.settings.endpoints.length === 0) c.skip('no tenant endpoint configured: pass --openapi, --paged-path or --endpoint (e.g. --paged-path shipments)');
  return tenantEndpoints(c);
}

/**
 * The precondition of the isolation checks: the tenant under test is served on the endpoint. The
 * probe is sent beside the valid request, and its answer returned only if that precondition holds.
 */
async function ownTenantWorks(e: CheckContext, endpoint: Endpoint, probe: () => Promise<HttpResponse>): Promise<HttpResponse | undefined> {
  if (e.settings.tenantId === undefined) {
    e.error(`cannot compare with the tenant under test: ${e.settings.tenantProblem ?? 'none given'} (pass --tenant-id)`);
    return undefined;
  }
  return probeWhenWorking(e, endpoint, probe);
}

/** The endpoint's request path with another tenant id: the same resource, asked for in another tenant. */
async function inTenant(e: CheckContext, endpoint: Endpoint, tenantId: string): Promise<string> {
  const own = await endpoint.path(e);
  if (typeof own !== 'string') throw new Error(`${endpoint.label} has no path: ${own.unresolved}`);
  return own.replace(/^\/tenants\/[^/]+/, `/tenants/${encodeURIComponent(tenantId)}`);
}

/**
 * A refusal must not carry data: no list items, and for a single resource not the resource (its
 * own tenant's answer, or one with the id that was asked for); an error body may say anything else.
 */
async function expectNoData(e: CheckContext, endpoint: Endpoint, res: HttpResponse, what: string): Promise<void> {
  const parsed = res.json();
  if (!parsed.ok) return;
  const extracted = extractItems(parsed.value, endpoint.spec?.itemsProperty);
  if ('items' in extracted && extracted.items.length > 0) return e.fail(`${what}: the refusal carries ${extracted.items.length} items of data`, res);
  if (endpoint.spec?.kind !== 'single' || parsed.value === null || typeof parsed.value !== 'object') return;
  const own = (await validAnswer(e, endpoint)).json();
  const asked = decodeURIComponent((await inTenant(e, endpoint, '')).split('/').at(-1) ?? '');
  const id = (parsed.value as { id?: unknown }).id;
  if ((own.ok && isDeepStrictEqual(own.value, parsed.value)) || ((typeof id === 'string' || typeof id === 'number') && String(id) === asked)) e.fail(`${what}: the refusal carries the resource itself`, res);
}

/**
 * Isolation with the second client, on one endpoint (TENANT-FOREIGN): its own tenant read with its
 * token (exists, holds data), then asked for with the run's client's token; the run's tenant asked
 * for with the second client's. Each refusal 403 or 404, with no data.
 */
async function bothWays(e: CheckContext, endpoint: Endpoint): Promise<boolean | undefined> {
  if (e.settings.tenantId === undefined) {
    e.error(`cannot compare with the tenant under test: ${e.settings.tenantProblem ?? 'none given'} (pass --tenant-id)`);
    return false;
  }
  const own = await endpoint.path(e);
  if (typeof own !== 'string') {
    e.skipEndpoint(own.unresolved);
    return false;
  }
  return judgeBothWays(e, endpoint, own);
}

/** Whether the own tenant works there (undefined: not asked). */
async function judgeBothWays(e: CheckContext, endpoint: Endpoint, own: string): Promise<boolean | undefined> {
  const theirs = await secondAnswer(e, endpoint);
  const theirPath = await pathInSecondTenant(e, endpoint);
  if (!(theirs instanceof HttpResponse) || typeof theirPath !== 'string') {
    e.skipEndpoint(`in the second client's tenant: ${'unresolved' in theirs ? theirs.unresolved : 'no path'}`);
    return undefined;
  }
  const asFirst = `${endpoint.label.replace('{tenantId}', '{secondTenantId}')} with the run's client's token (the second client's tenant)`;
  const asSecond = `${endpoint.label} with the second client's token (the tenant under test)`;
  const [first, second] = [getResource(e.send, e.target, { path: theirPath, auth: e.bearer(), purpose: asFirst }), getAsSecondClient(e, own, asSecond)];
  first.catch(() => undefined);
  second.catch(() => undefined);
  if (!(await requireWorking(e, endpoint))) return false;
  if (theirs.status < 200 || theirs.status > 299) {
    e.error(`the second client cannot read its own tenant at ${endpoint.label}: it answered ${theirs.status}, so its data is not shown to exist there`, theirs);
    return true;
  }
  const data = dataIn(endpoint, theirs);
  if ('none' in data) {
    e.skipEndpoint(`the second client's tenant shows no data here (${data.none}): a refusal of nothing proves no isolation; give the second client a tenant with data at ${endpoint.label}`);
    return true;
  }
  for (const [res, what] of [[await first, asFirst], [await second, asSecond]] as const) {
    expectStatus(e, res, [403, 404], what);
    await expectNoData(e, endpoint, res, what);
  }
  if ('resource' in data && carriesResource(await first, data.resource, theirPath)) e.fail(`${asFirst}: the refusal carries the second client's resource itself`, await first);
  return true;
}

suite('tenant', () => {
  check('TENANT-ACCESS', async (c) => {
    const endpoints = endpointsOrSkip(c);
    if (c.settings.tenantId === undefined) return c.error(`no tenant under test: ${c.settings.tenantProblem ?? 'none given'} (pass --tenant-id)`);
    await onEach(c, endpoints, async (e, endpoint) => {
      const path = await endpoint.path(e);
      if (typeof path !== 'string') return e.skipEndpoint(path.unresolved);
      const res = await validAnswer(e, endpoint);
      const unproven = notValidByDocument(endpoint, res);
      if (unproven !== undefined) return e.skipEndpoint(unproven);
      // A 404 on the tenant's own path is often a path the deployment never had: say where it came from.
      const what = `${endpoint.label} for the tenant under test`;
      if (res.status === 404) return e.fail(`${what}: expected a 2xx status, got 404: the deployment serves nothing at this path for its own tenant (${endpoint.spec ? `named by ${endpoint.spec.source}` : 'a path of the spec'}; is the path right?)`, res);
      expectStatusClass(e, res, 2, what);
    });
  });

  // Another tenant's refusal is evidence of isolation only where this client's own tenant is
  // served: with a token refused everywhere, a 401 there says nothing about tenants. And only of a
  // tenant that exists: proven by its own client reading its data (a second client), or named by
  // the user; a tenant id made up at random is TENANT-UNKNOWN's (src/battery/isolation.ts).
  check('TENANT-FOREIGN', async (c) => {
    const endpoints = endpointsOrSkip(c);
    const { secondClient, foreignTenantId } = c.settings.isolation;
    if (secondClient === undefined && foreignTenantId === undefined) {
      c.skip('isolation not proven: no second client (--second-client-id) nor foreign tenant (--foreign-tenant-id); a random tenant id proves only that an unknown one is refused (TENANT-UNKNOWN)');
    }
    if (secondClient !== undefined && secondClient.tenantId === undefined) return c.error(`the second client's tenant is not known: ${secondClient.tenantProblem ?? 'none given'} (pass --second-tenant-id)`);
    const problems = [
      secondClient?.tenantId !== undefined ? await notForeign(c, secondClient.tenantId, "the second client's tenant") : undefined,
      foreignTenantId !== undefined ? await notForeign(c, foreignTenantId, 'the foreign tenant (--foreign-tenant-id)') : undefined,
    ].filter((p): p is string => p !== undefined);
    if (problems.length > 0) return problems.forEach((p) => c.error(p));
    await onEach(c, endpoints, async (e, endpoint) => {
      // With both, the named tenant is asked for too once the own tenant is known to work (its error said once).
      const works = secondClient !== undefined ? await bothWays(e, endpoint) : undefined;
      if (works === false || foreignTenantId === undefined) return;
      const what = `${endpoint.label.replace('{tenantId}', '{foreignTenantId}')} (a tenant this client may not access)`;
      const probe = async (): Promise<HttpResponse> => getResource(e.send, e.target, { path: await inTenant(e, endpoint, foreignTenantId), auth: e.bearer(), purpose: what });
      const res = works === true ? await probe() : await ownTenantWorks(e, endpoint, probe);
      if (!res) return;
      expectStatus(e, res, [403, 404], what);
      await expectNoData(e, endpoint, res, what);
    });
  });

  check('TENANT-UNKNOWN', async (c) => {
    await onEach(c, endpointsOrSkip(c), async (e, endpoint) => {
      const what = `${endpoint.label.replace('{tenantId}', '{unknownTenantId}')} (a tenant id that names no tenant)`;
      const res = await ownTenantWorks(e, endpoint, async () => getResource(e.send, e.target, { path: await inTenant(e, endpoint, e.settings.unknownTenantId), auth: e.bearer(), purpose: what }));
      if (!res) return;
      expectStatus(e, res, [403, 404], what);
      await expectNoData(e, endpoint, res, what);
    });
  });

  check('TENANT-INVALID-ID', async (c) => {
    await onEach(c, endpointsOrSkip(c), async (e, endpoint) => {
      const what = `${endpoint.label.replace('{tenantId}', NOT_A_UUID)} (a tenantId that is not a UUID)`;
      const res = await ownTenantWorks(e, endpoint, async () => getResource(e.send, e.target, { path: await inTenant(e, endpoint, NOT_A_UUID), auth: e.bearer(), purpose: what }));
      if (!res) return;
      expectStatusClass(e, res, 4, what);
      await expectNoData(e, endpoint, res, what);
    });
  });
});
