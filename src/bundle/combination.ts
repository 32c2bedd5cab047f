import { CHECKS } from '../catalogue/index.js';
import { countStatuses, type CheckResult, type RunReport, type Scope } from '../model/run-report.js';
import { renderJsonReport } from '../report/json.js';
import { oneLine, printable } from '../core/wording.js';
import { parseRunReport } from '../report/read.js';
import { carriedOut, enforceComplete, scopeOfReport, suiteCounts, verdictLine, verdictOf } from '../report/verdict.js';
import { BUNDLE_FILES, targetInfoSchema, type TargetInfo } from '../certification/bundle-format.js';

/**
 * The two-job expiry proof (issue 31): real token lifetimes (expires_in 3600) cannot be waited out
 * inside a main run held to a CI job's deadline, so the EXPIRY-* checks (spec §Authentication 3)
 * run as a job of their own (`run --suite expiry --max-expiry-wait 3600 --deadline 4000`), and
 * `combine-bundles MAIN EXPIRY --output DIR --sign-key KEY` makes one bundle of the two runs:
 *
 *   report.json   the main run's, with the expiry job's EXPIRY-* results in place of its own, and
 *                 its counts, scope and verdict decided again from those checks (combineReports)
 *   target.json   the main run's, with the expiry job's --max-expiry-wait and when it ran (`combined`)
 *   junit.xml, report.html   rendered from that report.json, as `run --bundle` renders them
 *   parts/main/, parts/expiry/   both runs' bundles, unchanged, each signed
 *
 * The combination is a pure function of the two parts: `verify-bundle` derives report.json and
 * target.json from parts/ again and compares them byte for byte, so a combined bundle says exactly
 * what its parts say, no more.
 */

/** The checks the expiry job proves: the expiry suite. */
export const EXPIRY_CHECKS: readonly string[] = CHECKS.filter((c) => c.suite === 'expiry').map((c) => c.id);

/**
 * The longest time from the earlier run's start to the later one's end. Both runs must speak of
 * the same deployment: 24 h holds a nightly pipeline whose expiry job is scheduled apart from the
 * main one (or retried the next morning), and is short enough that a deployment changed between
 * them is unlikely to go unnoticed by the next nightly pair. Fixed, not an option: the verifier
 * holds every bundle to the same bound, whoever combined it.
 */
export const MAX_APART_MS = 24 * 60 * 60 * 1000;

/** One run, as read from its bundle. */
export interface PartRun {
  report: RunReport;
  info: TargetInfo;
  /** The fingerprint of the key the part is signed with, when it is signed. */
  signer?: string;
}

/** Each host's address kinds (loopback, private, public) as resolved when the part was written. */
function hostKinds(info: TargetInfo): { host: string; kinds: string[] }[] | undefined {
  return info.target.hosts?.map((h) => ({ host: h.host, kinds: [...new Set(h.addresses.map((a) => a.kind))].sort() }));
}

/** Merges skip groups by reason, in the order the reasons first appear, keeping only `keep` ids. */
function skipGroups(groups: readonly Scope['skipped'][], keep: readonly ((id: string) => boolean)[]): Scope['skipped'] {
  const merged = new Map<string, string[]>();
  groups.forEach((list, i) => {
    for (const group of list) {
      const ids = group.checks.filter(keep[i] ?? (() => false));
      if (ids.length > 0) merged.set(group.reason, [...(merged.get(group.reason) ?? []), ...ids]);
    }
  });
  return [...merged].map(([reason, checks]) => ({ reason, checks }));
}

/**
 * The combined report: the main run's, with the expiry job's EXPIRY-* results, and everything the
 * checks decide (counts, suites, scope, verdict, exit code, summary) decided again, as the run
 * itself decides them (src/runner/run.ts assemble). The main run's --require-complete holds for
 * the expiry job's results too: a skipped EXPIRY check there is not carried out.
 */
