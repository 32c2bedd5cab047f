import { basename } from 'node:path';
import { SUITES } from '../catalogue/types.js';
import { formatDuration, formatUtc, oneLine, plural, printable } from '../core/wording.js';
import { reasonOrNone as reason } from './findings-text.js';
import { countStatuses } from '../model/run-report.js';
import type { CheckResult, CheckStatus, Counts, RunReport } from '../model/run-report.js';
import { describeVerdict, verdictOfReport, type VerdictTone } from './verdict.js';
import { DOCUMENT_NOTE, documentHeadline, findingCount, findingPlace, notListedNote } from './document.js';

/**
 * The run as GitHub-flavoured Markdown for a job summary (`$GITHUB_STEP_SUMMARY`): the verdict,
 * a table of counts per suite, then one line per check that needs attention. The full evidence is
 * in junit.xml, report.json and report.html; this is what a reviewer sees on the workflow page.
 *
 * Every string that can come from the target (messages quote server values) is escaped, so a
 * hostile server cannot add links, images, HTML or table cells to the summary.
 */

/**
 * GitHub refuses a step summary over 1 MiB (and shows nothing). The summary stays below it with
 * room to spare for whatever else the same step appends to the file.
 */
export const MARKDOWN_MAX_BYTES = 1_000_000;
/** Longest message per check line; the rest is in the other reports. */
const MESSAGE_MAX = 300;
/** Longest line of the verdict's details. */
const DETAIL_MAX = 600;

export interface MarkdownOptions {
  /** Byte budget of the whole summary (tests use a small one). */
  readonly maxBytes?: number;
}

/** Only a verdict on the whole catalogue, with nothing baselined, is green. */
const TONE_MARK: Record<VerdictTone, string> = {
  pass: '✅',
  partial: '🟡',
  fail: '❌',
  incomplete: '⚠️',
};

const COLUMNS: readonly [CheckStatus, string][] = [
  ['passed', 'Passed'],
  ['failed', 'Failed'],
  ['warning', 'Warnings'],
  ['error', 'Errors'],
  ['skipped', 'Skipped'],
  ['expected', 'Expected'],
];

