import { closeSync, constants as fsConstants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { oneLine, printable } from './format.js';
import { runReportSchema, type RunReport } from './model.js';

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

/** A report.json, or a directory holding one (a reports directory, a downloaded CI artifact, a bundle). */
export function reportPath(path: string): string {
  try {
    return statSync(path).isDirectory() ? join(path, 'report.json') : path;
  } catch {
    return path;
  }
}

/**
 * Reads at most `maxBytes` of a regular file; anything else is a one-line UsageError. With
 * `noFollow` a symbolic link is refused rather than followed (files of a bundle: a link could
 * point anywhere on the verifier's machine).
 */
export function readBoundedFile(path: string, what: string, maxBytes: number, options: { noFollow?: boolean } = {}): Buffer {
  let fd: number;
  try {
    fd = openSync(path, options.noFollow ? fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW : fsConstants.O_RDONLY);
  } catch (err) {
    const code = (err as { code?: string }).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'ELOOP' ? 'a symbolic link, refused' : (code ?? (err as Error).message);
    throw new UsageError(`${what} ${path}: cannot read it (${reason})`);
  }
  try {
    const stat = fstatSync(fd);
    // A FIFO or a device (/dev/zero) has no end to read to.
    if (!stat.isFile()) throw new UsageError(`${what} ${path}: not a regular file`);
    if (stat.size > maxBytes) throw new UsageError(`${what} ${path}: ${stat.size} bytes, more than the ${maxBytes} a report can be; is it the right file?`);
    // Read up to one byte past the limit: a file that grows while it is read is caught too.
    const buffer = Buffer.alloc(Math.min(stat.size, maxBytes) + 1);
    let length = 0;
    for (;;) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
      if (length > maxBytes) throw new UsageError(`${what} ${path}: more than the ${maxBytes} bytes a report can be`);
    }
    return buffer.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}

/** Parses and validates a report.json against its schema (src/report/model.ts). */
export function parseRunReport(text: string, where: string): RunReport {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    // JSON.parse quotes a piece of the text: a hostile file must not reach the terminal through it.
    throw new UsageError(`${where}: not valid JSON (${oneLine(printable((err as Error).message), 160)})`);
  }
  const result = runReportSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    const at = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    throw new UsageError(`${where}: not a carrier-conformance report.json (${at}${issue?.message ?? 'invalid'})`);
  }
  const seen = new Set<string>();
  for (const check of result.data.checks) {
    if (seen.has(check.id)) throw new UsageError(`${where}: check ${JSON.stringify(check.id)} appears twice; a report has one result per check`);
    seen.add(check.id);
  }
  return result.data;
}

/** Reads a report.json (or the one in a directory), bounded in size, validated. */
export function readRunReport(path: string, options: ReadOptions = {}): { report: RunReport; path: string } {
  const what = options.what ?? 'report';
  const file = reportPath(path);
  const bytes = readBoundedFile(file, what, options.maxBytes ?? REPORT_MAX_BYTES);
  return { report: parseRunReport(bytes.toString('utf8'), `${what} ${file}`), path: file };
}
