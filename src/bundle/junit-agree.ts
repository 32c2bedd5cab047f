import type { CheckStatus, RunReport } from '../model/run-report.js';
import { JUNIT_DOCUMENT_SUITE, JUNIT_NAME_PREFIX, JUNIT_TEAM_SUITE } from '../report/junit.js';
import type { JUnitOutcome, JUnitSuite } from './junit-read.js';

/**
 * Does a junit.xml say what its report.json says? The same checks, each once, in its suite, with
 * the outcome src/report/junit.ts writes for its status. A certification programme asks this (the
 * CNCF one holds JUnit against the log): two views that disagree mean one was edited.
 */

/** The outcome element src/report/junit.ts writes for each status (a warning is a pass there). */
export const JUNIT_OUTCOME: Readonly<Record<CheckStatus, JUnitOutcome | undefined>> = {
  passed: undefined,
  warning: undefined,
  failed: 'failure',
  error: 'error',
  skipped: 'skipped',
  expected: 'skipped',
};

/** Every disagreement, one line each; empty when they agree. */
export function junitDisagreements(report: RunReport, suites: readonly JUnitSuite[]): string[] {
  const problems: string[] = [];
  const cases = new Map<string, { suite: string; outcomes: JUnitOutcome[] }[]>();
  const documentRules: string[] = [];
  for (const suite of suites) {
    const tally = { tests: suite.cases.length, failures: 0, errors: 0, skipped: 0 };
    for (const c of suite.cases) {
      // Case names are `<ID> <title>`: the id is the first word.
      const id = c.name.split(/\s/, 1)[0] ?? '';
      // The document's lint findings are no checks (junit.ts addDocumentSuite): held to report.document below.
      if (suite.name === JUNIT_DOCUMENT_SUITE) documentRules.push(id);
      else cases.set(id, [...(cases.get(id) ?? []), { suite: c.classname, outcomes: c.outcomes }]);
      if (c.outcomes.includes('failure')) tally.failures += 1;
      if (c.outcomes.includes('error')) tally.errors += 1;
      if (c.outcomes.includes('skipped')) tally.skipped += 1;
    }
    for (const key of ['tests', 'failures', 'errors', 'skipped'] as const) {
      const declared = suite.declared[key];
      if (declared !== undefined && declared !== tally[key])
        problems.push(`testsuite ${JSON.stringify(suite.name)} declares ${key}="${declared}" but holds ${tally[key]}`);
    }
  }
  // The spec's checks in their suites, then the team's own (--team-checks) in theirs.
  const held = [
    ...report.checks.map((check) => ({ check, classname: `${JUNIT_NAME_PREFIX}.${check.suite}` })),
    ...(report.team?.checks ?? []).map((check) => ({ check, classname: JUNIT_TEAM_SUITE })),
  ];
  for (const { check, classname } of held) {
    const found = cases.get(check.id) ?? [];
    cases.delete(check.id);
    if (found.length !== 1) {
      problems.push(`${check.id}: ${found.length === 0 ? 'no test case' : `${found.length} test cases`} in junit.xml`);
      continue;
    }
    const [only] = found;
    if (only === undefined) continue;
    if (only.suite !== classname)
      problems.push(`${check.id}: classname ${JSON.stringify(only.suite)} in junit.xml, ${classname} expected`);
    const expected = JUNIT_OUTCOME[check.status];
    const actual = only.outcomes;
    if (actual.length > 1)
      problems.push(`${check.id}: ${actual.length} outcomes (${actual.join(', ')}) in one test case`);
    else if (actual[0] !== expected)
      problems.push(`${check.id}: ${check.status} in report.json, ${actual[0] ?? 'passed'} in junit.xml`);
  }
  for (const id of cases.keys())
    problems.push(`junit.xml has a test case ${JSON.stringify(id)} that report.json does not`);
  // As junit.ts orders them: the rules of the findings listed, then those only counted (src/lint/caps.ts).
  const findingRules = [
    ...new Set([
      ...(report.document?.findings ?? []).map((f) => f.rule),
      ...(report.document?.notListed ?? []).map((n) => n.rule),
    ]),
  ];
  if (documentRules.join(' ') !== findingRules.join(' '))
    problems.push(
      `the document's lint findings: rules ${JSON.stringify(documentRules.join(' '))} in junit.xml, ${JSON.stringify(findingRules.join(' '))} in report.json`,
    );
  return problems;
}
