import { dirname, relative, resolve } from 'node:path';
import { bundle } from '@readme/openapi-parser';
import type { ApiDescription, EndpointSpec } from '../carrier/endpoint-specs.js';
import { UsageError } from '../core/errors.js';
import {
  DOCUMENT_LIMITS,
  DocumentFiles,
  LimitExceeded,
  measure,
  pathOf,
  type DocumentLimits,
  type Resolver,
} from './document-files.js';
import { documentAsJsonSchema } from './json-schema.js';
import { endpointModel } from './endpoint-model.js';
import { rebaseOnSelf } from './self.js';
import { isObject, type Json } from './pointer.js';
import { readVersion } from './versions.js';

/**
 * --openapi FILE: the tenant endpoints of the user's API, from their Swagger 2.0 or OpenAPI 3.0,
 * 3.1 or 3.2 document (YAML or JSON, `$ref`s across files). @readme/openapi-parser bundles it into
 * one (external `$ref`s inlined, internal ones kept, so that recursive schemas stay finite); the
 * harness never resolves references itself. The bundle is then read in the one form the harness
 * knows (versions.ts: 2.0 converted to 3.0, 3.2's additions put where 3.1's readers look).
 * The document is untrusted input: its files are read and parsed by
 * document-files.ts, the parser's file resolver, inside one folder and within limits (issue 28).
 * It does not validate the document against the
 * OpenAPI schema at every run (a third of a second of start-up for every run; the reference's own
 * document is validated in the tests): what the harness reads of it is checked as it is read.
 *
 * Every GET operation under `/tenants/{tenantId}/…` is an endpoint under test (spec §Tenant-scoped
 * endpoints), as the endpoint model (endpoint-model.ts) describes it: list or single resource,
 * how its required query parameters are filled, which schema its body is judged against.
 */

/** Where a document's `$ref`s may lead (--openapi-root; default: the document's folder), and the limits it is read within. */
export interface LoadOptions {
  root?: string | undefined;
  limits?: Readonly<DocumentLimits>;
}

/** What bundleDocument may do besides: name the document as the command does, and see each file read. */
export interface BundleOptions extends LoadOptions {
  /** How messages name the document: `--openapi FILE` (the run), `lint FILE`. */
  label?: string;
  /** Called with the parsed value of every file the confined resolver hands the parser (lint traces findings back to them). */
  onFile?: (path: string, value: unknown) => void;
  /** Filled with each file's text as read (lint places its findings in them). */
  texts?: Map<string, string>;
  /** Filled with the SHA-256 of every file read, by path. */
  digests?: Map<string, string>;
}

/**
 * The document's files read through document-files.ts (confined, bounded), bundled by
 * @readme/openapi-parser, and the bundle measured again: one document, within the limits.
 */
export async function bundleDocument(file: string, options: BundleOptions = {}): Promise<Json> {
  const label = options.label ?? '--openapi';
  const files = new DocumentFiles(file, options.root, options.limits ?? DOCUMENT_LIMITS);
  files.texts = options.texts;
  const resolverOptions = files.resolverOptions() as { resolve: { file: Resolver } };
  const { onFile } = options;
  const documentPath = resolve(file);
  const confined = resolverOptions.resolve.file;
  let selfFailure: UsageError | undefined;
  resolverOptions.resolve.file = {
    ...confined,
    read: async (ref) => {
      let value = await confined.read(ref);
      const path = pathOf(ref.url);
      // OpenAPI 3.2's $self: the document's $refs rewritten to lead where it makes them (oas32.ts),
      // before the parser follows them through this same confined reader.
      if (path === documentPath && ref.reference === undefined) {
        try {
          value = rebaseOnSelf(value, documentPath, label);
        } catch (err) {
          if (err instanceof UsageError) selfFailure ??= err;
          throw err;
        }
      }
      if (onFile && path !== undefined) onFile(path, value);
      return value;
    },
  };
  let bundled: Json;
  try {
    bundled = (await bundle(file, resolverOptions as unknown as Parameters<typeof bundle>[1])) as unknown as Json;
  } catch (err) {
    // What the harness's resolver refused or could not read, said by it; else the parser's word.
    if (files.failure) throw files.failure;
    if (selfFailure) throw selfFailure;
    // The parser's walks recurse, into each $ref as they meet it: a chain of $refs thousands long,
    // or files nested in files, can take it past the stack (each file is within the limits).
    if (err instanceof RangeError)
      throw new UsageError(
        `${label} ${file}: the parser ran out of stack following the document's $refs (a chain of $refs thousands long, or $ref'd files nested in one another)`,
      );
    throw new UsageError(`${label} ${file}: cannot read it as an OpenAPI document: ${oneLine((err as Error).message)}`);
  }
  // Should a version of the parser ever ignore the resolver, its own would have read the files
  // unconfined: refuse rather than use them.
  if (!files.documentRead)
    throw new Error(
      `@readme/openapi-parser did not read ${file} through the harness's resolver; the document is not used`,
    );
  // External $refs are inlined by the bundle: bounded again as one document, for the harness and
  // the battery's workers, which walk it whole.
  try {
    measure(bundled, files.limits.totalBytes, files.limits.depth);
  } catch (err) {
    if (!(err instanceof LimitExceeded)) throw err;
    throw new UsageError(`${label} ${file}: bundled with its $refs, ${err.message}`);
  }
  for (const [path, sha256] of files.digests) options.digests?.set(path, sha256);
  return bundled;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 300);
}

