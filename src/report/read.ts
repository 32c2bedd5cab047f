import { statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../core/errors.js';
import { readRegularFile, type FileLimit } from '../core/files.js';
import { jsonParseProblem } from '../core/json-problem.js';
import { runReportSchema, type RunReport } from '../model/run-report.js';

/**
 * Reading a report.json someone hands the harness (diff, matrix, --compare-with, a bundle): it may
 * come from another machine, another version or a hostile party. Every problem is one line that
 * names the file (a UsageError, exit 2); nothing in the file is executed or fetched.
 */

/**
 * Far above any real report (a full failing run is a few hundred KB; exchange bodies are cut when
 * recorded), far below what would exhaust memory when parsed: JSON.parse needs several times the
 * text's size.
 */
export const REPORT_MAX_BYTES = 64 * 1024 * 1024;

export interface ReadOptions {
  /** How the file is named in errors, e.g. "OLD report". */
  what?: string;
  maxBytes?: number;
}

/**
 * A report.json, or a directory holding one (a reports directory, a downloaded CI artifact, a
 * bundle). The one inside a directory came with it: a symbolic link there is refused, not
 * followed out of the directory. A path named directly is the operator's, links and all.
 */
export function reportPath(path: string): { file: string; inside: boolean } {
  try {
    // stat, not open: it cannot block on a FIFO.
    return statSync(path).isDirectory()
      ? { file: join(path, 'report.json'), inside: true }
      : { file: path, inside: false };
  } catch {
    return { file: path, inside: false };
  }
}

/** A report, or any file of its size class (a bundle's JUnit and HTML). */
export const REPORT_LIMIT: FileLimit = { maxBytes: REPORT_MAX_BYTES, of: 'a report' };

/** Parses and validates a report.json against its schema (src/model/run-report.ts). */
export function parseRunReport(text: string, where: string): RunReport {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    // Line and column, which an editor can go to; never the piece of the text JSON.parse quotes.
    throw new UsageError(`${where}: not valid JSON (${jsonParseProblem(text, err)})`);
  }
  const kind = notAReport(raw);
  if (kind !== undefined)
    throw new UsageError(`${where}: not a carrier-conformance report.json but ${kind}: give a run's report.json`);
  const result = runReportSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    const at = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    throw new UsageError(`${where}: not a carrier-conformance report.json (${at}${issue?.message ?? 'invalid'})`);
  }
  const seen = new Set<string>();
  for (const check of result.data.checks) {
    if (seen.has(check.id))
      throw new UsageError(
        `${where}: check ${JSON.stringify(check.id)} appears twice; a report has one result per check`,
      );
    seen.add(check.id);
  }
  return result.data;
}

/**
 * What a JSON file handed in as a report is instead, when that is plain from its top level: the
 * files that lie beside a report (report.har, a SARIF or lint output) and JSON of another shape.
 * Undefined for what looks like a report: its schema then says what is wrong inside it.
 */
function notAReport(raw: unknown): string | undefined {
  if (Array.isArray(raw)) return 'a JSON array';
  if (raw === null || typeof raw !== 'object') return `a JSON ${raw === null ? 'null' : typeof raw}`;
  const top = raw as Record<string, unknown>;
  const log = top.log;
  if (log !== null && typeof log === 'object' && 'entries' in log)
    return 'a HAR file (report.har: the exchanges of a run)';
  if (Array.isArray(top.runs) && typeof top.version === 'string') return 'a SARIF log';
  if (Array.isArray(top.findings) && Array.isArray(top.documents)) return 'the JSON output of `lint`';
  if (!('tool' in top) && !('checks' in top)) return 'a JSON object without the tool and checks a report has';
  return undefined;
}

/** Reads a report.json (or the one in a directory), bounded in size, validated. */
export function readRunReport(path: string, options: ReadOptions = {}): { report: RunReport; path: string } {
  const what = options.what ?? 'report';
  const { file, inside } = reportPath(path);
  const bytes = readRegularFile(
    file,
    what,
    { ...REPORT_LIMIT, maxBytes: options.maxBytes ?? REPORT_MAX_BYTES },
    { noFollow: inside },
  );
  return { report: parseRunReport(bytes.toString('utf8'), `${what} ${file}`), path: file };
}
