import { randomUUID } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { TestSpecification, Vitest } from 'vitest/node';
import {
  otherChecksDoneRelay,
  PROVIDE_KEY,
  runChannelName,
  type BatteryContext,
  type RunMessage,
} from '../battery/wiring.js';
import { BATTERY_ENTRY, SUITES, suiteOfFile, type Check, type SuiteName } from '../catalogue/index.js';
import { envSwitch } from '../core/environment.js';
import { mark, profiling } from '../core/startup-timing.js';
import { SafeStream } from '../core/console-safety.js';
import { redactor } from '../core/redact.js';
import { FROM_BUILD, PACKAGE_ROOT } from '../core/version.js';
import { CheckCollector } from './collector.js';
import { EARLY_THREADS_POOL } from './early-worker.js';

/**
 * Runs the suites of the selected checks with Vitest, in this process's Vitest instance.
 *
 * - One worker runs every suite but expiry from one entry file (suites/battery.test.ts), so their
 *   checks run concurrently and share one token, one keep-alive pool and one walk per list. The
 *   expiry suite, which mostly waits for a token to expire, gets a worker of its own and is
 *   started first, so that its wait overlaps everything else.
 * - Vitest starts as soon as the checks are known; the workers load the battery while the runner
 *   preflights the target, then wait for the run's context (startBattery, RunMessage).
 * - Run from the build (the CLI), the battery is the compiled `dist/suites/*.test.js`, and the
 *   harness's own modules are externalised: Node loads them natively instead of Vite
 *   transforming each one, which halves the workers' start-up (docs/design.md). Run from the
 *   sources (the harness's own tests), it is `suites/*.test.ts`, always current.
 */

/**
 * Whether the battery's workers run the compiled battery: always from the build (the CLI); from
 * the sources (the harness's own tests) only while dist/ is current, newer than every file of
 * src/ and suites/ (`npm test` builds first). The compiled battery starts in about half the CPU
 * time (no Vite transform of each module), and the harness's tests start hundreds of runs; a
 * stale build is never run (an edit since the build falls back to the sources).
 */
const BUILT_BATTERY = FROM_BUILD || builtBatteryCurrent();

export function builtBatteryCurrent(root = PACKAGE_ROOT): boolean {
  if (process.env.CARRIER_BATTERY_FROM_SOURCES === '1') return false;
  let built: number;
  try {
    built = statSync(join(root, 'dist', 'suites', `${BATTERY_ENTRY}.test.js`)).mtimeMs;
  } catch {
    return false;
  }
  const newer = (dir: string, depth: number): boolean => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return false;
    }
    return entries.some((e) =>
      e.isDirectory()
        ? depth < 8 && newer(join(dir, e.name), depth + 1)
        : e.name.endsWith('.ts') && statSync(join(dir, e.name)).mtimeMs > built,
    );
  };
  return !newer(join(root, 'src'), 0) && !newer(join(root, 'suites'), 0);
}

/**
 * The battery's files: the entry that runs every suite but expiry (suites/battery.test.ts), and
 * expiry. The team's checks (`team`) are in the entry too.
 */
function batteryFiles(suites: readonly SuiteName[], team: boolean): string[] {
  const file = (name: string): string => (BUILT_BATTERY ? `dist/suites/${name}.test.js` : `suites/${name}.test.ts`);
  return [
    ...(suites.includes('expiry') ? [file('expiry')] : []),
    ...(team || suites.some((s) => s !== 'expiry') ? [file(BATTERY_ENTRY)] : []),
  ];
}

/** Starts the expiry file first, so that its wait begins as early as possible. */
class ExpiryFirstSequencer {
  shard(files: TestSpecification[]): TestSpecification[] {
    return files;
  }
  sort(files: TestSpecification[]): TestSpecification[] {
    return [...files].sort(
      (a, b) => Number(suiteOfFile(b.moduleId) === 'expiry') - Number(suiteOfFile(a.moduleId) === 'expiry'),
    );
  }
}

