import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const root = new URL('..', import.meta.url).pathname;

/**
 * Each test file's wall time in seconds, from a CI run on a fresh clone of the 2-core machine
 * with three files at a time (test/file-durations.json; 2026-11-29). Vitest starts the files it
 * has timed longest first, but a fresh clone (CI) has no timings: it would start the biggest
 * files first, and the long ones that start servers and processes and wait came last, alone at
 * the end (a fresh clone took 740-760 s where a timed one took 680 s). Started first, the short
 * files fill in beside them. A file not in the list (a new one) counts as 30 s.
 */
export const DURATIONS: Record<string, number> = JSON.parse(
  readFileSync(new URL('./file-durations.json', import.meta.url), 'utf8'),
) as Record<string, number>;
const UNTIMED_SECONDS = 30;

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const timed = files.every(
      (f) => this.ctx.cache.getFileTestResults(`${f.project.name}:${relative(root, f.moduleId)}`) !== undefined,
    );
    if (timed) return sorted;
    const seconds = (f: TestSpecification): number => DURATIONS[relative(root, f.moduleId)] ?? UNTIMED_SECONDS;
    return sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => seconds(b.f) - seconds(a.f) || a.i - b.i)
      .map(({ f }) => f);
  }
}

// The harness's own tests. The battery in suites/ is not run from here: it is run by the harness
// (src/runner), which the end-to-end tests in test/ start as a real CLI process.
export default defineConfig({
  test: {
    root,
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/support/setup.ts'],
    // Two test files at a time, not Vitest's default of one fewer than the cores (one on the
    // 2-core CI machine): most tests wait on servers, token lifetimes and delay lines. Three at a
    // time was tried (2026-11-29): no faster on fresh clones (719-763 s against 683 s), and the
    // expiry variants with 2 s tokens failed under its load.
    maxWorkers: 2,
    // A worker that dies takes its file's results with it, unnamed: the last reporter names it.
    reporters: ['default', './test/support/unfinished-reporter.ts'],
    sequence: { sequencer: LongestFirst },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // GitHub's workflow parser imports its JSON schemas without import attributes, as for a
    // bundler: Vite transforms it (test/support/github-actions.ts).
    server: { deps: { inline: ['@actions/workflow-parser'] } },
  },
});
