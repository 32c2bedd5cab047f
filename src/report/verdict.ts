import { plural } from './format.js';
import type { CheckResult, RunReport, Scope } from './model.js';

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
  if (report.scope) return report.scope;
  const checks = report.checks;
  const skipped = new Map<string, string[]>();
  for (const c of checks) if (c.status === 'skipped') skipped.set(c.message ?? 'skipped', [...(skipped.get(c.message ?? 'skipped') ?? []), c.id]);
  const done = checks.filter(carriedOut).length;
  return {
    coverage: done === 0 ? 'none' : done === checks.length ? 'full' : 'partial',
    catalogue: checks.length,
    selection: { suites: [], checks: [], ...(report.rerunOf !== undefined ? { rerunOf: report.rerunOf } : {}) },
    notSelected: [],
    carriedOut: done,
    skipped: [...skipped].map(([reason, ids]) => ({ reason, checks: ids })),
    baselined: checks.filter((c) => c.status === 'expected').map((c) => ({ check: c.id, level: c.level, reason: c.baseline?.reason ?? '' })),
    requireComplete: false,
  };
}

/** A check that proved something: it passed, failed or warned (a baselined failure included). */
export function carriedOut(result: Pick<CheckResult, 'status' | 'findings'>): boolean {
  if (result.status === 'expected') return result.findings.some((f) => f.kind === 'failure');
  return result.status === 'passed' || result.status === 'failed' || result.status === 'warning';
}

const count = (checks: readonly CheckResult[], test: (c: CheckResult) => boolean): number => checks.filter(test).length;

/** "30 not selected (--suite token)": how the checks of the catalogue were narrowed. */
function selectionText(scope: Scope): string {
  const by: string[] = [];
  if (scope.selection.suites.length > 0) by.push(`--suite ${scope.selection.suites.join(', ')}`);
  if (scope.selection.checks.length > 0) by.push(`--check ${scope.selection.checks.join(', ')}`);
  if (scope.selection.rerunOf !== undefined) by.push(`--rerun-failed: only what did not pass in ${scope.selection.rerunOf}`);
  return `${scope.notSelected.length} not selected${by.length > 0 ? ` (${by.join('; ')})` : ''}`;
}

/** What was not carried out, and why: "38 of 58 not carried out: 30 not selected (--suite token), 8 skipped: …". */
function gapText(report: RunReport, scope: Scope): string | undefined {
  const missing = scope.catalogue - scope.carriedOut;
  if (missing <= 0) return undefined;
  const parts: string[] = [];
  if (scope.notSelected.length > 0) parts.push(selectionText(scope));
  for (const group of scope.skipped) parts.push(`${group.checks.length} skipped: ${group.reason}`);
  const errors = count(report.checks, (c) => c.status !== 'skipped' && !carriedOut(c));
  if (errors > 0) parts.push(`${errors} could not be carried out`);
  return `${missing} of ${scope.catalogue} checks not carried out${parts.length > 0 ? `: ${parts.join('; ')}` : ''}`;
}

export function describeVerdict(report: RunReport): VerdictText {
  const scope = scopeOfReport(report);
  const checks = report.checks;
  const gap = gapText(report, scope);
  const warnings = count(checks, (c) => c.status === 'warning');
  const warned = warnings > 0 ? [`${plural(warnings, 'SHOULD check')} warned (${report.strict ? 'failing the run: --strict' : 'not failing the run'})`] : [];

  if (report.verdict === 'incomplete') {
    const reason = report.incompleteReason ?? 'the run stopped before every check was carried out';
    // Nothing was even attempted: no check errs, every one was skipped or none was selected.
    if (scope.carriedOut === 0 && !checks.some((c) => c.status === 'error')) return { tone: 'incomplete', headline: 'NOTHING CHECKED', details: [reason] };
    const done = scope.carriedOut > 0 ? [`${scope.carriedOut} of ${scope.catalogue} checks were carried out before it stopped; this is no verdict on the rest`] : [];
    return { tone: 'incomplete', headline: 'INCOMPLETE', details: [reason, ...done] };
  }

  if (report.verdict === 'non-conformant') {
    const failed = count(checks, (c) => c.status === 'failed');
    const errored = count(checks, (c) => c.status === 'error' && (c.level === 'MUST' || report.strict));
    const details = [
      ...(failed > 0 ? [`${plural(failed, 'required check')} failed: the target does not conform`] : []),
      ...(errored > 0 ? [`${plural(errored, 'required check')} could not be carried out: nothing was proven either way`] : []),
      ...(scope.baselined.length > 0 ? [`${plural(scope.baselined.length, 'known failure')} accepted by ${report.baseline?.file ?? 'the baseline'}: ${scope.baselined.map((b) => b.check).join(', ')}`] : []),
      ...warned,
      ...(gap !== undefined ? [gap] : []),
    ];
    // A target that timed out or refused a prerequisite is not shown to break a rule.
    return { tone: 'fail', headline: failed > 0 ? 'NON-CONFORMANT' : 'NOT PROVEN', details };
  }

  const stale = checks.filter((c) => c.baseline?.stale === true).map((c) => c.id);
  if (report.exitCode !== 0) {
    const file = report.baseline?.file ?? 'the baseline';
    return {
      tone: 'fail',
      headline: 'BASELINE OUT OF DATE',
      details: [`--strict-baseline: ${plural(stale.length || (report.baseline?.stale.length ?? 0), 'known failure')} of ${file} now ${stale.length === 1 ? 'passes' : 'pass'} (${(stale.length > 0 ? stale : (report.baseline?.stale ?? [])).join(', ')}); remove ${stale.length === 1 ? 'it' : 'them'} from the file`, ...(gap !== undefined ? [gap] : [])],
    };
  }

  const accepted = scope.baselined.filter((b) => b.level === 'MUST' || report.strict);
  const base = scope.coverage === 'full' ? 'CONFORMANT' : `CONFORMANT ON ${scope.carriedOut} OF ${scope.catalogue} CHECKS`;
  const failures = `BASELINED ${report.strict ? '' : 'MUST '}FAILURE`;
  const except = accepted.length > 0 ? `${scope.coverage === 'full' ? '' : ','} EXCEPT ${plural(accepted.length, failures, `${failures}S`)}` : '';
  const passed = scope.coverage === 'full' ? 'every check of the catalogue was carried out, and every required check passed' : 'every required check that was carried out passed';
  const details = [
    accepted.length > 0 ? `${passed}, except ${plural(accepted.length, 'known failure')} that ${report.baseline?.file ?? 'the baseline'} accepts: ${accepted.map((b) => b.check).join(', ')}` : passed,
    ...(accepted.length < scope.baselined.length ? [`SHOULD warnings accepted by the baseline: ${scope.baselined.filter((b) => !accepted.includes(b)).map((b) => b.check).join(', ')}`] : []),
    ...warned,
    ...(gap !== undefined ? [gap] : []),
  ];
  return { tone: scope.coverage === 'full' && accepted.length === 0 ? 'pass' : 'partial', headline: `${base}${except}`, details };
}

/** The verdict in one line: headline, then the details. */
export function verdictLine(report: RunReport): string {
  const v = describeVerdict(report);
  return `${v.headline}: ${v.details.join('; ')}`;
}
