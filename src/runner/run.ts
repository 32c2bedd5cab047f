import { constants as fsConstants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { BundlePlan } from '../bundle/write.js';
import type { AppliedProfile } from '../certification/apply.js';
import { selectChecks, type Check } from '../catalogue/index.js';
import { currentCatalogue } from '../catalogue/digest.js';
import { parameterValues, reportersOf, type RunOptions } from '../config/options.js';
import { HarnessExit, RunAbortedError, UsageError } from '../core/errors.js';
import { needsFormEncoding, type BasicEncoding } from '../core/basic-credentials.js';
import type { HttpClient, HttpResponse } from '../http/client.js';
import { clientOptions, type HttpSettings } from '../http/settings.js';
import { MAX_IN_FLIGHT } from '../http/limit.js';
import { headerFields } from '../http/extra-headers.js';
import { redactStrings, redactor } from '../core/redact.js';
import { countStatuses, type CheckResult, type RunReport, type Scope } from '../model/run-report.js';
import { hostOf } from '../report/target-name.js';
import { mark } from '../core/startup-timing.js';
import { enforceComplete, isBlocking, suiteCounts, verdictLine, verdictOf } from '../report/verdict.js';
import { shellWord } from '../report/reproduce.js';
import { oneLine, printable } from '../core/wording.js';
import { TOOL_NAME, TOOL_VERSION } from '../core/version.js';
import {
  applyBaseline,
  expiredEntries,
  failedChecksOf,
  loadBaseline,
  staleEntries,
  type Baseline,
} from './baseline.js';
import type { Collected, CollectedTest } from './collector.js';
import { checkResult, teamCheckResult } from './results.js';
import type { TeamModule } from '../model/team-checks.js';
import { ExitCode } from '../core/exit-codes.js';
import { describeApi, readApiEarly, unusedExpectations, unusedParameters } from './api.js';
import { checkRequireComplete, nothingCheckedReason, scopeOf, skippedByReason } from './scope.js';
import { openTarget, planTarget, type ResolvedTarget } from './target.js';
import { foldIntoCause, userCause, type FoundCause } from './preflight-cause.js';
import {
  describeEndpoints,
  type ApiDescription,
  type EndpointSpec,
  type QueryParameterSpec,
} from '../carrier/endpoint-specs.js';
import { startBattery } from './vitest-run.js';
import type { Isolation, PassedResponse } from '../battery/wiring.js';
import type { Preflight } from './preflight.js';
import { timedAnswers, timeoutNote, type TimedAnswer } from './timeout-note.js';
import { reportExpiryWait } from './expiry-progress.js';
import { ExchangeLog } from '../http/exchange-log.js';
import { checksByExchange, type RunExchanges } from '../report/exchanges.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';

/**
 * One run of the battery: resolve the target, preflight it, run the selected suites, and turn
 * what they found into the report, the console summary and the exit code. Whatever happens —
 * failures, an unreachable target, Ctrl-C, the --deadline — a report is written.
 */

export interface RunIO {
  out: (text: string) => void;
  err: (text: string) => void;
  color: boolean;
}

export interface RunOutcome {
  report: RunReport;
  exitCode: number;
  written: string[];
}

/** What a run does besides its reports (issue 11): compare with an earlier run, write a bundle. */
interface Extras {
  previous?: { report: RunReport; path: string };
  bundle?: BundlePlan;
}

/** Reads --compare-with and checks --bundle/--sign-key before the run: a bad file costs no run. */
async function prepareExtras(options: RunOptions, profile: AppliedProfile | undefined): Promise<Extras> {
  const previous =
    options.compareWith === undefined
      ? undefined
      : (await import('../compare/command.js')).loadPrevious(options.compareWith);
  const bundle =
    options.bundle === undefined && options.signKey === undefined
      ? undefined
      : await (await import('../bundle/write.js')).prepareBundle(options, profile);
  return { ...(previous ? { previous } : {}), ...(bundle ? { bundle } : {}) };
}

/** The target's name in matrices, badges and bundles: --target-name, else the base URL's host. */
function targetLabels(
  options: RunOptions,
  baseUrl: string,
): Pick<RunReport['target'], 'name' | 'version' | 'operator'> {
  return {
    name: options.targetName ?? hostOf(baseUrl),
    ...(options.targetVersion !== undefined ? { version: options.targetVersion } : {}),
    ...(options.operator !== undefined ? { operator: options.operator } : {}),
  };
}

/** The checks to run: the selection, or with --rerun-failed those of it that did not pass last time. */
function selectionOf(options: RunOptions): { checks: Check[]; rerunOf?: string } {
  const selected = selectChecks(options.suite, options.check);
  if (options.rerunFailed === undefined) return { checks: selected };
  const file = options.rerunFailed === '' ? join(options.reportsDir, 'report.json') : options.rerunFailed;
  const failed = new Set(failedChecksOf(file));
  return { checks: selected.filter((c) => failed.has(c.id)), rerunOf: file };
}

/**
 * Fails early, with exit 2, when the reports cannot be written: before the run, not after it. The
 * directory is not created here (a run refused for bad input must leave nothing behind): the
 * nearest existing directory on its path must be writable, and writing the reports creates it.
 */
async function ensureWritableDir(dir: string): Promise<void> {
  let path = resolve(dir);
  try {
    for (;;) {
      const info = await stat(path).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT' && dirname(path) !== path) return undefined;
        throw err;
      });
      if (info) {
        if (!info.isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
        await access(path, fsConstants.W_OK);
        return;
      }
      path = dirname(path);
    }
  } catch (err) {
    const code = (err as { code?: string }).code ?? (err as Error).message;
    throw new UsageError(`--reports-dir ${dir}: cannot write reports there (${code}); choose a writable directory`);
  }
}

