import { randomBytes, randomUUID } from 'node:crypto';
import type { TestSpecification } from 'vitest/node';
import { SUITES, selectChecks, suiteFile, type Check } from '../catalogue/index.js';
import type { BatteryContext } from '../battery/context.js';
import { PROVIDE_KEY } from '../battery/context.js';
import { loadExpectations, type Expectations, type RunOptions } from '../config.js';
import { HarnessExit, RunAbortedError, UsageError } from '../errors.js';
import { HttpClient } from '../http/client.js';
import { redactor } from '../redact.js';
import { startReferenceServer, type ReferenceServer } from '../reference/index.js';
import { renderConsoleSummary } from '../report/console.js';
import { countStatuses, type RunReport } from '../report/model.js';
import { writeReports } from '../report/write.js';
import { PACKAGE_ROOT, TOOL_NAME, TOOL_VERSION } from '../version.js';
import { CheckCollector, type Collected } from './collector.js';
import { preflight } from './preflight.js';
import { checkResult, suiteCounts, verdictOf } from './results.js';

/**
 * One run of the battery: resolve the target (the embedded reference server when no base URL is
 * given), preflight it, run the selected suites with Vitest, and turn what they found into the
 * report, the console summary and the exit code.
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

interface ResolvedTarget {
  baseUrl: string;
  authUrl: string;
  embedded: boolean;
  clientId: string;
  clientSecret: string;
  pagedPaths: string[];
  foreignTenantId: string;
  expectations?: Expectations;
  reference?: ReferenceServer;
}

/** A secret for the embedded server that exercises RFC 6749 §2.3.1 encoding on every run. */
function embeddedSecret(): string {
  return `${randomBytes(12).toString('base64url')} +%:&=é`;
}

async function resolveTarget(options: RunOptions, io: RunIO): Promise<ResolvedTarget> {
  const expectations = options.expectations === undefined ? undefined : loadExpectations(options.expectations);
  if (options.baseUrl === undefined) {
    if (options.authUrl !== undefined) throw new UsageError('--auth-url needs --base-url: without a base URL the embedded reference server is used');
    if (options.clientId !== undefined || options.clientSecret !== undefined) io.err('note: ignoring the given client credentials: the embedded reference server has its own');
    const reference = await startReferenceServer({ clientSecret: embeddedSecret() });
    io.out(`No --base-url given: started the embedded reference server at ${reference.url}\n`);
    return {
      baseUrl: reference.url,
      authUrl: reference.url,
      embedded: true,
      clientId: reference.clientId,
      clientSecret: reference.clientSecret,
      pagedPaths: options.pagedPath.length > 0 ? options.pagedPath : reference.pagedPaths,
      foreignTenantId: options.foreignTenantId ?? reference.foreignTenantId,
      // The reference server's own data, as the user would write it in an --expectations file.
      expectations: expectations ?? (structuredClone(reference.expectations) as unknown as Expectations),
      reference,
    };
  }
  if (options.clientId === undefined) throw new UsageError('--client-id is missing: give the API client id (or set CARRIER_CLIENT_ID)');
  if (options.clientSecret === undefined) throw new UsageError('--client-secret is missing: set CARRIER_CLIENT_SECRET (preferred over the command line, which other users can see)');
  return {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    authUrl: (options.authUrl ?? options.baseUrl).replace(/\/+$/, ''),
    embedded: false,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    pagedPaths: options.pagedPath,
    foreignTenantId: options.foreignTenantId ?? randomUUID(),
    ...(expectations ? { expectations } : {}),
  };
}

/** Orders suite files for the workers: expiry first (its wait overlaps the rest), then catalogue order. */
class ExpiryFirstSequencer {
  shard(files: TestSpecification[]): TestSpecification[] {
    return files;
  }
  sort(files: TestSpecification[]): TestSpecification[] {
    const rank = (f: TestSpecification): number => {
      const suite = SUITES.findIndex((s) => f.moduleId.endsWith(suiteFile(s)));
      return suite === SUITES.indexOf('expiry') ? -1 : suite;
    };
    return [...files].sort((a, b) => rank(a) - rank(b));
  }
}

/** Runs the Vitest suites of the selected checks; returns what the collector saw. */
async function runBattery(context: BatteryContext, checks: readonly Check[]): Promise<CheckCollector> {
  const { createVitest } = await import('vitest/node');
  const files = SUITES.filter((s) => checks.some((c) => c.suite === s)).map(suiteFile);
  const collector = new CheckCollector();
  const vitest = await createVitest(
    'test',
    {
      root: PACKAGE_ROOT,
      config: false,
      include: files,
      watch: false,
      reporters: [collector],
      pool: 'threads',
      // One worker with a shared module cache runs every suite but expiry: the suites share one
      // token, one keep-alive pool and one page walk per list. The expiry suite, which mostly
      // waits for a token to expire, gets a worker of its own and is started first.
      isolate: false,
      maxWorkers: files.includes(suiteFile('expiry')) && files.length > 1 ? 2 : 1,
      sequence: { sequencer: ExpiryFirstSequencer },
      maxConcurrency: 16,
      // The battery's own console output (none expected) must not mix into the summary.
      silent: true,
    },
    { server: { watch: null } },
  );
  // Vitest sets process.exitCode when tests fail; the exit code is the harness's to decide.
  const exitCode = process.exitCode;
  try {
    vitest.provide(PROVIDE_KEY, context);
    await vitest.start();
  } finally {
    await vitest.close();
    process.exitCode = exitCode;
  }
  return collector;
}

