import { createRequire } from 'node:module';
import type { Builder, TestCase, TestSuite } from 'junit-report-builder';
import { SUITES } from '../catalogue/types.js';
import { formatDuration, oneLine } from '../core/wording.js';
import {
  checkReason as reason,
  describeCheck,
  endpointSummary,
  formatEndpoints,
  formatFindingBullets,
  formatFindings,
} from './findings-text.js';
import type { CheckResult, RunReport } from '../model/run-report.js';
import { curlCommand } from './reproduce.js';
import { scopeOfReport, verdictLine, verdictOfReport } from './verdict.js';
import { splitCdataTerminators, stripInvalidXmlChars } from './xml-text.js';
import { targetName } from './target-name.js';
import { CAPS_NOTE, LINT_RULES } from '../catalogue/lint-rules.js';
import { findingPlace } from './document.js';
import type { DocumentSection } from '../model/run-report.js';

/**
 * JUnit XML for CI test reporters (Jenkins junit and xUnit, GitLab, dorny/test-reporter, mikepenz,
 * EnricoMi, Azure). The shape is the one all of them read the same way and that validates against
 * both jenkins-junit.xsd and xUnit's junit-10.xsd (vendored in test/xsd/):
 *
 * - a `<testsuites>` root, one `<testsuite name="carrier-conformance.<suite>">` per battery suite
 *   with checks, its run metadata as suite `<properties>` (both XSDs reject testcase properties);
 * - one `<testcase classname="carrier-conformance.<suite>" name="<ID> <title>">` per check, with at
 *   most ONE outcome element: consumers disagree on which of several wins;
 * - a warning (SHOULD check that found a problem) is a pass for consumers, since it does not fail
 *   the run; its system-out starts with `WARNING (<level>): <message>` so it can still be found;
 * - an expected failure (listed in the --baseline file) is `<skipped>` with the baseline's reason:
 *   every consumer counts it apart from passes and failures, and none fails the build on it;
 * - a passed check whose baseline entry is stale says so on the first line of its system-out;
 * - the system-out of a check with findings shows each exchange they point at with a curl
 *   command that reproduces it (`Reproduce:`, see reproduce.ts);
 * - `time` with at most 3 decimals (xUnit's junit-10.xsd rejects more on the suite).
 */

/** Prefix of every suite name and classname; fixed, so report history stays comparable. */
export const JUNIT_NAME_PREFIX = 'carrier-conformance';
/** Consumers show `message` in one line (Azure, mikepenz annotations); longer text is in the body. */
export const JUNIT_MESSAGE_MAX = 300;

type XmlElement = ReturnType<TestCase['build']>;

export function renderJUnit(report: RunReport): string {
  // A new builder each time, never the package's export itself: that one is shared by the whole process.
  const junit = sharedBuilder().newBuilder();
  // A constant, not report data: removeRootSkipped relies on the root tag holding no `>`.
  junit.name(JUNIT_NAME_PREFIX);
  const timestamp = utcTimestamp(report.startedAt);
  const properties = suiteProperties(report);

  for (const suiteName of SUITES) {
    const checks = report.checks.filter((c) => c.suite === suiteName);
    if (checks.length === 0) continue;
    const classname = `${JUNIT_NAME_PREFIX}.${suiteName}`;
    const suite = junit
      .testSuite()
      .name(classname)
      .time(seconds(checks.reduce((sum, c) => sum + c.durationMs, 0)));
    if (timestamp !== undefined) suite.timestamp(timestamp);
    for (const [name, value] of properties) suite.property(name, value);

    const names = new Set<string>();
    for (const check of checks) addTestCase(suite, classname, uniqueName(names, check), check, report);
  }
  if (report.team !== undefined && report.team.checks.length > 0) {
    // The team's own checks (--team-checks): a testsuite of their own, as the document's lint is, so
    // that a CI's test counts show them and the spec's suites stay the spec's.
    const suite = junit
      .testSuite()
      .name(JUNIT_TEAM_SUITE)
      .time(seconds(report.team.checks.reduce((sum, c) => sum + c.durationMs, 0)));
    if (timestamp !== undefined) suite.timestamp(timestamp);
    for (const [name, value] of properties) suite.property(name, value);
    const names = new Set<string>();
    for (const check of report.team.checks)
      addTestCase(suite, JUNIT_TEAM_SUITE, uniqueName(names, check), check, report);
  }
  if (report.document !== undefined) addDocumentSuite(junit, report.document, timestamp);

  return removeRootSkipped(junit.build());
}

/** The testsuite of the team's own checks (--team-checks), and its test cases' classname. */
export const JUNIT_TEAM_SUITE = `${JUNIT_NAME_PREFIX}.team`;

