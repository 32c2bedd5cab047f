import { rmSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join } from 'node:path';
import { rolldown } from 'rolldown';
import { PACKAGE_ROOT } from '../core/version.js';

/**
 * `npm run build`, last: the CLI's main thread as one bundle (dist/cli/entry.js, its lazily
 * loaded parts as chunks beside it), with zod and yargs inside it, tree-shaken.
 *
 * Why: a run's start is bound by this thread (its modules, then Vitest's, then Vitest's
 * workers), and loading zod (~90 ms: `zod` loads every one of its locales) and yargs (~100 ms,
 * string-width and cliui with it) as hundreds of files was the largest part of the harness's own
 * start-up. Bundled, the CLI's modules load in ~0.1 s less (docs/design.md, Start-up).
 *
 * What stays outside: Vitest (it starts its own workers from its files), and every package the
 * harness loads on demand (undici, ajv, junit-report-builder: createRequire) or on other threads
 * (the battery's workers and the OpenAPI thread load dist/src/ natively). The main thread loads
 * the harness's modules only from the bundle, so that each exists once there (one redactor).
 * A module that finds files relative to itself goes through version.ts's PACKAGE_ROOT instead.
 */

/** Packages the CLI's own code imports that go into the bundle, with whatever they import. */
const BUNDLED = new Set(['zod', 'yargs']);

const packageOf = (id: string): string =>
  id
    .split('/')
    .slice(0, id.startsWith('@') ? 2 : 1)
    .join('/');

const outDir = join(PACKAGE_ROOT, 'dist', 'cli');
rmSync(outDir, { recursive: true, force: true });
const bundle = await rolldown({
  input: { entry: join(PACKAGE_ROOT, 'dist', 'src', 'cli', 'entry.js') },
  platform: 'node',
  external: (id, importer) => {
    if (isBuiltin(id)) return true;
    if (id.startsWith('.') || id.startsWith('/') || /^[A-Za-z]:[\\/]/.test(id)) return false;
    // A bundled package's own imports are bundled with it.
    if (importer !== undefined && /[\\/]node_modules[\\/]/.test(importer)) return false;
    return !BUNDLED.has(packageOf(id));
  },
});
await bundle.write({
  dir: outDir,
  format: 'esm',
  entryFileNames: '[name].js',
  chunkFileNames: 'chunks/[name]-[hash].js',
  sourcemap: true,
});
await bundle.close();
