import { appendFile, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { renderHar } from './har.js';
import { renderHtmlReport } from './html.js';
import { renderJsonReport } from './json.js';
import { loadJUnitBuilder, renderJUnit } from './junit.js';
import { renderMarkdownSummary } from './markdown.js';
import type { RunReport } from '../model/run-report.js';
import { writeHarFile, type RunExchanges } from './exchanges.js';
import { writeAtomicallyWith } from './atomic.js';

/** The report files a run can write, in the order they are written; the CLI offers these. */
export const REPORT_FORMATS = ['junit', 'json', 'html', 'har'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** File name of each format inside the reports directory; CI configuration points at these. */
export const REPORT_FILES: Readonly<Record<ReportFormat, string>> = {
  junit: 'junit.xml',
  json: 'report.json',
  html: 'report.html',
  har: 'report.har',
};

const RENDERERS: Readonly<Record<ReportFormat, (report: RunReport) => string>> = {
  junit: renderJUnit,
  json: renderJsonReport,
  html: renderHtmlReport,
  har: renderHar,
};

/**
 * Writes the requested reports into `dir` (created if needed) and returns the paths written, in
 * the order asked for.
 *
 * Every report is rendered before any file is touched, so an invalid report leaves the previous
 * files in place. Each file is written to a temporary file in the same directory (same file
 * system, so the rename is atomic), flushed, then renamed over the target: a CI step that
 * collects `junit.xml` while the run is still writing sees the old file or the new one, never
 * half of one (Jenkins turns a truncated file into a failed `[failed-to-read]` case).
 */
/** Loads what writing the reports needs, so that the run's end does not wait for it (src/runner/run.ts). */
export function loadWriters(): void {
  loadJUnitBuilder();
}

export async function writeReports(
  report: RunReport,
  dir: string,
  formats: readonly ReportFormat[],
  exchanges?: RunExchanges,
): Promise<string[]> {
  const unique = [...new Set(formats)];
  // With the run's exchange log, the HAR holds every exchange, streamed from it (never all in memory).
  const streamed = exchanges !== undefined && unique.includes('har');
  const rendered = unique
    .filter((format) => !(streamed && format === 'har'))
    .map((format) => ({ path: join(dir, REPORT_FILES[format]), contents: RENDERERS[format](report) }));

  await mkdir(dir, { recursive: true });
  for (const { path, contents } of rendered) await writeAtomically(path, contents);
  if (streamed) await writeHarFile(report, exchanges, join(dir, REPORT_FILES.har));
  // A report of a format not written this time is an earlier run's: left beside the new ones, a
  // CI step that uploads the directory or reads junit.xml would publish an older verdict (a green
  // junit.xml beside a red run's report.har). Only the harness's own file names are removed.
  for (const format of REPORT_FORMATS) {
    if (!unique.includes(format)) await rm(join(dir, REPORT_FILES[format]), { force: true }).catch(() => undefined);
  }
  return unique.map((format) => join(dir, REPORT_FILES[format]));
}

export async function writeAtomically(path: string, contents: string): Promise<void> {
  await writeAtomicallyWith(path, (handle) => handle.writeFile(contents, 'utf8'));
}

/**
 * Appends the Markdown summary to GitHub's job summary file (`$GITHUB_STEP_SUMMARY`). Appended,
 * not replaced atomically: the file is GitHub's, shared by every command of the step, and
 * GitHub documents appending. The leading blank line keeps it apart from what came before.
 */
export async function appendGithubSummary(report: RunReport, path: string): Promise<void> {
  await appendFile(path, `\n${renderMarkdownSummary(report)}`, 'utf8');
}