/** What a test case shows of a check: the catalogue's, or a team's (which has no suite). */
type CaseCheck = Omit<CheckResult, 'suite'>;

/** The testsuite of the --openapi document's lint findings, and its test cases' classname. */
export const JUNIT_DOCUMENT_SUITE = `${JUNIT_NAME_PREFIX}.document (lint)`;
export const JUNIT_DOCUMENT_CLASSNAME = `${JUNIT_NAME_PREFIX}.document`;

/**
 * The --openapi document's lint findings (issue 33), a testsuite apart from the checks': one test
 * case per rule with findings, named as `lint --format junit` names it. Each is `<skipped>`, as an
 * expected failure is: every consumer counts it apart from passes and failures and none fails the
 * build on it, for these are not checks of the deployment and do not change the run's outcome.
 * No findings, no suite: the test counts of a clean document's run are its checks'.
 */
function addDocumentSuite(junit: Builder, section: DocumentSection, timestamp: string | undefined): void {
  const rest = new Map((section.notListed ?? []).map((n) => [n.rule, n.count]));
  const rules = [...new Set([...section.findings.map((f) => f.rule), ...rest.keys()])];
  if (rules.length === 0) return;
  const suite = junit.testSuite().name(JUNIT_DOCUMENT_SUITE).time(0);
  if (timestamp !== undefined) suite.timestamp(timestamp);
  suite.property('document', text(section.file));
  const names = new Set<string>();
  for (const rule of rules) {
    const own = section.findings.filter((f) => f.rule === rule);
    const more = rest.get(rule) ?? 0;
    const count = own.length + more;
    const known = LINT_RULES.find((r) => r.id === rule);
    let name = oneLine(text(`${rule} ${known?.title ?? ''}`.trim()));
    for (let n = 2; names.has(name); n += 1) name = `${oneLine(text(rule))} (${n})`;
    names.add(name);
    const testCase = suite.testCase().className(JUNIT_DOCUMENT_CLASSNAME).name(name).time(0);
    testCase.skipped();
    setSkippedText(
      testCase,
      text(
        `${count} finding${count === 1 ? '' : 's'} in the document (${own[0]?.level ?? known?.level ?? 'MUST'}): not a check of the deployment, not counted in the verdict; fix the document (carrier-conformance lint ${section.file})`,
      ),
    );
    const about = known
      ? `${known.id} (${known.level}): ${known.title}\nRefs: ${known.refs.join('; ')}\nSpec: ${known.sentence}`
      : rule;
    const listing = [
      ...own.map((f) => `${findingPlace(f)}: ${f.message}`),
      ...(more > 0 ? [`… and ${more} more not listed (${CAPS_NOTE})`] : []),
    ];
    testCase.standardOutput(cdata(`${about}\n\n${listing.join('\n')}`));
  }
}

/**
 * The package's default builder, used only to make new ones. It is a CommonJS package, required
 * rather than imported: an ESM import of it took 80–110 ms (Node lexes CommonJS for named exports),
 * a require 25–35 ms, at a point of the run where the main thread is on its critical path. The
 * CommonJS file assigns `module.exports`, while its typings declare `export default`; both shapes
 * are accepted, so that this keeps working if either side is fixed.
 */
function sharedBuilder(): Builder {
  const required = createRequire(import.meta.url)('junit-report-builder') as Builder | { default: Builder };
  return 'newBuilder' in required ? required : required.default;
}

/** Loads junit-report-builder now, ahead of the first report (see `loadWriters` in write.ts). */
export function loadJUnitBuilder(): void {
  sharedBuilder();
}

function addTestCase(suite: TestSuite, classname: string, name: string, check: CaseCheck, report: RunReport): void {
  const testCase = suite.testCase().className(classname).name(name).time(seconds(check.durationMs));

  switch (check.status) {
    case 'failed':
      testCase.failure(messageAttribute(check, 'the target does not conform'), 'NonConformance');
      // `stacktrace` writes the failure's text body; it does not add a second outcome.
      testCase.stacktrace(cdata(outcomeBody(check, 'does not conform')));
      break;
    case 'error':
      testCase.error(
        messageAttribute(check, 'the check could not be carried out'),
        'CheckError',
        cdata(outcomeBody(check, 'could not be carried out', report)),
      );
      break;
    case 'skipped':
      testCase.skipped();
      setSkippedText(testCase, text(check.message ?? 'skipped'));
      break;
    case 'expected':
      testCase.skipped();
      setSkippedText(testCase, text(expectedText(check)));
      break;
    case 'warning':
    case 'passed':
      break;
  }

  testCase.standardOutput(cdata(systemOut(check, report)));
}

