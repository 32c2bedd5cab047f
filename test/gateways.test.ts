/**
 * The whole battery through real gateways (Debian's nginx, HAProxy and Apache 2.4) in front of the reference
 * server, deployed as a platform team deploys the API: TLS with a private CA, the legacy paths
 * rewritten by the gateway (the backend does not serve them: `legacyRewrites: false`), JSON
 * gzip'd, idle client connections closed after 0.5 s, nginx closing every connection after 5
 * requests. A conformant backend behind a correctly configured gateway is still conformant, so
 * every run must give the verdicts of the direct run, check by check, and exit 0.
 *
 * The first tests show that each gateway really does its job (rewrite, gzip, connection closes),
 * so that an equal verdict cannot come from a gateway that passes everything through unchanged.
 * The last serves the API under `/api` (stripped by the gateway, declared to the backend in
 * X-Forwarded-Prefix, which writes its links under it), as many deployments do.
 *
 * Apache has one more: a backend that writes absolute links from Host and X-Forwarded-Proto, as
 * many frameworks do, behind Apache with and without `ProxyPreserveHost On` and X-Forwarded-Proto.
 * Without them every link leads to the backend over http: the link checks fail for that reason
 * alone, and every other check keeps its verdict.
 *
 * Needs the binaries (`apt-get install nginx-light haproxy apache2`): skipped locally without them,
 * failed in CI (`CI` set), like the Chromium test of test/html-report.test.ts.
 * GATEWAY_RUNS=N repeats the battery N times per gateway (default 1: CI time; 8 finds a flaky verdict).
 */
