import {
  closeSync,
  constants as fsConstants,
  createReadStream,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createGunzip } from 'node:zlib';
import { create as createTar, Parser, type ReadEntry } from 'tar';
import { UsageError } from '../core/errors.js';
import { oneLine, printable } from '../core/wording.js';
import { REPORT_MAX_BYTES } from '../report/read.js';
import { EXCHANGES_LIMIT } from './evidence.js';
import { BUNDLE_FILES, BUNDLE_NAMES, PART_FILES, PART_NAMES, PARTS_DIR } from '../certification/bundle-format.js';

/**
 * A bundle as one file to send (issue 39 item 11): the bundle's folder as a gzip-compressed tar
 * archive, `NAME.tar.gz` or `NAME.tgz`. `run --bundle` and `combine-bundles --output` write one
 * when the path ends so; `verify-bundle`, `matrix` and `combine-bundles` read one as they read the
 * folder, from a private folder it is unpacked into and removed from afterwards.
 *
 * An archive is someone else's file (docs/security.md): it is read as data, never extracted by
 * the paths it names. Only the bundle's own fixed names are taken (format.ts: BUNDLE_NAMES, a
 * combined bundle's PART_FILES), each at most once, as plain files (no link, device or FIFO), each
 * within the limit the folder's reader sets for it; the whole within a bound on what it
 * decompresses to, so that a small archive cannot fill the disk. Anything else refuses it.
 */

export const ARCHIVE_SUFFIXES = ['.tar.gz', '.tgz'] as const;

/** Whether a bundle path names the archive form. */
export function isArchivePath(path: string): boolean {
  return ARCHIVE_SUFFIXES.some((suffix) => path.toLowerCase().endsWith(suffix));
}

/** The archive file itself: far above a conformant bundle's, compressed. */
const ARCHIVE_MAX_BYTES = EXCHANGES_LIMIT;
/** What it may decompress to: a combined bundle holds two runs' exchanges. */
const UNPACKED_MAX_BYTES = 2 * EXCHANGES_LIMIT + 16 * REPORT_MAX_BYTES;
/** A pax header is a few names and numbers. */
const MAX_META_BYTES = 64 * 1024;

const PART_DIRS = [PARTS_DIR, ...PART_NAMES.map((part) => `${PARTS_DIR}/${part}`)];
const FILE_NAMES = new Set([...BUNDLE_NAMES, ...PART_FILES]);

function limitOf(name: string): number {
  return name === BUNDLE_FILES.exchanges || name.endsWith(`/${BUNDLE_FILES.exchanges}`)
    ? EXCHANGES_LIMIT
    : REPORT_MAX_BYTES;
}

