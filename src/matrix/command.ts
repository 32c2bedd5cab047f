import { lstatSync, opendirSync } from 'node:fs';
import { appendFile, mkdir, readdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isArchivePath, removeUnpacked, unpackBundle } from '../bundle/archive.js';
import { BUNDLE_FILES } from '../certification/bundle-format.js';
import { trustOf, type Trust } from '../bundle/keys.js';
import { verifyBundle } from '../bundle/verify.js';
import { loadProfile, type LoadedProfile } from '../certification/profile.js';
import { UsageError } from '../core/errors.js';
import { ExitCode } from '../core/exit-codes.js';
import { oneLine, printable } from '../core/wording.js';
import { inline } from '../report/markdown.js';
import { readRunReport, reportPath } from '../report/read.js';
import { writeAtomically } from '../report/write.js';
import { combineReports, type Certification, type Matrix, type Standing } from './combine.js';
import { CERTIFICATION, STANDING, renderMatrixHtml } from './html.js';

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
  const icon: Record<Standing, string> = {
    conformant: '✅',
    partial: '⚠️',
    'non-conformant': '❌',
    'not-proven': '❔',
    incomplete: '⚠️',
  };
  return [
    `## Carrier-Platform API conformance matrix: ${matrix.targets.filter((t) => t.standing === 'conformant').length} of ${matrix.targets.length} conformant`,
    '',
    '| target | verdict | MUST | SHOULD | version | harness | bundle |',
    '|:--|:--|--:|--:|:--|:--|:--|',
    ...matrix.targets.map(
      (t) =>
        `| ${inline(t.name)} | ${icon[t.standing]} ${STANDING[t.standing]} | ${t.must.passed}/${t.must.total} | ${t.should.passed}/${t.should.total} | ${inline(t.version ?? '')} | ${inline(t.harness)} | ${t.certification ? inline(`${CERTIFICATION[t.certification.standing]}${t.certification.reason !== undefined ? `: ${t.certification.reason}` : ''}`) : ''} |`,
    ),
    '',
  ].join('\n');
}

/** Entries of a folder looked at for reports, at most: a downloaded artifacts folder holds a few dozen. */
const MAX_FOLDER_ENTRIES = 10_000;

/**
 * The reports a path gives: itself (a report.json, or a folder holding one), else the folders
 * in it, one level down, that hold a report.json: `matrix artifacts/`, as CI downloads every
 * target's reports into a folder of its own. Only real folders are looked into (a symbolic link
 * there could lead anywhere on this machine), and each report.json is read as any report inside
 * a folder is (src/report/read.ts: a regular file, not a link, bounded). A folder without any
 * says so, rather than "DIR/report.json: no such file".
 */
function reportsIn(path: string): string[] {
  const { file, inside } = reportPath(path);
  if (!inside || present(file)) return [path];
  let folder;
  try {
    folder = opendirSync(path);
  } catch {
    return [path];
  }
  const found: string[] = [];
  let folders = 0;
  try {
    for (let entries = 0, entry = folder.readSync(); entry !== null; entry = folder.readSync()) {
      entries += 1;
      if (entries > MAX_FOLDER_ENTRIES)
        throw new UsageError(
          `matrix: ${path} holds more than ${MAX_FOLDER_ENTRIES} entries and no report.json: give the report.json of each target, or the folders holding them`,
        );
      if (!entry.isDirectory()) continue;
      folders += 1;
      if (present(join(path, entry.name, 'report.json'))) found.push(join(path, entry.name));
    }
  } finally {
    folder.closeSync();
  }
  if (found.length === 0) {
    const looked = folders === 0 ? 'and no folder' : `nor does any of its ${folders} folder${folders === 1 ? '' : 's'}`;
    throw new UsageError(
      `matrix: ${path} holds no report.json, ${looked} (looked one level down): give the report.json of each target, or the folders holding them`,
    );
  }
  // The order of the command line, then of names: the same folder makes the same matrix.
  return found.sort();
}

/** `read`, its refusal naming the archive rather than the private folder it was unpacked into. */
function namedByArchive<T>(archive: string, dir: string, read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof UsageError) throw new UsageError(err.message.replaceAll(dir, archive));
    throw err;
  }
}

