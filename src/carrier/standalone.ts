import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv';

/**
 * JSON Schema validators compiled ahead of the battery, as ajv's standalone code (its documented
 * way to ship compiled validators: https://ajv.js.org/standalone.html): compiling, and loading
 * ajv at all, cost a battery worker ~70 ms on the start-up's critical path (measured), for
 * validators whose schemas are known before it starts. The harness's own schemas are compiled at
 * build time (src/build/compile-schemas.ts); an OpenAPI document's on the thread that reads it
 * (src/runner/document-worker.ts). The code is ajv's own output for the same schema and options, so
 * a precompiled validator finds exactly what a runtime-compiled one finds
 * (test/standalone.test.ts); without one, the battery compiles at run time as before.
 */

const require = createRequire(import.meta.url);

/** What precompiling needs of an ajv instance (Ajv and Ajv2020 alike). */
interface AjvInstance {
  addSchema(schema: object, key: string): unknown;
  getSchema(key: string): unknown;
  removeSchema(key: string): unknown;
}

/** Validators as code: the export `v<i>` validates against `keys[i]`. */
export interface PrecompiledValidators {
  keys: string[];
  code: string;
  /** The keys whose schema did not compile, with ajv's reason: the others are in `code` all the same. */
  failed?: Record<string, string>;
}

/**
 * The standalone code of the validators of `keys`, where `schemaOf(key)` is the schema to
 * compile for a key. `ajv` must have been created with `code: { source: true }`. A key whose
 * schema does not compile is left out, with why in `failed`: the one endpoint that uses it is
 * not judged (issue 29 item 3), and every other key is compiled as if it were not there.
 */
export function precompile(
  ajv: AjvInstance,
  keys: readonly string[],
  schemaOf: (key: string) => object,
): PrecompiledValidators {
  const kept: string[] = [];
  const exports: Record<string, string> = {};
  const failed: Record<string, string> = {};
  for (const key of keys) {
    const id = `v${kept.length}`;
    try {
      ajv.addSchema(schemaOf(key), id);
      ajv.getSchema(id);
    } catch (err) {
      ajv.removeSchema(id);
      failed[key] = err instanceof Error ? err.message : String(err);
      continue;
    }
    exports[id] = id;
    kept.push(key);
  }
  const { default: standaloneCode } = require('ajv/dist/standalone/index.js') as {
    default: (ajv: AjvInstance, refs: Record<string, string>) => string;
  };
  return {
    keys: kept,
    code: kept.length > 0 ? standaloneCode(ajv, exports) : '',
    ...(Object.keys(failed).length > 0 ? { failed } : {}),
  };
}

/** The validators of precompiled code, by key. The code's `require`s are ajv's runtime helpers. */
export function evaluate(validators: PrecompiledValidators): Map<string, ValidateFunction> {
  const module = { exports: {} as Record<string, ValidateFunction> };
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- ajv's own generated code, as ajv itself evaluates it
  const run = new Function('module', 'exports', 'require', validators.code) as (
    m: typeof module,
    e: typeof module.exports,
    r: NodeJS.Require,
  ) => void;
  run(module, module.exports, require);
  const out = new Map<string, ValidateFunction>();
  validators.keys.forEach((key, i) => {
    const fn = module.exports[`v${i}`];
    if (fn) out.set(key, fn);
  });
  return out;
}
