import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';
import { envSwitch } from './environment.js';

/**
 * Where a run's time goes, for people tuning it: with CARRIER_PROFILE=1 each phase of the run
 * prints a line to stderr, `profile <ms since process start> <phase>`. Off, it costs nothing.
 * Threads mark on the same clock (in Node, a worker's `performance.now()` counts from the
 * process's start too), their lines ending in "(thread)".
 */
/** Whether this run profiles (CARRIER_PROFILE=1). */
export const profiling = envSwitch('CARRIER_PROFILE');
const thread = isMainThread ? '' : ' (thread)';

export function mark(phase: string): void {
  if (profiling) process.stderr.write(`profile ${Math.round(performance.now())} ${phase}${thread}\n`);
}

/**
 * Counts this thread's garbage collections from now on: `stop()` says how many were full
 * (mark-compact) and how many young (scavenges). The walk's profile line and the bench's plain
 * walk both count with it.
 */
export function collectionCounter(): { stop: () => { full: number; young: number } } {
  let full = 0;
  let young = 0;
  const count = (entries: PerformanceEntry[]): void => {
    for (const e of entries) {
      const kind = (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) full += 1;
      else if (kind === constants.NODE_PERFORMANCE_GC_MINOR) young += 1;
    }
  };
  const observer = new PerformanceObserver((list) => count(list.getEntries()));
  observer.observe({ entryTypes: ['gc'] });
  return {
    stop: () => {
      count(observer.takeRecords());
      observer.disconnect();
      return { full, young };
    },
  };
}

/**
 * The garbage collections of what follows, for a profile line: a walk that ran a full collection
 * every few hundred pages was slower by a tenth (docs/speed.md). Off, it observes nothing and
 * says nothing.
 */
export function countCollections(): { stop: () => string } {
  if (!profiling) return { stop: () => '' };
  const counter = collectionCounter();
  return {
    stop: () => {
      const { full, young } = counter.stop();
      return `${full} full and ${young} young collections`;
    },
  };
}

// A thread marks when it loads its first harness module (a battery worker: its boot is over).
if (!isMainThread) mark('thread: first harness module');
