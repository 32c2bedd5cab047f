import { setFlagsFromString } from 'node:v8';

/**
 * A run allocates much and keeps little (a walk reads a page, judges it and drops it), so the
 * heaps are kept near what they hold, flat from 100 000 to 1 000 000 items (README, Speed):
 *
 * - the worker threads (the battery) get a young generation of 2 × 4 MB from their start: V8
 *   sizes a heap from these flags when it creates it, so this runs before Vitest starts them;
 * - the main thread's young generation stops growing where the CLI's own modules left it (2 × 4
 *   MB): left to grow, Vitest's start-up took it to 2 × 16 MB, kept idle for the whole run. V8
 *   reads the growth factor at each collection. Set before the CLI's modules load (2 × 1 MB), it
 *   saved ~6 MB more and cost ~40 ms of start-up in extra collections while Vitest loads;
 * - every old generation grows by a fifth over what it holds, not by several times.
 *
 * V8 flags set at run time, which Node does not support: no supported API sizes the main
 * thread's heap from inside the process (Worker `resourceLimits` sizes workers only, and
 * NODE_OPTIONS or a shebang's arguments do not reach `node bin/carrier-conformance.js`).
 */
export function keepHeapsNearWhatTheyHold(): void {
  for (const flag of ['--min-semi-space-size=4', '--max-semi-space-size=4', '--semi-space-growth-factor=1', '--heap-growing-percent=20']) setFlagsFromString(flag);
}
