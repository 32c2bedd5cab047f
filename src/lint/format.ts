import { createRequire } from 'node:module';
import { relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Builder } from 'junit-report-builder';
import type { Level } from '../catalogue/types.js';
import { splitCdataTerminators, stripInvalidXmlChars } from '../report/xml-text.js';
import { TOOL_NAME, TOOL_VERSION } from '../version.js';
import { LINT_RULES, type LintRule, type LintRuleId } from './rules.js';

/**
 * The lint report, in the forms people's tools read (issue 33): the console (grouped by rule),
 * JUnit (one test case per rule, as a run writes one per check: src/report/junit.ts), SARIF 2.1.0
 * (what GitHub code scanning reads to show findings on a pull request's lines) and JSON.
 */

export const LINT_FORMATS = ['console', 'junit', 'sarif', 'json'] as const;
export type LintFormat = (typeof LINT_FORMATS)[number];

export interface LintFinding {
  /** The document linted, as named on the command line (the finding may be in a file it `$ref`s). */
  document: string;
  rule: LintRuleId;
  level: Level;
  message: string;
  /** The file the finding is in, as shown: relative to the working directory when inside it. */
  file: string;
  /** JSON Pointer inside that file. */
  pointer: string;
  line?: number;
  column?: number;
}

export interface LintReport {
  /** The documents linted, as named on the command line. */
  documents: string[];
  findings: LintFinding[];
  /** With --strict, SHOULD findings fail too (as `run --strict`). */
  strict: boolean;
}

const rulesById = new Map<string, LintRule>(LINT_RULES.map((r) => [r.id, r]));

/** Whether a finding fails the lint: MUST always, SHOULD with --strict (exit codes as `run`'s). */
export const fails = (finding: LintFinding, strict: boolean): boolean => finding.level === 'MUST' || strict;

/** A shown path, relative to the working directory when inside it, with `/` separators. */
export function shownPath(path: string, cwd = process.cwd()): string {
  const rel = relative(cwd, path);
  return rel === '' || rel.startsWith('..') || /^[a-zA-Z]:|^\//.test(rel) ? path : rel.split(sep).join('/');
}

const where = (f: LintFinding): string => `${f.file}${f.line === undefined ? '' : `:${f.line}${f.column === undefined ? '' : `:${f.column}`}`} ${f.pointer === '' ? '/' : f.pointer}`;

export function renderConsole(report: LintReport): string {
  const lines: string[] = [];
  let failed = 0;
  let warned = 0;
  for (const rule of LINT_RULES) {
    const own = report.findings.filter((f) => f.rule === rule.id);
    const outcome = own.length === 0 ? 'ok  ' : fails(own[0] as LintFinding, report.strict) ? 'FAIL' : 'WARN';
    lines.push(`${outcome} ${rule.id} (${rule.level}) ${rule.title} [${rule.refs.join('; ')}]`);
    for (const f of own) lines.push(`       ${where(f)}\n         ${f.message}`);
    if (own.length > 0 && outcome === 'FAIL') failed += 1;
    if (own.length > 0 && outcome === 'WARN') warned += 1;
  }
  const passed = LINT_RULES.length - failed - warned;
  const docs = report.documents.length === 1 ? report.documents[0] ?? '' : `${report.documents.length} documents`;
  lines.push('', `${docs}: ${passed} rules passed, ${failed} failed, ${warned} warned (${report.findings.length} finding${report.findings.length === 1 ? '' : 's'})`);
  return `${lines.join('\n')}\n`;
}

export function renderJson(report: LintReport): string {
  return `${JSON.stringify(
    {
      tool: TOOL_NAME,
      version: TOOL_VERSION,
      strict: report.strict,
      documents: report.documents,
      rules: LINT_RULES,
      findings: report.findings,
    },
    null,
    2,
  )}\n`;
}

/** Text the document wrote, fit for XML (C0 controls and lone surrogates out, `]]>` split). */
const xml = (text: string): string => splitCdataTerminators(stripInvalidXmlChars(text));

/**
 * One `<testsuite name="carrier-conformance.lint">` per document, one `<testcase>` per rule, as
 * src/report/junit.ts writes a run: a MUST finding is a `<failure>`; a SHOULD finding is a pass
 * whose system-out starts with `WARNING (SHOULD):` (a failure with --strict).
 */