export function combineReports(main: RunReport, expiry: RunReport): RunReport {
  const taken = new Map(expiry.checks.filter((c) => EXPIRY_CHECKS.includes(c.id)).map((c) => [c.id, c]));
  const mainById = new Map(main.checks.map((c) => [c.id, c]));
  const mainScope = scopeOfReport(main);
  const merged = CHECKS.map((c) => taken.get(c.id) ?? mainById.get(c.id)).filter(
    (c): c is CheckResult => c !== undefined,
  );
  const checks = enforceComplete(merged, { requireComplete: mainScope.requireComplete, strict: main.strict });
  const done = checks.filter(carriedOut).length;
  const scope: Scope = {
    coverage: done === 0 ? 'none' : done === CHECKS.length ? 'full' : 'partial',
    catalogue: CHECKS.length,
    selection: mainScope.selection,
    notSelected: mainScope.notSelected.filter((id) => !taken.has(id)),
    carriedOut: done,
    skipped: skipGroups(
      [mainScope.skipped, scopeOfReport(expiry).skipped],
      [(id) => !taken.has(id), (id) => taken.has(id)],
    ),
    baselined: checks
      .filter((c) => c.status === 'expected')
      .map((c) => ({ check: c.id, level: c.level, reason: c.baseline?.reason ?? '' })),
    requireComplete: mainScope.requireComplete,
  };
  // Either run stopped early: the combination did too (the expiry job's unrun checks are errors anyway).
  const incompleteReason =
    main.incompleteReason ??
    (expiry.incompleteReason !== undefined && (expiry.verdict === 'incomplete' || expiry.verdict === 'nothing-checked')
      ? `the expiry job: ${expiry.incompleteReason}`
      : undefined);
  const { verdict, exitCode } = verdictOf(
    checks,
    { strict: main.strict, strictBaseline: main.baseline?.strict === true },
    incompleteReason,
    scope,
  );
  const rest: RunReport = { ...main };
  // Both said again below from the combined checks (summary) or the two runs (incompleteReason).
  delete rest.summary;
  delete rest.incompleteReason;
  const report: RunReport = {
    ...rest,
    verdict,
    scope,
    ...(incompleteReason !== undefined ? { incompleteReason } : {}),
    exitCode,
    counts: countStatuses(checks),
    suites: suiteCounts(checks),
    checks,
  };
  return { ...report, summary: verdictLine(report) };
}

/** The combined target.json: the main run's, with the expiry job's wait and when it ran. */
export function combineTargetInfo(
  main: TargetInfo,
  expiry: TargetInfo,
  combined: RunReport,
  taken: readonly string[],
): TargetInfo {
  return targetInfoSchema.parse({
    ...main,
    combined: {
      expiry: {
        startedAt: expiry.run.startedAt,
        finishedAt: expiry.run.finishedAt,
        maxExpiryWait: expiry.options.maxExpiryWait,
        deadline: expiry.options.deadline,
        checks: [...taken],
      },
    },
    run: { ...main.run, verdict: combined.verdict },
    // What proved expiry: the expiry job's wait (a profile's minMaxExpiryWait is held to it).
    options: { ...main.options, maxExpiryWait: expiry.options.maxExpiryWait },
  });
}

/** report.json and target.json of the combination, as the bytes combine-bundles writes and verify-bundle compares. */
export function deriveCombined(main: PartRun, expiry: PartRun): { report: RunReport; json: string; target: string } {
  const combined = combineReports(main.report, expiry.report);
  const json = renderJsonReport(combined);
  // As written, then read back: what a verifier parses is what the pages are rendered from.
  const report = parseRunReport(json, BUNDLE_FILES.report);
  const taken = EXPIRY_CHECKS.filter((id) => expiry.report.checks.some((c) => c.id === id));
  return {
    report,
    json,
    target: `${JSON.stringify(combineTargetInfo(main.info, expiry.info, report, taken), null, 2)}\n`,
  };
}

function time(iso: string): number | undefined {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? undefined : t;
}

/**
 * Why the two runs cannot be combined: not the same target (URLs, client, tenant), not the same
 * document, profile, expectations or options that shape a verdict, not the same harness, too far
 * apart, or an expiry job that did not run the expiry checks. Empty: they combine.
 */