import { readFileSync } from 'node:fs';
import { Agent, createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { gunzipSync } from 'node:zlib';
import { Client } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../src/model/run-report.js';
import { startReferenceServer, type ReferenceOptions, type ReferenceServer } from '../src/reference/index.js';
import {
  GATEWAY_BINARIES,
  GATEWAY_PACKAGES,
  GATEWAY_REWRITES,
  haveGateway,
  startGateway,
  type Gateway,
  type GatewayKind,
} from './support/gateways.js';
import { runBin, tempDir, WITHOUT_EXPIRY } from './support/harness.js';
import { differences as statusDifferences } from './support/verdicts.js';
import { VERSION_THEN_TOKEN_THEN_TENANT, precedenceChoices, writeOutcomes } from './support/stack-runs.js';
import { onLoopback, closeServer } from './support/loopback.js';

const IN_CI = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';
const RUNS = Number(process.env.GATEWAY_RUNS ?? 1);
/** Short, so that the expiry suite (which waits the lifetime out) keeps each run to a few seconds. */
const TOKEN_TTL_SECONDS = 2;
const KEEP_ALIVE_TIMEOUT_MS = 500;
const KEEP_ALIVE_REQUESTS = 5;
const BACKEND: ReferenceOptions = { tokenTtlSeconds: TOKEN_TTL_SECONDS };

interface Run {
  code: number;
  report: RunReport;
  stderr: string;
}

/**
 * What the write probes (issue 41) prove through each gateway, as measured (docs/writes.md):
 * HAProxy and Apache's mod_proxy_http hand `Expect: 100-continue` to the backend, which judges the
 * header section and refuses the probes itself: every operation proven. nginx (and Caddy, in
 * test/python-stacks.test.ts) reads a request's content before it proxies it, and asks for it with
 * its own 100 Continue: the operations that take content are not proven, the DELETE (no content) is.
 */
const WRITES_THROUGH: Record<GatewayKind, Record<string, string>> = (() => {
  const all = (content: string) => ({
    'POST /tenants/{tenantId}/shipments': content,
    'PATCH /tenants/{tenantId}/shipments/{shipmentId}': content,
    'DELETE /tenants/{tenantId}/shipments/{shipmentId}': 'proven',
  });
  return {
    nginx: all('asks for the content'),
    haproxy: all('proven'),
    apache: all('proven'),
    caddy: all('asks for the content'),
  };
})();

/** The real executable, as a user runs it (its own keep-alive pool, its own process). */
async function runHarness(server: ReferenceServer, baseUrl: string, extra: string[] = []): Promise<Run> {
  const reportsDir = await tempDir();
  // The known data of the test account, so that USER-EXPECTED-VALUES runs too.
  const expectations = join(reportsDir, 'expectations.json');
  await writeFile(expectations, JSON.stringify(server.expectations));
  const args = [
    'run',
    '--base-url',
    baseUrl,
    '--client-id',
    server.clientId,
    '--openapi',
    server.openapiFile,
    '--foreign-tenant-id',
    server.foreignTenantId,
    '--expectations',
    expectations,
    '--reports-dir',
    reportsDir,
    ...extra,
  ];
  const result = await runBin(args, {
    env: {
      CARRIER_CLIENT_SECRET: server.clientSecret,
      HTTP_PROXY: '',
      HTTPS_PROXY: '',
      http_proxy: '',
      https_proxy: '',
    },
    timeoutMs: 45_000,
  });
  const report = JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
  return { code: result.code, report, stderr: result.stderr };
}

/** Each check whose status differs from the direct run's, with the gateway run's reasons. */
const differences = (direct: RunReport, through: RunReport): string[] =>
  statusDifferences(Object.fromEntries(direct.checks.map((c) => [c.id, c.status])), through);

const basic = (server: ReferenceServer): string => {
  // RFC 6749 §2.3.1: form-urlencode id and secret before Base64.
  const form = (v: string) => new URLSearchParams([['', v]]).toString().slice(1);
  return `Basic ${Buffer.from(`${form(server.clientId)}:${form(server.clientSecret)}`, 'utf8').toString('base64')}`;
};

/** The private CA's certificate of a gateway started with TLS. */
function caOf(gateway: Gateway): string {
  if (!gateway.ca) throw new Error(`${gateway.kind} was started without TLS`);
  return readFileSync(gateway.ca.caFile, 'utf8');
}

/** Idle time after a response until the gateway closes the TLS connection (bounded by `limitMs`). */
function idleCloseAfterMs(gateway: Gateway, limitMs: number): Promise<number> {
  const url = new URL(gateway.url);
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: url.hostname, port: Number(url.port), ca: caOf(gateway) });
    let answeredAt: number | undefined;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the connection was still open ${limitMs} ms after the response`));
    }, limitMs);
    socket.once('secureConnect', () =>
      socket.write(`GET /no/such/path HTTP/1.1\r\nHost: ${url.host}\r\nAccept-Version: 1\r\n\r\n`),
    );
    socket.on('data', (chunk: Buffer) => {
      if (answeredAt === undefined && chunk.toString('latin1').startsWith('HTTP/1.1 401')) answeredAt = Date.now();
    });
    socket.once('error', reject);
    socket.once('close', () => {
      clearTimeout(timer);
      if (answeredAt === undefined) reject(new Error('closed before any response'));
      else resolve(Date.now() - answeredAt);
    });
  });
}

/**
 * A backend that writes absolute links, as many frameworks do (Tomcat's RemoteIpValve, Rails,
 * Express with `trust proxy`): from the Host and X-Forwarded-Proto it gets (http without one).
 * A proxy in front of the reference server that turns the relative targets of its Link headers
 * into such absolute ones; nothing else changes.
 */
async function absoluteLinkBackend(upstream: string): Promise<{ url: string; close(): Promise<void> }> {
  const target = new URL(upstream);
  const agent = new Agent({ keepAlive: true });
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const proxied = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent },
      (answer) => {
        const proto = typeof req.headers['x-forwarded-proto'] === 'string' ? req.headers['x-forwarded-proto'] : 'http';
        const link = answer.headers.link;
        const headers = { ...answer.headers };
        if (typeof link === 'string')
          headers.link = link.replace(/<\//g, `<${proto}://${req.headers.host ?? target.host}/`);
        res.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(res);
      },
    );
    proxied.once('error', () => res.destroy());
    req.pipe(proxied);
  });
  await onLoopback(server);
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await closeServer(server);
      agent.destroy();
    },
  };
}

