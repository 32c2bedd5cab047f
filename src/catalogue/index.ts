import { CHECKS } from './checks.js';
import { SUITES, type Check, type SuiteName } from './types.js';

export { CHECKS };
export { SUITES, LEVELS, type Check, type Level, type SuiteName } from './types.js';

const byId = new Map<string, Check>();
// Entries are validated against checkSchema by the catalogue's tests, not at every start.
for (const check of CHECKS) {
  if (byId.has(check.id)) throw new Error(`duplicate check id in the catalogue: ${check.id}`);
  byId.set(check.id, check);
}

export function findCheck(id: string): Check | undefined {
  return byId.get(id);
}

export function getCheck(id: string): Check {
  const check = byId.get(id);
  if (!check) throw new Error(`unknown check id: ${id}`);
  return check;
}

export function checksOfSuite(suite: SuiteName): Check[] {
  return CHECKS.filter((c) => c.suite === suite);
}

export function isSuiteName(name: string): name is SuiteName {
  return (SUITES as readonly string[]).includes(name);
}

/** The suite's source file, relative to the package root. */
export function suiteFile(suite: SuiteName): string {
  return `suites/${suite}.test.ts`;
}

/** The file that runs every suite but expiry in one Vitest module (suites/battery.test.ts). */
export const BATTERY_ENTRY = 'battery';

/** The suite a battery file (source or compiled) implements, from its path. */
export function suiteOfFile(path: string): SuiteName | undefined {
  const name = /(?:^|[\\/])([a-z]+)\.test\.[jt]s$/.exec(path)?.[1];
  return name !== undefined && isSuiteName(name) ? name : undefined;
}

/**
 * The checks a run executes: all of them, or those of the named suites plus the named checks.
 * Unknown names are the caller's to reject first (see `config.ts`).
 */
export function selectChecks(suites: readonly string[], ids: readonly string[]): Check[] {
  if (suites.length === 0 && ids.length === 0) return [...CHECKS];
  const wanted = new Set(ids);
  return CHECKS.filter((c) => suites.includes(c.suite) || wanted.has(c.id));
}
