// Findings capped with a count of the rest (src/battery/findings-cap.ts), and a walk's findings
// listed in the walk's order whatever the order they were made in (WalkResults): which findings
// a report lists must not depend on which answer came first. Pure units, no network.
import { describe, expect, it } from 'vitest';
import { capFindings, FINDINGS_PER_ENDPOINT } from '../src/battery/findings-cap.js';
import { WalkResults } from '../src/battery/walk.js';
import type { CheckContext } from '../src/battery/check.js';

const f = (kind: 'failure' | 'error', n: number) => ({ kind, message: `finding ${n}` });

/** What `report` hands a check's context, as plain data. */
function replay(results: WalkResults): { listed: string[]; notListed: { failures: number; errors: number } } {
  const listed: string[] = [];
  const notListed = { failures: 0, errors: 0 };
  const context = {
    fail: (m: string) => listed.push(`failure: ${m}`),
    error: (m: string) => listed.push(`error: ${m}`),
    countNotListed: (c: { failures: number; errors: number }) => {
      notListed.failures += c.failures;
      notListed.errors += c.errors;
    },
    note: () => undefined,
  } as unknown as CheckContext;
  results.report(context);
  return { listed, notListed };
}

describe('capFindings', () => {
  it('lists the first ones and counts the rest by kind', () => {
    const all = [f('failure', 1), f('error', 2), f('failure', 3), f('failure', 4)];
    expect(capFindings(all, 2)).toEqual({ listed: [all[0], all[1]], rest: { failures: 2, errors: 0 } });
    expect(capFindings(all, 10)).toEqual({ listed: all, rest: { failures: 0, errors: 0 } });
  });

  it('always lists the first failure, so that a check with failures is reported as failed', () => {
    const all = [f('error', 1), f('error', 2), f('error', 3), f('failure', 4), f('failure', 5)];
    const { listed, rest } = capFindings(all, 2);
    expect(listed).toEqual([all[0], all[3]]);
    expect(rest).toEqual({ failures: 1, errors: 2 });
  });
});

describe("a walk's findings", () => {
  it('are listed in page order, the same whatever order the judgements finished in', () => {
    const pages = 3 * FINDINGS_PER_ENDPOINT;
    const made = Array.from({ length: pages }, (_, page) => page);
    const forwards = new WalkResults();
    for (const page of made) forwards.at(page).fail(`page ${page} breaks the rule`);
    // The same findings, the later pages' first (their link targets answered sooner).
    const shuffled = new WalkResults();
    for (const page of [...made].reverse()) shuffled.at(page).fail(`page ${page} breaks the rule`);
    const a = replay(forwards);
    expect(a.listed).toHaveLength(FINDINGS_PER_ENDPOINT);
    expect(a.listed[0]).toBe('failure: page 0 breaks the rule');
    expect(a.notListed).toEqual({ failures: pages - FINDINGS_PER_ENDPOINT, errors: 0 });
    expect(replay(shuffled)).toEqual(a);
  });

  it("lists the walk's first failure even after many errors", () => {
    const results = new WalkResults();
    for (let page = 0; page < 2 * FINDINGS_PER_ENDPOINT; page += 1)
      results.at(page).error(`page ${page} could not be read`);
    results.at(2 * FINDINGS_PER_ENDPOINT).fail('the last page breaks the rule');
    const { listed, notListed } = replay(results);
    expect(listed).toContain('failure: the last page breaks the rule');
    expect(listed).toHaveLength(FINDINGS_PER_ENDPOINT);
    expect(notListed).toEqual({ failures: 0, errors: FINDINGS_PER_ENDPOINT + 1 });
  });
});
