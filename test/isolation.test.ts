/**
 * Tenant isolation proven with a second client (issue 39, item 1): TENANT-FOREIGN reads the second
 * client's tenant with its own token (it exists, it holds data), asks for it with the run's
 * client's token, and for the run's tenant with the second client's. Without a second client or a
 * named foreign tenant it is skipped, never passed; a random tenant id is TENANT-UNKNOWN's.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpResponse } from '../src/http/client.js';
import { dataIn } from '../src/battery/isolation.js';
import type { Endpoint } from '../src/battery/endpoints.js';
import { startReferenceServer, type ReferenceOptions, type ReferenceServer } from '../src/reference/index.js';
import type { RunReport } from '../src/model/run-report.js';
import { startFront, type Front } from './support/front.js';
import { restoreEnv, runMain, setEnv, statusOf, tempDir, type HarnessResult } from './support/harness.js';

afterEach(restoreEnv);

/** The run against a reference server, its secrets in the environment as the README says; `second`: with its second client. */
async function run(
  options: ReferenceOptions,
  {
    second = true,
    args = [],
    front,
  }: { second?: boolean; args?: readonly string[]; front?: (upstream: string) => Promise<Front> } = {},
): Promise<HarnessResult & { server: ReferenceServer }> {
  const server = await startReferenceServer(options);
  const before = front ? await front(server.url) : undefined;
  const reportsDir = await tempDir('carrier-isolation-');
  setEnv({
    CARRIER_CLIENT_SECRET: server.clientSecret,
    CARRIER_SECOND_CLIENT_SECRET: second ? server.secondClientSecret : undefined,
  });
  try {
    const target = [
      '--base-url',
      before?.url ?? server.url,
      '--client-id',
      server.clientId,
      '--openapi',
      server.openapiFile,
      ...(second ? ['--second-client-id', server.secondClientId] : []),
    ];
    const result = await runMain(['run', ...target, '--suite', 'tenant', '--reports-dir', reportsDir, ...args]);
    const report = JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
    return { ...result, report, reportsDir, server };
  } finally {
    await before?.close();
    await server.close();
  }
}

/**
 * A front whose refusals of a single tenant resource (the server's 403) are 404s that name the id
 * asked for, as many frameworks write them: `{"id": …, "error": "not_found", …}`.
 */
function echoingRefusals(upstream: string): Promise<Front> {
  return startFront(upstream, (req, res) => {
    const single = /^\/tenants\/[^/]+\/(?:shipments|invoices)\/([^/?]+)/.exec(req.url ?? '');
    if (!single) return false;
    void (async () => {
      const answer = await fetch(`${upstream}${req.url ?? '/'}`, {
        headers: Object.fromEntries(
          Object.entries(req.headers).filter(
            ([name, v]) => typeof v === 'string' && name !== 'host' && name !== 'connection',
          ),
        ) as Record<string, string>,
      });
      const refused = answer.status === 403;
      const body = refused
        ? JSON.stringify({ id: decodeURIComponent(single[1] ?? ''), error: 'not_found', message: 'No such resource' })
        : await answer.text();
      const headers: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive'].includes(name))
          headers[name] = value;
      });
      res.writeHead(refused ? 404 : answer.status, headers);
      res.end(body);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    return true;
  });
}

const check = (report: RunReport, id: string) => report.checks.find((c) => c.id === id);

