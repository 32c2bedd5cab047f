import { createRequire } from 'node:module';
import type { Ajv2020 as Ajv2020Class, ValidateFunction } from 'ajv/dist/2020.js';
import { evaluate, precompile, type PrecompiledValidators } from '../api/standalone.js';

/**
 * ajv for the schemas of an OpenAPI document, as RESOURCE-SCHEMA validates against them
 * (src/battery/resources.ts): one instance holds the whole document, and a validator is compiled
 * for a JSON Pointer into it. ajv validates against JSON Schema 2020-12, which OpenAPI 3.1
 * schemas are and 3.0 schemas were rewritten to (json-schema.ts). Formats are not asserted: JSON
 * Schema 2020-12 §7.2 makes `format` an annotation, and asserting `date-time` or `email` would
 * fail values that many conformant servers send.
 *
 * The validators of the endpoints' schemas are compiled on the thread that reads the document
 * (load-worker.ts, src/api/standalone.ts); a worker of the battery compiles only what was not.
 */

const DOCUMENT_ID = 'openapi:document';
const require = createRequire(import.meta.url);

export function documentAjv(document: object, forStandaloneCode = false): Ajv2020Class {
  const { Ajv2020 } = require('ajv/dist/2020.js') as { Ajv2020: typeof Ajv2020Class };
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false, validateSchema: false, ...(forStandaloneCode ? { code: { source: true } } : {}) });
  ajv.addSchema(document, DOCUMENT_ID);
  return ajv;
}

/** The schema that validates against the document's schema at `pointer` (e.g. `#/components/schemas/Shipment`). */
export function schemaAt(pointer: string): { $ref: string } {
  const fragment = pointer.slice(1).split('/').map(encodeURIComponent).join('/');
  return { $ref: `${DOCUMENT_ID}#${fragment}` };
}

/** The validators of these schema pointers of the document, as code (on the document's thread). */
export function precompileDocument(document: object, pointers: readonly string[]): PrecompiledValidators {
  return precompile(documentAjv(document, true), [...new Set(pointers)], schemaAt);
}

const received = new WeakMap<object, { validators: PrecompiledValidators; evaluated?: Map<string, ValidateFunction> }>();

/** The battery received `document` with these precompiled validators (src/battery/context.ts). */
export function usePrecompiled(document: object, validators: PrecompiledValidators): void {
  received.set(document, { validators });
}

/** The precompiled validator of `pointer` in `document`, if it came with the document. */
export function precompiledValidator(document: object, pointer: string): ValidateFunction | undefined {
  const entry = received.get(document);
  if (!entry) return undefined;
  entry.evaluated ??= evaluate(entry.validators);
  return entry.evaluated.get(pointer);
}
