import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CHECKS, SUITES, getCheck } from '../../src/catalogue/index.js';
import { parseRunOptions } from '../../src/config/options.js';
import type { Fault, Variant } from '../../src/reference/catalogue.js';
import { startReferenceServer } from '../../src/reference/index.js';
import type { RunReport } from '../../src/model/run-report.js';
import { tempDir } from '../support/harness.js';
import type { runConformance as runConformanceFromSources } from '../../src/runner/run.js';

/**
 * The meta-tests' machinery: a reference server with one fault or variant, the harness run
 * against it in-process, and a judgement of the verdict against what the fault declares.
 */

const ALL_BUT_EXPIRY: string[] = SUITES.filter((s) => s !== 'expiry');
/** A short token lifetime for the runs that include the expiry suite. */
export const EXPIRY_TTL_SECONDS = 2;
/**
 * The token lifetime for the runs of a fault that targets expiry: long enough that the "before"
 * probe (a second of clock granularity plus a round trip ahead of expiry) still lands after a
 * token cut off at a quarter of its life, even on a busy machine with slow round trips.
 */
export const EXPIRY_FAULT_TTL_SECONDS = 3;

export interface Plan {
  suites: string[];
  tokenTtlSeconds: number;
  strict: boolean;
  /** --max-expiry-wait, when the plan gives one. */
  maxExpiryWait?: number;
  /** false: the run's --expectations file gives the user only, not the resources' ground truth. */
  resourceExpectations?: boolean;
}

/**
 * Faults whose expires_in is too long to wait out, so that the expiry checks after expiry are
 * skipped and EXPIRY-VALID-BEFORE is judged on the part of the lifetime the run observes (issue
 * 30). A run against the reference server lasts well under a second, less than any token lives;
 * --max-expiry-wait asks for the token to be probed again that long after issue, after its real
 * lifetime (EXPIRY_FAULT_TTL_SECONDS) and long before the one it declares.
 */
const OBSERVED_PART_FAULTS = new Set(['expires-in-milliseconds']);
export const OBSERVED_PART_WAIT_SECONDS = EXPIRY_FAULT_TTL_SECONDS + 2;

/** Whether the fault names a check of `suite` among those it breaks, may break or makes err. */
function declares(fault: Fault, suite: string): boolean {
  return [...fault.breaks, ...(fault.alsoBreaks ?? []), ...(fault.errs ?? [])].some(
    (id) => getCheck(id).suite === suite,
  );
}

/**
 * How to run the harness against a fault: only the expiry suite, with short-lived tokens, when
 * the fault targets expiry (its other suites would race the short lifetime); every other suite
 * otherwise. Faults that target SHOULD checks alone are run with --strict, so that exit 1 holds.
 */
export function planForFault(fault: Fault): Plan {
  const expiry = fault.breaks.some((id) => getCheck(id).suite === 'expiry');
  return {
    // The writes suite runs for the faults that declare a write check: the others are held to the
    // GET checks, and the variants (every suite) hold the writes to no false alarm.
    suites: expiry
      ? ['expiry']
      : declares(fault, 'writes')
        ? ALL_BUT_EXPIRY
        : ALL_BUT_EXPIRY.filter((s) => s !== 'writes'),
    tokenTtlSeconds: expiry ? EXPIRY_FAULT_TTL_SECONDS : 60,
    strict: fault.breaks.every((id) => getCheck(id).level === 'SHOULD'),
    ...(OBSERVED_PART_FAULTS.has(fault.name) ? { maxExpiryWait: OBSERVED_PART_WAIT_SECONDS } : {}),
  };
}

/**
 * Variants run the whole battery, expiry included: a conformant server passes all of it. A
 * variant with review items runs as a user without ground truth for the resources would: the reference's
 * --expectations file knows the values the variant changes, and would fail it.
 */
