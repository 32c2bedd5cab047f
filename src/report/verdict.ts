import { ExitCode, type ExitCodeValue } from '../core/exit-codes.js';
import { plural } from '../core/wording.js';
import { SUITES } from '../catalogue/types.js';
import {
  countStatuses,
  type CheckResult,
  type Counts,
  type RunReport,
  type Scope,
  type Verdict,
} from '../model/run-report.js';
import { checkReason } from './findings-text.js';

/**
 * The verdict as every output words it (console, report.html's banner, the step summary, JUnit's
 * properties, report.json's `summary`): what was proven, and nothing more. A verdict is evidence;
 * "CONFORMANT" alone is said only of a run that carried out every check of the catalogue and had
 * no failure accepted by a baseline. Anything less says how much less.
 */

/** How an output colours the verdict: only `pass` is green. */
export type VerdictTone = 'pass' | 'partial' | 'fail' | 'incomplete';

export interface VerdictText {
  tone: VerdictTone;
  /** Upper case, e.g. "CONFORMANT ON 20 OF 58 CHECKS". */
  headline: string;
  /** Sentences without a final full stop, each one fact: what failed, what was not carried out, why. */
  details: string[];
}

/** The report's scope; for a report written before scopes existed, what its checks show. */
export function scopeOfReport(report: RunReport): Scope {
  return report.scope ?? scopeOfChecks(report.checks, report.rerunOf);
}

/** What a list of checks shows of the scope, when nothing else says it: every check given was selected. */
export function scopeOfChecks(checks: readonly CheckResult[], rerunOf?: string): Scope {
  const skipped = new Map<string, string[]>();
  for (const c of checks)
    if (c.status === 'skipped')
      skipped.set(c.message ?? 'skipped', [...(skipped.get(c.message ?? 'skipped') ?? []), c.id]);
  const done = checks.filter(carriedOut).length;
  return {
    coverage: done === 0 ? 'none' : done === checks.length ? 'full' : 'partial',
    catalogue: checks.length,
    selection: { suites: [], checks: [], ...(rerunOf !== undefined ? { rerunOf } : {}) },
    notSelected: [],
    carriedOut: done,
    skipped: [...skipped].map(([reason, ids]) => ({ reason, checks: ids })),
    baselined: checks
      .filter((c) => c.status === 'expected')
      .map((c) => ({ check: c.id, level: c.level, reason: c.baseline?.reason ?? '' })),
    requireComplete: false,
  };
}

/** A check that proved something: it passed, failed or warned (a baselined failure included). */
export function carriedOut(result: Pick<CheckResult, 'status' | 'findings'>): boolean {
  if (result.status === 'expected') return result.findings.some((f) => f.kind === 'failure');
  return result.status === 'passed' || result.status === 'failed' || result.status === 'warning';
}

const count = (checks: readonly CheckResult[], test: (c: CheckResult) => boolean): number => checks.filter(test).length;

/**
 * Whether an EXPIRY-* check was not carried out only because the run did not wait the token out:
 * its reason names --max-expiry-wait (src/battery/expiry.ts notWaitedFor), the one cause a
 * separate expiry job removes (issue 39 item 5: exit 5, and verify-bundle's note).
 */
export function expiryNotWaitedOut(result: Pick<CheckResult, 'suite' | 'status' | 'message'>): boolean {
  return (
    result.suite === 'expiry' &&
    (result.status === 'skipped' || result.status === 'error') &&
    (result.message ?? '').includes('--max-expiry-wait')
  );
}

/** Whether a result fails the run: a failure, or an error of a check the run requires. */
export function isBlocking(result: Pick<CheckResult, 'status' | 'level'>, strict: boolean): boolean {
  if (result.status === 'failed') return true;
  if (result.status === 'error') return result.level === 'MUST' || strict;
  return false;
}

/**
 * The one place the machine verdict is decided (report.json's `verdict`; every other output
 * writes the value this returns, or reads it back through verdictOfReport). `stopped`: the run
 * ended early or carried out no check (it has an `incompleteReason`).
 */
