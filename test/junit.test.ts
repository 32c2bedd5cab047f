import junitReportBuilder from 'junit-report-builder';
import type { Builder } from 'junit-report-builder';
import { beforeAll, describe, expect, it } from 'vitest';
import { SUITES } from '../src/catalogue/types.js';
import { formatExchange } from '../src/report/findings-text.js';
import { JUNIT_MESSAGE_MAX, renderJUnit } from '../src/report/junit.js';
import type { CheckResult, RunReport } from '../src/model/run-report.js';
import { curlCommand } from '../src/report/reproduce.js';
import { splitCdataTerminators, stripInvalidXmlChars } from '../src/report/xml-text.js';
import {
  BASELINE_REASON,
  NASTY_BODY_XML,
  NASTY_MESSAGE_XML,
  STALE_REASON,
  makeRunReport,
} from './fixtures/report/run-report.js';
import { XSD_FILES, childElements, loadXsd, parseXml, textOf, validateAgainst } from './fixtures/report/xml.js';
import type { XmlElement } from './fixtures/report/xml.js';

const OUTCOMES = ['failure', 'error', 'skipped'] as const;
/** Attributes both XSDs allow on each element (their intersection). */
const ALLOWED_ATTRS: Record<string, readonly string[]> = {
  testsuites: ['name', 'time', 'tests', 'failures', 'errors'],
  testsuite: ['name', 'tests', 'failures', 'errors', 'time', 'skipped', 'timestamp', 'hostname', 'id', 'package'],
  testcase: ['name', 'time', 'classname'],
  failure: ['type', 'message'],
  error: ['type', 'message'],
  skipped: [],
  properties: [],
  property: ['name', 'value'],
  'system-out': [],
};
const TIME = /^\d+(\.\d{1,3})?$/;

function attr(el: XmlElement, name: string): string {
  const value = el.attrs[name];
  if (value === undefined) throw new Error(`<${el.name}> has no ${name}`);
  return value;
}

function only<T>(items: readonly T[], what: string): T {
  if (items.length !== 1) throw new Error(`expected exactly one ${what}, found ${items.length}`);
  return items[0] as T;
}

function caseOf(root: XmlElement, id: string): XmlElement {
  const cases = childElements(root, 'testsuite').flatMap((s) => childElements(s, 'testcase'));
  return only(
    cases.filter((c) => attr(c, 'name').startsWith(`${id} `)),
    `testcase ${id}`,
  );
}

function checkOf(report: RunReport, id: string): CheckResult {
  return only(
    report.checks.filter((c) => c.id === id),
    `check ${id}`,
  );
}

