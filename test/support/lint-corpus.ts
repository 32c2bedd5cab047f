/**
 * The lint corpus's per-rule documents: one base document (test/fixtures/lint/rule-base.yaml, every
 * rule passes) and, per rule, the edits that break it and the edits that fix it again
 * (test/fixtures/lint/rule-overlays.yaml). Written out as files, `<RULE>.bad.yaml` and
 * `<RULE>.fixed.yaml`, because lint and Spectral are run on files, and findings name their line.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { load } from 'js-yaml';

const FIXTURES = new URL('../fixtures/lint/', import.meta.url).pathname;
/** Where the documents are written (gitignored): the lint tests name them by this folder. */
export const RULE_DOCUMENTS_DIR = join(FIXTURES, 'rules');

interface Variant {
  why: string;
  edits: { find: string; replace: string }[];
}
type Overlays = Record<string, { bad: Variant; fixed: Variant }>;

/** A document from the base: its own header (why, in a comment and the description), then the edits. */
function variantOf(base: string, rule: string, kind: 'bad' | 'fixed', variant: Variant): string {
  // The base's header is its comment and info block; everything from `security:` on is shared.
  const start = base.indexOf('\nsecurity:\n');
  if (start === -1) throw new Error('rule-base.yaml: no top-level security after the info block');
  let body = base.slice(start + 1);
  for (const { find, replace } of variant.edits) {
    const at = body.indexOf(find);
    if (at === -1 || body.indexOf(find, at + 1) !== -1)
      throw new Error(`rule-overlays.yaml ${rule} ${kind}: an edit's find occurs ${at === -1 ? 'nowhere' : 'twice'}`);
    body = body.slice(0, at) + replace + body.slice(at + find.length);
  }
  const quoted = `'${variant.why.replaceAll("'", "''")}'`;
  return [
    `# ${variant.why}`,
    'openapi: 3.1.0',
    'info:',
    `  title: 'Lint corpus: ${rule} (${kind})'`,
    "  version: '1'",
    `  description: ${quoted}`,
    body,
  ].join('\n');
}

/** Writes every rule's two documents into RULE_DOCUMENTS_DIR; returns the rules. */
export async function writeRuleDocuments(): Promise<string[]> {
  const base = await readFile(join(FIXTURES, 'rule-base.yaml'), 'utf8');
  const overlays = load(await readFile(join(FIXTURES, 'rule-overlays.yaml'), 'utf8')) as Overlays;
  await mkdir(RULE_DOCUMENTS_DIR, { recursive: true });
  for (const [rule, variants] of Object.entries(overlays))
    for (const kind of ['bad', 'fixed'] as const) {
      // Written whole, then renamed: a reader never sees half a document.
      const file = join(RULE_DOCUMENTS_DIR, `${rule}.${kind}.yaml`);
      await writeFile(`${file}.${process.pid}`, variantOf(base, rule, kind, variants[kind]));
      await rename(`${file}.${process.pid}`, file);
    }
  return Object.keys(overlays);
}
