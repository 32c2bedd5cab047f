import { artifactLocation, renderSarifLog } from '../report/sarif-location.js';
import { createRequire } from 'node:module';
import { relative, sep } from 'node:path';
import type { Builder } from 'junit-report-builder';
import type { Level } from '../catalogue/types.js';
import { inline } from '../report/markdown.js';
import { splitCdataTerminators, stripInvalidXmlChars } from '../report/xml-text.js';
import { TOOL_NAME, TOOL_VERSION } from '../core/version.js';
import { workflowCommandLine, type WorkflowCommand } from '../core/console-safety.js';
import { CAPS_NOTE, FINDINGS_PER_PLACE, FINDINGS_PER_RULE } from './caps.js';
import { LINT_RULES, type LintRule, type LintRuleId } from './rules.js';

/**
 * The lint report, in the forms people's tools read (issue 33): the console (grouped by rule),
 * JUnit (one test case per rule, as a run writes one per check: src/report/junit.ts), SARIF 2.1.0
 * (what GitHub code scanning reads to show findings on a pull request's lines) and JSON.
 */

export const LINT_FORMATS = ['console', 'stylish', 'github-actions', 'junit', 'sarif', 'json'] as const;
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

/** How many findings of a rule a document has beyond those listed (src/lint/caps.ts). */
export interface NotListed {
  document: string;
  rule: LintRuleId;
  count: number;
}

export interface LintReport {
  /** The documents linted, as named on the command line. */
  documents: string[];
  /** The findings listed: at most FINDINGS_PER_RULE of a rule and FINDINGS_PER_PLACE at a place, per document. */
  findings: LintFinding[];
  /** The findings counted, not listed, per document and rule; absent or empty when every finding is listed. */
  notListed?: NotListed[];
  /** With --strict, SHOULD findings fail too (as `run --strict`). */
  strict: boolean;
  /** Listed findings a --waivers file accepts, with its reason: reported, failing nothing (src/lint/waivers.ts). */
  waived?: { finding: LintFinding; reason: string }[];
  /** Waivers that matched no finding: they can go. */
  unusedWaivers?: { rule: string; file?: string | undefined; pointer?: string | undefined; reason: string }[];
  /** The --waivers file, as given. */
  waiversFile?: string;
}

/** What a run of lint says of its waivers, in the console and stylish: the waived findings, the waivers that can go. */
function waiverLines(report: LintReport): string[] {
  const lines: string[] = [];
  const waived = report.waived ?? [];
  const file = report.waiversFile ?? 'the waivers file';
  if (waived.length > 0) {
    lines.push('', `WAIVED (${waived.length}), by ${file}:`);
    for (const { finding, reason } of waived) lines.push(`  ${finding.rule} ${where(finding)}: ${reason}`);
  }
  const unused = report.unusedWaivers ?? [];
  if (unused.length > 0) {
    lines.push('', `WAIVERS THAT MATCH NO FINDING (remove them from ${file}) (${unused.length}):`);
    for (const w of unused)
      lines.push(
        `  ${w.rule}${w.file === undefined ? '' : ` ${w.file}`}${w.pointer === undefined ? '' : ` ${w.pointer}`}: ${w.reason}`,
      );
  }
  return lines;
}

const rulesById = new Map<string, LintRule>(LINT_RULES.map((r) => [r.id, r]));

/** A SARIF message's length: the longest message a rule writes, with its pointer, fits. */
const SARIF_MESSAGE_MAX = 2000;

/** Whether a finding fails the lint: MUST always, SHOULD with --strict (exit codes as `run`'s). */
export const fails = (finding: { level: Level }, strict: boolean): boolean => finding.level === 'MUST' || strict;

/** Whether the lint fails: a finding that fails, listed or only counted. */
export const failsAny = (report: LintReport): boolean =>
  report.findings.some((f) => fails(f, report.strict)) ||
  (report.notListed ?? []).some((n) => fails({ level: rulesById.get(n.rule)?.level ?? 'MUST' }, report.strict));

/** How many findings of `rule` are not listed, in `document` or in all the documents. */
function notListedOf(report: LintReport, rule: string, document?: string): number {
  let n = 0;
  for (const entry of report.notListed ?? [])
    if (entry.rule === rule && (document === undefined || entry.document === document)) n += entry.count;
  return n;
}

const more = (n: number): string => `… and ${n} more not listed (${CAPS_NOTE})`;

/** A shown path, relative to the working directory when inside it, with `/` separators. */
export function shownPath(path: string, cwd = process.cwd()): string {
  const rel = relative(cwd, path);
  return rel === '' || rel.startsWith('..') || /^[a-zA-Z]:|^\//.test(rel) ? path : rel.split(sep).join('/');
}

const where = (f: LintFinding): string =>
  `${f.file}${f.line === undefined ? '' : `:${f.line}${f.column === undefined ? '' : `:${f.column}`}`} ${f.pointer === '' ? '/' : f.pointer}`;

