import { SUITES } from '../catalogue/types.js';
import { formatUtc, plural } from '../core/wording.js';
import { Html, escapeHtml, html } from '../report/html-escape.js';
import { pageHead } from '../report/html-page.js';
import { STATUS } from '../report/html.js';
import type { CheckStatus } from '../model/run-report.js';
import { HTML_STYLE } from '../report/html-style.js';
import type {
  CellStatus,
  CertificationStanding,
  Matrix,
  MatrixCell,
  MatrixTarget,
  Standing,
  Tally,
} from './combine.js';

/**
 * matrix.html: checks down, targets across, one self-contained page like report.html (inline CSS,
 * no script, a Content-Security-Policy that loads nothing). Each cell is the outcome as a symbol
 * and a word; a cell that did not pass opens (<details>) to its reason, which is also its tooltip.
 * Every string from a report (target names, reasons, ids) goes through the escaping `html` tag.
 */

/** The symbols and words of report.html, so that a status reads the same on both pages. */
const LOOK: Record<CellStatus, { symbol: string; word: string }> = {
  ...(Object.fromEntries(
    Object.entries(STATUS).map(([status, look]) => [status, { symbol: look.symbol, word: look.label.toLowerCase() }]),
  ) as Record<CheckStatus, { symbol: string; word: string }>),
  'not-run': { symbol: '·', word: 'not run' },
};

export const STANDING: Record<Standing, string> = {
  conformant: 'CONFORMANT',
  partial: 'PARTIAL',
  'non-conformant': 'NON-CONFORMANT',
  'not-proven': 'NOT PROVEN',
  incomplete: 'INCOMPLETE',
};
/** A bundle's standing as verify-bundle gives it (issue 39 item 3). */
export const CERTIFICATION: Record<CertificationStanding, string> = {
  certified: 'CERTIFIED',
  'not-certified': 'NOT CERTIFIED',
  'signer-not-proven': 'SIGNER NOT PROVEN',
};

const MATRIX_STYLE = `
main { max-width: none; }
/* Scrolls both ways inside the page, so the sticky target names and check ids stay in view. */
.matrix-scroll { overflow: auto; max-width: 100%; width: fit-content; max-height: 85vh; border: 1px solid var(--line); border-radius: 6px; }
table.matrix { border-collapse: separate; border-spacing: 0; font-size: 13px; }
.matrix th, .matrix td { border-bottom: 1px solid var(--line); border-right: 1px solid var(--line); padding: 3px 8px; text-align: left; vertical-align: top; background: #fff; }
/* A target's name wraps between words only, its column as wide as its longest word: a name broken
   mid-word reads as two, and a column narrower than its content is cut by the next (issue 32). */
.matrix thead th { position: sticky; top: 0; z-index: 2; background: var(--bg-soft); min-width: 120px; overflow-wrap: normal; }
.matrix .check-col { position: sticky; left: 0; z-index: 1; min-width: 240px; max-width: 360px; }
/* A check id is one token, to be read and copied whole: never wrapped at its hyphens. */
.matrix .check-col code { white-space: nowrap; }
.matrix thead .check-col { z-index: 3; }
.matrix .suite-row th { background: var(--bg-soft); font-size: 14px; }
.matrix .check-title { display: block; font-weight: 400; color: var(--muted); font-size: 12px; }
.matrix tfoot th, .matrix tfoot td { background: var(--bg-soft); font-variant-numeric: tabular-nums; }
.cell { white-space: nowrap; }
.cell details > summary { cursor: pointer; }
.cell details[open] { white-space: normal; max-width: 260px; }
.cell .reason { margin: 4px 0 0; font-size: 12px; overflow-wrap: anywhere; white-space: pre-line; }
.cell-passed { color: var(--passed-fg); }
.cell-failed { color: var(--failed-fg); background: var(--failed-bg) !important; }
.cell-error { color: var(--error-fg); background: var(--error-bg) !important; }
.cell-warning { color: var(--warning-fg); background: var(--warning-bg) !important; }
.cell-expected { color: var(--expected-fg); background: var(--expected-bg) !important; }
.cell-skipped, .cell-not-run { color: var(--skipped-fg); background: var(--skipped-bg) !important; }
.badge-not-run { color: var(--skipped-fg); background: var(--skipped-bg); border-color: var(--skipped-line); }
.table-scroll { overflow-x: auto; max-width: 100%; }
table.targets { border-collapse: collapse; width: 100%; font-size: 14px; }
/* As in the matrix: words whole, the table as wide as they need, scrolled inside its box on a phone. */
.targets th, .targets td, .targets code { overflow-wrap: normal; }
.targets th, .targets td { border: 1px solid var(--line); padding: 4px 10px; text-align: left; }
.targets thead th { background: var(--bg-soft); white-space: nowrap; }
.matrix td.lvl { white-space: nowrap; }
/* A phone (390 px): the ids alone, smaller, in a column as wide as the longest of them. */
@media (max-width: 640px) { .matrix .check-col { min-width: 0; max-width: none; } .matrix .check-col code { font-size: 11px; } .matrix .check-title { display: none; } }
@media print { .matrix-scroll { overflow: visible; max-height: none; width: auto; } .matrix thead th, .matrix .check-col { position: static; } }
.verdict-tag { font-weight: 700; white-space: nowrap; }
.verdict-tag.conformant { color: var(--passed-fg); }
.verdict-tag.non-conformant { color: var(--failed-fg); }
.verdict-tag.not-proven { color: var(--error-fg); }
.verdict-tag.incomplete, .verdict-tag.partial { color: var(--warning-fg); }
`;