export async function runConformance(options: RunOptions, io: RunIO): Promise<RunOutcome> {
  const started = new Date();
  const checks = selectChecks(options.suite, options.check);
  const target = await resolveTarget(options, io);
  redactor.addClientCredentials(target.clientId, target.clientSecret);
  const http = new HttpClient({
    timeoutMs: options.timeout,
    maxBodyBytes: options.maxBodyBytes,
    recordBodyChars: 4096,
    credentialOrigins: [...new Set([new URL(target.baseUrl).origin, new URL(target.authUrl).origin])],
    redactor,
    userAgent: `${TOOL_NAME}/${TOOL_VERSION}`,
  });
  let incompleteReason: string | undefined;
  let collector: CheckCollector | undefined;
  let tenantId = options.tenantId;
  try {
    const pre = await preflight(http, target, { clientId: target.clientId, clientSecret: target.clientSecret }, redactor, options.tenantId);
    tenantId = pre.tenantId;
    const context: BatteryContext = {
      target: { baseUrl: target.baseUrl, authUrl: target.authUrl, embedded: target.embedded },
      credentials: { clientId: target.clientId, clientSecret: target.clientSecret },
      ...(pre.tenantId ? { tenantId: pre.tenantId } : {}),
      ...(pre.tenantProblem ? { tenantProblem: pre.tenantProblem } : {}),
      foreignTenantId: target.foreignTenantId,
      pagedPaths: target.pagedPaths,
      ...(target.expectations ? { expectations: target.expectations } : {}),
      selected: checks.map((c) => c.id),
      timeoutMs: options.timeout,
      maxBodyBytes: options.maxBodyBytes,
      maxExpiryWaitSeconds: options.maxExpiryWait,
      expiryMarginSeconds: options.expiryMargin,
      ...(options.pageSize ? { pageSize: options.pageSize } : {}),
      concurrency: options.concurrency,
      userAgent: `${TOOL_NAME}/${TOOL_VERSION}`,
      ...(pre.sharedToken ? { sharedToken: pre.sharedToken } : {}),
      ...(pre.sharedTokenProblem ? { sharedTokenProblem: pre.sharedTokenProblem } : {}),
    };
    if (pre.sharedTokenProblem) io.err(`warning: ${pre.sharedTokenProblem}; the checks that need a token will report errors`);
    collector = await runBattery(context, checks);
    if (collector.collected.unhandledErrors.length > 0) incompleteReason = `the battery hit an unexpected error: ${collector.collected.unhandledErrors.join('; ')}`;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    incompleteReason = err instanceof HarnessExit ? err.message : `the battery could not be run: ${err instanceof Error ? err.message : String(err)}`;
  } finally {
    await http.close();
    await target.reference?.close();
  }

  const collected: Collected = collector?.collected ?? { tests: new Map(), moduleErrors: new Map(), unhandledErrors: [] };
  const results = checks.map((check) => {
    const result = checkResult(check, collected.tests.get(check.id), collected, options.strict);
    return incompleteReason !== undefined && !collected.tests.has(check.id) ? { ...result, status: 'error' as const, message: `not run: ${incompleteReason}` } : result;
  });
  const { verdict, exitCode } = verdictOf(results, options.strict, incompleteReason);
  const finished = new Date();
  const report: RunReport = {
    tool: { name: TOOL_NAME, version: TOOL_VERSION },
    target: { baseUrl: target.baseUrl, authUrl: target.authUrl, embedded: target.embedded, ...(tenantId ? { tenantId } : {}), pagedPaths: target.pagedPaths },
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    durationMs: finished.getTime() - started.getTime(),
    strict: options.strict,
    verdict,
    ...(incompleteReason !== undefined ? { incompleteReason: redactor.redact(incompleteReason) } : {}),
    exitCode,
    counts: countStatuses(results),
    suites: suiteCounts(results),
    checks: results,
  };
  const written = await writeReportsOrExplain(report, options.reportsDir);
  io.out(renderConsoleSummary(report, { color: io.color }));
  io.out(`Reports: ${written.join(', ')}\n`);
  if (incompleteReason !== undefined) io.err(`error: ${report.incompleteReason ?? incompleteReason}`);
  return { report, exitCode, written };
}

async function writeReportsOrExplain(report: RunReport, dir: string): Promise<string[]> {
  try {
    return await writeReports(report, dir, ['junit', 'json']);
  } catch (err) {
    throw new RunAbortedError(`cannot write the reports to ${dir}: ${(err as Error).message}`);
  }
}
