import { writeFileSync } from 'node:fs';
import { COMPILED_SCHEMAS_FILE, compileOwnSchemas } from '../api/schemas.js';

/**
 * `npm run build`, after tsc: compiles the harness's own schemas (src/api/schemas.ts) into standalone
 * validators beside the compiled schemas.js, with the schemas they came from, so that a battery
 * worker neither loads ajv nor compiles them at start-up (src/api/standalone.ts). Then bundle-cli.ts.
 */
writeFileSync(COMPILED_SCHEMAS_FILE, `${JSON.stringify(compileOwnSchemas())}\n`);