export function decideVerdict(facts: {
  checks: readonly CheckResult[];
  strict: boolean;
  scope: Scope;
  stopped: boolean;
}): Verdict {
  const { checks, strict, scope, stopped } = facts;
  // Nothing was even attempted: no check errs, every one was skipped or none was selected.
  if (stopped)
    return scope.carriedOut === 0 && !checks.some((c) => c.status === 'error') ? 'nothing-checked' : 'incomplete';
  // A target that timed out or refused a prerequisite is not shown to break a rule.
  if (checks.some((c) => c.status === 'failed')) return 'non-conformant';
  if (checks.some((c) => isBlocking(c, strict))) return 'not-proven';
  if (scope.baselined.some((b) => b.level === 'MUST' || strict)) return 'conformant-baselined';
  return scope.coverage === 'full' ? 'conformant' : 'conformant-subset';
}

/**
 * The exit code of `run` for each verdict; --strict-baseline makes a stale baseline exit 1 on top
 * (src/runner/results.ts verdictOf). The finer verdicts changed no exit code: each is the one its
 * coarser value (conformant, non-conformant, incomplete) had.
 */
export const VERDICT_EXIT_CODE: Readonly<Record<Verdict, ExitCodeValue>> = {
  conformant: ExitCode.Conformant,
  'conformant-subset': ExitCode.Conformant,
  'conformant-baselined': ExitCode.Conformant,
  'non-conformant': ExitCode.NonConformant,
  'not-proven': ExitCode.NonConformant,
  incomplete: ExitCode.Incomplete,
  'nothing-checked': ExitCode.Incomplete,
};

/**
 * A report's verdict in today's vocabulary. Reports of earlier versions wrote `conformant` for a
 * subset or baselined run, `non-conformant` for one that proved nothing, and `incomplete` for one
 * that checked nothing: the stored value says which kind of outcome it was, the checks refine it.
 * For a report of this version it is the stored value.
 */
export function verdictOfReport(
  report: Pick<RunReport, 'verdict' | 'checks' | 'strict' | 'scope' | 'rerunOf'>,
): Verdict {
  const stopped = report.verdict === 'incomplete' || report.verdict === 'nothing-checked';
  const refined = decideVerdict({
    checks: report.checks,
    strict: report.strict,
    scope: report.scope ?? scopeOfChecks(report.checks, report.rerunOf),
    stopped,
  });
  // Never across the exit code the run had: a hand-edited report is judged elsewhere (verify-bundle).
  return VERDICT_EXIT_CODE[refined] === VERDICT_EXIT_CODE[report.verdict] ? refined : report.verdict;
}

/** "30 not selected (--suite token)": how the checks of the catalogue were narrowed. */
function selectionText(scope: Scope): string {
  const by: string[] = [];
  if (scope.selection.suites.length > 0) by.push(`--suite ${scope.selection.suites.join(', ')}`);
  if (scope.selection.checks.length > 0) by.push(`--check ${scope.selection.checks.join(', ')}`);
  if (scope.selection.rerunOf !== undefined)
    by.push(`--rerun-failed: only what did not pass in ${scope.selection.rerunOf}`);
  if (scope.selection.passive === true) by.push('traffic: they need requests of their own, and traffic sends none');
  return `${scope.notSelected.length} not selected${by.length > 0 ? ` (${by.join('; ')})` : ''}`;
}

