// The runner's floor: the time of `vitest run` for one trivial test (see benchmarks/bench.ts).
import { expect, test } from 'vitest';

test('nothing', () => {
  expect(1).toBe(1);
});