function httpSettingsOf(options: RunOptions, target: ResolvedTarget): HttpSettings {
  return {
    timeoutMs: options.timeout,
    maxBodyBytes: options.maxBodyBytes,
    maxRetries: options.maxRetries,
    maxRetryWaitMs: options.maxRetryWait * 1000,
    tls: target.tls,
    userAgent: `${TOOL_NAME}/${TOOL_VERSION}`,
    baseUrl: target.baseUrl,
    authUrl: target.authUrl,
    maxInFlight: Math.max(MAX_IN_FLIGHT, options.concurrency ?? 0),
    ...(options.header.length > 0 ? { headers: headerFields(options.header) } : {}),
    ...(options.verbose ? { verbose: true } : {}),
  };
}

/**
 * Stops the run when `external` aborts (Ctrl-C, SIGTERM) or the deadline passes; the reason
 * becomes the report's `incompleteReason`.
 */
function stopper(
  external: AbortSignal | undefined,
  deadlineSeconds: number,
): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const stop = (reason: string): void => {
    if (!controller.signal.aborted) controller.abort(reason);
  };
  const onExternal = (): void =>
    stop(typeof external?.reason === 'string' ? external.reason : 'the run was interrupted');
  if (external?.aborted) onExternal();
  external?.addEventListener('abort', onExternal, { once: true });
  const timer = setTimeout(
    () => stop(`the run exceeded its --deadline of ${deadlineSeconds} s`),
    deadlineSeconds * 1000,
  );
  timer.unref();
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(timer);
      external?.removeEventListener('abort', onExternal);
    },
  };
}

/** `profile`: the certification profile `run --profile` applied (src/certification/apply.ts), recorded in the bundle. */
export async function runConformance(
  options: RunOptions,
  io: RunIO,
  interrupt?: AbortSignal,
  profile?: AppliedProfile,
): Promise<RunOutcome> {
  mark('run: options parsed');
  const started = new Date();
  // Every usage error before anything is started or written.
  checkRequireComplete(options);
  const { checks, rerunOf } = selectionOf(options);
  const baseline = options.baseline === undefined ? undefined : loadBaseline(options.baseline);
  const plan = planTarget(options);
  await ensureWritableDir(options.reportsDir);
  const extras = await prepareExtras(options, profile);
  // The team's own checks, loaded and checked now: a module that cannot run is exit 2, before the run.
  const team = options.teamChecks.length === 0 ? [] : await loadTeamModules(options, interrupt);
  if (checks.length === 0) return nothingToRun(options, io, started, rerunOf, extras);
  // The document is read on another core while this thread starts Vitest (src/runner/api.ts).
  // The run's stopper stops that reading too (its thread is terminated), and so does the run's
  // end: a document still being read then is of no use (issue 28).
  const documentStop = new AbortController();
  const early = readApiEarly(options, documentStop.signal);

  // Every exchange of the run is kept as evidence (issue 39): the runner's and each worker's, in a
  // log directory of the run's own, read back when the reports are written, then removed.
  const logDir = await mkdtemp(join(tmpdir(), 'carrier-exchanges-'));
  const runnerLog = new ExchangeLog(logDir, 'runner');
  try {
    return await runWithLog(
      options,
      io,
      interrupt,
      { checks, rerunOf, baseline, plan, extras, early, documentStop, started, team },
      logDir,
      runnerLog,
    );
  } finally {
    runnerLog.close();
    await rm(logDir, { recursive: true, force: true });
  }
}

/** The --team-checks modules, loaded within the run's --deadline and stopped by Ctrl-C as every phase is. */
async function loadTeamModules(options: RunOptions, interrupt: AbortSignal | undefined): Promise<TeamModule[]> {
  const { loadTeamChecks } = await import('../config/team-checks.js');
  const { signal, dispose } = stopper(interrupt, options.deadline);
  try {
    return await loadTeamChecks(options.teamChecks, signal);
  } finally {
    dispose();
  }
}

interface Prepared {
  checks: Check[];
  rerunOf: string | undefined;
  baseline: Baseline | undefined;
  plan: ReturnType<typeof planTarget>;
  extras: Extras;
  early: ReturnType<typeof readApiEarly>;
  documentStop: AbortController;
  started: Date;
  team: TeamModule[];
}

