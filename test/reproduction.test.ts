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
import { encodeBasicCredentials } from '../src/http/basic.js';
import type { CheckResult, RecordedExchange, RunReport } from '../src/report/model.js';
import { curlCommand } from '../src/report/reproduce.js';
import { startReferenceServer, type ReferenceServer } from '../src/reference/index.js';
import { BIN, runMain, runShell, tempDir } from './support/harness.js';
import { startRecordingProxy, type RecordingProxy, type SeenRequest } from './support/recording-proxy.js';

const IN_CI = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';
const HAVE_TOOLS = spawnSync('sh', ['-c', 'command -v curl && command -v od && command -v awk && command -v base64'], { timeout: 5_000 }).status === 0;
const SKIP = !HAVE_TOOLS && !IN_CI;
const NO_PROXY_ENV = { HTTP_PROXY: '', HTTPS_PROXY: '', http_proxy: '', https_proxy: '' };
const PACKAGE_ROOT = new URL('..', import.meta.url).pathname;

const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

const sh = (command: string, env: Record<string, string>, cwd?: string) => runShell(command, { env, ...(cwd ? { cwd } : {}), timeoutMs: 60_000 });

describe('serve prints a command that runs as printed', () => {
  it.skipIf(SKIP)('the export line and the run command, pasted into a shell, test the server and exit 0', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--token-ttl', '2'], { env: { ...process.env, ...NO_PROXY_ENV } });
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
    const runLine = lines.find((l) => l.trimStart().startsWith('npx carrier-conformance run ')) ?? '';
    expect(exportLine.trim()).toBe("export CARRIER_CLIENT_SECRET='ref secret+%:&=/2026'");
    expect(runLine).toMatch(/--base-url http:\/\/127\.0\.0\.1:\d+ --client-id conformance-client --openapi (\S+\/)?docs\/openapi\.yaml --foreign-tenant-id [0-9a-f-]{36}$/);
    // As printed, in a shell, from the package (where `npx carrier-conformance` is this harness).
    const reportsDir = await tempDir();
    const result = await sh(`${exportLine.trim()}\n${runLine.trim()}`, { CARRIER_REPORTS_DIR: reportsDir }, PACKAGE_ROOT);
    expect(result.status, result.stdout + result.stderr).toBe(0);
    const report = JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
    // Only the expected-values checks need what serve cannot print (--expectations): they skip.
    expect(report.checks.filter((c) => c.status !== 'passed').map((c) => `${c.id} ${c.status}`).sort()).toEqual(['RESOURCE-EXPECTED-VALUES skipped', 'USER-EXPECTED-VALUES skipped']);
  });
});

/** The fields a reproduction must send as the run did; curl chooses its own User-Agent and compression. */
const LEFT_TO_CURL = new Set(['user-agent', 'accept-encoding', 'host', 'connection', 'content-length', 'authorization']);

function isPairs(headers: readonly [string, string][] | Record<string, string>): headers is readonly [string, string][] {
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

/** Runs the harness through a recording proxy, then every reproduction of `checks` through it, and compares. */
async function reproduceAll({ faults, checks }: Case): Promise<string[]> {
  const server: ReferenceServer = await startReferenceServer({ faults });
  cleanup.push(() => server.close());
  const proxy: RecordingProxy = await startRecordingProxy(server.url);
  cleanup.push(() => proxy.close());
  const reportsDir = await tempDir();
  process.env.CARRIER_CLIENT_SECRET = server.clientSecret;
  try {
    await runMain(['run', '--base-url', proxy.url, '--client-id', server.clientId, '--paged-path', 'shipments', '--suite', 'token', '--suite', 'user', '--reporter', 'json', '--reports-dir', reportsDir]);
  } finally {
    delete process.env.CARRIER_CLIENT_SECRET;
  }
  const report = JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
  const sentByHarness: SeenRequest[] = proxy.seen.splice(0);
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
      if (sent.method !== ex.request.method || sent.target !== `${target.pathname}${target.search}`) problems.push(`${where}: sent ${sent.method} ${sent.target}`);
      expect(fieldsOf(sent.headers), where).toEqual(fieldsOf(ex.request.headers));
      if (sent.body !== (ex.request.body ?? '')) problems.push(`${where}: sent the body ${JSON.stringify(sent.body)}, not ${JSON.stringify(ex.request.body)}`);
      const status = /^HTTP\/[\d.]+ (\d{3})/.exec(result.stdout)?.[1];
      if (Number(status) !== ex.response?.status) problems.push(`${where}: got ${status ?? 'nothing'}, the run got ${ex.response?.status ?? 'nothing'}`);
      if (ex.auth === 'client-basic') {
        // Exactly the credentials the check sent, encoded as it sent them; and the harness did send that.
        const basic = ex.basic ?? { encoding: 'form' };
        const scheme = /^(\S+) /.exec(ex.request.headers.find(([n]) => n.toLowerCase() === 'authorization')?.[1] ?? '')?.[1] ?? 'Basic';
        const expected = `${scheme} ${encodeBasicCredentials(basic.clientId ?? server.clientId, `${server.clientSecret}${basic.secretSuffix ?? ''}`, basic.encoding)}`;
        if (sent.headers.authorization !== expected) problems.push(`${where}: sent Authorization ${sent.headers.authorization ?? 'none'}, the check sent ${expected}`);
        if (!sentByHarness.some((h) => h.headers.authorization === expected && h.target === sent.target)) problems.push(`${where}: the harness never sent ${expected}`);
      }
    }
  }
  return problems;
}

describe('every curl command sends exactly the request that was judged', () => {
  it.skipIf(SKIP)('form-encoded credentials (RFC 6749 §2.3.1), a wrong secret, an unknown client, a scheme spelled "basic", a bearer request', async () => {
    expect(HAVE_TOOLS, 'CI is set but curl, od, awk or base64 is missing').toBe(true);
    const credentials = await reproduceAll({ faults: ['wrong-secret-accepted', 'unknown-client-accepted'], checks: ['TOKEN-WRONG-SECRET', 'TOKEN-UNKNOWN-CLIENT'] });
    // A fault that accepts an unknown client would also accept the scheme's misspelling: apart.
    const scheme = await reproduceAll({ faults: ['basic-scheme-case-sensitive', 'user-email-omitted'], checks: ['TOKEN-BASIC-CASE', 'USER-FIELDS-PRESENT'] });
    expect([...credentials, ...scheme]).toEqual([]);
  });

  it.skipIf(SKIP)('a token endpoint that takes the credentials only raw: the run sent them raw, and so do the commands; the form-encoded probe stays form-encoded', async () => {
    const problems = await reproduceAll({
      faults: ['basic-credentials-not-form-decoded', 'wrong-secret-accepted'],
      checks: ['TOKEN-WRONG-SECRET', 'TOKEN-CREDENTIALS-ENCODING'],
    });
    expect(problems).toEqual([]);
  });
});