export function combinationProblems(main: PartRun, expiry: PartRun): string[] {
  const problems: string[] = [];
  const same = (what: string, a: unknown, b: unknown): void => {
    if (JSON.stringify(a) !== JSON.stringify(b))
      problems.push(
        `the two runs differ on the ${what} (main: ${oneLine(printable(JSON.stringify(a) ?? 'none'), 100)}; expiry: ${oneLine(printable(JSON.stringify(b) ?? 'none'), 100)})`,
      );
  };
  const [m, e] = [main.info, expiry.info];
  same('base URL', m.target.baseUrl, e.target.baseUrl);
  same('auth URL', m.target.authUrl, e.target.authUrl);
  same('embedded server', m.target.embedded, e.target.embedded);
  same('client id (SHA-256)', m.target.clientIdSha256, e.target.clientIdSha256);
  same('tenant', m.target.tenantId, e.target.tenantId);
  same('OpenAPI document (SHA-256)', m.options.openapi?.sha256, e.options.openapi?.sha256);
  same('certification profile (SHA-256)', m.certification?.profile.sha256, e.certification?.profile.sha256);
  same('expectations (SHA-256)', m.options.expectations?.sha256, e.options.expectations?.sha256);
  same('baseline (SHA-256)', m.options.baseline?.sha256, e.options.baseline?.sha256);
  same('strict mode', m.options.strict, e.options.strict);
  same('TLS verification (--insecure)', m.options.insecure, e.options.insecure);
  same('CA file (SHA-256)', m.options.caFile?.sha256, e.options.caFile?.sha256);
  same('harness', m.harness, e.harness);
  same('catalogue', m.catalogue.digest, e.catalogue.digest);
  // Where the hosts resolved: a name that led to a public address for one run and to loopback for
  // the other (a hosts file, a DNS change) names two deployments, whatever the URL says.
  same('kinds of address the hosts resolved to', hostKinds(m), hostKinds(e));
  // One signer vouches for a combined bundle: two parts by two signers would certify what neither signed whole.
  if (main.signer !== undefined && expiry.signer !== undefined && main.signer !== expiry.signer)
    problems.push(
      `the two parts are signed by different keys (main: ${main.signer}; expiry: ${expiry.signer}): a combined bundle speaks for one signer; sign both runs with one key`,
    );
  if (m.combined !== undefined || e.combined !== undefined)
    problems.push("a part is itself a combined bundle: combine the two runs' own bundles");
  const missing = EXPIRY_CHECKS.filter((id) => !expiry.report.checks.some((c) => c.id === id));
  // The parts given the wrong way round (the "main" part ran only the expiry suite), or an "expiry" part that proved no expiry.
  const unproven = EXPIRY_CHECKS.filter((id) => expiry.report.checks.some((c) => c.id === id && !carriedOut(c)));
  const swapped =
    main.report.checks.length > 0 &&
    main.report.checks.every((c) => EXPIRY_CHECKS.includes(c.id)) &&
    expiry.report.checks.some((c) => !EXPIRY_CHECKS.includes(c.id));
  if (swapped)
    problems.push(
      "the parts are the wrong way round: the first ran only the expiry suite, the second the rest; give the main run's bundle first: combine-bundles MAIN EXPIRY",
    );
  else if (missing.length > 0)
    problems.push(`the expiry job did not run ${missing.join(', ')} (run it with --suite expiry)`);
  else if (unproven.length > 0) {
    // Its checks skipped or in error prove no more than the main run's: the combination would certify nothing new.
    const first = expiry.report.checks.find((c) => c.id === unproven[0]);
    const why = first
      ? `${first.id} ${first.status}${first.message !== undefined ? `: ${oneLine(printable(first.message), 100)}` : ''}`
      : 'not run';
    problems.push(
      `the expiry part did not carry out ${unproven.join(', ')} (${why}): it does not prove expiry; give an expiry job's bundle second (run --suite expiry --max-expiry-wait N)`,
    );
  }
  const times = [main.report.startedAt, main.report.finishedAt, expiry.report.startedAt, expiry.report.finishedAt].map(
    time,
  );
  if (times.some((t) => t === undefined)) problems.push('a run records a start or end time that is not a date');
  else {
    const known = times as number[];
    const apart = Math.max(...known) - Math.min(...known);
    if (apart > MAX_APART_MS)
      problems.push(
        `the two runs span ${(apart / 3_600_000).toFixed(1)} h from the first start to the last end, more than ${MAX_APART_MS / 3_600_000} h: the deployment may have changed between them`,
      );
  }
  return problems;
}

/** `combine-bundles MAIN EXPIRY --output DIR --sign-key KEY [--public-key KEY | --trusted-keys FILE]`. */