describe('renderJUnit', () => {
  let report: RunReport;
  let xml: string;
  let root: XmlElement;

  beforeAll(async () => {
    report = makeRunReport();
    xml = renderJUnit(report);
    root = await parseXml(xml);
  });

  describe.each(XSD_FILES)('against %s', (xsdName) => {
    let xsd: string;
    beforeAll(async () => {
      xsd = await loadXsd(xsdName);
    });

    it('validates the full fixture report', async () => {
      expect(await validateAgainst(xml, xsd)).toEqual({ valid: true, errors: [] });
    });

    it('validates a rerun with a strict baseline, form-encoded credentials and every check expected or stale', async () => {
      const other = makeRunReport();
      other.rerunOf = 'reports/previous/report.json';
      other.target.credentialsFormEncoded = true;
      other.baseline = { file: 'baseline <&>.json', entries: other.checks.length, stale: [], strict: true };
      other.checks = other.checks.map((c) =>
        c.status === 'passed'
          ? { ...c, baseline: { reason: `${c.id} ]]> was broken`, stale: true } }
          : { ...c, status: 'expected', baseline: { reason: `known: ${c.id} ]]>\u0000`, stale: false } },
      );
      other.baseline.stale = other.checks.filter((c) => c.baseline?.stale === true).map((c) => c.id);
      const otherXml = renderJUnit(other);
      expect(otherXml).toContain('run.rerunOf');
      expect(await validateAgainst(otherXml, xsd)).toEqual({ valid: true, errors: [] });
    });

    it('validates a report without checks', async () => {
      const empty = renderJUnit({ ...makeRunReport(), checks: [] });
      expect(await validateAgainst(empty, xsd)).toEqual({ valid: true, errors: [] });
    });

    it('validates a report without a tenant and with a start time that is not a date', async () => {
      const other = makeRunReport();
      delete other.target.tenantId;
      other.startedAt = 'not a date';
      const otherXml = renderJUnit(other);
      expect(otherXml).not.toContain('timestamp=');
      expect(otherXml).not.toContain('target.tenantId');
      expect(await validateAgainst(otherXml, xsd)).toEqual({ valid: true, errors: [] });
    });

    // The validator must be able to fail, or the tests above prove nothing.
    it("rejects junit-report-builder's own <testsuites skipped>", async () => {
      const withSkipped = xml.replace('<testsuites ', '<testsuites skipped="3" ');
      expect((await validateAgainst(withSkipped, xsd)).valid).toBe(false);
    });
  });

  it('is rejected as malformed when a second ]]> is left unsplit (the bug this module works around)', async () => {
    const broken = xml.replace('<system-out><![CDATA[', '<system-out><![CDATA[a]]>b]]>c');
    await expect(parseXml(broken)).rejects.toThrow(/not well-formed/);
  });

  it('uses only attributes both schemas allow, and no testcase properties', () => {
    const visit = (el: XmlElement): void => {
      const allowed = ALLOWED_ATTRS[el.name];
      expect(allowed, `<${el.name}>`).toBeDefined();
      expect(
        Object.keys(el.attrs).filter((a) => !allowed?.includes(a)),
        `<${el.name}>`,
      ).toEqual([]);
      if (el.name === 'testcase') expect(childElements(el, 'properties')).toEqual([]);
      childElements(el).forEach(visit);
    };
    visit(root);
    expect(root.name).toBe('testsuites');
    expect(root.attrs.skipped).toBeUndefined();
  });

  it('has one testsuite per suite with checks, in battery order, with correct counts and time', () => {
    const suites = childElements(root, 'testsuite');
    const expected = SUITES.filter((s) => report.checks.some((c) => c.suite === s));
    expect(suites.map((s) => attr(s, 'name'))).toEqual(expected.map((s) => `carrier-conformance.${s}`));
    expect(expected.length).toBeGreaterThanOrEqual(4);

    for (const suite of suites) {
      const name = attr(suite, 'name').replace('carrier-conformance.', '');
      const checks = report.checks.filter((c) => c.suite === name);
      const cases = childElements(suite, 'testcase');
      expect(cases).toHaveLength(checks.length);
      expect(attr(suite, 'tests')).toBe(String(checks.length));
      expect(attr(suite, 'failures')).toBe(String(checks.filter((c) => c.status === 'failed').length));
      expect(attr(suite, 'errors')).toBe(String(checks.filter((c) => c.status === 'error').length));
      // An expected failure is written as <skipped>, so it is counted with the skipped ones.
      expect(attr(suite, 'skipped')).toBe(
        String(checks.filter((c) => c.status === 'skipped' || c.status === 'expected').length),
      );
      expect(attr(suite, 'skipped')).toBe(String(cases.filter((c) => childElements(c, 'skipped').length > 0).length));
      // The counts also match the elements, which is what most consumers count.
      expect(attr(suite, 'failures')).toBe(String(cases.filter((c) => childElements(c, 'failure').length > 0).length));
      expect(attr(suite, 'time')).toMatch(TIME);
      const sum = checks.reduce((s, c) => s + c.durationMs, 0) / 1000;
      expect(Number(attr(suite, 'time'))).toBeCloseTo(sum, 3);
    }
    const total = (a: string): number => suites.reduce((s, suite) => s + Number(attr(suite, a)), 0);
    expect(attr(root, 'tests')).toBe(String(total('tests')));
    expect(attr(root, 'failures')).toBe(String(total('failures')));
    expect(attr(root, 'errors')).toBe(String(total('errors')));
  });

  it("stamps every suite with the run's start in UTC, whatever the local time zone", async () => {
    for (const suite of childElements(root, 'testsuite')) expect(attr(suite, 'timestamp')).toBe('2025-03-01T03:04:05Z');
    const tz = process.env.TZ;
    try {
      process.env.TZ = 'America/New_York';
      const other = await parseXml(renderJUnit(makeRunReport()));
      expect(attr(only(childElements(other, 'testsuite').slice(0, 1), 'suite'), 'timestamp')).toBe(
        '2025-03-01T03:04:05Z',
      );
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });

  it('puts the run metadata in suite properties', () => {
    for (const suite of childElements(root, 'testsuite')) {
      const props = Object.fromEntries(
        childElements(only(childElements(suite, 'properties'), 'properties'), 'property').map((p) => [
          attr(p, 'name'),
          attr(p, 'value'),
        ]),
      );
      expect(props).toMatchObject({
        'target.baseUrl': 'https://api.example.test',
        'target.authUrl': 'https://auth.example.test',
        'target.tenantId': '0d9f6b4e-3c51-4c1a-9b0e-8f2f7c7d1a11',
        'tool.version': '0.1.0',
        'run.verdict': 'non-conformant',
        'run.baseline': 'conformance-baseline.json',
        'run.baselineStale': 'PAGE-HEADERS',
      });
      expect(props['run.rerunOf']).toBeUndefined();
    }
  });

  it('writes one testcase per check, unique by classname and name, with times of at most 3 decimals', () => {
    const seen = new Set<string>();
    for (const suite of childElements(root, 'testsuite')) {
      for (const tc of childElements(suite, 'testcase')) {
        expect(attr(tc, 'classname')).toBe(attr(suite, 'name'));
        expect(attr(tc, 'time')).toMatch(TIME);
        const key = `${attr(tc, 'classname')}\u0000${attr(tc, 'name')}`;
        expect(seen.has(key), key).toBe(false);
        seen.add(key);
      }
    }
    expect(seen.size).toBe(report.checks.length);
    for (const check of report.checks) {
      expect(attr(caseOf(root, check.id), 'name')).toBe(`${check.id} ${check.title}`);
      expect(Number(attr(caseOf(root, check.id), 'time'))).toBeCloseTo(check.durationMs / 1000, 3);
    }
  });

  it('gives every case exactly the outcome element of its status', () => {
    const expected: Record<CheckResult['status'], string[]> = {
      failed: ['failure'],
      error: ['error'],
      skipped: ['skipped'],
      warning: [],
      passed: [],
      expected: ['skipped'],
    };
    for (const check of report.checks) {
      const tc = caseOf(root, check.id);
      const outcomes = childElements(tc).filter((c) => (OUTCOMES as readonly string[]).includes(c.name));
      expect(
        outcomes.map((o) => o.name),
        check.id,
      ).toEqual(expected[check.status]);
      // Outcome first, then one system-out: the order jenkins-junit.xsd requires.
      expect(childElements(tc).map((c) => c.name)).toEqual([...expected[check.status], 'system-out']);
    }
    expect(new Set(report.checks.map((c) => c.status))).toEqual(
      new Set(['passed', 'failed', 'warning', 'error', 'skipped', 'expected']),
    );
  });

  it('gives every failure and error a one-line message, its type and a text body', () => {
    for (const check of report.checks.filter((c) => c.status === 'failed' || c.status === 'error')) {
      const outcome = only(
        childElements(caseOf(root, check.id), check.status === 'failed' ? 'failure' : 'error'),
        'outcome',
      );
      expect(attr(outcome, 'type')).toBe(check.status === 'failed' ? 'NonConformance' : 'CheckError');
      const message = attr(outcome, 'message');
      expect(message).not.toBe('');
      expect(message).not.toMatch(/[\n\r]/);
      expect(Array.from(message).length).toBeLessThanOrEqual(JUNIT_MESSAGE_MAX);
      const body = textOf(outcome);
      expect(body.trim()).not.toBe('');
      expect(body).toContain(check.id);
      for (const f of check.findings) expect(body).toContain(stripInvalidXmlChars(f.message));
    }
  });

  it('cuts a long message to one line of at most 300 characters, ending in …', () => {
    const message = attr(only(childElements(caseOf(root, 'PAGE-WALK'), 'failure'), 'failure'), 'message');
    expect(Array.from(message)).toHaveLength(JUNIT_MESSAGE_MAX);
    expect(message.endsWith('…')).toBe(true);
    expect(message.startsWith('page 3 repeats items of page 2: a1b2c3d4, ')).toBe(true);
  });

  it('keeps every ]]> and drops XML-invalid characters in messages and bodies', () => {
    const tc = caseOf(root, 'TOKEN-WRONG-SECRET');
    const failure = only(childElements(tc, 'failure'), 'failure');
    expect(attr(failure, 'message')).toBe(NASTY_MESSAGE_XML.replace('\n', ' '));
    expect(textOf(failure)).toContain(`TOKEN-WRONG-SECRET (MUST) does not conform: ${NASTY_MESSAGE_XML}`);
    expect(textOf(failure)).toContain('an access_token was issued ]]> for a wrong secret');
    const out = textOf(only(childElements(tc, 'system-out'), 'system-out'));
    expect(out).toContain(`\n${NASTY_BODY_XML}\n`);
    expect(xml.split(']]>').length).toBeGreaterThan(10);
  });

  it("shows a failure's findings and each referenced exchange once in its system-out", () => {
    const check = checkOf(report, 'TOKEN-WRONG-SECRET');
    const out = textOf(only(childElements(caseOf(root, check.id), 'system-out'), 'system-out'));
    const [first, second, unreferenced] = check.exchanges;
    if (!first || !second || !unreferenced) throw new Error('fixture changed');

    expect(out).toContain(stripInvalidXmlChars(formatExchange(first)));
    expect(out).toContain(formatExchange(second));
    expect(out).not.toContain(unreferenced.purpose);
    expect(out).toContain('(1 further exchange of this check is in report.json)');
    expect(out.split('> POST https://auth.example.test/uaa/oauth2/token\n> Authorization')).toHaveLength(2);
    expect(out.split('Exchange #1:')).toHaveLength(2);
    expect(out).toContain(
      '- failure: status 200, expected 401 [exchange #1: POST https://auth.example.test/uaa/oauth2/token → 200]',
    );
    expect(out).toContain('- failure: the error body is not JSON\n');
  });

  it('describes every check in its system-out: id, level, refs, target', () => {
    for (const check of report.checks) {
      const out = textOf(only(childElements(caseOf(root, check.id), 'system-out'), 'system-out'));
      expect(out).toContain(`Check: ${check.id}\nLevel: ${check.level}\n`);
      expect(out).toContain(`Refs: ${check.refs.join('; ')}`);
      expect(out).toContain('Target: https://api.example.test');
      expect(out).toContain('Auth URL: https://auth.example.test');
      if (check.status === 'passed' || check.status === 'skipped') expect(out).not.toContain('Findings:');
      else expect(out).toContain('Findings:\n- ');
    }
  });

  it('reports a warning as a pass whose system-out starts with WARNING (SHOULD)', () => {
    const tc = caseOf(root, 'TOKEN-PRAGMA');
    expect(childElements(tc).map((c) => c.name)).toEqual(['system-out']);
    const out = textOf(only(childElements(tc, 'system-out'), 'system-out'));
    expect(out.startsWith('WARNING (SHOULD): no Pragma: no-cache on the token response\n')).toBe(true);
    expect(out).toContain('< Cache-Control: no-store');
  });

  it('gives a skipped case its reason as element text, without attributes', () => {
    for (const check of report.checks.filter((c) => c.status === 'skipped')) {
      const skipped = only(childElements(caseOf(root, check.id), 'skipped'), 'skipped');
      expect(skipped.attrs).toEqual({});
      expect(textOf(skipped)).toBe(check.message);
    }
    expect(textOf(only(childElements(caseOf(root, 'TENANT-ACCESS'), 'skipped'), 'skipped'))).toBe(
      'no --tenant given <]]>&>',
    );
  });

  it('writes an expected failure as <skipped> with the baseline reason and the message', () => {
    const check = checkOf(report, 'TOKEN-BASIC-SCHEME-CASE');
    const tc = caseOf(root, check.id);
    const skipped = only(childElements(tc, 'skipped'), 'skipped');
    expect(skipped.attrs).toEqual({});
    expect(textOf(skipped)).toBe(
      `expected failure (baseline: ${BASELINE_REASON}): status 401 for the scheme spelled "basic", expected 200`,
    );
    // Its evidence stays in system-out, as for a failure.
    const out = textOf(only(childElements(tc, 'system-out'), 'system-out'));
    expect(out).toContain(`Baseline (conformance-baseline.json): ${BASELINE_REASON}\n`);
    expect(out).toContain('Findings:\n- failure: status 401, expected 200');
    expect(out).toContain('Reproduce:\n');
  });

  it('marks a passed check whose baseline entry is stale on the first line of its system-out', () => {
    const out = textOf(only(childElements(caseOf(root, 'PAGE-HEADERS'), 'system-out'), 'system-out'));
    expect(out.split('\n')[0]).toBe(`BASELINE ENTRY CAN BE REMOVED: ${STALE_REASON}`);
    expect(childElements(caseOf(root, 'PAGE-HEADERS')).map((c) => c.name)).toEqual(['system-out']);
    for (const check of report.checks.filter((c) => c.id !== 'PAGE-HEADERS')) {
      expect(textOf(only(childElements(caseOf(root, check.id), 'system-out'), 'system-out')), check.id).not.toContain(
        'BASELINE ENTRY CAN BE REMOVED',
      );
    }
  });

  it('adds a curl command under Reproduce: after each referenced exchange of a failed, errored, warning or expected check', () => {
    for (const check of report.checks) {
      const out = textOf(only(childElements(caseOf(root, check.id), 'system-out'), 'system-out'));
      if (!['failed', 'error', 'warning', 'expected'].includes(check.status)) {
        expect(out, check.id).not.toContain('Reproduce:');
        continue;
      }
      const referenced = [...new Set(check.findings.flatMap((f) => (f.exchange === undefined ? [] : [f.exchange])))];
      expect(out.split('\nReproduce:\n'), check.id).toHaveLength(referenced.length + 1);
      for (const index of referenced) {
        const ex = check.exchanges[index];
        if (!ex) throw new Error('fixture changed');
        const block = `Exchange #${index + 1}:\n${stripInvalidXmlChars(formatExchange(ex))}\n\nReproduce:\n${curlCommand(ex, report)}`;
        expect(out, check.id).toContain(block);
      }
    }
  });

  it('puts the rerun source in the suite properties', async () => {
    const parsed = await parseXml(renderJUnit({ ...makeRunReport(), rerunOf: 'reports/report.json' }));
    const props = childElements(
      only(childElements(only(childElements(parsed, 'testsuite').slice(0, 1), 'suite'), 'properties'), 'properties'),
      'property',
    );
    expect(props.filter((p) => attr(p, 'name') === 'run.rerunOf').map((p) => attr(p, 'value'))).toEqual([
      'reports/report.json',
    ]);
  });

  it("leaves junit-report-builder's process-wide builder untouched", () => {
    const shared = junitReportBuilder as unknown as Builder | { default: Builder };
    const builder = 'newBuilder' in shared ? shared : shared.default;
    const before = builder.build();
    renderJUnit(makeRunReport());
    expect(builder.build()).toBe(before);
    expect(before).not.toContain('testsuite ');
  });

  it('makes two names unique when a report holds the same check twice', async () => {
    const base = makeRunReport();
    const twice = { ...base, checks: [...base.checks, checkOf(base, 'USER-OK')] };
    const parsed = await parseXml(renderJUnit(twice));
    const user = only(
      childElements(parsed, 'testsuite').filter((s) => attr(s, 'name') === 'carrier-conformance.user'),
      'user suite',
    );
    expect(childElements(user, 'testcase').map((c) => attr(c, 'name'))).toEqual([
      'USER-OK GET /users/me answers 200 with a JSON body',
      'USER-FIELDS The User has the documented fields, with the documented types',
      'USER-EXPECTED-VALUES The User matches the known data of the test account exactly',
      'USER-OK GET /users/me answers 200 with a JSON body (2)',
    ]);
  });
});

describe('CDATA text through junit-report-builder', () => {
  // Every placement of ]]> relative to other brackets, through the real builder and libxml2.
  const samples = [
    '',
    'plain',
    ']]>',
    ']]>]]>',
    'a]]>b]]>c]]>d',
    ']]]>',
    ']]]]>>',
    'x]]',
    ']]',
    '>]]>]',
    ']]\u0000>',
    ']]>\u0001]]>',
    ']]><![CDATA[',
    '😀]]>\uD83D',
  ];

  it.each(samples)('round-trips %j', async (sample) => {
    const report = makeRunReport();
    const check: CheckResult = {
      id: 'TOKEN-ISSUE',
      suite: 'token',
      level: 'MUST',
      title: sample,
      refs: [sample],
      status: 'error',
      message: sample,
      findings: [{ kind: 'error', message: sample }],
      notes: [sample],
      exchanges: [],
      durationMs: 1,
    };
    const xml = renderJUnit({ ...report, checks: [check] });
    for (const xsd of XSD_FILES) expect((await validateAgainst(xml, await loadXsd(xsd))).valid).toBe(true);
    const parsed = await parseXml(xml);
    const tc = only(childElements(only(childElements(parsed, 'testsuite'), 'suite'), 'testcase'), 'case');
    const out = textOf(only(childElements(tc, 'system-out'), 'system-out'));
    const clean = stripInvalidXmlChars(sample);
    expect(out).toContain(`Refs: ${clean === '' ? '' : clean}`);
    expect(out).toContain(`Notes:\n- ${clean}`);
    const body = textOf(only(childElements(tc, 'error'), 'error'));
    if (clean.trim() !== '') expect(body).toContain(`- error: ${clean}`);
  });

  it('splits every ]]> after the first, leaving the first for the builder', () => {
    expect(splitCdataTerminators('a')).toBe('a');
    expect(splitCdataTerminators('a]]>b')).toBe('a]]>b');
    expect(splitCdataTerminators('a]]>b]]>c')).toBe('a]]>b]]]]><![CDATA[>c');
  });

  it('strips exactly the characters XML 1.0 cannot carry', () => {
    expect(stripInvalidXmlChars('a\u0000b\u0008c\u000bd\u000ce\u001ff\tg\nh\ri')).toBe('abcdef\tg\nh\ri');
    expect(stripInvalidXmlChars('\uD800x\uDC00y\uFFFE\uFFFF\uFFFDz')).toBe('xy\uFFFDz');
    expect(stripInvalidXmlChars('😀\u007f\u0085é')).toBe('😀\u007f\u0085é');
    expect(stripInvalidXmlChars('\uDBFF\uDFFF')).toBe('\uDBFF\uDFFF');
  });
});
