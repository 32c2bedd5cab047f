import { CHECKS } from '../catalogue/index.js';
import { catalogueDigest } from '../catalogue/digest.js';
import type { Level, SuiteName } from '../catalogue/types.js';
import { UsageError } from '../core/errors.js';
import { oneLine } from '../core/wording.js';
import { checkReason } from '../report/findings-text.js';
import type { CheckStatus, RunReport, Verdict } from '../model/run-report.js';
import { targetName } from '../report/target-name.js';
import { verdictOfReport } from '../report/verdict.js';
import { badgeOf, type Badge, type Standing, type Tally } from './badge.js';

/**
 * Many targets' reports, each from its own CI job, as one matrix: checks down, targets across.
 * Only reports of one catalogue combine (the same checks at the same levels), and each target
 * once: anything else would put unlike results side by side. A pure function of the reports.
 */

export const MATRIX_FORMAT = 'carrier-conformance-matrix/1';
/** Longest reason kept per cell; the target's own report has the rest. */
const REASON_MAX = 300;

export type CellStatus = CheckStatus | 'not-run';

export interface MatrixCell {
  status: CellStatus;
  reason?: string;
}

export type { Standing, Tally } from './badge.js';

/**
 * What verify-bundle says of a target given as a bundle (issue 39 item 3): certified (a key the
 * platform trusts signed it, and it proves what the profile asks), not certified (why), or its
 * signer not proven (no trusted key given, or another signed it). A bundle is never shown as
 * certified on its report.json alone.
 */
export type CertificationStanding = 'certified' | 'not-certified' | 'signer-not-proven';
export interface Certification {
  standing: CertificationStanding;
  /** Why it is not certified: the first finding verify-bundle failed it on, or what would prove the signer. */
  reason?: string;
}

/** The badge of a bundle verify-bundle did not certify: never green, whatever its checks say. */
function certificationBadge(c: Certification, fallback: Badge): Badge {
  if (c.standing === 'certified') return fallback;
  return {
    schemaVersion: 1,
    label: 'conformance',
    message: c.standing === 'not-certified' ? 'not certified' : 'signer not proven',
    color: c.standing === 'not-certified' ? 'red' : 'lightgrey',
  };
}

/** `verdict` in today's vocabulary (src/report/verdict.ts verdictOfReport). */
export function standingOf(verdict: Verdict, must: Tally): Standing {
  if (verdict === 'incomplete' || verdict === 'nothing-checked') return 'incomplete';
  if (must.failed + must.expected + must.warning > 0) return 'non-conformant';
  if (must.error > 0 || verdict === 'not-proven') return 'not-proven';
  return must.passed < must.total ? 'partial' : 'conformant';
}

export interface MatrixTarget {
  name: string;
  /** A file-name-safe form of the name, unique in the matrix (badges/<slug>.json). */
  slug: string;
  report: string;
  baseUrl: string;
  version?: string;
  operator?: string;
  harness: string;
  startedAt: string;
  /** The run's own verdict (report.json's vocabulary; a report of an earlier version's value refined). */
  verdict: Verdict;
  standing: Standing;
  incompleteReason?: string;
  strict: boolean;
  must: Tally;
  should: Tally;
  badge: Badge;
  /** For a target given as a bundle: what verify-bundle says of it. */
  certification?: Certification;
}

export interface MatrixRow {
  id: string;
  suite: SuiteName;
  level: Level;
  title: string;
  /** One per target, in the order of `targets`. */
  cells: MatrixCell[];
}

export interface Matrix {
  format: typeof MATRIX_FORMAT;
  generatedAt: string;
  catalogue: { digest: string; checks: number; must: number; current: boolean };
  targets: MatrixTarget[];
  checks: MatrixRow[];
}

export interface LoadedReport {
  path: string;
  report: RunReport;
  /** Given as a bundle: what verify-bundle says of it (src/matrix/command.ts). */
  certification?: Certification;
}

/** The same target however its name is cased or spaced. */
function sameTargetKey(name: string): string {
  return name.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();
}

function slugOf(name: string, taken: Set<string>): string {
  const base =
    sameTargetKey(name)
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[-.]+|[-.]+$/g, '')
      .slice(0, 60) || 'target';
  let slug = base;
  for (let n = 2; taken.has(slug); n += 1) slug = `${base}-${n}`;
  taken.add(slug);
  return slug;
}