/**
 * `<skipped>reason</skipped>`: jenkins-junit.xsd declares `skipped` as a plain string (no
 * `message` attribute allowed) and junit-10.xsd as mixed content, so element text is the only
 * form both accept. junit-report-builder's `skipped()` takes no reason and writes `<skipped/>`,
 * so the text is added to the element it creates, as the case is built.
 */
function setSkippedText(testCase: TestCase, reason: string): void {
  const build = testCase.build.bind(testCase);
  testCase.build = (parent: XmlElement): XmlElement => {
    const element = build(parent);
    const skipped = element.children.find((child) => 'name' in child && child.name === 'skipped');
    if (!skipped) throw new Error('junit-report-builder wrote no <skipped> element for a skipped test case');
    skipped.txt(reason);
    return element;
  };
}

/**
 * junit-report-builder always writes `<testsuites … skipped="N">`, which both XSDs reject (xUnit
 * then drops the whole file). The root start tag is the first tag after the XML declaration and
 * holds only the constant name and counts, so cutting the attribute out of it is exact.
 */
function removeRootSkipped(xml: string): string {
  const start = xml.indexOf('<testsuites');
  const end = xml.indexOf('>', start);
  if (start < 0 || end < 0) throw new Error('junit-report-builder wrote no <testsuites> root');
  const rootTag = xml.slice(start, end).replace(/\sskipped="\d*"/, '');
  return xml.slice(0, start) + rootTag + xml.slice(end);
}

/** `expected failure (baseline: <reason>): <message>`, the `<skipped>` text of a known failure. */
function expectedText(check: CaseCheck): string {
  const known = check.baseline?.reason.trim() ? check.baseline.reason : 'no reason given';
  return `expected failure (baseline: ${known}): ${reason(check) ?? 'no reason was recorded'}`;
}

function systemOut(check: CaseCheck, report: RunReport): string {
  const sections: string[] = [];
  if (check.status === 'warning') {
    sections.push(`WARNING (${check.level}): ${oneLine(reason(check) ?? 'the check found a problem')}`);
  }
  // First line, like WARNING: what a reader searching the logs for baseline upkeep looks for.
  if (check.status === 'passed' && check.baseline?.stale === true) {
    sections.push(`BASELINE ENTRY CAN BE REMOVED: ${oneLine(check.baseline.reason) || 'no reason given'}`);
  }

  const { target } = report;
  const about = [describeCheck(check), `Target: ${target.baseUrl}`, `Auth URL: ${target.authUrl}`];
  if (target.tenantId !== undefined) about.push(`Tenant: ${target.tenantId}`);
  if (target.embedded) about.push('Server: embedded reference server');
  about.push(`Status: ${check.status} (${formatDuration(check.durationMs)})`);
  if (check.message !== undefined) about.push(`${check.status === 'skipped' ? 'Reason' : 'Message'}: ${check.message}`);
  if (check.baseline !== undefined) {
    const where = report.baseline ? ` (${report.baseline.file})` : '';
    about.push(
      `Baseline${where}: ${check.baseline.reason}${check.baseline.stale ? ' [stale: the check passes now]' : ''}`,
    );
  }
  sections.push(about.join('\n'));

  if (check.endpoints && check.endpoints.length > 0)
    sections.push(`Endpoints: ${endpointSummary(check.endpoints) ?? ''}\n${formatEndpoints(check.endpoints)}`);

  if (check.notes.length > 0) sections.push(['Notes:', ...check.notes.map((n) => `- ${n}`)].join('\n'));

  // Review items, in the system-out of the check that noticed them: never an outcome element (the
  // test counts stay the checks'), never a testcase property (both XSDs reject those).
  const review = (report.review ?? []).filter((r) => r.check === check.id);
  if (review.length > 0)
    sections.push(
      [
        `REVIEW (${review.length}): not a failure, not counted in the verdict`,
        ...review.map((r) => `- ${r.message}\n  ${r.advice}`),
      ].join('\n'),
    );

  if (
    check.status === 'failed' ||
    check.status === 'error' ||
    check.status === 'warning' ||
    check.status === 'expected'
  ) {
    const findings = formatFindings(check, (ex) => curlCommand(ex, report));
    sections.push(findings === '' ? 'Findings: none recorded' : `Findings:\n${findings}`);
  }
  return sections.join('\n\n');
}

