import { CHECKS, type Check } from '../catalogue/index.js';
import { checkReason } from '../report/findings-text.js';
import type { RunOptions } from '../config/options.js';
import { UsageError } from '../core/errors.js';
import type { CheckResult, Scope } from '../model/run-report.js';
import { carriedOut } from '../report/verdict.js';

/**
 * What a run's verdict covers (`scope` in report.json): the selection, the checks carried out,
 * the skipped ones by reason, the failures a baseline accepted. And the policy for skipped
 * required checks:
 *
 * By default a skip does not fail the run. Every skip in this battery comes from the run's
 * configuration (no --paged-path, no --expectations, an expires_in longer than --max-expiry-wait,
 * credentials that form-encoding leaves unchanged), not from the target, and exit 1 means "the
 * target does not conform": a skip is a gap in the evidence, which the verdict names in every
 * output instead of showing green. With --require-complete a required check that was skipped is
 * an error and fails the run (exit 1): for gates that certify, where a gap is a failure. A run
 * that carried out no check at all has no verdict (incomplete, exit 3), whatever the options.
 */

/** --require-complete asks for the whole catalogue: a subset can never satisfy it. */
export function checkRequireComplete(options: RunOptions): void {
  if (!options.requireComplete) return;
  const subset = [
    options.suite.length > 0 && '--suite',
    options.check.length > 0 && '--check',
    options.rerunFailed !== undefined && '--rerun-failed',
  ].filter(Boolean);
  if (subset.length > 0)
    throw new UsageError(
      `--require-complete asks for every check of the catalogue, ${subset.join(' and ')} for a part of it: drop one`,
    );
}

/** The skipped checks grouped by reason, in the order the reasons first appear. */
export function skippedByReason(results: readonly CheckResult[]): Scope['skipped'] {
  const groups = new Map<string, string[]>();
  for (const r of results) {
    if (r.status !== 'skipped') continue;
    const reason = checkReason(r) ?? 'skipped';
    groups.set(reason, [...(groups.get(reason) ?? []), r.id]);
  }
  return [...groups].map(([reason, checks]) => ({ reason, checks }));
}

export interface ScopeInputs {
  options: Pick<RunOptions, 'suite' | 'check' | 'requireComplete'>;
  selected: readonly Check[];
  rerunOf: string | undefined;
  /** The final results (baseline and --require-complete applied). */
  results: readonly CheckResult[];
  /** The skips, taken before --require-complete turned required ones into errors. */
  skipped: Scope['skipped'];
}

export function scopeOf({ options, selected, rerunOf, results, skipped }: ScopeInputs): Scope {
  const ids = new Set(selected.map((c) => c.id));
  const done = results.filter(carriedOut).length;
  return {
    coverage: done === 0 ? 'none' : done === CHECKS.length ? 'full' : 'partial',
    catalogue: CHECKS.length,
    selection: {
      suites: [...options.suite],
      checks: [...options.check],
      ...(rerunOf !== undefined ? { rerunOf } : {}),
    },
    notSelected: CHECKS.filter((c) => !ids.has(c.id)).map((c) => c.id),
    carriedOut: done,
    skipped,
    baselined: results
      .filter((r) => r.status === 'expected')
      .map((r) => ({ check: r.id, level: r.level, reason: r.baseline?.reason ?? '' })),
    requireComplete: options.requireComplete,
  };
}

/** Why a run that carried out no check has no verdict; undefined when it carried out some. */
export function nothingCheckedReason(scope: Scope, results: readonly CheckResult[]): string | undefined {
  if (scope.carriedOut > 0) return undefined;
  if (results.length === 0) {
    return scope.selection.rerunOf !== undefined
      ? `nothing to rerun: every selected check passed in ${scope.selection.rerunOf}`
      : 'no check was selected';
  }
  const skipped = scope.skipped.reduce((n, g) => n + g.checks.length, 0);
  const parts = [
    skipped > 0 && `${skipped} skipped (${scope.skipped.map((g) => g.reason).join('; ')})`,
    results.length > skipped && `${results.length - skipped} could not be carried out`,
  ].filter(Boolean);
  return `no check was carried out: of the ${results.length} selected, ${parts.join(', ')}`;
}
