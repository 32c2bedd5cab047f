import { readFileSync } from 'node:fs';

/** The package root: this file is `src/version.ts` or `dist/version.js`, one level below it. */
export const PACKAGE_ROOT = new URL('..', import.meta.url).pathname;

export const TOOL_NAME = 'carrier-conformance';

export const TOOL_VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