/** What was not carried out, and why: "38 of 58 not carried out: 30 not selected (--suite token), 8 skipped: …". */
function gapText(report: RunReport, scope: Scope): string | undefined {
  const missing = scope.catalogue - scope.carriedOut;
  if (missing <= 0) return undefined;
  const parts: string[] = [];
  if (scope.notSelected.length > 0) parts.push(selectionText(scope));
  // A skip --require-complete made an error is counted once, with the errors (issue 39 item 5: "4 skipped" for 2 and 2).
  const skipped = new Set(report.checks.filter((c) => c.status === 'skipped').map((c) => c.id));
  for (const group of scope.skipped) {
    const still = group.checks.filter((id) => skipped.has(id)).length;
    if (still > 0) parts.push(`${still} skipped: ${group.reason}`);
  }
  const errors = count(report.checks, (c) => c.status !== 'skipped' && !carriedOut(c));
  if (errors > 0) parts.push(`${errors} could not be carried out`);
  return `${missing} of ${scope.catalogue} checks not carried out${parts.length > 0 ? `: ${parts.join('; ')}` : ''}`;
}

export function describeVerdict(report: RunReport): VerdictText {
  const scope = scopeOfReport(report);
  const checks = report.checks;
  const gap = gapText(report, scope);
  const warnings = count(checks, (c) => c.status === 'warning');
  const warned =
    warnings > 0
      ? [
          `${plural(warnings, 'SHOULD check')} warned (${report.strict ? 'failing the run: --strict' : 'not failing the run'})`,
        ]
      : [];

  const value = verdictOfReport(report);
  if (value === 'incomplete' || value === 'nothing-checked') {
    const reason = report.incompleteReason ?? 'the run stopped before every check was carried out';
    if (value === 'nothing-checked') return { tone: 'incomplete', headline: 'NOTHING CHECKED', details: [reason] };
    const done =
      scope.carriedOut > 0
        ? [
            `${scope.carriedOut} of ${scope.catalogue} checks were carried out before it stopped; this is no verdict on the rest`,
          ]
        : [];
    return { tone: 'incomplete', headline: 'INCOMPLETE', details: [reason, ...done] };
  }

  if (value === 'non-conformant' || value === 'not-proven') {
    const failed = count(checks, (c) => c.status === 'failed');
    const errored = count(checks, (c) => c.status === 'error' && (c.level === 'MUST' || report.strict));
    const details = [
      ...(failed > 0 ? [`${plural(failed, 'required check')} failed: the target does not conform`] : []),
      ...(errored > 0
        ? [`${plural(errored, 'required check')} could not be carried out: nothing was proven either way`]
        : []),
      ...(scope.baselined.length > 0
        ? [
            `${plural(scope.baselined.length, 'known failure')} accepted by ${report.baseline?.file ?? 'the baseline'}: ${scope.baselined.map((b) => b.check).join(', ')}`,
          ]
        : []),
      ...warned,
      ...(gap !== undefined ? [gap] : []),
    ];
    return { tone: 'fail', headline: value === 'non-conformant' ? 'NON-CONFORMANT' : 'NOT PROVEN', details };
  }

  const stale = checks.filter((c) => c.baseline?.stale === true).map((c) => c.id);
  // --strict-baseline's exit 1, not another code a conformant verdict can have (5, a compared run's,
  // a team check's 6): those are said where they are decided.
  if (
    report.exitCode === ExitCode.NonConformant &&
    report.baseline?.strict === true &&
    (stale.length > 0 || (report.baseline.stale.length ?? 0) > 0)
  ) {
    const file = report.baseline?.file ?? 'the baseline';
    return {
      tone: 'fail',
      headline: 'BASELINE OUT OF DATE',
      details: [
        `--strict-baseline: ${plural(stale.length || (report.baseline?.stale.length ?? 0), 'known failure')} of ${file} now ${stale.length === 1 ? 'passes' : 'pass'} (${(stale.length > 0 ? stale : (report.baseline?.stale ?? [])).join(', ')}); remove ${stale.length === 1 ? 'it' : 'them'} from the file`,
        ...(gap !== undefined ? [gap] : []),
      ],
    };
  }

  const accepted = scope.baselined.filter((b) => b.level === 'MUST' || report.strict);
  const base =
    scope.coverage === 'full' ? 'CONFORMANT' : `CONFORMANT ON ${scope.carriedOut} OF ${scope.catalogue} CHECKS`;
  const failures = `BASELINED ${report.strict ? '' : 'MUST '}FAILURE`;
  const except =
    accepted.length > 0
      ? `${scope.coverage === 'full' ? '' : ','} EXCEPT ${plural(accepted.length, failures, `${failures}S`)}`
      : '';
  const passed =
    scope.coverage === 'full'
      ? 'every check of the catalogue was carried out, and every required check passed'
      : 'every required check that was carried out passed';
  const details = [
    accepted.length > 0
      ? `${passed}, except ${plural(accepted.length, 'known failure')} that ${report.baseline?.file ?? 'the baseline'} accepts: ${accepted.map((b) => b.check).join(', ')}`
      : passed,
    ...(accepted.length < scope.baselined.length
      ? [
          `SHOULD warnings accepted by the baseline: ${scope.baselined
            .filter((b) => !accepted.includes(b))
            .map((b) => b.check)
            .join(', ')}`,
        ]
      : []),
    ...warned,
    ...(gap !== undefined ? [gap] : []),
  ];
  return {
    tone: scope.coverage === 'full' && accepted.length === 0 ? 'pass' : 'partial',
    headline: `${base}${except}`,
    details,
  };
}

