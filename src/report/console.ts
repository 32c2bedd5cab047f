import { styleText } from 'node:util';
import { basename } from 'node:path';
import { SUITES } from '../catalogue/types.js';
import { formatDuration, oneLine, plural, printable } from '../core/wording.js';
import { reasonWithin } from './findings-text.js';
import { countStatuses } from '../model/run-report.js';
import type { CheckResult, CheckStatus, Counts, RunReport } from '../model/run-report.js';
import { describeVerdict, type VerdictTone } from './verdict.js';
import { DOCUMENT_NOTE, documentHeadline, findingCount } from './document.js';
import type { DocumentSection } from '../model/run-report.js';

/**
 * The summary printed at the end of a run, for a person reading a CI log in a hurry: the verdict
 * first, where the problems are (a count per suite), then every check that needs attention with a
 * one-line reason, then what was not checked and why. Where the reports were written is printed
 * by the caller, which knows.
 */

export interface ConsoleOptions {
  /** Decided by the caller (TTY, NO_COLOR, --color); this module never looks at the stream. */
  readonly color: boolean;
}

type Style = Parameters<typeof styleText>[0];
type Color = Exclude<Style, readonly unknown[]>;

/** Longest reason printed per check; the rest is in the JUnit and JSON reports. */
const REASON_MAX = 200;
/** Longest line of the verdict's details (a list of skip reasons can be long). */
const DETAIL_MAX = 400;

const COLUMNS = [
  'passed',
  'failed',
  'warning',
  'error',
  'skipped',
  'expected',
] as const satisfies readonly CheckStatus[];
type Column = (typeof COLUMNS)[number];
const COLUMN_STYLE: Record<Column, Style> = {
  passed: 'green',
  failed: 'red',
  warning: 'yellow',
  error: 'red',
  skipped: 'gray',
  expected: 'cyan',
};

export function renderConsoleSummary(report: RunReport, opts: ConsoleOptions): string {
  const paint = (style: Style, text: string): string =>
    // validateStream: false, or Node ≥ 22 would drop the colours whenever stdout is not a TTY,
    // overriding the caller's decision (and making the output depend on where the tests run).
    opts.color ? styleText(style, text, { validateStream: false }) : text;

  // The `expected` column and count only appear in runs with a baseline: noise otherwise.
  const withExpected = report.baseline !== undefined || report.checks.some((c) => c.status === 'expected');
  const columns = COLUMNS.filter((col) => col !== 'expected' || withExpected);
  const blocks: string[] = [header(report, paint), suiteTable(report.checks, columns, paint)];

  const attention: [string, Color, CheckStatus, string][] = [
    ['FAILED', 'red', 'failed', ''],
    ['ERRORS', 'red', 'error', ': checks that could not be carried out'],
    [
      'WARNINGS',
      'yellow',
      'warning',
      report.strict ? ': SHOULD checks; with --strict they fail the run' : ': SHOULD checks; they do not fail the run',
    ],
  ];
  for (const [title, style, status, note] of attention) {
    const checks = report.checks.filter((c) => c.status === status);
    if (checks.length > 0)
      blocks.push(
        checkList(
          `${paint(['bold', style], `${title} (${checks.length})`)}${note}`,
          checks,
          status === 'error' ? report.causes : undefined,
        ),
      );
  }

  const review = reviewList(report, paint);
  if (review !== undefined) blocks.push(review);

  const expected = report.checks.filter((c) => c.status === 'expected');
  if (expected.length > 0) blocks.push(expectedList(report, expected, paint));
  const stale = staleList(report, paint);
  if (stale !== undefined) blocks.push(stale);
  const expired = expiredList(report, paint);
  if (expired !== undefined) blocks.push(expired);

  const skipped = report.checks.filter((c) => c.status === 'skipped');
  if (skipped.length > 0) blocks.push(skippedList(skipped, paint));
  const unjudged = endpointsNotJudged(report.checks, paint);
  if (unjudged !== undefined) blocks.push(unjudged);
  const uncertain = kindNotCertain(report.target.endpoints ?? [], paint);
  if (uncertain !== undefined) blocks.push(uncertain);

  // A clean document is no news: the block appears when there is something to fix (or it could not be linted).
  if (report.document !== undefined && (findingCount(report.document) > 0 || report.document.error !== undefined))
    blocks.push(documentBlock(report.document, paint));

  if (report.team !== undefined) blocks.push(teamBlock(report.team, paint));

  blocks.push(totals(report, withExpected, paint));
  return `${blocks.join('\n\n')}\n`;
}