export function renderConsole(report: LintReport): string {
  const lines: string[] = [];
  let failed = 0;
  let warned = 0;
  let total = 0;
  for (const rule of LINT_RULES) {
    const own = report.findings.filter((f) => f.rule === rule.id);
    const rest = notListedOf(report, rule.id);
    const outcome = own.length + rest === 0 ? 'ok  ' : fails(rule, report.strict) ? 'FAIL' : 'WARN';
    lines.push(`${outcome} ${rule.id} (${rule.level}) ${rule.title} [${rule.refs.join('; ')}]`);
    for (const f of own) lines.push(`       ${where(f)}\n         ${f.message}`);
    if (rest > 0) lines.push(`       ${more(rest)}`);
    if (outcome === 'FAIL') failed += 1;
    if (outcome === 'WARN') warned += 1;
    total += own.length + rest;
  }
  const passed = LINT_RULES.length - failed - warned;
  const docs = report.documents.length === 1 ? (report.documents[0] ?? '') : `${report.documents.length} documents`;
  const listed = total === report.findings.length ? '' : `, ${report.findings.length} listed`;
  const waived = (report.waived ?? []).length;
  lines.push(...waiverLines(report));
  lines.push(
    '',
    `${docs}: ${passed} rules passed, ${failed} failed, ${warned} warned (${total} finding${total === 1 ? '' : 's'}${listed}${waived > 0 ? `; ${waived} waived` : ''})`,
  );
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
      limits: { findingsPerRule: FINDINGS_PER_RULE, findingsPerPlace: FINDINGS_PER_PLACE },
      findings: report.findings,
      notListed: report.notListed ?? [],
      waived: report.waived ?? [],
      unusedWaivers: report.unusedWaivers ?? [],
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
    suite.property('waived', String((report.waived ?? []).filter((w) => w.finding.document === document).length));
    const ofDocument = report.findings.filter((f) => f.document === document);
    for (const rule of LINT_RULES) {
      const own = ofDocument.filter((f) => f.rule === rule.id);
      const rest = notListedOf(report, rule.id, document);
      const count = own.length + rest;
      const testCase = suite.testCase().className(`${TOOL_NAME}.lint`).name(`${rule.id} ${rule.title}`).time(0);
      const listing = [...own.map((f) => `${where(f)}: ${f.message}`), ...(rest > 0 ? [more(rest)] : [])].join('\n');
      const about = `${rule.id} (${rule.level}): ${rule.title}\nRefs: ${rule.refs.join('; ')}\nSpec: ${rule.sentence}`;
      const first = own[0];
      if (count > 0 && fails(rule, report.strict)) {
        const head = first ? `; first: ${where(first)}: ${first.message}` : '';
        testCase.failure(
          xml(`${count} finding${count === 1 ? '' : 's'}${head}`)
            .replace(/\s+/g, ' ')
            .slice(0, 300),
          'NonConformance',
        );
        testCase.stacktrace(xml(`${about}\n\n${listing}`));
      }
      const out =
        count > 0 && !fails(rule, report.strict)
          ? `WARNING (${rule.level}): ${count} finding${count === 1 ? '' : 's'}\n${listing}\n\n${about}`
          : count > 0
            ? about
            : `${about}\n\nNo findings.`;
      testCase.standardOutput(xml(out));
    }
  }
  // As junit.ts: junit-report-builder's root `skipped="0"` is rejected by both XSDs.
  const text = junit.build();
  const start = text.indexOf('<testsuites');
  const end = text.indexOf('>', start);
  return `${text.slice(0, start)}${text.slice(start, end).replace(/\sskipped="\d*"/, '')}${text.slice(end)}`;
}

/**
 * SARIF 2.1.0 (OASIS), as GitHub code scanning reads it: `tool.driver.rules` with each rule's
 * level as its default configuration, one result per finding with a physical location (file
 * relative to the repository root, which is the working directory in CI, and the line) and the
 * JSON Pointer as a logical location. MUST is `error`, SHOULD `warning`.
 */