/** The verdict in one line: headline, then the details. */
export function verdictLine(report: RunReport): string {
  const v = describeVerdict(report);
  return `${v.headline}: ${v.details.join('; ')}`;
}

export function suiteCounts(checks: readonly CheckResult[]): { name: (typeof SUITES)[number]; counts: Counts }[] {
  return SUITES.filter((s) => checks.some((c) => c.suite === s)).map((name) => ({
    name,
    counts: countStatuses(checks.filter((c) => c.suite === name)),
  }));
}

/**
 * The run's verdict (decided by src/report/verdict.ts) and exit code. With `strictBaseline`, a
 * baseline entry whose check now passes fails the run too: the baseline has to be trimmed, so
 * that it cannot hide a future regression. `scope` defaults to what the checks show.
 */
export function verdictOf(
  checks: readonly CheckResult[],
  options: { strict: boolean; strictBaseline?: boolean },
  incompleteReason: string | undefined,
  scope: Scope = scopeOfChecks(checks),
): { verdict: RunReport['verdict']; exitCode: ExitCodeValue } {
  const verdict = decideVerdict({ checks, strict: options.strict, scope, stopped: incompleteReason !== undefined });
  const exitCode = VERDICT_EXIT_CODE[verdict];
  if (exitCode === ExitCode.Conformant && options.strictBaseline && checks.some((c) => c.baseline?.stale))
    return { verdict, exitCode: ExitCode.NonConformant };
  if (verdict === 'not-proven' && expiryLeftToItsJob(checks, options.strict))
    return { verdict, exitCode: ExitCode.ExpiryLeft };
  return { verdict, exitCode };
}

/** Whether the only checks keeping the run from conformant are EXPIRY-* ones it chose not to wait out; any other error, and any failure, keeps exit 1. */
function expiryLeftToItsJob(checks: readonly CheckResult[], strict: boolean): boolean {
  const blocking = checks.filter((c) => isBlocking(c, strict));
  return blocking.length > 0 && blocking.every(expiryNotWaitedOut);
}

/** A required check the run could not skip under --require-complete: MUST, or every check with --strict. */
function required(result: Pick<CheckResult, 'level'>, strict: boolean): boolean {
  return result.level === 'MUST' || strict;
}

/** With --require-complete, a required check that was skipped becomes an error that gives the skip's reason. */
export function enforceComplete(
  results: readonly CheckResult[],
  options: { requireComplete: boolean; strict: boolean },
): CheckResult[] {
  if (!options.requireComplete) return [...results];
  return results.map((r) => {
    if (r.status !== 'skipped' || !required(r, options.strict)) return r;
    const message = `not carried out, and --require-complete requires it: ${checkReason(r) ?? 'skipped'}`;
    return { ...r, status: 'error', message, findings: [...r.findings, { kind: 'error', message }] };
  });
}
