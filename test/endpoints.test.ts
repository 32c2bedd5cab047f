/**
 * Every convention on every endpoint: with the OpenAPI document, --paged-path, --endpoint and
 * --parameter, each per-endpoint check is applied to every endpoint it concerns, and every report
 * (JSON, JUnit message and body, HTML, console) lists each endpoint with its own outcome; seeded
 * resources are judged with null, "" and absent told apart.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunReport } from '../src/model/run-report.js';
import { generatedOpenApi } from '../src/reference/generated.js';
import { startReferenceServer, type ReferenceOptions, type ReferenceServer } from '../src/reference/index.js';
import {
  childElements,
  loadXsd,
  parseXml,
  validateAgainst,
  XSD_FILES,
  type XmlElement,
} from './fixtures/report/xml.js';
import { listArgs, runMain, targetArgs, tempDir, WITHOUT_EXPIRY, type CliResult } from './support/harness.js';
import { startFront } from './support/front.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

async function server(options: ReferenceOptions = {}): Promise<ReferenceServer> {
  const s = await startReferenceServer({ tokenTtlSeconds: 60, ...options });
  cleanup.push(() => s.close());
  return s;
}

interface Run extends CliResult {
  report: RunReport;
  reportsDir: string;
}

async function run(target: ReferenceServer, args: string[]): Promise<Run> {
  const reportsDir = await tempDir();
  process.env.CARRIER_CLIENT_SECRET = target.clientSecret;
  try {
    const result = await runMain(['run', ...args, '--reports-dir', reportsDir]);
    const report = JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
    return { ...result, report, reportsDir };
  } finally {
    delete process.env.CARRIER_CLIENT_SECRET;
  }
}

async function expectationsFile(content: unknown): Promise<string> {
  const file = join(await tempDir(), 'expectations.json');
  await writeFile(file, JSON.stringify(content));
  return file;
}

const checkOf = (report: RunReport, id: string) => report.checks.find((c) => c.id === id);
const endpointsOf = (report: RunReport, id: string) =>
  checkOf(report, id)?.endpoints?.map((e) => `${e.status} ${e.endpoint}`);

const TENANT_ENDPOINTS = [
  'GET /tenants/{tenantId}/shipments',
  'GET /tenants/{tenantId}/shipments/{shipmentId}',
  'GET /tenants/{tenantId}/invoices',
  'GET /tenants/{tenantId}/invoices/{invoiceId}',
  'GET /tenants/{tenantId}/settings',
];
const LISTS = ['GET /tenants/{tenantId}/shipments', 'GET /tenants/{tenantId}/invoices'];

describe('--openapi against the reference server', () => {
  it('applies every per-endpoint check to every endpoint it concerns, and passes', async () => {
    const target = await server();
    const result = await run(target, [
      ...targetArgs(target),
      '--expectations',
      await expectationsFile(target.expectations),
      ...WITHOUT_EXPIRY,
    ]);

    expect(
      result.code,
      result.report.checks
        .filter((c) => c.status !== 'passed')
        .map((c) => `${c.id}: ${c.message ?? ''}`)
        .join('\n'),
    ).toBe(0);
    const passed = (labels: string[]) => labels.map((l) => `passed ${l}`);
    const resources = ['GET /users/me', 'GET /uaa/userinfo (legacy)', ...TENANT_ENDPOINTS];
    for (const id of [
      'AUTH-MISSING',
      'AUTH-MISSING-401',
      'AUTH-UNKNOWN-TOKEN',
      'AUTH-NOT-BEARER',
      'AUTH-NOT-BEARER-401',
      'AUTH-SCHEME-CASE',
    ])
      expect(endpointsOf(result.report, id)).toEqual(passed(resources));
    for (const id of ['VERSION-MISSING', 'VERSION-ONE'])
      expect(endpointsOf(result.report, id)).toEqual(
        passed(['POST /uaa/oauth2/token', 'POST /uaa/oauth/token (legacy)', ...resources]),
      );
    for (const id of [
      'TENANT-ACCESS',
      'TENANT-FOREIGN',
      'TENANT-INVALID-ID',
      'RESOURCE-SCHEMA',
      'RESOURCE-FIELDS-PRESENT',
      'RESOURCE-EXPECTED-VALUES',
    ])
      expect(endpointsOf(result.report, id), id).toEqual(passed(TENANT_ENDPOINTS));
    for (const id of ['PAGE-WALK', 'LINK-NEXT', 'NULLS-SAME-FIELDS'])
      expect(endpointsOf(result.report, id)).toEqual(passed(LISTS));
    expect(result.report.target.openapi).toBe(target.openapiFile);
    expect(result.stdout).toContain('5 tenant endpoints: 2 lists, 3 single resources');
  });

  it('a version check skipped on one deep endpoint only: "9 endpoints, 1 failed: …" in every report', async () => {
    const target = await server({ faults: ['version-ignored-on-single-invoice'] });
    const result = await run(target, [...targetArgs(target), '--suite', 'versioning']);
    const summary = '9 endpoints, 1 failed: GET /tenants/{tenantId}/invoices/{invoiceId}';

    expect(result.code).toBe(1);
    // JSON: the check's message, and each endpoint's own outcome.
    const check = checkOf(result.report, 'VERSION-MISSING');
    expect(check?.message).toMatch(
      new RegExp(
        `^${summary.replace(/[{}()/]/g, '\\$&')}\\. GET /tenants/\\{tenantId\\}/invoices/\\{invoiceId\\} with no Accept-Version header: expected 400, got 200`,
      ),
    );
    expect(check?.endpoints?.filter((e) => e.status !== 'passed')).toEqual([
      {
        endpoint: 'GET /tenants/{tenantId}/invoices/{invoiceId}',
        status: 'failed',
        message: 'GET /tenants/{tenantId}/invoices/{invoiceId} with no Accept-Version header: expected 400, got 200',
      },
    ]);
    expect(check?.findings.every((f) => f.endpoint === 'GET /tenants/{tenantId}/invoices/{invoiceId}')).toBe(true);
    // Console.
    expect(result.stdout).toMatch(new RegExp(`VERSION-MISSING +MUST +${summary.replace(/[{}()/]/g, '\\$&')}`));
    // JUnit: still one testcase per check, the summary in the message, each endpoint in the body; valid against both XSDs.
    const junit = await readFile(join(result.reportsDir, 'junit.xml'), 'utf8');
    for (const xsd of XSD_FILES)
      expect(await validateAgainst(junit, await loadXsd(xsd))).toEqual({ valid: true, errors: [] });
    const cases = childElements(await parseXml(junit), 'testsuite').flatMap((s) => childElements(s, 'testcase'));
    const testcase = cases.filter((c) => c.attrs.name?.startsWith('VERSION-MISSING '));
    expect(testcase).toHaveLength(1);
    const failure = childElements(testcase[0] as XmlElement, 'failure')[0];
    expect(failure?.attrs.message).toContain(summary);
    expect(failure && textOf(failure)).toContain('- failed  GET /tenants/{tenantId}/invoices/{invoiceId}: ');
    // HTML.
    const html = await readFile(join(result.reportsDir, 'report.html'), 'utf8');
    expect(html).toContain(`Endpoints: ${summary.replace(/\{/g, '{')}`);
    expect(html).toMatch(
      /<span class="kind kind-failure">failed<\/span> <code>GET \/tenants\/\{tenantId\}\/invoices\/\{invoiceId\}<\/code>/,
    );
  });
});

function textOf(el: XmlElement): string {
  return el.children.map((c) => (typeof c === 'string' ? c : textOf(c))).join('');
}

describe('without an OpenAPI document: --paged-path, --endpoint and --parameter', () => {
  it('tests single resources by path, fills {ids} from the list above them, and skips one it cannot fill, saying how', async () => {
    const target = await server();
    const args = [
      ...listArgs(target, ['invoices']),
      '--endpoint',
      'invoices/{invoiceId}',
      '--endpoint',
      'settings',
      '--endpoint',
      'orders/{orderId}',
      '--suite',
      'tenant',
    ];
    const result = await run(target, args);

    expect(result.code).toBe(0);
    expect(checkOf(result.report, 'TENANT-ACCESS')?.endpoints).toEqual([
      { endpoint: 'GET /tenants/{tenantId}/invoices', status: 'passed' },
      { endpoint: 'GET /tenants/{tenantId}/invoices/{invoiceId}', status: 'passed' },
      { endpoint: 'GET /tenants/{tenantId}/settings', status: 'passed' },
      {
        endpoint: 'GET /tenants/{tenantId}/orders/{orderId}',
        status: 'skipped',
        message:
          'no value for {orderId}: no list GET /tenants/{tenantId}/orders to take an id from; give one with --parameter orderId=VALUE',
      },
    ]);
  });

  it('takes a value given with --parameter, or from the config file, instead', async () => {
    const target = await server();
    const config = join(await tempDir(), 'config.json');
    await writeFile(config, JSON.stringify({ parameters: { invoiceId: 'not-an-invoice' } }));
    const result = await run(target, [
      ...listArgs(target, ['invoices']),
      '--endpoint',
      'invoices/{invoiceId}',
      '--endpoint',
      'orders/{orderId}',
      '--parameter',
      'orderId=42',
      '--config',
      config,
      '--check',
      'TENANT-ACCESS',
    ]);

    expect(result.code).toBe(1);
    const check = checkOf(result.report, 'TENANT-ACCESS');
    expect(check?.message).toMatch(
      /^3 endpoints, 2 failed: GET \/tenants\/\{tenantId\}\/invoices\/\{invoiceId\}, GET \/tenants\/\{tenantId\}\/orders\/\{orderId\}\. /,
    );
    const urls = check?.exchanges.map((e) => new URL(e.request.url).pathname) ?? [];
    expect(urls).toContain(`/tenants/${target.tenantId}/invoices/not-an-invoice`);
    expect(urls).toContain(`/tenants/${target.tenantId}/orders/42`);
  });
});

describe('a path the deployment does not serve', () => {
  it('fails TENANT-ACCESS saying where the path came from, and the checks that need it point there', async () => {
    const target = await server();
    const result = await run(target, [...listArgs(target, ['shipmentz']), '--suite', 'tenant']);

    expect(result.code).toBe(1);
    expect(checkOf(result.report, 'TENANT-ACCESS')?.message).toBe(
      'GET /tenants/{tenantId}/shipmentz for the tenant under test: expected a 2xx status, got 404: the deployment serves nothing at this path for its own tenant (named by --paged-path; is the path right?)',
    );
    expect(checkOf(result.report, 'TENANT-FOREIGN')?.message).toMatch(/see TENANT-ACCESS/);
  });
});

describe('seeded ground truth (--expectations "resources")', () => {
  it('fails a seeded value that is served differently, naming the endpoint, the item and the field', async () => {
    const target = await server();
    const known = structuredClone(target.expectations);
    const invoices = known.resources.invoices as { id: string; note: string | null }[];
    const seeded = invoices.find((i) => i.note === null);
    if (!seeded) throw new Error('the reference seeds an invoice with a null note');
    seeded.note = '';
    const result = await run(target, [
      ...targetArgs(target),
      '--expectations',
      await expectationsFile(known),
      '--check',
      'RESOURCE-EXPECTED-VALUES',
    ]);

    expect(result.code).toBe(1);
    const check = checkOf(result.report, 'RESOURCE-EXPECTED-VALUES');
    // The single invoice is the list's first, not this one: only the list serves it.
    expect(check?.endpoints?.filter((e) => e.status !== 'passed').map((e) => e.endpoint)).toEqual([
      'GET /tenants/{tenantId}/invoices',
    ]);
    expect(check?.findings.map((f) => f.message)).toContain(
      `invoices page 1: id ${seeded.id}: field "note": expected the string "", got null`,
    );
  });

  it('refuses resources that are neither items with an id nor one object: exit 2, one line', async () => {
    const target = await server();
    const file = await expectationsFile({ resources: { invoices: [{ note: null }] } });
    process.env.CARRIER_CLIENT_SECRET = target.clientSecret;
    const result = await runMain([
      'run',
      ...targetArgs(target),
      '--expectations',
      file,
      '--reports-dir',
      await tempDir(),
    ]).finally(() => delete process.env.CARRIER_CLIENT_SECRET);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      `carrier-conformance: expectations file ${file}: resources.invoices: must be an array of items with an "id", or one object`,
    ]);
  });
});

describe('many endpoints', () => {
  it('20 generated operations: every check passes, and each list is walked once, whatever the number of checks that read it', async () => {
    const target = await server({ generatedCollections: 10, recordRequests: true });
    const document = join(await tempDir(), 'openapi.json');
    await writeFile(document, JSON.stringify(generatedOpenApi(10)));
    const result = await run(target, [
      '--base-url',
      target.url,
      '--client-id',
      target.clientId,
      '--openapi',
      document,
      ...WITHOUT_EXPIRY,
    ]);

    expect(
      result.code,
      result.report.checks
        .filter((c) => c.status !== 'passed')
        .map((c) => `${c.id}: ${c.message ?? ''}`)
        .join('\n'),
    ).toBe(0);
    expect(result.stdout).toContain('20 tenant endpoints: 10 lists, 10 single resources');
    expect(checkOf(result.report, 'VERSION-MISSING')?.endpoints).toHaveLength(2 + 2 + 20);
    expect(checkOf(result.report, 'PAGE-WALK')?.endpoints).toHaveLength(10);
    // Every page of every walk, asked for once: the pagination, nulls and resources checks share one walk per list.
    const pages = target
      .requestLog()
      .filter(
        (r) =>
          /\/c\d{3}\?page=\d+&size=\d+$/.test(r.target) &&
          r.headers.some(([n, v]) => n.toLowerCase() === 'authorization' && v.startsWith('Bearer ')),
      );
    const counts = new Map<string, number>();
    for (const r of pages) counts.set(r.target, (counts.get(r.target) ?? 0) + 1);
    for (let n = 1; n <= 10; n += 1) {
      const list = `/tenants/${target.tenantId}/c${String(n).padStart(3, '0')}`;
      expect(counts.get(`${list}?page=1&size=10`), list).toBe(1);
      expect(counts.get(`${list}?page=2&size=10`), list).toBe(1);
    }
  });
});

describe('an endpoint whose judgement breaks off', () => {
  it('is an error that says it was not judged and why, never "passed"; the other endpoints are judged all the same', async () => {
    const target = await server();
    // Page 2 of the shipments breaks off after its head: the walk that the resource checks read
    // cannot finish (a broken response is never sent again).
    const front = await startFront(target.url, (req, res) => {
      if (!/\/shipments\?page=2&/.test(req.url ?? '')) return false;
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '1000' });
      res.write('[{"id":');
      setTimeout(() => res.destroy(), 20);
      return true;
    });
    cleanup.push(() => front.close());
    const result = await run({ ...target, url: front.url }, [
      ...targetArgs({ ...target, url: front.url }),
      '--expectations',
      await expectationsFile(target.expectations),
      '--suite',
      'resources',
    ]);

    expect(result.code).toBe(1);
    const others = TENANT_ENDPOINTS.filter((e) => e !== 'GET /tenants/{tenantId}/shipments').map((e) => `passed ${e}`);
    for (const id of ['RESOURCE-SCHEMA', 'RESOURCE-FIELDS-PRESENT', 'RESOURCE-EXPECTED-VALUES']) {
      const check = checkOf(result.report, id);
      expect(check?.status, id).toBe('error');
      expect(check?.message, id).not.toMatch(/all passed/);
      expect(check?.message, id).toMatch(
        /^5 endpoints, 1 error: GET \/tenants\/\{tenantId\}\/shipments\. not judged: the exchange failed: /,
      );
      const shipments = check?.endpoints?.find((e) => e.endpoint === 'GET /tenants/{tenantId}/shipments');
      expect(shipments?.status, id).toBe('error');
      expect(shipments?.message, id).toMatch(/^not judged: the exchange failed: /);
      expect(
        endpointsOf(result.report, id)?.filter((e) => !e.endsWith('/shipments')),
        id,
      ).toEqual(others);
    }
  });
});
