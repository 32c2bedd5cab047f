/**
 * From `serve` to a working run, and from a report to a working reproduction:
 *
 * - `serve` prints a command that runs as printed (the secret in an environment line) and gives
 *   a verdict;
 * - every curl command of a report sends exactly the request that was judged: the same method,
 *   target, fields and body, and the same Authorization, byte for byte, whether the run sent the
 *   client credentials RFC 6749 §2.3.1 form-encoded or raw, and the wrong secret or the unknown
 *   client id where the check sent those. The shell does the encoding; nobody edits anything.
 *
 * Needs curl, od, awk and base64 (every CI image has them); without curl the test is skipped
 * locally and fails in CI, like the browser test.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeBasicCredentials } from '../src/core/basic-credentials.js';
import type { CheckResult, RecordedExchange, RunReport } from '../src/model/run-report.js';
import { curlCommand } from '../src/report/reproduce.js';
import { startReferenceServer, type ReferenceServer } from '../src/reference/index.js';
import { BIN, runMain, runShell, tempDir } from './support/harness.js';
import { startRecordingProxy, type RecordingProxy, type SeenRequest } from './support/recording-proxy.js';

const IN_CI = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';
const HAVE_TOOLS =
  spawnSync('sh', ['-c', 'command -v curl && command -v od && command -v awk && command -v base64'], { timeout: 5_000 })
    .status === 0;
const SKIP = !HAVE_TOOLS && !IN_CI;
const NO_PROXY_ENV = { HTTP_PROXY: '', HTTPS_PROXY: '', http_proxy: '', https_proxy: '' };
const PACKAGE_ROOT = new URL('..', import.meta.url).pathname;

const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

const sh = (command: string, env: Record<string, string>, cwd?: string) =>
  runShell(command, { env, ...(cwd ? { cwd } : {}), timeoutMs: 60_000 });

describe('serve prints a command that runs as printed', () => {
  it.skipIf(SKIP)('the export line and the run command, pasted into a shell, test the server and exit 0', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--token-ttl', '2'], {
      env: { ...process.env, ...NO_PROXY_ENV },
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    cleanup.push(async () => {
      child.kill('SIGTERM');
      await exited;
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve printed no command: ${stdout}`)), 20_000);
      child.stdout.on('data', () => {
        if (/Ctrl-C stops it/.test(stdout)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const lines = stdout.split('\n');
    const exportLine = lines.find((l) => l.trimStart().startsWith('export CARRIER_CLIENT_SECRET=')) ?? '';
    const secondExportLine = lines.find((l) => l.trimStart().startsWith('export CARRIER_SECOND_CLIENT_SECRET=')) ?? '';
    const runLine = lines.find((l) => l.trimStart().startsWith('npx carrier-conformance run ')) ?? '';
    expect(exportLine.trim()).toBe("export CARRIER_CLIENT_SECRET='ref secret+%:&=/2026'");
    expect(secondExportLine.trim()).toBe("export CARRIER_SECOND_CLIENT_SECRET='second secret+%:&=/2026'");
    expect(runLine).toMatch(
      /--base-url http:\/\/127\.0\.0\.1:\d+ --client-id conformance-client --second-client-id conformance-second-client --openapi (\S+\/)?docs\/openapi\.yaml --expectations (\S+\/)?docs\/reference-expectations\.json$/,
    );
    // As printed, in a shell, from the package (where `npx carrier-conformance` is this harness).
    const reportsDir = await tempDir();
    const result = await sh(
      `${exportLine.trim()}\n${secondExportLine.trim()}\n${runLine.trim()}`,
      { CARRIER_REPORTS_DIR: reportsDir },
      PACKAGE_ROOT,
    );
    expect(result.status, result.stdout + result.stderr).toBe(0);
    const report = JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
    // With the shipped expectations it names, every check judges, and passes (issue 39 item 6; before: the expected-values checks skipped).
    expect(
      report.checks
        .filter((c) => c.status !== 'passed')
        .map((c) => `${c.id} ${c.status}`)
        .sort(),
    ).toEqual([]);
  });
});

/** The fields a reproduction must send as the run did; curl chooses its own User-Agent and compression. */
const LEFT_TO_CURL = new Set([
  'user-agent',
  'accept-encoding',
  'host',
  'connection',
  'content-length',
  'authorization',
]);

function isPairs(
  headers: readonly [string, string][] | Record<string, string>,
): headers is readonly [string, string][] {
  return Array.isArray(headers);
}

