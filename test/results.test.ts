// From collected tests to check results, and from results to the run's verdict (src/runner/results.ts),
// and the check id of a battery test's name (src/runner/collector.ts).
import { describe, expect, it } from 'vitest';
import type { CheckMeta } from '../src/battery/check.js';
import { CHECKS, getCheck } from '../src/catalogue/index.js';
import { ExitCode } from '../src/core/exit-codes.js';
import type { CheckResult, CheckStatus, Finding } from '../src/model/run-report.js';
import { checkResultSchema } from '../src/model/run-report.js';
import { checkIdOfTestName, type Collected, type CollectedTest } from '../src/runner/collector.js';
import { isBlocking, suiteCounts, verdictOf } from '../src/report/verdict.js';
import { checkResult } from '../src/runner/results.js';

const MUST = getCheck('TOKEN-ISSUE');
const SHOULD = getCheck('TOKEN-PRAGMA');

function collected(overrides: Partial<Collected> = {}): Collected {
  return { tests: new Map(), moduleErrors: new Map(), unhandledErrors: [], ...overrides };
}

function meta(checkId: string, findings: Finding[], notes: string[] = []): CheckMeta {
  return { checkId, findings, notes, exchanges: [], requests: findings.length, sharedTokenRequests: 0 };
}

function collectedTest(state: CollectedTest['state'], extra: Partial<CollectedTest> = {}): CollectedTest {
  return { checkId: 'TOKEN-ISSUE', state, errors: [], durationMs: 12.34567, ...extra };
}

const failure = (message: string): Finding => ({ kind: 'failure', message });
const error = (message: string): Finding => ({ kind: 'error', message });

