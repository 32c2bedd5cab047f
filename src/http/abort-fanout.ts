/**
 * Many waiters on one abort signal, with one listener on it. Every request of a check carries the
 * check's signal: a listener added and removed per request (while it waits for a slot of the
 * politeness bound, then while it is in flight) cost more than the rest of the request's own
 * bookkeeping in a run over hundreds of endpoints, where thousands of requests wait at once.
 * Here a signal gets one 'abort' listener, the first time a waiter comes, and a waiter is an
 * entry in a set: adding and removing it costs no EventTarget work.
 *
 * The same contract as `addEventListener('abort', fn, { once: true })`: `fn` is called once when
 * the signal aborts, and never for a signal that had already aborted (callers look at `aborted`
 * first, as they did).
 */

const waiters = new WeakMap<AbortSignal, Set<() => void>>();

/** Calls `fn` once when `signal` aborts; the returned function stops that (idempotent). */
export function onAbort(signal: AbortSignal, fn: () => void): () => void {
  if (signal.aborted) return noop;
  let set = waiters.get(signal);
  if (!set) {
    const created = new Set<() => void>();
    waiters.set(signal, created);
    signal.addEventListener('abort', () => fire(created), { once: true });
    set = created;
  }
  // Each registration its own entry, so that removing one never removes another of the same `fn`.
  const entry = (): void => fn();
  set.add(entry);
  const registered = set;
  return () => {
    registered.delete(entry);
  };
}

function fire(set: Set<() => void>): void {
  const due = [...set];
  set.clear();
  for (const fn of due) {
    try {
      fn();
    } catch (err) {
      // As an EventTarget listener's exception: reported, without keeping the others from running.
      queueMicrotask(() => {
        throw err;
      });
    }
  }
}

function noop(): void {}

/** Waiters registered on `signal` now (for tests). */
export function waitersOn(signal: AbortSignal): number {
  return waiters.get(signal)?.size ?? 0;
}
