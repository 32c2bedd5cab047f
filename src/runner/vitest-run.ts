import type { TestSpecification } from 'vitest/node';
import type { BatteryContext } from '../battery/context.js';
import { abortChannelName, PROVIDE_KEY } from '../battery/context.js';
import { randomUUID } from 'node:crypto';
import { SUITES, suiteFile, type Check } from '../catalogue/index.js';
import { PACKAGE_ROOT } from '../version.js';
import { CheckCollector } from './collector.js';

/**
 * Runs the suites of the selected checks with Vitest, in this process's Vitest instance.
 *
 * One worker with a shared module cache (`isolate: false`) runs every suite but expiry, so the
 * suites share one token, one keep-alive pool and one walk per list. The expiry suite, which
 * mostly waits for a token to expire, gets a worker of its own and is started first, so that
 * its wait overlaps everything else.
 */

/** Orders suite files for the workers: expiry first, then catalogue order. */
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

/**
 * Runs the battery; `signal` cancels it (Ctrl-C, --deadline): Vitest aborts each running test's
 * signal, which aborts its requests and waits, and the tests not yet started do not start.
 */
export async function runBattery(context: Omit<BatteryContext, 'abortChannel'>, checks: readonly Check[], signal: AbortSignal): Promise<CheckCollector> {
  const runId = randomUUID();
  const { createVitest } = await import('vitest/node');
  const files = SUITES.filter((s) => checks.some((c) => c.suite === s)).map(suiteFile);
  const collector = new CheckCollector();
  const before = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') };
  const vitest = await createVitest(
    'test',
    {
      root: PACKAGE_ROOT,
      config: false,
      include: files,
      watch: false,
      reporters: [collector],
      pool: 'threads',
      isolate: false,
      maxWorkers: files.includes(suiteFile('expiry')) && files.length > 1 ? 2 : 1,
      sequence: { sequencer: ExpiryFirstSequencer },
      maxConcurrency: 16,
      // The battery's own console output (none expected) must not mix into the summary.
      silent: true,
    },
    { server: { watch: null } },
  );
  // Vitest's logger exits the process on SIGINT/SIGTERM; the harness handles those itself, so
  // that an interrupted run still ends with its partial report (src/cli/entry.ts).
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    for (const listener of process.listeners(signal)) if (!before[signal].includes(listener)) process.off(signal, listener);
  }
  const cancel = (): void => {
    const channel = new BroadcastChannel(abortChannelName(runId));
    channel.postMessage(typeof signal.reason === 'string' ? signal.reason : 'the run was stopped');
    channel.close();
    // Keeps tests that have not started from starting; not awaited: it waits for running ones.
    void vitest.cancelCurrentRun('keyboard-input');
  };
  signal.addEventListener('abort', cancel, { once: true });
  // Vitest sets process.exitCode when tests fail; the exit code is the harness's to decide.
  const exitCode = process.exitCode;
  try {
    vitest.provide(PROVIDE_KEY, { ...context, abortChannel: abortChannelName(runId) });
    if (!signal.aborted) await vitest.start();
  } finally {
    signal.removeEventListener('abort', cancel);
    await vitest.close();
    process.exitCode = exitCode;
  }
  return collector;
}