describe('checkResult', () => {
  it('copies the catalogue entry, findings, notes and a rounded duration of a passed check', () => {
    const result = checkResult(
      MUST,
      collectedTest('passed', { meta: meta(MUST.id, [], ['size capped at 50']) }),
      collected(),
      false,
    );
    expect(result).toEqual({
      id: MUST.id,
      suite: MUST.suite,
      level: MUST.level,
      title: MUST.title,
      refs: MUST.refs,
      status: 'passed',
      findings: [],
      notes: ['size capped at 50'],
      exchanges: [],
      durationMs: 12.346,
    });
  });

  it('gives a skipped check the reason as its message', () => {
    expect(
      checkResult(MUST, collectedTest('skipped', { note: 'no tenant under test' }), collected(), false),
    ).toMatchObject({ status: 'skipped', message: 'no tenant under test' });
    expect(checkResult(MUST, collectedTest('skipped'), collected(), false)).toMatchObject({
      status: 'skipped',
      message: 'skipped',
    });
  });

  it('makes a check still pending at the end an error, keeping its findings', () => {
    const result = checkResult(
      MUST,
      collectedTest('pending', { meta: meta(MUST.id, [failure('first')]) }),
      collected(),
      false,
    );
    const message = 'did not finish: the run ended while the check was in progress';
    expect(result).toMatchObject({ status: 'error', message });
    expect(result.findings).toEqual([failure('first'), error(message)]);
  });

  it.each([
    ['MUST', MUST, false, 'failed'],
    ['MUST', MUST, true, 'failed'],
    ['SHOULD', SHOULD, false, 'warning'],
    ['SHOULD', SHOULD, true, 'failed'],
  ] as const)('makes a failure of a %s check (strict: %s) %s', (_level, check, strict, status) => {
    const result = checkResult(
      check,
      collectedTest('failed', { meta: meta(check.id, [failure('no Pragma: no-cache')]) }),
      collected(),
      strict,
    );
    expect(result).toMatchObject({ status, message: 'no Pragma: no-cache' });
  });

  it('summarises several failures by the first, counting only failures', () => {
    const findings = [
      error('could not parse'),
      failure('first failure'),
      failure('second failure'),
      failure('third failure'),
    ];
    const result = checkResult(MUST, collectedTest('failed', { meta: meta(MUST.id, findings) }), collected(), false);
    expect(result).toMatchObject({ status: 'failed', message: 'first failure (and 2 more)' });
    expect(result.findings).toEqual(findings);
  });

  it('makes a failed check with only error findings an error', () => {
    const findings = [error('the exchange failed: connection reset'), error('second')];
    expect(
      checkResult(MUST, collectedTest('failed', { meta: meta(MUST.id, findings) }), collected(), false),
    ).toMatchObject({
      status: 'error',
      message: 'the exchange failed: connection reset (and 1 more)',
      findings,
    });
  });

  it('makes a failed check without findings (a timeout) an error naming what Vitest saw', () => {
    const result = checkResult(
      MUST,
      collectedTest('failed', {
        errors: [
          'Test timed out in 60000ms.\nIf this is a long-running test, pass a timeout value as the last argument or configure it globally with "testTimeout".',
          'second',
        ],
      }),
      collected(),
      false,
    );
    const message =
      'the check could not be carried out: it had not finished after 60 s, the most a check may run (20 times --timeout, at least 60 s, for every 32 endpoints it judges); second';
    expect(result).toMatchObject({ status: 'error', message, findings: [error(message)] });
  });

  it('says "unknown error" for a failed check without findings or errors', () => {
    expect(checkResult(MUST, collectedTest('failed'), collected(), false).message).toBe(
      'the check could not be carried out: unknown error',
    );
  });

  it.each([
    [
      'its suite file failed to load',
      collected({ moduleErrors: new Map([['token', 'SyntaxError: Unexpected token']]) }),
      'the suite file suites/token.test.ts failed to load: SyntaxError: Unexpected token',
    ],
    ['the run was interrupted', collected({ reason: 'interrupted' }), 'not run: the run was interrupted'],
    ['its suite has no test for it', collected(), 'not executed: suites/token.test.ts has no test for this check'],
    [
      'another suite file failed to load',
      collected({ moduleErrors: new Map([['user', 'boom']]) }),
      'not executed: suites/token.test.ts has no test for this check',
    ],
  ])('makes a check that was not collected because %s an error', (_why, c, message) => {
    expect(checkResult(MUST, undefined, c, false)).toMatchObject({
      status: 'error',
      message,
      findings: [error(message)],
      notes: [],
      exchanges: [],
      durationMs: 0,
    });
  });

  it('prefers the load error to the interruption', () => {
    const c = collected({ reason: 'interrupted', moduleErrors: new Map([['token', 'boom']]) });
    expect(checkResult(MUST, undefined, c, false).message).toBe(
      'the suite file suites/token.test.ts failed to load: boom',
    );
  });

  it('produces results valid against the report schema', () => {
    const tests: (CollectedTest | undefined)[] = [
      collectedTest('passed'),
      collectedTest('skipped'),
      collectedTest('pending'),
      collectedTest('failed'),
      collectedTest('failed', { meta: meta(MUST.id, [failure('x')]) }),
      undefined,
    ];
    for (const t of tests)
      expect(checkResultSchema.safeParse(checkResult(SHOULD, t, collected(), false)).success).toBe(true);
  });
});

/** A result of one status and level, the rest irrelevant here. */
function result(
  status: CheckStatus,
  level: 'MUST' | 'SHOULD' = 'MUST',
  suite: CheckResult['suite'] = 'token',
): CheckResult {
  return {
    id: `X-${status.toUpperCase()}`,
    suite,
    level,
    title: 'a check for the tests',
    refs: ['RFC 6749 §5.1'],
    status,
    findings: [],
    notes: [],
    exchanges: [],
    durationMs: 0,
  };
}

describe('isBlocking', () => {
  it.each([
    ['failed', 'MUST', false, true],
    ['failed', 'SHOULD', false, true],
    ['error', 'MUST', false, true],
    ['error', 'SHOULD', false, false],
    ['error', 'SHOULD', true, true],
    ['warning', 'SHOULD', false, false],
    ['warning', 'SHOULD', true, false],
    ['passed', 'MUST', true, false],
    ['skipped', 'MUST', true, false],
  ] as const)('%s %s (strict: %s) → %s', (status, level, strict, blocking) => {
    expect(isBlocking(result(status, level), strict)).toBe(blocking);
  });
});

