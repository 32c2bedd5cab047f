/**
 * Issue 43, first part: a HAR capture read as untrusted input (src/traffic/har.ts). Every secret
 * of the captured clients is learnt from the capture itself and removed from every field, echoes
 * in earlier entries included; the parse is bounded; a file that is no capture is one line.
 */
import { execFileSync } from 'node:child_process';
import { truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Redactor } from '../src/core/redact.js';
import { UsageError } from '../src/core/errors.js';
import { endpointOf } from '../src/traffic/endpoints.js';
import { jsonDepth, redactCaptured } from '../src/traffic/capture.js';
import { readHar } from '../src/traffic/har.js';
import { runAgainst, tempDir } from './support/harness.js';

const CLIENT_ID = 'captured-client';
const SECRET = 'a captured secret: +%&=/';
const TOKEN = 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJjYXB0dXJlZCJ9.c2lnbmF0dXJl';
const COOKIE = 'session-7f3a9c1e5b2d4f6a';
const form = (s: string): string => encodeURIComponent(s).replace(/%20/g, '+');
const BASIC = Buffer.from(`${form(CLIENT_ID)}:${form(SECRET)}`).toString('base64');

const entry = (
  method: string,
  url: string,
  request: { headers?: [string, string][]; body?: string },
  status: number,
  response: { headers?: [string, string][]; body?: string } = {},
): unknown => ({
  startedDateTime: '2026-11-29T10:00:00.000Z',
  request: {
    method,
    url,
    headers: (request.headers ?? []).map(([name, value]) => ({ name, value })),
    ...(request.body !== undefined
      ? { postData: { mimeType: 'application/x-www-form-urlencoded', text: request.body } }
      : {}),
  },
  response: {
    status,
    headers: (response.headers ?? []).map(([name, value]) => ({ name, value })),
    content: { mimeType: 'application/json', text: response.body ?? '' },
  },
});

async function capture(entries: unknown[]): Promise<string> {
  const file = join(await tempDir('carrier-har-'), 'capture.har');
  await writeFile(file, JSON.stringify({ log: { version: '1.2', creator: { name: 'test', version: '1' }, entries } }));
  return file;
}

