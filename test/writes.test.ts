import { connect, createServer, type Server, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../src/catalogue/index.js';
import { VARIANTS } from '../src/reference/catalogue.js';
import { startReferenceServer, type ReferenceServer } from '../src/reference/index.js';
import type { RunReport } from '../src/model/run-report.js';
import { endpointModel } from '../src/openapi/endpoint-model.js';
import { headerOnlyExchange } from '../src/http/header-only.js';
import { closeServer, onLoopback } from './support/loopback.js';
import { writeOutcomes } from './support/stack-runs.js';
import { restoreEnv, runAgainst, runMain, setEnv, statusOf, targetArgs, tempDir } from './support/harness.js';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dump, load } from 'js-yaml';
import { REFERENCE_OPENAPI_FILE } from '../src/reference/seeded.js';

/**
 * Write operations (issue 41): the header and tenant rules judged on POST, PATCH and DELETE by
 * probes that never send content (src/battery/writes.ts, src/http/header-only.ts).
 */

const WRITES = ['--suite', 'writes'];
const CREATE = 'POST /tenants/{tenantId}/shipments';
const WRITE_CHECKS = CHECKS.filter((c) => c.suite === 'writes').map((c) => c.id);

function endpointsOf(report: RunReport, id: string): { endpoint: string; status: string; message?: string }[] {
  return (report.checks.find((c) => c.id === id)?.endpoints ?? []) as {
    endpoint: string;
    status: string;
    message?: string;
  }[];
}

/**
 * A TCP front for a server that counts, per request that expects 100-continue, every byte the
 * client sends after the request's header section: the content a probe must never send.
 */
async function contentCounter(
  upstream: string,
): Promise<{ url: string; expecting: () => number; contentBytes: () => number; close: () => Promise<void> }> {
  const target = new URL(upstream);
  let expecting = 0;
  let contentBytes = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    const backend = connect(Number(target.port), target.hostname);
    sockets.add(backend);
    let head = '';
    let afterHead = false;
    let expects = false;
    client.on('data', (chunk: Buffer) => {
      if (afterHead) {
        if (expects) contentBytes += chunk.length;
      } else {
        head += chunk.toString('latin1');
        const end = head.indexOf('\r\n\r\n');
        if (end >= 0) {
          afterHead = true;
          expects = /\r\nexpect:\s*100-continue/i.test(head.slice(0, end));
          if (expects) {
            expecting += 1;
            contentBytes += head.length - end - 4;
          }
        }
      }
      backend.write(chunk);
    });
    backend.on('data', (chunk: Buffer) => client.write(chunk));
    const end = (): void => {
      client.destroy();
      backend.destroy();
    };
    client.on('close', end);
    backend.on('close', end);
    client.on('error', end);
    backend.on('error', end);
  });
  const url = await onLoopback(server);
  return {
    url,
    expecting: () => expecting,
    contentBytes: () => contentBytes,
    close: async () => {
      for (const s of sockets) s.destroy();
      await closeServer(server);
    },
  };
}

/** Runs the write suite against `server` through the counting front; returns the report and the counts. */
async function throughCounter(server: ReferenceServer, args: readonly string[] = []) {
  const front = await contentCounter(server.url);
  const reportsDir = await tempDir();
  process.env.CARRIER_CLIENT_SECRET = server.clientSecret;
  try {
    const result = await runMain([
      'run',
      ...targetArgs({ ...server, url: front.url }),
      ...WRITES,
      '--reports-dir',
      reportsDir,
      ...args,
    ]);
    const report = JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
    return { ...result, report, expecting: front.expecting(), contentBytes: front.contentBytes() };
  } finally {
    delete process.env.CARRIER_CLIENT_SECRET;
    await front.close();
    await server.close();
  }
}