/**
 * The team's own checks (--team-checks): one block after the spec's, never in its table, counts
 * or verdict; what did not pass is listed as the spec's checks are.
 */
function teamBlock(team: NonNullable<RunReport['team']>, paint: Paint): string {
  const c = team.counts;
  const counts = [
    `${c.passed} passed`,
    `${c.failed} failed`,
    plural(c.warning, 'warning'),
    plural(c.error, 'error'),
    `${c.skipped} skipped`,
  ].join(', ');
  const modules = team.modules.map((m) => printable(basename(m))).join(', ');
  const title = `${paint(['bold', team.passed ? 'green' : 'red'], `TEAM CHECKS ${team.passed ? 'PASSED' : 'FAILED'}`)} (${modules}): ${plural(c.total, 'check')}, ${counts}; the team's own rules, apart from the spec's verdict${team.passed ? '' : ' (exit 6 when the spec found nothing wrong)'}`;
  return checkList(
    title,
    team.checks.filter((t) => t.status !== 'passed'),
  );
}

type Paint = (style: Style, text: string) => string;

const TONE_STYLE: Record<VerdictTone, Style> = {
  pass: ['bold', 'green'],
  partial: ['bold', 'yellow'],
  fail: ['bold', 'red'],
  incomplete: ['bold', 'yellow'],
};

function header(report: RunReport, paint: Paint): string {
  const { target } = report;
  const verdict = describeVerdict(report);
  // Verdict first: it is what the reader came for, and the first thing a log viewer shows. Then
  // what it covers: a partial run must not read like a full one in a hurried glance.
  const lines = [`${paint(TONE_STYLE[verdict.tone], verdict.headline)}  ${printable(target.baseUrl)}`];
  for (const detail of verdict.details) lines.push(`  ${line(detail, DETAIL_MAX)}`);
  const details = [
    `${printable(report.tool.name)} ${printable(report.tool.version)}`,
    ...(report.traffic === undefined ? [`auth ${printable(target.authUrl)}`] : []),
  ];
  if (target.tenantId !== undefined) details.push(`tenant ${printable(target.tenantId)}`);
  if (target.embedded) details.push('embedded reference server');
  if (report.strict) details.push('strict');
  lines.push(paint('dim', details.join(', ')));
  if (report.traffic !== undefined) lines.push(...trafficLines(report.traffic));
  if (report.rerunOf !== undefined) lines.push(`Rerun: only the checks that did not pass in ${line(report.rerunOf)}`);
  if (report.baseline !== undefined) {
    const { file, entries, strict } = report.baseline;
    lines.push(
      `Baseline: ${line(file)} (${plural(entries, 'known failure')}${strict ? ', strict: entries that now pass fail the run' : ''})`,
    );
  }
  return lines.join('\n');
}

/** `traffic` (issue 43): what was judged, and what the captures could not carry. */
function trafficLines(traffic: NonNullable<RunReport['traffic']>): string[] {
  const files = traffic.captures.map((c) => `${basename(c.file)} (${c.format}, ${plural(c.exchanges, 'exchange')})`);
  return [
    line(
      `Traffic: ${files.join(', ')}; ${traffic.matched} of ${traffic.exchanges} to the spec's endpoints, ${plural(traffic.endpoints.length, 'endpoint')}; no request was sent`,
      DETAIL_MAX,
    ),
    ...traffic.limits.map((limit) => `  ${line(limit, DETAIL_MAX)}`),
  ];
}

