import { styleText } from 'node:util';
import { formatUtc, oneLine, plural, printable } from '../core/wording.js';
import { inline } from '../report/markdown.js';
import { regressions, type ChangeKind, type CheckChange, type ReportDiff, type RunSummary, type Side } from './diff.js';

/**
 * A diff for people: the console (a CI log) and Markdown (the GitHub job summary, a PR comment).
 * Regressions first, since they decide the exit code; then what needs a look; then the rest.
 * Every string from a report is made printable (console) or escaped (Markdown, see `inline`).
 */

interface Section {
  kind: ChangeKind;
  title: string;
  explain: string;
}

const SECTIONS: readonly Section[] = [
  {
    kind: 'regression',
    title: 'REGRESSED',
    explain: 'passed or warning before, failed or error now; or a MUST check that had a result and now has none',
  },
  {
    kind: 'unverified',
    title: 'FAILING WITHOUT AN EARLIER VERDICT',
    explain: 'skipped or not run before, so not counted as a regression',
  },
  { kind: 'fix', title: 'FIXED', explain: 'failed, error or a known failure before; passed or warning now' },
  { kind: 'status', title: 'OTHER STATUS CHANGES', explain: '' },
  { kind: 'message', title: 'REASON CHANGED', explain: 'same status, another reason' },
  { kind: 'level', title: 'LEVEL CHANGED', explain: 'the catalogue changed the level of these checks' },
  { kind: 'added', title: 'ADDED TO THE CATALOGUE', explain: 'not a regression: the harness checks more' },
  {
    kind: 'removed',
    title: 'REMOVED FROM THE CATALOGUE',
    explain: 'not a regression: the harness no longer has these checks',
  },
  { kind: 'now-run', title: 'RUN IN NEW ONLY', explain: '' },
  { kind: 'not-run', title: 'NOT RUN IN NEW', explain: 'SHOULD checks, or checks without a result before' },
];

const REASON_MAX = 200;

function statusOf(s: Side | undefined): string {
  return s === undefined ? 'not run' : s.status;
}

/** "passed → failed", or one status when it did not change. */
function transition(c: CheckChange): string {
  if (c.kind === 'added') return statusOf(c.new);
  if (c.kind === 'removed') return statusOf(c.old);
  return c.old?.status === c.new?.status ? statusOf(c.new) : `${statusOf(c.old)} → ${statusOf(c.new)}`;
}

/** The reason worth showing: the new one; the old one, marked as such, for a check that passes now or is gone. */
function reasonOf(c: CheckChange): string | undefined {
  if (c.kind === 'removed' || c.kind === 'not-run') return c.old?.reason;
  if (c.new?.reason !== undefined) return c.new.reason;
  return c.old?.reason === undefined ? undefined : `was: ${c.old.reason}`;
}

function describeRun(label: string, run: RunSummary): string {
  return `${label} ${run.file}: ${run.target}, ${run.harness}, ${formatUtc(run.startedAt)}, ${run.verdict}, ${plural(run.checks, 'check')}`;
}

function countsLine(diff: ReportDiff): string {
  const by = (kind: ChangeKind): number => diff.changes.filter((c) => c.kind === kind).length;
  const others = diff.changes.length - by('regression') - by('fix');
  return `${plural(by('regression'), 'regression')}, ${plural(by('fix'), 'fix', 'fixes')}, ${plural(others, 'other change')}, ${diff.unchanged} unchanged`;
}

export function renderDiffConsole(diff: ReportDiff, options: { color: boolean }): string {
  type Style = Parameters<typeof styleText>[0];
  const paint = (style: Style, text: string): string =>
    options.color ? styleText(style, text, { validateStream: false }) : text;
  const line = (text: string): string => oneLine(printable(text), REASON_MAX);
  const regressed = regressions(diff);
  const blocks: string[] = [
    [
      regressed.length > 0
        ? paint(['bold', 'red'], `REGRESSED: ${plural(regressed.length, 'check')} got worse`)
        : paint(['bold', 'green'], 'NO REGRESSION'),
      paint('dim', line(describeRun('OLD', diff.old))),
      paint('dim', line(describeRun('NEW', diff.new))),
      ...diff.notes.map((n) => paint('yellow', `Note: ${line(n)}`)),
    ].join('\n'),
  ];
  for (const section of SECTIONS) {
    const changes = diff.changes.filter((c) => c.kind === section.kind);
    if (changes.length === 0) continue;
    const style: Style =
      section.kind === 'regression' ? ['bold', 'red'] : section.kind === 'fix' ? ['bold', 'green'] : 'bold';
    const idWidth = Math.max(...changes.map((c) => printable(c.id).length));
    const rows = changes.map((c) => {
      const head = `  ${printable(c.id).padEnd(idWidth)}  ${c.level.padEnd(6)}  ${transition(c)}${c.note !== undefined ? ` (${c.note})` : ''}`;
      if (c.kind === 'message')
        return [
          head,
          `  ${''.padEnd(idWidth)}          was: ${line(c.old?.reason ?? '(no reason recorded)')}`,
          `  ${''.padEnd(idWidth)}          now: ${line(c.new?.reason ?? '(no reason recorded)')}`,
        ].join('\n');
      const reason = reasonOf(c);
      return reason === undefined || c.kind === 'level' ? head : `${head}: ${line(reason)}`;
    });
    blocks.push(
      [
        `${paint(style, `${section.title} (${changes.length})`)}${section.explain ? `: ${section.explain}` : ''}`,
        ...rows,
      ].join('\n'),
    );
  }
  blocks.push(countsLine(diff));
  return `${blocks.join('\n\n')}\n`;
}

export function renderDiffMarkdown(diff: ReportDiff): string {
  const regressed = regressions(diff);
  const verdict = regressed.length > 0 ? `❌ ${plural(regressed.length, 'regression')}` : '✅ no regression';
  const lines = [
    `## Carrier-Platform API conformance diff: ${verdict}`,
    '',
    `| | report | target | harness | started | verdict | checks |`,
    `|:--|:--|:--|:--|:--|:--|--:|`,
    ...(
      [
        ['OLD', diff.old],
        ['NEW', diff.new],
      ] as const
    ).map(
      ([label, r]) =>
        `| ${label} | ${inline(r.file)} | ${inline(r.target)} | ${inline(r.harness)} | ${inline(formatUtc(r.startedAt))} | ${r.verdict} | ${r.checks} |`,
    ),
  ];
  for (const note of diff.notes) lines.push('', `> **Note:** ${inline(note)}`);
  for (const section of SECTIONS) {
    const changes = diff.changes.filter((c) => c.kind === section.kind);
    if (changes.length === 0) continue;
    const title = section.title.charAt(0) + section.title.slice(1).toLowerCase();
    lines.push(
      '',
      `### ${section.kind === 'regression' ? '❌ ' : section.kind === 'fix' ? '✅ ' : ''}${title} (${changes.length})${section.explain ? `: ${section.explain}` : ''}`,
      '',
    );
    for (const c of changes) {
      const head = `- **${inline(c.id)}** (${c.level}) ${inline(transition(c))}${c.note !== undefined ? ` (${inline(c.note)})` : ''}`;
      if (c.kind === 'message')
        lines.push(
          `${head}: was ${inline(c.old?.reason ?? '(no reason recorded)')}; now ${inline(c.new?.reason ?? '(no reason recorded)')}`,
        );
      else {
        const reason = reasonOf(c);
        lines.push(reason === undefined || c.kind === 'level' ? head : `${head}: ${inline(reason)}`);
      }
    }
  }
  lines.push('', countsLine(diff), '');
  return lines.join('\n');
}
