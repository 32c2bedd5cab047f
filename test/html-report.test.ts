import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeHtml } from '../src/report/html-escape.js';
import { renderHtmlReport } from '../src/report/html.js';
import type { CheckResult, RecordedExchange, RunReport } from '../src/report/model.js';
import { curlCommand } from '../src/report/reproduce.js';
import { BASELINE_REASON, HOSTILE_FINDING, SCRIPT_BODY, STALE_REASON, makeRunReport } from './fixtures/report/run-report.js';

function checkOf(report: RunReport, id: string): CheckResult {
  const check = report.checks.find((c) => c.id === id);
  if (!check) throw new Error(`no check ${id} in the fixture`);
  return check;
}

function firstExchange(check: CheckResult): RecordedExchange {
  const ex = check.exchanges[0];
  if (!ex) throw new Error(`no exchange in ${check.id}`);
  return ex;
}

/** Elements that would run script or load something. */
const ACTIVE_ELEMENTS = /^<(?:script|img|iframe|object|embed|link|base|form|svg|math|video|audio|source|style\s+src)\b/i;

/** Every tag of the markup that would run or load something: an element above, an event handler, a javascript: URL. */
function activeTags(markup: string): string[] {
  return (markup.match(/<[a-z][^>]*>/gi) ?? []).filter((tag) => ACTIVE_ELEMENTS.test(tag) || /\son[a-z]+\s*=/i.test(tag) || /javascript:/i.test(tag));
}