export function planForVariant(variant?: Variant): Plan {
  return {
    // The writes suite is held to each variant on its own (test/writes.test.ts): its probes open a
    // connection each, and beside a 2 s token's expiry probes they only add load.
    suites: [...ALL_BUT_EXPIRY.filter((s) => s !== 'writes'), 'expiry'],
    tokenTtlSeconds: EXPIRY_TTL_SECONDS,
    strict: false,
    ...(variant?.review ? { resourceExpectations: false } : {}),
  };
}

export interface CaseResult {
  exitCode: number;
  report: RunReport;
  ms: number;
}

const expectationsFiles = new Map<boolean, Promise<string>>();

/** The reference server's data as an --expectations file (the same for every server); `resources`: with the seeded resources. */
async function expectations(resources = true): Promise<string> {
  let file = expectationsFiles.get(resources);
  if (!file) {
    file = (async () => {
      const server = await startReferenceServer();
      await server.close();
      const path = join(await tempDir('carrier-meta-'), 'expectations.json');
      await writeFile(path, JSON.stringify(resources ? server.expectations : { user: server.expectations.user }));
      return path;
    })();
    expectationsFiles.set(resources, file);
  }
  return file;
}

/**
 * The harness as it ships: the build in dist/ (`npm test` builds first), which runs the compiled
 * battery; faster than the sources, and what users run. Loaded by the first case, not when this
 * module is: a file that imports it without running a case (coverage.test.ts) must not leave the
 * import loading after its environment is torn down (Vitest's EnvironmentTeardownError).
 */
type BuiltRunner = Promise<{ runConformance: typeof runConformanceFromSources }>;
let built: BuiltRunner | undefined;
const builtRunner = (): BuiltRunner =>
  (built ??= import(new URL('../../dist/src/runner/run.js', import.meta.url).href) as BuiltRunner);

/** Starts a reference server with the alterations and runs the planned battery against it. */
export async function runCase(
  alterations: { faults?: string[]; variants?: string[] },
  plan: Plan,
): Promise<CaseResult> {
  const started = performance.now();
  const server = await startReferenceServer({ ...alterations, tokenTtlSeconds: plan.tokenTtlSeconds });
  try {
    const options = parseRunOptions({
      baseUrl: server.url,
      clientId: server.clientId,
      clientSecret: server.clientSecret,
      pagedPath: server.pagedPaths,
      endpoint: server.singlePaths,
      openapi: server.openapiFile,
      // Isolation proven both ways with the second client, and the named foreign tenant asked for too.
      secondClientId: server.secondClientId,
      secondClientSecret: server.secondClientSecret,
      foreignTenantId: server.foreignTenantId,
      expectations: await expectations(plan.resourceExpectations !== false),
      suite: plan.suites,
      strict: plan.strict,
      ...(plan.maxExpiryWait !== undefined ? { maxExpiryWait: plan.maxExpiryWait } : {}),
      reportsDir: await tempDir('carrier-meta-'),
    });
    const { runConformance } = await builtRunner();
    const { report, exitCode } = await runConformance(options, {
      out: () => undefined,
      err: () => undefined,
      color: false,
    });
    return { exitCode, report, ms: performance.now() - started };
  } finally {
    await server.close();
  }
}

const describeCheck = (report: RunReport, id: string): string => {
  const c = report.checks.find((x) => x.id === id);
  return c ? `${id} ${c.status}${c.message ? `: ${c.message}` : ''}` : `${id} not run`;
};

/**
 * What is wrong with a fault's run: the exit code is not 1, a targeted check did not catch it,
 * or a check it does not declare did not pass. Empty when the harness judged it right.
 */
export function judgeFault(fault: Fault, result: CaseResult): string[] {
  const problems: string[] = [];
  if (result.exitCode !== 1) problems.push(`exit code ${result.exitCode}, expected 1`);
  for (const id of fault.breaks) {
    const status = result.report.checks.find((c) => c.id === id)?.status;
    if (status !== 'failed' && status !== 'warning')
      problems.push(`targeted check not caught: ${describeCheck(result.report, id)}`);
  }
  for (const id of fault.errs ?? []) {
    const status = result.report.checks.find((c) => c.id === id)?.status;
    if (status !== 'error')
      problems.push(
        `a dependant must err, pointing at the cause, not ${status ?? 'be missing'}: ${describeCheck(result.report, id)}`,
      );
  }
  problems.push(...misdirectedPointers(result.report));
  const declared = new Set([...fault.breaks, ...(fault.alsoBreaks ?? []), ...(fault.errs ?? [])]);
  for (const c of result.report.checks) {
    if (!declared.has(c.id) && c.status !== 'passed')
      problems.push(`independent check did not pass: ${describeCheck(result.report, c.id)}`);
  }
  return problems;
}

