/**
 * One cause, reported once, and never a pass for what was not exercised: a mistyped secret is a
 * configuration error (exit 2), a token server whose tokens the API refuses makes the expiry and
 * tenant-isolation checks errors that name the cause (not passes, not failures of their rules),
 * a server that does not form-decode the Basic credentials is one warning, and a target that
 * answers the token endpoint but hangs on /users/me is tested, not declared unreachable.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { groupByCause } from '../src/report/causes.js';
import { renderHtmlReport } from '../src/report/html.js';
import { renderMarkdownSummary } from '../src/report/markdown.js';
import type { RunReport } from '../src/model/run-report.js';
import { startReferenceServer, type ReferenceOptions, type ReferenceServer } from '../src/reference/index.js';
import { listArgs, runAgainst, runMain, tempDir, targetArgs, type CliResult } from './support/harness.js';
import { forward, startHostile, type ForwardedHeaders } from './support/hostile.js';
import { onLoopback, closeServer } from './support/loopback.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

async function server(options: ReferenceOptions = {}): Promise<ReferenceServer> {
  const s = await startReferenceServer(options);
  cleanup.push(() => s.close());
  return s;
}

/** Runs the harness with `secret` in CARRIER_CLIENT_SECRET; the report when one was written. */
async function run(secret: string, args: string[]): Promise<CliResult & { report?: RunReport }> {
  const reportsDir = await tempDir();
  process.env.CARRIER_CLIENT_SECRET = secret;
  try {
    const result = await runMain(['run', '--reports-dir', reportsDir, ...args]);
    const report = await readFile(join(reportsDir, 'report.json'), 'utf8').then(
      (text) => JSON.parse(text) as RunReport,
      () => undefined,
    );
    return { ...result, ...(report ? { report } : {}) };
  } finally {
    delete process.env.CARRIER_CLIENT_SECRET;
  }
}

const statuses = (report: RunReport | undefined): Record<string, string> =>
  Object.fromEntries((report?.checks ?? []).map((c) => [c.id, c.status]));
const message = (report: RunReport | undefined, id: string): string =>
  report?.checks.find((c) => c.id === id)?.message ?? '';

describe('a refused client credential', () => {
  it('is a configuration error: one line naming the options to check, exit 2, not seven MUST failures', async () => {
    const target = await server();
    const result = await run(`${target.clientSecret}-typo`, targetArgs(target));

    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      `carrier-conformance: the token endpoint ${target.url}/uaa/oauth2/token refused the configured client credentials (401 invalid_client): check --client-id (CARRIER_CLIENT_ID) and the client secret (CARRIER_CLIENT_SECRET or --client-secret-file)`,
    ]);
    // Its reports, marked incomplete with the same exit code, replace the last run's: a CI job
    // that publishes them whatever the outcome must not publish an older, green run.
    expect(result.report?.verdict).toBe('incomplete');
    expect(result.report?.exitCode).toBe(2);
    expect(result.report?.incompleteReason).toMatch(/refused the configured client credentials \(401 invalid_client\)/);
    expect(result.stdout).toMatch(/^Reports: .*report\.json/m);
  });

  it("replaces the last run's reports", async () => {
    const target = await server();
    const reportsDir = await tempDir();
    await writeFile(join(reportsDir, 'junit.xml'), '<testsuites tests="1" failures="0"/>');
    process.env.CARRIER_CLIENT_SECRET = `${target.clientSecret}-typo`;
    try {
      expect((await runMain(['run', '--reports-dir', reportsDir, ...targetArgs(target)])).code).toBe(2);
    } finally {
      delete process.env.CARRIER_CLIENT_SECRET;
    }
    expect(await readFile(join(reportsDir, 'junit.xml'), 'utf8')).toMatch(/refused the configured client credentials/);
  });
});

