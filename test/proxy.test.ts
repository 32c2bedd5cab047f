/**
 * HTTP_PROXY and a certification (issue 39 item 8): a run "against" a public address reached the
 * loopback reference through a proxy, and a public-only profile certified it. What proxyFor says of
 * a URL is what the HTTP client does (a forward proxy on loopback sees the request or not); a
 * bundle records the proxy; `run --profile` refuses a proxied run; `verify-bundle --profile`
 * refuses a proxied bundle.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { sha256Of, targetInfoSchema } from '../src/certification/bundle-format.js';
import { currentCatalogue } from '../src/catalogue/digest.js';
import { createDispatcher } from '../src/http/dispatcher.js';
import { proxyFor, proxySettings } from '../src/http/proxy.js';
import { REFERENCE_OPENAPI_FILE } from '../src/reference/seeded.js';
import { startReferenceServer } from '../src/reference/index.js';
import { runMain, targetArgs, tempDir } from './support/harness.js';
import { referenceExpectations } from './support/reports.js';
import { onLoopback } from './support/loopback.js';

/** A forward proxy on loopback: it forwards absolute-form requests and counts them. */
let proxy: Server;
let proxyUrl: string;
let forwarded = 0;
/** A target that says it was reached. */
let target: Server;
let targetPort: number;

const listen = async (server: Server): Promise<number> => {
  await onLoopback(server);
  return (server.address() as AddressInfo).port;
};

