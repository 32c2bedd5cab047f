import { Worker } from 'node:worker_threads';
import type { ApiDescription } from '../api/endpoint-specs.js';
import { UsageError } from '../errors.js';
import { threadExecArgv } from '../threads.js';
import { builtFile, FROM_BUILD } from '../version.js';

/**
 * Reads an OpenAPI document (load.ts) on a thread of its own, started as soon as the run knows
 * the file. The parser and the document cost the main thread a seventh of a second (measured:
 * ~90 ms to load @readme/openapi-parser, ~50 ms to bundle docs/openapi.yaml), and at that point
 * of a run the main thread is what Vitest's worker waits on while it boots (it serves the
 * worker's module requests): the second core is idle then, so the document is read there.
 *
 * Run from the sources (the harness's own tests, through Vite), a thread cannot load the
 * TypeScript module: the document is read in this thread, as before.
 */

export type LoadReply = { ok: true; api: ApiDescription } | { ok: false; usage: boolean; message: string };

const WORKER_URL = builtFile('src/openapi/load-worker.js');

export function loadOpenApiInThread(file: string): Promise<ApiDescription> {
  const inThisThread = (): Promise<ApiDescription> => import('./load.js').then((m) => m.loadOpenApi(file));
  if (!FROM_BUILD) return inThisThread();
  const execArgv = threadExecArgv();
  let worker: Worker;
  try {
    worker = new Worker(WORKER_URL, { workerData: { file }, ...(execArgv ? { execArgv } : {}) });
  } catch (err) {
    // Node refused the options a string entry leaves (threads.ts): the document is read here.
    if ((err as NodeJS.ErrnoException).code === 'ERR_WORKER_INVALID_EXEC_ARGV') return inThisThread();
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
  return new Promise<ApiDescription>((resolve, reject) => {
    // The run must not wait for this thread to end, only for its answer.
    worker.unref();
    worker.once('message', (reply: LoadReply) => {
      void worker.terminate();
      if (reply.ok) resolve(reply.api);
      else reject(reply.usage ? new UsageError(reply.message) : new Error(reply.message));
    });
    worker.once('error', (err) => reject(err));
    worker.once('exit', (code) => reject(new Error(`the thread reading ${file} ended (exit code ${code}) without an answer`)));
  });
}
