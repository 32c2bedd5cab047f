// Plain types, no zod: the battery's workers load this, and every millisecond of start-up counts.

/** The suites of the battery, in report order; each is one file `suites/<name>.test.ts`. */
export const SUITES = [
  'token',
  'expiry',
  'auth',
  'versioning',
  'user',
  'legacy',
  'tenant',
  'writes',
  'pagination',
  'nulls',
  'resources',
] as const;
export type SuiteName = (typeof SUITES)[number];

/**
 * RFC 2119 level of a check. A failed MUST check fails the run; a failed SHOULD check is reported
 * as a warning and fails the run only with `--strict`.
 */
export const LEVELS = ['MUST', 'SHOULD'] as const;
export type Level = (typeof LEVELS)[number];

/** A check of the battery, as the catalogue lists it (src/catalogue/checks.ts). */
export interface Check {
  /** Stable id, upper-case words joined by "-": reports, baselines and --check refer to it. */
  id: string;
  suite: SuiteName;
  level: Level;
  title: string;
  /** Where the rule comes from: sections of the spec (`spec §…`) or clauses of an RFC it names. */
  refs: string[];
  /** Why the check exists or how it decides, when the title alone does not say. */
  notes?: string;
}
