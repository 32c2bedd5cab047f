/**
 * What frameworks write that the harness must read right (issue 38 item 9): Django REST
 * framework's `WWW-Authenticate: Token` names the cause of its 401s, its router's trailing slashes
 * (`shipments/`) do not hide an --expectations file keyed `shipments`, and pydantic's
 * `2026-02-09T10:00:00+00:00` is the instant `2026-02-09T10:00:00.000Z` where the schema says
 * date-time.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EndpointSpec } from '../src/carrier/endpoint-specs.js';
import { expectedItems, expectedValueProblems, sameInstant } from '../src/battery/resources.js';
import type { BatteryContext } from '../src/battery/wiring.js';
import { challengeWithout } from '../src/http/challenge.js';
import { startReferenceServer, type ReferenceServer } from '../src/reference/index.js';
import type { RunReport } from '../src/model/run-report.js';
import { unusedExpectations } from '../src/runner/api.js';
import { runMain, targetArgs, tempDir, type CliResult } from './support/harness.js';
import { forward, serveOnLoopback } from './support/hostile.js';

interface Front {
  url: string;
  close(): Promise<void>;
}

/** The harness against a reference server (through `through`, when given), with the reference's document. */
async function run(
  args: readonly string[],
  through?: (upstream: string) => Promise<Front>,
  arrange?: (server: ReferenceServer) => Promise<string[]>,
): Promise<CliResult & { report: RunReport }> {
  const server = await startReferenceServer({ tokenTtlSeconds: 60 });
  const reportsDir = await tempDir();
  process.env.CARRIER_CLIENT_SECRET = server.clientSecret;
  let front: Front | undefined;
  try {
    front = await through?.(server.url);
    const target = targetArgs(server).map((a) => (front && a === server.url ? front.url : a));
    const more = (await arrange?.(server)) ?? [];
    const result = await runMain([
      'run',
      ...target,
      '--reporter',
      'json',
      '--reports-dir',
      reportsDir,
      ...more,
      ...args,
    ]);
    return { ...result, report: JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport };
  } finally {
    delete process.env.CARRIER_CLIENT_SECRET;
    await front?.close();
    await server.close();
  }
}

const checkOf = (report: RunReport, id: string) => report.checks.find((c) => c.id === id);

describe("Django REST framework's Token keyword", () => {
  it('quotes a challenge of another scheme, neutralised and bounded, and nothing for a Bearer one', () => {
    expect(challengeWithout(['Token realm="api"'], 'Bearer')).toBe('WWW-Authenticate: Token realm="api"');
    expect(challengeWithout(['Bearer realm="api", error="invalid_token"'], 'Bearer')).toBeUndefined();
    expect(challengeWithout(['Basic realm="x"', 'bearer realm="y"'], 'Bearer')).toBeUndefined();
    expect(challengeWithout([], 'Bearer')).toBeUndefined();
    expect(challengeWithout([`Token realm="\u001b[31m${'x'.repeat(200)}"`], 'Bearer')).toBe(
      `WWW-Authenticate: Token realm="?[31m${'x'.repeat(120 - 'Token realm="?[31m'.length)}…`,
    );
  });

  it("is quoted where a valid token is refused: the server's challenge names the cause", async () => {
    // TokenAuthentication reads `Authorization: Token …` only, and answers a Bearer token as no credentials at all.
    const drf = (upstream: string): Promise<Front> =>
      serveOnLoopback(
        createServer((req, res) => {
          if (req.url === '/users/me' && /^bearer /i.test(req.headers.authorization ?? '')) {
            return void res
              .writeHead(401, { 'WWW-Authenticate': 'Token realm="api"', 'Content-Type': 'application/json' })
              .end('{"detail":"Authentication credentials were not provided."}');
          }
          forward(upstream, req, res).catch(() => res.destroy());
        }),
      );
    const { report } = await run(['--check', 'USER-OK', '--tenant-id', '5e0c3b8a-1f2d-4a6b-8c9d-0e1f2a3b4c5d'], drf);
    expect(checkOf(report, 'USER-OK')?.findings.map((f) => f.message)).toEqual([
      'GET /users/me with a valid token: expected 200, got 401 (WWW-Authenticate: Token realm="api")',
    ]);
  }, 60_000);
});