/** The failure/error text: what Jenkins shows as the stack trace and Azure as the stack. */
function outcomeBody(check: CaseCheck, verb: string, report?: RunReport): string {
  const parts = [`${check.id} (${check.level}) ${verb}: ${reason(check) ?? 'no reason was recorded'}`];
  // A check a cause found before the run kept from running: the cause itself, which a reader of
  // this test case alone would otherwise have to look for in report.json.
  const cause = report?.causes?.find((c) => c.checks.includes(check.id));
  if (cause)
    parts.push(
      `The cause, found by the preflight: ${cause.title}${cause.detail === undefined ? '' : ` (${cause.detail})`}. It is reported once, under "causes" in report.json.`,
    );
  // Each endpoint's outcome, so that a reader of the failure alone sees which endpoints broke the rule.
  if (check.endpoints && check.endpoints.length > 1)
    parts.push(formatEndpoints(check.endpoints.filter((e) => e.status !== 'passed')));
  const bullets = formatFindingBullets(check);
  if (bullets !== '') parts.push(bullets);
  const refs = check.refs.length > 0 ? `Refs: ${check.refs.join('; ')}\n` : '';
  parts.push(`${refs}The recorded exchanges are in this test case's system-out and in report.json.`);
  return parts.join('\n\n');
}

/** Non-empty (junit-report-builder drops a falsy message), one line, at most JUNIT_MESSAGE_MAX. */
function messageAttribute(check: CaseCheck, fallback: string): string {
  const line = oneLine(text(reason(check) ?? ''), JUNIT_MESSAGE_MAX);
  return line === '' ? fallback : line;
}

/**
 * `<ID> <title>`, unique within the suite: GitLab keys cases by suite+classname+name and drops
 * duplicates. Ids are unique in the catalogue, so the suffix only guards a malformed report.
 */
function uniqueName(taken: Set<string>, check: CaseCheck): string {
  const base = oneLine(text(`${check.id} ${check.title}`));
  let name = base;
  for (let n = 2; taken.has(name); n += 1) name = `${base} (${n})`;
  taken.add(name);
  return name;
}

function suiteProperties(report: RunReport): [string, string][] {
  const { tool, target } = report;
  const props: [string, string][] = [
    ['tool.name', tool.name],
    ['tool.version', tool.version],
    ['target.baseUrl', target.baseUrl],
    ['target.authUrl', target.authUrl],
  ];
  // Never `property(name, undefined)`: it writes a property without `value`, which both XSDs reject.
  if (target.tenantId !== undefined) props.push(['target.tenantId', target.tenantId]);
  // The implementation, as the run was told it: suite properties, since both XSDs reject testcase ones.
  props.push(['target.name', targetName(report)]);
  if (target.version !== undefined) props.push(['target.version', target.version]);
  if (target.operator !== undefined) props.push(['target.operator', target.operator]);
  props.push(
    ['target.embedded', String(target.embedded)],
    ['run.strict', String(report.strict)],
    // report.json's value (src/report/verdict.ts), an earlier version's report's read in today's terms.
    ['run.verdict', verdictOfReport(report)],
    // What the verdict covers, in the words of every other output: a CI view that shows only the
    // properties must not read a partial run as a full one.
    ['run.summary', verdictLine(report)],
    ['run.coverage', scopeOfReport(report).coverage],
    ['run.startedAt', report.startedAt],
    ['run.finishedAt', report.finishedAt],
  );
  if (report.baseline !== undefined) {
    props.push(['run.baseline', report.baseline.file]);
    if (report.baseline.stale.length > 0) props.push(['run.baselineStale', report.baseline.stale.join(' ')]);
  }
  if (report.rerunOf !== undefined) props.push(['run.rerunOf', report.rerunOf]);
  if (report.incompleteReason !== undefined) props.push(['run.incompleteReason', report.incompleteReason]);
  return props.map(([name, value]) => [name, text(value)]);
}

/**
 * Seconds with at most 3 decimals. `Number(x.toFixed(3))` prints as the shortest decimal that
 * reads back as the same double, which never has more than the 3 decimals it was parsed from.
 */
function seconds(ms: number): number {
  if (!Number.isFinite(ms) || ms <= 0) return 0;
  return Number((ms / 1000).toFixed(3));
}

/**
 * `2025-03-01T03:04:05Z`. Always a string: given a Date, junit-report-builder writes local time
 * without an offset, which Jenkins then reads as UTC. Omitted when `startedAt` is not a date.
 */
function utcTimestamp(startedAt: string): string | undefined {
  const date = new Date(startedAt);
  if (Number.isNaN(date.getTime())) return undefined;
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function text(value: string): string {
  return stripInvalidXmlChars(value);
}

function cdata(value: string): string {
  return splitCdataTerminators(stripInvalidXmlChars(value));
}