async function runWithLog(
  options: RunOptions,
  io: RunIO,
  interrupt: AbortSignal | undefined,
  prepared: Prepared,
  logDir: string,
  runnerLog: ExchangeLog,
): Promise<RunOutcome> {
  const { checks, rerunOf, baseline, plan, extras, early, documentStop, started, team } = prepared;
  // Vitest and its workers start now; they load the battery while the target is preflighted.
  // --verbose: the workers' lines come over the run's channel, to stderr like the preflight's.
  const battery = startBattery(checks, options.verbose ? (line) => io.err(line) : undefined, {
    team: team.length > 0,
  });
  // Vitest closes while the report is built and written: on every path, the run returns (or
  // throws) only once it has closed.
  try {
    const { signal, dispose } = stopper(interrupt, options.deadline);
    const stopBattery = (): void => battery.stop(String(signal.reason));
    const stopDocument = (): void => documentStop.abort(signal.reason);
    signal.addEventListener('abort', stopBattery, { once: true });
    signal.addEventListener('abort', stopDocument, { once: true });
    if (signal.aborted) stopDocument();
    let target: ResolvedTarget | undefined;
    let client: HttpClient | undefined;
    let incompleteReason: string | undefined;
    let configError: UsageError | undefined;
    let collected: Collected = { tests: new Map(), moduleErrors: new Map(), unhandledErrors: [] };
    let tenantId = options.tenantId;
    let isolation: Isolation = target0Isolation(options);
    let basicEncoding: BasicEncoding = 'form';
    let api: ApiDescription | undefined;
    /** What the preflight found wrong with GET /users/me: reported once, the checks it kept from running point at it. */
    let preflightCause: FoundCause | undefined;
    /** The checks were given their context: before that, a stop (unreachable, interrupted) is one line. */
    let batteryStarted = false;
    /** The preflight's answers and how long each took: a passed check records none of its own. */
    let preflightTimes: TimedAnswer[] = [];
    /** Stops the progress lines of a long expiry wait (src/runner/expiry-progress.ts). */
    let stopProgress = (): void => undefined;
    try {
      // Vitest's start (loading, then spawning its workers) is the longest chain of a run's start:
      // it goes first, and the rest of the start-up runs on this thread while the workers boot.
      await battery.started;
      target = await openTarget(plan, io.err);
      mark('run: target resolved');
      // The document is read while the preflight waits for the network.
      const described = describeApi(options, target, early, documentStop.signal);
      described.catch(() => undefined);
      if (target.tls.insecure)
        io.err(
          `warning: --insecure: TLS certificates of ${target.baseUrl} are NOT verified; anyone on the path can read the credentials. Use --ca-file for a private CA.`,
        );
      redactor.addClientCredentials(target.clientId, target.clientSecret);
      if (target.secondClient)
        redactor.addClientCredentials(target.secondClient.clientId, target.secondClient.clientSecret);
      const http = httpSettingsOf(options, target);
      // Loaded once Vitest is starting (undici and all): its workers start meanwhile.
      const [{ HttpClient }, { preflight, SECOND_CLIENT }] = await Promise.all([
        import('../http/client.js'),
        import('./preflight.js'),
      ]);
      client = new HttpClient({
        ...clientOptions(http, redactor, signal),
        clientCredentials: { clientId: target.clientId, clientSecret: target.clientSecret },
        exchangeLog: runnerLog,
        ...(options.verbose ? { verbose: (line: string) => io.err(line) } : {}),
      });
      const preflighted = preflight(
        client,
        target,
        { clientId: target.clientId, clientSecret: target.clientSecret },
        redactor,
        options.tenantId,
      );
      preflighted.catch(() => undefined);
      // The second client's credentials are tried beside the first's: refused, they are a usage error now, not a check's error later.
      const second = target.secondClient;
      const secondPreflighted = second
        ? preflight(
            client,
            target,
            { clientId: second.clientId, clientSecret: second.clientSecret },
            redactor,
            second.tenantId,
            SECOND_CLIENT,
          )
        : undefined;
      secondPreflighted?.catch(() => undefined);
      api = await described;
      if (api.file !== undefined)
        io.out(
          `${api.file}: ${describeEndpoints(api.endpoints, api.operations, { operations: api.writes ?? [], probed: options.writeProbes !== 'none' })}\n`,
        );
      for (const line of unusedParameters(api.endpoints, parameterValues(options))) io.err(`warning: ${line}`);
      // Only RESOURCE-EXPECTED-VALUES compares a resource's known data: a run without it has nothing to warn of.
      if (checks.some((c) => c.id === 'RESOURCE-EXPECTED-VALUES'))
        for (const line of unusedExpectations(api.endpoints, target.expectations)) io.err(`warning: ${line}`);
      if (target.embedded) io.out(`Testing the embedded reference server, started at ${target.baseUrl}\n`);
      const pre = await preflighted;
      const secondPre = await secondPreflighted;
      preflightTimes = timedAnswers(pre.answers);
      tenantId = pre.tenantId;
      isolation = isolationOf(target, pre.tenantId, secondPre);
      basicEncoding = pre.encoding;
      preflightCause = userCause({
        ...(pre.answers.user
          ? {
              answer: {
                url: pre.answers.user.url,
                status: pre.answers.user.status,
                ...(pre.answers.user.evidence ? { record: pre.answers.user.evidence.record } : {}),
              },
            }
          : {}),
        ...(pre.tenantProblem !== undefined ? { tenantProblem: pre.tenantProblem } : {}),
      });
      mark('run: preflight done');
      if (pre.basicRefused !== undefined) {
        io.err(
          `warning: the token endpoint refused the client credentials in HTTP Basic (${pre.basicRefused}) and issued a token for the same credentials in the form body (client_secret_post, RFC 6749 §2.3.1): the run goes on with client_secret_post so that the rest of the battery is judged; TOKEN-ISSUE fails (spec §Obtain an access token: HTTP Basic)`,
        );
        // The run's own token requests (the shared token's renewals) go the way that works.
        target = { ...target, clientAuth: 'post' };
      } else if (target.clientAuth === 'post')
        io.err(
          `note: --client-auth post: the run's own token requests send the client credentials in the form body (client_secret_post, RFC 6749 §2.3.1: NOT RECOMMENDED), a deviation from the spec's HTTP Basic; the token checks still test HTTP Basic`,
        );
      if (pre.encoding === 'raw')
        io.err(
          'warning: the token endpoint refused the client credentials form-urlencoded as RFC 6749 §2.3.1 requires and accepted them as they are; the run uses them that way (see TOKEN-CREDENTIALS-ENCODING)',
        );
      if (pre.sharedTokenProblem)
        io.err(`warning: ${pre.sharedTokenProblem}; the checks that need a token will report errors`);
      battery.provide({
        target: {
          baseUrl: target.baseUrl,
          authUrl: target.authUrl,
          embedded: target.embedded,
          tokenParams: target.tokenParams,
          clientAuth: target.clientAuth,
        },
        credentials: { clientId: target.clientId, clientSecret: target.clientSecret, encoding: pre.encoding },
        ...(pre.tenantId ? { tenantId: pre.tenantId } : {}),
        ...(pre.tenantProblem ? { tenantProblem: pre.tenantProblem } : {}),
        isolation,
        unknownTenantId: target.unknownTenantId,
        endpoints: api.endpoints,
        writes: options.writeProbes === 'none' ? [] : (api.writes ?? []),
        ...(options.writeProbes === 'invalid-content' ? { writeProbes: 'invalid-content' as const } : {}),
        ...(api.document ? { openapi: api.document } : {}),
        ...(api.validators ? { openapiValidators: api.validators } : {}),
        parameters: parameterValues(options),
        ...(target.expectations ? { expectations: target.expectations } : {}),
        selected: checks.map((c) => c.id),
        ...(team.length > 0 ? { teamChecks: team } : {}),
        http,
        maxExpiryWaitSeconds: options.maxExpiryWait,
        expiryMarginSeconds: options.expiryMargin,
        ...(options.pageSize ? { pageSize: options.pageSize } : {}),
        ...(options.maxPages ? { maxPages: options.maxPages } : {}),
        ...(options.concurrency ? { concurrency: options.concurrency } : {}),
        ...(pre.sharedToken ? { sharedToken: pre.sharedToken } : {}),
        ...(pre.sharedTokenProblem ? { sharedTokenProblem: pre.sharedTokenProblem } : {}),
        // `token` answers the spec's request (HTTP Basic); `tokenPost` the same credentials in the form body, when the run goes with that.
        preflight: {
          ...passed('token', pre.answers.token),
          ...passed('tokenPost', pre.answers.tokenPost),
          ...passed('user', pre.answers.user),
        },
        secrets: redactor.secrets(),
        exchangeLogDir: logDir,
      });
      batteryStarted = true;
      // A long token lifetime waited out: a line at a steady pace, so that CI does not kill a silent job.
      if (pre.sharedToken) {
        const { receivedAt, expiresIn } = pre.sharedToken;
        stopProgress = reportExpiryWait(
          {
            receivedAt,
            expiresIn,
            maxExpiryWaitSeconds: options.maxExpiryWait,
            marginSeconds: options.expiryMargin,
            checks: checks.filter((c) => c.suite === 'expiry').map((c) => c.id),
          },
          (line) => io.err(line),
        );
      }
      // The report writers load while the checks run: not before, when this thread serves the
      // booting workers' module requests (Vitest's), nor after, when the run waits for them.
      void battery.checksStarted
        .then(() => import('../report/write.js'))
        .then((m) => m.loadWriters())
        .catch(() => undefined);
      collected = (await battery.done).collected;
      mark('run: battery done');
      if (collected.unhandledErrors.length > 0)
        incompleteReason = `the battery hit an unexpected error: ${collected.unhandledErrors.join('; ')}`;
    } catch (err) {
      battery.stop(err instanceof Error ? err.message : String(err));
      await battery.done.catch(() => undefined);
      // Bad options or files, found before the target was opened: one line, no report.
      if (err instanceof UsageError && !target) throw err;
      // A configuration error found once the target is open (refused credentials, a 404 at the
      // token endpoint, an unreadable --openapi document): exit 2 all the same, and its reports,
      // marked incomplete, replace the last run's (CI must not publish those).
      if (err instanceof UsageError) configError = err;
      incompleteReason =
        err instanceof HarnessExit
          ? err.message
          : `the battery could not be run: ${err instanceof Error ? err.message : String(err)}`;
    } finally {
      stopProgress();
      signal.removeEventListener('abort', stopBattery);
      signal.removeEventListener('abort', stopDocument);
      documentStop.abort('the run has ended');
      dispose();
      await client?.close();
      await target?.reference?.close();
    }
    if (signal.aborted) incompleteReason = String(signal.reason);
    if (!target) throw new RunAbortedError(incompleteReason ?? 'the target could not be opened');

    // Every string once more, with every secret any worker learned (a cookie, a token it was issued).
    const built = redactStrings(
      buildReport({
        options,
        target,
        api,
        tenantId,
        basicEncoding,
        checks,
        collected,
        baseline,
        incompleteReason,
        started,
        rerunOf,
        preflightCause,
        isolation,
        team,
      }),
    );
    const report = configError ? { ...built, exitCode: configError.exitCode } : built;
    runnerLog.flush();
    const exchanges: RunExchanges = {
      dir: logDir,
      checksOf: checksByExchange([...collected.tests.values()].flatMap((t) => (t.meta ? [t.meta] : []))),
    };
    const outcome = await finish(report, options, io, extras, !batteryStarted, exchanges);
    // Whatever the verdict: a run whose answers came close to --timeout passed by a narrow margin.
    const slow = timeoutNote(report, options.timeout, preflightTimes);
    if (slow !== undefined) io.err(`note: ${slow}`);
    mark('run: reports written');
    return outcome;
  } finally {
    await battery.closed;
  }
}

