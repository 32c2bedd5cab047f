/**
 * Child processes that tests start (gateways, Python stacks), each in its own process group, and
 * killed if the test process ends before the test stops them: at exit, and on the SIGTERM with
 * which Vitest stops a worker (a test that timed out never reaches its afterAll), after which the
 * signal is raised again with its default action.
 */
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

const running = new Set<ChildProcess>();

const killRunning = (): void => {
  for (const child of running) killGroup(child, 'SIGKILL');
};
process.once('exit', killRunning);
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  const onSignal = (): void => {
    killRunning();
    process.off(signal, onSignal);
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  process.on(signal, onSignal);
}

/** Kills `child` (spawned with `detached: true`) with its whole group when the test process ends. */
export function trackChild(child: ChildProcess): void {
  running.add(child);
  child.once('close', () => running.delete(child));
}

/** Stops tracking `child` (it is gone, or its owner has killed it). */
export function untrackChild(child: ChildProcess): void {
  running.delete(child);
}

/** The process was started in its own group: this reaches its children (nginx's workers) as well. */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/**
 * Stops `child`: `ask` asks it to end (a signal, its stdin closed), then its whole group is killed
 * if it has not ended within `graceMs`; bounded either way. `exited` settles when it has ended.
 */
export async function stopChild(
  child: ChildProcess,
  exited: Promise<void>,
  ask: () => void,
  graceMs = 3_000,
): Promise<void> {
  ask();
  await Promise.race([exited, sleep(graceMs)]);
  killGroup(child, 'SIGKILL');
  await Promise.race([exited, sleep(2_000)]);
  untrackChild(child);
}
