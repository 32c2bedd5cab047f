/**
 * Every variant of the reference server is unusual but conformant: the harness run against it
 * exits 0 with every check passed, no failure, no warning, no error.
 */
import { describe, expect, it } from 'vitest';
import { VARIANTS } from '../../src/reference/catalogue.js';
import { judgeVariant, planForVariant, runCase } from './support.js';

describe.concurrent('variants', () => {
  it.each(VARIANTS.map((v) => [v.name] as const))('%s passes', async (name) => {
    const result = await runCase({ variants: [name] }, planForVariant());
    expect(judgeVariant(result)).toEqual([]);
  });
});