export function renderSarif(report: LintReport, cwd = process.cwd()): string {
  const index = new Map<string, number>(LINT_RULES.map((r, i) => [r.id, i]));
  return renderSarifLog(
    LINT_RULES.map((r) => ({
      id: r.id,
      shortDescription: { text: r.title },
      fullDescription: { text: `${r.sentence} (${r.refs.join('; ')})` },
      help: { text: `${r.title}. The spec: ${r.sentence} (${r.refs.join('; ')}).` },
      defaultConfiguration: { level: r.level === 'MUST' ? 'error' : 'warning' },
      properties: { tags: ['openapi', r.level], level: r.level, refs: [...r.refs] },
    })),
    {
      // The findings not listed, counted: a notification per document and rule, and in the run's property bag.
      invocations: [
        {
          executionSuccessful: true,
          toolExecutionNotifications: (report.notListed ?? []).map((n) => ({
            level: 'note',
            message: {
              text: inline(
                `${n.count} more ${n.rule} finding${n.count === 1 ? '' : 's'} in ${n.document} not listed (${CAPS_NOTE})`,
                SARIF_MESSAGE_MAX,
              ),
            },
            associatedRule: { id: n.rule, index: index.get(n.rule) ?? 0 },
          })),
        },
      ],
      properties: {
        limits: { findingsPerRule: FINDINGS_PER_RULE, findingsPerPlace: FINDINGS_PER_PLACE },
        notListed: report.notListed ?? [],
      },
      // A waived finding is a result with an external suppression (SARIF §3.35): code scanning closes its alert.
      results: [
        ...report.findings.map((f) => ({ f })),
        ...(report.waived ?? []).map(({ finding, reason }) => ({ f: finding, reason })),
      ].map(({ f, reason }: { f: LintFinding; reason?: string }) => ({
        ...(reason === undefined
          ? {}
          : {
              suppressions: [
                { kind: 'external', status: 'accepted', justification: inline(reason, SARIF_MESSAGE_MAX) },
              ],
            }),
        ruleId: f.rule,
        ruleIndex: index.get(f.rule) ?? 0,
        level: rulesById.get(f.rule)?.level === 'MUST' || report.strict ? 'error' : 'warning',
        // GitHub code scanning renders a result's message as Markdown: the document's text in it
        // (a property name, a path, an enum value) is neutralised as the job summary's is.
        message: { text: inline(`${f.message} (at ${f.pointer === '' ? '/' : f.pointer})`, SARIF_MESSAGE_MAX) },
        locations: [
          {
            physicalLocation: {
              artifactLocation: artifactLocation(f.file),
              ...(f.line === undefined
                ? {}
                : { region: { startLine: f.line, ...(f.column === undefined ? {} : { startColumn: f.column }) } }),
            },
            logicalLocations: [{ fullyQualifiedName: f.pointer === '' ? '/' : f.pointer, kind: 'object' }],
          },
        ],
      })),
    },
    cwd,
  );
}

/**
 * One line per finding, by file, as ESLint's `stylish` shows them (what a developer's editor and
 * terminal habits expect): `  12:7  error  message  RULE`, then the count of problems.
 */
export function renderStylish(report: LintReport): string {
  const lines: string[] = [];
  const byFile = new Map<string, LintFinding[]>();
  for (const f of report.findings) byFile.set(f.file, [...(byFile.get(f.file) ?? []), f]);
  let errors = 0;
  let warnings = 0;
  for (const [file, findings] of byFile) {
    lines.push(file);
    const sorted = [...findings].sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
    const at = (f: LintFinding): string => (f.line === undefined ? f.pointer || '/' : `${f.line}:${f.column ?? 1}`);
    const width = Math.max(...sorted.map((f) => at(f).length));
    for (const f of sorted) {
      const failing = fails(f, report.strict);
      if (failing) errors += 1;
      else warnings += 1;
      lines.push(`  ${at(f).padEnd(width)}  ${(failing ? 'error' : 'warning').padEnd(7)}  ${f.message}  ${f.rule}`);
    }
    lines.push('');
  }
  const counted = (report.notListed ?? []).reduce((n, e) => n + e.count, 0);
  const total = errors + warnings;
  const waived = (report.waived ?? []).length;
  const tail = waiverLines(report);
  if (tail.length > 0) lines.push(...tail.slice(1), '');
  lines.push(
    total + counted === 0
      ? `${report.documents.length === 1 ? (report.documents[0] ?? '') : `${report.documents.length} documents`}: no problems`
      : `${total} problem${total === 1 ? '' : 's'} (${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'})${counted > 0 ? `, and ${counted} more not listed (${CAPS_NOTE})` : ''}`,
    ...(waived > 0 ? [`${waived} waived`] : []),
  );
  return `${lines.join('\n')}\n`;
}

/**
 * GitHub Actions annotations (`::error file=…,line=…::…`): the findings on a pull request's
 * lines without code scanning. Built here, written by the CLI's one trusted path for workflow
 * commands (src/core/console-safety.ts workflowCommandLine), which escapes the document's text.
 */
export function annotations(report: LintReport): WorkflowCommand[] {
  return report.findings.map((f) => ({
    command: fails(f, report.strict) ? 'error' : 'warning',
    properties: {
      file: f.file,
      line: f.line,
      col: f.column,
      title: `${f.rule} (${f.level})`,
    },
    message: f.line === undefined ? `${f.message} (at ${f.pointer || '/'})` : f.message,
  }));
}

export function render(report: LintReport, format: LintFormat): string {
  switch (format) {
    case 'console':
      return renderConsole(report);
    case 'stylish':
      return renderStylish(report);
    case 'github-actions':
      return annotations(report)
        .map((c) => `${workflowCommandLine(c)}\n`)
        .join('');
    case 'json':
      return renderJson(report);
    case 'junit':
      return renderJUnit(report);
    case 'sarif':
      return renderSarif(report);
  }
}