describe('no API at the token endpoint', () => {
  /** A server that answers every request with `status` and a JSON body, as a gateway does. */
  async function answering(status: number): Promise<string> {
    const s = createServer((_req, res) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end('{"error":"x"}'),
    );
    await onLoopback(s);
    cleanup.push(() => closeServer(s));
    return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  }

  it("404 (a base URL without the gateway's prefix): a configuration error, one line that says where to look, exit 2", async () => {
    const base = await answering(404);
    const result = await run('x-secret', ['--base-url', base, '--client-id', 'c', '--paged-path', 'shipments']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      `carrier-conformance: nothing answers at the token endpoint ${base}/uaa/oauth2/token (404): check --base-url (a gateway's path prefix, such as /api, belongs in it) or --auth-url; or the deployment serves no token endpoint at /uaa/oauth2/token (spec §Obtain an access token)`,
    ]);
    expect(result.report?.exitCode).toBe(2);
  });

  it("401 with a Bearer challenge (a gateway for another API): the base URL's path, not the credentials, one line, exit 2", async () => {
    const s = createServer((_req, res) =>
      res
        .writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="billing-api"' })
        .end('{"message":"Unauthorized"}'),
    );
    await onLoopback(s);
    cleanup.push(() => closeServer(s));
    const base = `http://127.0.0.1:${(s.address() as AddressInfo).port}/billing`;
    const result = await run('x-secret', ['--base-url', base, '--client-id', 'c', '--paged-path', 'shipments']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      `carrier-conformance: the token endpoint ${base}/uaa/oauth2/token answered 401 with a Bearer challenge, not the Basic one of a token endpoint refusing client credentials (RFC 6749 §5.2): something else answers there, such as a gateway for another API: check the path of --base-url (a gateway's prefix missing or extra) or --auth-url, or the credentials the gateway itself wants (--header)`,
    ]);
  });

  it('a wrong /api prefix in front of the reference server (401 with a Bearer challenge and error "unauthorized", no token endpoint\'s code): the path, not the credentials (issue 42 item 4; before: "refused the configured client credentials")', async () => {
    const s = await server({ tokenTtlSeconds: 60 });
    const base = `${s.url}/api`;
    const result = await run(s.clientSecret, [
      '--base-url',
      base,
      '--client-id',
      s.clientId,
      '--paged-path',
      'shipments',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      `carrier-conformance: the token endpoint ${base}/uaa/oauth2/token answered 401 with a Bearer challenge, not the Basic one of a token endpoint refusing client credentials (RFC 6749 §5.2): something else answers there, such as a gateway for another API: check the path of --base-url (a gateway's prefix missing or extra) or --auth-url, or the credentials the gateway itself wants (--header)`,
    ]);
  });

  /** A server that answers every request with `status`, these headers and this body, as a gateway in front of the API does. */
  async function gateway(status: number, body: string, headers: Record<string, string> = {}): Promise<string> {
    const s = createServer((_req, res) =>
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(body),
    );
    cleanup.push(() => closeServer(s));
    return onLoopback(s);
  }

  it("401 without an OAuth error code (a gateway's own key missing: Azure API Management): its words quoted, --header and the path named, exit 2", async () => {
    const base = await gateway(
      401,
      '{ "statusCode": 401, "message": "Access denied due to missing subscription key. Make sure to include subscription key when making requests to an API." }',
    );
    const result = await run('x-secret', ['--base-url', base, '--client-id', 'c', '--paged-path', 'shipments']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      `carrier-conformance: the token endpoint ${base}/uaa/oauth2/token answered 401 without the error code a token endpoint gives every refusal (RFC 6749 §5.2), saying "{ "statusCode": 401, "message": "Access denied due to missing subscription key. Make sure to include subscription key when making requests to an API." }": if the client credentials are right (check --client-id (CARRIER_CLIENT_ID) and the client secret (CARRIER_CLIENT_SECRET or --client-secret-file)), something in front of it or in its place answers: check the credentials a gateway itself wants (--header) and the path of --base-url (a gateway's prefix missing or extra) or --auth-url`,
    ]);
    expect(result.report?.exitCode).toBe(2);
  });

  it('a server that answers 401 to every path (a wrong /api prefix): the path is named, not only the credentials', async () => {
    const base = `${await gateway(401, '', { 'www-authenticate': 'Basic realm="api"' })}/api`;
    const result = await run('x-secret', ['--base-url', base, '--client-id', 'c', '--paged-path', 'shipments']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `the token endpoint ${base}/uaa/oauth2/token answered 401 without the error code a token endpoint gives every refusal (RFC 6749 §5.2), with an empty body: `,
    );
    expect(result.stderr).toContain("the path of --base-url (a gateway's prefix missing or extra)");
  });

  it('403 without a token or an error code (AWS API Gateway on a path it does not route): the path, one line, exit 2, not a NON-CONFORMANT run', async () => {
    const base = await gateway(403, '{"message":"Missing Authentication Token"}');
    const result = await run('x-secret', ['--base-url', base, '--client-id', 'c', '--paged-path', 'shipments']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      `carrier-conformance: the token endpoint ${base}/uaa/oauth2/token answered 403 without a token or the error code a token endpoint gives every refusal (RFC 6749 §5.2), saying "{"message":"Missing Authentication Token"}": a gateway answers so for a path it does not route, or without the credentials it wants itself: check the path of --base-url (a gateway's path prefix, such as /api, belongs in it) or --auth-url, and --header`,
    ]);
    expect(result.report?.verdict).toBe('incomplete');
    expect(result.report?.exitCode).toBe(2);
  });

  it("the words of such an answer are cut, on one line, without a terminal's controls or a CI's commands", async () => {
    const base = await gateway(
      403,
      `{"message":"\u001b[2J\u001b]0;owned\u0007\n##vso[task.setvariable variable=x]1\n::error::fake ${'x'.repeat(400)}"}`,
    );
    const result = await run('x-secret', ['--base-url', base, '--client-id', 'c', '--paged-path', 'shipments']);
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    // No C0 control but tab, and no DEL: nothing a terminal acts on.
    expect([...(lines[0] ?? '')].filter((ch) => (ch < ' ' && ch !== '\t') || ch === '\u007f')).toEqual([]);
    expect(lines[0]).not.toContain('##vso[');
    expect(lines[0]).toMatch(/x…": a gateway answers so/);
  });

  it("GET /users/me 404 while the token endpoint issues tokens: the cause says the base URL's path may be wrong", async () => {
    const target = await server();
    const base = `${target.url}/gw`;
    const result = await run(target.clientSecret, [
      '--base-url',
      base,
      '--auth-url',
      target.url,
      '--client-id',
      target.clientId,
      '--paged-path',
      'shipments',
      '--check',
      'USER-OK',
      '--check',
      'TENANT-ACCESS',
    ]);
    const detail = result.report?.causes?.map((c) => c.detail).join('\n') ?? '';
    expect(detail).toContain(
      `GET /users/me answered 404 although the token endpoint issued a token: the path of --base-url may be wrong (a gateway's prefix missing or extra: ${base}/users/me is not there)`,
    );
  });

  it.each([502, 504])('%i (a gateway without its backend): not reachable, one line, exit 3', async (status) => {
    const base = await answering(status);
    const result = await run('x-secret', ['--base-url', base, '--client-id', 'c', '--paged-path', 'shipments']);
    expect(result.code).toBe(3);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(
      new RegExp(`cannot reach the token endpoint at ${base}/uaa/oauth2/token: it answered ${status} `),
    );
    expect(result.report?.verdict).toBe('incomplete');
  });
});