function suiteTable(checks: readonly CheckResult[], columns: readonly Column[], paint: Paint): string {
  const rows: [string, Counts][] = [];
  for (const suite of SUITES) {
    const inSuite = checks.filter((c) => c.suite === suite);
    if (inSuite.length > 0) rows.push([suite, countStatuses(inSuite)]);
  }
  if (rows.length === 0) return 'No checks were run.';

  const nameWidth = Math.max('suite'.length, ...rows.map(([name]) => name.length));
  const widths = columns.map((col) => Math.max(col.length, ...rows.map(([, counts]) => String(counts[col]).length)));
  const head = ['suite'.padEnd(nameWidth), ...columns.map((col, i) => col.padStart(widths[i] ?? 0))].join('  ');
  const body = rows.map(([name, counts]) =>
    [
      name.padEnd(nameWidth),
      ...columns.map((col, i) => {
        const cell = String(counts[col]).padStart(widths[i] ?? 0);
        // Only non-zero problem counts are coloured, so the eye lands on them.
        return counts[col] > 0 && col !== 'passed' ? paint(COLUMN_STYLE[col], cell) : cell;
      }),
    ].join('  '),
  );
  return [paint('bold', head), ...body].join('\n');
}

/** Checks that share one reason are one line from this many on (a run stopped by its deadline). */
const GROUP_FROM = 3;

/** What a list of checks shows of each: the catalogue's and the team's alike. */
type Listed = Pick<CheckResult, 'id' | 'level' | 'message' | 'findings' | 'endpoints'>;

function checkList(title: string, checks: readonly Listed[], causes: RunReport['causes'] = []): string {
  // The checks a cause found before the run kept from running: one line, however many, which
  // names the cause once (issue 30: a 500 on /users/me was forty lines).
  const lines: string[] = [];
  const folded = new Set<Listed>();
  for (const cause of causes) {
    const ids = new Set(cause.checks);
    const kept = checks.filter((c) => ids.has(c.id) && !folded.has(c));
    if (kept.length === 0) continue;
    for (const c of kept) folded.add(c);
    lines.push(
      `  ${plural(kept.length, 'check')} could not run because ${line(cause.title)}: ${kept.map((c) => printable(c.id)).join(', ')}`,
    );
  }
  checks = checks.filter((c) => !folded.has(c));
  const byReason = new Map<string, Listed[]>();
  for (const c of checks) byReason.set(reason(c), [...(byReason.get(reason(c)) ?? []), c]);
  const single = checks.filter((c) => (byReason.get(reason(c))?.length ?? 0) < GROUP_FROM);
  const idWidth = Math.max(0, ...single.map((c) => printable(c.id).length));
  const printed = new Set<string>();
  for (const c of checks) {
    const why = reason(c);
    const group = byReason.get(why) ?? [];
    if (group.length < GROUP_FROM)
      lines.push(`  ${printable(c.id).padEnd(idWidth)}  ${c.level.padEnd(6)}  ${why}`.trimEnd());
    else if (!printed.has(why)) {
      printed.add(why);
      lines.push(`  ${why} (${group.length}): ${group.map((g) => printable(g.id)).join(', ')}`);
    }
  }
  return [title, ...lines].join('\n');
}

/** Review items longer than this many are counted, not listed: the report files list them all. */
const REVIEW_SHOWN = 10;

/**
 * Review items (src/model/run-report.ts reviewItemSchema): after the warnings, apart from the checks,
 * as they are no check's outcome and never the run's.
 */
function reviewList(report: RunReport, paint: Paint): string | undefined {
  const items = report.review ?? [];
  if (items.length === 0) return undefined;
  const title = `${paint(['bold', 'magenta'], `REVIEW (${items.length})`)}: patterns that may break the spec, which the run cannot judge without ground truth; they do not fail the run`;
  const lines = items.slice(0, REVIEW_SHOWN).map((r) => `  ${line(r.message, DETAIL_MAX)}\n    ${line(r.advice)}`);
  if (items.length > REVIEW_SHOWN) lines.push(`  and ${items.length - REVIEW_SHOWN} more, in report.json`);
  return [title, ...lines].join('\n');
}

/** Known failures: the baseline's reason first (why it is accepted), then what this run saw. */
function expectedList(report: RunReport, checks: readonly CheckResult[], paint: Paint): string {
  const file = report.baseline ? ` listed in ${printable(report.baseline.file)}` : '';
  const title = `${paint(['bold', 'cyan'], `EXPECTED FAILURES (baseline) (${checks.length})`)}: known failures${file}; they do not fail the run`;
  const idWidth = Math.max(...checks.map((c) => printable(c.id).length));
  const lines = checks.map((c) => {
    const known = c.baseline?.reason.trim() ? c.baseline.reason : '(no reason given)';
    return `  ${printable(c.id).padEnd(idWidth)}  ${c.level.padEnd(6)}  ${line(`${known} | this run: ${reason(c)}`)}`.trimEnd();
  });
  return [title, ...lines].join('\n');
}

