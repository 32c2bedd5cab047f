/**
 * The documentation a user reads, as the tests run it: the README and the docs pages it links to
 * (issue 40 item 5 moved most of the README there). Every fenced block of these files is run by a
 * test as written (test/readme.test.ts, test/lint.test.ts, test/ci-docs.test.ts).
 */
import { readFile } from 'node:fs/promises';

const ROOT = new URL('../../', import.meta.url);

export const USER_DOCS = [
  'README.md',
  'docs/guide.md',
  'docs/certification.md',
  'docs/lint.md',
  'docs/reference.md',
  'docs/verdicts.md',
  'CONTRIBUTING.md',
] as const;

/** Each page's text, by its path. */
export async function readUserDocs(): Promise<{ file: string; text: string }[]> {
  return Promise.all(USER_DOCS.map(async (file) => ({ file, text: await readFile(new URL(file, ROOT), 'utf8') })));
}

/** All of them as one text, in USER_DOCS order. */
export async function userDocsText(): Promise<string> {
  return (await readUserDocs()).map((d) => d.text).join('\n');
}