/**
 * Messages that send the reader to a check that passed: "cannot check … (see TOKEN-ISSUE)" when
 * TOKEN-ISSUE passed points the wrong way. Every check id a message names as the cause must be
 * one that did not pass in the same run.
 */
export function misdirectedPointers(report: RunReport): string[] {
  const status = new Map(report.checks.map((c) => [c.id, c.status]));
  const problems: string[] = [];
  for (const c of report.checks) {
    const texts = [c.message ?? '', ...c.findings.map((f) => f.message)];
    for (const text of texts) {
      for (const match of text.matchAll(/\bsee ((?:[A-Z]+-)+[A-Z0-9]+(?:, (?:[A-Z]+-)+[A-Z0-9]+)*)/g)) {
        for (const id of (match[1] ?? '').split(', ')) {
          if (status.get(id) === 'passed') problems.push(`${c.id} points at ${id}, which passed: ${text}`);
        }
      }
    }
  }
  return [...new Set(problems)];
}

/**
 * What is wrong with a variant's run: anything but exit 0 with every check passed (but the
 * ground-truth check, skipped in a run without --expectations), and exactly the review items the
 * variant declares, "<endpoint> <field>" (none for most).
 */
export function judgeVariant(result: CaseResult, variant?: Variant): string[] {
  const problems: string[] = [];
  if (result.exitCode !== 0) problems.push(`exit code ${result.exitCode}, expected 0`);
  const groundTruthSkipped = (c: RunReport['checks'][number]): boolean =>
    variant?.review !== undefined && c.id === 'RESOURCE-EXPECTED-VALUES' && c.status === 'skipped';
  for (const c of result.report.checks)
    if (c.status !== 'passed' && !groundTruthSkipped(c))
      problems.push(`false alarm: ${describeCheck(result.report, c.id)}`);
  const review = (result.report.review ?? []).map((r) => `${r.endpoint} ${r.field}`);
  const declared = [...(variant?.review ?? [])];
  if (JSON.stringify(review) !== JSON.stringify(declared))
    problems.push(`review items ${JSON.stringify(review)}, expected ${JSON.stringify(declared)}`);
  return problems;
}

/** The coverage matrix: check id → the faults that must make it fail. */
export function coverageMatrix(faults: readonly Fault[]): Map<string, string[]> {
  const matrix = new Map<string, string[]>(CHECKS.map((c) => [c.id, []]));
  for (const fault of faults) for (const id of fault.breaks) matrix.get(id)?.push(fault.name);
  return matrix;
}

export function renderMatrix(
  matrix: Map<string, string[]>,
  faults: readonly Fault[],
  variants: readonly Variant[],
): string {
  const covered = [...matrix.values()].filter((f) => f.length > 0).length;
  const lines = [
    '# Mutation matrix',
    '',
    `Generated by \`npm test\` (test/meta/coverage.test.ts) from the check catalogue and the fault catalogue.`,
    '',
    `- checks with at least one fault that fails them: **${covered} / ${matrix.size}**`,
    `- faults: ${faults.length}, each run against the harness and caught by the checks it targets (test/meta/faults-*.test.ts)`,
    `- variants (unusual but conformant servers): ${variants.length}, each passed with no failure and no warning (test/meta/variants.test.ts)`,
    '',
    '| check | level | faults that fail it |',
    '|---|---|---|',
    ...[...matrix].map(
      ([id, names]) => `| ${id} | ${getCheck(id).level} | ${names.length > 0 ? names.join(', ') : '**none**'} |`,
    ),
    '',
  ];
  return lines.join('\n');
}
