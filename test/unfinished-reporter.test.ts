/**
 * The test run's last reporter (test/support/unfinished-reporter.ts): a worker that dies takes its
 * file's results with it, and Vitest 4 does not say which file it was.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runShell, tempDir } from './support/harness.js';

const ROOT = new URL('..', import.meta.url).pathname;

describe('a test file whose worker dies', () => {
  it('is named last, with how many of its tests ended; the files that finished are not', async () => {
    const dir = await tempDir();
    await writeFile(
      join(dir, 'dies.test.ts'),
      "import { it } from 'vitest';\nit('ends', () => {});\nit('dies', async () => { process.kill(process.pid, 'SIGKILL'); await new Promise((r) => setTimeout(r, 5000)); });\nit('never', () => {});\n",
    );
    await writeFile(join(dir, 'fine.test.ts'), "import { it } from 'vitest';\nit('fine', () => {});\n");
    const vitest = join(ROOT, 'node_modules', '.bin', 'vitest');
    const result = await runShell(
      `"${vitest}" run --root "${dir}" --reporter default --reporter "${join(ROOT, 'test', 'support', 'unfinished-reporter.ts')}"`,
      { cwd: dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1' }, timeoutMs: 60_000 },
    );
    expect(result.status).toBe(1);
    expect(result.stderr.trimEnd().split('\n').at(-1)).toBe('unfinished test file: dies.test.ts: 0 of 3 tests ended');
    expect(result.stderr).not.toContain('fine.test.ts');
  });
});
