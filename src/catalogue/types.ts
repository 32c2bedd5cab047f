import { z } from 'zod';

/** The suites of the battery, in report order; each is one file `suites/<name>.test.ts`. */
export const SUITES = ['token', 'expiry', 'auth', 'versioning', 'user', 'legacy', 'tenant', 'pagination', 'nulls'] as const;
export type SuiteName = (typeof SUITES)[number];

/**
 * RFC 2119 level of a check. A failed MUST check fails the run; a failed SHOULD check is reported
 * as a warning and fails the run only with `--strict`.
 */
export const LEVELS = ['MUST', 'SHOULD'] as const;
export type Level = (typeof LEVELS)[number];

export const checkIdSchema = z.string().regex(/^[A-Z]+(-[A-Z0-9]+)+$/, 'check ids are upper-case words joined by "-"');

export const checkSchema = z
  .object({
    id: checkIdSchema,
    suite: z.enum(SUITES),
    level: z.enum(LEVELS),
    title: z.string().min(10),
    /** Where the rule comes from: sections of the spec (`spec §…`) or clauses of an RFC it names. */
    refs: z.array(z.string().regex(/^(spec §|RFC \d{4} §)/)).min(1),
    /** Why the check exists or how it decides, when the title alone does not say. */
    notes: z.string().optional(),
  })
  .strict();

export type Check = z.infer<typeof checkSchema>;