/** Before the target is open: the named foreign tenant, if any (the report says how isolation was proven). */
function target0Isolation(options: RunOptions): Isolation {
  return options.foreignTenantId !== undefined ? { foreignTenantId: options.foreignTenantId } : {};
}

/**
 * What TENANT-FOREIGN proves isolation with: the second client (its credentials, its tenant: the
 * one given, else the first its /users/me lists that is not the tenant under test) and the named
 * foreign tenant.
 */
function isolationOf(target: ResolvedTarget, tenantId: string | undefined, second: Preflight | undefined): Isolation {
  const foreign = target.foreignTenantId !== undefined ? { foreignTenantId: target.foreignTenantId } : {};
  if (!target.secondClient || !second) return foreign;
  const own = tenantId?.toLowerCase();
  const listed = second.tenants ?? [];
  const secondTenant = target.secondClient.tenantId ?? listed.find((t) => t !== own) ?? second.tenantId;
  return {
    ...foreign,
    secondClient: {
      credentials: {
        clientId: target.secondClient.clientId,
        clientSecret: target.secondClient.clientSecret,
        encoding: second.encoding,
      },
      ...(secondTenant !== undefined
        ? { tenantId: secondTenant }
        : { tenantProblem: second.tenantProblem ?? 'its /users/me lists no tenant with a UUID id' }),
      ...(second.tenants !== undefined ? { tenants: second.tenants } : {}),
      ...(second.sharedToken ? { token: second.sharedToken } : {}),
    },
  };
}

