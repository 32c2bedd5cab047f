import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHECKS } from '../catalogue/index.js';
import { SUITES } from '../catalogue/types.js';
import { PACKAGE_ROOT } from '../core/version.js';

/**
 * docs/checks.md, generated from the catalogue (src/catalogue/checks.ts): every check's id, level,
 * title, spec references and notes, suite by suite (issue 40 item 5). `npm run docs:checks`
 * writes it; test/checks-doc.test.ts fails when the file and the catalogue differ.
 */

/** A table cell: one line, its pipes escaped. */
const cell = (text: string): string => text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim();

export function renderChecksDoc(): string {
  const lines = [
    '# The checks',
    '',
    '<!-- Generated from src/catalogue/checks.ts by `npm run docs:checks`; test/checks-doc.test.ts keeps it current. -->',
    '',
    `${CHECKS.length} checks in ${SUITES.length} suites: ${CHECKS.filter((c) => c.level === 'MUST').length} MUST (a failure fails the run) and ${CHECKS.filter((c) => c.level === 'SHOULD').length} SHOULD (a warning, unless \`--strict\`). \`carrier-conformance list\` prints the same; \`--check ID\` runs one; the code of a check is \`check('ID', …)\` in \`suites/<suite>.test.ts\`.`,
  ];
  for (const suite of SUITES) {
    lines.push('', `## ${suite}`, '', '| id | level | what it checks | from | notes |', '|---|---|---|---|---|');
    for (const c of CHECKS.filter((x) => x.suite === suite))
      lines.push(
        `| \`${c.id}\` | ${c.level} | ${cell(c.title)} | ${cell(c.refs.join('; '))} | ${cell(c.notes ?? '')} |`,
      );
  }
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  writeFileSync(join(PACKAGE_ROOT, 'docs', 'checks.md'), renderChecksDoc());
