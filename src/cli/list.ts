import type { Check } from '../catalogue/index.js';

/** The catalogue as a table for the terminal: one check per line, grouped by suite. */
export function renderCatalogue(checks: readonly Check[]): string {
  const idWidth = Math.max(...checks.map((c) => c.id.length));
  const lines: string[] = [];
  let suite = '';
  for (const c of checks) {
    if (c.suite !== suite) {
      suite = c.suite;
      lines.push('', `${suite}`);
    }
    lines.push(`  ${c.id.padEnd(idWidth)}  ${c.level.padEnd(6)}  ${c.title}`);
    lines.push(`  ${''.padEnd(idWidth)}          ${c.refs.join('; ')}`);
  }
  lines.push('', `${checks.length} checks. MUST: a failure fails the run. SHOULD: a failure is a warning (fails with --strict).`, '');
  return lines.join('\n').replace(/^\n/, '');
}
