/**
 * The benchmark's measuring tools: a process timed from spawn to exit, the median of runs, and
 * runs of compared figures interleaved so that a machine whose speed drifts affects all alike.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = new URL('../../..', import.meta.url).pathname;
export const BIN = join(ROOT, 'bin/carrier-conformance.js');

export interface Timed {
  ms: number;
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface Stats {
  median: number;
  min: number;
  max: number;
  runs: number[];
}

export function stats(values: readonly number[]): Stats {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  const median = sorted.length % 2 ? (sorted[Math.floor(mid)] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
  return {
    median: Math.round(median),
    min: Math.round(sorted[0] ?? 0),
    max: Math.round(sorted.at(-1) ?? 0),
    runs: values.map(Math.round),
  };
}

export const ms = (s: Stats): string => `${s.median} ms (${s.min}–${s.max})`;

/** Runs `node <args>` and times it from spawn to exit. */
export function timed(args: readonly string[], env: Record<string, string> = {}): Promise<Timed> {
  return spawnTimed(process.execPath, args, env);
}

function spawnTimed(command: string, args: readonly string[], env: Record<string, string>): Promise<Timed> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, args, { env: { ...process.env, NO_COLOR: '1', ...env }, cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, code, stdout, stderr }));
  });
}

/** A timed run with the resources it used. */
export interface Used extends Timed {
  /** CPU time of the process, user + system, its threads and the children it waited for included (NaN without /usr/bin/time). */
  cpuMs: number;
  /** Its peak resident set (the largest of it and its children), MB. */
  maxRssMb: number;
}

const TIME = '/usr/bin/time';
/** Whether `timedWithUsage` has GNU time; without it, the peak RSS comes from the CLI's profile (CARRIER_PROFILE=1). */
export const HAS_TIME = existsSync(TIME);
const USAGE_LINE = /^carrier-bench-usage (\S+) (\S+) (\d+)$/m;

/**
 * `timed`, with the CPU and peak memory of the process as GNU time reports them (getrusage of the
 * waited-for child: its worker threads are in it, since they share the process). Without
 * /usr/bin/time, the peak RSS the CLI prints with CARRIER_PROFILE=1 and no CPU figure.
 */
export async function timedWithUsage(args: readonly string[], env: Record<string, string> = {}): Promise<Used> {
  if (!HAS_TIME) {
    const t = await timed(args, env);
    return { ...t, cpuMs: NaN, maxRssMb: peakRssMb(t) };
  }
  const t = await spawnTimed(TIME, ['-f', 'carrier-bench-usage %U %S %M', process.execPath, ...args], env);
  const usage = USAGE_LINE.exec(t.stderr);
  return {
    ...t,
    stderr: t.stderr.replace(USAGE_LINE, ''),
    cpuMs: usage ? (Number(usage[1]) + Number(usage[2])) * 1000 : NaN,
    maxRssMb: usage ? Math.round(Number(usage[3]) / 1024) : NaN,
  };
}

export interface Contender<T = Timed> {
  what: string;
  run: () => Promise<T>;
  check?: (t: T) => void;
  /** The figure printed after each run (default: its time). */
  show?: (t: T) => string;
}

/**
 * Runs each contender `runs` times, interleaved (a, b, a, b, ...), so that a machine that speeds
 * up or slows down during the benchmark affects all of them alike and their ratios hold.
 */
export async function interleave<T extends { ms: number }>(
  runs: number,
  ...contenders: Contender<T>[]
): Promise<T[][]> {
  const results: T[][] = contenders.map(() => []);
  for (let i = 0; i < runs; i += 1) {
    for (const [k, c] of contenders.entries()) {
      const t = await c.run();
      c.check?.(t);
      results[k]?.push(t);
      process.stderr.write(`  ${c.what} ${i + 1}/${runs}: ${c.show ? c.show(t) : `${Math.round(t.ms)} ms`}\n`);
    }
  }
  return results;
}

export function mustExit(code: number) {
  return (t: Timed): void => {
    if (t.code !== code) throw new Error(`expected exit ${code}, got ${t.code}:\n${t.stdout}\n${t.stderr}`);
  };
}

/** The process's peak RSS, as the CLI prints it with CARRIER_PROFILE=1. */
export function peakRssMb(t: Timed): number {
  return Number(/peak RSS (\d+) MB/.exec(t.stderr)?.[1] ?? NaN);
}

/** The time of a profile mark (CARRIER_PROFILE=1), ms since the process started. */
export function markAt(t: Timed, phase: string): number {
  const line = t.stderr.split('\n').find((l) => l.startsWith('profile ') && l.includes(phase));
  return Number(line?.split(' ')[1] ?? NaN);
}