describe('a request that announces its content and never sends it (src/http/header-only.ts)', () => {
  const options = {
    method: 'POST',
    headers: { expect: '100-continue', 'content-length': '2', 'content-type': 'application/json' },
    tls: { insecure: false },
    headersTimeout: 2000,
    maxBodyBytes: 1024,
    tooLarge: () => new Error('too large'),
  };

  /** A raw server: `answer` writes the response to the request head; every byte after the head is counted. */
  async function rawServer(answer: (socket: Socket) => void) {
    let after = 0;
    const server = createServer((socket) => {
      let head = '';
      socket.on('data', (chunk: Buffer) => {
        if (head.includes('\r\n\r\n')) return void (after += chunk.length);
        head += chunk.toString('latin1');
        const end = head.indexOf('\r\n\r\n');
        if (end >= 0) {
          after += head.length - end - 4;
          answer(socket);
        }
      });
      socket.on('error', () => undefined);
    });
    const url = await onLoopback(server);
    return { url, after: () => after, close: () => closeServer(server) };
  }

  it('a final status before the content is the answer, and no content byte follows', async () => {
    const raw = await rawServer((s) => s.write('HTTP/1.1 400 Bad Request\r\ncontent-length: 2\r\n\r\n{}'));
    try {
      const res = await headerOnlyExchange(new URL(`${raw.url}/x`), options).response;
      expect(res.statusCode).toBe(400);
      expect(res.body.toString()).toBe('{}');
      await new Promise((r) => setTimeout(r, 100));
      expect(raw.after()).toBe(0);
    } finally {
      await raw.close();
    }
  });

  it('100 Continue resolves as status 100, and the connection closes without the content', async () => {
    const raw = await rawServer((s) => s.write('HTTP/1.1 100 Continue\r\n\r\n'));
    try {
      const res = await headerOnlyExchange(new URL(`${raw.url}/x`), options).response;
      expect(res.statusCode).toBe(100);
      await new Promise((r) => setTimeout(r, 100));
      expect(raw.after()).toBe(0);
    } finally {
      await raw.close();
    }
  });

  it('a server that neither answers nor asks is a timeout, bounded', async () => {
    const raw = await rawServer(() => undefined);
    try {
      const started = performance.now();
      await expect(
        headerOnlyExchange(new URL(`${raw.url}/x`), { ...options, headersTimeout: 300 }).response,
      ).rejects.toThrow(/Headers Timeout/);
      expect(performance.now() - started).toBeLessThan(5000);
      expect(raw.after()).toBe(0);
    } finally {
      await raw.close();
    }
  });

  it('is never sent through a proxy: refused, saying how to reach the target directly', async () => {
    setEnv({ HTTP_PROXY: 'http://127.0.0.1:9', http_proxy: 'http://127.0.0.1:9', NO_PROXY: '', no_proxy: '' });
    try {
      await expect(headerOnlyExchange(new URL('http://127.0.0.1:1/x'), options).response).rejects.toThrow(
        /a proxy is configured for http:\/\/127\.0\.0\.1:1 .*NO_PROXY/,
      );
    } finally {
      restoreEnv();
    }
  });
});

