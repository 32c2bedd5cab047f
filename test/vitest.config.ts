import { defineConfig } from 'vitest/config';

// The harness's own tests. The battery in suites/ is not run from here: it is run by the harness
// (src/runner), which the end-to-end tests in test/ start as a real CLI process.
export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/support/setup.ts'],
    // Two test files at a time, not Vitest's default of one fewer than the cores (one on the
    // 2-core CI machine): most tests wait on servers, token lifetimes and delay lines rather than
    // compute (430 s -> ~275 s on the CI machine). The load this adds is also what the harness
    // must stand: its verdicts may not depend on timing (README, How the verdicts are proven).
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
