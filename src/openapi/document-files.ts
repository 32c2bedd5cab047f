import { createHash } from 'node:crypto';
import { constants as fsConstants, type Stats } from 'node:fs';
import { open, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CORE_SCHEMA,
  binaryTag,
  load,
  mergeTag,
  omapTag,
  pairsTag,
  setTag,
  timestampTag,
  YAMLException,
} from 'js-yaml';
import { UsageError } from '../core/errors.js';
import { renderUnsafe } from '../core/text-safety.js';

/**
 * The files of an --openapi document, read for @readme/openapi-parser as its file resolver
 * (json-schema-ref-parser's `resolve.file`): the document is untrusted input, written by a vendor
 * (issue 28), and the parser would otherwise read whatever a `$ref` names, parse it without bounds
 * and fetch URLs.
 *
 * - Confinement. A `$ref` is read only inside one root folder: the document's own, or the one
 *   the operator names with --openapi-root. Its path and then its real path (symbolic links
 *   followed) must be inside the root's real path; a `$ref` that leaves it (absolute, `..`, a
 *   link) is refused before anything outside is touched. Never /proc, /sys or /dev (kernel
 *   pseudo-files: /proc/self/environ is the job's environment, tokens and all), whatever the root;
 *   only regular files, checked with stat before opening, and opened non-blocking, so that a FIFO
 *   cannot hold the run. Remote `$ref`s (http, https, any other scheme) are never fetched.
 * - Bounds. Each file and all of them together have a size limit; YAML is read by this module
 *   (js-yaml, the parser the ref-parser bundles) with a limit on aliases and nesting, and every
 *   value is measured with its aliases expanded, so that a "billion laughs" is refused here,
 *   before the parser, the harness or the battery's workers walk it (issue 28 item 3: 524 s and
 *   4.3 GB for one). The limits are far above real documents (Stripe's is ~6 MB).
 *
 * What this module refuses, it records: the first refusal is the one-line usage error of the run
 * (the parser's own message about a failed resolver says less).
 */

export interface DocumentLimits {
  /** Bytes of one file; also what one file may expand to once its YAML aliases are followed. */
  fileBytes: number;
  /** Bytes of all the files of the document together, expanded likewise; and of the bundled document. */
  totalBytes: number;
  /** YAML aliases (`*name`) in one file. */
  aliases: number;
  /** Nesting of objects and arrays, aliases and `$ref`d files included. */
  depth: number;
  /** `$id`s times the characters of the distinct `$ref`s in the document file (see `idMatching`): ~18 s of the parser's at most. */
  idMatching: number;
}

const MiB = 1024 * 1024;

export const DOCUMENT_LIMITS: Readonly<DocumentLimits> = {
  fileBytes: 32 * MiB,
  totalBytes: 64 * MiB,
  aliases: 10_000,
  depth: 256,
  idMatching: 4e9,
};

/** What the fix is, in a refusal that --openapi-root would allow. */
const WIDEN = '--openapi-root DIR names a wider folder $refs may reach';

/** Kernel pseudo-file systems: what they hold is the machine's, never part of a document. */
const PSEUDO_ROOTS = ['/proc', '/sys', '/dev'];

/** The ref-parser's text and binary parsers take these as they are (its TEXT_REGEXP and BINARY_REGEXP): no structure to bound. */
const RAW_EXTENSIONS = /\.(txt|htm|html|md|xml|js|min|map|css|scss|less|svg|jpeg|jpg|gif|png|bmp|ico)$/i;

/** YAML 1.1 tags that js-yaml v4 read by default: the ref-parser falls back to them when the core schema fails, and so does this module. */
const LEGACY_YAML_SCHEMA = CORE_SCHEMA.withTags(timestampTag, mergeTag, binaryTag, omapTag, pairsTag, setTag);

