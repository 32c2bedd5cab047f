import type { LintRuleId, RawFinding } from './rules.js';

/**
 * Lint's output is bounded like its input (issue 37 item 11). A 206 KB document whose YAML
 * aliases repeat one wide schema under every operation made 177 601 findings: 48.6 MB of CI log, a
 * 193 MB SARIF file, 2.4 GB of memory (docs/design.md has the figures). The first findings of a rule
 * show the problem and the count says how widespread it is, as a run lists a check's findings
 * (src/battery/findings-cap.ts):
 *
 * - a document lists at most FINDINGS_PER_RULE findings of a rule, and at most FINDINGS_PER_PLACE
 *   at one place (a file's line, or its pointer where there is no line: an alias repeats one line
 *   under every operation), whatever their rule; a rule's first finding is always listed, so that
 *   every rule with findings is reported as failed or warned;
 * - the rest are counted, per rule, in every output (console, JSON, SARIF, JUnit, report.json);
 * - the memory is bounded with them: a rule keeps at most CANDIDATES_PER_RULE findings to choose
 *   from (enough to fill its list at distinct places), and counts the others as they are found;
 *   only the candidates are traced to their files and lines. (Candidates that repeat a place and
 *   its message are merged; the others are counted as found, the rules visiting each schema once.)
 */
export { CANDIDATES_PER_RULE, CAPS_NOTE, FINDINGS_PER_PLACE, FINDINGS_PER_RULE } from '../catalogue/lint-rules.js';
import { CANDIDATES_PER_RULE, FINDINGS_PER_PLACE, FINDINGS_PER_RULE } from '../catalogue/lint-rules.js';

/** Collects a document's findings as the rules make them: the first candidates of each rule, and a count of the others. */
export class FindingSink {
  readonly kept: RawFinding[] = [];
  readonly #perRule = new Map<LintRuleId, number>();
  readonly #dropped = new Map<LintRuleId, number>();

  constructor(private readonly candidates = CANDIDATES_PER_RULE) {}

  add(finding: RawFinding): void {
    const n = this.#perRule.get(finding.rule) ?? 0;
    this.#perRule.set(finding.rule, n + 1);
    if (n < this.candidates) this.kept.push(finding);
    else this.#dropped.set(finding.rule, (this.#dropped.get(finding.rule) ?? 0) + 1);
  }

  /** How many findings of each rule were counted, not kept. */
  dropped(): ReadonlyMap<LintRuleId, number> {
    return this.#dropped;
  }
}

/** A finding with the place it is shown at, for the caps. */
export interface Placed {
  rule: LintRuleId;
  /** The place: the file and its line, or its pointer where the text gave no line. */
  place: string;
}

/**
 * The findings to list, out of `ordered` (the order the rules found them in, which depends on the
 * document only), and how many of each rule are not listed.
 */
export function capFindings<T extends Placed>(
  ordered: readonly T[],
  perRule = FINDINGS_PER_RULE,
  perPlace = FINDINGS_PER_PLACE,
): { listed: T[]; notListed: Map<LintRuleId, number> } {
  const listed: T[] = [];
  const byRule = new Map<LintRuleId, number>();
  const byPlace = new Map<string, number>();
  const notListed = new Map<LintRuleId, number>();
  for (const f of ordered) {
    const ofRule = byRule.get(f.rule) ?? 0;
    const atPlace = byPlace.get(f.place) ?? 0;
    if (ofRule === 0 || (ofRule < perRule && atPlace < perPlace)) {
      listed.push(f);
      byRule.set(f.rule, ofRule + 1);
      byPlace.set(f.place, atPlace + 1);
    } else {
      notListed.set(f.rule, (notListed.get(f.rule) ?? 0) + 1);
    }
  }
  return { listed, notListed };
}
