/**
 * Issue 43: "a HAR recorded by headless Chromium from a page that calls the API ... is judged".
 * The capture is a browser's own (test/support/chromium-har.ts), of the reference server on
 * loopback: it reads, its exchanges are the page's, the token response's checks pass on it, and
 * nothing read from it holds the client's secret, its Basic credentials or the token issued.
 */
import { BROWSER_TIMEOUT_MS, HAVE_CHROMIUM, NO_CHROMIUM_IN_CI, browserTest } from './support/chromium.js';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Redactor } from '../src/core/redact.js';
import { startReferenceServer, type ReferenceServer } from '../src/reference/index.js';
import { endpointOf } from '../src/traffic/endpoints.js';
import { redactCaptured, type CapturedExchange } from '../src/traffic/capture.js';
import { readHar } from '../src/traffic/har.js';
import { judgeTraffic } from '../src/traffic/judge.js';
import { recordChromiumHar } from './support/chromium-har.js';
import { tempDir } from './support/harness.js';

/* Chromium, as for report.html (test/html-report.test.ts): skipped without it locally, failed in CI. */

const header = (headers: readonly [string, string][], name: string): string | undefined =>
  headers.find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];

describe('a HAR recorded by headless Chromium from a page that calls the API', () => {
  let server: ReferenceServer | undefined;
  let dir: string | undefined;
  afterAll(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const { skip, name } = browserTest('reads, is judged, and holds no secret once read');

  it.skipIf(skip)(
    name,
    async () => {
      expect(HAVE_CHROMIUM, NO_CHROMIUM_IN_CI).toBe(true);
      server = await startReferenceServer({ host: '127.0.0.1', tokenTtlSeconds: 60 });
      dir = await tempDir('carrier-chromium-har-');
      const harPath = join(dir, 'chromium.har');
      const listPath = server.pagedPaths[0] ?? 'shipments';
      await recordChromiumHar({
        baseUrl: server.url,
        clientId: server.clientId,
        clientSecret: server.clientSecret,
        tenantId: server.tenantId,
        listPath,
        harPath,
      });

      // The raw capture legitimately holds the token the page was issued: that is what must not survive reading.
      const raw = JSON.parse(await readFile(harPath, 'utf8')) as {
        log: {
          version: string;
          entries: { request: { url: string; method: string }; response: { content: { text?: string } } }[];
        };
      };
      expect(raw.log.version).toBe('1.2');
      const tokenEntry = raw.log.entries.find(
        (e) => e.request.method === 'POST' && new URL(e.request.url).pathname === '/uaa/oauth2/token',
      );
      const accessToken = (JSON.parse(tokenEntry?.response.content.text ?? '{}') as { access_token?: string })
        .access_token;
      expect(typeof accessToken).toBe('string');
      expect(server.issuedTokens()).toContain(accessToken);

      const redactor = new Redactor();
      // As a report may hold them: redacted with every secret the capture revealed.
      const exchanges = readHar(harPath, redactor).map((e) => redactCaptured(e, redactor));
      const origin = server.url;
      const at = (method: string, pathAndQuery: string): CapturedExchange[] =>
        exchanges.filter((e) => e.method === method && e.url === `${origin}${pathAndQuery}`);

      // Every exchange is the page's, on the API's own origin: no preflight (same-origin), nothing else.
      expect(exchanges.every((e) => e.url.startsWith(`${origin}/`))).toBe(true);
      expect(exchanges.filter((e) => e.method === 'OPTIONS')).toEqual([]);

      const [token, ...moreTokens] = at('POST', '/uaa/oauth2/token');
      expect(moreTokens).toEqual([]);
      expect(token?.response?.status).toBe(200);
      expect(header(token?.request.headers ?? [], 'authorization')).toBe('Basic [REDACTED:basic-credentials]');
      expect(token?.request.body).toBe('grant_type=client_credentials');

      const me = at('GET', '/users/me');
      const versioned = me.filter((e) => header(e.request.headers, 'accept-version') === '1');
      expect(versioned.map((e) => e.response?.status)).toEqual([200]);
      expect(header(versioned[0]?.request.headers ?? [], 'authorization')).toBe('Bearer [REDACTED:access-token]');
      // The fetch without Accept-Version (it carries the token) and the page's own navigation: 400 both.
      const unversioned = me.filter((e) => header(e.request.headers, 'accept-version') === undefined);
      expect(unversioned.map((e) => e.response?.status)).toEqual([400, 400]);
      expect(unversioned.filter((e) => header(e.request.headers, 'authorization') !== undefined)).toHaveLength(1);

      const list = `/tenants/${encodeURIComponent(server.tenantId)}/${listPath}`;
      for (const page of [1, 2]) {
        const [exchange] = at('GET', `${list}?page=${page}&size=2`);
        expect(exchange?.response?.status, `page ${page}`).toBe(200);
        expect(endpointOf('GET', exchange?.url ?? '')?.label).toBe(`GET /tenants/{tenantId}/${listPath}`);
      }
      expect(at('GET', '/uaa/userinfo').map((e) => e.response?.status)).toEqual([200]);

      // What a browser's capture shows is judged as any capture is: nothing fails, and what its
      // requests exercise is observed (the page's own navigation, without Accept-Version, included).
      const results = judgeTraffic(exchanges);
      expect(results.filter((r) => r.status === 'failed').map((r) => r.id)).toEqual([]);
      const observed = results.filter((r) => r.status === 'passed').map((r) => r.id);
      for (const id of [
        'TOKEN-ISSUE',
        'TOKEN-ACCESS-TOKEN',
        'TOKEN-NO-STORE',
        'USER-SCHEMA',
        'USER-FIELDS-PRESENT',
        'VERSION-MISSING',
        'LEGACY-NO-REDIRECT',
        'PAGE-HEADERS',
        'PAGE-ECHO',
        'LINK-NEXT',
        'NULLS-SAME-FIELDS',
      ])
        expect(observed, id).toContain(id);

      const form = (s: string): string => encodeURIComponent(s).replace(/%20/g, '+');
      const basic = Buffer.from(`${form(server.clientId)}:${form(server.clientSecret)}`).toString('base64');
      const everything = JSON.stringify(exchanges);
      for (const secret of [server.clientSecret, form(server.clientSecret), basic, accessToken ?? 'no token'])
        expect(everything, secret).not.toContain(secret);
    },
    3 * BROWSER_TIMEOUT_MS,
  );
});