describe('a token endpoint that does not form-decode the Basic credentials (RFC 6749 §2.3.1)', () => {
  it('is one SHOULD warning; the rest of the battery runs with the credentials that work and passes', async () => {
    const target = await server({ faults: ['basic-credentials-not-form-decoded'], tokenTtlSeconds: 60 });
    const result = await run(target.clientSecret, [...targetArgs(target), '--max-expiry-wait', '0']);

    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /warning: the token endpoint refused the client credentials form-urlencoded as RFC 6749 §2\.3\.1 requires and accepted them as they are/,
    );
    const got = statuses(result.report);
    expect(got['TOKEN-CREDENTIALS-ENCODING']).toBe('warning');
    expect(message(result.report, 'TOKEN-CREDENTIALS-ENCODING')).toMatch(
      /does not form-decode the Basic user-id and password/,
    );
    // Expiry is not waited for here; the *-EXPECTED-VALUES checks need an --expectations file.
    const others = Object.entries(got).filter(
      ([id]) => id !== 'TOKEN-CREDENTIALS-ENCODING' && !id.endsWith('-EXPECTED-VALUES') && !id.startsWith('EXPIRY-'),
    );
    expect(others.filter(([, s]) => s !== 'passed')).toEqual([]);
    expect(result.report?.target.basicEncoding).toBe('raw');
  });

  it('is not tested, and says why, when the credentials have nothing form-encoding would change', async () => {
    const target = await server({ clientSecret: 'plain-Secret-2026' });
    const result = await run(target.clientSecret, [...targetArgs(target), '--check', 'TOKEN-CREDENTIALS-ENCODING']);
    expect(statuses(result.report)['TOKEN-CREDENTIALS-ENCODING']).toBe('skipped');
    expect(message(result.report, 'TOKEN-CREDENTIALS-ENCODING')).toMatch(
      /no character that RFC 6749 §2\.3\.1 form-encoding changes/,
    );
  });
});

