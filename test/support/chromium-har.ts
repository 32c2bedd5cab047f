import { launchChromium } from './chromium.js';
import type { Browser } from 'playwright-core';

/**
 * Issue 43: a HAR 1.2 capture as a browser records one. Headless Chromium opens a page on the
 * API's own origin (so that its fetches are same-origin: no CORS preflight) and, as a browser
 * client of the API would, takes a token with its client credentials (HTTP Basic, RFC 6749
 * §2.3.1), asks for the current user, two pages of a tenant list, the current user once without
 * Accept-Version and once by its legacy path. Playwright writes the HAR when the context closes.
 * Bounded: everything within 30 s, and the browser is closed whatever happens.
 */

const TIMEOUT_MS = 30_000;

export interface ChromiumHarOptions {
  /** The API's base URL, e.g. `http://127.0.0.1:41234` (loopback: the tests talk to nothing else). */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  tenantId: string;
  /** A paged tenant sub-path, e.g. `shipments`. */
  listPath: string;
  /** Where the HAR is written. */
  harPath: string;
}

/** What the page's fetches answered, for a helpful error when the token endpoint refuses. */
interface PageOutcome {
  tokenStatus: number;
  tokenBody: string;
  statuses: number[];
}

export async function recordChromiumHar(opts: ChromiumHarOptions): Promise<void> {
  let browser: Browser | undefined;
  let expired = false;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      expired = true;
      reject(new Error(`recording a HAR in Chromium took more than ${TIMEOUT_MS} ms`));
    }, TIMEOUT_MS);
  });
  const record = async (): Promise<void> => {
    browser = await launchChromium(TIMEOUT_MS);
    // A launch that ends past the deadline: the finally below has run already, so close it here.
    if (expired) {
      await browser.close();
      return;
    }
    const context = await browser.newContext({ recordHar: { path: opts.harPath, content: 'embed' } });
    const page = await context.newPage();
    page.setDefaultTimeout(TIMEOUT_MS);
    page.setDefaultNavigationTimeout(TIMEOUT_MS);
    const base = opts.baseUrl.replace(/\/+$/, '');
    // A page of the API's origin: it answers 400 (no Accept-Version), which is a page all the same.
    await page.goto(`${base}/users/me`, { waitUntil: 'load' });
    const outcome = await page.evaluate(
      async ({ clientId, clientSecret, tenantId, listPath, timeoutMs }): Promise<PageOutcome> => {
        // In the browser: same-origin fetches, as the page's own script would make them.
        const signal = AbortSignal.timeout(timeoutMs);
        const form = (s: string): string => encodeURIComponent(s).replace(/%20/g, '+');
        const basic = btoa(`${form(clientId)}:${form(clientSecret)}`);
        const token = await fetch('/uaa/oauth2/token', {
          method: 'POST',
          headers: {
            Authorization: `Basic ${basic}`,
            'Accept-Version': '1',
            'Content-Type': 'application/x-www-form-urlencoded',
          },
          body: 'grant_type=client_credentials',
          signal,
        });
        const tokenBody = await token.text();
        let accessToken: unknown;
        try {
          accessToken = (JSON.parse(tokenBody) as { access_token?: unknown }).access_token;
        } catch {
          accessToken = undefined;
        }
        if (token.status !== 200 || typeof accessToken !== 'string')
          return { tokenStatus: token.status, tokenBody, statuses: [] };
        const bearer = `Bearer ${accessToken}`;
        const list = `/tenants/${encodeURIComponent(tenantId)}/${listPath.replace(/^\/+/, '')}`;
        const gets: [string, Record<string, string>][] = [
          ['/users/me', { Authorization: bearer, 'Accept-Version': '1' }],
          [`${list}?page=1&size=2`, { Authorization: bearer, 'Accept-Version': '1' }],
          [`${list}?page=2&size=2`, { Authorization: bearer, 'Accept-Version': '1' }],
          ['/users/me', { Authorization: bearer }],
          ['/uaa/userinfo', { Authorization: bearer, 'Accept-Version': '1' }],
        ];
        const statuses: number[] = [];
        for (const [path, headers] of gets) {
          const response = await fetch(path, { headers, signal });
          await response.text();
          statuses.push(response.status);
        }
        return { tokenStatus: token.status, tokenBody: '', statuses };
      },
      {
        clientId: opts.clientId,
        clientSecret: opts.clientSecret,
        tenantId: opts.tenantId,
        listPath: opts.listPath,
        timeoutMs: TIMEOUT_MS,
      },
    );
    // The HAR is written as the context closes.
    await context.close();
    if (outcome.statuses.length === 0)
      throw new Error(
        `the token endpoint answered ${outcome.tokenStatus} without an access token: ${outcome.tokenBody.slice(0, 200)}`,
      );
  };
  const recording = record();
  // Past the deadline the browser is closed under it, and what it was doing fails: not unhandled.
  recording.catch(() => undefined);
  try {
    await Promise.race([recording, deadline]);
  } finally {
    clearTimeout(timer);
    await browser?.close();
  }
}
