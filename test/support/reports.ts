import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CHECKS, getCheck } from '../../src/catalogue/index.js';
import { currentCatalogue } from '../../src/catalogue/digest.js';
import { countStatuses, type CheckResult, type CheckStatus, type RunReport } from '../../src/model/run-report.js';
import { suiteCounts, verdictOf } from '../../src/report/verdict.js';

/**
 * Hand-made report.json contents for the diff, matrix and bundle tests: real catalogue entries
 * with chosen statuses, so that a test states exactly the situation it judges.
 */

export type Outcome = CheckStatus | [CheckStatus, string];

function result(id: string, outcome: Outcome): CheckResult {
  const check = getCheck(id);
  const [status, message] = Array.isArray(outcome)
    ? outcome
    : [outcome, outcome === 'passed' ? undefined : `${id} ${outcome}`];
  return {
    id,
    suite: check.suite,
    level: check.level,
    title: check.title,
    refs: check.refs,
    status,
    ...(message !== undefined ? { message } : {}),
    findings:
      status === 'failed' || status === 'warning'
        ? [{ kind: 'failure', message: message ?? '' }]
        : status === 'error'
          ? [{ kind: 'error', message: message ?? '' }]
          : [],
    notes: [],
    exchanges: [],
    durationMs: 1,
  };
}

/** A report of the given checks only (a subset run). */
export function reportOf(outcomes: Readonly<Record<string, Outcome>>, over: Partial<RunReport> = {}): RunReport {
  const checks = Object.entries(outcomes).map(([id, o]) => result(id, o));
  const strict = over.strict ?? false;
  const { verdict, exitCode } = verdictOf(checks, { strict }, undefined);
  return {
    tool: { name: 'carrier-conformance', version: '0.1.0' },
    target: {
      baseUrl: 'https://api.example.test',
      authUrl: 'https://api.example.test',
      embedded: false,
      pagedPaths: ['shipments'],
      credentialsFormEncoded: false,
      name: 'example',
    },
    catalogue: currentCatalogue(),
    startedAt: '2026-11-20T10:00:00.000Z',
    finishedAt: '2026-11-20T10:00:05.000Z',
    durationMs: 5000,
    strict,
    verdict,
    exitCode,
    counts: countStatuses(checks),
    suites: suiteCounts(checks),
    checks,
    ...over,
  };
}

/** A full run: every check of the catalogue passed, except those given. */
export function fullReport(outcomes: Readonly<Record<string, Outcome>> = {}, over: Partial<RunReport> = {}): RunReport {
  return reportOf(Object.fromEntries(CHECKS.map((c) => [c.id, outcomes[c.id] ?? 'passed'])), over);
}

export async function writeReport(dir: string, name: string, report: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, `${JSON.stringify(report, null, 2)}\n`);
  return path;
}

/**
 * An --expectations file with the reference server's own data, so that a run against a reference
 * server by URL runs every check (USER-EXPECTED-VALUES included), as a certification run would.
 */
export async function referenceExpectations(dir: string): Promise<string> {
  const { startReferenceServer } = await import('../../src/reference/index.js');
  const server = await startReferenceServer();
  try {
    const path = join(dir, 'expectations.json');
    await writeFile(path, JSON.stringify(server.expectations));
    return path;
  } finally {
    await server.close();
  }
}
