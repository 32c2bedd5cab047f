/**
 * The harness run as a user runs it: the built CLI (bin/carrier-conformance.js), one process per
 * document, against the mock's server, with the document re-rooted, reports to a folder of its
 * own. Timed from spawn to exit; its CPU and peak RSS from GNU time (getrusage of the child,
 * worker threads included), else the peak RSS the CLI's profile prints; the document's load time
 * from the profile (CARRIER_PROFILE=1: "document: read in N ms").
 *
 * Bounded: the run's own --deadline is the timeout, and the process (and whatever it started) is
 * killed 30 s after it, should the deadline not hold.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunReport } from '../../src/model/run-report.js';
import { BIN, HAS_TIME, ROOT } from '../measure.js';

export const SUITES = ['tenant', 'resources', 'pagination', 'nulls'];

export interface HarnessRun {
  /** Exit code; null when it was killed. */
  code: number | null;
  /** Killed past the timeout's grace. */
  killed: boolean;
  wallMs: number;
  cpuMs: number | undefined;
  peakRssMb: number | undefined;
  /** How long the document took to read, from the CLI's profile. */
  loadMs: number | undefined;
  /** The last lines of stderr (the refusal of exit 2 is there). */
  stderr: string;
  stdout: string;
  report: RunReport | undefined;
  /** The command, secrets aside, to reproduce the run by hand. */
  command: string;
}

export interface HarnessTarget {
  url: string;
  clientId: string;
  clientSecret: string;
  foreignTenantId: string;
  openapiFile: string;
  reportsDir: string;
}

const USAGE = /^corpus-usage (\S+) (\S+) (\d+)$/m;
const GRACE_MS = 30_000;
/** Kept of each stream: the end of a long log is where the refusal or the crash is. */
const KEEP = 64 * 1024;

/** Environment variables of the run's own (CARRIER_*) or of a CI that would change what it writes: not passed on. */
const DROPPED_ENV = /^(CARRIER_|GITHUB_|NO_COLOR$|FORCE_COLOR$|CI$|TF_BUILD$|BUILDKITE|GITLAB_CI$|TEAMCITY)/;

export function harnessArgs(target: HarnessTarget, timeoutSeconds: number): string[] {
  return [
    'run',
    '--base-url',
    target.url,
    '--openapi',
    target.openapiFile,
    '--client-id',
    target.clientId,
    '--foreign-tenant-id',
    target.foreignTenantId,
    ...SUITES.flatMap((s) => ['--suite', s]),
    '--reports-dir',
    target.reportsDir,
    '--deadline',
    String(timeoutSeconds),
  ];
}

/** Process groups of the runs going on: ended with the benchmark when it is interrupted. */
export const runningGroups = new Set<number>();

/** `bin`: the CLI to run; default this checkout's (--harness DIR runs another's, built: before and after). */
export function runHarness(target: HarnessTarget, timeoutSeconds: number, bin = BIN): Promise<HarnessRun> {
  const args = harnessArgs(target, timeoutSeconds);
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !DROPPED_ENV.test(k)));
  Object.assign(env, { CARRIER_CLIENT_SECRET: target.clientSecret, CARRIER_PROFILE: '1', NO_COLOR: '1' });
  const [command, commandArgs] = HAS_TIME
    ? ['/usr/bin/time', ['-f', 'corpus-usage %U %S %M', process.execPath, bin, ...args]]
    : [process.execPath, [bin, ...args]];
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    // A process group of its own, so that a kill reaches the CLI and its workers, not only GNU time.
    const child = spawn(command, commandArgs, { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    if (child.pid !== undefined) runningGroups.add(child.pid);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout = (stdout + d.toString()).slice(-KEEP)));
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-KEEP)));
    let killed = false;
    const timer = setTimeout(
      () => {
        killed = true;
        try {
          if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // Gone already.
        }
      },
      timeoutSeconds * 1000 + GRACE_MS,
    );
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (child.pid !== undefined) runningGroups.delete(child.pid);
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
      const usage = USAGE.exec(stderr);
      const profileRss = /peak RSS (\d+) MB/.exec(stderr)?.[1];
      const load = /document: read in (\d+) ms/.exec(stderr)?.[1];
      const cleanErr = stderr
        .replace(USAGE, '')
        .split('\n')
        .filter((l) => !l.startsWith('profile '))
        .join('\n');
      void readFile(join(target.reportsDir, 'report.json'), 'utf8')
        .then((text) => JSON.parse(text) as RunReport)
        .catch(() => undefined)
        .then((report) =>
          resolve({
            code,
            killed,
            wallMs: Math.round(wallMs),
            cpuMs: usage ? Math.round((Number(usage[1]) + Number(usage[2])) * 1000) : undefined,
            peakRssMb: usage
              ? Math.round(Number(usage[3]) / 1024)
              : profileRss !== undefined
                ? Number(profileRss)
                : undefined,
            loadMs: load !== undefined ? Number(load) : undefined,
            stderr: cleanErr.slice(-8 * 1024),
            stdout: stdout.slice(-8 * 1024),
            report,
            command: `CARRIER_CLIENT_SECRET=… carrier-conformance ${args.join(' ')}`,
          }),
        );
    });
  });
}