/** Attribute text: hidden characters dropped rather than marked, since markup cannot go in an attribute. */
function attr(text: string): Html {
  return new Html(escapeHtml(text, false));
}

function tallyText(t: Tally, level: string): string {
  const problems: string[] = [];
  if (t.failed > 0) problems.push(`${t.failed} failed`);
  if (t.error > 0) problems.push(plural(t.error, 'error'));
  if (t.warning > 0) problems.push(plural(t.warning, 'warning'));
  if (t.expected > 0) problems.push(plural(t.expected, 'known failure'));
  if (t.skipped > 0) problems.push(`${t.skipped} skipped`);
  if (t.notRun > 0) problems.push(`${t.notRun} not run`);
  return `${level} ${t.passed}/${t.total}${problems.length > 0 ? ` (${problems.join(', ')})` : ''}`;
}

function cell(c: MatrixCell, target: MatrixTarget, id: string): Html {
  const look = LOOK[c.status];
  const label = html`<span aria-hidden="true">${look.symbol}</span> ${look.word}`;
  const tip = `${id} on ${target.name}: ${look.word}${c.reason !== undefined ? `: ${c.reason}` : ''}`;
  if (c.reason === undefined) return html`<td class="cell cell-${c.status}" title="${attr(tip)}">${label}</td>`;
  return html`<td class="cell cell-${c.status}" title="${attr(tip)}"><details><summary>${label}</summary><p class="reason">${c.reason}</p></details></td>`;
}

/** A target's certification standing under its name, when its bundle was verified. */
function certificationTag(t: MatrixTarget): Html | string {
  if (t.certification === undefined) return '';
  const { standing, reason } = t.certification;
  const tag = standing === 'certified' ? 'conformant' : standing === 'not-certified' ? 'non-conformant' : 'incomplete';
  return html`<br><span class="verdict-tag ${tag}">${CERTIFICATION[standing]}</span>${reason !== undefined ? html`: ${reason}` : ''}`;
}

/** A target's verdict, with what qualifies it. */
function standingTag(t: MatrixTarget): Html {
  return html`<span class="verdict-tag ${t.standing}">${STANDING[t.standing]}</span>${t.standing === 'partial' ? ': MUST checks not run' : ''}${t.strict ? ' (strict)' : ''}${t.incompleteReason !== undefined ? html`<br>${t.incompleteReason}` : ''}`;
}

function targetsTable(matrix: Matrix): Html {
  return html`<div class="table-scroll"><table class="targets">
<thead><tr><th scope="col">Target</th><th scope="col">Verdict</th><th scope="col">MUST</th><th scope="col">SHOULD</th><th scope="col">Version</th><th scope="col">Operator</th><th scope="col">Base URL</th><th scope="col">Harness</th><th scope="col">Run started</th><th scope="col">Report</th></tr></thead>
<tbody>
${matrix.targets.map(
  (t) =>
    html`<tr><th scope="row">${t.name}${certificationTag(t)}</th><td>${standingTag(t)}</td><td>${tallyText(t.must, 'MUST')}</td><td>${tallyText(t.should, 'SHOULD')}</td><td>${t.version ?? ''}</td><td>${t.operator ?? ''}</td><td><code>${t.baseUrl}</code></td><td>${t.harness}</td><td>${formatUtc(t.startedAt)}</td><td><code>${t.report}</code></td></tr>`,
)}
</tbody>
</table></div>`;
}