/** The json-schema-ref-parser's file info, as much as this module reads of it. */
interface RefFile {
  url: string;
  extension?: string;
  /** The `$ref` as the document wrote it (absent for the document itself). */
  reference?: string;
}

/** A json-schema-ref-parser resolver plugin. */
export interface Resolver {
  order: number;
  canRead: boolean | ((file: RefFile) => boolean);
  read: (file: RefFile) => Promise<unknown>;
}

/** Text from the document, fit for a one-line message: no control or bidi characters, cut short. */
export function neutralised(text: string, max = 120): string {
  // Whitespace too: a message is one line.
  const clean = renderUnsafe(text, () => '?', '\t\n\r');
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

function mib(bytes: number): string {
  return bytes % MiB === 0 ? `${bytes / MiB} MiB` : `${bytes} bytes`;
}

/** `child` is `root` or inside it (both absolute and normalised). */
function inside(root: string, child: string): boolean {
  const rel = relative(root, child);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** The kind of a file that is not a regular one, for messages. */
function kindOf(info: {
  isDirectory(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
}): string {
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a FIFO';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/** The file-system path of a ref-parser URL (an absolute path, URI-encoded, or a file: URL), or undefined for any other scheme. */
export function pathOf(url: string): string | undefined {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  // One letter: a Windows drive (C:\…), which the ref-parser also takes for a path.
  if (scheme !== undefined && scheme !== 'file' && scheme.length > 1) return undefined;
  const escaped = url.replace(/%(?![0-9A-Fa-f]{2})/g, '%25');
  try {
    return scheme === 'file' ? fileURLToPath(escaped) : resolve(decodeURIComponent(escaped));
  } catch {
    return resolve(url);
  }
}

/** A value's size as JSON would spell it, roughly and never more (1 a value, plus its text), its nesting, and its `$id`s. */
export interface Measure {
  weight: number;
  height: number;
  /** Objects with a string `$id`, aliases expanded (see `idMatching`). */
  ids: number;
}

/** Why measuring stopped: a limit, named for the message. */
export class LimitExceeded extends Error {}

/**
 * Measures a parsed value with its aliases (shared objects) expanded, in time linear in the
 * unexpanded value: each object is measured once. Throws LimitExceeded past `maxWeight`,
 * `maxDepth` or on a cycle (a YAML alias inside its own anchor), which no JSON value has. The
 * `$ref` strings it holds are added to `refs`.
 */
export function measure(value: unknown, maxWeight: number, maxDepth: number, refs = new Set<string>()): Measure {
  const done = new Map<object, Measure>();
  const inProgress = new Set<object>();
  const visit = (node: unknown, depth: number): Measure => {
    if (typeof node === 'string') return { weight: 1 + node.length, height: 0, ids: 0 };
    if (node === null || typeof node !== 'object') return { weight: 1, height: 0, ids: 0 };
    if (depth > maxDepth) throw new LimitExceeded(`it nests objects and arrays more than ${maxDepth} deep`);
    const known = done.get(node);
    if (known) {
      if (depth - 1 + known.height > maxDepth)
        throw new LimitExceeded(
          `it nests objects and arrays more than ${maxDepth} deep with its YAML aliases followed`,
        );
      return known;
    }
    if (inProgress.has(node))
      throw new LimitExceeded('a YAML alias refers to a node that contains it (an endless value)');
    inProgress.add(node);
    const measured: Measure = { weight: 1, height: 0, ids: 0 };
    const add = (child: Measure, extra: number): void => {
      measured.weight += extra + child.weight;
      measured.height = Math.max(measured.height, child.height);
      measured.ids += child.ids;
      if (measured.weight > maxWeight)
        throw new LimitExceeded(`it expands to more than ${mib(maxWeight)} with its YAML aliases followed`);
    };
    if (Array.isArray(node)) {
      for (const item of node as unknown[]) add(visit(item, depth + 1), 0);
    } else if (!ArrayBuffer.isView(node)) {
      const object = node as Record<string, unknown>;
      if (typeof object.$id === 'string') measured.ids += 1;
      if (typeof object.$ref === 'string') refs.add(object.$ref);
      for (const [key, item] of Object.entries(object)) add(visit(item, depth + 1), key.length);
    }
    inProgress.delete(node);
    measured.height += 1;
    done.set(node, measured);
    return measured;
  };
  return visit(value, 1);
}

/**
 * The work @readme/openapi-parser's `stripOrphanedIds` does on the document file (9.0.0): every
 * object with an `$id` is compared with every distinct `$ref` of the file, characters and all
 * (decodeURIComponent, then includes), and its walk follows aliases. Measured: 5 000 `$id`s and
 * 5 000 `$ref`s of ~40 characters took 4.6 s, 20 000 of each 78 s (a 3.3 MB document). The
 * count here is that product, in characters.
 */
export function idMatching(ids: number, refs: ReadonlySet<string>): number {
  let characters = 0;
  for (const ref of refs) characters += ref.length;
  return ids * characters;
}

/**
 * The files of one document: a resolver for the parser, the limits it keeps, and what it refused.
 */
export class DocumentFiles {
  readonly document: string;
  /** Where `$ref`s may lead: the folder as the operator gave it, and its real path. */
  private readonly root: string;
  private realRoot: Promise<string> | undefined;
  private readonly rootSource: string;
  private bytes = 0;
  private expanded = 0;
  /** The first refusal, or the first file that could not be read: the run's one line. */
  failure: UsageError | undefined;
  /** Whether the document itself was read here (and not by a resolver of the parser's own). */
  documentRead = false;
  /** Every file read, by path: the SHA-256 of its bytes (a profile pins each: issue 39 item 8). */
  readonly digests = new Map<string, string>();
  /** With keepTexts: every file's text as read, for lint to place its findings without reading the file again. */
  texts: Map<string, string> | undefined;

  constructor(
    document: string,
    root: string | undefined,
    readonly limits: Readonly<DocumentLimits> = DOCUMENT_LIMITS,
  ) {
    this.document = resolve(document);
    this.root = resolve(root ?? dirname(this.document));
    this.rootSource = root === undefined ? "the document's folder" : '--openapi-root';
  }

  /** The resolver options for @readme/openapi-parser: files through `read`, nothing over the network. */
  resolverOptions(): Record<string, unknown> {
    const file: Resolver = {
      // Before any other resolver, and for every URL: what is not a file is refused here, with a reason.
      order: 1,
      canRead: true,
      read: (ref) => this.read(ref),
    };
    // The ref-parser's http resolver is kept from every URL: remote $refs are never fetched
    // (@readme/openapi-parser merges these into its http options, which it cannot switch off).
    const http = {
      canRead: () => false,
      read: () => Promise.reject(new Error('remote $refs are never fetched')),
      redirects: 0,
      timeout: 1,
    };
    return { resolve: { external: true, file, http } };
  }

  /** A one-line error about the document (`--openapi FILE: …`), recorded if it is the first. */
  private fail(message: string): never {
    const error = new UsageError(`--openapi ${neutralised(this.document, 300)}: ${message}`);
    this.failure ??= error;
    throw error;
  }

  private async read(ref: RefFile): Promise<unknown> {
    const path = pathOf(ref.url);
    const isDocument = path === this.document && ref.reference === undefined;
    const shown = `$ref "${neutralised(ref.reference ?? ref.url)}"`;
    // Refused: what the document may not read. Unreadable: what it may, but is not there or not YAML.
    const refuse = (why: string): never => this.fail(isDocument ? why : `${shown} is refused: ${why}`);
    const unreadable = (why: string): never =>
      this.fail(`cannot read it as an OpenAPI document: ${isDocument ? '' : `${shown}: `}${why}`);
    if (path === undefined)
      return refuse(
        `it is a URL, and remote $refs are never fetched; save what it points to inside ${neutralised(this.root, 200)} (${this.rootSource}; ${WIDEN})`,
      );
    const realRoot = await this.realRootOf(unreadable);
    const outside = `it leads outside ${neutralised(this.root, 200)} (${this.rootSource}); ${WIDEN}`;
    // The path first, with nothing outside touched; then where its links really lead.
    if (!isDocument && !inside(this.root, path) && !inside(realRoot, path)) refuse(outside);
    let real: string;
    try {
      real = await realpath(path);
    } catch (err) {
      return unreadable(messageOf(err));
    }
    if (isDocument ? !inside(this.root, path) && !inside(realRoot, real) : !inside(realRoot, real)) {
      refuse(
        isDocument
          ? `it is not inside --openapi-root ${neutralised(this.root, 200)}; give a folder that holds the document and its $refs`
          : `it is a symbolic link, or goes through one, that ${outside}`,
      );
    }
    let bytes: Buffer;
    try {
      // stat, not open: opening a FIFO waits for a writer. Never a pseudo-file, even inside the root.
      const info = await stat(real);
      if (!info.isFile()) refuse(`it is ${kindOf(info)}, not a regular file`);
      if (PSEUDO_ROOTS.some((p) => inside(p, real)))
        refuse(
          `${neutralised(real, 200)} is a kernel pseudo-file, not a document; no --openapi-root allows /proc, /sys or /dev`,
        );
      bytes = await this.bytesOf(real, info, refuse);
      this.digests.set(path, createHash('sha256').update(bytes).digest('hex'));
    } catch (err) {
      if (err instanceof UsageError) throw err;
      return unreadable(messageOf(err));
    }
    this.documentRead ||= isDocument;
    if (RAW_EXTENSIONS.test(real)) return bytes;
    const text = bytes.toString('utf8');
    this.texts?.set(path, text);
    return this.parse(text, ref.url, isDocument, refuse, unreadable);
  }

  /** The root's real path, found once. */
  private realRootOf(unreadable: (why: string) => never): Promise<string> {
    this.realRoot ??= (async () => {
      try {
        const real = await realpath(this.root);
        if ((await stat(real)).isDirectory()) return real;
      } catch {
        // Said below.
      }
      // Without --openapi-root, the root is the folder the document is in: it is the document that is not there.
      return this.rootSource === '--openapi-root'
        ? this.fail(`--openapi-root ${neutralised(this.root, 200)} is not a folder`)
        : unreadable('no such file or folder');
    })();
    return this.realRoot;
  }

  /**
   * The file's bytes, within the limits. As files.ts's readRegularFile (which is synchronous, and
   * words its errors for the operator's own files): opened without following a link and without
   * waiting (a FIFO swapped in since the stat cannot block), and refused unless it is the very
   * file that was checked.
   */
  private async bytesOf(real: string, checked: Stats, refuse: (why: string) => never): Promise<Buffer> {
    const { fileBytes, totalBytes } = this.limits;
    const size = checked.size;
    if (size > fileBytes)
      refuse(`it is ${size} bytes, more than the ${mib(fileBytes)} a file of the document may have`);
    const room = totalBytes - this.bytes;
    if (size > room) refuse(`the document's files come to more than ${mib(totalBytes)} with it`);
    // Reserved before the first await: the parser reads a document's files concurrently.
    this.bytes += size;
    const allowed = Math.min(fileBytes, room);
    const handle = await open(real, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
    try {
      const opened = await handle.stat();
      if (!opened.isFile()) refuse(`it is ${kindOf(opened)}, not a regular file`);
      if (opened.dev !== checked.dev || opened.ino !== checked.ino) refuse('it was replaced while it was being opened');
      // One byte more than it holds: a file that grows while it is read is noticed, and read on
      // up to one byte past what it may have.
      let buffer = Buffer.alloc(size + 1);
      let length = 0;
      for (;;) {
        if (length === buffer.length) {
          if (length > allowed) refuse(`it grew past the ${mib(allowed)} left for it while it was read`);
          const grown = Buffer.alloc(Math.min(buffer.length * 2, allowed + 1));
          buffer.copy(grown);
          buffer = grown;
        }
        const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
        if (bytesRead === 0) break;
        length += bytesRead;
      }
      this.bytes += length - size;
      return buffer.subarray(0, length);
    } finally {
      await handle.close();
    }
  }

  /** JSON or YAML, as the ref-parser would read it (JSON first but for .yaml/.yml), within the limits. */
  private parse(
    text: string,
    url: string,
    isDocument: boolean,
    refuse: (why: string) => never,
    unreadable: (why: string) => never,
  ): unknown {
    const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    if (body.trim() === '') return undefined;
    let value: unknown;
    let parsed = false;
    if (!/\.ya?ml$/i.test(url)) {
      try {
        value = JSON.parse(body);
        parsed = true;
      } catch {
        // Not JSON: YAML, as the ref-parser's YAML parser takes JSON files too.
      }
    }
    if (!parsed) value = this.yaml(body, refuse, unreadable);
    const { fileBytes, totalBytes, depth } = this.limits;
    const refs = new Set<string>();
    let measured: Measure;
    try {
      measured = measure(value, Math.min(fileBytes, totalBytes - this.expanded), depth, refs);
    } catch (err) {
      if (err instanceof LimitExceeded) refuse(err.message);
      throw err;
    }
    this.expanded += measured.weight;
    // The parser compares $ids with $refs in the document file only (its `$ref`d files are not stripped).
    if (isDocument && idMatching(measured.ids, refs) > this.limits.idMatching) {
      refuse(
        `it has ${measured.ids} $id keywords and ${refs.size} distinct $refs, which @readme/openapi-parser would compare pairwise (more than ${this.limits.idMatching.toExponential()} characters to match: minutes); keep $id to the schemas that need one`,
      );
    }
    return value;
  }

  private yaml(text: string, refuse: (why: string) => never, unreadable: (why: string) => never): unknown {
    const options = { maxAliases: this.limits.aliases, maxDepth: this.limits.depth };
    try {
      return load(text, { schema: CORE_SCHEMA, ...options });
    } catch (first) {
      const limit = limitOf(first);
      if (limit !== undefined) refuse(limit);
      try {
        return load(text, { schema: LEGACY_YAML_SCHEMA, ...options });
      } catch (err) {
        const legacyLimit = limitOf(err);
        if (legacyLimit !== undefined) refuse(legacyLimit);
        // The core schema's error: the one about the YAML as it is written.
        return unreadable(messageOf(first));
      }
    }
  }
}

/** An error in one line: js-yaml's without its snippet of the document, a file system's by its code. */
function messageOf(err: unknown): string {
  if (err instanceof YAMLException) return `${err.reason}${err.mark ? ` (line ${err.mark.line + 1})` : ''}`;
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code !== undefined) return code;
  return (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
}

/** js-yaml's refusal of a limit, said as the harness says it; undefined for a YAML syntax error. */
function limitOf(err: unknown): string | undefined {
  if (!(err instanceof YAMLException)) return undefined;
  const line = err.mark ? ` (line ${err.mark.line + 1})` : '';
  const aliases = /exceeded maxAliases \((\d+)\)/.exec(err.reason);
  if (aliases) return `it has more than ${aliases[1]} YAML aliases${line}`;
  const depth = /exceeded maxDepth \((\d+)\)/.exec(err.reason);
  if (depth) return `it nests objects and arrays more than ${depth[1]} deep${line}`;
  const merges = /exceeded maxTotalMergeKeys \((\d+)\)/.exec(err.reason);
  if (merges) return `it merges more than ${merges[1]} keys with YAML merge keys (<<)${line}`;
  return undefined;
}
