import {
  closeSync,
  constants as fsConstants,
  fstatSync,
  lstatSync,
  openSync,
  read,
  readSync,
  statSync,
  type BigIntStats,
} from 'node:fs';
import { UsageError } from './errors.js';
import { jsonParseProblem } from './json-problem.js';

/**
 * Reading the files the harness is given: the user's (config, expectations, baseline, secret, CA,
 * keys) and other people's (reports, bundles, CI artifacts), any of which may be hostile. Every
 * read goes through `readRegularFile`: only a regular file is opened, never more than its limit
 * is read, and a problem is one line that names the file and the reason (a UsageError, exit 2),
 * never a hang or a stack trace.
 */

/** How much of a kind of file is read at most, and what that kind is called when one is larger. */
export interface FileLimit {
  maxBytes: number;
  /** For the message about a file over the limit: "… more than the N bytes a report can be". */
  of: string;
}

const MiB = 1024 * 1024;

/**
 * Each far above what an honest file of its kind holds, far below what would exhaust memory: a
 * JSON file is parsed into several times its size.
 */
/**
 * Advice for a URL given where a file is wanted (Schemathesis and Spectral take URLs; the harness
 * reads files and fetches nothing a user or a document names), or undefined for a path.
 */
export function urlInsteadOfFile(
  value: string,
  takes: string,
  advice = 'download the document first (curl -fsSL -o openapi.yaml URL) and give its path',
): string | undefined {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return undefined;
  return `${JSON.stringify(value)} is a URL; ${takes} takes a file: ${advice}`;
}

export const FILE_LIMITS = {
  /** A --config file: a few dozen options. */
  config: { maxBytes: 1 * MiB, of: 'a config file' },
  /** An --expectations file: the known data of the test account. */
  expectations: { maxBytes: 16 * MiB, of: 'an expectations file' },
  /** A --baseline file: one entry per known failure, at most one per check. */
  baseline: { maxBytes: 4 * MiB, of: 'a baseline file' },
  /** --client-secret-file: one line. */
  secret: { maxBytes: 64 * 1024, of: 'a client secret file' },
  /** --ca-file: a bundle of PEM certificates (all of Mozilla's is about 200 KB). */
  ca: { maxBytes: 4 * MiB, of: 'a CA file' },
  /** --cert: a client certificate and its chain, PEM. */
  certificate: { maxBytes: 1 * MiB, of: 'a PEM certificate file' },
  /** --key-passphrase-file: one line. */
  passphrase: { maxBytes: 64 * 1024, of: 'a passphrase file' },
  /** --sign-key, --public-key: one Ed25519 PEM key, a few hundred bytes. */
  key: { maxBytes: 64 * 1024, of: 'a PEM key' },
  /** `traffic`'s HAR captures (issue 43): a day of a browser's traffic; larger ones are for the streamed NDJSON reader. */
  capture: { maxBytes: 512 * MiB, of: 'a HAR capture' },
  /** `traffic`'s NDJSON captures and gateway logs, streamed a line at a time: a month of a busy gateway's log. */
  log: { maxBytes: 64 * 1024 * MiB, of: 'an NDJSON capture' },
  /** --openapi, when its digest goes into a bundle's target.json. */
  openapi: { maxBytes: 64 * MiB, of: 'an OpenAPI document' },
} as const satisfies Record<string, FileLimit>;

/** For readers that do not say their kind: as generous as the largest JSON input of the user's. */
const DEFAULT_LIMIT: FileLimit = { maxBytes: 16 * MiB, of: 'an input file' };

export interface RegularFileOptions {
  /**
   * Refuse a symbolic link rather than follow it: for a file inside something third-party (a
   * bundle, a directory of reports), where a link could point anywhere on this machine. A path the
   * operator names is trusted as a path, links and all.
   */
  noFollow?: boolean;
}

/** Why `stat` is not a regular file, in the words of the error message. */
function notRegular(stat: BigIntStats): string | undefined {
  if (stat.isFile()) return undefined;
  if (stat.isFIFO()) return 'it is a FIFO';
  if (stat.isDirectory()) return 'it is a directory';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'it is a device';
  if (stat.isSocket()) return 'it is a socket';
  if (stat.isSymbolicLink()) return 'a symbolic link, refused';
  return 'not a regular file';
}

function reasonOf(err: unknown, noFollow: boolean): string {
  const code = (err as { code?: string }).code;
  switch (code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'it is a directory';
    // O_NOFOLLOW on a link: the link was put there between the lstat and the open.
    case 'ELOOP':
      return noFollow ? 'a symbolic link, refused' : 'a loop of symbolic links';
    default:
      return code ?? (err as Error).message;
  }
}

/**
 * Reads at most `limit.maxBytes` of a regular file, or throws a one-line UsageError
 * "<what> <path>: cannot read it (<reason>)".
 *
 * The type is checked before the file is opened: opening a FIFO blocks until someone writes to
 * it, inside a synchronous call, where not even SIGTERM is handled; opening a device can have
 * effects of its own. The open is non-blocking anyway (a FIFO put there after the check cannot
 * block either), and the descriptor must be the very file that was checked (same device and
 * inode): whatever was swapped in between is refused, not read.
 */
