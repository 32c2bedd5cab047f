/** docs/checks.md is the catalogue as a page (src/build/checks-doc.ts): regenerated with `npm run docs:checks`, never edited by hand. */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { renderChecksDoc } from '../src/build/checks-doc.js';
import { CHECKS } from '../src/catalogue/index.js';

describe('docs/checks.md', () => {
  it('is what the catalogue generates today (else: npm run docs:checks)', async () => {
    const page = await readFile(new URL('../docs/checks.md', import.meta.url), 'utf8');
    expect(page).toBe(renderChecksDoc());
    for (const c of CHECKS) expect(page).toContain(`| \`${c.id}\` | ${c.level} |`);
  });
});
