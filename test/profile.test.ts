// The garbage collections a profile line counts (countCollections, src/core/startup-timing.ts): what a walk's
// line in CARRIER_PROFILE=1 runs says, and what `npm run bench` compares with the plain walk's.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type * as Profile from '../src/core/startup-timing.js';

async function profileModule(on: boolean): Promise<typeof Profile> {
  vi.stubEnv('CARRIER_PROFILE', on ? '1' : '');
  vi.resetModules();
  return import('../src/core/startup-timing.js');
}

/** Allocates well past a young generation's size, so that young collections must run. */
function churn(): number {
  let kept = 0;
  for (let i = 0; i < 200_000; i += 1) kept += [i, { i }, `item ${i}`].length;
  return kept;
}

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

describe('countCollections', () => {
  it('counts the young collections that allocation causes, and the full ones apart', async () => {
    const { countCollections } = await profileModule(true);
    const collections = countCollections();
    expect(churn()).toBe(600_000);
    // Node reports a collection in the turn after it ran.
    await nextTurn();
    const said = collections.stop();
    expect(said).toMatch(/^\d+ full and \d+ young collections$/);
    expect(Number(/(\d+) young/.exec(said)?.[1])).toBeGreaterThan(0);
  });

  it("counts with the profile off too, where asked to (collectionCounter, as the bench's plain walk does)", async () => {
    const { collectionCounter } = await profileModule(false);
    const counter = collectionCounter();
    churn();
    await nextTurn();
    const { full, young } = counter.stop();
    expect(full).toBeGreaterThanOrEqual(0);
    expect(young).toBeGreaterThan(0);
  });

  it('says nothing, and observes nothing, with the profile off', async () => {
    const { countCollections } = await profileModule(false);
    const collections = countCollections();
    churn();
    await nextTurn();
    expect(collections.stop()).toBe('');
  });
});
