/**
 * TLS and proxies: a private CA (--ca-file), --insecure with a loud warning, and the standard
 * proxy variables, each against loopback servers started here (a self-signed certificate is made
 * with openssl for the test).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceServer, type ReferenceServer } from '../src/reference/index.js';
import { runBin, tempDir } from './support/harness.js';
import { selfSignedCertificate, startProxy, startTlsFront, type Certificate } from './support/tls.js';

let server: ReferenceServer;
let certificate: Certificate;
let https: { url: string; close(): Promise<void> };

beforeAll(async () => {
  server = await startReferenceServer({ tokenTtlSeconds: 60 });
  certificate = await selfSignedCertificate();
  https = await startTlsFront(server.url, certificate);
});

afterAll(async () => {
  await https.close();
  await server.close();
});

async function runAt(baseUrl: string, args: string[] = [], env: Record<string, string> = {}) {
  return runBin(
    [
      'run',
      '--base-url',
      baseUrl,
      '--client-id',
      server.clientId,
      '--suite',
      'user',
      '--reports-dir',
      await tempDir(),
      ...args,
    ],
    {
      env: {
        CARRIER_CLIENT_SECRET: server.clientSecret,
        HTTP_PROXY: '',
        HTTPS_PROXY: '',
        http_proxy: '',
        https_proxy: '',
        ...env,
      },
    },
  );
}

describe('TLS', () => {
  it('refuses a self-signed certificate: exit 3 and the way out (--ca-file)', async () => {
    const result = await runAt(https.url);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(
      /cannot reach the token endpoint at https:\/\/127\.0\.0\.1:\d+: TLS: .*self-signed certificate: trust its CA with --ca-file/,
    );
  });

  it('trusts a private CA given with --ca-file', async () => {
    const result = await runAt(https.url, ['--ca-file', certificate.certFile]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/3 passed, 0 failed/);
  });

  it('skips verification with --insecure, and says loudly that it does', async () => {
    const result = await runAt(https.url, ['--insecure']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /warning: --insecure: TLS certificates of https:\/\/127\.0\.0\.1:\d+ are NOT verified/,
    );
  });

  it.each([
    [['--ca-file', '/nonexistent/ca.pem'], /--ca-file \/nonexistent\/ca.pem: cannot read it \(no such file\)/],
    [['--ca-file', '/etc/hostname'], /--ca-file \/etc\/hostname: no PEM certificate in it/],
  ])('refuses a bad --ca-file with exit 2: %j', async (args, message) => {
    const result = await runAt(https.url, args);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(message);
  });
});

describe('proxies', () => {
  it('sends every request through HTTP_PROXY', async () => {
    const proxy = await startProxy();
    try {
      // undici reads the lower-case variable first, so both are set.
      const result = await runAt(server.url, [], {
        HTTP_PROXY: proxy.url,
        http_proxy: proxy.url,
        NO_PROXY: '',
        no_proxy: '',
      });
      expect(result.code).toBe(0);
      expect(proxy.tunnels.length).toBeGreaterThan(0);
      expect(proxy.tunnels.every((t) => t.endsWith(new URL(server.url).host))).toBe(true);
    } finally {
      await proxy.close();
    }
  });

  it('reaches an HTTPS target with a private CA through HTTPS_PROXY', async () => {
    const proxy = await startProxy();
    try {
      const result = await runAt(https.url, ['--ca-file', certificate.certFile], {
        HTTPS_PROXY: proxy.url,
        https_proxy: proxy.url,
        NO_PROXY: '',
        no_proxy: '',
      });
      expect(result.code).toBe(0);
      expect(proxy.tunnels).toContain(new URL(https.url).host);
    } finally {
      await proxy.close();
    }
  });
});