describe('tokens from a token server the API does not accept (--auth-url elsewhere)', () => {
  /** Two reference servers: tokens of `auth` mean nothing to `api`. */
  async function mismatched(): Promise<{ args: string[]; secret: string }> {
    const api = await server({ tokenTtlSeconds: 2 });
    const auth = await server({ tokenTtlSeconds: 2 });
    return {
      args: [
        '--base-url',
        api.url,
        '--auth-url',
        auth.url,
        '--client-id',
        auth.clientId,
        '--tenant-id',
        api.tenantId,
        '--foreign-tenant-id',
        api.foreignTenantId,
        '--paged-path',
        'shipments',
      ],
      secret: auth.clientSecret,
    };
  }

  it('makes every expiry check an error that names the cause, never a pass: the token never worked', async () => {
    const { args, secret } = await mismatched();
    const result = await run(secret, [...args, '--suite', 'expiry']);

    expect(result.code).toBe(1);
    expect(statuses(result.report)).toEqual({
      'EXPIRY-VALID-BEFORE': 'error',
      'EXPIRY-REFUSED-AFTER': 'error',
      'EXPIRY-REFUSED-401': 'error',
      'EXPIRY-INVALID-TOKEN-ERROR': 'error',
      'EXPIRY-RENEW': 'error',
    });
    for (const id of [
      'EXPIRY-VALID-BEFORE',
      'EXPIRY-REFUSED-AFTER',
      'EXPIRY-REFUSED-401',
      'EXPIRY-INVALID-TOKEN-ERROR',
      'EXPIRY-RENEW',
    ]) {
      expect(message(result.report, id)).toMatch(
        /cannot observe expiry: GET \/users\/me refused the token right after it was issued \(401\), so it never worked; see TOKEN-WORKS \(does the API accept tokens from --auth-url http:\/\/127\.0\.0\.1:\d+\?\)/,
      );
    }
  });

  it('makes the tenant-isolation checks errors that point at the token problem, not isolation failures', async () => {
    const { args, secret } = await mismatched();
    const result = await run(secret, [...args, '--suite', 'tenant']);

    expect(result.code).toBe(1);
    expect(statuses(result.report)).toEqual({
      'TENANT-ACCESS': 'failed',
      'TENANT-FOREIGN': 'error',
      'TENANT-UNKNOWN': 'error',
      'TENANT-INVALID-ID': 'error',
      'TENANT-UNKNOWN-NO-AUTH': 'error',
    });
    expect(message(result.report, 'TENANT-FOREIGN')).toBe(
      'cannot judge GET /tenants/{tenantId}/shipments: even a valid request gets 401 there (see TENANT-ACCESS)',
    );
  });
});

describe('a target that answers the token endpoint but hangs on /users/me', () => {
  it('is reachable and misbehaving: the token checks are judged, what needs /users/me errs with the timeout, exit 1', async () => {
    const target = await server({ tokenTtlSeconds: 60 });
    const hostile = await startHostile({
      upstream: target.url,
      misbehaviour: 'silent',
      match: (path) => path === '/users/me',
    });
    cleanup.push(() => hostile.close());
    const result = await run(target.clientSecret, [
      '--base-url',
      hostile.url,
      '--client-id',
      target.clientId,
      '--timeout',
      '1000',
      '--suite',
      'token',
      '--suite',
      'user',
    ]);

    expect(result.code).toBe(1);
    const got = statuses(result.report);
    expect(got['TOKEN-ISSUE']).toBe('passed');
    expect(got['TOKEN-WRONG-SECRET']).toBe('passed');
    expect(got['USER-OK']).toBe('error');
    expect(got['TOKEN-WORKS']).toBe('error');
    expect(message(result.report, 'USER-OK')).toMatch(/no (complete )?response.* within 1000 ms \(--timeout\)/);
    // Nothing failed: what could not be carried out proves nothing either way (exit 1 all the same).
    expect(result.report?.verdict).toBe('not-proven');
  });
});