describe('verdictOf', () => {
  it.each([
    // Verdicts are in today's vocabulary (src/report/verdict.ts); the exit codes are the ones each case always had.
    ['no checks', [], false, undefined, 'conformant-subset', ExitCode.Conformant],
    [
      'every check passed',
      [result('passed'), result('warning', 'SHOULD')],
      false,
      undefined,
      'conformant',
      ExitCode.Conformant,
    ],
    [
      'passes, skips and warnings',
      [result('passed'), result('skipped'), result('warning', 'SHOULD')],
      false,
      undefined,
      'conformant-subset',
      ExitCode.Conformant,
    ],
    [
      'a SHOULD error',
      [result('passed'), result('error', 'SHOULD')],
      false,
      undefined,
      'conformant-subset',
      ExitCode.Conformant,
    ],
    [
      'a SHOULD error, strict',
      [result('passed'), result('error', 'SHOULD')],
      true,
      undefined,
      'not-proven',
      ExitCode.NonConformant,
    ],
    ['a failure', [result('passed'), result('failed')], false, undefined, 'non-conformant', ExitCode.NonConformant],
    [
      'a failure and an error',
      [result('error'), result('failed')],
      false,
      undefined,
      'non-conformant',
      ExitCode.NonConformant,
    ],
    ['a MUST error', [result('error')], false, undefined, 'not-proven', ExitCode.NonConformant],
    ['an incomplete run', [result('passed')], false, 'target unreachable', 'incomplete', ExitCode.Incomplete],
    [
      'a run that checked nothing',
      [result('skipped')],
      false,
      'every selected check was skipped',
      'nothing-checked',
      ExitCode.Incomplete,
    ],
    ['an incomplete run with failures', [result('failed')], false, 'interrupted', 'incomplete', ExitCode.Incomplete],
  ] as const)('%s → %s', (_what, checks, strict, incomplete, verdict, exitCode) => {
    expect(verdictOf(checks, { strict }, incomplete)).toEqual({ verdict, exitCode });
  });

  it('exit codes are 0, 1 and 3', () => {
    expect([ExitCode.Conformant, ExitCode.NonConformant, ExitCode.Incomplete]).toEqual([0, 1, 3]);
  });
});

describe('suiteCounts', () => {
  it('counts the statuses of each suite that has results, in the order of SUITES', () => {
    const checks = [
      result('passed', 'MUST', 'pagination'),
      result('failed', 'MUST', 'token'),
      result('warning', 'SHOULD', 'token'),
      result('skipped', 'MUST', 'pagination'),
      result('passed', 'MUST', 'token'),
    ];
    expect(suiteCounts(checks)).toEqual([
      { name: 'token', counts: { total: 3, passed: 1, failed: 1, warning: 1, error: 0, skipped: 0, expected: 0 } },
      { name: 'pagination', counts: { total: 2, passed: 1, failed: 0, warning: 0, error: 0, skipped: 1, expected: 0 } },
    ]);
  });

  it('is empty without results', () => {
    expect(suiteCounts([])).toEqual([]);
  });
});

describe('checkIdOfTestName', () => {
  it.each([
    ['TOKEN-ISSUE Valid client credentials get 200', 'TOKEN-ISSUE'],
    ['LINK-FIRST-LAST rel="first" and rel="last"', 'LINK-FIRST-LAST'],
    ['PAGE-2 the second page', 'PAGE-2'],
    ['TOKEN-ISSUE', undefined],
    ['token-issue Valid client credentials', undefined],
    ['TOKEN Valid client credentials', undefined],
    [' TOKEN-ISSUE leading space', undefined],
    ['TOKEN-ISSUE-', undefined],
    ['', undefined],
  ])('%j → %j', (name, id) => {
    expect(checkIdOfTestName(name)).toBe(id);
  });

  it.each(CHECKS.map((c) => [c.id, `${c.id} ${c.title}`] as const))('reads %s back from its test name', (id, name) => {
    expect(checkIdOfTestName(name)).toBe(id);
  });
});