/** Baseline entries whose check passed: the entry can go, or it would hide a future regression. */
function staleList(report: RunReport, paint: Paint): string | undefined {
  const entries = new Map<string, string>();
  for (const c of report.checks) if (c.baseline?.stale === true) entries.set(c.id, c.baseline.reason);
  for (const id of report.baseline?.stale ?? []) if (!entries.has(id)) entries.set(id, '');
  if (entries.size === 0) return undefined;
  const file = report.baseline ? printable(report.baseline.file) : 'the baseline file';
  const strict = report.baseline?.strict === true ? '; with --strict-baseline they fail the run' : '';
  const title = `${paint(['bold', 'yellow'], `BASELINE ENTRIES THAT NOW PASS (remove them from ${file})`)} (${entries.size})${strict}`;
  const idWidth = Math.max(...[...entries.keys()].map((id) => printable(id).length));
  const lines = [...entries].map(([id, why]) =>
    `  ${printable(id).padEnd(idWidth)}  ${why.trim() === '' ? '' : line(why)}`.trimEnd(),
  );
  return [title, ...lines].join('\n');
}

/** Baseline entries past their `expires` day: they excuse nothing, and the failures they listed count again. */
function expiredList(report: RunReport, paint: Paint): string | undefined {
  const checks = report.checks.filter((c) => c.baseline?.expired === true);
  if (checks.length === 0) return undefined;
  const file = report.baseline ? printable(report.baseline.file) : 'the baseline file';
  const title = `${paint(['bold', 'red'], `BASELINE ENTRIES EXPIRED (renew or remove them in ${file})`)} (${checks.length})`;
  const idWidth = Math.max(...checks.map((c) => printable(c.id).length));
  const lines = checks.map((c) =>
    `  ${printable(c.id).padEnd(idWidth)}  ${line(`expired after ${c.baseline?.expires ?? '?'}: ${c.baseline?.reason ?? ''} | this run: ${c.status}`)}`.trimEnd(),
  );
  return [title, ...lines].join('\n');
}

function skippedList(checks: readonly CheckResult[], paint: Paint): string {
  const byReason = new Map<string, string[]>();
  for (const c of checks) {
    const why = reason(c);
    byReason.set(why, [...(byReason.get(why) ?? []), printable(c.id)]);
  }
  const lines = [...byReason].map(([why, ids]) => `  ${why} (${ids.length}): ${ids.join(', ')}`);
  return [paint('bold', `SKIPPED (${checks.length})`), ...lines].join('\n');
}

/** Endpoints shown by endpointsNotJudged before the rest are counted. */
const UNJUDGED_SHOWN = 10;

/**
 * Endpoints that checks skipped, each once with its reason and how many checks skipped it (issue
 * 29: a required query parameter without a value, no list to take an id from, no JSON body): a
 * check that passed on the others says "passed", and without this block the endpoint it never
 * judged would be seen nowhere but report.json.
 */
