import { findCheck } from '../catalogue/index.js';
import type { Level } from '../catalogue/types.js';
import { catalogueDigest } from '../catalogue/digest.js';
import { checkReason } from '../report/findings-text.js';
import type { CheckResult, CheckStatus, RunReport } from '../model/run-report.js';
import { targetName } from '../report/target-name.js';
import { verdictOfReport } from '../report/verdict.js';

/**
 * What changed between two runs, check by check, for a release gate that must fail only on what
 * got worse. Check ids are stable (src/catalogue/checks.ts), so results are aligned by id.
 *
 * - regression: passed or warning before, failed or error now; passed before and a failure the
 *   baseline accepts now (`expected`: a baseline excuses what was known to fail, not what the last
 *   release got right, issue 42 item 7); or a MUST check that had a result and is now skipped or
 *   not run at all (a gate must not pass because a check stopped running), but in judged traffic,
 *   where a check skipped was not observed: a quieter day, not a worse server;
 * - fix: failed, error or expected (baselined) before, passed or warning now;
 * - unverified: failed or error now, with no earlier verdict (skipped or not run before): a
 *   failure, but not proof that the target got worse;
 * - status / message: any other change of status, or of the reason for the same status;
 * - added / removed: checks the catalogue gained or lost (a harness upgrade), not the target's doing;
 * - now-run / not-run: checks one run selected and the other did not;
 * - level: a check whose level changed between the catalogues (SHOULD → MUST).
 *
 * A pure function of the two reports and this harness's catalogue.
 */

export type ChangeKind =
  | 'regression'
  | 'fix'
  | 'unverified'
  | 'status'
  | 'message'
  | 'added'
  | 'removed'
  | 'now-run'
  | 'not-run'
  | 'level';

export interface Side {
  status: CheckStatus;
  level: Level;
  /** One line: why it ended as it did (its message, else its first finding). */
  reason?: string;
}

export interface CheckChange {
  kind: ChangeKind;
  id: string;
  title: string;
  /** The level that decides: the new one when the check is in NEW. */
  level: Level;
  old?: Side;
  new?: Side;
  /** Why this kind, when the statuses alone do not say (e.g. "became skipped"). */
  note?: string;
}

export interface ReportDiff {
  changes: CheckChange[];
  /** Checks with the same status (and reason) in both. */
  unchanged: number;
  /** Circumstances a reader must know to trust the comparison: other target, other catalogue, … */
  notes: string[];
  old: RunSummary;
  new: RunSummary;
}

export interface RunSummary {
  file: string;
  target: string;
  harness: string;
  startedAt: string;
  verdict: RunReport['verdict'];
  checks: number;
  catalogue?: string;
}

const GOOD: readonly CheckStatus[] = ['passed', 'warning'];
const BAD: readonly CheckStatus[] = ['failed', 'error'];
const NO_VERDICT: readonly CheckStatus[] = ['skipped'];

export function regressions(diff: ReportDiff): CheckChange[] {
  return diff.changes.filter((c) => c.kind === 'regression');
}

/** A full run executes every check of its catalogue: then a missing id is a catalogue difference. */
function isFullRun(report: RunReport): boolean {
  return report.catalogue !== undefined && report.checks.length === report.catalogue.checks;
}

/**
 * Messages quote URLs: the embedded server's port, or a target moved to another host, must not
 * make every message "changed". Each report's own base and auth URL become placeholders.
 */
function normalisedReason(check: CheckResult, report: RunReport): string | undefined {
  const reason = checkReason(check);
  if (reason === undefined) return undefined;
  let out = reason;
  for (const [url, placeholder] of [
    [report.target.authUrl, '{auth}'],
    [report.target.baseUrl, '{base}'],
  ] as const) {
    if (url.length > 0) out = out.split(url).join(placeholder);
  }
  // Measured times are jitter ("0.0 s past" one run, "0.1 s past" the next; "answered in 212 ms"):
  // a fraction of seconds or a percentage, or whole milliseconds. Whole seconds are kept: those are
  // declared values (expires_in 3600 s), whose change is the target's doing.
  return out.replace(/\b\d+\.\d+ ?(s|%)(?![\w%])/g, '# $1').replace(/\b\d+ ?ms\b/g, '# ms');
}

/**
 * The endpoints OLD applied a check to that NEW did not (a smaller OpenAPI document, a
 * --paged-path left out): a check that "got fixed" may just not have met them this time.
 */
