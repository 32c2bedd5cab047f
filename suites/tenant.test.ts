/**
 * tenant: /tenants/{tenantId}/<path> for each --paged-path (spec §Tenant-scoped endpoints,
 * §Tenant identifier, §Authentication 5): the tenant under test is served, another tenant and a
 * malformed tenant id are refused, never with a 5xx and never with data.
 */
import { tenantPath } from '../src/api/paths.js';
import { getResource } from '../src/api/requests.js';
import type { CheckContext } from '../src/battery/check.js';
import { check, suite } from '../src/battery/check.js';
import { requireWorking, tenantEndpoints, validAnswer } from '../src/battery/endpoints.js';
import { expectStatus, expectStatusClass } from '../src/battery/expect.js';
import { extractItems } from '../src/battery/list-items.js';
import type { HttpResponse } from '../src/http/client.js';

/** Not a UUID, but a plausible path segment. */
const NOT_A_UUID = 'not-a-uuid';

function pathsOrSkip(c: CheckContext): string[] {
  if (c.settings.pagedPaths.length === 0) c.skip('no tenant endpoint configured: pass --paged-path (e.g. --paged-path shipments)');
  return c.settings.pagedPaths;
}

/** The precondition of the isolation checks: the tenant under test is served on `path`. */
async function ownTenantWorks(c: CheckContext, path: string): Promise<boolean> {
  if (c.settings.tenantId === undefined) {
    c.error(`cannot compare with the tenant under test: ${c.settings.tenantProblem ?? 'none given'} (pass --tenant-id)`);
    return false;
  }
  const endpoint = tenantEndpoints(c).find((e) => e.label === `GET /tenants/{tenantId}/${path}`);
  return endpoint !== undefined && requireWorking(c, endpoint);
}

async function getTenantPath(c: CheckContext, tenantId: string, path: string, purpose: string): Promise<HttpResponse> {
  return getResource(c.send, c.target, { path: tenantPath(tenantId, path), auth: c.bearer(), purpose });
}

/** A refusal must not carry the list: no items in the body. */
function expectNoData(c: CheckContext, res: HttpResponse, what: string): void {
  const parsed = res.json();
  if (!parsed.ok) return;
  const extracted = extractItems(parsed.value);
  if ('items' in extracted && extracted.items.length > 0) c.fail(`${what}: the refusal carries ${extracted.items.length} items of data`, res);
}

suite('tenant', () => {
  check('TENANT-ACCESS', async (c) => {
    pathsOrSkip(c);
    if (c.settings.tenantId === undefined) return c.error(`no tenant under test: ${c.settings.tenantProblem ?? 'none given'} (pass --tenant-id)`);
    for (const endpoint of tenantEndpoints(c)) {
      const what = `${endpoint.label} for the tenant under test`;
      expectStatusClass(c, await validAnswer(c, endpoint), 2, what);
    }
  });

  // Another tenant's refusal is evidence of isolation only where this client's own tenant is
  // served: with a token refused everywhere, a 401 there says nothing about tenants.
  check('TENANT-FOREIGN', async (c) => {
    for (const path of pathsOrSkip(c)) {
      if (!(await ownTenantWorks(c, path))) continue;
      const what = `GET /tenants/{foreignTenantId}/${path} (a tenant this client may not access)`;
      const res = await getTenantPath(c, c.settings.foreignTenantId, path, what);
      expectStatus(c, res, [403, 404], what);
      expectNoData(c, res, what);
    }
  });

  check('TENANT-INVALID-ID', async (c) => {
    for (const path of pathsOrSkip(c)) {
      if (!(await ownTenantWorks(c, path))) continue;
      const what = `GET /tenants/${NOT_A_UUID}/${path} (a tenantId that is not a UUID)`;
      const res = await getTenantPath(c, NOT_A_UUID, path, what);
      expectStatusClass(c, res, 4, what);
      expectNoData(c, res, what);
    }
  });
});
