import { isMainThread } from 'node:worker_threads';
import { envSwitch } from './environment.js';

/**
 * Where a run's time goes, for people tuning it: with CARRIER_PROFILE=1 each phase of the run
 * prints a line to stderr, `profile <ms since process start> <phase>`. Off, it costs nothing.
 * Threads mark on the same clock (in Node, a worker's `performance.now()` counts from the
 * process's start too), their lines ending in "(thread)".
 */
const enabled = envSwitch('CARRIER_PROFILE');
const thread = isMainThread ? '' : ' (thread)';

export function mark(phase: string): void {
  if (enabled) process.stderr.write(`profile ${Math.round(performance.now())} ${phase}${thread}\n`);
}

// A thread marks when it loads its first harness module (a battery worker: its boot is over).
if (!isMainThread) mark('thread: first harness module');
