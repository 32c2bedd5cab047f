import { summariseFindings } from '../battery/findings-cap.js';
import { BATTERY_ENTRY, suiteFile, type Check, type Level } from '../catalogue/index.js';
import { endpointSummary } from '../report/findings-text.js';
import { MAX_IN_FLIGHT } from '../http/limit.js';
import type { CheckResult, Finding, TeamCheckResult } from '../model/run-report.js';
import type { TeamCheckInfo } from '../model/team-checks.js';
import type { Collected, CollectedTest } from './collector.js';

/**
 * From what Vitest collected to the verdict of every check, and from the verdicts to the run's
 * verdict and exit code. Pure functions: the meta-tests exercise them directly.
 */

function base(check: Check): Pick<CheckResult, 'id' | 'suite' | 'level' | 'title' | 'refs'> {
  return { id: check.id, suite: check.suite, level: check.level, title: check.title, refs: check.refs };
}

/** The result of one check from its collected test; `strict` turns SHOULD failures into failures. */
export function checkResult(
  check: Check,
  test: CollectedTest | undefined,
  collected: Collected,
  strict: boolean,
): CheckResult {
  if (!test) {
    const loadError =
      collected.moduleErrors.get(check.suite) ??
      (check.suite === 'expiry' ? undefined : collected.moduleErrors.get(BATTERY_ENTRY));
    const message = loadError
      ? `the suite file ${suiteFile(check.suite)} failed to load: ${loadError}`
      : collected.reason === 'interrupted'
        ? 'not run: the run was interrupted'
        : `not executed: ${suiteFile(check.suite)} has no test for this check`;
    return { ...base(check), ...notRun(message) };
  }
  return { ...base(check), ...outcomeOf(check.level, test, strict) };
}

/**
 * The result of a team's check (--team-checks) from its collected test, judged as the
 * catalogue's are; `module` is the file it came from.
 */
export function teamCheckResult(
  info: TeamCheckInfo,
  module: string,
  test: CollectedTest | undefined,
  collected: Collected,
  strict: boolean,
): TeamCheckResult {
  const head = { id: info.id, module, level: info.level, title: info.title, refs: [info.reference] };
  if (!test) {
    const loadError = collected.moduleErrors.get(BATTERY_ENTRY);
    const message = loadError
      ? `the battery's entry failed to load: ${loadError}`
      : collected.reason === 'interrupted'
        ? 'not run: the run was interrupted'
        : 'not executed: the battery did not run it';
    return { ...head, ...notRun(message) };
  }
  return { ...head, ...outcomeOf(info.level, test, strict) };
}

type Outcome = Omit<CheckResult, 'id' | 'suite' | 'level' | 'title' | 'refs'>;

function notRun(message: string): Outcome {
  return { findings: [{ kind: 'error', message }], notes: [], exchanges: [], durationMs: 0, status: 'error', message };
}

function outcomeOf(level: Level, test: CollectedTest, strict: boolean): Outcome {
  const meta = test.meta;
  // A SHOULD check's failure on an endpoint is a warning there too, as it is for the check.
  const warns = level === 'SHOULD' && !strict;
  const endpoints = meta?.endpoints?.map((e) =>
    e.status === 'failed' && warns ? { ...e, status: 'warning' as const } : e,
  );
  const common = {
    findings: meta?.findings ?? [],
    ...(endpoints ? { endpoints } : {}),
    notes: meta?.notes ?? [],
    exchanges: meta?.exchanges ?? [],
    durationMs: Math.round(test.durationMs * 1000) / 1000,
  };
  // Across several endpoints the reason starts with how each fared: "23 endpoints, 1 failed: …".
  const across = endpoints && endpoints.length > 1 ? endpointSummary(endpoints) : undefined;
  const reason = (findings: readonly Finding[], notListed = 0): string =>
    [across, summariseFindings(findings, notListed)].filter(Boolean).join('. ');
  switch (test.state) {
    case 'passed':
      return { ...common, status: 'passed' };
    case 'skipped':
      return { ...common, status: 'skipped', message: test.note ?? 'skipped' };
    case 'pending': {
      const message = 'did not finish: the run ended while the check was in progress';
      return { ...common, status: 'error', message, findings: [...common.findings, { kind: 'error', message }] };
    }
    case 'failed': {
      const failures = common.findings.filter((f) => f.kind === 'failure');
      const notListed = meta?.notListed ?? { failures: 0, errors: 0 };
      if (failures.length > 0)
        return {
          ...common,
          status: level === 'MUST' || strict ? 'failed' : 'warning',
          message: reason(failures, notListed.failures),
        };
      if (common.findings.length > 0)
        return { ...common, status: 'error', message: reason(common.findings, notListed.errors) };
      // The test failed without a finding: a timeout or a throw past the check's own handling.
      const message = `the check could not be carried out: ${test.errors.map(inOurWords).join('; ') || 'unknown error'}`;
      return { ...common, status: 'error', message, findings: [{ kind: 'error', message }] };
    }
  }
}

/**
 * Vitest's words for a check its watchdog stopped ("Test timed out in 60000ms. If this is a
 * long-running test, pass a timeout value…") are advice for test authors: the reader of a report
 * gets what happened and what sets the limit (src/battery/watchdog.ts).
 */
function inOurWords(error: string): string {
  const timedOut = /^Test timed out in (\d+)ms\./.exec(error);
  if (!timedOut) return error;
  const seconds = Number(timedOut[1]) / 1000;
  return `it had not finished after ${seconds} s, the most a check may run (20 times --timeout, at least 60 s, for every ${MAX_IN_FLIGHT} endpoints it judges)`;
}