function endpointsNotJudged(checks: readonly CheckResult[], paint: Paint): string | undefined {
  const byEndpoint = new Map<string, { reasons: Map<string, number> }>();
  for (const c of checks) {
    // A check that judged none of its endpoints was stopped by something else (no tenant, a
    // failed preflight), which the run reports once as its cause: only skips beside judgements here.
    if (!(c.endpoints ?? []).some((e) => e.status === 'passed' || e.status === 'failed' || e.status === 'warning'))
      continue;
    for (const e of c.endpoints ?? []) {
      // No tenant under test is the run's one cause (the header says it), not each endpoint's.
      if (e.status !== 'skipped' || (e.message ?? '').startsWith('no tenant under test')) continue;
      let entry = byEndpoint.get(e.endpoint);
      if (!entry) byEndpoint.set(e.endpoint, (entry = { reasons: new Map() }));
      const why = e.message ?? 'no reason given';
      entry.reasons.set(why, (entry.reasons.get(why) ?? 0) + 1);
    }
  }
  if (byEndpoint.size === 0) return undefined;
  const lines: string[] = [];
  for (const [endpoint, { reasons }] of [...byEndpoint].slice(0, UNJUDGED_SHOWN)) {
    const [why, count] = [...reasons].sort((a, b) => b[1] - a[1])[0] ?? ['', 0];
    lines.push(
      `  ${line(`${endpoint}: ${why} (${plural(count, 'check')}${reasons.size > 1 ? `; ${reasons.size - 1} other reason${reasons.size > 2 ? 's' : ''}` : ''})`, DETAIL_MAX)}`,
    );
  }
  if (byEndpoint.size > UNJUDGED_SHOWN)
    lines.push(`  and ${byEndpoint.size - UNJUDGED_SHOWN} more, in report.json (each check's endpoints)`);
  return [
    paint('bold', `ENDPOINTS NOT JUDGED (${byEndpoint.size})`) +
      ': skipped by some checks, which passed or failed on the others',
    ...lines,
  ].join('\n');
}

/**
 * The tenant endpoints whose kind the document leaves uncertain (issue 37 item 3), each with why
 * and the option that settles it: a list taken for a single resource is judged by no paging
 * check, a resource taken for a list is paged. Only the operator knows which it is.
 */
function kindNotCertain(endpoints: NonNullable<RunReport['target']['endpoints']>, paint: Paint): string | undefined {
  const uncertain = endpoints.filter((e) => e.uncertain !== undefined);
  if (uncertain.length === 0) return undefined;
  const lines = uncertain.slice(0, UNJUDGED_SHOWN).map((e) => {
    const other = e.kind === 'list' ? `--endpoint '${e.path}'` : `--paged-path '${e.path}'`;
    return `  ${line(`GET /tenants/{tenantId}/${e.path}: judged as ${e.kind === 'list' ? 'a list' : 'a single resource'}: ${e.uncertain ?? ''}; if it is ${e.kind === 'list' ? 'one resource' : 'a list'}, pass ${other}`, DETAIL_MAX)}`;
  });
  if (uncertain.length > UNJUDGED_SHOWN)
    lines.push(`  and ${uncertain.length - UNJUDGED_SHOWN} more, in report.json (target.endpoints[].uncertain)`);
  return [
    paint('bold', `KIND NOT CERTAIN (${uncertain.length})`) +
      ': the document does not settle whether these are lists (spec §Pagination); --paged-path PATH makes one a list, --endpoint PATH a single resource',
    ...lines,
  ].join('\n');
}

/**
 * The --openapi document's findings (issue 33): one short block, by rule, after the checks and
 * outside their totals; the findings themselves are in report.json, and `lint` shows them located.
 */
function documentBlock(section: DocumentSection, paint: Paint): string {
  const count = findingCount(section);
  const title = paint('bold', `The document${count > 0 ? ` (${count})` : ''}`);
  const rest =
    section.error === undefined && count > 0 ? `; see report.json, or: carrier-conformance lint ${section.file}` : '';
  return `${title}: ${line(`${section.file}: ${documentHeadline(section)}${rest}`, DETAIL_MAX)}
  ${DOCUMENT_NOTE}`;
}

function totals(report: RunReport, withExpected: boolean, paint: Paint): string {
  const c = countStatuses(report.checks);
  const parts = [
    paint('green', `${c.passed} passed`),
    c.failed > 0 ? paint('red', `${c.failed} failed`) : `${c.failed} failed`,
    c.warning > 0 ? paint('yellow', plural(c.warning, 'warning')) : plural(c.warning, 'warning'),
    c.error > 0 ? paint('red', plural(c.error, 'error')) : plural(c.error, 'error'),
    `${c.skipped} skipped`,
  ];
  if (withExpected) parts.push(c.expected > 0 ? paint('cyan', `${c.expected} expected`) : `${c.expected} expected`);
  return `${plural(c.total, 'check')}: ${parts.join(', ')} (${formatDuration(report.durationMs)})`;
}

function reason(check: Listed): string {
  return line(reasonWithin(check, REASON_MAX));
}

function line(text: string, max = REASON_MAX): string {
  return oneLine(printable(text), max);
}