function matrixTable(matrix: Matrix): Html {
  const width = matrix.targets.length + 2;
  const suites = SUITES.filter((s) => matrix.checks.some((c) => c.suite === s));
  const footer: [string, (t: MatrixTarget) => string][] = [
    ['MUST passed', (t) => `${t.must.passed}/${t.must.total}`],
    ['SHOULD passed', (t) => `${t.should.passed}/${t.should.total}`],
    ['failed or error', (t) => String(t.must.failed + t.must.error + t.should.failed + t.should.error)],
    ['warnings', (t) => String(t.should.warning + t.must.warning)],
    ['skipped or not run', (t) => String(t.must.skipped + t.must.notRun + t.should.skipped + t.should.notRun)],
  ];
  return html`<div class="matrix-scroll"><table class="matrix">
<thead><tr><th scope="col" class="check-col">Check</th><th scope="col">Level</th>${matrix.targets.map(
    (t) =>
      html`<th scope="col">${t.name}<br><span class="verdict-tag ${t.standing}">${STANDING[t.standing]}</span><br>${t.must.passed}/${t.must.total} MUST</th>`,
  )}</tr></thead>
<tbody>
${suites.map(
  (suite) => html`<tr class="suite-row"><th scope="rowgroup" colspan="${width}" class="check-col">${suite}</th></tr>
${matrix.checks
  .filter((c) => c.suite === suite)
  .map(
    (row) =>
      html`<tr><th scope="row" class="check-col" title="${attr(row.title)}"><code>${row.id}</code><span class="check-title">${row.title}</span></th><td class="lvl">${row.level}</td>${row.cells.map(
        (c, i) => {
          const target = matrix.targets[i];
          return target === undefined ? '' : cell(c, target, row.id);
        },
      )}</tr>`,
  )}`,
)}
</tbody>
<tfoot>
${footer.map(([label, value]) => html`<tr><th scope="row" class="check-col">${label}</th><td></td>${matrix.targets.map((t) => html`<td>${value(t)}</td>`)}</tr>`)}
</tfoot>
</table></div>`;
}

export function renderMatrixHtml(matrix: Matrix): string {
  const conformant = matrix.targets.filter((t) => t.standing === 'conformant').length;
  const harnesses = [...new Set(matrix.targets.map((t) => t.harness))];
  const page = html`${pageHead({ title: `Carrier-Platform API conformance matrix: ${conformant} of ${matrix.targets.length} conformant`, style: HTML_STYLE + MATRIX_STYLE })}
<body>
<main>
<header>
<p class="eyebrow">Carrier-Platform API conformance matrix</p>
<h1>${conformant} of ${plural(matrix.targets.length, 'target')} conformant</h1>
<dl class="meta">
<div><dt>Catalogue</dt><dd><code>${matrix.catalogue.digest}</code>, ${matrix.catalogue.checks} checks (${matrix.catalogue.must} MUST)${matrix.catalogue.current ? '' : ', not the catalogue of the harness that combined them'}</dd></div>
<div><dt>Harness</dt><dd>${harnesses.join(', ')}</dd></div>
<div><dt>Combined</dt><dd>${formatUtc(matrix.generatedAt)}</dd></div>
</dl>
</header>
<section aria-labelledby="targets-title">
<h2 id="targets-title">Targets</h2>
${targetsTable(matrix)}
</section>
<section aria-labelledby="matrix-title">
<h2 id="matrix-title">Every check on every target</h2>
<p>A cell that did not pass opens to its reason (also shown on hover). MUST checks decide: CONFORMANT means every MUST check of the catalogue passed; PARTIAL that none failed but some were skipped or not run. A SHOULD check that finds a problem is a warning.</p>
${matrixTable(matrix)}
</section>
</main>
<footer>
<p>Combined from each target's report.json; the full evidence of a cell (exchanges, curl commands) is in that target's report.html and junit.xml.</p>
</footer>
</body>
</html>
`;
  return page.markup;
}
