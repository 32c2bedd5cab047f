import { UsageError } from '../core/errors.js';
import { DOCUMENT_LIMITS, LimitExceeded, measure, neutralised, type DocumentLimits } from './document-files.js';
import { isOpenApi32, normalise } from './oas32.js';
import type { Json } from './pointer.js';
import { fromSwagger2, isSwagger2 } from './swagger2.js';

/**
 * The versions of OpenAPI the harness reads (issue 37 item 9), and how each becomes the one form
 * its readers know (the endpoint model, json-schema.ts, `lint`'s rules): OpenAPI 3.0 and 3.1 as
 * they are; 3.2 with its additions put where those readers look (oas32.ts); Swagger 2.0
 * converted to 3.0 in memory (swagger2.ts). Called on the bundle (load.ts bundleDocument): every
 * file was read by the confined, bounded reader before, and nothing here reads or fetches.
 */

export type OpenApiVersion = '2.0' | '3.0' | '3.1' | '3.2';

export interface VersionedDocument {
  version: OpenApiVersion;
  /** The document as the readers read it: an OpenAPI 3.x document. */
  document: Json;
  /**
   * Where a pointer into `document` was written in the bundle as read: itself, but for a
   * converted Swagger 2.0 document (swagger2.ts); `exact` false when the place was made by the
   * conversion and the pointer is the closest one the document has.
   */
  sourcePointer: (pointer: string) => { pointer: string; exact: boolean };
}

const SUPPORTED = 'give a Swagger 2.0 or an OpenAPI 3.0, 3.1 or 3.2 document';

/** The version a bundled document declares, or a one-line refusal (`label`: `--openapi`, `lint`). */
export function versionOf(bundled: Json, label: string, file: string): OpenApiVersion {
  if (isSwagger2(bundled)) return '2.0';
  if (isOpenApi32(bundled)) return '3.2';
  const declared = bundled.openapi ?? bundled.swagger;
  const version = typeof declared === 'string' ? declared : '';
  if (/^3\.0\./.test(version)) return '3.0';
  if (/^3\.1\./.test(version)) return '3.1';
  const shown =
    typeof declared === 'string'
      ? neutralised(declared, 40)
      : declared === undefined
        ? '(no version)'
        : neutralised(JSON.stringify(declared) ?? '', 40);
  const name = bundled.openapi === undefined && bundled.swagger !== undefined ? 'Swagger' : 'OpenAPI';
  throw new UsageError(`${label} ${neutralised(file, 300)}: ${name} ${shown} is not supported; ${SUPPORTED}`);
}

/**
 * The bundled document in the form the harness reads, or a one-line refusal of a version it does
 * not read. What the conversion made is bounded as the bundle was (a schema under each of a
 * thousand `produces` types is one schema, shared, but every reader after this one walks it a
 * thousand times).
 */
export function readVersion(
  bundled: Json,
  label: string,
  file: string,
  limits: Readonly<DocumentLimits> = DOCUMENT_LIMITS,
): VersionedDocument {
  const version = versionOf(bundled, label, file);
  const same = (pointer: string): { pointer: string; exact: boolean } => ({ pointer, exact: true });
  let read: VersionedDocument;
  if (version === '2.0') {
    const converted = fromSwagger2(bundled);
    read = { version, document: converted.document, sourcePointer: (p) => converted.toSource(p) };
  } else if (version === '3.2') {
    read = { version, document: normalise(bundled), sourcePointer: same };
  } else {
    return { version, document: bundled, sourcePointer: same };
  }
  if (read.document !== bundled) {
    try {
      measure(read.document, limits.totalBytes, limits.depth);
    } catch (err) {
      if (!(err instanceof LimitExceeded)) throw err;
      throw new UsageError(
        `${label} ${neutralised(file, 300)}: read as OpenAPI 3 (from ${version === '2.0' ? 'Swagger' : 'OpenAPI'} ${version}), ${err.message}`,
      );
    }
  }
  return read;
}
