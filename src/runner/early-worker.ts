import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { isatty } from 'node:tty';
import { Worker } from 'node:worker_threads';
import type { PoolOptions, PoolRunnerInitializer, PoolWorker, WorkerRequest } from 'vitest/node';
import { mark } from '../core/startup-timing.js';

/**
 * The battery's Vitest worker thread, started as the CLI starts rather than once Vitest has loaded
 * and planned the run. Booting a thread and loading Vitest's runtime into it takes ~0.3 s on a
 * slow machine, and it was on the start-up's critical path: Vitest's own load (~0.4 s) runs on the
 * main thread meanwhile, and the second core had time to spare then (docs/speed.md).
 *
 * It is the thread Vitest's `threads` pool would start: its entry, environment and Node options,
 * predicted as Vitest 4 computes them (`expectedSpawn`). Vitest gets it through a custom pool
 * (`EARLY_THREADS_POOL`: Vitest's threads pool but for where its first thread comes from).
 * When Vitest asks for a thread it says exactly what it wants; if that is not what was started
 * (another Vitest version, a NODE_ENV that changes Vite's conditions, a Node option), the early
 * thread is stopped and Vitest starts its own, as without it: a wrong prediction costs time, never
 * a verdict. Until it is taken, it does not keep the process alive (a usage error ends at once).
 */

const require = createRequire(import.meta.url);
const VITEST_DIST = join(dirname(require.resolve('vitest/package.json')), 'dist');

/** What a Vitest threads worker is started with. */
export interface Spawn {
  entry: string;
  env: Partial<NodeJS.ProcessEnv>;
  execArgv: readonly string[];
}

/**
 * The spawn Vitest 4 asks for in a run like the harness's (not in watch mode, no `env` or
 * `execArgv` of its own), from vitest/dist/chunks/cli-api.js: resolveOptions, executeTests and
 * resolveConditions. Vite, as Vitest creates it, sets NODE_ENV and its mode's variables.
 */
export function expectedSpawn(
  env: NodeJS.ProcessEnv = process.env,
  execArgv: readonly string[] = process.execArgv,
): Spawn {
  const nodeEnv = env.NODE_ENV || 'development';
  const production = nodeEnv === 'production';
  return {
    entry: join(VITEST_DIST, 'workers', 'threads.js'),
    env: {
      ...env,
      TEST: 'true',
      VITEST: 'true',
      NODE_ENV: nodeEnv,
      VITEST_MODE: 'RUN',
      FORCE_TTY: isatty(1) ? 'true' : '',
      BASE_URL: '/',
      MODE: 'test',
      DEV: production ? '' : '1',
      PROD: production ? '1' : '',
    },
    execArgv: [
      ...execArgv.filter(
        (a) => a.startsWith('--cpu-prof') || a.startsWith('--heap-prof') || a.startsWith('--diagnostic-dir'),
      ),
      '--experimental-import-meta-resolve',
      '--require',
      join(dirname(VITEST_DIST), 'suppress-warnings.cjs'),
      // Vite's default SSR resolve conditions, as Vitest passes them on.
      '--conditions',
      'node',
      '--conditions',
      production ? 'production' : 'development',
    ],
  };
}

/** Whether two spawns start the same thread: same entry, same Node options, same environment. */
export function sameSpawn(a: Spawn, b: Spawn): boolean {
  const defined = (env: Partial<NodeJS.ProcessEnv>): string[] => Object.keys(env).filter((k) => env[k] !== undefined);
  const keys = defined(a.env);
  return (
    a.entry === b.entry &&
    a.execArgv.length === b.execArgv.length &&
    a.execArgv.every((x, i) => x === b.execArgv[i]) &&
    keys.length === defined(b.env).length &&
    keys.every((k) => a.env[k] === b.env[k])
  );
}

/** A thread as Vitest's threads pool starts one: its output piped by whoever takes it. */
function spawnThread(spawn: Spawn): Worker {
  return new Worker(spawn.entry, { env: spawn.env, execArgv: [...spawn.execArgv], stdout: true, stderr: true });
}

