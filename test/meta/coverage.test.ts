/**
 * The coverage matrix: every check of the catalogue has at least one fault that must make it
 * fail (the fault tests prove that it does). Writes the matrix to reports/mutation-matrix.md.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { CHECKS, findCheck } from '../../src/catalogue/index.js';
import { FAULTS, VARIANTS } from '../../src/reference/catalogue.js';
import { coverageMatrix, renderMatrix } from './support.js';

describe('the fault catalogue', () => {
  it('has a fault that fails every check of the catalogue', async () => {
    const matrix = coverageMatrix(FAULTS);
    await mkdir('reports', { recursive: true });
    await writeFile('reports/mutation-matrix.md', renderMatrix(matrix, FAULTS, VARIANTS));
    const uncovered = [...matrix].filter(([, faults]) => faults.length === 0).map(([id]) => id);
    expect(uncovered).toEqual([]);
    expect(matrix.size).toBe(CHECKS.length);
  });

  it('names only checks that exist, and names each fault and variant once', () => {
    for (const fault of FAULTS)
      for (const id of [...fault.breaks, ...(fault.alsoBreaks ?? []), ...(fault.errs ?? [])])
        expect(findCheck(id), `${fault.name} names ${id}`).toBeDefined();
    const names = [...FAULTS, ...VARIANTS].map((a) => a.name);
    expect(new Set(names).size).toBe(names.length);
    for (const a of [...FAULTS, ...VARIANTS]) {
      expect(a.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(a.description.length).toBeGreaterThan(20);
    }
  });
});
