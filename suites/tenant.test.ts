/**
 * tenant: every tenant endpoint, /tenants/{tenantId}/<path> (spec §Tenant-scoped endpoints,
 * §Tenant identifier, §Authentication 5): the tenant under test is served, another tenant and a
 * malformed tenant id are refused, never with a 5xx and never with data. Each check is applied to
 * every list and single resource, each with its own outcome.
 */
import { isDeepStrictEqual } from 'node:util';
import { getResource } from '../src/carrier/requests.js';
import type { CheckContext } from '../src/battery/check.js';
import { check, suite } from '../src/battery/check.js';
import {
  endpointHeaders,
  notValidByDocument,
  onEach,
  probeWhenWorking,
  requireWorking,
  tenantEndpoints,
  validAnswer,
  type Endpoint,
} from '../src/battery/endpoints.js';
import { dataIn, getAsSecondClient, notForeign, pathInSecondTenant, secondAnswer } from '../src/battery/isolation.js';
import { expectStatus, expectStatusClass } from '../src/battery/expect.js';
import { TENANT_AND_AUTH, judgePrecedence } from '../src/battery/precedence.js';
import { extractItems, itemId } from '../src/carrier/list-items.js';
import {
  canRecogniseData,
  carriesMoreThanId,
  commonFields,
  dataInRefusal,
  refusalEntries,
  type DataEvidence,
} from '../src/battery/refusal-data.js';
import { isObject } from '../src/openapi/pointer.js';
import { expectedItems } from '../src/battery/resources.js';
import { HttpResponse } from '../src/http/client.js';

/** Not a UUID, but a plausible path segment. */
const NOT_A_UUID = 'not-a-uuid';

function endpointsOrSkip(c: CheckContext): Endpoint[] {
  if (c.settings.endpoints.length === 0)
    c.skip('no tenant endpoint configured: pass --openapi, --paged-path or --endpoint (e.g. --paged-path shipments)');
  return tenantEndpoints(c);
}

/**
 * The precondition of the isolation checks: the tenant under test is served on the endpoint. The
 * probe is sent beside the valid request, and its answer returned only if that precondition holds.
 */
