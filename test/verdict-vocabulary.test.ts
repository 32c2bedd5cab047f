/**
 * One verdict vocabulary for machines (issue 31): the value src/report/verdict.ts decides is the
 * one report.json, JUnit's `run.verdict`, the step summary, `diff`, `matrix` and its badges
 * write; an earlier version's coarser value is read in today's terms; no exit code changed.
 */
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../src/catalogue/index.js';
import { resolveRunOptions } from '../src/config/options.js';
import { summarise } from '../src/compare/diff.js';
import { ExitCode } from '../src/core/exit-codes.js';
import { combineReports } from '../src/matrix/combine.js';
import { renderJsonReport } from '../src/report/json.js';
import { renderJUnit } from '../src/report/junit.js';
import { renderMarkdownSummary } from '../src/report/markdown.js';
import { VERDICTS, runReportSchema, type RunReport, type Verdict } from '../src/model/run-report.js';
import { parseRunReport } from '../src/report/read.js';
import { VERDICT_EXIT_CODE, describeVerdict, isBlocking, verdictOfReport } from '../src/report/verdict.js';
import { verdictOf } from '../src/report/verdict.js';
import { runMain, tempDir } from './support/harness.js';
import { fullReport, reportOf } from './support/reports.js';

const MUST = CHECKS.filter((c) => c.level === 'MUST');
const [first, second] = [MUST[0]?.id ?? '', MUST[1]?.id ?? ''];

/** The report as a run of this version writes it: verdict and exit code from its checks. */
function judged(report: RunReport, incompleteReason?: string): RunReport {
  const { verdict, exitCode } = verdictOf(report.checks, { strict: report.strict }, incompleteReason);
  return { ...report, verdict, exitCode, ...(incompleteReason !== undefined ? { incompleteReason } : {}) };
}

/** The exit code as `verdictOf` decided it before the vocabulary was refined. */
function exitCodeBefore(report: RunReport, incompleteReason: string | undefined): number {
  if (incompleteReason !== undefined) return ExitCode.Incomplete;
  return report.checks.some((c) => isBlocking(c, report.strict)) ? ExitCode.NonConformant : ExitCode.Conformant;
}

/** A baselined MUST failure, as a run records one: status `expected`, with its failure. */
function baselined(report: RunReport, id: string): RunReport {
  return {
    ...report,
    checks: report.checks.map((c) =>
      c.id === id
        ? {
            ...c,
            status: 'expected' as const,
            findings: [{ kind: 'failure' as const, message: 'known' }],
            baseline: { reason: 'ACME-1', stale: false },
          }
        : c,
    ),
  };
}

interface Case {
  verdict: Verdict;
  /** The value an earlier version wrote for the same run. */
  before: 'conformant' | 'non-conformant' | 'incomplete';
  headline: RegExp;
  exitCode: number;
  standing: string;
  badge: string;
  report: () => RunReport;
  reason?: string;
}

const CASES: Case[] = [
  {
    verdict: 'conformant',
    before: 'conformant',
    headline: /^CONFORMANT$/,
    exitCode: 0,
    standing: 'conformant',
    badge: 'brightgreen',
    report: () => fullReport(),
  },
  {
    verdict: 'conformant-subset',
    before: 'conformant',
    headline: /^CONFORMANT ON \d+ OF \d+ CHECKS$/,
    exitCode: 0,
    standing: 'partial',
    badge: 'yellow',
    report: () => fullReport({ [first]: 'skipped' }),
  },
  {
    verdict: 'conformant-baselined',
    before: 'conformant',
    headline: /^CONFORMANT EXCEPT 1 BASELINED MUST FAILURE$/,
    exitCode: 0,
    standing: 'non-conformant',
    badge: 'red',
    report: () => baselined(fullReport(), first),
  },
  {
    verdict: 'non-conformant',
    before: 'non-conformant',
    headline: /^NON-CONFORMANT$/,
    exitCode: 1,
    standing: 'non-conformant',
    badge: 'red',
    report: () => fullReport({ [first]: 'failed', [second]: 'error' }),
  },
  {
    verdict: 'not-proven',
    before: 'non-conformant',
    headline: /^NOT PROVEN$/,
    exitCode: 1,
    standing: 'not-proven',
    badge: 'orange',
    report: () => fullReport({ [first]: 'error' }),
  },
  {
    verdict: 'incomplete',
    before: 'incomplete',
    headline: /^INCOMPLETE$/,
    exitCode: 3,
    standing: 'incomplete',
    badge: 'lightgrey',
    report: () => fullReport({ [first]: 'error' }),
    reason: 'the run was interrupted',
  },
  {
    verdict: 'nothing-checked',
    before: 'incomplete',
    headline: /^NOTHING CHECKED$/,
    exitCode: 3,
    standing: 'incomplete',
    badge: 'lightgrey',
    report: () => reportOf({ [first]: 'skipped' }),
    reason: 'every selected check was skipped',
  },
];