export function renderMarkdownSummary(report: RunReport, options: MarkdownOptions = {}): string {
  const head = [...header(report), '', ...countsTable(report)];
  const body: string[] = [];

  const sections: [string, CheckStatus, string][] = [
    ['❌ Failed', 'failed', ''],
    ['❌ Errors', 'error', ': checks that could not be carried out'],
    [
      '⚠️ Warnings',
      'warning',
      report.strict ? ': SHOULD checks; with --strict they fail the run' : ': SHOULD checks; they do not fail the run',
    ],
  ];
  for (const [title, status, note] of sections) {
    const checks = report.checks.filter((c) => c.status === status);
    if (checks.length === 0) continue;
    body.push('', `### ${title} (${checks.length})${note}`, '');
    // The checks a cause the preflight found kept from running: one line that names it, as on the console.
    const folded = new Set<string>();
    for (const cause of status === 'error' ? (report.causes ?? []) : []) {
      const kept = checks.filter((c) => cause.checks.includes(c.id) && !folded.has(c.id));
      for (const c of kept) folded.add(c.id);
      if (kept.length > 0)
        body.push(
          `- ${kept.length === 1 ? '1 check' : `${kept.length} checks`} could not run because ${inline(cause.title, MESSAGE_MAX)}: ${kept.map((c) => inline(c.id)).join(', ')}`,
        );
    }
    for (const c of checks) if (!folded.has(c.id)) body.push(`- ${checkLabel(c)}: ${inline(reason(c), MESSAGE_MAX)}`);
  }

  // Review items: apart from the checks, as they are no check's outcome (src/model/run-report.ts reviewItemSchema).
  const review = report.review ?? [];
  if (review.length > 0) {
    body.push(
      '',
      `### 🔎 Review (${review.length}): patterns that may break the spec, which the run cannot judge without ground truth; they do not fail the run`,
      '',
    );
    for (const r of review) body.push(`- ${inline(r.message, MESSAGE_MAX)}; ${inline(r.advice, MESSAGE_MAX)}`);
  }

  const expected = report.checks.filter((c) => c.status === 'expected');
  if (expected.length > 0) {
    const file = report.baseline ? ` listed in ${inline(report.baseline.file)}` : '';
    body.push(
      '',
      `### Expected failures (baseline) (${expected.length}): known failures${file}; they do not fail the run`,
      '',
    );
    for (const c of expected) {
      body.push(
        `- ${checkLabel(c)}: baseline: ${inline(c.baseline?.reason ?? '(no reason given)', MESSAGE_MAX)}; this run: ${inline(reason(c), MESSAGE_MAX)}`,
      );
    }
  }

  const stale = staleEntries(report);
  if (stale.length > 0) {
    const file = report.baseline ? inline(report.baseline.file) : 'the baseline file';
    const strict = report.baseline?.strict === true ? ' With --strict-baseline they fail the run.' : '';
    body.push('', `### Baseline entries that now pass (${stale.length}): remove them from ${file}`, '');
    if (strict !== '') body.push(strict.trim(), '');
    for (const [id, why] of stale) body.push(`- **${inline(id)}**${why === '' ? '' : `: ${inline(why, MESSAGE_MAX)}`}`);
  }

  const expired = report.checks.filter((c) => c.baseline?.expired === true);
  if (expired.length > 0) {
    const file = report.baseline ? inline(report.baseline.file) : 'the baseline file';
    body.push('', `### Baseline entries expired (${expired.length}): renew or remove them in ${file}`, '');
    for (const c of expired)
      body.push(
        `- ${checkLabel(c)}: expired after ${inline(c.baseline?.expires ?? '?')}: ${inline(c.baseline?.reason ?? '', MESSAGE_MAX)}; this run: ${c.status}`,
      );
  }

  const skipped = report.checks.filter((c) => c.status === 'skipped');
  if (skipped.length > 0) {
    body.push('', `### Skipped (${skipped.length})`, '');
    const byReason = new Map<string, string[]>();
    for (const c of skipped) byReason.set(reason(c), [...(byReason.get(reason(c)) ?? []), c.id]);
    for (const [why, ids] of byReason)
      body.push(`- ${inline(why, MESSAGE_MAX)} (${ids.length}): ${ids.map((id) => inline(id)).join(', ')}`);
  }

  // The team's own checks (--team-checks): their own section, never in the spec's counts or verdict.
  const team = report.team;
  if (team !== undefined) {
    const c = team.counts;
    body.push(
      '',
      `### ${team.passed ? '✅' : '❌'} Team checks: ${c.passed} of ${plural(c.total, 'check')} passed; the team's own rules, apart from the spec's verdict`,
      '',
    );
    for (const t of team.checks)
      if (t.status !== 'passed') body.push(`- ${checkLabel(t)} ${t.status}: ${inline(reason(t), MESSAGE_MAX)}`);
  }

  // The --openapi document's findings (issue 33): their own section, after the checks, not counted.
  const document = report.document;
  if (document !== undefined && (findingCount(document) > 0 || document.error !== undefined)) {
    body.push(
      '',
      `### 📄 The OpenAPI document: ${inline(documentHeadline(document), MESSAGE_MAX)}`,
      '',
      `${inline(document.file)}: ${inline(DOCUMENT_NOTE)}.`,
    );
    if (document.findings.length > 0) body.push('');
    for (const f of document.findings)
      body.push(
        `- **${inline(f.rule)}** (${f.level}) ${inline(findingPlace(f), MESSAGE_MAX)}: ${inline(f.message, MESSAGE_MAX)}`,
      );
    const rest = notListedNote(document);
    if (rest !== undefined) body.push(`- … ${inline(rest, MESSAGE_MAX)}`);
  }

  return fit(head, body, options.maxBytes ?? MARKDOWN_MAX_BYTES);
}

function header(report: RunReport): string[] {
  const { target, tool } = report;
  const verdict = describeVerdict(report);
  const lines = [`## Carrier-Platform API conformance: ${TONE_MARK[verdict.tone]} ${inline(verdict.headline)}`, ''];
  for (const detail of verdict.details) lines.push(`- ${inline(detail, DETAIL_MAX)}`);
  lines.push('');
  const about =
    report.traffic === undefined
      ? [`Target **${inline(target.baseUrl)}**`, `auth ${inline(target.authUrl)}`]
      : [
          `Traffic **${inline(report.traffic.captures.map((c) => basename(c.file)).join(', '))}**`,
          `${report.traffic.matched} of ${report.traffic.exchanges} exchanges to **${inline(target.baseUrl)}**, no request sent`,
        ];
  if (target.tenantId !== undefined) about.push(`tenant ${inline(target.tenantId)}`);
  if (target.embedded) about.push('embedded reference server');
  about.push(
    `${inline(tool.name)} ${inline(tool.version)}`,
    `${inline(formatUtc(report.startedAt))}, ${formatDuration(report.durationMs)}`,
  );
  if (report.strict) about.push('strict');
  lines.push(about.join(' · '));

  // The machine verdict, as report.json and JUnit's run.verdict write it: what a script greps for.
  const notes: string[] = [`Verdict: \`${verdictOfReport(report)}\`.`];
  if (report.rerunOf !== undefined)
    notes.push(`Rerun: only the checks that did not pass in ${inline(report.rerunOf)}.`);
  if (report.baseline !== undefined) {
    notes.push(
      `Baseline: ${inline(report.baseline.file)} (${plural(report.baseline.entries, 'known failure')}${report.baseline.strict ? ', strict' : ''}).`,
    );
  }
  // Separate paragraphs: consecutive lines would run together into one.
  for (const note of notes) lines.push('', note);
  return lines;
}

