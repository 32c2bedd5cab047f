/**
 * Issue 43: the kinds of capture `traffic` reads besides a HAR, and what it does with a hostile
 * one. The same client session is judged from a HAR, from NDJSON, from Kong's records and from a
 * real nginx's JSON access log written by the log_format docs/traffic.md gives (so the documented
 * format is the tested one); a hostile capture is judged without a secret, an escape or a CI
 * command reaching the console or a report; --deadline stops a long one.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunReport } from '../src/model/run-report.js';
import { startReferenceServer } from '../src/reference/index.js';
import { recordClientSession } from './support/client-session.js';
import { haveGateway, startGateway } from './support/gateways.js';
import { runMain, tempDir } from './support/harness.js';

const IN_CI = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';

interface HarEntry {
  startedDateTime: string;
  request: { method: string; url: string; headers: { name: string; value: string }[]; postData?: { text: string } };
  response: { status: number; headers: { name: string; value: string }[]; content: { text?: string } };
}

async function sessionHar(faults: string[] = []): Promise<{ har: string; entries: HarEntry[] }> {
  const server = await startReferenceServer({ faults });
  const har = join(await tempDir('carrier-captures-'), 'session.har');
  try {
    await recordClientSession(server, har);
  } finally {
    await server.close();
  }
  const entries = (JSON.parse(await readFile(har, 'utf8')) as { log: { entries: HarEntry[] } }).log.entries;
  return { har, entries };
}

/** `name → value or values`, lower-cased names, as Kong and the NDJSON record write headers. */
function headerObject(list: readonly { name: string; value: string }[]): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const { name, value } of list) {
    const key = name.toLowerCase();
    const known = out[key];
    out[key] = known === undefined ? value : [...(Array.isArray(known) ? known : [known]), value];
  }
  return out;
}

async function traffic(
  file: string,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string; report: RunReport; dir: string }> {
  const dir = await tempDir();
  const result = await runMain(['traffic', file, '--reports-dir', dir, ...args]);
  const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as RunReport;
  return { ...result, report, dir };
}

const statuses = (report: RunReport): Record<string, string> =>
  Object.fromEntries(report.checks.map((c) => [c.id, c.status]));