/** How the report records the isolation proof (report.json target.isolation, target.json). */
function isolationRecord(isolation: Isolation): NonNullable<RunReport['target']['isolation']> {
  const method =
    isolation.secondClient !== undefined
      ? 'second-client'
      : isolation.foreignTenantId !== undefined
        ? 'foreign-tenant'
        : 'none';
  return {
    method,
    ...(isolation.secondClient?.tenantId !== undefined ? { secondTenantId: isolation.secondClient.tenantId } : {}),
    ...(isolation.foreignTenantId !== undefined ? { foreignTenantId: isolation.foreignTenantId } : {}),
  };
}

/** A preflight answer as plain data for the workers (its exchange redacted here), keyed by `name`. */
function passed(
  name: 'token' | 'tokenPost' | 'user',
  res: HttpResponse | undefined,
): Partial<Record<'token' | 'tokenPost' | 'user', PassedResponse>> {
  if (!res?.evidence) return {};
  return {
    [name]: {
      url: res.url,
      status: res.status,
      headers: { ...res.headers } as Record<string, string[]>,
      text: res.text,
      receivedAt: res.receivedAt,
      record: res.evidence.record,
      ...(res.evidence.logId !== undefined ? { logId: res.evidence.logId } : {}),
    },
  };
}

interface ReportInputs {
  options: RunOptions;
  target: ResolvedTarget;
  api: ApiDescription | undefined;
  tenantId: string | undefined;
  basicEncoding: BasicEncoding;
  checks: readonly Check[];
  collected: Collected;
  baseline: Baseline | undefined;
  incompleteReason: string | undefined;
  started: Date;
  rerunOf: string | undefined;
  preflightCause?: FoundCause | undefined;
  isolation: Isolation;
  team?: readonly TeamModule[];
}

