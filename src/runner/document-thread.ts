import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ApiDescription } from '../carrier/endpoint-specs.js';
import { UsageError } from '../core/errors.js';
import { stoppedBy, untilStopped } from '../core/until-stopped.js';
import { FILE_LIMITS, readRegularFile } from '../core/files.js';
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

/**
 * `ms`: how long the thread took to read the document (or to refuse it), for CARRIER_PROFILE=1;
 * `digests`: every file it read, by absolute path and SHA-256 (the memo's key, below).
 */
export type LoadReply = (
  | { ok: true; api: ApiDescription; digests?: [string, string][] }
  | { ok: false; usage: boolean; message: string }
) & {
  ms?: number;
};

export interface ThreadLoadOptions {
  /** --openapi-root: the folder the document's `$ref`s may reach (default: the document's). */
  root?: string | undefined;
  /** Stops the reading: the thread is terminated and the load rejects with the reason. */
  signal?: AbortSignal | undefined;
}

const WORKER_URL = builtFile('src/runner/document-worker.js');

/**
 * Documents already read in this process, with every file each read, by SHA-256: a process that
 * runs the battery again on the same document (the programmatic API, the harness's own tests:
 * hundreds of runs on one document) gets it again without a thread or a parse, once every one of
 * its files still has the bytes it was read from. Any change, to the document or to a file it
 * refers to, and it is read anew. The few most recent only.
 */
const MEMO_SIZE = 4;
const memo = new Map<string, { digests: [string, string][]; api: ApiDescription }>();
const memoKey = (file: string, root: string | undefined): string => `${resolve(file)}\0${root ?? ''}`;

function remembered(file: string, root: string | undefined): ApiDescription | undefined {
  const key = memoKey(file, root);
  const entry = memo.get(key);
  if (!entry) return undefined;
  const unchanged = entry.digests.every(([path, sha256]) => {
    try {
      const bytes = readRegularFile(path, '--openapi', FILE_LIMITS.openapi);
      return createHash('sha256').update(bytes).digest('hex') === sha256;
    } catch {
      // Gone, or no longer a regular file: read anew, and the reading says why.
      return false;
    }
  });
  if (!unchanged) {
    memo.delete(key);
    return undefined;
  }
  // A copy, as a thread's answer is: no run sees what another did to its description.
  return structuredClone(entry.api);
}

function remember(file: string, root: string | undefined, api: ApiDescription, digests?: [string, string][]): void {
  if (!digests?.some(([path]) => path === resolve(file))) return;
  const key = memoKey(file, root);
  memo.delete(key);
  memo.set(key, { digests, api: structuredClone(api) });
  for (const oldest of memo.keys()) {
    if (memo.size <= MEMO_SIZE) break;
    memo.delete(oldest);
  }
}

let reads = 0;
/** How many documents this process has read (parsed, on a thread or here), the memo's answers not counted. */
export const documentReads = (): number => reads;

export function loadOpenApiInThread(file: string, options: ThreadLoadOptions = {}): Promise<ApiDescription> {
  const { root, signal } = options;
  if (signal?.aborted) return Promise.reject(stoppedBy(signal));
  const known = remembered(file, root);
  if (known) {
    mark('document: read before, unchanged');
    return Promise.resolve(known);
  }
  reads += 1;
  const inThisThread = (): Promise<ApiDescription> => {
    const loaded = import('../openapi/load.js')
      .then((m) => m.loadOpenApiAsRead(file, { root }))
      // Linted as the thread lints it (document-worker.ts), on the document as read.
      .then(async ({ api, read, digests }) => {
        const linted = { ...api, lint: await (await import('../lint/in-run.js')).lintForRun(file, root, read) };
        remember(file, root, linted, digests);
        return linted;
      });
    return untilStopped(loaded, signal);
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
      reject(stoppedBy(signal as AbortSignal));
      void worker.terminate();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const settle = (): void => signal?.removeEventListener('abort', onAbort);
    worker.once('message', (reply: LoadReply) => {
      // Marked here, not in the thread: a thread's stderr reaches the terminal through this thread, later, and not at all when a refusal ends the run at once.
      if (reply.ms !== undefined) mark(`document: read in ${reply.ms} ms`);
      settle();
      void worker.terminate();
      if (reply.ok) {
        remember(file, root, reply.api, reply.digests);
        resolve(reply.api);
      } else reject(reply.usage ? new UsageError(reply.message) : new Error(reply.message));
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
