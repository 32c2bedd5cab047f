import { setFlagsFromString } from 'node:v8';

/**
 * A run allocates much and keeps little (a walk reads a page, judges it and drops it), so the
 * heaps are kept near what they hold, flat from 100 000 to 1 000 000 items (docs/speed.md):
 *
 * - the worker threads (the battery) get a young generation of 2 × 4 MB from their start: V8
 *   sizes a heap from these flags when it creates it, so this runs before Vitest starts them;
 * - every old generation grows by a fifth over what it holds, not by several times.
 *
 * The main thread's heap was made before these flags, and its young generation grows to 2 × 16
 * MB while Vitest loads. A semi-space growth factor of 1 would stop it, but V8 puts the factor
 * back to its default whenever a thread's heap is set up (measured: a factor set before
 * `new Worker` no longer holds after the thread has started; set after, it does), and a run
 * starts its threads at once. Set again once each thread was up, it saved 7–13 MB of peak RSS and
 * cost ~50 ms of start-up (11 alternating runs, 2026-11-26): not done (docs/design.md).
 *
 * V8 flags set at run time, which Node does not support: no supported API sizes the main
 * thread's heap from inside the process (Worker `resourceLimits` sizes workers only, and
 * NODE_OPTIONS or a shebang's arguments do not reach `node bin/carrier-conformance.js`).
 */
export function keepHeapsNearWhatTheyHold(): void {
  for (const flag of ['--min-semi-space-size=4', '--max-semi-space-size=4', '--heap-growing-percent=20'])
    setFlagsFromString(flag);
}
