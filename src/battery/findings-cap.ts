/**
 * Findings listed per endpoint and per check; the rest are counted. A list of 10 000 pages that
 * all break one rule must not make a report of 10 000 findings (nor keep 10 000 exchanges): the
 * first of them show the problem, and the count says how widespread it is. The first failure of
 * a check is always listed, so that the check is reported as failed, not as an error.
 */
export const FINDINGS_PER_ENDPOINT = 25;
export const FINDINGS_PER_CHECK = 100;

/**
 * A check's outcome in one line: its first listed finding, and how many more there are, listed
 * or only counted (`notListed`). Undefined without a finding.
 */
export function summariseFindings(findings: readonly { message: string }[], notListed = 0): string | undefined {
  const [first] = findings;
  if (!first) return undefined;
  const more = findings.length - 1 + notListed;
  return more === 0 ? first.message : `${first.message} (and ${more} more)`;
}

export interface Counts {
  failures: number;
  errors: number;
}

/**
 * The findings to list, out of `ordered` (already in the report's order, which must not depend
 * on timing): the first `cap`, with the first failure among them whatever its place (else a
 * check whose failures all come after `cap` errors would be reported as an error); and a count
 * of the rest.
 */
export function capFindings<T extends { kind: 'failure' | 'error' }>(
  ordered: readonly T[],
  cap: number,
): { listed: T[]; rest: Counts } {
  const listed = ordered.slice(0, cap);
  const firstFailure = ordered.find((f) => f.kind === 'failure');
  if (firstFailure && !listed.includes(firstFailure)) listed.splice(Math.max(0, cap - 1), listed.length, firstFailure);
  const kept = new Set(listed);
  const rest = { failures: 0, errors: 0 };
  for (const f of ordered) if (!kept.has(f)) rest[f.kind === 'failure' ? 'failures' : 'errors'] += 1;
  return { listed, rest };
}
