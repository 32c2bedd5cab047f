/**
 * The README is for users and short (issue 40 item 5); the rest is in the docs pages it links to.
 * Every link between them leads somewhere: a file of the repository, shipped in the package when
 * the README (which npm shows) links to it, and a heading of that page when it names one.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readUserDocs } from './support/user-docs.js';

const ROOT = new URL('..', import.meta.url).pathname;

/** GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, spaces as `-`. */
const slug = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

async function anchorsOf(file: string): Promise<Set<string>> {
  const text = await readFile(join(ROOT, file), 'utf8');
  const outside = text.replace(/^```[\s\S]*?^```$/gm, '');
  return new Set([...outside.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1] ?? '')));
}

describe('the README and its docs pages', () => {
  it('the README is at most about 250 lines, and opens with the two commands', async () => {
    const [readme] = await readUserDocs();
    expect(readme?.text.split('\n').length).toBeLessThanOrEqual(250);
    expect(readme?.text).toMatch(
      /^# carrier-conformance\n\n```sh\nnpm ci && npm start {5}#[^\n]*\nnpm test {16}#[^\n]*\n```\n/,
    );
  });

  it('every relative link leads to a file that exists, and to a heading of it when it names one', async () => {
    const broken: string[] = [];
    const shipped = (JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { files: string[] }).files;
    for (const { file, text } of await readUserDocs()) {
      const outside = text.replace(/^```[\s\S]*?^```$/gm, '');
      for (const m of outside.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1] ?? '';
        if (/^[a-z]+:/.test(target)) continue;
        const [path = '', anchor] = target.split('#');
        const resolved = path === '' ? file : normalize(join(dirname(file), path));
        if (!existsSync(join(ROOT, resolved))) {
          broken.push(`${file}: ${target} (no ${resolved})`);
          continue;
        }
        if (anchor !== undefined && resolved.endsWith('.md') && !(await anchorsOf(resolved)).has(anchor))
          broken.push(`${file}: ${target} (no such heading)`);
        // What npm shows of the package: the README's links to docs must be in the tarball.
        if (
          file === 'README.md' &&
          resolved.startsWith('docs/') &&
          !shipped.some((f) => resolved === f || resolved.startsWith(f))
        )
          broken.push(`${file}: ${target} (not in package.json files)`);
      }
    }
    expect(broken).toEqual([]);
  });
});