function buildReport({
  options,
  target,
  api,
  tenantId,
  basicEncoding,
  checks,
  collected,
  baseline,
  incompleteReason,
  started,
  rerunOf,
  preflightCause,
  isolation,
  team = [],
}: ReportInputs): RunReport {
  const checked = checks.map((check) => {
    const test = collected.tests.get(check.id);
    return notRunBy(incompleteReason, test, checkResult(check, test, collected, options.strict));
  });
  // The checks the preflight's cause kept from running point at it, which is reported once.
  const folded = preflightCause ? foldIntoCause(checked, preflightCause) : { results: checked };
  const cause = folded.cause
    ? {
        ...folded.cause,
        title: redactor.redact(folded.cause.title),
        ...(folded.cause.detail !== undefined ? { detail: redactor.redact(folded.cause.detail) } : {}),
      }
    : undefined;
  const skipped = skippedByReason(folded.results);
  const complete = enforceComplete(folded.results, options);
  const results = baseline ? applyBaseline(complete, baseline, started.toISOString().slice(0, 10)) : complete;
  const scope = scopeOf({ options, selected: checks, rerunOf, results, skipped });
  const report = assemble({
    options,
    target: { ...reportTarget(options, target, api, tenantId, basicEncoding), isolation: isolationRecord(isolation) },
    started,
    rerunOf,
    baseline,
    results,
    scope,
    incompleteReason,
    // The preflight's token request, and the renewals the checks made.
    sharedTokenRequests: 1 + (collected.sharedTokenRequests ?? 0),
    ...(cause ? { causes: [cause] } : {}),
  });
  // The document's lint findings go beside the checks, never into their counts, the verdict or
  // the exit code (issue 33): they are about the document, not the deployment.
  const withDocument = api?.lint
    ? {
        ...report,
        document: {
          ...api.lint,
          findings: api.lint.findings.map((f) => ({ ...f, message: redactor.redact(f.message) })),
        },
      }
    : report;
  // Review items, in catalogue order, then in the order of the endpoints and by field: the walks
  // end in any order, and a report that reorders between two runs of one target reads as a change.
  // Outside the verdict and the exit code too (src/model/run-report.ts).
  const endpointOrder = new Map((api?.endpoints ?? []).map((e, i) => [`GET /tenants/{tenantId}/${e.path}`, i]));
  const byEndpoint = (a: { endpoint?: string; field?: string }, b: { endpoint?: string; field?: string }): number =>
    (endpointOrder.get(a.endpoint ?? '') ?? Infinity) - (endpointOrder.get(b.endpoint ?? '') ?? Infinity) ||
    (a.endpoint ?? '').localeCompare(b.endpoint ?? '') ||
    (a.field ?? '').localeCompare(b.field ?? '');
  const review = checks.flatMap((check) => [...(collected.tests.get(check.id)?.meta?.review ?? [])].sort(byEndpoint));
  const withReview = review.length > 0 ? { ...withDocument, review } : withDocument;
  return team.length > 0
    ? withTeam(withReview, teamSection(team, collected, options.strict, incompleteReason))
    : withReview;
}

/**
 * A check the run's stop (`incompleteReason`) kept from running or finishing: not "skipped" but
 * not run, an error saying why. Vitest reports a test it cancelled as skipped; only a check that
 * skipped itself says why. The catalogue's checks and the team's alike.
 */
function notRunBy<R extends Pick<CheckResult, 'status' | 'message' | 'findings'>>(
  incompleteReason: string | undefined,
  test: CollectedTest | undefined,
  result: R,
): R {
  const notRun = !test || test.state === 'pending' || (test.state === 'skipped' && test.meta?.skipReason === undefined);
  if (incompleteReason === undefined || !notRun) return result;
  const message = `not run: ${incompleteReason}`;
  return { ...result, status: 'error', message, findings: [{ kind: 'error', message }] };
}

/** The team's checks as the report keeps them, apart from the spec's (src/model/run-report.ts `team`). */
function teamSection(
  modules: readonly TeamModule[],
  collected: Collected,
  strict: boolean,
  incompleteReason: string | undefined,
): NonNullable<RunReport['team']> {
  const results = modules.flatMap((m) =>
    m.checks.map((info) => {
      const test = collected.tests.get(info.id);
      return notRunBy(incompleteReason, test, teamCheckResult(info, m.file, test, collected, strict));
    }),
  );
  return {
    modules: modules.map((m) => m.file),
    passed: !results.some((r) => isBlocking(r, strict)),
    counts: countStatuses(results),
    checks: results,
  };
}

/**
 * The report with the team's section: the verdict stays the spec's; a team check that blocks
 * turns the exit code of a run the spec passed (0, or 5 for a two-job expiry proof's main job)
 * into 6 (ExitCode.TeamChecksFailed).
 */
function withTeam(report: RunReport, team: NonNullable<RunReport['team']>): RunReport {
  const passedBySpec = report.exitCode === ExitCode.Conformant || report.exitCode === ExitCode.ExpiryLeft;
  return { ...report, team, ...(team.passed || !passedBySpec ? {} : { exitCode: ExitCode.TeamChecksFailed }) };
}

/** A required parameter as the report shows it: a --parameter value is the operator's, not the document's: named, not repeated. */
function parameterOfReport(p: QueryParameterSpec): {
  name: string;
  value?: string;
  from?: NonNullable<QueryParameterSpec['from']>;
  problem?: string;
} {
  return {
    name: p.name,
    ...(p.value !== undefined && p.from !== 'parameter' ? { value: p.value } : {}),
    ...(p.from ? { from: p.from } : {}),
    ...(p.problem !== undefined ? { problem: p.problem } : {}),
  };
}

/** How the report names a tenant endpoint: what it is, and what the document left the run to fill or unjudged (src/openapi/endpoint-model.ts). */
function endpointOfReport(e: EndpointSpec): NonNullable<RunReport['target']['endpoints']>[number] {
  return {
    path: e.path,
    kind: e.kind,
    source: e.source,
    ...(e.listBy ? { listBy: e.listBy } : {}),
    ...(e.itemsProperty !== undefined ? { itemsProperty: e.itemsProperty } : {}),
    // A --parameter value is the operator's, not the document's: named, not repeated.
    ...(e.query ? { query: e.query.map(parameterOfReport) } : {}),
    ...(e.headers ? { headers: e.headers.map(parameterOfReport) } : {}),
    ...(e.schemaGap !== undefined ? { schemaGap: e.schemaGap } : {}),
    ...(e.uncertain !== undefined ? { uncertain: e.uncertain } : {}),
  };
}