function droppedEndpoints(oldCheck: CheckResult, newCheck: CheckResult): string | undefined {
  if (oldCheck.endpoints === undefined || newCheck.endpoints === undefined) return undefined;
  const kept = new Set(newCheck.endpoints.map((e) => e.endpoint));
  const dropped = [...new Set(oldCheck.endpoints.map((e) => e.endpoint).filter((e) => !kept.has(e)))];
  if (dropped.length === 0) return undefined;
  const shown = dropped.slice(0, 3).join(', ') + (dropped.length > 3 ? ` and ${dropped.length - 3} more` : '');
  return `${dropped.length === 1 ? 'endpoint' : `${dropped.length} endpoints`} no longer tested: ${shown}`;
}

function side(check: CheckResult): Side {
  const reason = checkReason(check);
  return { status: check.status, level: check.level, ...(reason !== undefined ? { reason } : {}) };
}

export function summarise(report: RunReport, file: string): RunSummary {
  return {
    file,
    target: targetName(report),
    harness: `${report.tool.name} ${report.tool.version}`,
    startedAt: report.startedAt,
    // Today's vocabulary, for a report of an earlier version too.
    verdict: verdictOfReport(report),
    checks: report.checks.length,
    ...(report.catalogue ? { catalogue: report.catalogue.digest } : {}),
  };
}

/** Why a check is in one run only, and what that means for the gate. */
function onlyInOld(check: CheckResult, newReport: RunReport, sameCatalogue: boolean): CheckChange {
  const base = { id: check.id, title: check.title, level: check.level, old: side(check) };
  const current = newReport.catalogue?.digest === catalogueDigest();
  const removed = isFullRun(newReport) || (current && findCheck(check.id) === undefined);
  if (removed && !sameCatalogue) return { ...base, kind: 'removed', note: 'no longer in the catalogue' };
  const hadResult = !NO_VERDICT.includes(check.status);
  // --rerun-failed runs only what did not pass last time: a check that passed was left out on purpose.
  if (newReport.rerunOf !== undefined && (check.status === 'passed' || check.status === 'warning')) {
    return {
      ...base,
      kind: 'not-run',
      note: `not rerun: NEW repeats only the checks that did not pass in ${newReport.rerunOf}`,
    };
  }
  const known = sameCatalogue || current;
  const note = known
    ? 'not run in NEW'
    : "not in NEW: removed from NEW's catalogue, or not run (the reports do not say which)";
  if (check.level === 'MUST' && hadResult) return { ...base, kind: 'regression', note };
  return { ...base, kind: 'not-run', note };
}

function onlyInNew(check: CheckResult, oldReport: RunReport, sameCatalogue: boolean): CheckChange {
  const base = { id: check.id, title: check.title, level: check.level, new: side(check) };
  if (isFullRun(oldReport) && !sameCatalogue) return { ...base, kind: 'added', note: 'new in the catalogue' };
  if (BAD.includes(check.status)) return { ...base, kind: 'unverified', note: 'not run in OLD' };
  return {
    ...base,
    kind: 'now-run',
    note: sameCatalogue
      ? 'not run in OLD'
      : 'not in OLD: new in the catalogue, or not run (the reports do not say which)',
  };
}

function inBoth(
  oldCheck: CheckResult,
  newCheck: CheckResult,
  oldReport: RunReport,
  newReport: RunReport,
): CheckChange[] {
  const base = {
    id: newCheck.id,
    title: newCheck.title,
    level: newCheck.level,
    old: side(oldCheck),
    new: side(newCheck),
  };
  const changes: CheckChange[] = [];
  if (oldCheck.level !== newCheck.level)
    changes.push({ ...base, kind: 'level', note: `level ${oldCheck.level} → ${newCheck.level}` });
  const [o, n] = [oldCheck.status, newCheck.status];
  if (GOOD.includes(o) && BAD.includes(n)) changes.push({ ...base, kind: 'regression' });
  else if (o === 'passed' && n === 'expected')
    changes.push({
      ...base,
      kind: 'regression',
      note: `a failure now, which the baseline accepts (${newCheck.baseline?.reason ?? 'no reason given'}); it passed before`,
    });
  else if (newCheck.level === 'MUST' && n === 'skipped' && o !== 'skipped' && newReport.traffic !== undefined)
    // Judged traffic (issue 43): a check the new capture did not exercise proves nothing either way.
    changes.push({ ...base, kind: 'status', note: 'not observed in NEW: its traffic did not exercise the check' });
  else if (newCheck.level === 'MUST' && n === 'skipped' && o !== 'skipped')
    changes.push({ ...base, kind: 'regression' });
  else if ((BAD.includes(o) || o === 'expected') && GOOD.includes(n)) changes.push({ ...base, kind: 'fix' });
  else if (NO_VERDICT.includes(o) && BAD.includes(n))
    changes.push({ ...base, kind: 'unverified', note: 'skipped in OLD' });
  else if (o !== n) changes.push({ ...base, kind: 'status' });
  else if (o !== 'passed' && normalisedReason(oldCheck, oldReport) !== normalisedReason(newCheck, newReport))
    changes.push({ ...base, kind: 'message' });
  const dropped = droppedEndpoints(oldCheck, newCheck);
  if (dropped !== undefined) {
    const last = changes[changes.length - 1];
    // On the change it may explain (a fix, a new reason); else a change of its own: what a check covers shrank.
    if (last !== undefined && last.kind !== 'level')
      changes[changes.length - 1] = { ...last, note: last.note === undefined ? dropped : `${last.note}; ${dropped}` };
    else changes.push({ ...base, kind: 'message', note: dropped });
  }
  return changes;
}