describe('checks whose rule was not exercised', () => {
  it('TOKEN-ERROR-FORMAT errs when the token endpoint refused none of its bad requests: there was no error response to judge', async () => {
    const target = await server({
      faults: ['wrong-secret-accepted', 'no-credentials-accepted', 'grant-type-optional', 'any-grant-type-accepted'],
    });
    const result = await run(target.clientSecret, [...targetArgs(target), '--check', 'TOKEN-ERROR-FORMAT']);
    expect(statuses(result.report)).toEqual({ 'TOKEN-ERROR-FORMAT': 'error' });
    expect(message(result.report, 'TOKEN-ERROR-FORMAT')).toMatch(
      /^no error response to judge: the token endpoint refused none of the four bad requests/,
    );
  });

  it('PAGE-TOTALS errs when no page carries the totals to check (PAGE-HEADERS fails for it)', async () => {
    const target = await server({ faults: ['no-page-size'] });
    const result = await run(target.clientSecret, [
      ...listArgs(target, ['shipments']),
      '--check',
      'PAGE-TOTALS',
      '--check',
      'PAGE-HEADERS',
    ]);
    expect(statuses(result.report)).toEqual({ 'PAGE-HEADERS': 'failed', 'PAGE-TOTALS': 'error' });
    expect(message(result.report, 'PAGE-TOTALS')).toMatch(
      /^cannot check the totals of shipments: no page carries .* \(see PAGE-HEADERS\)$/,
    );
  });

  it('NULLS-SAME-FIELDS is not a pass when no list has two items to compare', async () => {
    const target = await server({ shipmentCount: 1 });
    const result = await run(target.clientSecret, [...listArgs(target, ['shipments']), '--check', 'NULLS-SAME-FIELDS']);
    expect(statuses(result.report)).toEqual({ 'NULLS-SAME-FIELDS': 'skipped' });
    expect(message(result.report, 'NULLS-SAME-FIELDS')).toMatch(
      /no list with two or more items to compare \(shipments\): the rule could not be exercised/,
    );
  });
});

