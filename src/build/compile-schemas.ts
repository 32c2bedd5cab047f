import { writeFileSync } from 'node:fs';
import { COMPILED_SCHEMAS_FILE, compileOwnSchemas } from '../carrier/schemas.js';

/**
 * `npm run build`, after tsc: compiles the harness's own schemas (src/carrier/schemas.ts) into standalone
 * validators beside the compiled schemas.js, with the schemas they came from, so that a battery
 * worker neither loads ajv nor compiles them at start-up (src/carrier/standalone.ts). Then bundle-cli.ts.
 */
writeFileSync(COMPILED_SCHEMAS_FILE, `${JSON.stringify(compileOwnSchemas())}\n`);