/** One line each, exit 2: mixed catalogues and duplicate targets cannot be combined. */
function refuseMixtures(reports: readonly LoadedReport[]): string {
  const first = reports[0];
  if (first === undefined) throw new UsageError('matrix: give at least one report.json');
  for (const { path, report } of reports) {
    if (report.catalogue === undefined)
      throw new UsageError(
        `matrix: ${path} records no catalogue digest (made by ${report.tool.name} ${report.tool.version}); rerun that target with this harness`,
      );
  }
  const digest = first.report.catalogue?.digest ?? '';
  const other = reports.find((r) => r.report.catalogue?.digest !== digest);
  if (other !== undefined) {
    const describe = (r: LoadedReport): string =>
      `${r.path} (catalogue ${r.report.catalogue?.digest.slice(0, 19) ?? '?'}…, ${r.report.tool.name} ${r.report.tool.version})`;
    throw new UsageError(
      `matrix: reports from different catalogue versions cannot be combined: ${describe(first)} and ${describe(other)}; run every target with the same harness version`,
    );
  }
  const seen = new Map<string, string>();
  for (const { path, report } of reports) {
    const key = sameTargetKey(targetName(report));
    const earlier = seen.get(key);
    if (earlier !== undefined)
      throw new UsageError(
        `matrix: two reports of the same target ${JSON.stringify(oneLine(targetName(report), 100))}: ${earlier} and ${path}; give each run its own --target-name`,
      );
    seen.set(key, path);
  }
  return digest;
}

function rowsOf(reports: readonly LoadedReport[], current: boolean): Omit<MatrixRow, 'cells'>[] {
  // The current catalogue lists every check, also those no target ran; otherwise the union, in order.
  if (current) return CHECKS.map((c) => ({ id: c.id, suite: c.suite, level: c.level, title: c.title }));
  const rows = new Map<string, Omit<MatrixRow, 'cells'>>();
  for (const { report } of reports)
    for (const c of report.checks)
      if (!rows.has(c.id)) rows.set(c.id, { id: c.id, suite: c.suite, level: c.level, title: c.title });
  return [...rows.values()];
}

function counted(t: Tally): number {
  return t.passed + t.warning + t.failed + t.error + t.skipped + t.expected + t.notRun;
}

function emptyTally(total: number): Tally {
  return { total, passed: 0, warning: 0, failed: 0, error: 0, skipped: 0, expected: 0, notRun: 0 };
}

export function combineReports(reports: readonly LoadedReport[], generatedAt = new Date()): Matrix {
  const digest = refuseMixtures(reports);
  const first = reports[0]?.report.catalogue ?? { digest, checks: 0, must: 0 };
  const current = digest === catalogueDigest();
  const rows = rowsOf(reports, current);
  const slugs = new Set<string>();
  const targets: MatrixTarget[] = [];
  const columns: Map<string, MatrixCell>[] = [];
  for (const { path, report, certification } of reports) {
    const cells = new Map<string, MatrixCell>();
    for (const c of report.checks) {
      const reason = checkReason(c);
      cells.set(c.id, {
        status: c.status,
        ...(reason !== undefined && c.status !== 'passed' ? { reason: oneLine(reason, REASON_MAX) } : {}),
      });
    }
    columns.push(cells);
    const must = emptyTally(first.must);
    const should = emptyTally(first.checks - first.must);
    for (const row of rows) {
      const tally = row.level === 'MUST' ? must : should;
      const cell = cells.get(row.id);
      if (cell === undefined || cell.status === 'not-run') tally.notRun += 1;
      else tally[cell.status] += 1;
    }
    // Rows list only the checks some target ran when the catalogue is not this harness's: the rest were run by none.
    for (const tally of [must, should]) tally.notRun += Math.max(0, tally.total - counted(tally));
    const name = targetName(report);
    const verdict = verdictOfReport(report);
    const standing = standingOf(verdict, must);
    targets.push({
      name,
      slug: slugOf(name, slugs),
      report: path,
      baseUrl: report.target.baseUrl,
      ...(report.target.version !== undefined ? { version: report.target.version } : {}),
      ...(report.target.operator !== undefined ? { operator: report.target.operator } : {}),
      harness: `${report.tool.name} ${report.tool.version}`,
      startedAt: report.startedAt,
      verdict,
      standing,
      ...(report.incompleteReason !== undefined
        ? { incompleteReason: oneLine(report.incompleteReason, REASON_MAX) }
        : {}),
      strict: report.strict,
      must,
      should,
      badge: certification
        ? certificationBadge(certification, badgeOf(standing, must, should))
        : badgeOf(standing, must, should),
      ...(certification
        ? {
            certification: {
              ...certification,
              ...(certification.reason !== undefined ? { reason: oneLine(certification.reason, REASON_MAX) } : {}),
            },
          }
        : {}),
    });
  }
  return {
    format: MATRIX_FORMAT,
    generatedAt: generatedAt.toISOString(),
    catalogue: { digest, checks: first.checks, must: first.must, current },
    targets,
    checks: rows.map((row) => ({ ...row, cells: columns.map((cells) => cells.get(row.id) ?? { status: 'not-run' }) })),
  };
}