describe('renderHtmlReport (markup)', () => {
  const report = makeRunReport();
  const page = renderHtmlReport(report);

  it('is one self-contained document that may load nothing', () => {
    expect(page.startsWith('<!DOCTYPE html>\n<html lang="en">')).toBe(true);
    expect(page).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`);
    expect(activeTags(page)).toEqual([]);
    // The test's own detector finds what it looks for.
    expect(activeTags('<p>x</p><img src=x onerror=alert(2)><a href="javascript:x">')).toHaveLength(2);
    // Links only to anchors of the page itself; no url() or @import in the stylesheet.
    expect([...page.matchAll(/\s(?:href|src)="([^"]*)"/g)].map((m) => m[1]).filter((target) => !target?.startsWith('#'))).toEqual([]);
    expect(page).not.toMatch(/url\(|@import/);
  });

  it("shows the server's script-injection body as text", () => {
    expect(page).toContain(escapeHtml(SCRIPT_BODY));
    expect(escapeHtml(SCRIPT_BODY)).toBe('&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;');
    expect(page).toContain(escapeHtml(HOSTILE_FINDING));
  });

  it('escapes every string of the report, wherever it is shown', () => {
    const payload = `<b id="p">'&quot;</b>`;
    const hostile = makeRunReport();
    hostile.tool = { name: payload, version: payload };
    hostile.target = { ...hostile.target, baseUrl: payload, authUrl: payload, tenantId: payload };
    hostile.incompleteReason = payload;
    hostile.verdict = 'incomplete';
    hostile.rerunOf = payload;
    hostile.baseline = { file: payload, entries: 1, stale: [payload], strict: true };
    hostile.checks = hostile.checks.map((c) => ({
      ...c,
      id: payload,
      title: payload,
      refs: [payload],
      message: payload,
      notes: [payload],
      ...(c.baseline ? { baseline: { ...c.baseline, reason: payload } } : {}),
      findings: c.findings.map((f) => ({ ...f, message: payload })),
      exchanges: c.exchanges.map((ex) => ({
        ...ex,
        purpose: payload,
        request: { ...ex.request, url: payload, headers: [[payload, payload]], body: payload },
        ...(ex.response ? { response: { ...ex.response, headers: [[payload, payload]], body: payload } } : {}),
        ...(ex.error !== undefined ? { error: payload } : {}),
      })),
    }));
    const out = renderHtmlReport(hostile);
    expect(activeTags(out)).toEqual([]);
    expect(out).not.toContain('<b id');
    expect(out).not.toContain('</b>');
    expect(out).toContain('&lt;b id=&quot;p&quot;&gt;&#39;&amp;quot;&lt;/b&gt;');
  });

  it('shows invisible and misleading characters as visible code points', () => {
    expect(escapeHtml('a\u0000b\u001b[31m\u202Ec\r\nd\re')).toBe(
      'a<span class="ctl">[U+0000]</span>b<span class="ctl">[U+001B]</span>[31m<span class="ctl">[U+202E]</span>c\nd<span class="ctl">[U+000D]</span>e',
    );
    expect(escapeHtml('\uD800x\uFFFE😀')).toBe('<span class="ctl">[U+D800]</span>x<span class="ctl">[U+FFFE]</span>😀');
    expect(escapeHtml('a\u0000<b>', false)).toBe('a&lt;b&gt;');
  });

  it('explains a conformant and an incomplete verdict', () => {
    const passing = makeRunReport();
    delete passing.baseline;
    passing.verdict = 'conformant';
    passing.exitCode = 0;
    passing.checks = passing.checks.filter((c) => c.status === 'passed').map((c) => {
      const copy = { ...c };
      delete copy.baseline;
      return copy;
    });
    const conformant = renderHtmlReport(passing);
    expect(conformant).toContain(
      '<section class="verdict verdict-conformant" aria-label="Verdict">\n<p class="verdict-word"><span aria-hidden="true">✓</span> CONFORMANT</p>\n<ul class="verdict-why"><li>every check of the catalogue was carried out, and every required check passed</li></ul>',
    );
    expect(conformant).not.toContain('Needs attention');
    expect(conformant).not.toContain('Baseline entries that now pass');
    expect(conformant).not.toContain(' open>');

    const incomplete = renderHtmlReport({ ...makeRunReport(), verdict: 'incomplete', incompleteReason: 'the token endpoint <was> unreachable' });
    expect(incomplete).toContain('<section class="verdict verdict-incomplete" aria-label="Verdict">\n<p class="verdict-word"><span aria-hidden="true">⚠</span> INCOMPLETE</p>\n<ul class="verdict-why"><li>the token endpoint &lt;was&gt; unreachable</li>');
    expect(renderHtmlReport({ ...makeRunReport(), verdict: 'incomplete', incompleteReason: 'nothing to rerun', checks: [] })).toContain('<p>No checks were run.</p>');
  });

  it('names the rerun source and the embedded server', () => {
    const rerun = renderHtmlReport({ ...makeRunReport(), rerunOf: 'reports/old.json', target: { ...makeRunReport().target, embedded: true } });
    expect(rerun).toContain('<dt>Rerun of</dt><dd><code>reports/old.json</code> (only the checks that did not pass there were run)</dd>');
    expect(rerun).toContain('<dt>Server</dt><dd>the embedded reference server, started for this run</dd>');
  });

  it('opens the checks that need attention and closes passed and skipped ones', () => {
    for (const check of report.checks) {
      const open = ['failed', 'error', 'warning', 'expected'].includes(check.status);
      const tag = new RegExp(`<details class="check check-${check.status}" id="check-${report.checks.indexOf(check) + 1}"${open ? ' open' : ''}>`);
      expect(page, check.id).toMatch(tag);
    }
  });
});

