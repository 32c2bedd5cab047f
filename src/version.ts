import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package root: the nearest folder above this file with a package.json. This file runs as
 * `src/version.ts` (tests, the battery from sources) or `dist/src/version.js` (the CLI).
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

export const TOOL_NAME = 'carrier-conformance';

export const TOOL_VERSION: string = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
