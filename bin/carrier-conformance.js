#!/usr/bin/env node
// The CLI entry point: runs the compiled harness (dist/, built by `npm install` via "prepare").
import { existsSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';

// A run allocates much and keeps little (a walk reads a page, judges it and drops it), so the
// heaps are kept near what they hold, flat from 100 000 to 1 000 000 items (README, Speed):
// - the worker threads (the battery) get a young generation of 2 × 4 MB from their start: V8
//   sizes a heap from these flags when it creates it, so they are set before the workers start;
// - the main thread's heap exists already: its young generation would grow to 2 × 16 MB during
//   Vitest's start-up and keep them for the whole run (~25 MB of the peak RSS). A growth factor
//   of 1, read at each collection, keeps it at its initial size (costs ~40 ms of start-up);
// - every old generation grows by a fifth over what it holds, not by several times.
// No supported Node API sizes the main thread's heap once the process runs (Worker
// `resourceLimits` sizes workers only; NODE_OPTIONS and a shebang's arguments do not reach
// `node bin/carrier-conformance.js`), hence v8.setFlagsFromString.
for (const flag of ['--min-semi-space-size=4', '--max-semi-space-size=4', '--semi-space-growth-factor=1', '--heap-growing-percent=20']) setFlagsFromString(flag);

const entry = new URL('../dist/src/cli/entry.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('carrier-conformance: the harness is not built; run `npm install` (or `npm run build`) in its directory first\n');
  process.exit(2);
}
await import(entry.href);