describe('TENANT-FOREIGN with a second client', () => {
  it('passes on a conformant server, on every endpoint, and the report records how isolation was proven', async () => {
    const result = await run({});
    expect(result.code, result.stdout).toBe(0);
    const foreign = check(result.report, 'TENANT-FOREIGN');
    expect(foreign?.status).toBe('passed');
    expect(foreign?.endpoints?.map((e) => e.status)).toEqual(['passed', 'passed', 'passed', 'passed', 'passed']);
    expect(result.report.target.isolation).toEqual({
      method: 'second-client',
      secondTenantId: result.server.foreignTenantId,
    });
    // Neither the second client's secret nor any token issued to it reaches the reports or the console.
    const outputs = [
      result.stdout,
      result.stderr,
      ...(await Promise.all(
        (await readdir(result.reportsDir)).map((f) => readFile(join(result.reportsDir, f), 'utf8')),
      )),
    ].join('\n');
    expect(outputs).not.toContain(result.server.secondClientSecret);
    expect(outputs).not.toContain(encodeURIComponent(result.server.secondClientSecret));
    for (const token of result.server.issuedTokens()) expect(outputs).not.toContain(token);
  });

  it("fails a server that serves another client's tenant (cross-tenant-data), both ways, citing the exchanges", async () => {
    const result = await run({ faults: ['cross-tenant-data'] });
    expect(result.code).toBe(1);
    const foreign = check(result.report, 'TENANT-FOREIGN');
    expect(foreign?.status).toBe('failed');
    const messages = foreign?.findings.map((f) => f.message) ?? [];
    expect(messages).toContain(
      "GET /tenants/{secondTenantId}/shipments with the run's client's token (the second client's tenant): expected 403 or 404, got 200",
    );
    expect(messages).toContain(
      "GET /tenants/{tenantId}/shipments with the second client's token (the tenant under test): expected 403 or 404, got 200",
    );
    expect(messages).toContain(
      "GET /tenants/{secondTenantId}/settings with the run's client's token (the second client's tenant): the refusal carries the second client's resource itself",
    );
    expect(foreign?.findings.every((f) => f.exchange !== undefined)).toBe(true);
    expect(check(result.report, 'TENANT-UNKNOWN')?.status).toBe('passed');
  });

  it('fails a server that serves a single resource by id across tenants only (single-resource-cross-tenant)', async () => {
    const result = await run({ faults: ['single-resource-cross-tenant'] });
    const foreign = check(result.report, 'TENANT-FOREIGN');
    expect(foreign?.status).toBe('failed');
    expect(foreign?.endpoints?.filter((e) => e.status === 'failed').map((e) => e.endpoint)).toEqual([
      'GET /tenants/{tenantId}/shipments/{shipmentId}',
      'GET /tenants/{tenantId}/invoices/{invoiceId}',
    ]);
  });

  it("errs, never passes, when the second client's tenant is one the run's client may access (--second-tenant-id)", async () => {
    const result = await run({}, { args: ['--second-tenant-id', '9b2d4f6a-8c0e-4a1b-b3c5-d7e9f1a3b5c7'] });
    // The empty tenant is the run's client's: the second client is refused there, so nothing is shown to exist.
    const foreign = check(result.report, 'TENANT-FOREIGN');
    expect(foreign?.status).toBe('error');
    expect(foreign?.message).toMatch(
      /9b2d4f6a-8c0e-4a1b-b3c5-d7e9f1a3b5c7 is one the run's client may access \(its \/users\/me lists it\): no isolation to show/,
    );
  });

  // The evidence rules for refusal bodies (src/battery/refusal-data.ts, issue 38 item 2) hold for
  // the second client's requests too, judged by the data of the tenant refused.
  it("passes refusals that only name the id asked for, or carry the frameworks' error arrays, both ways", async () => {
    const echoing = await run({}, { front: echoingRefusals });
    const foreign = check(echoing.report, 'TENANT-FOREIGN');
    expect(foreign?.status, JSON.stringify(foreign?.findings)).toBe('passed');
    expect(foreign?.endpoints?.map((e) => e.status)).toEqual(['passed', 'passed', 'passed', 'passed', 'passed']);

    const arrays = await run({ variants: ['error-bodies-fastapi-jsonapi'] });
    expect(check(arrays.report, 'TENANT-FOREIGN')?.status).toBe('passed');
  });

  it("fails a 403 that carries the second client's items, known by that tenant's own data", async () => {
    const result = await run({ faults: ['foreign-refusal-with-data'] });
    const foreign = check(result.report, 'TENANT-FOREIGN');
    expect(foreign?.status).toBe('failed');
    const messages = foreign?.findings.map((f) => f.message) ?? [];
    expect(messages).toContainEqual(
      expect.stringMatching(
        /^GET \/tenants\/\{secondTenantId\}\/shipments with the run's client's token \(the second client's tenant\): the refusal carries 3 items of data \(id \S+ is an id of the tenant's own data, and 2 more\)$/,
      ),
    );
    expect(messages).toContainEqual(
      expect.stringMatching(
        /^GET \/tenants\/\{tenantId\}\/shipments with the second client's token \(the tenant under test\): the refusal carries 3 items of data/,
      ),
    );
  });

  it('an empty answer of the second client is no evidence: the endpoint is skipped, saying why', () => {
    const list = {
      label: 'GET /tenants/{tenantId}/shipments',
      spec: { path: 'shipments', kind: 'list', source: 'test' },
    } as unknown as Endpoint;
    const empty = new HttpResponse('http://127.0.0.1/', 200, {}, '[]', -1);
    expect(dataIn(list, empty)).toEqual({ none: 'the list is empty' });
    expect(dataIn(list, new HttpResponse('http://127.0.0.1/', 200, {}, '[{"id":1}]', -1))).toEqual({ items: 1 });
  });
});

