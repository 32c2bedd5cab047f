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
import { endpointHeaders, notValidByDocument, onEach, probeWhenWorking, tenantEndpoints, validAnswer, type Endpoint } from '../src/battery/endpoints.js';
import { expectStatus, expectStatusClass } from '../src/battery/expect.js';
import { extractItems } from '../src/battery/list-items.js';
import type { HttpResponse } from '../src/http/client.js';

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
  // served: with a token refused everywhere, a 401 there says nothing about tenants.
  check('TENANT-FOREIGN', async (c) => {
    await onEach(c, endpointsOrSkip(c), async (e, endpoint) => {
      const what = `${endpoint.label.replace('{tenantId}', '{foreignTenantId}')} (a tenant this client may not access)`;
      const res = await ownTenantWorks(e, endpoint, async () => getResource(e.send, e.target, { path: await inTenant(e, endpoint, e.settings.foreignTenantId), auth: e.bearer(), headers: endpointHeaders(endpoint.spec), purpose: what }));
      if (!res) return;
      expectStatus(e, res, [403, 404], what);
      await expectNoData(e, endpoint, res, what);
    });
  });

  check('TENANT-INVALID-ID', async (c) => {
    await onEach(c, endpointsOrSkip(c), async (e, endpoint) => {
      const what = `${endpoint.label.replace('{tenantId}', NOT_A_UUID)} (a tenantId that is not a UUID)`;
      const res = await ownTenantWorks(e, endpoint, async () => getResource(e.send, e.target, { path: await inTenant(e, endpoint, NOT_A_UUID), auth: e.bearer(), headers: endpointHeaders(endpoint.spec), purpose: what }));
      if (!res) return;
      expectStatusClass(e, res, 4, what);
      await expectNoData(e, endpoint, res, what);
    });
  });
});
