#!/usr/bin/env node
// The CLI entry point: runs the compiled harness (dist/: in the package's tarball, built by
// `npm run build` in a clone): the main thread's bundle, dist/cli/ (src/build/bundle-cli.ts).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli/entry.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('carrier-conformance: the harness is not built; run `npm run build` in its directory first\n');
  process.exit(2);
}
await import(entry.href);
