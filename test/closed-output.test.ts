/**
 * A reader that goes away (`carrier-conformance run | head -3`, `list | head`): the run goes on
 * and the exit code is still the verdict, since CI scripts pipe the output and read the code.
 * The real executable (built into dist/ by `npm test`) with its stdout or stderr pipe closed by
 * the reading side, as `head` closes it.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../src/model/run-report.js';
import { startReferenceServer, type ReferenceServer } from '../src/reference/index.js';
import { BIN, freePort, targetArgs, tempDir } from './support/harness.js';

interface ClosedRun {
  code: number | null;
  /** What the stream left open received. */
  other: string;
}

/**
 * Spawns the CLI and closes the read side of its `closed` stream: at once (before the process has
 * written a byte, so that every write fails with EPIPE), or after the first bytes, as `head -1`.
 * Killed after `timeoutMs`.
 */
function runWithClosed(
  args: readonly string[],
  closed: 'stdout' | 'stderr',
  options: { when?: 'at-once' | 'after-first-bytes'; env?: Record<string, string> } = {},
  timeoutMs = 60_000,
): Promise<ClosedRun> {
  return new Promise((resolve, reject) => {
    // No CARRIER_* variable of the test's own environment: `list` refuses unknown options.
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('CARRIER_')));
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...inherited, NO_COLOR: '1', ...options.env } });
    const [gone, kept] = closed === 'stdout' ? [child.stdout, child.stderr] : [child.stderr, child.stdout];
    if (options.when === 'after-first-bytes') gone.once('data', () => gone.destroy());
    else gone.destroy();
    let other = '';
    kept.on('data', (d: Buffer) => (other += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, other });
    });
  });
}

async function reportIn(dir: string): Promise<RunReport> {
  return JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as RunReport;
}

const STACK_TRACE = /\n\s+at |EPIPE|Error:/;

let faulty: ReferenceServer;

beforeAll(async () => {
  // One broken MUST rule (spec §Authentication 4): a non-conformant target, exit 1.
  faulty = await startReferenceServer({ faults: ['missing-auth-accepted'] });
});

afterAll(async () => {
  await faulty.close();
});

describe('stdout closed by its reader', () => {
  it('a non-conformant target still exits 1, with its report written', async () => {
    const reportsDir = await tempDir();
    const result = await runWithClosed(
      ['run', ...targetArgs(faulty), '--suite', 'auth', '--reports-dir', reportsDir],
      'stdout',
      { env: { CARRIER_CLIENT_SECRET: faulty.clientSecret } },
    );
    expect(result.other).not.toMatch(STACK_TRACE);
    expect(result.code).toBe(1);
    const report = await reportIn(reportsDir);
    expect(report.verdict).toBe('non-conformant');
    expect(report.checks.find((c) => c.id === 'AUTH-MISSING')?.status).toBe('failed');
  });

  it('a non-conformant target exits 1 when the reader leaves after the first line, as `| head -1` does', async () => {
    const reportsDir = await tempDir();
    const result = await runWithClosed(
      ['run', ...targetArgs(faulty), '--suite', 'auth', '--reports-dir', reportsDir],
      'stdout',
      { when: 'after-first-bytes', env: { CARRIER_CLIENT_SECRET: faulty.clientSecret } },
    );
    expect(result.other).not.toMatch(STACK_TRACE);
    expect(result.code).toBe(1);
  });

  it('an unreachable target still exits 3, and says why on stderr', async () => {
    const reportsDir = await tempDir();
    const port = await freePort();
    const result = await runWithClosed(
      ['run', '--base-url', `http://127.0.0.1:${port}`, '--client-id', 'someone', '--reports-dir', reportsDir],
      'stdout',
      { env: { CARRIER_CLIENT_SECRET: 'not-a-real-secret' } },
    );
    expect(result.other).toMatch(/cannot reach the token endpoint at http:\/\/127\.0\.0\.1:\d+: connection refused/);
    expect(result.other).not.toMatch(STACK_TRACE);
    expect(result.code).toBe(3);
    expect((await reportIn(reportsDir)).verdict).toBe('incomplete');
  });

  it('a conformant target (the embedded server, which prints a line before the run) runs to the end and exits 0', async () => {
    const reportsDir = await tempDir();
    const result = await runWithClosed(['run', '--embedded', '--suite', 'user', '--reports-dir', reportsDir], 'stdout');
    expect(result.other).toBe('');
    expect(result.code).toBe(0);
    // The first line failed long before the end: the run did not stop there.
    const report = await reportIn(reportsDir);
    expect(report.verdict).toBe('conformant-subset'); // --suite user: a subset of the catalogue
    expect(report.counts.passed).toBeGreaterThan(0);
    expect(report.counts.passed).toBe(report.counts.total);
  });

  it('`list` exits 0 without a word on stderr', async () => {
    for (const when of ['at-once', 'after-first-bytes'] as const) {
      const result = await runWithClosed(['list'], 'stdout', { when });
      expect(result.other, when).toBe('');
      expect(result.code, when).toBe(0);
    }
  });

  it('a usage error still exits 2', async () => {
    const result = await runWithClosed(['list', '--bogus-option'], 'stdout');
    expect(result.other).toMatch(/^carrier-conformance: Unknown argument: --bogus-option/);
    expect(result.other).not.toMatch(STACK_TRACE);
    expect(result.code).toBe(2);
  });
});

describe('stderr closed by its reader', () => {
  it('an unreachable target still exits 3, its one line lost with stderr, stdout naming only the reports', async () => {
    const reportsDir = await tempDir();
    const port = await freePort();
    const result = await runWithClosed(
      ['run', '--base-url', `http://127.0.0.1:${port}`, '--client-id', 'someone', '--reports-dir', reportsDir],
      'stderr',
      { env: { CARRIER_CLIENT_SECRET: 'not-a-real-secret' } },
    );
    expect(result.other).toBe(
      `Reports: ${join(reportsDir, 'junit.xml')}, ${join(reportsDir, 'report.json')}, ${join(reportsDir, 'report.html')}\n`,
    );
    expect(result.code).toBe(3);
    expect((await reportIn(reportsDir)).verdict).toBe('incomplete');
  });
});