/** A battery run, started before its context is known (see RunMessage in src/battery/wiring.ts). */
export interface BatteryRun {
  /** Sends the workers the run's context: the checks register and run. */
  provide(context: BatteryContext): void;
  /** Stops the run: before `provide`, no check runs; after it, the workers abort what they do. */
  stop(reason: string): void;
  /** What Vitest collected, once the checks have run (Vitest may still be closing). */
  done: Promise<CheckCollector>;
  /** Resolves once Vitest has closed (its errors then are dropped: the results are in). */
  closed: Promise<void>;
  /** Resolves once Vitest is spawning its workers (or has failed to start). */
  started: Promise<void>;
  /** Resolves once the checks run: the workers have booted (or the run has ended without them). */
  checksStarted: Promise<void>;
}

/**
 * Starts Vitest and its workers now, so that their start-up (loading the battery's modules)
 * overlaps the runner's preflight on another core; the checks wait for `provide`.
 */
export function startBattery(
  checks: readonly Check[],
  verbose?: (line: string) => void,
  options: { team?: boolean } = {},
): BatteryRun {
  const name = runChannelName(randomUUID());
  const channel = new BroadcastChannel(name);
  let channelClosed = false;
  // Once Vitest has closed (its workers gone, or never started), there is no one left to tell.
  const post = (message: RunMessage): void => {
    if (!channelClosed) channel.postMessage(message);
  };
  let context: BatteryContext | undefined;
  let stopped: string | undefined;
  let vitest: Vitest | undefined;
  // Without it, an expiry worker that started late waited NEVER_HEARD_MS for an answer that could not come.
  const relay = otherChecksDoneRelay();
  // A worker that says `ready` gets what it waits for: the context, or the reason to stop.
  channel.onmessage = (event: MessageEvent) => {
    const message = event.data as RunMessage;
    const answer = relay(message);
    if (answer) post(answer);
    // --verbose: a worker's request or answer (redacted there), printed here.
    if (message.type === 'verbose' && verbose) verbose(redactor.redact(message.line));
    // A secret a worker learned: the reports are redacted here once more, with it (src/runner/run.ts).
    if (message.type === 'secret') redactor.addSecret(message.value, message.kind);
    if (message.type !== 'ready') return;
    if (stopped !== undefined) post({ type: 'stop', reason: stopped });
    else if (context) post({ type: 'context', context });
  };
  const collector = new CheckCollector();
  const { done, closed } = runVitest(
    checks,
    options.team === true,
    collector,
    name,
    (v) => (vitest = v),
    () => stopped !== undefined,
  );
  void closed.then(() => {
    channelClosed = true;
    channel.close();
  });
  return {
    started: Promise.race([collector.runStarted, done.then(noop, noop)]),
    checksStarted: Promise.race([collector.checksStarted, done.then(noop, noop)]),
    provide(c) {
      context = c;
      post({ type: 'context', context: c });
    },
    stop(reason) {
      if (stopped !== undefined) return;
      stopped = reason;
      post({ type: 'stop', reason });
      // Keeps tests that have not started from starting; not awaited: it waits for running ones.
      void vitest?.cancelCurrentRun('keyboard-input');
    },
    done,
    closed,
  };
}

const noop = (): void => undefined;

/**
 * Where Vitest's own console lines go, and its workers' (their stderr is piped to it): nowhere,
 * unless CARRIER_DEBUG=1 or CARRIER_PROFILE=1 (then to stderr, redacted; a worker's profile lines
 * are among them). The harness reports what they are about in its own words (a worker that did not
 * start is an incomplete run naming Node's reason, see CheckCollector); Vitest's lines come with
 * stack traces.
 */