/** The tenant endpoints a (bundled, JSON Schema-read) OpenAPI document describes (src/openapi/endpoint-model.ts). */
export function endpointsOf(document: Json): EndpointSpec[] {
  return endpointModel(document).endpoints;
}

/**
 * The document as read, for lint to judge the very bytes the endpoints came from (issue 40 item
 * 2: it read the file a second time): the bundle as an OpenAPI 3.x document, where each pointer
 * of it was written, and each file's parsed value (copied before the parser bundled it in place).
 */
export interface DocumentAsRead {
  bundled: Json;
  sourcePointer: (pointer: string) => { pointer: string; exact: boolean };
  files: Map<string, unknown>;
  /** Each file's text as read, by path. */
  texts: Map<string, string>;
}

/** Reads, validates and bundles the document, and finds its tenant endpoints. */
export async function loadOpenApi(file: string, options: LoadOptions = {}): Promise<ApiDescription> {
  return (await loadOpenApiAsRead(file, options, false)).api;
}

/**
 * loadOpenApi, and the document as read (DocumentAsRead; its files kept only with `keepFiles`),
 * and every file it read (itself included) by absolute path and SHA-256.
 */
export async function loadOpenApiAsRead(
  file: string,
  options: LoadOptions = {},
  keepFiles = true,
): Promise<{ api: ApiDescription; read: DocumentAsRead; digests: [string, string][] }> {
  const digests = new Map<string, string>();
  const files = new Map<string, unknown>();
  const texts = new Map<string, string>();
  // A copy of each file: the parser bundles in place, replacing the `$ref`s of these very values.
  const bundled = await bundleDocument(file, {
    ...options,
    digests,
    ...(keepFiles
      ? { onFile: (path: string, value: unknown) => void files.set(path, structuredClone(value)), texts }
      : {}),
  });
  if (!isObject(bundled)) throw new UsageError(`--openapi ${file}: not an OpenAPI document (not an object)`);
  const version = readVersion(bundled, '--openapi', file, options.limits);
  const raw = version.document;
  if (!isObject(raw.paths)) throw new UsageError(`--openapi ${file}: the document has no "paths" object`);
  const document = documentAsJsonSchema(raw);
  const { endpoints, writes, operations } = endpointModel(document);
  if (endpoints.length === 0)
    throw new UsageError(
      `--openapi ${file}: no GET operation under /tenants/{tenantId}/ in the document: nothing to test (the spec's tenant-scoped pattern)`,
    );
  // The files it read beside itself, named from its folder, each by SHA-256: what a profile pins (issue 39 item 8).
  const pinned = [...digests]
    .filter(([path]) => path !== resolve(file))
    .map(([path, sha256]) => ({ file: relative(dirname(resolve(file)), path), sha256 }))
    .sort((a, b) => a.file.localeCompare(b.file));
  return {
    api: {
      endpoints,
      ...(writes.length > 0 ? { writes } : {}),
      operations,
      document,
      file,
      ...(pinned.length > 0 ? { files: pinned } : {}),
    },
    read: { bundled: raw, sourcePointer: version.sourcePointer, files, texts },
    digests: [...digests],
  };
}
