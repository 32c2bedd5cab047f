import { z } from '../core/zod.js';
import { LEVELS, SUITES } from './types.js';

/** The shape every catalogue entry must have; the catalogue's tests hold CHECKS to it. */

export const checkIdSchema = z.string().regex(/^[A-Z]+(-[A-Z0-9]+)+$/, 'check ids are upper-case words joined by "-"');

export const checkSchema = z
  .object({
    id: checkIdSchema,
    suite: z.enum(SUITES),
    level: z.enum(LEVELS),
    title: z.string().min(10),
    refs: z.array(z.string().regex(/^(spec §|RFC \d{4} §)/)).min(1),
    notes: z.string().optional(),
  })
  .strict();
