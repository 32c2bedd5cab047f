import type { Check } from '../catalogue/index.js';
import { LEVELS, SUITES } from '../catalogue/types.js';
import { UsageError } from '../core/errors.js';

/**
 * The checks of `list --suite … --level …` (each repeatable; none: all), in catalogue order. A
 * name that is no suite or level is refused with the known ones, not read as "none match".
 */
export function filterCatalogue(
  checks: readonly Check[],
  suites: readonly string[],
  levels: readonly string[],
): Check[] {
  for (const suite of suites)
    if (!(SUITES as readonly string[]).includes(suite))
      throw new UsageError(`--suite: unknown suite ${JSON.stringify(suite)}; the suites are ${SUITES.join(', ')}`);
  // RFC 2119 keywords are written in capitals; `--level must` means the same.
  const wanted = levels.map((l) => l.toUpperCase());
  for (const [i, level] of wanted.entries())
    if (!(LEVELS as readonly string[]).includes(level))
      throw new UsageError(`--level: unknown level ${JSON.stringify(levels[i])}; the levels are ${LEVELS.join(', ')}`);
  return checks.filter(
    (c) => (suites.length === 0 || suites.includes(c.suite)) && (wanted.length === 0 || wanted.includes(c.level)),
  );
}

/** The catalogue as a table for the terminal: one check per line, grouped by suite. */
export function renderCatalogue(checks: readonly Check[]): string {
  if (checks.length === 0) return 'No check matches.\n';
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
  lines.push(
    '',
    `${checks.length} checks. MUST: a failure fails the run. SHOULD: a failure is a warning (fails with --strict).`,
    '',
  );
  return lines.join('\n').replace(/^\n/, '');
}