export function readRegularFile(
  path: string,
  what: string,
  limit: FileLimit,
  options: RegularFileOptions = {},
): Buffer {
  const { fd, size, fail } = openRegularFile(path, what, limit, options);
  const { maxBytes } = limit;
  try {
    // One byte more than the file holds: a file that grows while it is read is noticed, and read
    // on, up to one byte past the limit.
    let buffer = Buffer.alloc(size + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > maxBytes)
          throw new UsageError(`${what} ${path}: more than the ${maxBytes} bytes ${limit.of} can be`);
        const grown = Buffer.alloc(Math.min(buffer.length * 2, maxBytes + 1));
        buffer.copy(grown);
        buffer = grown;
      }
      let n: number;
      try {
        n = readSync(fd, buffer, length, buffer.length - length, null);
      } catch (err) {
        return fail(err);
      }
      if (n === 0) return buffer.subarray(0, length);
      length += n;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads a regular file as `readRegularFile` does, a chunk at a time into `take` (for a file too
 * large to hold: a bundle's exchanges), never more than `limit.maxBytes`.
 */
export function readRegularFileChunks(
  path: string,
  what: string,
  limit: FileLimit,
  take: (chunk: Buffer) => void,
  options: RegularFileOptions = {},
): void {
  const { fd, fail } = openRegularFile(path, what, limit, options);
  try {
    const buffer = Buffer.alloc(1024 * 1024);
    let total = 0;
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, buffer, 0, buffer.length, null);
      } catch (err) {
        return fail(err);
      }
      if (n === 0) return;
      total += n;
      if (total > limit.maxBytes)
        throw new UsageError(`${what} ${path}: more than the ${limit.maxBytes} bytes ${limit.of} can be`);
      take(buffer.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * The chunks of a regular file checked as `readRegularFile` describes, read asynchronously: a
 * reader of gigabytes (`traffic`'s NDJSON) yields between chunks, so that --deadline and signals
 * stop it. Never more than `limit.maxBytes`.
 */
export async function* regularFileChunks(
  path: string,
  what: string,
  limit: FileLimit,
  options: RegularFileOptions = {},
): AsyncGenerator<Buffer> {
  const { fd, fail } = openRegularFile(path, what, limit, options);
  try {
    let total = 0;
    for (;;) {
      const buffer = Buffer.alloc(1024 * 1024);
      let n: number;
      try {
        n = await new Promise<number>((done, failed) =>
          read(fd, buffer, 0, buffer.length, null, (err, bytes) => (err ? failed(err) : done(bytes))),
        );
      } catch (err) {
        return fail(err);
      }
      if (n === 0) return;
      total += n;
      if (total > limit.maxBytes)
        throw new UsageError(`${what} ${path}: more than the ${limit.maxBytes} bytes ${limit.of} can be`);
      yield buffer.subarray(0, n);
    }
  } finally {
    closeSync(fd);
  }
}

/** Opens a regular file checked as `readRegularFile` describes; the caller closes `fd`. */
function openRegularFile(
  path: string,
  what: string,
  limit: FileLimit,
  options: RegularFileOptions,
): { fd: number; size: number; fail: (reason: unknown) => never } {
  const noFollow = options.noFollow === true;
  const fail = (reason: unknown): never => {
    throw new UsageError(
      `${what} ${path}: cannot read it (${typeof reason === 'string' ? reason : reasonOf(reason, noFollow)})`,
    );
  };
  let checked: BigIntStats;
  try {
    checked = noFollow ? lstatSync(path, { bigint: true }) : statSync(path, { bigint: true });
  } catch (err) {
    return fail(err);
  }
  const kind = notRegular(checked);
  if (kind !== undefined) return fail(kind);

  let fd: number;
  try {
    fd = openSync(path, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK | (noFollow ? fsConstants.O_NOFOLLOW : 0));
  } catch (err) {
    return fail(err);
  }
  try {
    const opened = fstatSync(fd, { bigint: true });
    const swapped = notRegular(opened);
    if (swapped !== undefined) return fail(swapped);
    if (opened.dev !== checked.dev || opened.ino !== checked.ino) return fail('it was replaced while being opened');
    if (opened.size > BigInt(limit.maxBytes))
      throw new UsageError(
        `${what} ${path}: ${opened.size} bytes, more than the ${limit.maxBytes} ${limit.of} can be; is it the right file?`,
      );
    return { fd, size: Number(opened.size), fail };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/** A text file (UTF-8), read as `readRegularFile` reads. */
export function readTextFile(
  path: string,
  what: string,
  limit: FileLimit = DEFAULT_LIMIT,
  options: RegularFileOptions = {},
): string {
  return readRegularFile(path, what, limit, options).toString('utf8');
}

export function readJsonFile(path: string, what: string, limit: FileLimit = DEFAULT_LIMIT): unknown {
  const text = readTextFile(path, what, limit);
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    // Line and column, which an editor can go to; never the piece of the text JSON.parse quotes.
    throw new UsageError(`${what} ${path}: not valid JSON (${jsonParseProblem(text, err)})`);
  }
}