/*
 * The browser test needs Chromium. CI installs it (so there a missing browser is a broken
 * environment and the test FAILS rather than passing silently); on a developer machine it is
 * optional and the test is skipped, saying how to get it. CHROMIUM_PATH points at another binary.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
const IN_CI = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';
const BROWSER_TIMEOUT_MS = 30_000;
const SCREENSHOT = fileURLToPath(new URL('../reports/report-screenshot.png', import.meta.url));

describe('report.html in Chromium', () => {
  const report = makeRunReport();
  let dir: string;
  let browser: Browser | undefined;
  let page: Page;
  const requests: string[] = [];
  const dialogs: string[] = [];
  const consoleErrors: string[] = [];
  let fileUrl: string;

  const skip = !HAVE_CHROMIUM && !IN_CI;
  const name = skip
    ? `renders the report as text, runs no script and loads nothing (skipped: no Chromium at ${CHROMIUM}; install it with \`apt-get install chromium\` or set CHROMIUM_PATH)`
    : 'renders the report as text, runs no script and loads nothing';

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'carrier-html-'));
    const path = join(dir, 'report.html');
    await writeFile(path, renderHtmlReport(report), 'utf8');
    fileUrl = pathToFileURL(path).href;
    // Without a browser the test itself fails (in CI) or is skipped; a failing hook would only
    // mark it skipped, which is what must not happen in CI.
    if (!HAVE_CHROMIUM) return;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      timeout: BROWSER_TIMEOUT_MS,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, javaScriptEnabled: true });
    page = await context.newPage();
    page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
    page.setDefaultNavigationTimeout(BROWSER_TIMEOUT_MS);
    page.on('request', (req) => requests.push(req.url()));
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('console', (msg) => {
      if (msg.type() === 'error') consoleErrors.push(msg.text());
    });
    await page.goto(fileUrl, { waitUntil: 'load', timeout: BROWSER_TIMEOUT_MS });
  }, 2 * BROWSER_TIMEOUT_MS);

  afterAll(async () => {
    await browser?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it.skipIf(skip)(name, async () => {
    expect(HAVE_CHROMIUM, `CI is set but there is no Chromium at ${CHROMIUM}: the CI script must install it (apt-get install chromium)`).toBe(true);
    const text = await page.locator('body').innerText();

    // The verdict, prominent, in words.
    expect(await page.locator('.verdict-word').innerText()).toContain('NON-CONFORMANT');
    expect(await page.title()).toBe('Carrier-Platform API conformance: NON-CONFORMANT, https://api.example.test');
    // Every check is listed: its id is in the summary line, which shows even when closed.
    for (const check of report.checks) expect(text, check.id).toContain(check.id);
    expect(text).toContain('carrier-conformance 0.1.0');
    expect(text).toContain('2025-03-01 03:04:05 UTC');

    // A failure's findings (what was expected, what came back) and its curl command.
    const failed = page.locator('details.check-failed', { hasText: 'TOKEN-WRONG-SECRET' });
    const failedText = await failed.innerText();
    expect(failedText).toContain('status 200, expected 401');
    expect(failedText).toContain('POST https://auth.example.test/uaa/oauth2/token → 200');
    const wrongSecret = checkOf(report, 'TOKEN-WRONG-SECRET');
    expect(await failed.locator('pre.cmd').first().innerText()).toBe(curlCommand(firstExchange(wrongSecret), report));

    // The server's markup is text: shown verbatim, no element made of it, nothing ran.
    const userFields = page.locator('details.check-failed', { hasText: 'USER-FIELDS' });
    expect(await userFields.locator('pre.http').first().innerText()).toContain(SCRIPT_BODY);
    expect(await userFields.innerText()).toContain(HOSTILE_FINDING);
    expect(await page.locator('script').count()).toBe(0);
    expect(await page.locator('img, iframe, object, embed').count()).toBe(0);
    expect(dialogs).toEqual([]);
    expect(consoleErrors).toEqual([]);
    // Only the document itself was requested.
    expect(requests).toEqual([fileUrl]);

    // Expected failure, stale baseline entry, skipped reason.
    expect(text).toContain('EXPECTED FAILURE');
    expect(text).toContain(BASELINE_REASON);
    expect(text).toContain('baseline entry can be removed');
    expect(text).toContain(STALE_REASON);
    expect(text).toContain('skipped: needs --expectations');

    // Passed checks are closed, failures open.
    expect(await page.locator('details.check-passed[open]').count()).toBe(0);
    expect(await page.locator('details.check-failed:not([open])').count()).toBe(0);

    // Nothing is wider than the page: long bodies and commands wrap instead of being clipped.
    // (A string: the project's TypeScript has no DOM library.)
    const overflow = async (): Promise<number> => Number(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'));
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page.emulateMedia({ media: 'print' });
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page.emulateMedia({ media: 'screen' });

    await mkdir(join(SCREENSHOT, '..'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true, timeout: BROWSER_TIMEOUT_MS });
    expect(existsSync(SCREENSHOT)).toBe(true);
  });
});