describe('write operations', () => {
  it('OpenAPI 3.2: a QUERY operation and an additionalOperations method (PURGE) are probed as the writes are; OPTIONS, HEAD, TRACE and a key that is no method are not', async () => {
    const doc = load(await readFile(REFERENCE_OPENAPI_FILE, 'utf8')) as {
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
    };
    doc.openapi = '3.2.0';
    const list = doc.paths['/tenants/{tenantId}/shipments'] ?? {};
    const item = doc.paths['/tenants/{tenantId}/shipments/{shipmentId}'] ?? {};
    const ok = { responses: { 200: { description: 'ok' } } };
    list.query = { ...ok, requestBody: { content: { 'application/json': { schema: { type: 'object' } } } } };
    list.options = ok;
    item.head = ok;
    item.trace = ok;
    item.additionalOperations = { PURGE: ok, 'GET /x HTTP/1.1\r\nX-Injected: 1': ok };
    const file = join(await tempDir(), 'openapi-3.2.yaml');
    await writeFile(file, dump(doc));
    expect(endpointModel(doc as never).writes.map((w) => `${w.method} ${w.path}`)).toEqual([
      'POST shipments',
      'QUERY shipments',
      'PATCH shipments/{shipmentId}',
      'DELETE shipments/{shipmentId}',
      'PURGE shipments/{shipmentId}',
    ]);

    const server = await startReferenceServer();
    setEnv({ CARRIER_CLIENT_SECRET: server.clientSecret });
    try {
      const reportsDir = await tempDir();
      const run = await runMain([
        'run',
        ...targetArgs(server).filter((a) => a !== server.openapiFile && a !== '--openapi'),
        '--openapi',
        file,
        '--reports-dir',
        reportsDir,
        ...WRITES,
      ]);
      expect(run.stdout).toContain(
        'write operations probed without content: 1 POST, 1 PATCH, 1 DELETE, 1 QUERY, 1 PURGE',
      );
      const report = JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
      for (const id of WRITE_CHECKS)
        for (const op of ['QUERY /tenants/{tenantId}/shipments', 'PURGE /tenants/{tenantId}/shipments/{shipmentId}'])
          expect(endpointsOf(report, id).find((e) => e.endpoint === op)?.status, `${id} ${op}`).toBe('passed');
      expect(run.code, run.stdout).toBe(0);
    } finally {
      restoreEnv();
      await server.close();
    }
  }, 60_000);

  it('the endpoint model takes the writes under the tenant path, each with the content type it takes', () => {
    const model = endpointModel({
      openapi: '3.1.0',
      paths: {
        '/tenants/{t}/orders': {
          get: { responses: { 200: { description: 'ok' } } },
          post: {
            operationId: 'createOrder',
            requestBody: { content: { 'text/plain': {}, 'application/vnd.orders+json': {} } },
            responses: { 201: { description: 'ok' } },
          },
        },
        '/tenants/{t}/orders/{id}': { delete: { responses: { 204: { description: 'gone' } } } },
        '/admin/orders': { post: { responses: { 201: { description: 'ok' } } } },
      },
    });
    expect(model.writes).toEqual([
      { method: 'POST', path: 'orders', source: 'openapi: createOrder', contentType: 'application/vnd.orders+json' },
      { method: 'DELETE', path: 'orders/{id}', source: 'openapi: DELETE /tenants/{t}/orders/{id}' },
    ]);
  });

  it('the conformant reference passes every write check on every write operation, and no probe sends a byte of content', async () => {
    const run = await throughCounter(await startReferenceServer());
    expect(run.code, run.stderr).toBe(0);
    for (const id of WRITE_CHECKS) expect(statusOf(run.report, id), id).toBe('passed');
    expect(writeOutcomes(run.report)).toEqual({
      [CREATE]: 'proven',
      'PATCH /tenants/{tenantId}/shipments/{shipmentId}': 'proven',
      'DELETE /tenants/{tenantId}/shipments/{shipmentId}': 'proven',
    });
    // POST and PATCH: eleven probes (nine of one defect, two of two) and one control each; DELETE takes no content.
    expect(run.expecting).toBe(24);
    expect(run.contentBytes).toBe(0);
    expect(run.stdout).toContain('write operations probed without content: 1 POST, 1 PATCH, 1 DELETE');
  }, 60_000);

  it('a server that asks for the content of every write (node:http without checkContinue) is not proven, never failed, and gets no content', async () => {
    const run = await throughCounter(await startReferenceServer({ expectContinue: 'auto' }));
    expect(run.contentBytes).toBe(0);
    expect(run.expecting).toBeGreaterThan(10);
    const create = endpointsOf(run.report, 'WRITE-VERSION-MISSING').find((e) => e.endpoint === CREATE);
    expect(create?.status).toBe('skipped');
    expect(create?.message).toContain(
      'not proven: the server (or a gateway in front of it) asked for the content (100 Continue)',
    );
    // DELETE takes no content: judged from its answer as it is.
    expect(endpointsOf(run.report, 'WRITE-VERSION-MISSING').find((e) => e.endpoint.startsWith('DELETE'))?.status).toBe(
      'passed',
    );
    for (const id of WRITE_CHECKS) expect(['skipped', 'passed']).toContain(statusOf(run.report, id));
    expect(run.code).toBe(0);
  }, 60_000);

  it.each([
    // Without a token too, 404 is neither rule's answer: WRITE-VERSION-AND-AUTH-MISSING fails as well.
    ['write-version-404', 'WRITE-VERSION-MISSING', 'expected 400, got 404', ['WRITE-VERSION-AND-AUTH-MISSING']],
    ['write-version-500', 'WRITE-VERSION-INVALID', 'got 500 (a server error)'],
    [
      'write-anonymous-403',
      'WRITE-AUTH-MISSING',
      'the refusal (403) must carry a WWW-Authenticate challenge (Bearer), got none',
    ],
    [
      'write-token-403',
      'WRITE-AUTH-INVALID',
      'the refusal (403) must carry a WWW-Authenticate challenge (Bearer), got none',
    ],
    ['write-tenant-500', 'WRITE-TENANT-UNKNOWN', 'got 500 (a server error)'],
    ['write-tenant-id-500', 'WRITE-TENANT-INVALID-ID', 'got 500 (a server error)'],
  ])(
    '%s fails %s on the create operation only',
    async (fault, id, message, alsoFailed: string[] = []) => {
      const run = await runAgainst({ faults: [fault] }, WRITES);
      expect(run.code).toBe(1);
      expect(statusOf(run.report, id)).toBe('failed');
      const check = run.report.checks.find((c) => c.id === id);
      expect([...new Set(check?.findings.map((f) => f.endpoint))]).toEqual([CREATE]);
      expect(check?.findings[0]?.message).toContain(message);
      for (const other of WRITE_CHECKS.filter((c) => c !== id))
        expect(statusOf(run.report, other), other).toBe(alsoFailed.includes(other) ? 'failed' : 'passed');
    },
    60_000,
  );

  it('--write-probes none skips every write check, saying why', async () => {
    const run = await runAgainst({}, [...WRITES, '--suite', 'versioning', '--write-probes', 'none']);
    expect(run.code, run.stderr).toBe(0);
    for (const id of WRITE_CHECKS) expect(statusOf(run.report, id)).toBe('skipped');
    expect(run.report.checks.find((c) => c.id === 'WRITE-AUTH-MISSING')?.message).toContain('--write-probes none');
    expect(run.stdout).toContain('write operations not probed (--write-probes none): 1 POST, 1 PATCH, 1 DELETE');
  }, 60_000);
});

