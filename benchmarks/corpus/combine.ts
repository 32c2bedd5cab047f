/**
 * `node dist/bench/benchmarks/corpus/combine.js --out DIR A/corpus.json B/corpus.json …`: one
 * corpus.json and summary.md from the results of several runs (the corpus in parts, on several
 * machines or one after another; docs/corpus.md). A document in more than one keeps its last
 * result, so a rerun of some documents, given last, replaces their earlier results.
 *
 * Exit codes: 0 written; 2 usage error or a file that is not a corpus.json.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { withoutControls } from '../../src/core/console-safety.js';
import { corpusOutput } from './output.js';
import { SUITES } from './run-harness.js';
import { renderSummary, type CorpusOutput } from './render.js';
import type { DocumentResult } from './tally.js';

function fail(message: string): never {
  process.stderr.write(`combine: ${withoutControls(message, false)}\n`);
  process.exit(2);
}

function args(): { values: { out?: string | undefined }; positionals: string[] } {
  try {
    return parseArgs({ options: { out: { type: 'string' } }, allowPositionals: true });
  } catch (err) {
    return fail((err as Error).message);
  }
}
const { values, positionals } = args();
if (values.out === undefined || positionals.length === 0) fail('usage: combine.js --out DIR CORPUS.json…');
const byDocument = new Map<string, DocumentResult>();
const parts: CorpusOutput[] = [];
for (const file of positionals) {
  const part = ((): CorpusOutput => {
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as CorpusOutput;
    } catch (err) {
      return fail(`${file}: ${(err as Error).message}`);
    }
  })();
  if (!Array.isArray(part.documents)) fail(`${file}: not a corpus.json (no documents)`);
  parts.push(part);
  for (const d of part.documents) byDocument.set(d.document, d);
}
const list = [...byDocument.values()].sort((a, b) => (a.document < b.document ? -1 : a.document > b.document ? 1 : 0));
const out = corpusOutput(list, {
  harness: { suites: SUITES, bin: `combined from ${positionals.length} runs` },
  options: {
    sample: null,
    only: [],
    jobs: Math.max(...parts.map((p) => p.options.jobs)),
    timeoutSeconds: Math.max(...parts.map((p) => p.options.timeoutSeconds)),
  },
  startedAt: parts.map((p) => p.startedAt).sort()[0] ?? '',
  finishedAt:
    parts
      .map((p) => p.finishedAt)
      .sort()
      .at(-1) ?? '',
  finished: parts.every((p) => p.finished),
});
const dir = resolve(values.out ?? '.');
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'corpus.json'), `${JSON.stringify(out, null, 1)}\n`);
writeFileSync(join(dir, 'summary.md'), renderSummary(out));
process.stderr.write(
  `combine: ${list.length} documents from ${positionals.length} runs; ${out.totals.falseFailures} false failures, ${out.totals.harnessErrors} harness errors; ${dir}\n`,
);
