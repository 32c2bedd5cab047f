/**
 * The harness's own tests run the compiled battery only while dist/ is current (src/runner/
 * vitest-run.ts builtBatteryCurrent): a source edited since the build is what runs, never a stale build.
 */
import { mkdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtBatteryCurrent } from '../src/runner/vitest-run.js';
import { tempDir } from './support/harness.js';

async function tree(): Promise<string> {
  const root = await tempDir();
  await mkdir(join(root, 'src', 'battery'), { recursive: true });
  await mkdir(join(root, 'suites'), { recursive: true });
  await mkdir(join(root, 'dist', 'suites'), { recursive: true });
  await writeFile(join(root, 'src', 'battery', 'walk.ts'), '');
  await writeFile(join(root, 'suites', 'nulls.test.ts'), '');
  const old = new Date(Date.now() - 60_000);
  await utimes(join(root, 'src', 'battery', 'walk.ts'), old, old);
  await utimes(join(root, 'suites', 'nulls.test.ts'), old, old);
  await writeFile(join(root, 'dist', 'suites', 'battery.test.js'), '');
  return root;
}

describe("the battery the harness's tests run", () => {
  it('is the build while it is newer than every source', async () => {
    expect(builtBatteryCurrent(await tree())).toBe(true);
  });

  it('is the sources when one of src/ or suites/ was edited since the build, or there is no build', async () => {
    const root = await tree();
    const later = new Date(Date.now() + 60_000);
    await utimes(join(root, 'src', 'battery', 'walk.ts'), later, later);
    expect(builtBatteryCurrent(root)).toBe(false);
    const other = await tree();
    await utimes(join(other, 'suites', 'nulls.test.ts'), later, later);
    expect(builtBatteryCurrent(other)).toBe(false);
    expect(builtBatteryCurrent(await tempDir())).toBe(false);
  });
});