describe("the reference server's write operations (docs/openapi.yaml)", () => {
  /** A token of the reference's client, and a request with it and Accept-Version: 1. */
  async function withToken(server: ReferenceServer) {
    const basic = Buffer.from(
      `${encodeURIComponent(server.clientId)}:${new URLSearchParams([['', server.clientSecret]]).toString().slice(1)}`,
    ).toString('base64');
    const token = await fetch(`${server.url}/uaa/oauth2/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${basic}`,
        'accept-version': '1',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    }).then((r) => r.json() as Promise<{ access_token: string }>);
    return (method: string, path: string, body?: string, type = 'application/json') =>
      fetch(`${server.url}/tenants/${server.tenantId}/${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token.access_token}`,
          'accept-version': '1',
          ...(body !== undefined ? { 'content-type': type } : {}),
        },
        ...(body !== undefined ? { body } : {}),
      });
  }

  it('answers a create, a change and a delete as the document says, and keeps nothing', async () => {
    const server = await startReferenceServer();
    try {
      const send = await withToken(server);
      const before = (await send('GET', 'shipments')).headers.get('total-elements');
      const created = await send('POST', 'shipments', JSON.stringify({ carrier: 'DHL', weightKg: null }));
      expect(created.status).toBe(201);
      expect(await created.json()).toMatchObject({ carrier: 'DHL', reference: '', weightKg: null, deliveredAt: null });
      const first = ((await (await send('GET', 'shipments')).json()) as { id: string }[])[0]?.id ?? '';
      const changed = await send('PATCH', `shipments/${first}`, '{"reference":"R-1"}', 'application/merge-patch+json');
      expect(changed.status).toBe(200);
      expect(await changed.json()).toMatchObject({ id: first, reference: 'R-1' });
      expect((await send('DELETE', `shipments/${first}`)).status).toBe(204);
      expect((await send('GET', 'shipments')).headers.get('total-elements')).toBe(before);
      expect((await send('GET', `shipments/${first}`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('refuses content that is not a ShipmentDraft (400), another media type (415), and a change of an unknown id (404)', async () => {
    const server = await startReferenceServer();
    try {
      const send = await withToken(server);
      expect((await send('POST', 'shipments', '{')).status).toBe(400);
      expect((await send('POST', 'shipments', '{"reference":"x"}')).status).toBe(400);
      expect((await send('POST', 'shipments', '{"carrier":"DHL","colour":"red"}')).status).toBe(400);
      expect((await send('POST', 'shipments', 'carrier=DHL', 'application/x-www-form-urlencoded')).status).toBe(415);
      expect(
        (await send('PATCH', `shipments/${crypto.randomUUID()}`, '{}', 'application/merge-patch+json')).status,
      ).toBe(404);
      // DELETE is idempotent: one that is not there is gone all the same.
      expect((await send('DELETE', `shipments/${crypto.randomUUID()}`)).status).toBe(204);
    } finally {
      await server.close();
    }
  });
});

describe('--write-probes invalid-content (tier 2): the same defects with content that is not JSON, on a target marked --allow-writes', () => {
  it('is refused without --allow-writes: exit 2, one line saying why, nothing sent', async () => {
    const server = await startReferenceServer({ recordRequests: true });
    setEnv({ CARRIER_CLIENT_SECRET: server.clientSecret });
    try {
      const run = await runMain(['run', ...targetArgs(server), '--write-probes', 'invalid-content']);
      expect(run.code).toBe(2);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toContain('say that it is not production with --allow-writes');
      expect(server.requestLog()).toEqual([]);
    } finally {
      restoreEnv();
      await server.close();
    }
  });

  it('where the server asks for the content first, proves what the defect changes, and sends no content but "{"', async () => {
    const server = await startReferenceServer({ expectContinue: 'auto', recordRequests: true });
    setEnv({ CARRIER_CLIENT_SECRET: server.clientSecret });
    const reportsDir = await tempDir();
    try {
      const run = await runMain([
        'run',
        ...targetArgs(server),
        ...WRITES,
        '--write-probes',
        'invalid-content',
        '--allow-writes',
        '--reports-dir',
        reportsDir,
      ]);
      const report = JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
      expect(run.code, run.stderr).toBe(0);
      const outcome = (id: string) => endpointsOf(report, id).find((e) => e.endpoint === CREATE);
      // 401 with a challenge, 404 for the version and the tenant, where the content alone gets 400.
      for (const id of ['WRITE-VERSION-INVALID', 'WRITE-AUTH-MISSING', 'WRITE-AUTH-INVALID', 'WRITE-TENANT-UNKNOWN'])
        expect(outcome(id)?.status, id).toBe('passed');
      // A missing version gets 400, as the content alone does: nothing tells the two apart.
      expect(outcome('WRITE-VERSION-MISSING')?.status).toBe('skipped');
      expect(outcome('WRITE-VERSION-MISSING')?.message).toContain(
        'with valid headers and the same content that is not JSON gets 400',
      );
      const writes = server.requestLog().filter((r) => r.method !== 'GET' && !r.endpoint.startsWith('/uaa'));
      expect(writes.length).toBeGreaterThan(0);
      // The probes that announce content and never send it are logged with none.
      expect([...new Set(writes.map((r) => r.body))].sort()).toEqual(['', '{']);
    } finally {
      restoreEnv();
      await server.close();
    }
  }, 60_000);

  it('a missing Bearer challenge that headers alone could not show is caught with content that is not JSON', async () => {
    const run = await runAgainst({ faults: ['write-anonymous-403'], expectContinue: 'auto' }, [
      ...WRITES,
      '--write-probes',
      'invalid-content',
      '--allow-writes',
    ]);
    expect(run.code).toBe(1);
    expect(statusOf(run.report, 'WRITE-AUTH-MISSING')).toBe('failed');
    expect(run.report.checks.find((c) => c.id === 'WRITE-AUTH-MISSING')?.findings[0]?.message).toContain(
      `${CREATE} with no Authorization header and content that is not JSON: the refusal (403) must carry a WWW-Authenticate challenge`,
    );
  }, 60_000);
});

/**
 * The variants that bear on a write probe: how it goes on the wire (a connection of its own, a
 * final answer read whole), and the refusals and challenges it is judged by. The others (paging,
 * links, fields) change nothing a write probe sees; every variant runs the other suites in
 * test/meta/variants.test.ts.
 */
const WRITE_VARIANTS = VARIANTS.filter(
  (v) =>
    v.wire !== undefined ||
    /version|credentials|bearer|tenant|error-bodies|problem|challenge|header-names|jwt|order/.test(v.name),
);

describe('every variant that bears on a write probe passes the write checks', () => {
  it.concurrent.each(WRITE_VARIANTS.map((v) => [v.name, v] as const))(
    '%s',
    async (name) => {
      const run = await runAgainst({ variants: [name] }, WRITES);
      expect(
        run.report.checks.filter((c) => c.status !== 'passed').map((c) => `${c.id} ${c.status}: ${c.message ?? ''}`),
      ).toEqual([]);
      expect(run.code).toBe(0);
    },
    60_000,
  );
});
