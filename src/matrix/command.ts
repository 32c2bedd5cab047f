import { appendFile, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { oneLine, printable } from '../report/format.js';
import { inline } from '../report/markdown.js';
import { readRunReport } from '../report/read.js';
import { writeAtomically } from '../report/write.js';
import { combineReports, type Matrix, type Standing } from './combine.js';
import { STANDING, renderMatrixHtml } from './html.js';

/**
 * `carrier-conformance matrix REPORT… --out DIR`: writes DIR/matrix.html, DIR/matrix.json and
 * DIR/badges/<target>.json (shields.io endpoint badges), prints one line per target, and appends a
 * table to $GITHUB_STEP_SUMMARY. Exit 0 once written, whatever the targets' verdicts (each target's
 * own job is its gate); 2 for reports that cannot be combined.
 */

export interface MatrixIO {
  out: (text: string) => void;
  err: (text: string) => void;
}

export const MATRIX_FILES = { html: 'matrix.html', json: 'matrix.json', badges: 'badges' } as const;

function markdownOf(matrix: Matrix): string {
  const icon: Record<Standing, string> = { conformant: '✅', partial: '⚠️', 'non-conformant': '❌', incomplete: '⚠️' };
  return [
    `## Carrier-Platform API conformance matrix: ${matrix.targets.filter((t) => t.standing === 'conformant').length} of ${matrix.targets.length} conformant`,
    '',
    '| target | verdict | MUST | SHOULD | version | harness |',
    '|:--|:--|--:|--:|:--|:--|',
    ...matrix.targets.map(
      (t) => `| ${inline(t.name)} | ${icon[t.standing]} ${STANDING[t.standing]} | ${t.must.passed}/${t.must.total} | ${t.should.passed}/${t.should.total} | ${inline(t.version ?? '')} | ${inline(t.harness)} |`,
    ),
    '',
  ].join('\n');
}

export async function matrixCommand(paths: readonly string[], outDir: string, io: MatrixIO): Promise<number> {
  if (paths.length === 0) throw new UsageError('matrix: give the report.json of each target (or the directories holding them)');
  const loaded = paths.map((p) => readRunReport(p, { what: 'matrix: report' }));
  const matrix = combineReports(loaded);

  const badgesDir = join(outDir, MATRIX_FILES.badges);
  try {
    await mkdir(badgesDir, { recursive: true });
    // badges/ holds the badges of this matrix only: a target dropped from it must not keep its old badge.
    const keep = new Set(matrix.targets.map((t) => `${t.slug}.json`));
    for (const name of await readdir(badgesDir)) if (name.endsWith('.json') && !keep.has(name)) await rm(join(badgesDir, name), { force: true });
    await writeAtomically(join(outDir, MATRIX_FILES.html), renderMatrixHtml(matrix));
    await writeAtomically(join(outDir, MATRIX_FILES.json), `${JSON.stringify(matrix, null, 2)}\n`);
    for (const t of matrix.targets) await writeAtomically(join(badgesDir, `${t.slug}.json`), `${JSON.stringify(t.badge)}\n`);
  } catch (err) {
    throw new UsageError(`matrix --out ${outDir}: cannot write there (${(err as { code?: string }).code ?? (err as Error).message})`);
  }

  const nameWidth = Math.min(40, Math.max(...matrix.targets.map((t) => printable(t.name).length)));
  const lines = matrix.targets.map((t) => `  ${oneLine(printable(t.name), 40).padEnd(nameWidth)}  ${STANDING[t.standing].padEnd(14)}  ${t.badge.message.padEnd(12)}  ${join(MATRIX_FILES.badges, `${t.slug}.json`)}`);
  io.out(`${[`Matrix of ${matrix.targets.length} targets, catalogue ${matrix.catalogue.digest.slice(0, 19)}…`, ...lines, `Written: ${join(outDir, MATRIX_FILES.html)}, ${join(outDir, MATRIX_FILES.json)}, ${join(badgesDir, '*.json')}`].join('\n')}\n`);

  const summary = process.env.GITHUB_STEP_SUMMARY;
  if (summary) await appendFile(summary, `\n${markdownOf(matrix)}`, 'utf8').catch((err: unknown) => io.err(`warning: cannot append the matrix to GITHUB_STEP_SUMMARY (${summary}): ${(err as Error).message}`));
  return ExitCode.Conformant;
}
