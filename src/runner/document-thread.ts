import { Worker } from 'node:worker_threads';
import type { ApiDescription } from '../carrier/endpoint-specs.js';
import { RunAbortedError, UsageError } from '../core/errors.js';
import { threadExecArgv } from '../core/threads.js';
import { mark } from '../core/startup-timing.js';
import { builtFile, FROM_BUILD } from '../core/version.js';

/**
 * Reads an OpenAPI document (load.ts) on a thread of its own, started as soon as the run knows
 * the file. The parser and the document cost the main thread a seventh of a second (measured:
 * ~90 ms to load @readme/openapi-parser, ~50 ms to bundle docs/openapi.yaml), and at that point
 * of a run the main thread is what Vitest's worker waits on while it boots (it serves the
 * worker's module requests): the second core is idle then, so the document is read there.
 *
 * The thread is also where a document can be stopped: `signal` (the run's --deadline, Ctrl-C,
 * SIGTERM) terminates it, whatever the parser is doing, and the load rejects with the reason
 * (issue 28: a document that takes long must not hold a run past its deadline).
 *
 * Run from the sources (the harness's own tests, through Vite), a thread cannot load the
 * TypeScript module: the document is read in this thread, as before. That reading cannot be
 * interrupted (the parser's work is synchronous in parts, and holds this thread's event loop
 * meanwhile); `signal` only stops the run from waiting for it. The limits document-files.ts
 * reads it within keep it short.
 */

/** `ms`: how long the thread took to read the document (or to refuse it), for CARRIER_PROFILE=1. */
export type LoadReply = ({ ok: true; api: ApiDescription } | { ok: false; usage: boolean; message: string }) & {
  ms?: number;
};

export interface ThreadLoadOptions {
  /** --openapi-root: the folder the document's `$ref`s may reach (default: the document's). */
  root?: string | undefined;
  /** Stops the reading: the thread is terminated and the load rejects with the reason. */
  signal?: AbortSignal | undefined;
}

const WORKER_URL = builtFile('src/runner/document-worker.js');

/** The error a stopped load rejects with: the signal's reason, as an error of the run's. */
function stopped(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error
    ? reason
    : new RunAbortedError(typeof reason === 'string' ? reason : 'the run was interrupted');
}

export function loadOpenApiInThread(file: string, options: ThreadLoadOptions = {}): Promise<ApiDescription> {
  const { root, signal } = options;
  if (signal?.aborted) return Promise.reject(stopped(signal));
  const inThisThread = (): Promise<ApiDescription> => {
    const loaded = import('../openapi/load.js')
      .then((m) => m.loadOpenApiAsRead(file, { root }))
      // Linted as the thread lints it (document-worker.ts), on the document as read.
      .then(async ({ api, read }) => ({
        ...api,
        lint: await (await import('../lint/in-run.js')).lintForRun(file, root, read),
      }));
    if (!signal) return loaded;
    return new Promise<ApiDescription>((resolve, reject) => {
      const onAbort = (): void => reject(stopped(signal));
      signal.addEventListener('abort', onAbort, { once: true });
      loaded.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  };
  if (!FROM_BUILD) return inThisThread();
  const execArgv = threadExecArgv();
  let worker: Worker;
  try {
    worker = new Worker(WORKER_URL, { workerData: { file, root }, ...(execArgv ? { execArgv } : {}) });
  } catch (err) {
    // Node refused the options a string entry leaves (threads.ts): the document is read here.
    if ((err as NodeJS.ErrnoException).code === 'ERR_WORKER_INVALID_EXEC_ARGV') return inThisThread();
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
  return new Promise<ApiDescription>((resolve, reject) => {
    // The run must not wait for this thread to end, only for its answer.
    worker.unref();
    const onAbort = (): void => {
      reject(stopped(signal as AbortSignal));
      void worker.terminate();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const settle = (): void => signal?.removeEventListener('abort', onAbort);
    worker.once('message', (reply: LoadReply) => {
      // Marked here, not in the thread: a thread's stderr reaches the terminal through this thread, later, and not at all when a refusal ends the run at once.
      if (reply.ms !== undefined) mark(`document: read in ${reply.ms} ms`);
      settle();
      void worker.terminate();
      if (reply.ok) resolve(reply.api);
      else reject(reply.usage ? new UsageError(reply.message) : new Error(reply.message));
    });
    worker.once('error', (err) => {
      settle();
      reject(err);
    });
    worker.once('exit', (code) => {
      settle();
      reject(new Error(`the thread reading ${file} ended (exit code ${code}) without an answer`));
    });
  });
}