/** The report's target: what was tested, and how a reproduction must reach it. */
function reportTarget(
  options: RunOptions,
  target: ResolvedTarget,
  api: ApiDescription | undefined,
  tenantId: string | undefined,
  basicEncoding: BasicEncoding,
): RunReport['target'] {
  return {
    baseUrl: target.baseUrl,
    authUrl: target.authUrl,
    embedded: target.embedded,
    ...(tenantId ? { tenantId } : {}),
    pagedPaths: api ? api.endpoints.filter((e) => e.kind === 'list').map((e) => e.path) : target.pagedPaths,
    ...(api ? { endpoints: api.endpoints.map(endpointOfReport) } : {}),
    ...(api?.operations !== undefined ? { operations: api.operations } : {}),
    ...(api?.file !== undefined ? { openapi: api.file } : {}),
    ...(api?.files !== undefined ? { openapiFiles: api.files } : {}),
    credentialsFormEncoded: needsFormEncoding(target.clientId, target.clientSecret),
    ...(basicEncoding === 'raw' ? { basicEncoding } : {}),
    // The deviation from the spec's HTTP Basic the run made (--client-auth post, or Basic refused and client_secret_post accepted).
    ...(target.clientAuth === 'post' ? { clientAuth: 'post' as const } : {}),
    // The TLS trust the requests were sent with, for the reports' curl commands.
    ...(options.caFile !== undefined ? { caFile: resolve(options.caFile) } : {}),
    ...(target.tls.insecure ? { insecure: true } : {}),
    // The margin the expiry checks allowed, for the reproduction of an expired token's wait.
    expiryMargin: options.expiryMargin,
    writeProbes: options.writeProbes,
    ...targetLabels(options, target.baseUrl),
  };
}

interface Assembly {
  options: RunOptions;
  target: RunReport['target'];
  started: Date;
  rerunOf: string | undefined;
  baseline: Baseline | undefined;
  results: CheckResult[];
  scope: Scope;
  incompleteReason: string | undefined;
  /** Token requests made for the shared token (preflight and renewals); absent when there was no run. */
  sharedTokenRequests?: number;
  /** The causes found before the checks ran (src/runner/preflight-cause.ts). */
  causes?: RunReport['causes'];
}

/** The report from the final results: verdict, exit code and the verdict's wording. */
function assemble({
  options,
  target,
  started,
  rerunOf,
  baseline,
  results,
  scope,
  incompleteReason,
  sharedTokenRequests,
  causes,
}: Assembly): RunReport {
  // A run that proved nothing has no verdict to give, whatever its options (src/runner/scope.ts).
  const blocking = results.some((r) => isBlocking(r, options.strict));
  const reason = incompleteReason ?? (blocking ? undefined : nothingCheckedReason(scope, results));
  const { verdict, exitCode } = verdictOf(results, options, reason, scope);
  const finished = new Date();
  const report: RunReport = {
    tool: { name: TOOL_NAME, version: TOOL_VERSION },
    target,
    catalogue: currentCatalogue(),
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    durationMs: finished.getTime() - started.getTime(),
    strict: options.strict,
    ...(baseline && options.baseline !== undefined
      ? {
          baseline: {
            file: options.baseline,
            entries: baseline.size,
            stale: staleEntries(results),
            ...(expiredEntries(results).length > 0 ? { expired: expiredEntries(results) } : {}),
            strict: options.strictBaseline,
          },
        }
      : {}),
    ...(rerunOf !== undefined ? { rerunOf } : {}),
    verdict,
    scope,
    ...(reason !== undefined ? { incompleteReason: redactor.redact(reason) } : {}),
    exitCode,
    ...(sharedTokenRequests !== undefined ? { stats: { sharedTokenRequests } } : {}),
    ...(causes !== undefined && causes.length > 0 ? { causes } : {}),
    counts: countStatuses(results),
    suites: suiteCounts(results),
    checks: results,
  };
  return { ...report, summary: verdictLine(report) };
}

/**
 * Writes the reports, then prints the summary and where the reports are. The console summary is
 * printed whatever happens to the files: a report that cannot be written ends the run with exit 3
 * after it, and a step summary that cannot be written is a warning (it is GitHub's file, and the
 * reports hold the same).
 */