describe("Django REST framework's router: paths with a trailing slash", () => {
  const settings = (resources: Record<string, unknown>): BatteryContext =>
    ({ expectations: { resources } }) as unknown as BatteryContext;
  const list: EndpointSpec = { path: 'shipments/', kind: 'list', source: 'openapi' };
  const single: EndpointSpec = { path: 'shipments/{id}/', kind: 'single', source: 'openapi' };

  it('an --expectations file keyed without it finds the list and the single resource under it', () => {
    const known = settings({ shipments: [{ id: 'a', status: 'created' }] });
    expect([...(expectedItems(known, list)?.keys() ?? [])]).toEqual(['a']);
    expect([...(expectedItems(known, single)?.keys() ?? [])]).toEqual(['a']);
    expect([
      ...(expectedItems(settings({ 'shipments/': [{ id: 'b' }] }), { ...list, path: 'shipments' })?.keys() ?? []),
    ]).toEqual(['b']);
  });

  it('a path that names no endpoint is a warning that says which paths there are', () => {
    expect(unusedExpectations([list, single], { resources: { shipments: [], parcels: [] } })).toEqual([
      '--expectations: "resources" names "parcels", which is no tenant endpoint under test (their paths: shipments/, shipments/{id}/); its known data is not compared',
    ]);
  });

  it('with no endpoint under test at all, one line says so and how to give some', () => {
    expect(unusedExpectations([], { resources: { shipments: [], invoices: [] } })).toEqual([
      '--expectations: "resources" names 2 path(s) ("shipments", "invoices"), but no tenant endpoint is under test (give --openapi, --paged-path or --endpoint); their known data is not compared',
    ]);
  });

  it('is compared end to end, the path that names nothing warned about', async () => {
    const { report, stderr } = await run(['--suite', 'resources'], undefined, async (server) => {
      const file = join(await tempDir(), 'expectations.json');
      const { resources } = server.expectations;
      await writeFile(
        file,
        JSON.stringify({
          resources: { 'shipments/': resources.shipments, 'invoices/': resources.invoices, parcels: [{ id: 'p1' }] },
        }),
      );
      return ['--expectations', file];
    });
    expect(checkOf(report, 'RESOURCE-EXPECTED-VALUES')?.status).toBe('passed');
    expect(
      checkOf(report, 'RESOURCE-EXPECTED-VALUES')
        ?.endpoints?.filter((e) => e.status === 'passed')
        .map((e) => e.endpoint),
    ).toEqual([
      'GET /tenants/{tenantId}/shipments',
      'GET /tenants/{tenantId}/shipments/{shipmentId}',
      'GET /tenants/{tenantId}/invoices',
      'GET /tenants/{tenantId}/invoices/{invoiceId}',
    ]);
    expect(stderr).toContain(
      'warning: --expectations: "resources" names "parcels", which is no tenant endpoint under test (their paths: shipments, shipments/{shipmentId}, invoices, invoices/{invoiceId}, settings)',
    );
  }, 60_000);
});

describe('RFC 3339 date-times where the schema says format: date-time', () => {
  const document = {
    openapi: '3.1.0',
    components: {
      schemas: {
        Shipment: {
          type: 'object',
          properties: {
            deliveredAt: { type: ['string', 'null'], format: 'date-time' },
            createdAt: { $ref: '#/components/schemas/Instant' },
            reference: { type: 'string' },
            events: {
              type: 'array',
              items: { type: 'object', properties: { at: { type: 'string', format: 'date-time' } } },
            },
          },
        },
        Instant: { type: 'string', format: 'date-time' },
      },
    },
  };
  const schema = { document, pointer: '#/components/schemas/Shipment' };

  it('are the same value when they are the same instant, to the last digit either gives', () => {
    expect(sameInstant('2026-02-09T10:00:00+00:00', '2026-02-09T10:00:00.000Z')).toBe(true);
    expect(sameInstant('2026-02-09T11:30:00+01:30', '2026-02-09t10:00:00z')).toBe(true);
    expect(sameInstant('2026-02-09T10:00:00.1Z', '2026-02-09T10:00:00.100000Z')).toBe(true);
    expect(sameInstant('2026-02-09T10:00:00.0001Z', '2026-02-09T10:00:00Z')).toBe(false);
    expect(sameInstant('2026-02-09T10:00:00+01:00', '2026-02-09T10:00:00Z')).toBe(false);
    expect(sameInstant('2026-02-30T10:00:00Z', '2026-03-02T10:00:00Z')).toBe(false);
    expect(sameInstant('2026-02-09 10:00:00Z', '2026-02-09T10:00:00Z')).toBe(false);
  });

  it('RESOURCE-EXPECTED-VALUES compares them as instants there, nested too, and exactly elsewhere', () => {
    const expected = {
      deliveredAt: '2026-02-09T10:00:00.000Z',
      createdAt: '2026-01-01T00:00:00.000Z',
      reference: '2026-01-01T00:00:00Z',
      events: [{ at: '2026-01-02T00:00:00Z' }],
    };
    const served = {
      deliveredAt: '2026-02-09T10:00:00+00:00',
      createdAt: '2026-01-01T00:00:00+00:00',
      reference: '2026-01-01T00:00:00+00:00',
      events: [{ at: '2026-01-02T01:00:00+01:00' }],
    };
    expect(expectedValueProblems(expected, served, schema)).toEqual([
      'field "reference": expected the string "2026-01-01T00:00:00Z", got the string "2026-01-01T00:00:00+00:00"',
    ]);
    expect(
      expectedValueProblems({ deliveredAt: '2026-02-09T10:00:00Z' }, { deliveredAt: '2026-02-09T10:00:01Z' }, schema),
    ).toEqual([
      'field "deliveredAt": expected the string "2026-02-09T10:00:00Z", got the string "2026-02-09T10:00:01Z"',
    ]);
    // Without a schema nothing says the strings are date-times.
    expect(
      expectedValueProblems({ deliveredAt: '2026-02-09T10:00:00.000Z' }, { deliveredAt: '2026-02-09T10:00:00+00:00' }),
    ).toHaveLength(1);
  });

  it('a server that writes +00:00 (pydantic) passes against seeded values written with Z', async () => {
    const pydantic = (upstream: string): Promise<Front> =>
      serveOnLoopback(
        createServer((req, res) => {
          forward(upstream, req, res, undefined, (body) =>
            body.replace(/(T\d\d:\d\d:\d\d)\.000Z"/g, '$1+00:00"'),
          ).catch(() => res.destroy());
        }),
      );
    const { report } = await run(['--suite', 'resources'], pydantic, async (server) => {
      const file = join(await tempDir(), 'expectations.json');
      await writeFile(file, JSON.stringify({ resources: server.expectations.resources }));
      return ['--expectations', file];
    });
    expect(report.checks.map((c) => `${c.id} ${c.status}`)).toEqual([
      'RESOURCE-SCHEMA passed',
      'RESOURCE-FIELDS-PRESENT passed',
      'RESOURCE-EXPECTED-VALUES passed',
    ]);
  }, 60_000);
});
