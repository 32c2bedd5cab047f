import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/**
 * Headless Chromium for the tests that need a browser (report.html, matrix.html, a browser's HAR):
 * where it is, whether it is there, and how it is launched. Without one, a test fails in CI (the
 * CI script installs it) and is skipped, saying so, elsewhere.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);
export const IN_CI = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';
export const BROWSER_TIMEOUT_MS = 30_000;

/** A browser test's title, and whether it is skipped: only outside CI, saying why; in CI it fails on NO_CHROMIUM_IN_CI. */
export function browserTest(title: string): { skip: boolean; name: string } {
  const skip = !HAVE_CHROMIUM && !IN_CI;
  return {
    skip,
    name: skip
      ? `${title} (skipped: no Chromium at ${CHROMIUM}; install it with \`apt-get install chromium\` or set CHROMIUM_PATH)`
      : title,
  };
}

/** What a browser test asserts first: in CI, the browser is there (the CI script installs it). */
export const NO_CHROMIUM_IN_CI = `CI is set but there is no Chromium at ${CHROMIUM}: the CI script must install it (apt-get install chromium)`;

/** Chromium, headless, without the network chatter of a desktop browser. */
export function launchChromium(timeout = BROWSER_TIMEOUT_MS): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    timeout,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