async function finish(
  judged: RunReport,
  options: RunOptions,
  io: RunIO,
  extras: Extras,
  beforeBattery: boolean,
  exchanges?: RunExchanges,
): Promise<RunOutcome> {
  const [{ appendGithubSummary, REPORT_FORMATS, writeReports }, { renderConsoleSummary }] = await Promise.all([
    import('../report/write.js'),
    import('../report/console.js'),
  ]);
  const compare = extras.previous === undefined ? undefined : await import('../compare/command.js');
  const compared =
    extras.previous !== undefined && compare !== undefined ? compare.compareRun(extras.previous, judged) : undefined;
  const report = compared?.report ?? judged;
  const { reporters, named } = reportersOf(options.reporter);
  const formats = REPORT_FORMATS.filter((f) => reporters.includes(f));
  const warnings: string[] = [];
  let written: string[] = [];
  let failure: string | undefined;
  try {
    written = await writeReports(report, options.reportsDir, formats, exchanges);
  } catch (err) {
    failure = `cannot write the reports to ${options.reportsDir}: ${(err as Error).message}`;
  }
  if (reporters.includes('github-summary')) {
    const summary = process.env.GITHUB_STEP_SUMMARY;
    if (summary) {
      try {
        await appendGithubSummary(report, summary);
        written.push(summary);
      } catch (err) {
        warnings.push(
          `warning: cannot append the step summary to GITHUB_STEP_SUMMARY (${summary}): ${(err as Error).message}; the other reports hold the same`,
        );
      }
    } else if (named.includes('github-summary')) {
      warnings.push(
        'warning: --reporter github-summary: GITHUB_STEP_SUMMARY is not set (GitHub Actions sets it in every job), so no step summary was written',
      );
    }
  }
  let bundle: { dir: string; fingerprint?: string } | undefined;
  if (extras.bundle !== undefined && failure === undefined) {
    const { writeBundle } = await import('../bundle/write.js');
    bundle = await writeBundle(extras.bundle, report, options, exchanges).catch((err: unknown) => {
      throw new RunAbortedError(`cannot write the bundle to ${extras.bundle?.dir ?? ''}: ${(err as Error).message}`);
    });
  }
  // A run that stopped before any check began (an unreachable target, an interruption) is one
  // line: the cause and the fix. The reports keep the detail, and replace the last run's (a CI
  // job must not publish an earlier run's results): where they are is said either way.
  const where = (): void => {
    if (written.length > 0) io.out(`Reports: ${written.join(', ')}\n`);
  };
  if (beforeBattery && report.incompleteReason !== undefined) {
    io.err(`${TOOL_NAME}: ${report.incompleteReason}`);
    where();
  } else {
    io.out(renderConsoleSummary(report, { color: io.color }));
    if (compared !== undefined && compare !== undefined)
      await compare.publishDiff(compared.diff, io, { stepSummary: reporters.includes('github-summary') });
    where();
    if (bundle !== undefined) {
      io.out(
        `Bundle: ${bundle.dir} (${bundle.fingerprint !== undefined ? `signed, Ed25519 key ${bundle.fingerprint}` : 'not signed: --sign-key signs it'})\n`,
      );
      // The next step, as the platform will take it (issue 39 item 11).
      const profile = extras.bundle?.profile !== undefined ? ` --profile ${shellWord(extras.bundle.profile.file)}` : '';
      io.out(
        `  check it as the platform will: carrier-conformance verify-bundle ${shellWord(bundle.dir)} --public-key YOUR-PUBLIC-KEY.pem${profile}\n`,
      );
      // Under a profile, what the platform's verify-bundle will say, now rather than after the expiry job (issue 39 item 4).
      if (extras.bundle?.profile !== undefined) io.out(await bundleOutlook(bundle.dir, extras.bundle.profile.file));
    }
    if (
      (report.verdict === 'incomplete' || report.verdict === 'nothing-checked') &&
      report.incompleteReason !== undefined
    )
      io.err(`error: ${report.incompleteReason}`);
  }
  for (const warning of warnings) io.err(warning);
  if (failure !== undefined) throw new RunAbortedError(failure);
  return { report, exitCode: report.exitCode, written };
}

/** A run with no check to carry out (a rerun of a report where every check passed): no verdict. */
async function nothingToRun(
  options: RunOptions,
  io: RunIO,
  started: Date,
  rerunOf: string | undefined,
  extras: Extras,
): Promise<RunOutcome> {
  const notStarted = '(the embedded reference server, not started)';
  const report = assemble({
    options,
    target: {
      baseUrl: options.baseUrl ?? notStarted,
      authUrl: options.authUrl ?? options.baseUrl ?? notStarted,
      embedded: options.baseUrl === undefined,
      pagedPaths: options.pagedPath,
      credentialsFormEncoded: false,
      ...targetLabels(options, options.baseUrl ?? 'embedded reference server'),
    },
    started,
    rerunOf,
    baseline: undefined,
    results: [],
    scope: scopeOf({ options, selected: [], rerunOf, results: [], skipped: [] }),
    incompleteReason: undefined,
  });
  return finish(report, options, io, extras, false);
}

/**
 * "this bundle will verify under the profile", or will not and why: verify-bundle's own findings
 * on the bundle just written (the signer aside: the platform holds the key), at most three.
 */
async function bundleOutlook(dir: string, profileFile: string): Promise<string> {
  const [{ verifyBundle }, { loadProfile }, { withBundle }] = await Promise.all([
    import('../bundle/verify.js'),
    import('../certification/profile.js'),
    import('../bundle/archive.js'),
  ]);
  // An archive is judged as verify-bundle will read it: unpacked again.
  const fails = (
    await withBundle(dir, 'bundle', (unpacked) => verifyBundle(unpacked, undefined, loadProfile(profileFile)))
  ).findings.filter((x) => x.level === 'fail');
  if (fails.length === 0)
    return `  under the profile ${profileFile}: this bundle will verify (with the public key of the key that signed it)\n`;
  const shown = fails.slice(0, 3).map((x) => `    ${oneLine(printable(`${x.topic}: ${x.message}`), 300)}`);
  return `${[`  under the profile ${profileFile}: this bundle will NOT verify, because:`, ...shown, ...(fails.length > 3 ? [`    and ${fails.length - 3} more (verify-bundle lists them all)`] : [])].join('\n')}\n`;
}