describe('the verdict vocabulary', () => {
  it('is one enumeration, documented in the schema of report.json, each value with its exit code', () => {
    expect(CASES.map((c) => c.verdict).sort()).toEqual([...VERDICTS].sort());
    expect(runReportSchema.shape.verdict.options).toEqual([...VERDICTS]);
    expect(Object.fromEntries(CASES.map((c) => [c.verdict, c.exitCode]))).toEqual(VERDICT_EXIT_CODE);
  });

  describe.each(CASES)('$verdict', (c) => {
    const report = judged(c.report(), c.reason);

    it('is decided from the checks, with the exit code the run always had', () => {
      expect(report.verdict).toBe(c.verdict);
      expect(report.exitCode).toBe(c.exitCode);
      expect(report.exitCode).toBe(exitCodeBefore(c.report(), c.reason));
      expect(describeVerdict(report).headline).toMatch(c.headline);
    });

    it('is written identically to report.json, JUnit, the step summary, diff, matrix and badge', () => {
      const json = renderJsonReport(report);
      expect((JSON.parse(json) as RunReport).verdict).toBe(c.verdict);
      expect(parseRunReport(json, 'report.json').verdict).toBe(c.verdict);
      expect(renderJUnit(report)).toContain(`<property name="run.verdict" value="${c.verdict}"/>`);
      expect(renderMarkdownSummary(report)).toContain(`Verdict: \`${c.verdict}\`.`);
      expect(summarise(report, 'report.json').verdict).toBe(c.verdict);
      const [target] = combineReports([{ path: 'report.json', report }]).targets;
      expect(target).toMatchObject({ verdict: c.verdict, standing: c.standing, badge: { color: c.badge } });
    });

    it(`an earlier version's "${c.before}" is read as ${c.verdict}`, () => {
      const old: RunReport = { ...report, verdict: c.before };
      delete old.scope;
      const parsed = parseRunReport(JSON.stringify(old), 'old.json');
      expect(verdictOfReport(parsed)).toBe(c.verdict);
      expect(describeVerdict(parsed).headline).toMatch(c.headline);
      expect(summarise(parsed, 'old.json').verdict).toBe(c.verdict);
      expect(renderJUnit(parsed)).toContain(`<property name="run.verdict" value="${c.verdict}"/>`);
      expect(combineReports([{ path: 'old.json', report: parsed }]).targets[0]).toMatchObject({
        verdict: c.verdict,
        standing: c.standing,
      });
    });
  });

  it('matrix: a conformant server whose expiry checks could not run is NOT PROVEN, in its own colour, never red', () => {
    const expiry = CHECKS.filter((c) => c.suite === 'expiry' && c.level === 'MUST').map((c) => c.id);
    expect(expiry.length).toBeGreaterThan(0);
    const report = judged(
      fullReport(
        Object.fromEntries(
          expiry.map((id) => [
            id,
            ['error', 'not carried out: expires_in 3600 s exceeds --max-expiry-wait (--require-complete)'] as const,
          ]),
        ),
      ),
    );
    // Exit 5: nothing failed, and only the EXPIRY-* checks were not waited out (issue 39 item 5); the matrix shows it as any not-proven run.
    expect([report.verdict, report.exitCode]).toEqual(['not-proven', 5]);
    const [target] = combineReports([{ path: 'report.json', report }]).targets;
    expect(target?.standing).toBe('not-proven');
    expect(target?.badge.color).toBe('orange');
    expect(target?.badge.message).toMatch(/^not proven, \d+\/\d+ MUST$/);
  });

  it('--strict-baseline: a stale entry still exits 1, the verdict is the target’s', () => {
    const report = fullReport();
    const checks = report.checks.map((c) => (c.id === first ? { ...c, baseline: { reason: 'old', stale: true } } : c));
    expect(verdictOf(checks, { strict: false, strictBaseline: true }, undefined)).toEqual({
      verdict: 'conformant',
      exitCode: ExitCode.NonConformant,
    });
  });
});

describe('--max-expiry-wait past --deadline (issue 31): refused up front, exit 2, one line', () => {
  it.each([
    [
      ['--max-expiry-wait', '3600', '--deadline', '20'],
      {},
      /^carrier-conformance: --max-expiry-wait 3600 is not below --deadline 20: the run would wait out its deadline for a token to expire and end incomplete; lower the wait .* or raise the deadline\n$/,
    ],
    [
      ['--max-expiry-wait', '600'],
      {},
      /^carrier-conformance: --max-expiry-wait 600 is not below --deadline \(default\) 600: /,
    ],
    [
      ['--deadline', '30'],
      { CARRIER_MAX_EXPIRY_WAIT: '45' },
      /^carrier-conformance: CARRIER_MAX_EXPIRY_WAIT 45 is not below --deadline 30: /,
    ],
  ] as const)('%j %j', async (args, env, message) => {
    const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
    Object.assign(process.env, env);
    try {
      const result = await runMain(['run', '--embedded', ...args, '--reports-dir', await tempDir()]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    } finally {
      for (const [k, v] of Object.entries(saved))
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    }
  });

  it('a wait below the deadline, or the default wait with a short deadline, is accepted as before', () => {
    expect(resolveRunOptions({ argv: { embedded: true, maxExpiryWait: 10, deadline: 20 } })).toMatchObject({
      maxExpiryWait: 10,
      deadline: 20,
    });
    expect(resolveRunOptions({ argv: { embedded: true, deadline: 5 } })).toMatchObject({
      maxExpiryWait: 60,
      deadline: 5,
    });
    expect(() => resolveRunOptions({ argv: { deadline: 30 }, config: { maxExpiryWait: 30 } })).toThrow(
      /^the config file's "maxExpiryWait" 30 is not below --deadline 30: /,
    );
  });
});