/** Folders to remove when the process ends, whichever way: an archive unpacked must not stay in the temporary folder. */
const unpacked = new Set<string>();
let cleanupInstalled = false;
export function removeAtExit(dir: string): void {
  unpacked.add(dir);
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  const removeAll = (): void => {
    for (const d of unpacked) rmSync(d, { recursive: true, force: true });
    unpacked.clear();
  };
  process.once('exit', removeAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = (): void => {
      // A command that handles the signal itself (a run: it ends with its partial report, and
      // its bundle) ends through 'exit', which removes them: not now, while it still writes there.
      if (process.listenerCount(signal) > 1) return;
      removeAll();
      process.off(signal, onSignal);
      // The signal's own ending, as if this listener had not been here.
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

/** Removes a folder `unpackBundle` made. */
export async function removeUnpacked(dir: string): Promise<void> {
  unpacked.delete(dir);
  await rm(dir, { recursive: true, force: true });
}

/** What is wrong with an entry of the archive, in the words of the refusal; undefined if it is taken, with its name in the bundle. */
class EntryNames {
  #prefix: string | undefined;
  readonly #seen = new Set<string>();

  /** The bundle name of `path`, or why it is refused. */
  take(path: string, directory: boolean): { name: string } | { skip: true } | { refused: string } {
    let name = path.replace(/^(?:\.\/)+/, '').replace(/\/+$/, '');
    if (name === '' || name === '.') return directory ? { skip: true } : { refused: 'a file with no name' };
    if (this.#prefix === undefined) {
      // `tar -czf b.tar.gz -C bundle .` names report.json; `tar -czf b.tar.gz bundle` names bundle/report.json.
      const slash = name.indexOf('/');
      const first = slash === -1 ? name : name.slice(0, slash);
      const known = FILE_NAMES.has(name) || PART_DIRS.includes(name);
      this.#prefix = known ? '' : `${first}/`;
      if (!known && directory && slash === -1) return { skip: true };
    }
    if (!name.startsWith(this.#prefix)) return { refused: 'outside the folder the other entries are in' };
    name = name.slice(this.#prefix.length);
    if (name.split('/').some((segment) => segment === '' || segment === '.' || segment === '..'))
      return { refused: 'not a plain name' };
    if (directory ? !PART_DIRS.includes(name) : !FILE_NAMES.has(name))
      return { refused: `not part of a bundle${directory ? ' (a folder)' : ''}` };
    if (this.#seen.has(name)) return { refused: 'in the archive twice' };
    this.#seen.add(name);
    return { name };
  }
}

/** Opens only a regular file, not through a link; its size bounded. */
function openArchive(file: string, what: string): number {
  let fd: number;
  try {
    const stat = lstatSync(file);
    if (stat.isSymbolicLink())
      throw new UsageError(`${what} ${file}: a symbolic link, refused; give the archive itself`);
    if (!stat.isFile()) throw new UsageError(`${what} ${file}: not a regular file`);
    fd = openSync(file, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const code = (err as { code?: string }).code;
    throw new UsageError(
      `${what} ${file}: cannot read it (${code === 'ENOENT' ? 'no such file' : (code ?? (err as Error).message)})`,
    );
  }
  const stat = fstatSync(fd);
  if (!stat.isFile()) {
    closeSync(fd);
    throw new UsageError(`${what} ${file}: not a regular file`);
  }
  if (stat.size > ARCHIVE_MAX_BYTES) {
    closeSync(fd);
    throw new UsageError(`${what} ${file}: more than the ${ARCHIVE_MAX_BYTES} bytes a bundle archive can be`);
  }
  return fd;
}

/**
 * Unpacks the bundle archive `file` into a new private folder and returns it; the caller removes
 * it (removeUnpacked), and the process does if it ends first. A refusal is a one-line UsageError
 * naming the archive and the entry: `what` begins it ("verify-bundle").
 */
export async function unpackBundle(
  file: string,
  what: string,
  options: { signal?: AbortSignal; maxUnpackedBytes?: number } = {},
): Promise<string> {
  const fd = openArchive(file, what);
  const dir = await mkdtemp(join(tmpdir(), 'carrier-unpacked-bundle-'));
  removeAtExit(dir);
  try {
    await readEntries(fd, file, what, dir, options.maxUnpackedBytes ?? UNPACKED_MAX_BYTES, options.signal);
  } catch (err) {
    await removeUnpacked(dir);
    throw err;
  }
  return dir;
}

async function readEntries(
  fd: number,
  file: string,
  what: string,
  dir: string,
  maxUnpackedBytes: number,
  signal?: AbortSignal,
): Promise<void> {
  const names = new EntryNames();
  let refusal: UsageError | undefined;
  const refuse = (message: string): void => {
    refusal ??= new UsageError(`${what} ${file}: ${message}`);
  };
  const parser = new Parser({
    strict: true,
    maxMetaEntrySize: MAX_META_BYTES,
    onReadEntry: (entry: ReadEntry) => {
      if (refusal !== undefined) return void entry.resume();
      const quoted = JSON.stringify(printable(oneLine(entry.path, 120)));
      const directory = entry.type === 'Directory';
      if (!directory && entry.type !== 'File' && entry.type !== 'OldFile' && entry.type !== 'ContiguousFile') {
        refuse(
          `${quoted} is a ${entry.type === 'SymbolicLink' ? 'symbolic link' : entry.type === 'Link' ? 'hard link' : `${entry.type} entry`}, refused: a bundle holds plain files only`,
        );
        return void entry.resume();
      }
      const taken = names.take(entry.path, directory);
      if ('refused' in taken) {
        refuse(`${quoted}: ${taken.refused}, refused`);
        return void entry.resume();
      }
      if ('skip' in taken) return void entry.resume();
      const target = join(dir, taken.name);
      if (directory) {
        mkdirSync(target, { recursive: true, mode: 0o700 });
        return void entry.resume();
      }
      if (entry.size > limitOf(taken.name)) {
        refuse(
          `${quoted}: more than the ${limitOf(taken.name)} bytes a bundle's ${taken.name.split('/').at(-1) ?? ''} can be`,
        );
        return void entry.resume();
      }
      mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
      // A new file (wx): nothing of the archive's choosing is followed or overwritten.
      const out = openSync(target, 'wx', 0o600);
      entry.on('data', (chunk: Buffer) => void writeSync(out, chunk));
      entry.on('end', () => closeSync(out));
    },
  });
  parser.on('error', (err: Error) => refuse(`not a bundle archive (${oneLine(err.message, 160)})`));

  const gunzip = createGunzip();
  const input = createReadStream('', { fd, autoClose: true });
  const stop = (): void => {
    input.destroy();
    gunzip.destroy();
  };
  signal?.addEventListener('abort', stop, { once: true });
  let total = 0;
  try {
    input.pipe(gunzip);
    input.on('error', (err) => gunzip.destroy(err));
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > maxUnpackedBytes)
        throw new UsageError(`${what} ${file}: unpacks to more than the ${maxUnpackedBytes} bytes a bundle can hold`);
      parser.write(chunk);
      if (refusal !== undefined) throw refusal;
    }
    await new Promise<void>((resolve) => parser.end(resolve));
  } catch (err) {
    if (err instanceof UsageError) throw err;
    if (signal?.aborted) throw new UsageError(`${what} ${file}: stopped (${String(signal.reason)})`);
    throw new UsageError(
      `${what} ${file}: not a gzip-compressed tar archive (${oneLine((err as { code?: string }).code ?? (err as Error).message, 120)})`,
    );
  } finally {
    signal?.removeEventListener('abort', stop);
    input.destroy();
  }
  if (refusal !== undefined) throw refusal;
  if (total === 0) throw new UsageError(`${what} ${file}: an empty archive`);
}

/**
 * Runs `use` on the bundle at `path`: a folder as it is; an archive unpacked into a private
 * folder, removed once `use` has settled.
 */
export async function withBundle<T>(
  path: string,
  what: string,
  use: (dir: string) => T | Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  if (!isArchivePath(path)) return use(path);
  const dir = await unpackBundle(path, what, signal ? { signal } : {});
  try {
    return await use(dir);
  } finally {
    await removeUnpacked(dir);
  }
}

/**
 * Packs the bundle folder `dir` into the archive `file` (replacing it): its fixed names only, as
 * plain files without owners or times (the same bundle packs to the same bytes), written beside
 * it first and renamed into place, so that an interrupted write leaves no half archive.
 */
export async function packBundle(dir: string, file: string): Promise<void> {
  const names = [...BUNDLE_NAMES, ...PART_FILES].filter((name) => {
    try {
      return lstatSync(join(dir, name)).isFile();
    } catch {
      return false;
    }
  });
  const partial = `${file}.partial`;
  try {
    await createTar(
      { gzip: { level: 9 }, portable: true, noMtime: true, cwd: dir, file: partial, noDirRecurse: true },
      names,
    );
    await rename(partial, file);
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
}
