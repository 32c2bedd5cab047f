import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const root = new URL('..', import.meta.url).pathname;

/**
 * The files that take longest (30–180 s each on the 2-core CI machine with three at a time,
 * measured 2026-11-29), longest first. Vitest starts the files it has timed longest first, but a
 * fresh clone (CI) has no timings: it then starts the biggest files first, and these files, which
 * start servers and processes and wait, came last, alone at the end. Started first, the short
 * files fill in beside them.
 */
export const LONGEST = [
  'test/readme.test.ts',
  'test/hostile-files.test.ts',
  'test/meta/faults-2.test.ts',
  'test/meta/faults-1.test.ts',
  'test/endpoint-model-run.test.ts',
  'test/openapi-corpus.test.ts',
  'test/meta/variants.test.ts',
  'test/gateways.test.ts',
  'test/deployment-options.test.ts',
  'test/oauth-servers.test.ts',
  'test/latency.test.ts',
  'test/hostile.test.ts',
  'test/python-stacks.test.ts',
  'test/certification.test.ts',
  'test/battery.test.ts',
  'test/walk.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const timed = files.every(
      (f) => this.ctx.cache.getFileTestResults(`${f.project.name}:${relative(root, f.moduleId)}`) !== undefined,
    );
    if (timed) return sorted;
    const rank = (f: TestSpecification): number => {
      const i = LONGEST.indexOf(relative(root, f.moduleId));
      return i === -1 ? LONGEST.length : i;
    };
    return sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i)
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
    // Three test files at a time, not Vitest's default of one fewer than the cores (one on the
    // 2-core CI machine): tests wait on servers, token lifetimes and delay lines between bursts of
    // compute, and a third file fills the waits the other two leave (the whole suite on the 2-core
    // machine, 2026-11-29: 818 s with two, 680 s with three; the longest test 32 s, under the 60 s
    // timeout). The load this adds is also what the harness must stand: its verdicts may not
    // depend on timing (README, How the verdicts are proven).
    maxWorkers: 3,
    // A worker that dies takes its file's results with it, unnamed: the last reporter names it.
    reporters: ['default', './test/support/unfinished-reporter.ts'],
    sequence: { sequencer: LongestFirst },
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
