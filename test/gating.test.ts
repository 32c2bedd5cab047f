/**
 * Gating a release in CI: known failures in a --baseline, entries that can go, reruns of what
 * failed, and the choice of reports.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunReport } from '../src/model/run-report.js';
import { startReferenceServer } from '../src/reference/index.js';
import { runAgainst, runMain, statusOf, targetArgs, tempDir } from './support/harness.js';
import { loadBaseline } from '../src/runner/baseline.js';
import { UsageError } from '../src/core/errors.js';

async function baselineFile(entries: unknown): Promise<string> {
  const path = join(await tempDir(), 'baseline.json');
  await writeFile(path, JSON.stringify(entries));
  return path;
}

const TOKEN_SUITE = ['--suite', 'token'];

/** A check's status and baseline record in a run's report. */
const run = (r: { report: RunReport }, id: string) => {
  const check = r.report.checks.find((c) => c.id === id);
  return { status: check?.status, baseline: check?.baseline };
};

describe('--baseline', () => {
  it('reports listed failures as expected and passes the run', async () => {
    const baseline = await baselineFile({
      failures: [
        { check: 'TOKEN-WRONG-SECRET', reason: 'PLAT-101: the staging IdP accepts any secret' },
        { check: 'TOKEN-PRAGMA', reason: 'PLAT-412: the gateway strips Pragma' },
      ],
    });
    const run = await runAgainst({ faults: ['wrong-secret-accepted', 'no-pragma'] }, [
      ...TOKEN_SUITE,
      '--baseline',
      baseline,
    ]);

    expect(run.code).toBe(0);
    expect(statusOf(run.report, 'TOKEN-WRONG-SECRET')).toBe('expected');
    expect(run.report.checks.find((c) => c.id === 'TOKEN-WRONG-SECRET')?.baseline).toEqual({
      reason: 'PLAT-101: the staging IdP accepts any secret',
      stale: false,
    });
    expect(run.report.counts.expected).toBe(2);
    expect(run.stdout).toMatch(/EXPECTED FAILURES \(baseline\)/);
    const junit = await readFile(join(run.reportsDir, 'junit.xml'), 'utf8');
    expect(junit).toMatch(
      /<skipped>expected failure \(baseline: PLAT-101: the staging IdP accepts any secret\): token request with a wrong client secret: expected 401, got 200/,
    );
  });

  it('still fails the run for a failure it does not list', async () => {
    const baseline = await baselineFile({ failures: [{ check: 'TOKEN-PRAGMA', reason: 'PLAT-412' }] });
    const run = await runAgainst({ faults: ['wrong-secret-accepted', 'no-pragma'] }, [
      ...TOKEN_SUITE,
      '--baseline',
      baseline,
    ]);
    expect(run.code).toBe(1);
    expect(statusOf(run.report, 'TOKEN-WRONG-SECRET')).toBe('failed');
  });

  it('says which entries now pass, and fails the run for them with --strict-baseline', async () => {
    const baseline = await baselineFile({ failures: [{ check: 'TOKEN-PRAGMA', reason: 'PLAT-412: fixed in 2.3?' }] });

    const lenient = await runAgainst({}, [...TOKEN_SUITE, '--baseline', baseline]);
    expect(lenient.code).toBe(0);
    expect(lenient.report.baseline).toEqual({ file: baseline, entries: 1, stale: ['TOKEN-PRAGMA'], strict: false });
    expect(lenient.stdout).toMatch(/BASELINE ENTRIES THAT NOW PASS/);

    const strict = await runAgainst({}, [...TOKEN_SUITE, '--baseline', baseline, '--strict-baseline']);
    expect(strict.code).toBe(1);
  });

  it('an entry with a ticket and the day it expires (issue 42 item 7): until then an expected failure; after it, the failure fails the run and the entry is listed as expired', async () => {
    const entry = { check: 'TOKEN-WRONG-SECRET', ticket: 'PLAT-101', reason: 'the staging IdP accepts any secret' };
    const [current, past] = await Promise.all([
      baselineFile({ failures: [{ ...entry, expires: '2999-12-31' }] }),
      baselineFile({ failures: [{ ...entry, expires: '2026-01-31' }] }),
    ]);
    const [held, lapsed] = await Promise.all([
      runAgainst({ faults: ['wrong-secret-accepted'] }, [...TOKEN_SUITE, '--baseline', current]),
      runAgainst({ faults: ['wrong-secret-accepted'] }, [...TOKEN_SUITE, '--baseline', past]),
    ]);
    expect(held.code).toBe(0);
    expect(run(held, 'TOKEN-WRONG-SECRET')).toEqual({
      status: 'expected',
      baseline: { reason: 'PLAT-101: the staging IdP accepts any secret', expires: '2999-12-31', stale: false },
    });
    expect(lapsed.code).toBe(1);
    expect(run(lapsed, 'TOKEN-WRONG-SECRET')).toEqual({
      status: 'failed',
      baseline: {
        reason: 'PLAT-101: the staging IdP accepts any secret',
        expires: '2026-01-31',
        expired: true,
        stale: false,
      },
    });
    expect(lapsed.report.baseline?.expired).toEqual(['TOKEN-WRONG-SECRET']);
    expect(lapsed.stdout).toMatch(
      /BASELINE ENTRIES EXPIRED \(renew or remove them in .*\) \(1\)\n {2}TOKEN-WRONG-SECRET {2}expired after 2026-01-31: PLAT-101: the staging IdP accepts any secret \| this run: failed/,
    );
  });

  it.each([
    [
      { failures: [{ check: 'TOKEN-PRAGMA', reason: 'x', expires: '31/12/2026' }] },
      /failures\.0\.expires: must be a day, YYYY-MM-DD/,
    ],
    [
      { failures: [{ check: 'TOKEN-PRAGMA', reason: 'x', expires: '2026-02-30' }] },
      /"2026-02-30" is no day of the calendar/,
    ],
    [
      { failures: [{ check: 'TOKEN-NOPE', reason: 'x' }] },
      /baseline file .*: failures\.0\.check: unknown check id "TOKEN-NOPE"/,
    ],
    [{ failures: [{ check: 'TOKEN-PRAGMA', reason: ' ' }] }, /failures\.0\.reason: needs a reason/],
    [{ known: [] }, /baseline file .*: unknown key known; expected \{"failures"/],
  ])('refuses a bad baseline file with exit 2: %j', async (content, message) => {
    const result = await runMain([
      'run',
      '--embedded',
      '--baseline',
      await baselineFile(content),
      '--reports-dir',
      await tempDir(),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});

// Issue 32: a baseline's mistakes get the command line's "did you mean", in plain words.
describe('a baseline file with a mistake', () => {
  const EXAMPLE = '; expected {"failures": [{"check": "ID", "reason": "why"}]}';
  it.each([
    [
      { failures: [{ check: 'PAGE-WALKK', reason: 'x' }] },
      'failures.0.check: unknown check id "PAGE-WALKK" (did you mean "PAGE-WALK"?)',
    ],
    [
      { failures: [{ check: 'token-pragma', reason: 'x' }] },
      'failures.0.check: unknown check id "token-pragma" (did you mean "TOKEN-PRAGMA"?)',
    ],
    [{ failures: [{ check: 'TOKEN-PRAGMA', reasn: 'x' }] }, 'failures.0: unknown key reasn (did you mean reason?)'],
    [{ failure: [] }, 'unknown key failure (did you mean failures?)'],
    [{ failures: 'TOKEN-PRAGMA' }, 'failures: must be a list of known failures'],
    [[{ check: 'TOKEN-PRAGMA', reason: 'x' }], 'must be an object, not an array'],
    [{ failures: ['TOKEN-PRAGMA'] }, 'failures.0: must be an object, not a string'],
    [{ failures: [{ check: 'TOKEN-PRAGMA' }] }, 'failures.0.reason: missing: it must be a string'],
  ])('%j: %s', async (content, problem) => {
    const path = await baselineFile(content);
    let message = '';
    try {
      loadBaseline(path);
    } catch (err) {
      expect(err).toBeInstanceOf(UsageError);
      message = (err as Error).message;
    }
    expect(message).toBe(`baseline file ${path}: ${problem}${EXAMPLE}`);
  });

  it('says where its JSON breaks, by line and column', async () => {
    const path = join(await tempDir(), 'baseline.json');
    await writeFile(
      path,
      '{"failures": [\n  {"check": "TOKEN-PRAGMA", "reason": "x"}\n  {"check": "PAGE-WALK", "reason": "y"}\n]}',
    );
    expect(() => loadBaseline(path)).toThrow(
      `baseline file ${path}: not valid JSON (line 3, column 3: expected ',' or ']' after array element)`,
    );
  });
});

describe('--rerun-failed', () => {
  it('runs exactly the checks that did not pass last time, not the whole battery', async () => {
    const reportsDir = await tempDir();
    const server = await startReferenceServer({ faults: ['wrong-secret-accepted', 'user-email-omitted'] });
    process.env.CARRIER_CLIENT_SECRET = server.clientSecret;
    try {
      const first = await runMain([
        'run',
        ...targetArgs(server),
        '--suite',
        'token',
        '--suite',
        'user',
        '--reports-dir',
        reportsDir,
      ]);
      expect(first.code).toBe(1);
      const failed = (JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport).checks
        .filter((c) => ['failed', 'error', 'warning'].includes(c.status))
        .map((c) => c.id);
      expect(failed.length).toBeGreaterThan(1);

      const rerun = await runMain(['run', ...targetArgs(server), '--rerun-failed', '--reports-dir', reportsDir]);
      const report = JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
      expect(rerun.code).toBe(1);
      expect(report.checks.map((c) => c.id)).toEqual(failed);
      expect(report.rerunOf).toBe(join(reportsDir, 'report.json'));
    } finally {
      delete process.env.CARRIER_CLIENT_SECRET;
      await server.close();
    }
  });

  it('runs nothing, and says so, when nothing failed', async () => {
    const reportsDir = await tempDir();
    const previous = join(reportsDir, 'previous.json');
    await runMain(['run', '--embedded', '--check', 'USER-OK', '--reports-dir', reportsDir]);
    await writeFile(previous, await readFile(join(reportsDir, 'report.json'), 'utf8'));

    const rerun = await runMain(['run', '--embedded', '--rerun-failed', previous, '--reports-dir', reportsDir]);
    // No check carried out: no verdict, and not a green one (src/runner/scope.ts).
    expect(rerun.code).toBe(3);
    expect(rerun.stdout).toMatch(
      /^NOTHING CHECKED .*\n {2}nothing to rerun: every selected check passed in .*previous\.json/,
    );
    const report = JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
    expect(report.checks).toEqual([]);
    expect(report).toMatchObject({
      verdict: 'nothing-checked',
      exitCode: 3,
      scope: { coverage: 'none', carriedOut: 0 },
    });
  });

  it('refuses a file that is not a report', async () => {
    const file = join(await tempDir(), 'x.json');
    await writeFile(file, '{"checks": 3}');
    const result = await runMain(['run', '--embedded', '--rerun-failed', file, '--reports-dir', await tempDir()]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/report .*x\.json: not a carrier-conformance report\.json/);
  });
});

describe('--reporter and the GitHub step summary', () => {
  it('writes only the reports asked for', async () => {
    const reportsDir = await tempDir();
    const result = await runMain([
      'run',
      '--embedded',
      '--check',
      'USER-OK',
      '--reporter',
      'json',
      '--reports-dir',
      reportsDir,
    ]);
    expect(result.code).toBe(0);
    expect(await readdir(reportsDir)).toEqual(['report.json']);
  });

  it('appends a Markdown summary to GITHUB_STEP_SUMMARY when it is set', async () => {
    const summary = join(await tempDir(), 'summary.md');
    await writeFile(summary, '# earlier step\n');
    process.env.GITHUB_STEP_SUMMARY = summary;
    try {
      const result = await runMain(['run', '--embedded', '--check', 'USER-OK', '--reports-dir', await tempDir()]);
      expect(result.code).toBe(0);
    } finally {
      delete process.env.GITHUB_STEP_SUMMARY;
    }
    const text = await readFile(summary, 'utf8');
    expect(text.startsWith('# earlier step\n')).toBe(true);
    expect(text).toMatch(/CONFORMANT ON 1 OF \d+ CHECKS/);
    expect(text).toMatch(/\| user \|/);
  });
});
