import { describe, expect, it } from 'vitest';
import type { Fault } from '../../src/reference/catalogue.js';
import { judgeFault, planForFault, runCase } from './support.js';

/**
 * Every fault in `faults`: the harness run against a server with it exits 1, the checks the
 * fault targets fail (or warn, for SHOULD checks), and every check it does not declare passes.
 */
export function describeFaults(title: string, faults: readonly Fault[]): void {
  describe.concurrent(title, () => {
    it.each(faults.map((f) => [f.name, f] as const))('%s is caught', async (_name, fault) => {
      const result = await runCase({ faults: [fault.name] }, planForFault(fault));
      expect(judgeFault(fault, result)).toEqual([]);
    });
  });
}