beforeAll(async () => {
  proxy = createServer((req, res) => {
    forwarded += 1;
    const url = new URL(req.url ?? '/');
    const upstream = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: req.method,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  // undici's ProxyAgent tunnels every request, http:// too (CONNECT, RFC 9110 §9.3.6).
  proxy.on('connect', (req, client, head) => {
    forwarded += 1;
    const [host = '', port = '80'] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  proxyUrl = `http://127.0.0.1:${await listen(proxy)}`;
  target = createServer((_req, res) => res.end('direct'));
  targetPort = await listen(target);
});

afterAll(async () => {
  proxy.closeAllConnections();
  target.closeAllConnections();
  await new Promise((resolve) => proxy.close(resolve));
  await new Promise((resolve) => target.close(resolve));
});

/** Runs `body` with these proxy variables set (and only these), then restores the environment. */
async function withProxyEnv<T>(vars: Record<string, string>, body: () => Promise<T>): Promise<T> {
  const names = ['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy'];
  const saved = Object.fromEntries(names.map((n) => [n, process.env[n]]));
  for (const n of names) delete process.env[n];
  Object.assign(process.env, vars);
  try {
    return await body();
  } finally {
    for (const n of names) {
      if (saved[n] === undefined) delete process.env[n];
      else process.env[n] = saved[n];
    }
  }
}

describe('proxyFor', () => {
  it('says what the HTTP client does: through the proxy unless NO_PROXY names the host (and port), its subdomains, or *', async () => {
    const url = `http://127.0.0.1:${targetPort}/x`;
    const cases: [Record<string, string>, boolean][] = [
      [{ HTTP_PROXY: proxyUrl }, true],
      [{ http_proxy: proxyUrl, NO_PROXY: '127.0.0.1' }, false],
      [{ HTTP_PROXY: proxyUrl, no_proxy: `127.0.0.1:${targetPort}` }, false],
      [{ HTTP_PROXY: proxyUrl, NO_PROXY: `127.0.0.1:${targetPort + 1}` }, true],
      [{ HTTP_PROXY: proxyUrl, NO_PROXY: '*' }, false],
      [{ HTTP_PROXY: proxyUrl, NO_PROXY: 'example.com, .other.test' }, true],
      [{ HTTPS_PROXY: proxyUrl }, false],
    ];
    for (const [vars, proxied] of cases) {
      await withProxyEnv(vars, async () => {
        expect(proxyFor(url) !== undefined, JSON.stringify(vars)).toBe(proxied);
        const before = forwarded;
        const dispatcher = createDispatcher(5_000, { insecure: false });
        const answer = await request(url, { dispatcher });
        expect(await answer.body.text()).toBe('direct');
        await dispatcher.close();
        expect(forwarded > before, JSON.stringify(vars)).toBe(proxied);
      });
    }
  });

  it('names the proxy by its origin, never its credentials; an HTTPS target falls back to HTTP_PROXY; subdomains of a NO_PROXY entry go direct', () => {
    const settings = proxySettings({ HTTP_PROXY: 'http://user:s3cr3t@proxy.corp:3128', NO_PROXY: '.internal.example' });
    expect(proxyFor('https://api.acme.example/v1', settings)).toBe('http://proxy.corp:3128');
    expect(proxyFor('https://api.internal.example/v1', settings)).toBeUndefined();
    expect(proxyFor('http://internal.example/v1', settings)).toBeUndefined();
    expect(proxyFor('not a url', settings)).toBeUndefined();
  });
});

describe('a certifying run through a proxy', () => {
  let dir: string;
  let profile: string;
  let expectations: string;
  beforeAll(async () => {
    dir = await tempDir('carrier-proxy-');
    expectations = await referenceExpectations(dir);
    profile = join(dir, 'profile.json');
    await writeFile(
      profile,
      JSON.stringify({
        format: 'carrier-conformance-profile/1',
        openapi: { sha256: sha256Of(await readFile(REFERENCE_OPENAPI_FILE)) },
        endpoints: ['shipments'],
        expectations: { sha256: sha256Of(await readFile(expectations)) },
        catalogue: currentCatalogue().digest,
        allowTargets: ['loopback'],
      }),
    );
  });

  it('run --profile refuses it before anything runs (exit 2, one line)', async () => {
    const server = await startReferenceServer({ tokenTtlSeconds: 2 });
    process.env.CARRIER_CLIENT_SECRET = server.clientSecret;
    const result = await withProxyEnv({ HTTP_PROXY: proxyUrl }, () =>
      runMain([
        'run',
        ...targetArgs(server),
        '--expectations',
        expectations,
        '--profile',
        profile,
        '--reports-dir',
        join(dir, 'refused'),
      ]),
    ).finally(async () => {
      delete process.env.CARRIER_CLIENT_SECRET;
      await server.close();
    });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toMatch(
      new RegExp(
        `^carrier-conformance: --profile ${profile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: the requests to http://127\\.0\\.0\\.1:\\d+ would go through the proxy ${proxyUrl.replace(/\./g, '\\.')} \\(HTTP_PROXY/HTTPS_PROXY\\): a certifying run must reach the target itself, whose addresses the bundle records; unset the proxy for this run, or name the host in NO_PROXY$`,
      ),
    );
  });

  it('a bundle made without the profile records the proxy; verify-bundle --profile refuses it', async () => {
    const bundle = join(dir, 'proxied');
    const before = forwarded;
    const server = await startReferenceServer({ tokenTtlSeconds: 2 });
    process.env.CARRIER_CLIENT_SECRET = server.clientSecret;
    const run = await withProxyEnv({ HTTP_PROXY: proxyUrl }, () =>
      runMain([
        'run',
        ...targetArgs(server),
        '--expectations',
        expectations,
        '--bundle',
        bundle,
        '--reports-dir',
        join(dir, 'proxied-reports'),
      ]),
    ).finally(async () => {
      delete process.env.CARRIER_CLIENT_SECRET;
      await server.close();
    });
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(forwarded - before).toBeGreaterThan(20);
    const info = targetInfoSchema.parse(JSON.parse(await readFile(join(bundle, 'target.json'), 'utf8')));
    expect(info.target.proxies).toEqual([{ url: info.target.baseUrl, via: proxyUrl }]);
    const verified = await runMain(['verify-bundle', bundle, '--profile', profile]);
    expect(verified.code).toBe(1);
    expect(verified.stdout).toContain(
      `  FAIL  target ${info.target.baseUrl}: reached through the proxy ${proxyUrl}: where its requests went is not what the bundle records of its addresses; run without HTTP_PROXY/HTTPS_PROXY for the target`,
    );
    expect((await runMain(['verify-bundle', bundle])).stdout).toContain(
      `  note  target.json: the requests to ${info.target.baseUrl} went through the proxy ${proxyUrl}`,
    );
  }, 60_000);
});
