import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Ajv as AjvClass } from 'ajv';
import { COMPILED_SCHEMAS_FILE, OWN_SCHEMAS, OWN_SCHEMA_OPTIONS } from './schemas.js';
import { precompile } from './standalone.js';

/**
 * `npm run build`, after tsc: compiles the harness's own schemas (schemas.ts) into standalone
 * validators beside the compiled schemas.js, with the schemas they came from, so that a battery
 * worker neither loads ajv nor compiles them at start-up (src/api/standalone.ts).
 */
const { Ajv } = createRequire(import.meta.url)('ajv') as { Ajv: typeof AjvClass };
const ajv = new Ajv({ ...OWN_SCHEMA_OPTIONS, code: { source: true } });
const byId = new Map<string, object>(OWN_SCHEMAS.map((s) => [s.$id, s]));
const validators = precompile(ajv, [...byId.keys()], (id) => byId.get(id) as object);
const schemas = Object.fromEntries(OWN_SCHEMAS.map((s) => [s.$id, JSON.stringify(s)]));
writeFileSync(COMPILED_SCHEMAS_FILE, `${JSON.stringify({ validators, schemas })}\n`);
