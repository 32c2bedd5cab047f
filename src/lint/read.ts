import { bundle } from '@readme/openapi-parser';
import { resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../errors.js';
import { DOCUMENT_LIMITS, DocumentFiles, LimitExceeded, measure, type DocumentLimits, type Resolver } from '../openapi/document-files.js';
import { isObject, type Json } from '../openapi/pointer.js';

/**
 * A document to lint, read exactly as `run --openapi` reads one (src/openapi/load.ts): its files
 * through document-files.ts (confined to one root folder, within the same limits, no URL ever
 * fetched), bundled by @readme/openapi-parser, the bundle measured again. The one difference: the
 * parsed value of every file the resolver handed the parser is kept, so that a finding in the
 * bundle can be traced back to the file, and the pointer in it, where it was written (locate.ts).
 * load.ts's own `read` keeps nothing of the files, and others are changing it: the dozen lines
 * are repeated here rather than that file edited.
 */

export interface ReadOptions {
  root?: string | undefined;
  limits?: Readonly<DocumentLimits>;
}

export interface ReadDocument {
  /** The document as the user named it, and its absolute path. */
  file: string;
  path: string;
  bundled: Json;
  /** Each file read, by absolute path: its parsed value, as the confined reader returned it. */
  files: Map<string, unknown>;
  limits: Readonly<DocumentLimits>;
}

/** The file-system path of a ref-parser URL (absolute path, URI-encoded, or a file: URL); undefined for any other scheme. */
export function pathOfUrl(url: string): string | undefined {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  if (scheme !== undefined && scheme !== 'file' && scheme.length > 1) return undefined;
  const escaped = url.replace(/%(?![0-9A-Fa-f]{2})/g, '%25');
  try {
    return scheme === 'file' ? fileURLToPath(escaped) : resolvePath(decodeURIComponent(escaped));
  } catch {
    return resolvePath(url);
  }
}

/** document-files.ts words its refusals for --openapi; here they are about `lint FILE`. */
function asLint(err: UsageError): UsageError {
  return new UsageError(err.message.replace(/^--openapi /, 'lint '));
}

export async function readForLint(file: string, options: ReadOptions = {}): Promise<ReadDocument> {
  const limits = options.limits ?? DOCUMENT_LIMITS;
  const files = new DocumentFiles(file, options.root, limits);
  const resolverOptions = files.resolverOptions() as { resolve: { file: Resolver } };
  const confined = resolverOptions.resolve.file;
  const read = new Map<string, unknown>();
  resolverOptions.resolve.file = {
    ...confined,
    read: async (ref) => {
      const value = await confined.read(ref);
      const path = pathOfUrl(ref.url);
      // A copy: the parser bundles in place, replacing the `$ref`s of these very values.
      if (path !== undefined) read.set(path, structuredClone(value));
      return value;
    },
  };
  let bundled: Json;
  try {
    bundled = (await bundle(file, resolverOptions as unknown as Parameters<typeof bundle>[1])) as unknown as Json;
  } catch (err) {
    if (files.failure) throw asLint(files.failure);
    if (err instanceof RangeError) throw new UsageError(`lint ${file}: the parser ran out of stack following the document's $refs (a chain of $refs thousands long, or $ref'd files nested in one another)`);
    throw new UsageError(`lint ${file}: cannot read it as an OpenAPI document: ${(err as Error).message.replace(/\s+/g, ' ').trim().slice(0, 300)}`);
  }
  // As load.ts: a parser that bypassed the confined resolver read files unconfined; refuse them.
  if (!files.documentRead) throw new Error(`@readme/openapi-parser did not read ${file} through the harness's resolver; the document is not used`);
  try {
    measure(bundled, limits.totalBytes, limits.depth);
  } catch (err) {
    if (!(err instanceof LimitExceeded)) throw err;
    throw new UsageError(`lint ${file}: bundled with its $refs, ${err.message}`);
  }
  if (!isObject(bundled)) throw new UsageError(`lint ${file}: not an OpenAPI document (not an object)`);
  const declared = bundled.openapi ?? bundled.swagger;
  const version = typeof declared === 'string' ? declared : '';
  // The same documents as --openapi (spec-independent: OAS 3.0 and 3.1 only).
  if (!/^3\.[01]\./.test(version)) throw new UsageError(`lint ${file}: OpenAPI ${version || '(no version)'} is not supported; give an OpenAPI 3.0 or 3.1 document`);
  return { file, path: resolvePath(file), bundled, files: read, limits };
}
