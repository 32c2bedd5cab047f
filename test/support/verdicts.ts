import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CheckStatus, RunReport } from '../../src/model/run-report.js';
import { startReferenceServer, type ReferenceOptions } from '../../src/reference/index.js';
import { startChaosProxy, type ChaosProxyOptions } from './chaos-proxy.js';
import { runMain, targetArgs, tempDir } from './harness.js';

/**
 * Runs the harness in-process against a reference server, optionally through the chaos proxy,
 * and reduces the run to its verdicts (check id → status, and the exit code), so that runs under
 * different network conditions can be compared and their differences described.
 */

export interface Verdict {
  status: string;
  message?: string;
}

export interface Outcome {
  code: number;
  verdicts: Map<string, Verdict>;
  elapsedMs: number;
  /** The proxy's counters, when the run went through it. */
  proxy?: { connections: number; idleCloses: number; lateChunks: number };
  /** Requests the reference server received. */
  requests: number;
  tokensIssued: number;
  /** Exchanges that broke at the transport level, as `METHOD path: error` (deduplicated). */
  transportErrors: string[];
  stderr: string;
}

export interface Scenario {
  server?: ReferenceOptions;
  /** Put the chaos proxy between the harness and the server. */
  proxy?: Omit<ChaosProxyOptions, 'upstream'>;
  args?: readonly string[];
}

export async function runScenario(scenario: Scenario): Promise<Outcome> {
  const server = await startReferenceServer(scenario.server ?? {});
  const proxy = scenario.proxy ? await startChaosProxy({ upstream: server.url, ...scenario.proxy }) : undefined;
  const reportsDir = await tempDir();
  const previous = process.env.CARRIER_CLIENT_SECRET;
  process.env.CARRIER_CLIENT_SECRET = server.clientSecret;
  const started = performance.now();
  try {
    const target = targetArgs(server);
    if (proxy) target[target.indexOf('--base-url') + 1] = proxy.url;
    const result = await runMain([
      'run',
      ...target,
      '--reports-dir',
      reportsDir,
      '--reporter',
      'json',
      ...(scenario.args ?? []),
    ]);
    const elapsedMs = performance.now() - started;
    const report = JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
    const verdicts = new Map<string, Verdict>(
      report.checks.map((c) => [
        c.id,
        { status: c.status, ...(c.message !== undefined ? { message: c.message } : {}) },
      ]),
    );
    const transportErrors = new Set(
      report.checks.flatMap((c) =>
        c.exchanges
          .filter((e) => e.error !== undefined)
          .map((e) => `${e.request.method} ${new URL(e.request.url).pathname}: ${e.error ?? ''}`),
      ),
    );
    return {
      code: result.code,
      verdicts,
      elapsedMs,
      ...(proxy
        ? { proxy: { connections: proxy.connections, idleCloses: proxy.idleCloses, lateChunks: proxy.lateChunks } }
        : {}),
      requests: server.requestCount(),
      tokensIssued: server.tokensIssued(),
      transportErrors: [...transportErrors],
      stderr: result.stderr,
    };
  } finally {
    if (previous === undefined) delete process.env.CARRIER_CLIENT_SECRET;
    else process.env.CARRIER_CLIENT_SECRET = previous;
    await proxy?.close();
    await server.close();
  }
}

const line = (v: Verdict | undefined): string => (v ? `${v.status}${v.message ? ` (${v.message})` : ''}` : 'absent');

/**
 * The checks whose status differs between two runs, one line each with both statuses and
 * messages, and the exit codes if they differ; empty when the verdicts are identical.
 */
export function verdictDifferences(a: Outcome, b: Outcome, labels: [string, string]): string[] {
  const out: string[] = [];
  if (a.code !== b.code) out.push(`exit code: ${labels[0]} ${a.code}, ${labels[1]} ${b.code}`);
  for (const id of new Set([...a.verdicts.keys(), ...b.verdicts.keys()])) {
    const x = a.verdicts.get(id);
    const y = b.verdicts.get(id);
    if (x?.status !== y?.status) out.push(`${id}: ${labels[0]} ${line(x)}; ${labels[1]} ${line(y)}`);
  }
  return out;
}

/** Every check that did not pass (skips aside), with its message, and a non-zero exit code. */
export function notPassed(outcome: Outcome): string[] {
  const out = [...outcome.verdicts]
    .filter(([, v]) => v.status !== 'passed' && v.status !== 'skipped')
    .map(([id, v]) => `${id}: ${line(v)}`);
  if (outcome.code !== 0) out.unshift(`exit code ${outcome.code}`);
  return out;
}

/**
 * The expected status of each check. A list is for the rare check whose correct verdict depends
 * on evidence the harness is free to gather or not (which probe page it reads, say): the test
 * that uses one says why.
 */
export type ExpectedStatuses = Readonly<Record<string, CheckStatus | readonly CheckStatus[]>>;

/** The messages a check gave: its own and its findings', without repeats. */
export function reasonsOf(report: RunReport, id: string): string[] {
  const check = report.checks.find((c) => c.id === id);
  if (!check) return [];
  return [check.message, ...check.findings.map((f) => f.message)].filter(
    (m, i, all): m is string => m !== undefined && all.indexOf(m) === i,
  );
}

/** Each check whose status is not the expected one, with the run's reason. */
export function differences(expected: ExpectedStatuses, report: RunReport): string[] {
  const remaining = new Map(Object.entries(expected));
  const lines: string[] = [];
  for (const check of report.checks) {
    const want = remaining.get(check.id);
    remaining.delete(check.id);
    if (want === check.status || (Array.isArray(want) && want.includes(check.status))) continue;
    const why = reasonsOf(report, check.id);
    lines.push(
      `${check.id}: expected ${want === undefined ? 'absent' : [want].flat().join(' or ')}, got ${check.status}: ${why.slice(0, 3).join(' | ') || '(no message)'}`,
    );
  }
  for (const [id, status] of remaining)
    lines.push(`${id}: expected ${[status].flat().join(' or ')}, absent from the run`);
  return lines;
}
