import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * The package root: the nearest folder above this file with a package.json. This file runs as
 * `src/core/version.ts` (tests, the battery from sources), `dist/src/version.js` (the battery's
 * workers) or inside the CLI's bundle in `dist/cli/` (src/build/bundle-cli.ts).
 */
function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('carrier-conformance: cannot find its package.json');
    dir = parent;
  }
  return dir;
}

export const PACKAGE_ROOT = findPackageRoot();

/**
 * Whether this is the compiled harness (dist/, the CLI) rather than its TypeScript sources (the
 * harness's own tests, through Vite).
 */
export const FROM_BUILD = fileURLToPath(import.meta.url).endsWith('.js');

/**
 * A file of the compiled harness, by its path under dist/ (e.g. `src/runner/document-worker.js`):
 * found from the package root, not from the module asking, which the CLI's bundle moves.
 */
export function builtFile(path: string): URL {
  return pathToFileURL(join(PACKAGE_ROOT, 'dist', path));
}

export const TOOL_NAME = 'carrier-conformance';

export const TOOL_VERSION: string = (
  JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;