describe('TENANT-FOREIGN without a second client or a foreign tenant', () => {
  it('is skipped with the reason, never passed (a random tenant id only proves TENANT-UNKNOWN), even against cross-tenant-data', async () => {
    const result = await run({ faults: ['cross-tenant-data'] }, { second: false });
    const foreign = check(result.report, 'TENANT-FOREIGN');
    expect(foreign?.status).toBe('skipped');
    expect(foreign?.message).toMatch(
      /^isolation not proven: no second client \(--second-client-id\) nor foreign tenant \(--foreign-tenant-id\)/,
    );
    expect(statusOf(result.report, 'TENANT-UNKNOWN')).toBe('passed');
    expect(result.report.target.isolation).toEqual({ method: 'none' });
    expect(result.report.verdict).not.toBe('conformant');
  });

  it('TENANT-UNKNOWN fails a server that answers 200 for a tenant that does not exist', async () => {
    const result = await run({ faults: ['unknown-tenant-served'] }, { second: false });
    expect(statusOf(result.report, 'TENANT-UNKNOWN')).toBe('failed');
    expect(check(result.report, 'TENANT-UNKNOWN')?.findings[0]?.message).toBe(
      'GET /tenants/{unknownTenantId}/shipments (a tenant id that names no tenant): expected 403 or 404, got 200',
    );
  });
});

describe("the second client's options", () => {
  it('its secret is refused on the command line, is required with its id, and a wrong one is a usage error naming it', async () => {
    const server = await startReferenceServer();
    try {
      const base = [
        'run',
        '--base-url',
        server.url,
        '--client-id',
        server.clientId,
        '--paged-path',
        'shipments',
        '--reports-dir',
        await tempDir(),
      ];
      setEnv({ CARRIER_CLIENT_SECRET: server.clientSecret });
      const onArgv = await runMain([
        ...base,
        '--second-client-id',
        server.secondClientId,
        '--second-client-secret',
        server.secondClientSecret,
      ]);
      expect(onArgv.code).toBe(2);
      expect(onArgv.stderr).toMatch(
        /--second-client-secret: the second client's secret is read from CARRIER_SECOND_CLIENT_SECRET, a --config file or --second-client-secret-file, never the command line/,
      );
      expect(onArgv.stderr).not.toContain(server.secondClientSecret);
      const missing = await runMain([...base, '--second-client-id', server.secondClientId]);
      expect([missing.code, missing.stderr.trim()]).toEqual([
        2,
        "carrier-conformance: --second-client-id needs the second client's secret: set CARRIER_SECOND_CLIENT_SECRET or use --second-client-secret-file (never the command line)",
      ]);
      setEnv({ CARRIER_SECOND_CLIENT_SECRET: `${server.secondClientSecret}-wrong` });
      const wrong = await runMain([...base, '--second-client-id', server.secondClientId]);
      expect(wrong.code).toBe(2);
      expect(wrong.stderr).toMatch(
        /the second client: the token endpoint \S+ refused the configured client credentials \(401 invalid_client\): check --second-client-id/,
      );
      expect(wrong.stderr).not.toContain(server.secondClientSecret);
    } finally {
      await server.close();
    }
  });
});
