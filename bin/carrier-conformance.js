#!/usr/bin/env node
// The CLI entry point: runs the compiled harness (dist/, built by `npm install` via "prepare").
import { existsSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';

// A run allocates much and keeps little (a walk reads a page, judges it and drops it): a young
// generation of 2 × 4 MB and an old generation that grows by a fifth over what it holds keep the
// process near what it holds, flat from 100 000 to 1 000 000 items (README, Speed). V8 reads
// both when it sizes a heap, so they are set before the worker threads start.
setFlagsFromString('--max-semi-space-size=4');
setFlagsFromString('--heap-growing-percent=20');

const entry = new URL('../dist/src/cli/entry.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('carrier-conformance: the harness is not built; run `npm install` (or `npm run build`) in its directory first\n');
  process.exit(2);
}
await import(entry.href);