export function renderJUnit(report: LintReport): string {
  const required = createRequire(import.meta.url)('junit-report-builder') as Builder | { default: Builder };
  const junit = ('newBuilder' in required ? required : required.default).newBuilder();
  junit.name(`${TOOL_NAME}.lint`);
  for (const document of report.documents) {
    const suite = junit.testSuite().name(`${TOOL_NAME}.lint`).time(0);
    suite.property('document', xml(document));
    const ofDocument = report.findings.filter((f) => f.document === document);
    for (const rule of LINT_RULES) {
      const own = ofDocument.filter((f) => f.rule === rule.id);
      const testCase = suite.testCase().className(`${TOOL_NAME}.lint`).name(`${rule.id} ${rule.title}`).time(0);
      const listing = own.map((f) => `${where(f)}: ${f.message}`).join('\n');
      const about = `${rule.id} (${rule.level}): ${rule.title}\nRefs: ${rule.refs.join('; ')}\nSpec: ${rule.sentence}`;
      if (own.length > 0 && fails(own[0] as LintFinding, report.strict)) {
        const first = own[0] as LintFinding;
        testCase.failure(xml(`${own.length} finding${own.length === 1 ? '' : 's'}; first: ${where(first)}: ${first.message}`).replace(/\s+/g, ' ').slice(0, 300), 'NonConformance');
        testCase.stacktrace(xml(`${about}\n\n${listing}`));
      }
      const out = own.length > 0 && !fails(own[0] as LintFinding, report.strict) ? `WARNING (${rule.level}): ${own.length} finding${own.length === 1 ? '' : 's'}\n${listing}\n\n${about}` : own.length > 0 ? about : `${about}\n\nNo findings.`;
      testCase.standardOutput(xml(out));
    }
  }
  // As junit.ts: junit-report-builder's root `skipped="0"` is rejected by both XSDs.
  const text = junit.build();
  const start = text.indexOf('<testsuites');
  const end = text.indexOf('>', start);
  return `${text.slice(0, start)}${text.slice(start, end).replace(/\sskipped="\d*"/, '')}${text.slice(end)}`;
}

/** A SARIF artifact URI: relative (to %SRCROOT%, the working directory) when inside it, else a file: URL. */
function artifactLocation(file: string): { uri: string; uriBaseId?: string } {
  if (file.startsWith('/') || /^[a-zA-Z]:/.test(file)) return { uri: pathToFileURL(file).href };
  return { uri: file.split('/').map(encodeURIComponent).join('/'), uriBaseId: '%SRCROOT%' };
}

/**
 * SARIF 2.1.0 (OASIS), as GitHub code scanning reads it: `tool.driver.rules` with each rule's
 * level as its default configuration, one result per finding with a physical location (file
 * relative to the repository root, which is the working directory in CI, and the line) and the
 * JSON Pointer as a logical location. MUST is `error`, SHOULD `warning`.
 */
export function renderSarif(report: LintReport, cwd = process.cwd()): string {
  const index = new Map<string, number>(LINT_RULES.map((r, i) => [r.id, i]));
  const sarif = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: TOOL_NAME,
            version: TOOL_VERSION,
            semanticVersion: TOOL_VERSION,
            rules: LINT_RULES.map((r) => ({
              id: r.id,
              shortDescription: { text: r.title },
              fullDescription: { text: `${r.sentence} (${r.refs.join('; ')})` },
              help: { text: `${r.title}. The spec: ${r.sentence} (${r.refs.join('; ')}).` },
              defaultConfiguration: { level: r.level === 'MUST' ? 'error' : 'warning' },
              properties: { tags: ['openapi', r.level], level: r.level, refs: [...r.refs] },
            })),
          },
        },
        originalUriBaseIds: { '%SRCROOT%': { uri: pathToFileURL(cwd.endsWith(sep) ? cwd : `${cwd}${sep}`).href } },
        results: report.findings.map((f) => ({
          ruleId: f.rule,
          ruleIndex: index.get(f.rule) ?? 0,
          level: rulesById.get(f.rule)?.level === 'MUST' || report.strict ? 'error' : 'warning',
          message: { text: `${f.message} (at ${f.pointer === '' ? '/' : f.pointer})` },
          locations: [
            {
              physicalLocation: {
                artifactLocation: artifactLocation(f.file),
                ...(f.line === undefined ? {} : { region: { startLine: f.line, ...(f.column === undefined ? {} : { startColumn: f.column }) } }),
              },
              logicalLocations: [{ fullyQualifiedName: f.pointer === '' ? '/' : f.pointer, kind: 'object' }],
            },
          ],
        })),
      },
    ],
  };
  return `${JSON.stringify(sarif, null, 2)}\n`;
}

export function render(report: LintReport, format: LintFormat): string {
  switch (format) {
    case 'console':
      return renderConsole(report);
    case 'json':
      return renderJson(report);
    case 'junit':
      return renderJUnit(report);
    case 'sarif':
      return renderSarif(report);
  }
}