function fieldsOf(headers: readonly [string, string][] | Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  const pairs: readonly (readonly [string, string])[] = isPairs(headers) ? headers : Object.entries(headers);
  for (const [name, value] of pairs) if (!LEFT_TO_CURL.has(name.toLowerCase())) out[name.toLowerCase()] = value;
  return out;
}

interface Case {
  faults: string[];
  /** The checks whose reproductions must be exact (each must need one). */
  checks: string[];
}

interface Recorded {
  server: ReferenceServer;
  /** Every request that reached the server, the harness's and the commands'. */
  proxy: RecordingProxy;
  report: RunReport;
  /** What the harness itself sent (taken out of `proxy.seen`). */
  sentByHarness: SeenRequest[];
}

/** Runs the harness with `suites` against a reference server with `faults`, through a recording proxy. */
async function recordRun(faults: string[], suites: string[], tokenTtlSeconds?: number): Promise<Recorded> {
  const server: ReferenceServer = await startReferenceServer({
    faults,
    ...(tokenTtlSeconds !== undefined ? { tokenTtlSeconds } : {}),
  });
  cleanup.push(() => server.close());
  const proxy: RecordingProxy = await startRecordingProxy(server.url);
  cleanup.push(() => proxy.close());
  const reportsDir = await tempDir();
  process.env.CARRIER_CLIENT_SECRET = server.clientSecret;
  try {
    await runMain([
      'run',
      '--base-url',
      proxy.url,
      '--client-id',
      server.clientId,
      '--paged-path',
      'shipments',
      ...suites.flatMap((s) => ['--suite', s]),
      '--reporter',
      'json',
      '--reports-dir',
      reportsDir,
    ]);
  } finally {
    delete process.env.CARRIER_CLIENT_SECRET;
  }
  const report = JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
  return { server, proxy, report, sentByHarness: proxy.seen.splice(0) };
}

/** The exchanges the findings of check `id` cite. */
function citedExchanges(report: RunReport, id: string): RecordedExchange[] {
  const check = report.checks.find((c) => c.id === id);
  const cited = [...new Set((check?.findings ?? []).flatMap((f) => (f.exchange === undefined ? [] : [f.exchange])))];
  return cited.map((i) => check?.exchanges[i]).filter((ex): ex is RecordedExchange => ex !== undefined);
}

/** Runs the harness through a recording proxy, then every reproduction of `checks` through it, and compares. */
async function reproduceAll({ faults, checks }: Case): Promise<string[]> {
  const { server, proxy, report, sentByHarness } = await recordRun(faults, ['token', 'user']);
  const problems: string[] = [];
  const env = { CARRIER_CLIENT_ID: server.clientId, CARRIER_CLIENT_SECRET: server.clientSecret };

  for (const id of checks) {
    const check: CheckResult | undefined = report.checks.find((c) => c.id === id);
    const cited = [...new Set((check?.findings ?? []).flatMap((f) => (f.exchange === undefined ? [] : [f.exchange])))];
    if (!check || cited.length === 0) {
      problems.push(`${id}: ${check?.status ?? 'not run'} without a cited exchange; the case must make it fail`);
      continue;
    }
    for (const index of cited) {
      const ex = check.exchanges[index] as RecordedExchange;
      const where = `${id} exchange #${index + 1} (${ex.purpose})`;
      const command = curlCommand(ex, report);
      if (command.includes('CARRIER_HIDDEN_')) continue; // a value the report cannot attribute; the command says so
      const result = await sh(command, env);
      const sent = proxy.seen.splice(0).at(-1);
      if (!sent) {
        problems.push(`${where}: the command sent nothing: ${result.stderr}`);
        continue;
      }
      const target = new URL(ex.request.url);
      if (sent.method !== ex.request.method || sent.target !== `${target.pathname}${target.search}`)
        problems.push(`${where}: sent ${sent.method} ${sent.target}`);
      expect(fieldsOf(sent.headers), where).toEqual(fieldsOf(ex.request.headers));
      if (sent.body !== (ex.request.body ?? ''))
        problems.push(`${where}: sent the body ${JSON.stringify(sent.body)}, not ${JSON.stringify(ex.request.body)}`);
      const status = /^HTTP\/[\d.]+ (\d{3})/.exec(result.stdout)?.[1];
      if (Number(status) !== ex.response?.status)
        problems.push(`${where}: got ${status ?? 'nothing'}, the run got ${ex.response?.status ?? 'nothing'}`);
      if (ex.auth === 'client-basic') {
        // Exactly the credentials the check sent, encoded as it sent them; and the harness did send that.
        const basic = ex.basic ?? { encoding: 'form' };
        const scheme =
          /^(\S+) /.exec(ex.request.headers.find(([n]) => n.toLowerCase() === 'authorization')?.[1] ?? '')?.[1] ??
          'Basic';
        const expected = `${scheme} ${encodeBasicCredentials(basic.clientId ?? server.clientId, `${server.clientSecret}${basic.secretSuffix ?? ''}`, basic.encoding)}`;
        if (sent.headers.authorization !== expected)
          problems.push(
            `${where}: sent Authorization ${sent.headers.authorization ?? 'none'}, the check sent ${expected}`,
          );
        if (!sentByHarness.some((h) => h.headers.authorization === expected && h.target === sent.target))
          problems.push(`${where}: the harness never sent ${expected}`);
      }
    }
  }
  return problems;
}

