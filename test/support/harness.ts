import { SUITES } from '../../src/catalogue/index.js';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import { UsageError } from '../../src/core/errors.js';
import type { RunReport } from '../../src/model/run-report.js';
import { startReferenceServer, type ReferenceOptions, type ReferenceServer } from '../../src/reference/index.js';
import { onLoopback } from './loopback.js';

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

/** The message a promise rejects with, which must be a UsageError of one line (what the CLI prints and exits 2 on); anything else fails the test. */
export async function usageError(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof UsageError))
    throw new Error(`expected a UsageError, got ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  if (err.message.includes('\n')) throw new Error(`expected a one-line message, got: ${err.message}`);
  return err.message;
}

/** Runs `carrier-conformance <args>` in this process. */
export async function runMain(args: readonly string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    out: (t) => void (stdout += t),
    err: (t) => void (stderr += t.endsWith('\n') ? t : `${t}\n`),
    color: false,
  });
  return { code, stdout, stderr };
}

/** The arguments that point the harness at a reference server and its API (its OpenAPI document). */
export function targetArgs(server: ReferenceServer): string[] {
  return [
    '--base-url',
    server.url,
    '--client-id',
    server.clientId,
    '--openapi',
    server.openapiFile,
    '--foreign-tenant-id',
    server.foreignTenantId,
  ];
}

/** The arguments that point the harness at a reference server, with only these lists (no OpenAPI document). */
export function listArgs(server: ReferenceServer, lists: readonly string[]): string[] {
  return [
    '--base-url',
    server.url,
    '--client-id',
    server.clientId,
    ...lists.flatMap((p) => ['--paged-path', p]),
    '--foreign-tenant-id',
    server.foreignTenantId,
  ];
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

/** What a child process printed and how it ended; it is killed after `timeoutMs`. */
export function collect(
  child: ChildProcessWithoutNullStreams,
  timeoutMs: number,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Spawns the real executable; kills it after `timeoutMs`. */
export async function runBin(
  args: readonly string[],
  options: {
    env?: Record<string, string | undefined>;
    timeoutMs?: number;
    cwd?: string;
    nodeArgs?: readonly string[];
  } = {},
): Promise<CliResult> {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), BIN, ...args], {
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    cwd: options.cwd ?? process.cwd(),
  });
  const { code, stdout, stderr } = await collect(child, options.timeoutMs ?? 60_000);
  return { code: code ?? -1, stdout, stderr };
}

/** The status of check `id` in a report. */
export function statusOf(report: RunReport, id: string): string | undefined {
  return report.checks.find((c) => c.id === id)?.status;
}

/** Every suite but expiry, for runs that need not wait for a token to expire. */
export const SUITES_BUT_EXPIRY: readonly string[] = SUITES.filter((s) => s !== 'expiry');
/** The options that select them. */
export const WITHOUT_EXPIRY = SUITES_BUT_EXPIRY.flatMap((s) => ['--suite', s]);

/**
 * A directory holding an `npx` that does what npm's does for a package the project installed, and
 * only that: `npx [--no-install] NAME ARGS` runs the first `node_modules/.bin/NAME` found from the
 * working directory up; anything else is handed to the real npx. npm's own start-up costs about
 * 1.5 s of CPU per command, and the documentation tests run dozens of `npx carrier-conformance`
 * lines beside CPU-bound tests (CI's 900 s is CPU time on two cores). The real npx's lookup of an
 * installed package is proven where it matters, on the packed tarball (test/install.test.ts:
 * `realNpx`).
 */
let npxShim: Promise<string> | undefined;
export function npxShimDir(): Promise<string> {
  npxShim ??= (async () => {
    const dir = await tempDir('carrier-npx-');
    const script = `#!/bin/sh
# npx for an installed package (test/support/harness.ts, npxShimDir); anything else: the real npx.
real_npx() { PATH="\${PATH#${dir}:}" exec npx "$@"; }
no_install=
if [ "$1" = --no-install ] || [ "$1" = --no ]; then no_install=$1; shift; fi
case "$1" in
  ''|-*|*@*|*/*) if [ -n "$no_install" ]; then set -- "$no_install" "$@"; fi; real_npx "$@" ;;
esac
dir=$PWD
while :; do
  if [ -x "$dir/node_modules/.bin/$1" ]; then
    bin=$dir/node_modules/.bin/$1
    shift
    exec "$bin" "$@"
  fi
  [ "$dir" = / ] && break
  dir=$(dirname "$dir")
done
if [ -n "$no_install" ]; then set -- "$no_install" "$@"; fi
real_npx "$@"
`;
    await writeFile(join(dir, 'npx'), script, { mode: 0o755 });
    return dir;
  })();
  return npxShim;
}

/**
 * Runs a POSIX shell script as a user would, without proxies; killed after `timeoutMs`. Its `npx`
 * runs an installed package directly (npxShimDir), unless `realNpx`.
 */
export async function runShell(
  script: string,
  options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number; realNpx?: boolean } = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  // Asynchronous: the servers a test starts run in this process and must answer meanwhile.
  const path = options.env?.PATH ?? process.env.PATH ?? '/usr/bin:/bin';
  const env = {
    HOME: process.env.HOME ?? '/tmp',
    HTTP_PROXY: '',
    HTTPS_PROXY: '',
    http_proxy: '',
    https_proxy: '',
    NO_COLOR: '1',
    ...options.env,
    PATH: options.realNpx ? path : `${await npxShimDir()}:${path}`,
  };
  const { code, stdout, stderr } = await collect(
    spawn('sh', ['-c', script], { env, ...(options.cwd ? { cwd: options.cwd } : {}) }),
    options.timeoutMs ?? 90_000,
  );
  return { status: code, stdout, stderr };
}

/** A loopback port nothing listens on (for now). */
export async function freePort(): Promise<number> {
  const server = createNetServer();
  await onLoopback(server);
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Sets environment variables for an in-process run; `restoreEnv` (in afterEach) puts back what
 * was there before.
 */
const savedEnv = new Map<string, string | undefined>();
export function setEnv(vars: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(vars)) {
    if (!savedEnv.has(name)) savedEnv.set(name, process.env[name]);
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
}
export function restoreEnv(): void {
  for (const [name, value] of savedEnv) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  savedEnv.clear();
}
