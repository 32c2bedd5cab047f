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
