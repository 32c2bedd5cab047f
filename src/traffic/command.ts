import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { setImmediate as yieldToEvents } from 'node:timers/promises';
import { RunAbortedError, UsageError } from '../core/errors.js';
import { untilStopped } from '../core/until-stopped.js';
import type { ApiDescription } from '../carrier/endpoint-specs.js';
import { FILE_LIMITS, regularFileChunks, urlInsteadOfFile } from '../core/files.js';
import { redactStrings, redactor } from '../core/redact.js';
import { plural } from '../core/wording.js';
import type { RunReport } from '../model/run-report.js';
import { renderConsoleSummary } from '../report/console.js';
import { appendGithubSummary, writeAtomically, writeReports, type ReportFormat } from '../report/write.js';
import type { CapturedExchange } from './capture.js';
import { documentedPaths, type DocumentedPaths } from './endpoints.js';
import { readHar } from './har.js';
import type { Json } from '../openapi/pointer.js';
import { TrafficJudge } from './judge.js';
import { formatOfRecord, parseLine, readLines, type LineFormat, type Unreadable } from './ndjson.js';
import { trafficReport, type CaptureFacts } from './report.js';
import { renderTrafficSarif } from './sarif.js';
import { TRAFFIC_REPORTERS, TRAFFIC_SARIF_FILE, type TrafficFormat, type TrafficReporter } from './formats.js';

/**
 * `carrier-conformance traffic FILE…` (issue 43): the passive checks judged on captured traffic,
 * with a run's reports and exit codes. No request is sent. Exit 0: no required check failed on
 * what the captures show (the verdict says how little that may be); 1: one did; 2: a capture
 * cannot be read; 3: nothing in the captures could be judged, or --deadline or a signal stopped it.
 */

export interface TrafficOptions {
  format: TrafficFormat;
  reportsDir: string;
  /** The reports to write; every one when empty. */
  reporter: readonly string[];
  strict: boolean;
  /** Seconds: judging stops there and the report says what was judged (exit 3). */
  deadline?: number | undefined;
  /** An OpenAPI document: its templates name the tenant endpoints, its schemas judge their bodies. */
  openapi?: string | undefined;
  /** The folder its $refs may read files in (default: its own). */
  openapiRoot?: string | undefined;
  /**
   * How the document is read: the CLI gives the run's document thread, which --deadline and
   * signals terminate (a hostile document may take long to parse); by default, here.
   */
  loadDocument?: LoadDocument | undefined;
}

export type LoadDocument = (file: string, root: string | undefined, signal: AbortSignal) => Promise<ApiDescription>;

export interface TrafficIO {
  out: (text: string) => void;
  err: (text: string) => void;
  color: boolean;
}

/** How many exchanges are judged between two looks at the clock and the signals. */
const YIELD_EVERY = 2000;

/** The kind of capture `file` is: a HAR (by its name, or a JSON document over many lines), else the kind of its first record. */
export async function sniffFormat(file: string): Promise<'har' | LineFormat> {
  if (/\.har$/i.test(file)) return 'har';
  let head = '';
  for await (const chunk of regularFileChunks(file, 'capture', FILE_LIMITS.log)) {
    head = chunk.subarray(0, 1024 * 1024).toString('utf8');
    break;
  }
  const firstLine = head.trimStart().split('\n', 1)[0] ?? '';
  const parsed = parseLine(firstLine);
  if (!('value' in parsed)) return head.trimStart().startsWith('{') ? 'har' : 'ndjson';
  const value = parsed.value;
  if (value !== null && typeof value === 'object' && 'log' in value) return 'har';
  return formatOfRecord(value) ?? 'ndjson';
}

function reportersOf(given: readonly string[]): TrafficReporter[] {
  if (given.length === 0 || given.includes('all')) return [...TRAFFIC_REPORTERS];
  for (const name of given)
    if (!(TRAFFIC_REPORTERS as readonly string[]).includes(name))
      throw new UsageError(`--reporter ${name}: traffic writes ${TRAFFIC_REPORTERS.join(', ')} (or all)`);
  return TRAFFIC_REPORTERS.filter((r) => given.includes(r));
}

interface Stop {
  signal: AbortSignal;
  reason: () => string;
}

function stopOf(options: TrafficOptions, interrupt: AbortSignal): Stop {
  const deadline = options.deadline === undefined ? undefined : AbortSignal.timeout(options.deadline * 1000);
  const signal = deadline === undefined ? interrupt : AbortSignal.any([interrupt, deadline]);
  return {
    signal,
    reason: () =>
      deadline?.aborted === true && !interrupt.aborted
        ? `--deadline ${options.deadline ?? ''} s passed`
        : 'interrupted (a signal)',
  };
}