async function ownTenantWorks(
  e: CheckContext,
  endpoint: Endpoint,
  probe: () => Promise<HttpResponse>,
): Promise<HttpResponse | undefined> {
  if (e.settings.tenantId === undefined) {
    e.error(
      `cannot compare with the tenant under test: ${e.settings.tenantProblem ?? 'none given'} (pass --tenant-id)`,
    );
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
 * The data a refusal must not carry, where it is not the tenant under test's: another tenant's
 * answer to the endpoint's valid request, the path it was read at, and whose it is (for messages).
 */
interface AtStake {
  answer: HttpResponse;
  path: string;
  whose: string;
}

/**
 * A refusal must not carry data: for a single resource not the resource (its own tenant's answer,
 * or one with the id that was asked for), and no entry that is data by evidence
 * (src/battery/refusal-data.ts: an id of the tenant's own data or of a seeded item, the item
 * schema, the shape of the tenant's own items). An error body may say anything else, in any shape:
 * the spec does not show it, and FastAPI's `detail`, JSON:API's `errors` and Django REST
 * framework's field lists are arrays that hold no data (issue 38 item 2). The tenant whose data it
 * would be is the tenant under test, or `stake`'s (the second client's, TENANT-FOREIGN): the same
 * rules hold for it, judged by its own data.
 */
async function expectNoData(
  e: CheckContext,
  endpoint: Endpoint,
  res: HttpResponse,
  what: string,
  stake?: AtStake,
): Promise<void> {
  const parsed = res.json();
  if (!parsed.ok) return;
  const body = parsed.value;
  const ownAnswer = (stake?.answer ?? (await validAnswer(e, endpoint))).json();
  const own = ownAnswer.ok ? ownAnswer.value : undefined;
  if (endpoint.spec?.kind === 'single' && body !== null && typeof body === 'object') {
    const path = stake?.path ?? (await inTenant(e, endpoint, ''));
    const asked = decodeURIComponent(path.split('?')[0]?.split('/').at(-1) ?? '');
    // The id asked for, with more of the resource: an error may name the id it was asked for.
    const echoed =
      asked !== '' &&
      itemId(body) === asked &&
      carriesMoreThanId(body as Record<string, unknown>, isObject(own) ? Object.keys(own) : []);
    if ((own !== undefined && isDeepStrictEqual(own, body)) || echoed)
      return e.fail(`${what}: the refusal carries ${stake?.whose ?? 'the'} resource itself`, res);
  }
  const evidence = dataEvidence(e, endpoint, own);
  const found = dataInRefusal(body, evidence);
  if (found)
    return e.fail(
      `${what}: the refusal carries ${found.count} ${found.count === 1 ? 'item' : 'items'} of data (${found.first}${found.count > 1 ? `, and ${found.count - 1} more` : ''})`,
      res,
    );
  if (!canRecogniseData(evidence) && refusalEntries(body).length > 1)
    e.note(
      `${what}: the refusal's entries cannot be told from data: no schema (--openapi), no item of the tenant's own and no seeded item (--expectations) to recognise data by`,
    );
}

/** What is known of the endpoint's data: the tenant's own answer, the document's schema, the seeded items. */
function dataEvidence(e: CheckContext, endpoint: Endpoint, own: unknown): DataEvidence {
  const spec = endpoint.spec;
  const extracted = spec?.kind === 'list' && own !== undefined ? extractItems(own, spec.itemsProperty) : undefined;
  const ownItems = extracted ? ('items' in extracted ? extracted.items : []) : own !== undefined ? [own] : [];
  const ids = ownItems.map(itemId).filter((id): id is string => id !== undefined);
  const document = e.settings.openapi;
  const seeded = spec ? expectedItems(e.settings, spec) : undefined;
  return {
    schema:
      document && spec?.schema !== undefined
        ? { document, pointer: spec.schema, of: spec.kind === 'list' ? 'items' : 'body' }
        : undefined,
    ownIds: new Set(ids),
    ownFields: commonFields(ownItems),
    seeded: seeded ?? new Map(),
  };
}

/**
 * Isolation with the second client, on one endpoint (TENANT-FOREIGN): its own tenant read with its
 * token (exists, holds data), then asked for with the run's client's token; the run's tenant asked
 * for with the second client's. Each refusal 403 or 404, with no data.
 */
async function bothWays(e: CheckContext, endpoint: Endpoint): Promise<boolean | undefined> {
  if (e.settings.tenantId === undefined) {
    e.error(
      `cannot compare with the tenant under test: ${e.settings.tenantProblem ?? 'none given'} (pass --tenant-id)`,
    );
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
  const headers = endpointHeaders(endpoint.spec);
  const [first, second] = [
    getResource(e.send, e.target, { path: theirPath, auth: e.bearer(), headers, purpose: asFirst }),
    getAsSecondClient(e, own, asSecond, headers),
  ];
  first.catch(() => undefined);
  second.catch(() => undefined);
  if (!(await requireWorking(e, endpoint))) return false;
  if (theirs.status < 200 || theirs.status > 299) {
    e.error(
      `the second client cannot read its own tenant at ${endpoint.label}: it answered ${theirs.status}, so its data is not shown to exist there`,
      theirs,
    );
    return true;
  }
  const data = dataIn(endpoint, theirs);
  if ('none' in data) {
    e.skipEndpoint(
      `the second client's tenant shows no data here (${data.none}): a refusal of nothing proves no isolation; give the second client a tenant with data at ${endpoint.label}`,
    );
    return true;
  }
  // Each refusal judged by the data of the tenant it refuses (src/battery/refusal-data.ts): the second client's, then the tenant under test's.
  const stakes: [HttpResponse, string, AtStake | undefined][] = [
    [await first, asFirst, { answer: theirs, path: theirPath, whose: "the second client's" }],
    [await second, asSecond, undefined],
  ];
  for (const [res, what, stake] of stakes) {
    expectStatus(e, res, [403, 404], what);
    await expectNoData(e, endpoint, res, what, stake);
  }
  return true;
}

suite('tenant', () => {
  check('TENANT-ACCESS', async (c) => {
    const endpoints = endpointsOrSkip(c);
    if (c.settings.tenantId === undefined)
      return c.error(`no tenant under test: ${c.settings.tenantProblem ?? 'none given'} (pass --tenant-id)`);
    await onEach(c, endpoints, async (e, endpoint) => {
      const path = await endpoint.path(e);
      if (typeof path !== 'string') return e.skipEndpoint(path.unresolved);
      const res = await validAnswer(e, endpoint);
      const unproven = notValidByDocument(endpoint, res);
      if (unproven !== undefined) return e.skipEndpoint(unproven);
      // A 404 on the tenant's own path is often a path the deployment never had: say where it came from.
      const what = `${endpoint.label} for the tenant under test`;
      if (res.status === 404)
        return e.fail(
          `${what}: expected a 2xx status, got 404: the deployment serves nothing at this path for its own tenant (${endpoint.spec ? `named by ${endpoint.spec.source}` : 'a path of the spec'}; is the path right?)`,
          res,
        );
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
      c.skip(
        'isolation not proven: no second client (--second-client-id) nor foreign tenant (--foreign-tenant-id); a random tenant id proves only that an unknown one is refused (TENANT-UNKNOWN)',
      );
    }
    if (secondClient !== undefined && secondClient.tenantId === undefined)
      return c.error(
        `the second client's tenant is not known: ${secondClient.tenantProblem ?? 'none given'} (pass --second-tenant-id)`,
      );
    const problems = [
      secondClient?.tenantId !== undefined
        ? await notForeign(c, secondClient.tenantId, "the second client's tenant")
        : undefined,
      foreignTenantId !== undefined
        ? await notForeign(c, foreignTenantId, 'the foreign tenant (--foreign-tenant-id)')
        : undefined,
    ].filter((p): p is string => p !== undefined);
    if (problems.length > 0) return problems.forEach((p) => c.error(p));
    await onEach(c, endpoints, async (e, endpoint) => {
      // With both, the named tenant is asked for too once the own tenant is known to work (its error said once).
      const works = secondClient !== undefined ? await bothWays(e, endpoint) : undefined;
      if (works === false || foreignTenantId === undefined) return;
      const what = `${endpoint.label.replace('{tenantId}', '{foreignTenantId}')} (a tenant this client may not access)`;
      const probe = async (): Promise<HttpResponse> =>
        getResource(e.send, e.target, {
          path: await inTenant(e, endpoint, foreignTenantId),
          auth: e.bearer(),
          headers: endpointHeaders(endpoint.spec),
          purpose: what,
        });
      const res = works === true ? await probe() : await ownTenantWorks(e, endpoint, probe);
      if (!res) return;
      expectStatus(e, res, [403, 404], what);
      await expectNoData(e, endpoint, res, what);
    });
  });

  check('TENANT-UNKNOWN', async (c) => {
    await onEach(c, endpointsOrSkip(c), async (e, endpoint) => {
      const what = `${endpoint.label.replace('{tenantId}', '{unknownTenantId}')} (a tenant id that names no tenant)`;
      const res = await ownTenantWorks(e, endpoint, async () =>
        getResource(e.send, e.target, {
          path: await inTenant(e, endpoint, e.settings.unknownTenantId),
          auth: e.bearer(),
          headers: endpointHeaders(endpoint.spec),
          purpose: what,
        }),
      );
      if (!res) return;
      expectStatus(e, res, [403, 404], what);
      await expectNoData(e, endpoint, res, what);
    });
  });

  // Two defects at once (src/battery/precedence.ts): either rule's answer passes, and which the
  // target gave is recorded.
  check('TENANT-UNKNOWN-NO-AUTH', async (c) => {
    await onEach(c, endpointsOrSkip(c), async (e, endpoint) => {
      const what = `${endpoint.label.replace('{tenantId}', '{unknownTenantId}')} with ${TENANT_AND_AUTH.defect}`;
      const res = await ownTenantWorks(e, endpoint, async () =>
        getResource(e.send, e.target, {
          path: await inTenant(e, endpoint, e.settings.unknownTenantId),
          auth: { kind: 'none' },
          headers: endpointHeaders(endpoint.spec),
          purpose: what,
        }),
      );
      if (res) judgePrecedence(e, TENANT_AND_AUTH, res, what);
    });
  });

  check('TENANT-INVALID-ID', async (c) => {
    await onEach(c, endpointsOrSkip(c), async (e, endpoint) => {
      const what = `${endpoint.label.replace('{tenantId}', NOT_A_UUID)} (a tenantId that is not a UUID)`;
      const res = await ownTenantWorks(e, endpoint, async () =>
        getResource(e.send, e.target, {
          path: await inTenant(e, endpoint, NOT_A_UUID),
          auth: e.bearer(),
          headers: endpointHeaders(endpoint.spec),
          purpose: what,
        }),
      );
      if (!res) return;
      expectStatusClass(e, res, 4, what);
      await expectNoData(e, endpoint, res, what);
    });
  });
});
