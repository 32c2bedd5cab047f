/**
 * The JUnit reader of verify-bundle (src/bundle/junit-read.ts) and the JUnit/JSON agreement
 * (src/bundle/junit-agree.ts), held to what src/report/junit.ts writes.
 */
import { describe, expect, it } from 'vitest';
import { JUNIT_OUTCOME, junitDisagreements } from '../src/bundle/junit-agree.js';
import { JUnitReadError, readJUnit } from '../src/bundle/junit-read.js';
import { CHECK_STATUSES } from '../src/model/run-report.js';
import { renderJUnit } from '../src/report/junit.js';
import { makeRunReport } from './fixtures/report/run-report.js';
import { reportOf } from './support/reports.js';

describe('readJUnit on what the harness writes', () => {
  it('agrees with the report it was rendered from: every status, hostile text, CDATA terminators', () => {
    const report = makeRunReport();
    expect(new Set(report.checks.map((c) => c.status))).toEqual(new Set(CHECK_STATUSES));
    expect(junitDisagreements(report, readJUnit(renderJUnit(report)))).toEqual([]);
  });

  it('writes, for each status, the outcome JUNIT_OUTCOME says (the mapping cannot drift from junit.ts)', () => {
    const ids = ['TOKEN-ISSUE', 'TOKEN-PRAGMA', 'USER-OK', 'AUTH-MISSING', 'PAGE-WALK', 'LINK-PREV'];
    const report = reportOf(Object.fromEntries(CHECK_STATUSES.map((status, i) => [ids[i] ?? '', status])));
    const cases = readJUnit(renderJUnit(report)).flatMap((s) => s.cases);
    for (const check of report.checks) {
      const found = cases.filter((c) => c.name.startsWith(`${check.id} `));
      expect(found, check.id).toHaveLength(1);
      expect(found[0]?.outcomes, check.status).toEqual(
        JUNIT_OUTCOME[check.status] === undefined ? [] : [JUNIT_OUTCOME[check.status]],
      );
    }
  });

  it('does not count an outcome element quoted inside CDATA or a comment', () => {
    const report = reportOf({ 'USER-OK': ['failed', '</system-out><error message="x"/><skipped/>]]><failure/>'] });
    const cases = readJUnit(renderJUnit(report)).flatMap((s) => s.cases);
    expect(cases.map((c) => [c.classname, c.name.split(' ')[0], c.outcomes])).toEqual([
      ['carrier-conformance.user', 'USER-OK', ['failure']],
    ]);
    expect(
      readJUnit(
        '<testsuites><testsuite name="s"><testcase name="A x" classname="c"><!-- <failure/> --></testcase></testsuite></testsuites>',
      )[0]?.cases[0]?.outcomes,
    ).toEqual([]);
  });

  it('names every disagreement', () => {
    const report = reportOf({ 'TOKEN-ISSUE': 'passed', 'USER-OK': 'failed', 'AUTH-MISSING': 'error' });
    const xml = `<testsuites>
<testsuite name="carrier-conformance.token" tests="2" failures="1"><testcase classname="carrier-conformance.token" name="TOKEN-ISSUE x"><failure message="m"/></testcase><testcase classname="carrier-conformance.token" name="TOKEN-EXTRA y"/></testsuite>
<testsuite name="carrier-conformance.user"><testcase classname="carrier-conformance.auth" name="USER-OK z"><failure/><error/></testcase></testsuite>
</testsuites>`;
    expect(junitDisagreements(report, readJUnit(xml))).toEqual([
      'TOKEN-ISSUE: passed in report.json, failure in junit.xml',
      'USER-OK: classname "carrier-conformance.auth" in junit.xml, carrier-conformance.user expected',
      'USER-OK: 2 outcomes (failure, error) in one test case',
      'AUTH-MISSING: no test case in junit.xml',
      'junit.xml has a test case "TOKEN-EXTRA" that report.json does not',
    ]);
    expect(
      junitDisagreements(
        reportOf({ 'TOKEN-ISSUE': 'passed' }),
        readJUnit(
          '<testsuites><testsuite name="t" tests="3" skipped="1"><testcase classname="carrier-conformance.token" name="TOKEN-ISSUE a"/></testsuite></testsuites>',
        ),
      ),
    ).toEqual(['testsuite "t" declares tests="3" but holds 1', 'testsuite "t" declares skipped="1" but holds 0']);
  });

  it('decodes attribute entities', () => {
    const [suite] = readJUnit(
      `<testsuite name="a &amp; b &#x3C;&#60;&quot;&apos;"><testcase name='X &lt;y&gt;' classname="c"/></testsuite>`,
    );
    expect(suite?.name).toBe(`a & b <<"'`);
    expect(suite?.cases[0]?.name).toBe('X <y>');
  });
});

describe('readJUnit refuses what is not well-formed, without guessing', () => {
  it.each([
    ['', /no root element/],
    ['<testsuites>', /ends inside <testsuites>/],
    ['<a></b>', /<\/b> at offset 3 does not close the open element/],
    ['<a x=1/>', /attribute x of <a> is not quoted/],
    ['<a x="1" x="2"/>', /attribute x appears twice/],
    ['<a x="&ent;"/>', /the entity &ent; near offset \d+ is not one XML predefines/],
    ['<a x="a & b"/>', /unterminated entity reference/],
    ['<a/><b/>', /a second root element/],
    ['text<a/>', /text outside the root element/],
    ['<a><!-- never closed', /a comment at offset \d+ is never closed/],
    ['<a><![CDATA[ x </a>', /a CDATA section at offset \d+ is never closed/],
    ['<!DOCTYPE a><a/>', /a DOCTYPE or other declaration at offset 0: refused/],
    ['<testcase name="x"/>', /a <testcase> outside a <testsuite>/],
    ['<testsuite><testsuite/></testsuite>', /a <testsuite> inside another/],
    [`${'<a>'.repeat(100)}${'</a>'.repeat(100)}`, /nested deeper than 64/],
  ])('%j', (xml, message) => {
    expect(() => readJUnit(xml)).toThrow(JUnitReadError);
    expect(() => readJUnit(xml)).toThrow(message);
  });

  it('reads a 20 MB file in bounded time', () => {
    const body =
      '<testcase classname="c" name="X y"><system-out><![CDATA[' + 'z'.repeat(1000) + ']]></system-out></testcase>';
    const xml = `<testsuites><testsuite name="s">${body.repeat(20_000)}</testsuite></testsuites>`;
    const started = Date.now();
    expect(readJUnit(xml)[0]?.cases).toHaveLength(20_000);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