describe('every curl command sends exactly the request that was judged', () => {
  it.skipIf(SKIP)(
    'form-encoded credentials (RFC 6749 §2.3.1), a wrong secret, an unknown client, a scheme spelled "basic", a bearer request',
    async () => {
      expect(HAVE_TOOLS, 'CI is set but curl, od, awk or base64 is missing').toBe(true);
      const credentials = await reproduceAll({
        faults: ['wrong-secret-accepted', 'unknown-client-accepted'],
        checks: ['TOKEN-WRONG-SECRET', 'TOKEN-UNKNOWN-CLIENT'],
      });
      // A fault that accepts an unknown client would also accept the scheme's misspelling: apart.
      const scheme = await reproduceAll({
        faults: ['basic-scheme-case-sensitive', 'user-email-omitted'],
        checks: ['TOKEN-BASIC-CASE', 'USER-FIELDS-PRESENT'],
      });
      expect([...credentials, ...scheme]).toEqual([]);
    },
  );

  it.skipIf(SKIP)(
    'a token endpoint that takes the credentials only raw: the run sent them raw, and so do the commands; the form-encoded probe stays form-encoded',
    async () => {
      const problems = await reproduceAll({
        faults: ['basic-credentials-not-form-decoded', 'wrong-secret-accepted'],
        checks: ['TOKEN-WRONG-SECRET', 'TOKEN-CREDENTIALS-ENCODING'],
      });
      expect(problems).toEqual([]);
    },
  );
});

/** `env` without `name`: the variable unset, as in a shell that never exported it. */
function without(env: Record<string, string>, name: string): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([key]) => key !== name));
}

/** stderr's lines, the empty ones left out. */
const linesOf = (text: string): string[] => text.split('\n').filter((line) => line !== '');