function notesOf(oldReport: RunReport, newReport: RunReport): string[] {
  const notes: string[] = [];
  const [o, n] = [summarise(oldReport, ''), summarise(newReport, '')];
  if (o.target !== n.target) notes.push(`the runs tested different targets: ${o.target} (OLD) and ${n.target} (NEW)`);
  if (oldReport.catalogue === undefined || newReport.catalogue === undefined) {
    notes.push(
      `${oldReport.catalogue === undefined ? 'OLD' : 'NEW'} records no catalogue digest (an older harness): checks are matched by id alone`,
    );
  } else if (oldReport.catalogue.digest !== newReport.catalogue.digest) {
    notes.push(
      `the check catalogue changed between the runs (${o.harness} → ${n.harness}): added and removed checks are listed apart, not as regressions`,
    );
  }
  const [oldEndpoints, newEndpoints] = [oldReport.target.endpoints, newReport.target.endpoints];
  if (oldEndpoints !== undefined && newEndpoints !== undefined) {
    const kept = new Set(newEndpoints.map((e) => e.path));
    const gone = oldEndpoints.map((e) => e.path).filter((p) => !kept.has(p));
    // Checks that pass now may pass only because they no longer meet these.
    if (gone.length > 0)
      notes.push(
        `${gone.length === 1 ? 'endpoint' : `${gone.length} endpoints`} no longer tested: ${gone.slice(0, 5).join(', ')}${gone.length > 5 ? ` and ${gone.length - 5} more` : ''} (in OLD, not in NEW)`,
      );
  }
  if (oldReport.strict !== newReport.strict)
    notes.push(
      `only ${newReport.strict ? 'NEW' : 'OLD'} ran with --strict: SHOULD checks fail there instead of warning`,
    );
  for (const [label, report] of [
    ['OLD', oldReport],
    ['NEW', newReport],
  ] as const) {
    const verdict = verdictOfReport(report);
    if (verdict === 'incomplete' || verdict === 'nothing-checked')
      notes.push(
        `${label} is ${verdict === 'incomplete' ? 'incomplete' : 'a run that checked nothing'}: ${report.incompleteReason ?? 'the run stopped early'}`,
      );
  }
  return notes;
}

export function diffReports(
  oldReport: RunReport,
  newReport: RunReport,
  files: { old: string; new: string } = { old: 'OLD', new: 'NEW' },
): ReportDiff {
  const sameCatalogue = oldReport.catalogue !== undefined && oldReport.catalogue.digest === newReport.catalogue?.digest;
  const oldById = new Map(oldReport.checks.map((c) => [c.id, c]));
  const newIds = new Set(newReport.checks.map((c) => c.id));
  const changes: CheckChange[] = [];
  let unchanged = 0;
  for (const newCheck of newReport.checks) {
    const oldCheck = oldById.get(newCheck.id);
    if (oldCheck === undefined) {
      changes.push(onlyInNew(newCheck, oldReport, sameCatalogue));
      continue;
    }
    const found = inBoth(oldCheck, newCheck, oldReport, newReport);
    if (found.length === 0) unchanged += 1;
    changes.push(...found);
  }
  for (const oldCheck of oldReport.checks)
    if (!newIds.has(oldCheck.id)) changes.push(onlyInOld(oldCheck, newReport, sameCatalogue));
  return {
    changes,
    unchanged,
    notes: notesOf(oldReport, newReport),
    old: summarise(oldReport, files.old),
    new: summarise(newReport, files.new),
  };
}
