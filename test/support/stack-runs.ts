/**
 * Running the built harness against an implementation written with a real framework (Fastify,
 * FastAPI, DRF…), as a user runs it, and comparing its verdict check by check with the one the
 * spec and the RFCs call for.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CHECKS } from '../../src/catalogue/index.js';
import type { RunReport } from '../../src/model/run-report.js';
import { runBin, tempDir } from './harness.js';
import type { ExpectedStatuses } from './verdicts.js';

/** Each check's expected status, or the statuses it may have. */
export type Verdict = ExpectedStatuses;

/** Every check of the catalogue passes: what a conformant implementation must get. */
export const ALL_PASSED: Verdict = Object.fromEntries(CHECKS.map((c) => [c.id, 'passed' as const]));

/** Only the checks of these suites (a run with `--suite`s lists no others). */
export function ofSuites(verdict: Verdict, suites: readonly string[]): Verdict {
  const keep = new Set(CHECKS.filter((c) => suites.includes(c.suite)).map((c) => c.id));
  return Object.fromEntries(Object.entries(verdict).filter(([id]) => keep.has(id)));
}

export interface Run {
  code: number;
  report: RunReport;
  stderr: string;
}

/** What the harness needs to know of a target besides its base URL. */
export interface StackTarget {
  clientId: string;
  clientSecret: string;
  foreignTenantId: string;
  /** The API's OpenAPI document. */
  openapiFile: string;
  /** Ground truth for --expectations. */
  expectations: unknown;
}

/** The real executable, as a user runs it; with the target's ground truth when `expectations`. */
export async function runHarness(
  target: StackTarget,
  baseUrl: string,
  options: { expectations?: boolean; extra?: readonly string[] } = {},
): Promise<Run> {
  const reportsDir = await tempDir();
  const file = join(reportsDir, 'expectations.json');
  await writeFile(file, JSON.stringify(target.expectations));
  const args = [
    'run',
    '--base-url',
    baseUrl,
    '--client-id',
    target.clientId,
    '--openapi',
    target.openapiFile,
    '--foreign-tenant-id',
    target.foreignTenantId,
    ...(options.expectations === false ? [] : ['--expectations', file]),
    '--reports-dir',
    reportsDir,
    ...(options.extra ?? []),
  ];
  const result = await runBin(args, {
    env: {
      CARRIER_CLIENT_SECRET: target.clientSecret,
      HTTP_PROXY: '',
      HTTPS_PROXY: '',
      http_proxy: '',
      https_proxy: '',
    },
    timeoutMs: 45_000,
  });
  const report = JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
  return { code: result.code, report, stderr: result.stderr };
}

export { differences, reasonsOf } from './verdicts.js';

export const ASKS_FOR_CONTENT = /asked for the content \(100 Continue\)/;

/**
 * How each write operation fared across the write checks (issue 41): `proven` where every check
 * judged it (passed or failed); `asks for the content` where the server answered 100 Continue to
 * every probe; else `not proven by` the checks that could not judge it, with why, in short:
 * `as with valid headers` (the probe got the control's answer, a 404 for the made-up id), `asks
 * for the content`, or the reason itself.
 */
export function writeOutcomes(report: RunReport): Record<string, string> {
  const byEndpoint = new Map<string, { id: string; why?: string }[]>();
  for (const check of report.checks.filter((c) => c.suite === 'writes'))
    for (const e of check.endpoints ?? []) {
      const why =
        e.status !== 'skipped'
          ? undefined
          : ASKS_FOR_CONTENT.test(e.message ?? '')
            ? 'asks for the content'
            : /but the same request with valid headers .* gets \d{3}.* too/.test(e.message ?? '')
              ? 'as with valid headers'
              : (e.message ?? '(no reason)');
      byEndpoint.set(e.endpoint, [...(byEndpoint.get(e.endpoint) ?? []), { id: check.id, ...(why ? { why } : {}) }]);
    }
  const out: Record<string, string> = {};
  for (const [endpoint, outcomes] of byEndpoint) {
    const unproven = outcomes.filter((o) => o.why !== undefined);
    const whys = [...new Set(unproven.map((o) => o.why))];
    out[endpoint] =
      unproven.length === 0
        ? 'proven'
        : unproven.length === outcomes.length && whys.length === 1 && whys[0] === 'asks for the content'
          ? 'asks for the content'
          : `not proven by ${unproven
              .map((o) => o.id)
              .sort()
              .join(', ')}: ${whys.join('; ')}`;
  }
  return out;
}

/**
 * Which rule each check of two defects at once saw the target answer for (issue 41 item 4,
 * src/battery/precedence.ts): per check, the choices recorded on its endpoints and how many, e.g.
 * `{ 'VERSION-AND-AUTH-MISSING': 'version 7', 'TENANT-UNKNOWN-NO-AUTH': 'auth 4, tenant 1' }`.
 */
export function precedenceChoices(report: RunReport): Record<string, string> {
  const out: Record<string, string> = {};
  for (const check of report.checks) {
    const counts = new Map<string, number>();
    for (const e of check.endpoints ?? [])
      if (e.observed !== undefined) counts.set(e.observed, (counts.get(e.observed) ?? 0) + 1);
    if (counts.size > 0)
      out[check.id] = [...counts]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([choice, n]) => `${choice} ${n}`)
        .join(', ');
  }
  return out;
}

/**
 * The order the reference server and every app of these tests check in (Accept-Version, then the
 * token, then the tenant), as `precedenceChoices` sees it on the five tenant GETs, /users/me and
 * its legacy path, and on the `writes` write operations a probe could judge.
 */
export const VERSION_THEN_TOKEN_THEN_TENANT = (writes: number): Record<string, string> => ({
  'TENANT-UNKNOWN-NO-AUTH': 'auth 5',
  'VERSION-AND-AUTH-MISSING': 'version 7',
  'WRITE-TENANT-UNKNOWN-NO-AUTH': `auth ${writes}`,
  'WRITE-VERSION-AND-AUTH-MISSING': `version ${writes}`,
});