function vitestConsole(): Writable {
  const debug = envSwitch('CARRIER_DEBUG') || profiling;
  // Vitest quotes test names and errors, which quote the target: the same cleaning as the CLI's.
  const stderr = new SafeStream((text) => process.stderr.write(text), false);
  return new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      if (debug) stderr.write(redactor.redact(String(chunk)));
      callback();
    },
  });
}

/**
 * Runs the battery in Vitest: `done` once the checks have run, `closed` once Vitest has closed.
 * Closing (workers ended, its server closed) takes a while and the report does not need it: the
 * runner writes the report meanwhile, and waits for `closed` before it returns.
 */
function runVitest(
  checks: readonly Check[],
  team: boolean,
  collector: CheckCollector,
  channel: string,
  created: (v: Vitest) => void,
  isStopped: () => boolean,
): { done: Promise<CheckCollector>; closed: Promise<void> } {
  let ran: { resolve: () => void; reject: (err: unknown) => void } | undefined;
  const checksRan = new Promise<void>((resolve, reject) => (ran = { resolve, reject }));
  const whole = runAndClose(checks, team, collector, channel, created, isStopped, (err) =>
    err === undefined ? ran?.resolve() : ran?.reject(err),
  );
  // A failure to create Vitest ends `whole` before the checks could run: `done` fails with it.
  const done = Promise.race([checksRan, whole]).then(() => collector);
  return { done, closed: whole.then(noop, noop) };
}

async function runAndClose(
  checks: readonly Check[],
  team: boolean,
  collector: CheckCollector,
  channel: string,
  created: (v: Vitest) => void,
  isStopped: () => boolean,
  ran: (err?: unknown) => void,
): Promise<void> {
  const { createVitest } = await import('vitest/node');
  mark('battery: vitest loaded');
  const suites = SUITES.filter((s) => checks.some((c) => c.suite === s));
  // Vitest's logger exits the process on SIGINT/SIGTERM (exit 130); the harness handles those
  // itself, so that an interrupted run still ends with its partial report (src/cli/entry.ts).
  // The logger adds its listeners synchronously, in the Vitest constructor that createVitest
  // calls first: they go at once, before a signal can reach them while Vitest is being created,
  // and whatever listener the rest of its creation adds goes once it is created.
  const before = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') };
  const dropVitestSignalListeners = (): void => {
    for (const name of ['SIGINT', 'SIGTERM'] as const) {
      for (const listener of process.listeners(name)) if (!before[name].includes(listener)) process.off(name, listener);
    }
  };
  const creating = createVitest(
    'test',
    {
      root: PACKAGE_ROOT,
      config: false,
      include: batteryFiles(suites, team),
      watch: false,
      reporters: [collector],
      pool: EARLY_THREADS_POOL,
      isolate: false,
      maxWorkers: suites.includes('expiry') && suites.length > 1 ? 2 : 1,
      sequence: { sequencer: ExpiryFirstSequencer },
      // Every check at once: they wait on the network, and the HTTP client bounds what is in
      // flight (MAX_IN_FLIGHT); a check that waits for a slot must not hold back the others.
      maxConcurrency: 1000,
      // The battery's own console output (none expected) must not mix into the summary.
      silent: true,
      ...(BUILT_BATTERY
        ? { server: { deps: { external: [/[\\/]dist[\\/](src[\\/]|suites[\\/](?!battery\.))/] } } }
        : {}),
    },
    { server: { watch: null } },
    { stdout: vitestConsole(), stderr: vitestConsole() },
  );
  dropVitestSignalListeners();
  const vitest = await creating;
  created(vitest);
  dropVitestSignalListeners();
  // Vitest sets process.exitCode when tests fail; the exit code is the harness's to decide.
  const exitCode = process.exitCode;
  try {
    vitest.provide(PROVIDE_KEY, { channel });
    mark('battery: vitest created');
    if (!isStopped()) await vitest.start();
    ran();
  } catch (err) {
    ran(err ?? new Error('Vitest failed'));
    throw err;
  } finally {
    await vitest.close();
    process.exitCode = exitCode;
  }
}
