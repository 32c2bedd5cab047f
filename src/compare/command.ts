import { appendFile, writeFile } from 'node:fs/promises';
import { UsageError } from '../core/errors.js';
import { ExitCode, type ExitCodeValue } from '../core/exit-codes.js';
import type { RunReport } from '../model/run-report.js';
import { readRunReport } from '../report/read.js';
import { VERDICT_EXIT_CODE } from '../report/verdict.js';
import { diffReports, regressions, type ReportDiff } from './diff.js';
import { renderDiffConsole, renderDiffMarkdown } from './render.js';

/**
 * `carrier-conformance diff OLD NEW` and `run --compare-with OLD`: the same comparison, printed to
 * the console and appended to the GitHub job summary; exit 1 when anything regressed.
 */

export interface DiffIO {
  out: (text: string) => void;
  err: (text: string) => void;
  color: boolean;
}

export interface DiffOutputs {
  /** Write the Markdown here as well (a PR comment, a GitLab job). */
  markdownFile?: string;
  /** Append the Markdown to $GITHUB_STEP_SUMMARY when it is set. */
  stepSummary: boolean;
}

export function exitCodeOf(diff: ReportDiff): ExitCodeValue {
  return regressions(diff).length > 0 ? ExitCode.NonConformant : ExitCode.Conformant;
}

/** Prints the diff and writes its Markdown. A summary that cannot be written is a warning: the exit code is the diff's. */
export async function publishDiff(diff: ReportDiff, io: DiffIO, outputs: DiffOutputs): Promise<void> {
  io.out(`\n${renderDiffConsole(diff, { color: io.color })}`);
  const summary = process.env.GITHUB_STEP_SUMMARY;
  if (outputs.stepSummary && summary) {
    await appendFile(summary, `\n${renderDiffMarkdown(diff)}`, 'utf8').catch((err: unknown) =>
      io.err(`warning: cannot append the diff to GITHUB_STEP_SUMMARY (${summary}): ${(err as Error).message}`),
    );
  }
  if (outputs.markdownFile !== undefined) {
    try {
      await writeFile(outputs.markdownFile, renderDiffMarkdown(diff), 'utf8');
    } catch (err) {
      throw new UsageError(
        `--markdown ${outputs.markdownFile}: cannot write it (${(err as { code?: string }).code ?? (err as Error).message})`,
      );
    }
  }
}

export async function diffCommand(
  oldPath: string,
  newPath: string,
  io: DiffIO,
  markdownFile?: string,
): Promise<number> {
  const previous = readRunReport(oldPath, { what: 'OLD report' });
  const current = readRunReport(newPath, { what: 'NEW report' });
  const diff = diffReports(previous.report, current.report, { old: previous.path, new: current.path });
  await publishDiff(diff, io, { stepSummary: true, ...(markdownFile !== undefined ? { markdownFile } : {}) });
  return exitCodeOf(diff);
}

/** The earlier report of `run --compare-with`, read before the run so that a bad file costs no run. */
export function loadPrevious(path: string): { report: RunReport; path: string } {
  return readRunReport(path, { what: '--compare-with' });
}

/**
 * The run's report compared with the earlier one: the exit code becomes the diff's (1 if anything
 * regressed, else 0), so that a gate fails only on what got worse; a run that could not be carried
 * out keeps its exit code (3). The verdict still says whether the target conforms.
 */
export function compareRun(
  previous: { report: RunReport; path: string },
  report: RunReport,
): { report: RunReport; diff: ReportDiff } {
  const diff = diffReports(previous.report, report, { old: previous.path, new: 'this run' });
  const ids = (kind: 'regression' | 'fix'): string[] => diff.changes.filter((c) => c.kind === kind).map((c) => c.id);
  const compared = VERDICT_EXIT_CODE[report.verdict] === ExitCode.Incomplete ? report.exitCode : exitCodeOf(diff);
  // The team's own checks gate a compared run as they gate any (src/runner/run.ts withTeam).
  const exitCode =
    compared === ExitCode.Conformant && report.team?.passed === false ? ExitCode.TeamChecksFailed : compared;
  return {
    report: {
      ...report,
      exitCode,
      comparison: { with: previous.path, regressions: ids('regression'), fixes: ids('fix') },
    },
    diff,
  };
}