describe('the same traffic from each kind of capture', () => {
  it('NDJSON judges as the HAR does; Kong records, without bodies, judge what headers show', async () => {
    const { har, entries } = await sessionHar(['no-pragma', 'version-missing-accepted']);
    const fromHar = await traffic(har);
    expect(fromHar.code).toBe(1);
    expect(statuses(fromHar.report)).toMatchObject({ 'TOKEN-PRAGMA': 'warning', 'VERSION-MISSING': 'failed' });

    const dir = await tempDir();
    const ndjson = join(dir, 'session.ndjson');
    await writeFile(
      ndjson,
      entries
        .map((e) =>
          JSON.stringify({
            startedAt: e.startedDateTime,
            request: {
              method: e.request.method,
              url: e.request.url,
              headers: headerObject(e.request.headers),
              ...(e.request.postData ? { body: e.request.postData.text } : {}),
            },
            response: {
              status: e.response.status,
              headers: headerObject(e.response.headers),
              body: e.response.content.text ?? '',
            },
          }),
        )
        .join('\n'),
    );
    const fromNdjson = await traffic(ndjson);
    expect(statuses(fromNdjson.report)).toEqual(statuses(fromHar.report));
    expect(fromNdjson.report.traffic?.captures[0]?.format).toBe('ndjson');
    expect(fromNdjson.stdout).toMatch(/\(session\.ndjson line \d+, 20/);

    const kong = join(dir, 'kong.log');
    await writeFile(
      kong,
      entries
        .map((e) =>
          JSON.stringify({
            request: { method: e.request.method, url: e.request.url, headers: headerObject(e.request.headers) },
            response: { status: e.response.status, headers: headerObject(e.response.headers) },
            started_at: Date.parse(e.startedDateTime),
            client_ip: '127.0.0.1',
          }),
        )
        .join('\n'),
    );
    const fromKong = await traffic(kong);
    expect(fromKong.report.traffic?.captures[0]?.format).toBe('kong');
    expect(fromKong.code).toBe(1);
    const kongStatuses = statuses(fromKong.report);
    expect(kongStatuses).toMatchObject({
      'TOKEN-PRAGMA': 'skipped',
      'VERSION-MISSING': 'failed',
      'AUTH-MISSING': 'passed',
      'PAGE-HEADERS': 'passed',
      'LINK-NEXT': 'passed',
      'TOKEN-ACCESS-TOKEN': 'skipped',
      'USER-SCHEMA': 'skipped',
    });
    // No body: the token response is not even known to be one, so its header checks are not observed either.
    expect(fromKong.report.traffic?.limits.join(' ')).toMatch(/hold no body/);
    expect(fromKong.stdout).toMatch(/hold no body/);
  });

  const nginx = haveGateway('nginx');
  it.skipIf(!nginx && !IN_CI)(
    `a real nginx's JSON access log, written by the log_format of docs/traffic.md${nginx ? '' : ' (skipped: no nginx; apt-get install nginx-light)'}`,
    async () => {
      expect(nginx, 'CI is set but there is no nginx: the CI script must install it').toBe(true);
      const doc = await readFile(new URL('../docs/traffic.md', import.meta.url), 'utf8');
      const snippet = /<!-- nginx-log-format[^>]*-->\n```nginx\n([\s\S]*?)```/.exec(doc)?.[1];
      expect(snippet).toBeDefined();
      for (const faults of [[], ['version-missing-accepted', 'no-total-pages']]) {
        const server = await startReferenceServer({ faults });
        const logDir = await tempDir('carrier-nginx-log-');
        const log = join(logDir, 'carrier.ndjson');
        const gateway = await startGateway({
          kind: 'nginx',
          upstream: server.url,
          tls: false,
          nginxExtra: { http: snippet ?? '', server: `    access_log ${log} carrier;` },
        });
        try {
          await recordClientSession({ ...server, url: gateway.url }, join(logDir, 'session.har'));
        } finally {
          await gateway.close();
          await server.close();
        }
        const judged = await traffic(log);
        const s = statuses(judged.report);
        expect(judged.report.traffic?.captures[0]?.format).toBe('nginx');
        // Headers it logs: judged; bodies it cannot log, and (nginx 1.22) the fields a server may repeat: not observed.
        expect(s).toMatchObject({
          'VERSION-INVALID': 'passed',
          'WRITE-VERSION-MISSING': 'passed',
          'LEGACY-NO-REDIRECT': 'passed',
        });
        // A 401's challenge is one of those fields: AUTH-MISSING judges a 401 by it, so it is not observed either.
        expect(s).toMatchObject({
          'TOKEN-ACCESS-TOKEN': 'skipped',
          'NULLS-SAME-FIELDS': 'skipped',
          'TOKEN-NO-STORE': 'skipped',
          'LINK-NEXT': 'skipped',
          'AUTH-MISSING': 'skipped',
        });
        if (faults.length === 0) {
          expect(judged.code, judged.stdout).toBe(0);
          expect(s).toMatchObject({ 'VERSION-MISSING': 'passed', 'PAGE-HEADERS': 'passed', 'PAGE-TOTALS': 'passed' });
        } else {
          expect(judged.code).toBe(1);
          expect(s).toMatchObject({ 'VERSION-MISSING': 'failed', 'PAGE-HEADERS': 'failed' });
        }
        // The log holds the scheme of Authorization, never the credentials.
        const raw = await readFile(log, 'utf8');
        expect(raw).toContain('"authorization":"Bearer"');
        expect(raw).not.toContain(server.clientSecret);
      }
    },
    60_000,
  );
});

describe("a new user's capture, as they write one", () => {
  const me = (origin: string, extra: Record<string, unknown> = {}): string =>
    JSON.stringify({
      startedAt: '2026-11-29T10:00:00Z',
      durationMs: null,
      request: {
        method: 'GET',
        url: `${origin}/users/me`,
        headers: { 'accept-version': '1', authorization: 'Bearer t' },
        body: null,
      },
      response: {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: '{"id":"0b6f3c1e-2d4a-4c5e-9f10-3a2b1c0d9e8f","name":null,"email":null,"tenants":[]}',
      },
      ...extra,
    });

  it('null is a field not filled; two origins are both named; RESOURCE-* say no document was given', async () => {
    const dir = await tempDir();
    const file = join(dir, 'client.ndjson');
    await writeFile(file, [me('https://a.example.com'), me('https://b.example.com')].join('\n'));
    const judged = await traffic(file);
    expect(judged.code, judged.stdout + judged.stderr).toBe(0);
    expect(judged.report.traffic?.exchanges).toBe(2);
    expect(statuses(judged.report)).toMatchObject({ 'USER-SCHEMA': 'passed', 'USER-FIELDS-PRESENT': 'passed' });
    expect(judged.report.target.baseUrl).toBe('https://a.example.com and 1 other (traffic.origins)');
    expect(judged.report.traffic?.origins).toEqual(['https://a.example.com', 'https://b.example.com']);
    expect(judged.report.checks.find((c) => c.id === 'RESOURCE-SCHEMA')?.message).toBe(
      'not judged: no --openapi document was given, whose schemas would judge the bodies',
    );
    // A line of another shape names the field.
    await writeFile(
      file,
      [me('https://a.example.com'), me('https://a.example.com', { request: { method: 'GET', url: 7 } })].join('\n'),
    );
    expect((await traffic(file)).report.traffic?.limits).toEqual([
      expect.stringContaining(
        '1 line was no exchange record, not judged (line 2: not an exchange record (request.url: ',
      ),
    ]);
  });

  it('diff of two days: a check the quieter day did not observe is no regression; a new failure is', async () => {
    const dir = await tempDir();
    const [busy, quiet, broken] = ['busy', 'quiet', 'broken'].map((n) => join(dir, `${n}.ndjson`));
    const unversioned = (status: number): string =>
      JSON.stringify({
        request: { method: 'GET', url: 'https://a.example.com/users/me', headers: { authorization: 'Bearer t' } },
        response: { status, headers: {} },
      });
    await writeFile(busy as string, [me('https://a.example.com'), unversioned(400)].join('\n'));
    await writeFile(quiet as string, me('https://a.example.com'));
    await writeFile(broken as string, [me('https://a.example.com'), unversioned(200)].join('\n'));
    const [b, q, x] = await Promise.all([traffic(busy as string), traffic(quiet as string), traffic(broken as string)]);
    const quieter = await runMain(['diff', join(b.dir, 'report.json'), join(q.dir, 'report.json')]);
    expect(quieter.code, quieter.stdout).toBe(0);
    expect(quieter.stdout).toContain('not observed in NEW');
    const worse = await runMain(['diff', join(b.dir, 'report.json'), join(x.dir, 'report.json')]);
    expect(worse.code).toBe(1);
    expect(worse.stdout).toMatch(/REGRESSED \(1\)[\s\S]*VERSION-MISSING/);
  });

  it('bad options and a URL are one line each, in the words of the value given', async () => {
    const deadline = await runMain(['traffic', 'x.har', '--deadline', '1ms']);
    expect(deadline.code).toBe(2);
    expect(deadline.stderr).toContain('--deadline "1ms": give a number of seconds above 0');
    // --deadline stops the reading of the --openapi document too (a hostile one may parse long).
    const dir = await tempDir();
    await writeFile(join(dir, 'c.ndjson'), me('https://a.example.com'));
    const server = await startReferenceServer();
    await server.close();
    const slow = await runMain([
      'traffic',
      join(dir, 'c.ndjson'),
      '--openapi',
      server.openapiFile,
      '--deadline',
      '0.001',
    ]);
    expect(slow.code).toBe(3);
    expect(slow.stderr.trim()).toMatch(
      /^carrier-conformance: --deadline 0\.001 s passed while the --openapi document .*openapi\.yaml was read$/,
    );
    const url = await runMain(['traffic', 'https://api.example.com/users/me']);
    expect(url.code).toBe(2);
    expect(url.stderr).toContain(
      'traffic takes a file: a capture of traffic (a HAR, an NDJSON file, a gateway log), never a request to send',
    );
  });
});

describe('what a conformant deployment may do in traffic', () => {
  it("a gateway's http → https redirect, before the API sees the request, is judged by no rule", async () => {
    const dir = await tempDir();
    const record = (path: string, headers: Record<string, string>, status: number, location?: string): string =>
      JSON.stringify({
        request: { method: 'GET', url: `http://api.example.com${path}`, headers },
        response: { status, headers: location === undefined ? {} : { location } },
      });
    const file = join(dir, 'redirects.ndjson');
    await writeFile(
      file,
      [
        record(
          '/uaa/userinfo',
          { 'accept-version': '1', authorization: 'Bearer t' },
          301,
          'https://api.example.com/uaa/userinfo',
        ),
        record('/users/me', { authorization: 'Bearer t' }, 308, 'https://api.example.com/users/me'),
        // A redirect of the legacy path to the current one is no rewrite: that one fails.
        record('/uaa/userinfo', { 'accept-version': '1', authorization: 'Bearer t' }, 308, '/users/me'),
      ].join('\n'),
    );
    const judged = await traffic(file);
    expect(statuses(judged.report)).toMatchObject({ 'LEGACY-NO-REDIRECT': 'failed', 'VERSION-MISSING': 'skipped' });
    const legacy = judged.report.checks.find((c) => c.id === 'LEGACY-NO-REDIRECT');
    expect(legacy?.findings.map((f) => f.message)).toEqual([
      expect.stringMatching(
        /^GET \/uaa\/userinfo: answered 308 \(a redirect to \/users\/me\); the gateway rewrites a legacy path, it does not redirect it \(redirects\.ndjson line 3\)$/,
      ),
    ]);
    expect(legacy?.notes).toEqual(['1 captured exchange judged']);
  });
});

describe('a hostile capture', () => {
  const SECRET = 'captured secret +%&=/ 2026';
  const TOKEN = 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJob3N0aWxlIn0.c2lnbmF0dXJlLWhvc3RpbGU';
  const COOKIE = 'session-a1b2c3d4e5f6a7b8c9d0';
  const form = (s: string): string => encodeURIComponent(s).replace(/%20/g, '+');
  const BASIC = Buffer.from(`client:${form(SECRET)}`).toString('base64');
  const ESCAPES =
    '\u001b[31mRED\u001b]8;;http://evil.example\u0007\n::error file=x::pwned\n##vso[task.setvariable variable=x]1\r##[error]';

  it('is judged, and no secret, escape or CI command of it reaches the console or a report', async () => {
    const dir = await tempDir();
    const header = (name: string, value: string): { name: string; value: string } => ({ name, value });
    const entries = [
      {
        startedDateTime: ESCAPES,
        request: {
          method: 'POST',
          url: `https://client:${encodeURIComponent(SECRET)}@api.example.com/uaa/oauth2/token?access_token=${TOKEN}`,
          headers: [
            header('Authorization', `Basic ${BASIC}`),
            header('Cookie', `sid=${COOKIE}`),
            header('Accept-Version', '1'),
          ],
          postData: { text: `grant_type=client_credentials&client_id=client&client_secret=${form(SECRET)}` },
        },
        // No Pragma, a Cache-Control full of escapes: two findings that cite this very exchange.
        response: {
          status: 200,
          headers: [
            header('Content-Type', 'application/json'),
            header('Cache-Control', ESCAPES),
            header('Set-Cookie', `sid=${COOKIE}; HttpOnly`),
          ],
          content: {
            text: JSON.stringify({ access_token: TOKEN, token_type: ESCAPES, expires_in: 3600, echo: SECRET }),
          },
        },
      },
      {
        startedDateTime: '2026-11-29T10:00:00Z',
        request: {
          method: 'GET',
          url: `https://api.example.com/tenants/0b6f3c1e-2d4a-4c5e-9f10-3a2b1c0d9e8f/shipments?page=2&size=5`,
          headers: [header('Authorization', `Bearer ${TOKEN}`), header('Accept-Version', '1')],
        },
        // A page whose Link and headers carry escapes and CI commands, and whose body nests 100,000 deep.
        response: {
          status: 200,
          headers: [
            header('Total-Pages', ESCAPES),
            header('Link', `<https://api.example.com/x?page=3>; rel="next", ${ESCAPES}`),
            header(ESCAPES.replace(/\n|\r/g, ''), 'x'),
          ],
          content: { text: `${'['.repeat(100_000)}${']'.repeat(100_000)}` },
        },
      },
      {
        startedDateTime: '2026-11-29T10:00:01Z',
        request: {
          method: 'GET',
          url: 'https://api.example.com/users/me',
          headers: [header('Authorization', `Bearer ${TOKEN}`), header('Accept-Version', '1')],
        },
        response: {
          status: 200,
          headers: [header('Content-Type', 'application/json')],
          content: { text: `{"id": ${'['.repeat(100_000)}` },
        },
      },
    ];
    const file = join(dir, 'hostile.har');
    await writeFile(file, JSON.stringify({ log: { version: '1.2', entries } }));
    const judged = await traffic(file);
    expect(judged.code).toBe(1);
    expect(statuses(judged.report)).toMatchObject({
      'TOKEN-TYPE': 'failed',
      'TOKEN-NO-STORE': 'failed',
      'PAGE-HEADERS': 'failed',
    });

    const written = await Promise.all(
      ['report.json', 'junit.xml', 'report.html', 'traffic.sarif'].map((f) => readFile(join(judged.dir, f), 'utf8')),
    );
    for (const text of [judged.stdout, judged.stderr, ...written]) {
      for (const secret of [SECRET, form(SECRET), encodeURIComponent(SECRET), BASIC, TOKEN, COOKIE])
        expect(text).not.toContain(secret);
      expect(text).not.toContain('\u001b');
      expect(text).not.toContain('\u0007');
    }
    for (const text of [judged.stdout, judged.stderr])
      for (const line of text.split(/\r?\n|\r/)) expect(line.trimStart()).not.toMatch(/^(::|##\[|##vso\[)/);
  });

  it('a capture of 1,200 different endpoints (a scan): the first 1,000 judged, the rest counted', async () => {
    const dir = await tempDir();
    const file = join(dir, 'scan.ndjson');
    const line = (i: number): string =>
      JSON.stringify({
        request: {
          method: 'GET',
          url: `https://api.example.com/tenants/t/path-${i}`,
          headers: { 'accept-version': '1' },
        },
        response: { status: 401, headers: { 'www-authenticate': 'Bearer realm="api"' } },
      });
    await writeFile(file, Array.from({ length: 1200 }, (_, i) => line(i)).join('\n'));
    const judged = await traffic(file);
    expect(judged.report.traffic?.endpoints).toHaveLength(1000);
    expect(judged.report.traffic?.matched).toBe(1000);
    expect(judged.report.traffic?.limits).toContain(
      '200 exchanges to endpoints past the first 1000 were not judged (a capture of that many endpoints is a scan, or another API)',
    );
    expect(judged.report.checks.find((c) => c.id === 'AUTH-MISSING')?.endpoints).toHaveLength(1000);
  });

  it('a line too long or nested too deep is counted and named, the rest judged; --deadline stops a long capture', async () => {
    const dir = await tempDir();
    const record = (status: number): string =>
      JSON.stringify({
        request: {
          method: 'GET',
          url: 'https://api.example.com/users/me',
          headers: { 'accept-version': '1', authorization: 'Bearer x' },
        },
        response: {
          status,
          headers: { 'content-type': 'application/json' },
          body: '{"id":null,"name":null,"email":null,"tenants":[]}',
        },
      });
    const file = join(dir, 'mixed.ndjson');
    await writeFile(
      file,
      [record(200), 'x'.repeat(17 * 1024 * 1024), `${'['.repeat(100)}${']'.repeat(100)}`, record(200)].join('\n'),
    );
    const judged = await traffic(file);
    expect(judged.report.traffic?.exchanges).toBe(2);
    expect(judged.report.traffic?.limits.join(' ')).toMatch(
      /2 lines were no exchange record, not judged \(line 2: longer than 16777216 bytes; line 3: nested 100 deep/,
    );

    const long = join(dir, 'long.ndjson');
    await writeFile(long, `${Array.from({ length: 300_000 }, () => record(200)).join('\n')}\n`);
    const started = Date.now();
    const stopped = await traffic(long, '--deadline', '0.3');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(stopped.code).toBe(3);
    expect(stopped.report.verdict).toBe('incomplete');
    expect(stopped.stderr).toMatch(/--deadline 0\.3 s passed: judging stopped after \d+ exchanges/);
    expect(stopped.report.traffic?.exchanges).toBeLessThan(300_000);
  });
});