function countsTable(report: RunReport): string[] {
  const withExpected = report.baseline !== undefined || report.checks.some((c) => c.status === 'expected');
  const columns = COLUMNS.filter(([status]) => status !== 'expected' || withExpected);
  const rows: [string, Counts][] = [];
  for (const suite of SUITES) {
    const inSuite = report.checks.filter((c) => c.suite === suite);
    if (inSuite.length > 0) rows.push([suite, countStatuses(inSuite)]);
  }
  if (rows.length === 0) return ['No checks were run.'];
  const total = countStatuses(report.checks);
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [
    line(['Suite', ...columns.map(([, title]) => title)]),
    line([':--', ...columns.map(() => '--:')]),
    ...rows.map(([name, counts]) => line([name, ...columns.map(([status]) => String(counts[status]))])),
    line(['**Total**', ...columns.map(([status]) => `**${total[status]}**`)]),
  ];
}

function checkLabel(check: Pick<CheckResult, 'id' | 'level' | 'refs'>): string {
  const refs = check.refs.length > 0 ? `, ${inline(check.refs.join('; '))}` : '';
  return `**${inline(check.id)}** (${check.level}${refs})`;
}

function staleEntries(report: RunReport): [string, string][] {
  const entries = new Map<string, string>();
  for (const c of report.checks) if (c.baseline?.stale === true) entries.set(c.id, c.baseline.reason);
  for (const id of report.baseline?.stale ?? []) if (!entries.has(id)) entries.set(id, '');
  return [...entries];
}

/**
 * Adds the body lines while they fit, then a note: cutting at a line keeps every table row and
 * list item whole. The header and the counts table always fit (they are a few hundred bytes).
 */
function fit(head: readonly string[], body: readonly string[], maxBytes: number): string {
  const noteFor = (left: number): string =>
    `\n\n> **Truncated:** ${plural(left, 'more line')} did not fit GitHub's step summary limit; every check is in junit.xml, report.json and report.html.\n`;
  let out = head.join('\n');
  let used = Buffer.byteLength(out, 'utf8');
  const reserve = Buffer.byteLength(noteFor(body.length), 'utf8') + 1;
  for (let i = 0; i < body.length; i += 1) {
    const next = `\n${body[i] ?? ''}`;
    const size = Buffer.byteLength(next, 'utf8');
    if (used + size + reserve > maxBytes) return out + noteFor(body.length - i);
    out += next;
    used += size;
  }
  return `${out}\n`;
}

/**
 * One line of text that renders as exactly that text: controls removed, whitespace collapsed, cut
 * to `max`, then every character with a meaning in GFM neutralised. HTML's three as entities;
 * the Markdown ones (emphasis, code, links, strikethrough, table cells, autolinks in `<…>`) with a
 * backslash, which CommonMark defines for any ASCII punctuation. GFM's extended autolinks
 * (`http://…`, `www.…`, `a@b.example`) are matched within one text node, and an escaped character
 * is a node of its own, so escaping the `:` of `://`, the `.` of `www.` and `@` keeps a server's
 * URL plain text. Line-start syntax (`#`, `>`, `-`) cannot occur: every value follows a prefix.
 */
export function inline(text: string, max = MESSAGE_MAX): string {
  const escaped = oneLine(printable(text), max).replace(/[&<>"\\`*_[\]|~!()@]/g, (ch) => {
    switch (ch) {
      case '&':
        return '&amp;';
      case '<':
        return '&lt;';
      case '>':
        return '&gt;';
      case '"':
        return '&quot;';
      default:
        return `\\${ch}`;
    }
  });
  return escaped.replace(/:\/\//g, '\\://').replace(/\b(www)\./gi, '$1\\.');
}
