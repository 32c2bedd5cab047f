import { resolve as resolvePath } from 'node:path';
import { UsageError } from '../errors.js';
import { DOCUMENT_LIMITS, type DocumentLimits } from '../openapi/document-files.js';
import { bundleDocument } from '../openapi/load.js';
import { isObject, type Json } from '../openapi/pointer.js';

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
  bundled: Json;
  /** Each file read, by absolute path: its parsed value, as the confined reader returned it. */
  files: Map<string, unknown>;
  limits: Readonly<DocumentLimits>;
}

/** document-files.ts words its refusals for --openapi; here they are about `lint FILE`. */
function asLint(err: UsageError): UsageError {
  return new UsageError(err.message.replace(/^--openapi /, 'lint '));
}

export async function readForLint(file: string, options: ReadOptions = {}): Promise<ReadDocument> {
  const limits = options.limits ?? DOCUMENT_LIMITS;
  const read = new Map<string, unknown>();
  let bundled: Json;
  try {
    // A copy of each file: the parser bundles in place, replacing the `$ref`s of these very values.
    bundled = await bundleDocument(file, { root: options.root, limits, label: 'lint', onFile: (path, value) => read.set(path, structuredClone(value)) });
  } catch (err) {
    throw err instanceof UsageError ? asLint(err) : err;
  }
  if (!isObject(bundled)) throw new UsageError(`lint ${file}: not an OpenAPI document (not an object)`);
  const declared = bundled.openapi ?? bundled.swagger;
  const version = typeof declared === 'string' ? declared : '';
  // The same documents as --openapi (spec-independent: OAS 3.0 and 3.1 only).
  if (!/^3\.[01]\./.test(version)) throw new UsageError(`lint ${file}: OpenAPI ${version || '(no version)'} is not supported; give an OpenAPI 3.0 or 3.1 document`);
  return { file, path: resolvePath(file), bundled, files: read, limits };
}