/** The answers (head and body) to `count` requests pipelined on one TLS connection, until the gateway closes it. */
function pipelined(gateway: Gateway, count: number, limitMs: number): Promise<string[]> {
  const url = new URL(gateway.url);
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: url.hostname, port: Number(url.port), ca: caOf(gateway) });
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the connection was still open ${limitMs} ms after ${count} pipelined requests`));
    }, limitMs);
    socket.once('secureConnect', () =>
      socket.write(`GET /no/such/path HTTP/1.1\r\nHost: ${url.host}\r\nAccept-Version: 1\r\n\r\n`.repeat(count)),
    );
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.once('error', reject);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(received.split(/(?=HTTP\/1\.1 \d{3} )/).filter((a) => a !== ''));
    });
  });
}

let direct: Run | undefined;

beforeAll(async () => {
  if (!haveGateway('nginx') && !haveGateway('haproxy') && !haveGateway('apache')) return;
  const server = await startReferenceServer(BACKEND);
  try {
    direct = await runHarness(server, server.url);
  } finally {
    await server.close();
  }
}, 60_000);

it.skipIf(!haveGateway('nginx') && !haveGateway('haproxy') && !haveGateway('apache') && !IN_CI)(
  'the direct run, the reference for the gateway runs, passes every check',
  () => {
    expect(direct, 'no direct run: no gateway binary, yet CI is set').toBeDefined();
    if (!direct) return;
    const notPassed = direct.report.checks
      .filter((c) => c.status !== 'passed')
      .map((c) => `${c.id}: ${c.status}: ${c.message ?? ''}`);
    expect(notPassed, notPassed.join('\n')).toEqual([]);
    expect(direct.code).toBe(0);
  },
);

describe.each(['nginx', 'haproxy', 'apache'] as const)('%s in front of the reference server', (kind: GatewayKind) => {
  const have = haveGateway(kind);
  const skip = !have && !IN_CI;
  const missing = `no ${kind} at ${GATEWAY_BINARIES[kind]}; install it with \`apt-get install ${GATEWAY_PACKAGES[kind]}\``;
  const title = (name: string) => (skip ? `${name} (skipped: ${missing})` : name);
  const requireBinary = () =>
    expect(have, `CI is set but there is ${missing}: the CI script must install it`).toBe(true);

  let server: ReferenceServer;
  let gateway: Gateway;
  let client: Client;
  let ca: string;

  beforeAll(async () => {
    // Without the binary the tests themselves fail (in CI) or are skipped.
    if (!have) return;
    server = await startReferenceServer({ ...BACKEND, legacyRewrites: false, recordRequests: true });
    gateway = await startGateway({
      kind,
      upstream: server.url,
      keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS,
      keepAliveRequests: KEEP_ALIVE_REQUESTS,
    });
    ca = caOf(gateway);
    // Idle connections are dropped well before the gateway's 500 ms: the probes race no close.
    client = new Client(gateway.url, { connect: { ca }, keepAliveTimeout: 100 });
  }, 30_000);

  afterAll(async () => {
    await client?.close();
    await gateway?.close();
    await server?.close();
  });

  const call = async (method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: string) => {
    const res = await client.request({
      method,
      path,
      headers: { 'accept-version': '1', ...headers },
      body: body ?? null,
    });
    return { status: res.statusCode, headers: res.headers, body: Buffer.from(await res.body.arrayBuffer()) };
  };
  const token = async (path = '/uaa/oauth2/token'): Promise<string> => {
    const res = await call(
      'POST',
      path,
      { authorization: basic(server), 'content-type': 'application/x-www-form-urlencoded' },
      'grant_type=client_credentials',
    );
    expect(res.status, `POST ${path}`).toBe(200);
    return (JSON.parse(res.body.toString('utf8')) as { access_token: string }).access_token;
  };
  const backendTargets = () => server.requestLog().map((r) => `${r.method} ${r.target}`);

  it.skipIf(skip)(
    title('rewrites the legacy paths for the backend, keeping the query string, without a redirect'),
    async () => {
      requireBinary();
      const probe = `probe-${Date.now()}`;
      const legacyToken = await token(`/uaa/oauth/token?${probe}=1`);
      expect(backendTargets()).toContain(`POST /uaa/oauth2/token?${probe}=1`);

      const legacyUser = await call('GET', `/uaa/userinfo?${probe}=2`, { authorization: `Bearer ${legacyToken}` });
      const currentUser = await call('GET', '/users/me', { authorization: `Bearer ${legacyToken}` });
      expect(legacyUser.status).toBe(200);
      expect(legacyUser.headers.location).toBeUndefined();
      expect(JSON.parse(legacyUser.body.toString('utf8'))).toEqual(JSON.parse(currentUser.body.toString('utf8')));
      expect(backendTargets()).toContain(`GET /users/me?${probe}=2`);
      // The backend never saw a legacy path: the gateway did all the rewriting.
      expect(
        backendTargets().filter((t) => GATEWAY_REWRITES.some(([legacy]) => t.split(' ')[1]?.startsWith(legacy))),
      ).toEqual([]);
    },
  );

  it.skipIf(skip)(title('gzips JSON for clients that accept it; the backend does not'), async () => {
    requireBinary();
    const bearer = `Bearer ${await token()}`;
    const before = server.requestLog().length;
    const res = await call('GET', `/tenants/${server.tenantId}/shipments`, {
      authorization: bearer,
      'accept-encoding': 'gzip',
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(res.body).toString('utf8'))).toEqual(expect.any(Array));
    const forwarded = server.requestLog().slice(before);
    expect(forwarded).toHaveLength(1);
    expect(
      forwarded[0]?.headers.filter(([name, value]) => name.toLowerCase() === 'accept-encoding' && /gzip/i.test(value)),
    ).toEqual([]);
  });

  it.skipIf(skip)(title(`closes an idle client connection after ${KEEP_ALIVE_TIMEOUT_MS} ms`), async () => {
    requireBinary();
    const idleMs = await idleCloseAfterMs(gateway, 5_000);
    expect(idleMs).toBeGreaterThanOrEqual(KEEP_ALIVE_TIMEOUT_MS - 100);
    expect(idleMs).toBeLessThan(KEEP_ALIVE_TIMEOUT_MS + 1_500);
  });

  // HAProxy has no per-connection request limit; Apache's is MaxKeepAliveRequests (below).
  if (kind === 'nginx')
    it.skipIf(skip)(
      title(`closes a client connection after ${KEEP_ALIVE_REQUESTS} requests (keepalive_requests)`),
      async () => {
        requireBinary();
        const one = new Client(gateway.url, { connect: { ca }, keepAliveTimeout: 10_000, pipelining: 1 });
        let connections = 0;
        one.on('connect', () => (connections += 1));
        try {
          const closing: (string | string[] | undefined)[] = [];
          for (let i = 1; i <= KEEP_ALIVE_REQUESTS + 1; i += 1) {
            const res = await one.request({ method: 'GET', path: '/no/such/path', headers: { 'accept-version': '1' } });
            await res.body.arrayBuffer();
            closing.push(res.headers.connection);
          }
          expect(closing[KEEP_ALIVE_REQUESTS - 1]).toBe('close');
          expect(closing.slice(0, KEEP_ALIVE_REQUESTS - 1).every((c) => c !== 'close')).toBe(true);
          expect(connections).toBe(2);
        } finally {
          await one.close();
        }
      },
    );

  // Apache's Keep-Alive header says `timeout=0` (its 500 ms in whole seconds), after which undici
  // reuses no connection: the requests are pipelined on one raw connection instead.
  if (kind === 'apache')
    it.skipIf(skip)(
      title(`closes a client connection after ${KEEP_ALIVE_REQUESTS} requests (MaxKeepAliveRequests)`),
      async () => {
        requireBinary();
        const answers = await pipelined(gateway, KEEP_ALIVE_REQUESTS + 1, 5_000);
        expect(
          answers.map((a) => a.split('\r\n')[0]),
          'answers on one connection',
        ).toEqual(Array.from({ length: KEEP_ALIVE_REQUESTS }, () => 'HTTP/1.1 401 Unauthorized'));
        expect(answers.slice(0, -1).filter((a) => /^connection: close\r?$/im.test(a))).toEqual([]);
        expect(answers.at(-1)).toMatch(/^connection: close\r?$/im);
      },
    );

  it.skipIf(skip).each(Array.from({ length: RUNS }, (_, i) => i + 1))(
    title(`run %i of the whole battery over TLS: the verdicts of the direct run, exit 0`),
    async () => {
      requireBinary();
      expect(direct, 'no direct run to compare with').toBeDefined();
      if (!direct) return;
      const logged = (await gateway.accessLog()).length;
      const served = server.requestLog().length;
      const caFile = gateway.ca?.caFile ?? '';

      const run = await runHarness(server, gateway.url, ['--ca-file', caFile]);

      const diff = differences(direct.report, run.report);
      const access = (await gateway.accessLog()).slice(logged);
      const backend = server.requestLog().slice(served);
      const why = diff.length > 0 ? `\n${diff.join('\n')}\n${await gateway.diagnostics()}` : '';
      expect
        .soft(
          diff,
          `run ${run.report.checks.length} checks through ${kind}, ${diff.length} differ from the direct run:${why}`,
        )
        .toEqual([]);
      expect.soft(run.code, `exit code through ${kind}${run.stderr ? `; stderr: ${run.stderr}` : ''}`).toBe(0);
      expect.soft(writeOutcomes(run.report), `the write operations through ${kind}`).toEqual(WRITES_THROUGH[kind]);
      expect.soft(precedenceChoices(run.report), `which rule wins through ${kind}`).toEqual(
        // nginx asks for the content of the create and change operations itself (docs/writes.md).
        VERSION_THEN_TOKEN_THEN_TENANT(kind === 'nginx' ? 1 : 3),
      );

      // The gateway did its job during the run, so the equal verdicts mean something.
      const legacy = access.filter((e) => GATEWAY_REWRITES.some(([path]) => e.target.split('?')[0] === path));
      expect.soft(legacy.length, 'the battery sent legacy paths through the gateway').toBeGreaterThan(0);
      expect
        .soft(
          backend
            .filter((r) => GATEWAY_REWRITES.some(([path]) => r.target.split('?')[0] === path))
            .map((r) => r.target),
          'the backend got no legacy path',
        )
        .toEqual([]);
      expect
        .soft(
          access.some((e) => e.contentEncoding === 'gzip'),
          'some response was gzip-compressed by the gateway',
        )
        .toBe(true);
      const perConnection = new Map<string, number>();
      for (const e of access) perConnection.set(e.connection, (perConnection.get(e.connection) ?? 0) + 1);
      expect.soft(perConnection.size, `client connections for ${access.length} requests`).toBeGreaterThan(1);
      if (kind !== 'haproxy')
        expect
          .soft(
            Math.max(...perConnection.values()),
            'requests on one connection (keepalive_requests, MaxKeepAliveRequests)',
          )
          .toBeLessThanOrEqual(KEEP_ALIVE_REQUESTS);
    },
    50_000,
  );

  // The prefix is the backend's doing (X-Forwarded-Prefix): one gateway proves it in `npm test`
  // (CI's time), every one with GATEWAY_PREFIX_ALL=1.
  if (kind === 'nginx' || process.env.GATEWAY_PREFIX_ALL === '1')
    it.skipIf(skip)(
      title(
        'serving the API under /api: the verdicts of the direct run, every request under the prefix, each page of the walk read once',
      ),
      async () => {
        requireBinary();
        expect(direct, 'no direct run to compare with').toBeDefined();
        if (!direct) return;
        // One battery worker (no expiry suite), so that each list is walked once in the run.
        const expected = { ...direct.report, checks: direct.report.checks.filter((c) => c.suite !== 'expiry') };
        const backend = await startReferenceServer({ ...BACKEND, legacyRewrites: false, recordRequests: true });
        const prefixed = await startGateway({ kind, upstream: backend.url, prefix: '/api' });
        try {
          const run = await runHarness(backend, `${prefixed.url}/api`, [
            '--ca-file',
            prefixed.ca?.caFile ?? '',
            ...WITHOUT_EXPIRY,
          ]);
          const diff = differences(expected, run.report);
          expect
            .soft(
              diff,
              `${diff.length} checks differ from the direct run through ${kind} under /api:\n${diff.join('\n')}\n${diff.length > 0 ? await prefixed.diagnostics() : ''}`,
            )
            .toEqual([]);
          expect.soft(run.code, `exit code${run.stderr ? `; stderr: ${run.stderr}` : ''}`).toBe(0);
          const access = await prefixed.accessLog();
          expect
            .soft(
              access.filter((e) => !e.target.startsWith('/api/')).map((e) => e.target),
              'requests outside the prefix',
            )
            .toEqual([]);
          expect
            .soft(
              backend
                .requestLog()
                .filter((r) => r.target.startsWith('/api'))
                .map((r) => r.target),
              'the backend got the prefix',
            )
            .toEqual([]);
          // The walk matches its pages' links (written under /api by the backend) with its own requests.
          const pages = new Map<string, number>();
          for (const e of access)
            if (e.status === 200 && /[?&]page=\d+/.test(e.target)) pages.set(e.target, (pages.get(e.target) ?? 0) + 1);
          expect
            .soft(
              [...pages].filter(([, n]) => n > 1),
              'page requests answered 200 more than once',
            )
            .toEqual([]);
          expect.soft(pages.size, 'pages read').toBeGreaterThan(3);
        } finally {
          await prefixed.close();
          await backend.close();
        }
      },
      50_000,
    );
});