describe('a HAR capture, redacted as it is read', () => {
  it('learns every secret from the capture and removes it everywhere, echoes in earlier entries too', async () => {
    const file = await capture([
      // Before the token is issued, a server echoes it (as a later one would) and the secret.
      entry('GET', 'https://api.example.com/users/me', { headers: [['Accept-Version', '1']] }, 500, {
        body: `{"debug":"${TOKEN} ${SECRET}"}`,
      }),
      entry(
        'POST',
        'https://api.example.com/uaa/oauth2/token',
        {
          headers: [
            ['Authorization', `Basic ${BASIC}`],
            ['Accept-Version', '1'],
          ],
          body: 'grant_type=client_credentials',
        },
        200,
        {
          headers: [['Cache-Control', 'no-store']],
          body: `{"access_token":"${TOKEN}","token_type":"bearer","expires_in":3600}`,
        },
      ),
      entry(
        'POST',
        'https://api.example.com/uaa/oauth2/token',
        { body: `grant_type=client_credentials&client_id=${CLIENT_ID}&client_secret=${form(SECRET)}` },
        200,
        { body: `{"access_token":"${TOKEN}-2","token_type":"bearer","expires_in":3600}` },
      ),
      entry(
        'GET',
        `https://${CLIENT_ID}:${encodeURIComponent(SECRET)}@api.example.com/tenants/t1/shipments?access_token=${TOKEN}`,
        {
          headers: [
            ['Authorization', `Bearer ${TOKEN}`],
            ['Cookie', `sid=${COOKIE}`],
            ['Accept-Version', '1'],
          ],
        },
        200,
        { headers: [['Set-Cookie', `sid=${COOKIE}; HttpOnly`]], body: '[]' },
      ),
    ]);
    const redactor = new Redactor();
    // What a report may hold of them: redacted with every secret the whole capture revealed.
    const exchanges = readHar(file, redactor).map((e) => redactCaptured(e, redactor));
    expect(exchanges).toHaveLength(4);
    const everything = JSON.stringify(exchanges);
    for (const secret of [SECRET, form(SECRET), encodeURIComponent(SECRET), BASIC, TOKEN, COOKIE])
      expect(everything, secret).not.toContain(secret);
    expect(exchanges[3]?.url).toBe('https://api.example.com/tenants/t1/shipments?access_token=[REDACTED:access-token]');
    expect(exchanges[3]?.request.headers).toContainEqual(['Authorization', 'Bearer [REDACTED:access-token]']);
    // A sensitive field is emptied whole by name (Redactor.redactBody), as in a run's reports.
    expect(exchanges[1]?.response?.body).toBe('{"access_token":"[REDACTED]","token_type":"bearer","expires_in":3600}');
    // What is not a secret is kept as the capture has it: the judge needs it.
    expect(exchanges[1]?.response?.headers).toEqual([['Cache-Control', 'no-store']]);
    expect(exchanges.map((e) => [e.index, e.method, e.response?.status])).toEqual([
      [0, 'GET', 500],
      [1, 'POST', 200],
      [2, 'POST', 200],
      [3, 'GET', 200],
    ]);
  });

  it("reads the harness's own --reporter har: every exchange of a run against the reference server", async () => {
    const run = await runAgainst({ tokenTtlSeconds: 60 }, [
      '--suite',
      'user',
      '--suite',
      'tenant',
      '--reporter',
      '+har',
    ]);
    const exchanges = readHar(join(run.reportsDir, 'report.har'), new Redactor());
    expect(exchanges.length).toBeGreaterThan(10);
    expect(exchanges.every((e) => e.response !== undefined && /^http:\/\/127\.0\.0\.1:\d+\//.test(e.url))).toBe(true);
    expect(exchanges.some((e) => e.url.endsWith('/users/me'))).toBe(true);
    // Every exchange the run made is one of the spec's endpoints, by its own paths.
    const labels = new Set(exchanges.map((e) => endpointOf(e.method, e.url)?.label ?? `unknown ${e.method} ${e.url}`));
    expect([...labels].filter((l) => l.startsWith('unknown'))).toEqual([]);
    expect(labels).toContain('GET /users/me');
    expect(labels).toContain('POST /uaa/oauth2/token');
    expect(labels).toContain('GET /tenants/{tenantId}/shipments');
  });
});

describe('a file that is no capture: one line, before anything is judged', () => {
  const refused = (run: () => unknown): string => {
    try {
      run();
    } catch (err) {
      expect(err).toBeInstanceOf(UsageError);
      return (err as Error).message;
    }
    throw new Error('not refused');
  };

  it('not JSON, not a HAR, an entry that is none', async () => {
    const dir = await tempDir('carrier-har-');
    await writeFile(join(dir, 'a.har'), '<html>');
    await writeFile(join(dir, 'b.har'), '{"entries":[]}');
    await writeFile(join(dir, 'c.har'), '{"log":{"entries":[{"request":{}}]}}');
    expect(refused(() => readHar(join(dir, 'a.har'), new Redactor()))).toMatch(
      /: not JSON \(.*\), which a HAR 1\.2 file is$/,
    );
    expect(refused(() => readHar(join(dir, 'b.har'), new Redactor()))).toMatch(
      /: not a HAR 1\.2 file \(no log\.entries array\)$/,
    );
    expect(refused(() => readHar(join(dir, 'c.har'), new Redactor()))).toMatch(/: entry 1 is not a HAR entry/);
  });

  it('nesting a parser would recurse into, a FIFO, a file larger than a capture can be', async () => {
    const dir = await tempDir('carrier-har-');
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(jsonDepth(deep)).toBe(100_000);
    expect(jsonDepth('{"a":"[[[[{{{{"}')).toBe(1);
    await writeFile(join(dir, 'deep.har'), deep);
    expect(refused(() => readHar(join(dir, 'deep.har'), new Redactor()))).toMatch(
      /: nested 100000 deep, more than a HAR can be$/,
    );
    execFileSync('mkfifo', [join(dir, 'fifo.har')]);
    expect(refused(() => readHar(join(dir, 'fifo.har'), new Redactor()))).toMatch(/cannot read it \(it is a FIFO\)$/);
    await writeFile(join(dir, 'huge.har'), '');
    await truncate(join(dir, 'huge.har'), 600 * 1024 * 1024);
    expect(refused(() => readHar(join(dir, 'huge.har'), new Redactor()))).toMatch(
      /: 629145600 bytes, more than the 536870912 a HAR capture can be; is it the right file\?$/,
    );
  });
});

describe("an exchange's endpoint, by the spec's paths", () => {
  it.each([
    ['POST', 'https://gw.example.com/api/uaa/oauth2/token', 'POST /uaa/oauth2/token', '/api', false],
    ['POST', 'https://gw.example.com/uaa/oauth/token', 'POST /uaa/oauth/token', '', true],
    ['GET', 'https://gw.example.com/api/users/me/', 'GET /users/me', '/api', false],
    ['GET', 'https://gw.example.com/uaa/userinfo', 'GET /uaa/userinfo', '', true],
    [
      'GET',
      'https://gw.example.com/tenants/5e0c3b8a-1f2d-4a6b-8c9d-0e1f2a3b4c5d/shipments/9319db14-b2dc-48bc-b478-000000000001?x=1',
      'GET /tenants/{tenantId}/shipments/{id}',
      '',
      false,
    ],
    [
      'GET',
      'https://gw.example.com/v2/tenants/acme/invoices/42/lines',
      'GET /tenants/{tenantId}/invoices/{id}/lines',
      '/v2',
      false,
    ],
  ] as const)('%s %s is %s', (method, url, label, prefix, legacy) => {
    expect(endpointOf(method, url)).toMatchObject({ label, prefix, legacy });
  });

  it('a request to no endpoint of the spec is none', () => {
    expect(endpointOf('GET', 'https://gw.example.com/health')).toBeUndefined();
    expect(endpointOf('GET', 'not a url')).toBeUndefined();
  });
});
