import { RunAbortedError } from './errors.js';

/** The error a stopped wait rejects with: the signal's reason, as an error of the run's. */
export function stoppedBy(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error
    ? reason
    : new RunAbortedError(typeof reason === 'string' ? reason : 'the run was interrupted');
}

/**
 * `promise`, or a rejection with the signal's reason (`stoppedBy`) once `signal` aborts: for work
 * that cannot itself be stopped (an import, a synchronous parse), the run stops waiting for it.
 */
export function untilStopped<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(stoppedBy(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(stoppedBy(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