/** Whether something is at `path` (not followed: a link is found here and refused when read). */
function present(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** `--public-key`, `--trusted-keys`, `--profile`: how the bundles among the inputs are verified, as verify-bundle does. */
export interface MatrixVerification {
  publicKey?: string | undefined;
  trustedKeys?: string | undefined;
  profile?: string | undefined;
}

/**
 * What verify-bundle says of the target whose report.json is `file`: a bundle (its folder holds
 * manifest.json) is verified with the trust and profile given; a plain report, when a key or a
 * profile was given, is not certified (nothing signs it). Undefined: a plain report, none given.
 */
function certificationOf(
  file: string,
  trust: Trust | undefined,
  profile: LoadedProfile | undefined,
): Certification | undefined {
  const dir = dirname(file);
  const asked = trust !== undefined || profile !== undefined;
  if (!present(join(dir, BUNDLE_FILES.manifest)))
    return asked
      ? { standing: 'not-certified', reason: 'a report.json, not a bundle (run --bundle): nothing signs it' }
      : undefined;
  const verdict = verifyBundle(dir, trust, profile);
  const failed = verdict.findings.find((x) => x.level === 'fail');
  if (failed !== undefined) return { standing: 'not-certified', reason: `${failed.topic}: ${failed.message}` };
  if (!verdict.signerProven)
    return {
      standing: 'signer-not-proven',
      reason:
        trust === undefined
          ? 'no key was given to verify its signer (--public-key, --trusted-keys)'
          : 'no key you trust signed it',
    };
  return { standing: 'certified' };
}

export async function matrixCommand(
  paths: readonly string[],
  outDir: string,
  io: MatrixIO,
  verification: MatrixVerification = {},
): Promise<number> {
  if (paths.length === 0)
    throw new UsageError('matrix: give the report.json of each target (or the directories holding them)');
  const trust = trustOf(verification.publicKey, verification.trustedKeys);
  const profile = verification.profile === undefined ? undefined : loadProfile(verification.profile);
  // A bundle archive (run --bundle NAME.tar.gz) is read unpacked in a private folder, named by the archive.
  const unpacked = new Map<string, string>();
  let matrix;
  try {
    for (const p of paths) if (isArchivePath(p) && !unpacked.has(p)) unpacked.set(p, await unpackBundle(p, 'matrix'));
    const loaded = paths
      .flatMap((p) => (unpacked.has(p) ? [p] : reportsIn(p)))
      .map((p) => {
        const dir = unpacked.get(p);
        const read =
          dir === undefined
            ? readRunReport(p, { what: 'matrix: report' })
            : namedByArchive(p, dir, () => readRunReport(join(dir, BUNDLE_FILES.report), { what: 'matrix: report' }));
        const certification = certificationOf(read.path, trust, profile);
        return { ...read, ...(dir !== undefined ? { path: p } : {}), ...(certification ? { certification } : {}) };
      });
    matrix = combineReports(loaded);
  } finally {
    for (const dir of unpacked.values()) await removeUnpacked(dir);
  }

  const badgesDir = join(outDir, MATRIX_FILES.badges);
  try {
    await mkdir(badgesDir, { recursive: true });
    // badges/ holds the badges of this matrix only: a target dropped from it must not keep its old badge.
    const keep = new Set(matrix.targets.map((t) => `${t.slug}.json`));
    for (const name of await readdir(badgesDir))
      if (name.endsWith('.json') && !keep.has(name)) await rm(join(badgesDir, name), { force: true });
    await writeAtomically(join(outDir, MATRIX_FILES.html), renderMatrixHtml(matrix));
    await writeAtomically(join(outDir, MATRIX_FILES.json), `${JSON.stringify(matrix, null, 2)}\n`);
    for (const t of matrix.targets)
      await writeAtomically(join(badgesDir, `${t.slug}.json`), `${JSON.stringify(t.badge)}\n`);
  } catch (err) {
    throw new UsageError(
      `matrix --out ${outDir}: cannot write there (${(err as { code?: string }).code ?? (err as Error).message})`,
    );
  }

  const nameWidth = Math.min(40, Math.max(...matrix.targets.map((t) => printable(t.name).length)));
  const certified = (t: (typeof matrix.targets)[number]): string =>
    t.certification === undefined
      ? ''
      : `  ${CERTIFICATION[t.certification.standing]}${t.certification.reason !== undefined ? ` (${oneLine(printable(t.certification.reason), 160)})` : ''}`;
  const lines = matrix.targets.map(
    (t) =>
      `  ${oneLine(printable(t.name), 40).padEnd(nameWidth)}  ${STANDING[t.standing].padEnd(14)}  ${t.badge.message.padEnd(12)}  ${join(MATRIX_FILES.badges, `${t.slug}.json`)}${certified(t)}`,
  );
  io.out(
    `${[`Matrix of ${matrix.targets.length} targets, catalogue ${matrix.catalogue.digest.slice(0, 19)}…`, ...lines, `Written: ${join(outDir, MATRIX_FILES.html)}, ${join(outDir, MATRIX_FILES.json)}, ${join(badgesDir, '*.json')}`].join('\n')}\n`,
  );

  const summary = process.env.GITHUB_STEP_SUMMARY;
  if (summary)
    await appendFile(summary, `\n${markdownOf(matrix)}`, 'utf8').catch((err: unknown) =>
      io.err(`warning: cannot append the matrix to GITHUB_STEP_SUMMARY (${summary}): ${(err as Error).message}`),
    );
  return ExitCode.Conformant;
}