export async function trafficCommand(
  files: readonly string[],
  options: TrafficOptions,
  io: TrafficIO,
  interrupt: AbortSignal = new AbortController().signal,
): Promise<number> {
  if (files.length === 0)
    throw new UsageError('traffic: give one or more captures (HAR, NDJSON, a Kong or nginx JSON log)');
  for (const file of files) {
    const url = urlInsteadOfFile(
      file,
      'traffic',
      'a capture of traffic (a HAR, an NDJSON file, a gateway log), never a request to send',
    );
    if (url !== undefined) throw new UsageError(`traffic: ${url}`);
  }
  const reporters = reportersOf(options.reporter);
  const started = new Date();
  const stop = stopOf(options, interrupt);
  const api =
    options.openapi === undefined ? undefined : await documentOf(options.openapi, options.openapiRoot, options, stop);
  const judge = new TrafficJudge(redactor, api);
  const captures: CaptureFacts[] = [];
  const unreadable: Unreadable = { count: 0, first: [] };
  let stopped: string | undefined;
  for (const file of files) {
    if (stop.signal.aborted) break;
    const format = options.format === 'auto' ? await sniffFormat(file) : options.format;
    const hash = createHash('sha256');
    let count = 0;
    const take = async (exchange: CapturedExchange): Promise<boolean> => {
      judge.add(exchange.file === undefined ? { ...exchange, file } : exchange);
      count += 1;
      if (count % YIELD_EVERY === 0) await yieldToEvents();
      return !stop.signal.aborted;
    };
    if (format === 'har') {
      for (const exchange of readHar(file, redactor, FILE_LIMITS.capture, (bytes) => hash.update(bytes)))
        if (!(await take(exchange))) break;
    } else {
      const before = unreadable.count;
      for await (const exchange of readLines(file, redactor, format, unreadable, FILE_LIMITS.log, (bytes) =>
        hash.update(bytes),
      ))
        if (!(await take(exchange))) break;
      if (count === 0 && unreadable.count > before && !stop.signal.aborted)
        throw new UsageError(
          `capture ${file}: no line is an exchange record (${unreadable.first[0] ?? 'none'}); see docs/traffic.md, Captures`,
        );
    }
    captures.push({ file, format, sha256: hash.digest('hex'), exchanges: count });
  }
  if (stop.signal.aborted) stopped = `${stop.reason()}: judging stopped after ${plural(judge.exchanges, 'exchange')}`;
  const limits = judge.limits();
  if (unreadable.count > 0)
    limits.push(
      `${plural(unreadable.count, 'line')} ${unreadable.count === 1 ? 'was' : 'were'} no exchange record, not judged (${unreadable.first.join('; ')})`,
    );
  const judged = trafficReport(judge.results(), {
    captures,
    exchanges: judge.exchanges,
    matched: judge.matched,
    endpoints: judge.endpoints(),
    limits,
    baseUrl: judge.apiBase,
    authUrl: judge.authBase,
    bases: judge.bases(),
    started,
    strict: options.strict,
    ...(stopped !== undefined ? { stopped } : {}),
    ...(options.openapi !== undefined ? { openapi: options.openapi } : {}),
  });
  // Secrets learnt late (a token issued after an earlier line echoed it) leave every report too.
  const report = redactStrings(judged);
  await publish(report, options, reporters, io, judge);
  return report.exitCode;
}

/** The --openapi document, read as a run reads one (confined to its folder, bounded, stopped by --deadline and signals). */
async function documentOf(
  file: string,
  root: string | undefined,
  options: TrafficOptions,
  stop: Stop,
): Promise<{ document: Json; paths: DocumentedPaths }> {
  const url = urlInsteadOfFile(file, '--openapi');
  if (url !== undefined) throw new UsageError(`traffic --openapi: ${url}`);
  const load: LoadDocument =
    options.loadDocument ??
    (async (f, r, signal) => untilStopped((await import('../openapi/load.js')).loadOpenApi(f, { root: r }), signal));
  let api: ApiDescription;
  try {
    api = await load(file, root, stop.signal);
  } catch (err) {
    if (stop.signal.aborted)
      throw new RunAbortedError(`${stop.reason()} while the --openapi document ${file} was read`);
    throw err;
  }
  return { document: api.document ?? {}, paths: documentedPaths(api.endpoints, api.writes ?? []) };
}

async function publish(
  report: RunReport,
  options: TrafficOptions,
  reporters: readonly TrafficReporter[],
  io: TrafficIO,
  judge: TrafficJudge,
): Promise<void> {
  const formats = (['junit', 'json', 'html'] as const).filter((f): f is ReportFormat & TrafficReporter =>
    reporters.includes(f),
  );
  const written = await writeReports(report, options.reportsDir, formats);
  if (reporters.includes('sarif')) {
    const path = join(options.reportsDir, TRAFFIC_SARIF_FILE);
    await writeAtomically(path, redactor.redact(renderTrafficSarif(judge.results(), options.strict)));
    written.push(path);
  }
  const summary = process.env.GITHUB_STEP_SUMMARY;
  if (reporters.includes('github-summary') && summary) {
    try {
      await appendGithubSummary(report, summary);
      written.push(summary);
    } catch (err) {
      io.err(`warning: cannot append the step summary to GITHUB_STEP_SUMMARY (${summary}): ${(err as Error).message}`);
    }
  }
  io.out(renderConsoleSummary(report, { color: io.color }));
  if (written.length > 0) io.out(`Reports: ${written.join(', ')}\n`);
  if (report.incompleteReason !== undefined) io.err(`error: ${report.incompleteReason}`);
}
