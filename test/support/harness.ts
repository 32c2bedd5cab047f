import { spawn } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import type { RunReport } from '../../src/report/model.js';
import { startReferenceServer, type ReferenceOptions, type ReferenceServer } from '../../src/reference/index.js';

/**
 * Test support: arrange a reference server (clean, with faults, with variants), run the harness
 * against it, and read the verdict. `runMain` runs the CLI in-process (yargs and all, without
 * the process start-up); `runBin` spawns the real executable.
 */

export const BIN = new URL('../../bin/carrier-conformance.js', import.meta.url).pathname;

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface HarnessResult extends CliResult {
  report: RunReport;
  reportsDir: string;
}

export async function tempDir(prefix = 'carrier-test-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/** Runs `carrier-conformance <args>` in this process. */
export async function runMain(args: readonly string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { out: (t) => void (stdout += t), err: (t) => void (stderr += t.endsWith('\n') ? t : `${t}\n`), color: false });
  return { code, stdout, stderr };
}

/** The arguments that point the harness at a reference server and its API (its OpenAPI document). */
export function targetArgs(server: ReferenceServer): string[] {
  return ['--base-url', server.url, '--client-id', server.clientId, '--openapi', server.openapiFile, '--foreign-tenant-id', server.foreignTenantId];
}

/** The arguments that point the harness at a reference server, with only these lists (no OpenAPI document). */
export function listArgs(server: ReferenceServer, lists: readonly string[]): string[] {
  return ['--base-url', server.url, '--client-id', server.clientId, ...lists.flatMap((p) => ['--paged-path', p]), '--foreign-tenant-id', server.foreignTenantId];
}

/**
 * Starts a reference server with `options`, runs the harness against it in-process with `args`
 * (the client secret comes from the environment, as the README recommends), and returns the
 * verdict with the JSON report.
 */
export async function runAgainst(options: ReferenceOptions, args: readonly string[] = []): Promise<HarnessResult> {
  const server = await startReferenceServer(options);
  const reportsDir = await tempDir();
  const previous = process.env.CARRIER_CLIENT_SECRET;
  process.env.CARRIER_CLIENT_SECRET = server.clientSecret;
  try {
    const result = await runMain(['run', ...targetArgs(server), '--reports-dir', reportsDir, ...args]);
    const report = JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
    return { ...result, report, reportsDir };
  } finally {
    if (previous === undefined) delete process.env.CARRIER_CLIENT_SECRET;
    else process.env.CARRIER_CLIENT_SECRET = previous;
    await server.close();
  }
}

/** Spawns the real executable; kills it after `timeoutMs`. */
export function runBin(args: readonly string[], options: { env?: Record<string, string | undefined>; timeoutMs?: number; cwd?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, NO_COLOR: '1', ...options.env }, cwd: options.cwd ?? process.cwd() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

/** The status of check `id` in a report. */
export function statusOf(report: RunReport, id: string): string | undefined {
  return report.checks.find((c) => c.id === id)?.status;
}

/** Every suite but expiry, for runs that need not wait for a token to expire. */
export const WITHOUT_EXPIRY = ['token', 'auth', 'versioning', 'user', 'legacy', 'tenant', 'pagination', 'nulls', 'resources'].flatMap((s) => ['--suite', s]);
