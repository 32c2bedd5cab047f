// The JUnit rule checker (test/fixtures/report/junit-rules.ts) catches each broken rule.
import { describe, expect, it } from 'vitest';
import { junitRuleProblems } from './fixtures/report/junit-rules.js';

const suite = (attrs: string, cases: string): string =>
  `<?xml version="1.0"?><testsuites><testsuite name="s" tests="1" failures="0" errors="0" skipped="0" ${attrs}>${cases}</testsuite></testsuites>`;

describe('junitRuleProblems', () => {
  it('accepts a well-formed report', async () => {
    expect(
      await junitRuleProblems(
        suite('time="1.5" timestamp="2026-11-22T01:02:03Z"', '<testcase classname="c" name="A" time="0.123"/>'),
      ),
    ).toEqual([]);
  });

  it.each([
    [
      'a root other than <testsuites>',
      '<?xml version="1.0"?><testsuite name="s" tests="0" failures="0" errors="0" skipped="0"/>',
      /the root is <testsuite>/,
    ],
    [
      'two outcomes on one case',
      suite('', '<testcase classname="c" name="A"><failure message="m" type="t">b</failure><skipped/></testcase>'),
      /2 outcomes/,
    ],
    [
      'a failure without a body',
      '<?xml version="1.0"?><testsuites><testsuite name="s" tests="1" failures="1" errors="0" skipped="0"><testcase classname="c" name="A"><failure message="m" type="t"/></testcase></testsuite></testsuites>',
      /has no body/,
    ],
    [
      'an error without a message',
      suite('', '<testcase classname="c" name="A"><error type="t">b</error></testcase>'),
      /<error> has no message/,
    ],
    [
      'counts that do not match',
      suite('', '<testcase classname="c" name="A"/><testcase classname="c" name="B"/>'),
      /tests="1" but it holds 2/,
    ],
    [
      'duplicate names',
      suite('', '<testcase classname="c" name="A"/><testcase classname="c" name="A"/>'),
      /not unique/,
    ],
    ['times with 4 decimals', suite('', '<testcase classname="c" name="A" time="0.1234"/>'), /more than 3 decimals/],
    [
      'a local timestamp',
      suite('timestamp="2026-11-22T01:02:03"', '<testcase classname="c" name="A"/>'),
      /not UTC ISO 8601/,
    ],
    [
      'testcase properties',
      suite('', '<testcase classname="c" name="A"><properties><property name="a" value="b"/></properties></testcase>'),
      /has <properties>/,
    ],
  ])('finds %s', async (_what, xml, problem) => {
    expect(await junitRuleProblems(xml)).toContainEqual(expect.stringMatching(problem));
  });
});
