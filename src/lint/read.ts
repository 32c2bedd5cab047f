import { resolve as resolvePath } from 'node:path';
import { UsageError } from '../core/errors.js';
import { DOCUMENT_LIMITS, type DocumentLimits } from '../openapi/document-files.js';
import { bundleDocument } from '../openapi/load.js';
import { isObject, type Json } from '../openapi/pointer.js';
import { readVersion } from '../openapi/versions.js';

/**
 * A document to lint, read exactly as `run --openapi` reads one: bundleDocument (src/openapi/
 * load.ts), its files confined and bounded by document-files.ts. The one difference: the parsed
 * value of every file the resolver handed the parser is kept, so that a finding in the bundle can
 * be traced back to the file, and the pointer in it, where it was written (locate.ts).
 */

export interface ReadOptions {
  root?: string | undefined;
  limits?: Readonly<DocumentLimits>;
}

export interface ReadDocument {
  /** The document as the user named it, and its absolute path. */
  file: string;
  path: string;
  /** The document as the rules read it: an OpenAPI 3.x document (src/openapi/versions.ts). */
  bundled: Json;
  /** Where a pointer into `bundled` was written in the bundle of the files as read (a Swagger 2.0 document's converted form differs). */
  sourcePointer: (pointer: string) => { pointer: string; exact: boolean };
  /** Each file read, by absolute path: its parsed value, as the confined reader returned it. */
  files: Map<string, unknown>;
  /** Each file's text as read, by absolute path: where the findings' lines are found (locate.ts). */
  texts?: Map<string, string>;
  limits: Readonly<DocumentLimits>;
}

/** document-files.ts words its refusals for --openapi; here they are about `lint FILE`. */
function asLint(err: UsageError): UsageError {
  return new UsageError(err.message.replace(/^--openapi /, 'lint '));
}

export async function readForLint(file: string, options: ReadOptions = {}): Promise<ReadDocument> {
  const limits = options.limits ?? DOCUMENT_LIMITS;
  const read = new Map<string, unknown>();
  const texts = new Map<string, string>();
  let bundled: Json;
  try {
    // A copy of each file: the parser bundles in place, replacing the `$ref`s of these very values.
    bundled = await bundleDocument(file, {
      root: options.root,
      limits,
      label: 'lint',
      onFile: (path, value) => read.set(path, structuredClone(value)),
      texts,
    });
  } catch (err) {
    throw err instanceof UsageError ? asLint(err) : err;
  }
  if (!isObject(bundled)) throw new UsageError(`lint ${file}: not an OpenAPI document (not an object)`);
  // The same documents as --openapi, read the same way (Swagger 2.0 converted, 3.2's additions where 3.1's readers look).
  const { document, sourcePointer } = readVersion(bundled, 'lint', file, limits);
  return { file, path: resolvePath(file), bundled: document, sourcePointer, files: read, texts, limits };
}