describe('a 500 on GET /users/me: one root cause, one finding (issue 30, item 5)', () => {
  const POINTER = 'not run: GET /users/me answered 500 in the preflight (see the cause)';
  let result: CliResult & { report: RunReport; junit: string; html: string };

  beforeAll(async () => {
    const target = await server({ tokenTtlSeconds: 60 });
    const hostile = await startHostile({
      upstream: target.url,
      misbehaviour: 'server-error',
      match: (path) => path === '/users/me',
    });
    cleanup.push(() => hostile.close());
    const reportsDir = await tempDir();
    process.env.CARRIER_CLIENT_SECRET = target.clientSecret;
    try {
      const cli = await runMain([
        'run',
        '--reports-dir',
        reportsDir,
        '--base-url',
        hostile.url,
        '--client-id',
        target.clientId,
        '--openapi',
        target.openapiFile,
        '--foreign-tenant-id',
        target.foreignTenantId,
      ]);
      const read = (name: string): Promise<string> => readFile(join(reportsDir, name), 'utf8');
      result = {
        ...cli,
        report: JSON.parse(await read('report.json')) as RunReport,
        junit: await read('junit.xml'),
        html: await read('report.html'),
      };
    } finally {
      delete process.env.CARRIER_CLIENT_SECRET;
    }
  });

  it('is recorded once in report.json; the checks it kept from running are errors that point at it', () => {
    const { report } = result;
    expect(result.code).toBe(1);
    expect(report.causes).toHaveLength(1);
    const cause = report.causes?.[0];
    expect(cause).toMatchObject({
      source: 'preflight',
      title: 'GET /users/me answered 500',
      endpoint: 'GET /users/me',
      status: 500,
    });
    expect(cause?.detail).toMatch(/GET \/users\/me \(500\) lists no tenant with a UUID id/);
    expect(cause?.exchange?.response?.status).toBe(500);
    const ids = cause?.checks ?? [];
    // The tenant checks had no tenant, the user checks no User, the auth checks no valid answer to compare with.
    expect(ids.length).toBeGreaterThanOrEqual(30);
    expect(ids).toEqual(
      expect.arrayContaining([
        'TENANT-ACCESS',
        'PAGE-WALK',
        'RESOURCE-SCHEMA',
        'USER-SCHEMA',
        'AUTH-MISSING',
        'EXPIRY-RENEW',
        'LEGACY-TOKEN-WORKS',
      ]),
    );
    for (const id of ids) {
      const check = report.checks.find((c) => c.id === id);
      expect(check?.status, id).toBe('error');
      expect(check?.message, id).toBe(POINTER);
      expect(check?.findings, id).toEqual([{ kind: 'error', message: POINTER, endpoint: 'GET /users/me' }]);
    }
    // Every error is one of them: none is left saying it in its own words.
    expect(report.checks.filter((c) => c.status === 'error').map((c) => c.id)).toEqual(ids);
    // The check whose rule the 500 breaks judged it: a failure, not a pointer.
    expect(statuses(report)['USER-OK']).toBe('failed');
    expect(ids).not.toContain('USER-OK');
  });

  it('is one line on the console (and in the step summary), which names the cause and every check it kept from running', () => {
    const ids = result.report.causes?.[0]?.checks ?? [];
    const lines = result.stdout.split('\n');
    const errors = lines.findIndex((l) => l.startsWith(`ERRORS (${ids.length})`));
    expect(errors).toBeGreaterThan(-1);
    expect(lines.slice(errors + 1, errors + 3)).toEqual([
      `  ${ids.length} checks could not run because GET /users/me answered 500: ${ids.join(', ')}`,
      '',
    ]);
    // The preflight's words are not repeated check by check.
    expect(result.stdout).not.toMatch(/lists no tenant with a UUID id/);
    const summary = renderMarkdownSummary(result.report);
    expect(summary).toContain(
      `- ${ids.length} checks could not run because GET /users/me answered 500: ${ids.join(', ')}\n`,
    );
    expect(summary).not.toMatch(/lists no tenant with a UUID id/);
  });

  it('keeps one JUnit test case per check, each an error that points at the cause and says what it is', () => {
    const { report, junit } = result;
    expect(junit.match(/<testcase /g)).toHaveLength(report.checks.length);
    const ids = report.causes?.[0]?.checks ?? [];
    expect(ids.length).toBeGreaterThanOrEqual(30);
    for (const id of ids) {
      const testCase = new RegExp(
        `<testcase [^>]*name="${id} [^"]*"[^>]*>\\s*<error message="${POINTER.replace(/[()]/g, '\\$&')}" type="CheckError"><!\\[CDATA\\[[^\\]]*The cause, found by the preflight: GET /users/me answered 500 \\(no tenant was given`,
      );
      expect(junit, id).toMatch(testCase);
    }
  });

  it('is one cause in report.html, the checks it kept from running folded into one line', () => {
    const { report, html } = result;
    expect(html.match(/<section class="cause /g)).toHaveLength(1);
    expect(html).toContain('<h3 class="cause-title">GET /users/me answered 500</h3>');
    expect(html).toContain(
      'Found by the preflight, before the checks ran: no tenant was given (--tenant-id) and GET /users/me (500) lists no tenant with a UUID id.',
    );
    const ids = report.causes?.[0]?.checks ?? [];
    expect(html).toContain(`<li><span class="msg">${ids.length} checks could not run because of it</span>:<br>`);
    // The failures that judged the 500 are on the same card.
    const [card] = html.split('<h2 id="checks-title">');
    for (const id of ['USER-OK', 'TOKEN-WORKS', ...ids]) expect(card, id).toContain(`<code>${id}</code>`);
  });
});

describe('findings by cause: one card per wrong behaviour, not per exchange (issue 30, item 7)', () => {
  it("a missing challenge and an ignored Accept-Version are two causes (three with the DELETE's 204), each with its endpoints and the checks it breaks", async () => {
    const { report } = await runAgainst(
      { faults: ['resource-401-no-challenge', 'version-missing-accepted'], tokenTtlSeconds: 2 },
      ['--reporter', 'json'],
    );
    const causes = groupByCause(report.checks, report.causes);
    const summary = causes.map((c) => ({
      title: c.title,
      endpoints: c.endpoints.length,
      checks: c.checks.map((x) => x.check.id).sort(),
    }));
    expect(summary).toEqual([
      {
        // 401 is the right status: the missing challenge is the cause, on every endpoint that
        // refuses, the write operations' included (the same words, so one cause).
        title: 'a 401 must carry a WWW-Authenticate challenge (Bearer), got none',
        endpoints: 10,
        checks: [
          'AUTH-INVALID-TOKEN-ERROR',
          'AUTH-MALFORMED',
          'AUTH-MISSING',
          'AUTH-MISSING-NO-ERROR',
          'AUTH-NOT-BEARER',
          'AUTH-NOT-BEARER-401',
          'AUTH-UNKNOWN-TOKEN',
          'EXPIRY-INVALID-TOKEN-ERROR',
          'EXPIRY-REFUSED-AFTER',
          'TENANT-UNKNOWN-NO-AUTH',
          'VERSION-AND-AUTH-MISSING',
          'WRITE-AUTH-INVALID',
          'WRITE-AUTH-MISSING',
          'WRITE-TENANT-UNKNOWN-NO-AUTH',
          'WRITE-VERSION-AND-AUTH-MISSING',
        ],
      },
      // Both wrong things about one answer (a 200 where 400 was due, and the token in it) are one cause.
      {
        title: 'A request with no Accept-Version header: expected 400, got 200',
        endpoints: 9,
        checks: ['VERSION-MISSING'],
      },
      // The DELETE (idempotent: 204 for the made-up id) accepts it too: another answer, another cause.
      {
        title: 'DELETE /tenants/{tenantId}/shipments/{shipmentId} with no Accept-Version header: expected 400, got 204',
        endpoints: 1,
        checks: ['WRITE-VERSION-MISSING'],
      },
    ]);
    // Every check that did not pass is in one.
    const broken = report.checks
      .filter((c) => c.status === 'failed' || c.status === 'error')
      .map((c) => c.id)
      .sort();
    expect([...new Set(causes.flatMap((c) => c.checks.map((x) => x.check.id)))].sort()).toEqual(broken);

    const html = renderHtmlReport(report);
    expect(html).toContain('Findings by cause (3 causes, 17 checks)');
    expect(html).toContain(
      '<h3 class="cause-title">a 401 must carry a WWW-Authenticate challenge (Bearer), got none</h3>',
    );
    expect(html).toMatch(
      /<p class="cause-reach">On 10 endpoints \(<code>GET \/users\/me<\/code>, .* and 6 more\); breaks 15 checks in 5 suites:<\/p>/,
    );
    expect(html).not.toMatch(/cause-title">[^<]*answered 401/);
  });
});

describe('findings by cause: the rule broken and the wrong behaviour, whatever list, item, field or link shows it (issue 38 item 9)', () => {
  /** The reference server's own data as an --expectations file. */
  async function referenceExpectations(): Promise<string> {
    const s = await server();
    const file = join(await tempDir(), 'expectations.json');
    await writeFile(file, JSON.stringify(s.expectations));
    return file;
  }
  const summary = (report: RunReport) =>
    groupByCause(report.checks, report.causes).map((c) => ({
      title: c.title,
      endpoints: c.endpoints.length,
      checks: c.checks.map((x) => x.check.id),
    }));
  /** What a title must never be: a key's placeholders, or a count of other findings. */
  const PLACEHOLDER = /\bN\b|…|findings in all/;

  it('nulls dropped by a serialiser are one cause: the fields, every endpoint, the three checks that see it', async () => {
    const { report } = await runAgainst(
      { faults: ['item-null-fields-omitted', 'single-null-fields-omitted'], tokenTtlSeconds: 60 },
      [
        '--suite',
        'nulls',
        '--suite',
        'resources',
        '--expectations',
        await referenceExpectations(),
        '--reporter',
        'json',
      ],
    );
    expect(summary(report)).toEqual([
      {
        title:
          'fields are omitted that must be sent (null when they have no data): "deliveredAt", "weightKg", "paidAt", "dueDate", "note", …',
        endpoints: 4,
        checks: ['NULLS-SAME-FIELDS', 'RESOURCE-FIELDS-PRESENT', 'RESOURCE-EXPECTED-VALUES'],
      },
    ]);
    const html = renderHtmlReport(report);
    expect(html).toContain('Findings by cause (1 cause, 3 checks)');
    expect(html).not.toMatch(/cause-title">[^<]*findings in all/);
  }, 60_000);

  it("links that name the backend's origin are one cause of the four link checks, titled by a finding's own words", async () => {
    const { report } = await runAgainst({ faults: ['link-foreign-origin'], tokenTtlSeconds: 60 }, [
      '--suite',
      'pagination',
      '--reporter',
      'json',
    ]);
    const causes = summary(report);
    expect(causes.map((c) => ({ ...c, title: '' }))).toEqual([
      { title: '', endpoints: 2, checks: ['LINK-NEXT', 'LINK-PREV', 'LINK-FIRST-LAST', 'LINK-FOLLOW'] },
    ]);
    expect(causes[0]?.title).toMatch(
      /^GET shipments\?page=1&size=10: rel="next" http:\/\/evil\.example\/tenants\/\S+ is not on the API's origin http:\/\/127\.0\.0\.1:\d+: a client cannot follow it with its credentials$/,
    );
  }, 60_000);

  it('error pages a gateway puts in place of the JSON errors are one cause, whichever error code each check expected', async () => {
    const target = await server({ tokenTtlSeconds: 60 });
    // Apache's ProxyErrorOverride: every error of the token endpoint becomes an HTML page.
    const front = createServer((req, res) => {
      const errorPage = (body: string, headers: ForwardedHeaders): string => {
        if (!req.url?.startsWith('/uaa/oauth2/token') || !body.includes('"error"')) return body;
        headers['content-type'] = 'text/html; charset=iso-8859-1';
        return '<html><head><title>Error</title></head><body>Error</body></html>';
      };
      forward(target.url, req, res, undefined, errorPage).catch(() => res.destroy());
    });
    await onLoopback(front);
    cleanup.push(() => closeServer(front));
    const url = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
    const result = await run(target.clientSecret, [
      ...targetArgs(target).map((a) => (a === target.url ? url : a)),
      '--suite',
      'token',
      '--reporter',
      'json',
    ]);
    const causes = summary(result.report as RunReport);
    expect(causes).toEqual([
      {
        title: 'token request with a wrong client secret: expected error "invalid_client", got a body that is not JSON',
        endpoints: 1,
        checks: [
          'TOKEN-WRONG-SECRET',
          'TOKEN-UNKNOWN-CLIENT',
          'TOKEN-NO-CREDENTIALS',
          'TOKEN-GRANT-MISSING',
          'TOKEN-GRANT-UNSUPPORTED',
          'TOKEN-ERROR-FORMAT',
        ],
      },
    ]);
  }, 60_000);

  it('a legacy path gone names its endpoint, in the title and where the cause reaches', async () => {
    const { report } = await runAgainst({ faults: ['legacy-userinfo-gone'], tokenTtlSeconds: 60 }, [
      '--suite',
      'legacy',
      '--suite',
      'versioning',
      '--reporter',
      'json',
    ]);
    const causes = summary(report);
    expect(causes.map((c) => c.title)).toEqual([
      'GET /uaa/userinfo: expected 200, got 404',
      'GET /uaa/userinfo (legacy) with Accept-Version: 1: expected a 2xx status, got 404',
    ]);
    for (const c of causes) expect(c.title).not.toMatch(PLACEHOLDER);
    const html = renderHtmlReport(report);
    expect(html).toContain(
      '<p class="cause-reach">On <code>GET /uaa/userinfo (legacy)</code>; breaks 1 check in 1 suite:</p>',
    );
  }, 60_000);
});
