/**
 * The stylesheet of report.html, inlined (the page must not load anything). Status colours are
 * dark text on a light tint with a border, each pair above WCAG AA contrast (4.5:1), and every
 * badge also carries its status as a word and a symbol, so nothing depends on colour alone.
 * Print: no shadows, colours kept for badges and the verdict, long lines wrapped, never clipped.
 */
export const HTML_STYLE = `
:root {
  --fg: #1f2328; --muted: #57606a; --line: #d0d7de; --bg-soft: #f6f8fa;
  --passed-fg: #116329; --passed-bg: #dafbe1; --passed-line: #4ac26b;
  --failed-fg: #82071e; --failed-bg: #ffebe9; --failed-line: #ff8182;
  --error-fg: #762c00; --error-bg: #fff1e5; --error-line: #fb8f44;
  --warning-fg: #6b4a00; --warning-bg: #fff8c5; --warning-line: #d4a72c;
  --expected-fg: #0a3069; --expected-bg: #ddf4ff; --expected-line: #54aeff;
  --skipped-fg: #424a53; --skipped-bg: #eaeef2; --skipped-line: #afb8c1;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", "Liberation Mono", monospace;
}
* { box-sizing: border-box; }
html { color: var(--fg); background: #fff; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", "Liberation Sans", Arial, sans-serif; }
main, footer { max-width: 1100px; margin: 0 auto; padding: 0 24px; }
footer { color: var(--muted); font-size: 13px; border-top: 1px solid var(--line); margin-top: 32px; padding-top: 12px; padding-bottom: 32px; }
h1 { font-size: 26px; margin: 0 0 16px; overflow-wrap: anywhere; }
h2 { font-size: 20px; margin: 32px 0 12px; padding-bottom: 6px; border-bottom: 1px solid var(--line); }
h3 { font-size: 17px; margin: 24px 0 8px; }
h4 { font-size: 14px; margin: 14px 0 6px; }
code, pre { font-family: var(--mono); font-size: 13px; }
code { overflow-wrap: anywhere; }
a { color: #0550ae; }
.eyebrow { margin: 24px 0 4px; color: var(--muted); font-size: 13px; text-transform: uppercase; letter-spacing: .06em; }

.verdict { border: 2px solid; border-radius: 8px; padding: 14px 18px; margin: 0 0 16px; }
.verdict p { margin: 0; }
.verdict-word { font-size: 30px; font-weight: 800; letter-spacing: .02em; line-height: 1.2; }
.verdict-why { margin: 6px 0 0; padding-left: 20px; font-size: 14px; }
.verdict-why li { margin: 1px 0; overflow-wrap: anywhere; }
.verdict-conformant { color: var(--passed-fg); background: var(--passed-bg); border-color: var(--passed-line); }
/* A verdict on part of the catalogue, or with known failures accepted: not the green one. */
.verdict-partial { color: var(--warning-fg); background: var(--warning-bg); border-color: var(--warning-line); }
.verdict-non-conformant { color: var(--failed-fg); background: var(--failed-bg); border-color: var(--failed-line); }
.verdict-incomplete { color: var(--warning-fg); background: var(--warning-bg); border-color: var(--warning-line); }

.meta { display: grid; grid-template-columns: repeat(auto-fill, minmax(300px, 1fr)); gap: 2px 24px; margin: 0; }
.meta div, .facts div { display: flex; gap: 8px; min-width: 0; }
.meta dt, .facts dt { flex: 0 0 88px; color: var(--muted); }
.meta dd, .facts dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
/* A message may span lines (a server's text quoted in it): keep its line breaks. */
.facts dd { white-space: pre-line; }

.tiles { display: flex; flex-wrap: wrap; gap: 8px; list-style: none; padding: 0; margin: 0 0 16px; }
.tile { border: 1px solid var(--line); border-radius: 6px; padding: 6px 14px; background: var(--bg-soft); min-width: 96px; }
.tile-n { display: block; font-size: 22px; font-weight: 700; line-height: 1.2; }
.tile-l { font-size: 13px; }

table.suites { border-collapse: collapse; width: 100%; font-size: 14px; }
.suites th, .suites td { border: 1px solid var(--line); padding: 4px 10px; text-align: left; }
.suites thead th, .suites tfoot th, .suites tfoot td { background: var(--bg-soft); }
.suites .num { text-align: right; font-variant-numeric: tabular-nums; }
.suites .nz { font-weight: 700; }
.nz-failed { color: var(--failed-fg); background: var(--failed-bg); }
.nz-error { color: var(--error-fg); background: var(--error-bg); }
.nz-warning { color: var(--warning-fg); background: var(--warning-bg); }
.nz-expected { color: var(--expected-fg); background: var(--expected-bg); }
.nz-skipped { color: var(--skipped-fg); }

.index { padding-left: 0; list-style: none; margin: 0; }
.index li { padding: 3px 0; overflow-wrap: anywhere; }

/* Count tiles and badges share the status colours; these come after both base rules, since the
   .badge shorthand "border: 1px solid" resets border-color. */
.badge { display: inline-block; border: 1px solid; border-radius: 4px; padding: 0 6px; font-size: 12px; font-weight: 700; letter-spacing: .03em; white-space: nowrap; vertical-align: 1px; }
.tile-passed, .badge-passed { color: var(--passed-fg); background: var(--passed-bg); border-color: var(--passed-line); }
.tile-failed, .badge-failed { color: var(--failed-fg); background: var(--failed-bg); border-color: var(--failed-line); }
.tile-error, .badge-error { color: var(--error-fg); background: var(--error-bg); border-color: var(--error-line); }
.tile-warning, .badge-warning { color: var(--warning-fg); background: var(--warning-bg); border-color: var(--warning-line); }
.tile-expected, .badge-expected { color: var(--expected-fg); background: var(--expected-bg); border-color: var(--expected-line); }
.tile-skipped, .badge-skipped { color: var(--skipped-fg); background: var(--skipped-bg); border-color: var(--skipped-line); }
.level { display: inline-block; font-size: 12px; font-weight: 600; color: var(--muted); margin: 0 2px; }
.suite-counts { font-size: 13px; font-weight: 400; color: var(--muted); margin-left: 8px; }

details.check { border: 1px solid var(--line); border-left-width: 5px; border-radius: 6px; margin: 4px 0; background: #fff; }
details.check > summary { cursor: pointer; padding: 4px 10px; overflow-wrap: anywhere; }
details.check[open] > summary { border-bottom: 1px solid var(--line); background: var(--bg-soft); }
.check-passed { border-left-color: var(--passed-line) !important; }
.check-failed { border-left-color: var(--failed-line) !important; }
.check-error { border-left-color: var(--error-line) !important; }
.check-warning { border-left-color: var(--warning-line) !important; }
.check-expected { border-left-color: var(--expected-line) !important; }
.check-skipped { border-left-color: var(--skipped-line) !important; }
.check .id { font-weight: 700; }
.why { color: var(--muted); }
.stale-tag { display: inline-block; font-size: 12px; font-weight: 700; color: var(--warning-fg); background: var(--warning-bg); border: 1px dashed var(--warning-line); border-radius: 4px; padding: 0 6px; }
.check-body { padding: 4px 14px 12px; }
.facts { margin: 8px 0; }
.facts dt { flex-basis: 72px; }
.findings { margin: 0; padding-left: 20px; }
.findings li { margin: 2px 0; overflow-wrap: anywhere; }
.kind { font-size: 12px; font-weight: 700; text-transform: uppercase; }
.kind-failure { color: var(--failed-fg); }
.kind-error { color: var(--error-fg); }
.kind-pass { color: var(--passed-fg); }
.kind-skipped { color: var(--skipped-fg); }
ul.endpoints { list-style: none; padding-left: 0; }
ul.endpoints li { margin: 2px 0; overflow-wrap: anywhere; }
.ref { color: var(--muted); }
.notes { margin: 0; padding-left: 20px; }
pre { margin: 0 0 8px; padding: 8px 10px; border: 1px solid var(--line); border-radius: 6px; background: var(--bg-soft); white-space: pre-wrap; overflow-wrap: anywhere; line-height: 1.45; }
pre.cmd { background: #fff; border-style: dashed; }
.cmd-label { margin: 8px 0 4px; font-size: 13px; color: var(--muted); }
.ctl { color: var(--failed-fg); background: var(--failed-bg); border-radius: 3px; font-size: 11px; padding: 0 2px; }
details.more { margin: 10px 0 0; }

/* Findings by cause: one block per cause, the checks it breaks one line each. */
.cause { border: 1px solid var(--line); border-left-width: 5px; border-radius: 6px; padding: 8px 12px; margin: 8px 0; }
.cause-failed { border-left-color: var(--failed-line); }
.cause-error { border-left-color: var(--error-line); }
.cause-warning { border-left-color: var(--warning-line); }
.cause-expected { border-left-color: var(--expected-line); }
.cause-title { font-size: 15px; margin: 0 0 2px; font-family: var(--mono); overflow-wrap: anywhere; }
.cause-reach { margin: 0 0 2px; color: var(--muted); font-size: 13px; }
.cause-checks { list-style: none; padding: 0; margin: 0; font-size: 14px; }
.cause-checks li { padding: 1px 0; overflow-wrap: anywhere; }
details.evidence { margin-top: 4px; }
details.evidence > summary { cursor: pointer; color: var(--muted); font-size: 13px; overflow-wrap: anywhere; }
.chip { display: inline-block; white-space: nowrap; margin: 1px 6px 1px 0; padding: 0 6px; border: 1px solid; border-radius: 4px; font-size: 13px; }
.chip .level { margin: 0; font-weight: 400; }
.chip-failed { color: var(--failed-fg); background: var(--failed-bg); border-color: var(--failed-line); }
.chip-error { color: var(--error-fg); background: var(--error-bg); border-color: var(--error-line); }
.chip-warning { color: var(--warning-fg); background: var(--warning-bg); border-color: var(--warning-line); }
.chip-expected { color: var(--expected-fg); background: var(--expected-bg); border-color: var(--expected-line); }
.passed-list { list-style: none; margin: 0; padding: 4px 14px 8px; font-size: 14px; }
.passed-list li { padding: 1px 0; overflow-wrap: anywhere; }
details.more > summary { cursor: pointer; color: var(--muted); font-size: 14px; }

@media (max-width: 640px) {
  main, footer { padding: 0 12px; }
  .meta { grid-template-columns: 1fr; }
  h1 { font-size: 20px; }
  .verdict-word { font-size: 22px; }
  /* Eight columns do not fit a phone: the tiles hold the totals, each suite's heading its counts. */
  table.suites { display: none; }
}

@media print {
  @page { margin: 14mm 12mm; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  body { font-size: 11pt; }
  main, footer { max-width: none; padding: 0; }
  a { color: inherit; text-decoration: none; }
  .verdict, .tiles, table.suites, details.check > summary, .cause-checks li, pre { break-inside: avoid; }
  h2, h3, h4 { break-after: avoid; }
  details.check { border-left-width: 4px; }
  details.check > summary { list-style: none; }
  pre { font-size: 8.5pt; }
}
`;
