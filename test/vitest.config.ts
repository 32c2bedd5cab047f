import { defineConfig } from 'vitest/config';

// The harness's own tests. The battery in suites/ is not run from here: it is run by the harness
// (src/runner), which the end-to-end tests in test/ start as a real CLI process.
export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/support/setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