let early: { spawn: Spawn; worker: Worker; alive: boolean } | undefined;

/** Starts the battery's worker thread now (once), as `spawn` says (by default, as Vitest will want it); the thread, if it was started now. */
export function startEarlyWorker(spawn: Spawn = expectedSpawn()): Worker | undefined {
  if (early) return undefined;
  let worker: Worker;
  try {
    worker = spawnThread(spawn);
  } catch {
    // Node refuses some of its options in threads (ERR_WORKER_INVALID_EXEC_ARGV): Vitest's own
    // start then fails the same way, and the run says why (CheckCollector).
    return undefined;
  }
  worker.unref();
  const started = { spawn, worker, alive: true };
  // A thread that failed to start is not handed over: Vitest starts its own, and says why that fails.
  worker.once('error', () => (started.alive = false));
  worker.once('exit', () => (started.alive = false));
  early = started;
  return worker;
}

/** The early thread, if it is alive and was started exactly as `wanted`; otherwise it is stopped. Once. */
export function takeEarlyWorker(wanted: Spawn): Worker | undefined {
  const taken = early;
  early = undefined;
  if (!taken) return undefined;
  if (!taken.alive || !sameSpawn(taken.spawn, wanted)) {
    mark('battery: the early worker is not what Vitest asked for; Vitest starts its own');
    void taken.worker.terminate();
    return undefined;
  }
  taken.worker.ref();
  mark("battery: the early worker is Vitest's");
  return taken.worker;
}

const EARLY_THREADS_POOL_NAME = 'carrier-threads';

/**
 * Vitest's ThreadsPoolWorker (vitest/dist/chunks/cli-api.js) on the public PoolWorker interface of
 * custom pools, its thread the early one when that is what Vitest asks for.
 */
class EarlyThreadsPoolWorker implements PoolWorker {
  readonly name = EARLY_THREADS_POOL_NAME;
  readonly #spawn: Spawn;
  readonly #stdout: NodeJS.WritableStream;
  readonly #stderr: NodeJS.WritableStream;
  #thread: Worker | undefined;

  constructor(options: PoolOptions) {
    this.#spawn = {
      entry: join(options.distPath, 'workers', 'threads.js'),
      env: options.env,
      execArgv: options.execArgv,
    };
    this.#stdout = options.project.vitest.logger.outputStream;
    this.#stderr = options.project.vitest.logger.errorStream;
  }

  on(event: string, callback: (arg: unknown) => void): void {
    this.#worker.on(event, callback);
  }

  off(event: string, callback: (arg: unknown) => void): void {
    this.#worker.off(event, callback);
  }

  send(message: WorkerRequest): void {
    this.#worker.postMessage(message);
  }

  start(): Promise<void> {
    // Called again when the runtime is shared (isolate: false).
    if (!this.#thread) {
      const spawn = this.#spawn;
      this.#thread = takeEarlyWorker(spawn) ?? spawnThread(spawn);
      this.#thread.stdout.pipe(this.#stdout);
      this.#thread.stderr.pipe(this.#stderr);
    }
    return Promise.resolve();
  }

  async stop(): Promise<void> {
    const thread = this.#thread;
    this.#thread = undefined;
    if (!thread) return;
    await thread.terminate();
    thread.stdout.unpipe(this.#stdout);
    thread.stderr.unpipe(this.#stderr);
  }

  deserialize(data: unknown): unknown {
    return data;
  }

  get #worker(): Worker {
    if (!this.#thread) throw new Error('the battery worker thread was stopped or never started');
    return this.#thread;
  }
}

/** Vitest's `pool` option for the battery: its threads pool, whose first worker is the early thread when it fits. */
export const EARLY_THREADS_POOL: PoolRunnerInitializer = {
  name: EARLY_THREADS_POOL_NAME,
  createPoolWorker: (options: PoolOptions) => new EarlyThreadsPoolWorker(options),
};
