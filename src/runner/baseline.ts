import { z } from '../core/zod.js';
import { CHECKS, findCheck } from '../catalogue/index.js';
import { jsonKind } from '../core/json-problem.js';
import { didYouMean } from '../core/suggest.js';
import { UsageError } from '../core/errors.js';
import { FILE_LIMITS, readJsonFile, readRegularFile } from '../core/files.js';
import { parseRunReport, REPORT_LIMIT } from '../report/read.js';
import type { CheckResult, CheckStatus } from '../model/run-report.js';

/**
 * Known failures (`--baseline FILE`) and reruns (`--rerun-failed [report.json]`), for gating a
 * release on what changed rather than on what is already known to be broken.
 *
 * A baseline lists check ids, each with the reason it is known to fail (a ticket, a decision):
 *
 *   {"failures": [{"check": "TOKEN-PRAGMA", "reason": "PLAT-412: the gateway strips Pragma"}]}
 *
 * A listed check that fails or errs is reported as `expected` and does not fail the run; a listed
 * check that passes is reported as stale, so the entry can go (`--strict-baseline` fails the run
 * then, so that a baseline cannot silently outlive its failures). An entry may name its `ticket`
 * and the day it `expires` (YYYY-MM-DD, UTC): from the day after, it excuses nothing (the check's
 * failure fails the run again, and the reports list the entry as expired), so that "until the
 * next release" is written down and kept (issue 42 item 7).
 */

const baselineSchema = z
  .object({
    failures: z.array(
      z
        .object({
          check: z.string().refine((id) => findCheck(id) !== undefined, {
            error: (issue) =>
              `unknown check id ${JSON.stringify(issue.input)}${didYouMean(String(issue.input), CHECK_IDS, (id) => JSON.stringify(id))}`,
          }),
          reason: z.string().trim().min(1, { error: 'needs a reason: why is this failure accepted, and until when?' }),
          ticket: z.string().trim().min(1, { error: 'must not be empty' }).max(200).optional(),
          expires: z
            .string()
            .regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'must be a day, YYYY-MM-DD (the last day the entry holds, UTC)' })
            .refine(
              (d) =>
                !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d),
              {
                error: (issue) => `${JSON.stringify(issue.input)} is no day of the calendar`,
              },
            )
            .optional(),
        })
        .strict(),
      { error: 'must be a list of known failures' },
    ),
  })
  .strict();

/** An entry: why the failure is accepted (its ticket first, when it names one), and the last day it holds. */
export interface BaselineEntry {
  reason: string;
  expires?: string;
}
export type Baseline = ReadonlyMap<string, BaselineEntry>;

const CHECK_IDS = CHECKS.map((c) => c.id);
const BASELINE_EXAMPLE = '{"failures": [{"check": "ID", "reason": "why"}]}';

/** The keys each level of a baseline knows, for "did you mean" on an unknown one. */
const KNOWN_KEYS = { top: ['failures'], entry: ['check', 'reason', 'ticket', 'expires'] } as const;

/** The value at a zod issue's path: what the file holds where the schema wanted something else. */
function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let value = raw;
  for (const key of path)
    value = value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}

/** A problem of a baseline in plain words, not the validator's ("Invalid input: expected object, received array"). */
function baselineProblem(issue: z.core.$ZodIssue | undefined, raw: unknown): string {
  if (issue === undefined) return 'invalid';
  if (issue.code === 'unrecognized_keys') {
    const known = issue.path.length === 0 ? KNOWN_KEYS.top : KNOWN_KEYS.entry;
    return `unknown key ${issue.keys.map((k) => `${k}${didYouMean(k, known)}`).join(', ')}`;
  }
  // Only where the schema gave no message of its own: zod's default starts "Invalid input".
  if (issue.code === 'invalid_type' && issue.message.startsWith('Invalid input')) {
    const wanted =
      issue.expected === 'object' ? 'an object' : issue.expected === 'array' ? 'a list' : `a ${issue.expected}`;
    const value = valueAt(raw, issue.path);
    return value === undefined ? `missing: it must be ${wanted}` : `must be ${wanted}, not ${jsonKind(value)}`;
  }
  return issue.message;
}

/** Reads a --baseline file: check id → reason. */
export function loadBaseline(path: string): Baseline {
  const raw = readJsonFile(path, 'baseline file', FILE_LIMITS.baseline);
  const result = baselineSchema.safeParse(raw);
  if (!result.success) {
    // A mistyped key is also a missing one ("reasn": no "reason"): the typo is what to fix.
    const issue = result.error.issues.find((i) => i.code === 'unrecognized_keys') ?? result.error.issues[0];
    // The whole file: "baseline file x.json: must be an object, not an array; …", not "the file: …".
    const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    throw new UsageError(`baseline file ${path}: ${where}${baselineProblem(issue, raw)}; expected ${BASELINE_EXAMPLE}`);
  }
  const baseline = new Map<string, BaselineEntry>();
  for (const entry of result.data.failures) {
    const reason =
      entry.ticket === undefined || entry.reason.startsWith(entry.ticket)
        ? entry.reason
        : `${entry.ticket}: ${entry.reason}`;
    baseline.set(entry.check.toUpperCase(), {
      reason,
      ...(entry.expires !== undefined ? { expires: entry.expires } : {}),
    });
  }
  return baseline;
}

const FAILING: readonly CheckStatus[] = ['failed', 'warning', 'error'];

/** Whether an entry has expired on `day` (YYYY-MM-DD, UTC): it held until the end of its `expires` day. */
export function expiredOn(entry: BaselineEntry, day: string): boolean {
  return entry.expires !== undefined && entry.expires < day;
}

/**
 * Marks baselined failures as `expected` and baselined passes as stale; an entry expired on `day`
 * (the run's start, UTC) marks nothing expected: its check keeps its status, and says so.
 */
export function applyBaseline(results: readonly CheckResult[], baseline: Baseline, day: string): CheckResult[] {
  return results.map((result) => {
    const entry = baseline.get(result.id);
    if (entry === undefined) return result;
    const expired = expiredOn(entry, day);
    const recorded = {
      reason: entry.reason,
      ...(entry.expires !== undefined ? { expires: entry.expires } : {}),
      ...(expired ? { expired: true } : {}),
    };
    if (FAILING.includes(result.status) && !expired)
      return { ...result, status: 'expected', baseline: { ...recorded, stale: false } };
    return { ...result, baseline: { ...recorded, stale: result.status === 'passed' } };
  });
}

/** The ids of baselined checks whose entry had expired: their failures count again. */
export function expiredEntries(results: readonly CheckResult[]): string[] {
  return results.filter((r) => r.baseline?.expired === true).map((r) => r.id);
}

/** The ids of baselined checks that passed: entries that can be removed. */
export function staleEntries(results: readonly CheckResult[]): string[] {
  return results.filter((r) => r.baseline?.stale === true).map((r) => r.id);
}

/** Statuses a rerun repeats: everything that did not pass or was not skipped. */
const RERUN: readonly CheckStatus[] = ['failed', 'warning', 'error', 'expected'];

/** Reads the report of an earlier run and returns the ids of its checks that did not pass. */
export function failedChecksOf(path: string): string[] {
  // The file itself, as named (a directory is refused, not searched: --rerun-failed takes a file).
  const report = parseRunReport(readRegularFile(path, 'report', REPORT_LIMIT).toString('utf8'), `report ${path}`);
  return report.checks.filter((c) => RERUN.includes(c.status) && findCheck(c.id) !== undefined).map((c) => c.id);
}