describe('apache in front of a backend that writes absolute links from Host and X-Forwarded-Proto', () => {
  const have = haveGateway('apache');
  const skip = !have && !IN_CI;
  const missing = `no apache at ${GATEWAY_BINARIES.apache}; install it with \`apt-get install ${GATEWAY_PACKAGES.apache}\``;
  const title = (name: string) => (skip ? `${name} (skipped: ${missing})` : name);
  const requireBinary = () =>
    expect(have, `CI is set but there is ${missing}: the CI script must install it`).toBe(true);
  /** One battery worker: the link checks do not depend on the expiry suite. */
  const withoutExpiry = (report: RunReport): RunReport => ({
    ...report,
    checks: report.checks.filter((c) => c.suite !== 'expiry'),
  });

  /** Through Apache, with or without ProxyPreserveHost On and X-Forwarded-Proto. */
  const through = async (forwardedHeaders: boolean) => {
    const server = await startReferenceServer({ ...BACKEND, legacyRewrites: false });
    const backend = await absoluteLinkBackend(server.url);
    const gateway = await startGateway({ kind: 'apache', upstream: backend.url, forwardedHeaders });
    try {
      const shipments = await (async () => {
        const client = new Client(gateway.url, { connect: { ca: caOf(gateway) } });
        try {
          const res = await client.request({
            method: 'POST',
            path: '/uaa/oauth2/token',
            headers: {
              'accept-version': '1',
              authorization: basic(server),
              'content-type': 'application/x-www-form-urlencoded',
            },
            body: 'grant_type=client_credentials',
          });
          const { access_token: bearer } = (await res.body.json()) as { access_token: string };
          const page = await client.request({
            method: 'GET',
            path: `/tenants/${server.tenantId}/shipments`,
            headers: { 'accept-version': '1', authorization: `Bearer ${bearer}` },
          });
          await page.body.arrayBuffer();
          return String(page.headers.link);
        } finally {
          await client.close();
        }
      })();
      const run = await runHarness(server, gateway.url, ['--ca-file', gateway.ca?.caFile ?? '', ...WITHOUT_EXPIRY]);
      return {
        run,
        link: shipments,
        gateway: gateway.url,
        backend: backend.url,
        diagnostics: await gateway.diagnostics(),
      };
    } finally {
      await gateway.close();
      await backend.close();
      await server.close();
    }
  };

  it.skipIf(skip)(
    title(
      'with ProxyPreserveHost On and X-Forwarded-Proto: the links are on the gateway, the verdicts of the direct run',
    ),
    async () => {
      requireBinary();
      expect(direct, 'no direct run to compare with').toBeDefined();
      if (!direct) return;
      const { run, link, gateway, diagnostics } = await through(true);
      expect(link).toContain(`<${gateway}/tenants/`);
      const diff = differences(withoutExpiry(direct.report), run.report);
      expect
        .soft(
          diff,
          `${diff.length} checks differ from the direct run:\n${diff.join('\n')}\n${diff.length > 0 ? diagnostics : ''}`,
        )
        .toEqual([]);
      expect.soft(run.code, `exit code${run.stderr ? `; stderr: ${run.stderr}` : ''}`).toBe(0);
    },
    50_000,
  );

  it.skipIf(skip)(
    title(
      "without them (Apache's defaults): every link leads to the backend over http, the LINK-* checks that follow links fail for that reason, the others keep their verdicts",
    ),
    async () => {
      requireBinary();
      expect(direct, 'no direct run to compare with').toBeDefined();
      if (!direct) return;
      const { run, link, backend } = await through(false);
      // The backend wrote its own origin (Host: the upstream's; no X-Forwarded-Proto: http).
      expect(link).toContain(`<${backend}/tenants/`);
      const expected = withoutExpiry(direct.report);
      // LINK-SYNTAX keeps its verdict: an absolute target on another origin is still a valid link
      // (RFC 8288 §3); the links just cannot be followed with the client's credentials (RFC 6750 §5.3).
      const isLink = (id: string) => id.startsWith('LINK-') && id !== 'LINK-SYNTAX';
      expect(expected.checks.filter((c) => isLink(c.id)).length, 'LINK-* checks in the run').toBeGreaterThanOrEqual(4);
      const linkVerdicts = run.report.checks
        .filter((c) => isLink(c.id))
        .map((c) => {
          const reasons = [c.message, ...c.findings.map((f) => f.message)].filter((m): m is string => m !== undefined);
          return { id: c.id, status: c.status, offOrigin: reasons.some((m) => m.includes("not on the API's origin")) };
        });
      expect
        .soft(linkVerdicts)
        .toEqual(
          expected.checks.filter((c) => isLink(c.id)).map((c) => ({ id: c.id, status: 'failed', offOrigin: true })),
        );
      const others = differences(
        { ...expected, checks: expected.checks.filter((c) => !isLink(c.id)) },
        { ...run.report, checks: run.report.checks.filter((c) => !isLink(c.id)) },
      );
      expect
        .soft(others, `checks besides those LINK-* that differ from the direct run:\n${others.join('\n')}`)
        .toEqual([]);
      expect.soft(run.code, 'exit code: failed checks').toBe(1);
    },
    50_000,
  );
});