describe('a command stops before sending anything when what it needs is missing', () => {
  // Unset, curl would send `Bearer ` or the Basic credentials of an empty id or secret, and get a
  // 400 or 401 that can pass for the behaviour the check judged.
  it.skipIf(SKIP)(
    'a variable it needs unset or empty: one line naming it, a non-zero exit and no request at all; set: the status the run recorded',
    async () => {
      const { server, proxy, report } = await recordRun(
        ['wrong-secret-accepted', 'user-email-omitted'],
        ['token', 'user'],
      );
      const env = {
        CARRIER_CLIENT_ID: server.clientId,
        CARRIER_CLIENT_SECRET: server.clientSecret,
        CARRIER_HIDDEN_1: 'a-hidden-value',
      };
      const basic = citedExchanges(report, 'TOKEN-WRONG-SECRET').find((ex) => ex.auth === 'client-basic');
      const bearer = citedExchanges(report, 'USER-FIELDS-PRESENT').find((ex) => ex.auth === 'bearer');
      if (!basic || !bearer)
        throw new Error('the faults must make TOKEN-WRONG-SECRET and USER-FIELDS-PRESENT fail with a cited exchange');
      // A value the redactor hid without being able to say whose it was: a variable of its own.
      const hidden: RecordedExchange = {
        ...bearer,
        request: { ...bearer.request, headers: [...bearer.request.headers, ['X-Api-Key', '[REDACTED]']] },
      };
      const cases = [
        { what: 'a wrong secret (client-basic)', ex: basic, needs: ['CARRIER_CLIENT_ID', 'CARRIER_CLIENT_SECRET'] },
        { what: 'a bearer request', ex: bearer, needs: ['CARRIER_CLIENT_ID', 'CARRIER_CLIENT_SECRET'] },
        {
          what: 'a hidden value',
          ex: hidden,
          needs: ['CARRIER_CLIENT_ID', 'CARRIER_CLIENT_SECRET', 'CARRIER_HIDDEN_1'],
        },
      ];
      for (const { what, ex, needs } of cases) {
        const command = curlCommand(ex, report);
        for (const name of needs) {
          for (const [how, runEnv] of [
            ['unset', without(env, name)],
            ['empty', { ...env, [name]: '' }],
          ] as const) {
            const where = `${what}, ${name} ${how}`;
            const result = await sh(command, runEnv);
            expect(result.status, where).not.toBe(0);
            expect(result.stdout, where).toBe('');
            const lines = linesOf(result.stderr);
            expect(lines, where).toHaveLength(1);
            expect(lines[0], where).toContain(`export ${name} `);
            expect(proxy.seen.splice(0), `${where}: requests sent`).toEqual([]);
          }
        }
        const result = await sh(command, env);
        // (curl's progress meter, on stderr when stdout is not a terminal, is no stop.)
        expect(result.stderr, what).not.toMatch(/CARRIER_|access_token|curl: \(/);
        expect(/^HTTP\/[\d.]+ (\d{3})/.exec(result.stdout)?.[1], what).toBe(String(ex.response?.status));
        expect(proxy.seen.splice(0).at(-1)?.target, what).toBe(new URL(ex.request.url).pathname);
      }
    },
  );

  it.skipIf(SKIP)(
    'a token request that yields no access_token: one line saying so, and no request sent with `Bearer `',
    async () => {
      const { server, proxy, report } = await recordRun(['user-email-omitted'], ['user']);
      const bearer = citedExchanges(report, 'USER-FIELDS-PRESENT').find((ex) => ex.auth === 'bearer');
      if (!bearer)
        throw new Error('user-email-omitted must make USER-FIELDS-PRESENT fail with a cited bearer exchange');
      // A client the token endpoint does not know: a 401 without access_token.
      const result = await sh(curlCommand(bearer, report), {
        CARRIER_CLIENT_ID: 'no-such-client',
        CARRIER_CLIENT_SECRET: server.clientSecret,
      });
      expect(result.status).not.toBe(0);
      expect(result.stdout).toBe('');
      expect(linesOf(result.stderr)).toHaveLength(1);
      expect(result.stderr).toContain('no access_token in the token response');
      expect(proxy.seen.splice(0).map((r) => `${r.method} ${r.target}`)).toEqual(['POST /uaa/oauth2/token']);
    },
  );
});

describe('a request the check sent with an expired token', () => {
  it.skipIf(SKIP)(
    'is reproduced after waiting out expires_in, a second and the margin: the refusal that was judged, not the 200 of a fresh token',
    async () => {
      const ttl = 1;
      // 401 with a Bearer challenge without error="invalid_token": EXPIRY-INVALID-TOKEN-ERROR warns.
      const { server, proxy, report } = await recordRun(['expired-token-no-error-code'], ['expiry'], ttl);
      const [expired, ...more] = citedExchanges(report, 'EXPIRY-INVALID-TOKEN-ERROR');
      if (!expired)
        throw new Error(
          `EXPIRY-INVALID-TOKEN-ERROR cites no exchange: ${JSON.stringify(report.checks.map((c) => [c.id, c.status, c.message]))}`,
        );
      expect(more).toEqual([]);
      expect([expired.purpose, expired.auth, expired.response?.status]).toEqual([
        'GET /users/me with a token whose expires_in has passed',
        'bearer',
        401,
      ]);
      const challenge = (headers: readonly [string, string][]): string | undefined =>
        headers.find(([name]) => name.toLowerCase() === 'www-authenticate')?.[1];

      const command = curlCommand(expired, report);
      const started = Date.now();
      const result = await sh(command, {
        CARRIER_CLIENT_ID: server.clientId,
        CARRIER_CLIENT_SECRET: server.clientSecret,
      });
      const elapsedMs = Date.now() - started;
      expect(result.stderr).not.toMatch(/CARRIER_|carrier_|access_token|curl: \(/);
      expect(result.status).toBe(0);
      expect(/^HTTP\/[\d.]+ (\d{3})/.exec(result.stdout)?.[1]).toBe('401');
      expect(/^www-authenticate: (.*?)\r?$/im.exec(result.stdout)?.[1]).toBe(
        challenge(expired.response?.headers ?? []),
      );
      expect(elapsedMs).toBeGreaterThanOrEqual((ttl + 2) * 1000);
      expect(proxy.seen.splice(0).map((r) => `${r.method} ${r.target}`)).toEqual([
        'POST /uaa/oauth2/token',
        'GET /users/me',
      ]);
      // The report records the run's margin (report.target.expiryMargin): the command says which.
      expect(command.split('\n')[0]).toMatch(
        /^# The check sent its token after the token's expires_in had passed: .*waits expires_in \+ 2 s .*the run's --expiry-margin of 1 s/,
      );
    },
  );
});
