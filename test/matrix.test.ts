/**
 * `carrier-conformance matrix REPORT… --out DIR`: several targets' runs (the reference server with
 * and without faults) combined into one page, a JSON summary and a badge per target; mixtures
 * refused; the page checked in Chromium like report.html.
 */
import {
  BROWSER_TIMEOUT_MS,
  HAVE_CHROMIUM,
  NO_CHROMIUM_IN_CI,
  browserTest,
  launchChromium,
} from './support/chromium.js';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKS } from '../src/catalogue/index.js';
import { catalogueDigest } from '../src/catalogue/digest.js';
import type { Matrix } from '../src/matrix/combine.js';
import type { RunReport } from '../src/model/run-report.js';
import { runAgainst, runMain, tempDir } from './support/harness.js';
import { fullReport, referenceExpectations, writeReport } from './support/reports.js';

const HOSTILE_NAME = 'Acme <script>alert(1)</script><img src=x onerror=alert(2)> & "Co"';
const MUST = CHECKS.filter((c) => c.level === 'MUST').length;

/** Four targets, each run as its own CI job would: its own reports directory and --target-name. */
async function targets(): Promise<{ dir: string; reports: Record<string, RunReport>; dirs: string[] }> {
  const dir = await tempDir('carrier-matrix-');
  const expectations = await referenceExpectations(dir);
  const full = ['--expectations', expectations];
  const runs = {
    acme: await runAgainst({ tokenTtlSeconds: 2 }, [
      ...full,
      '--target-name',
      HOSTILE_NAME,
      '--target-version',
      '2.4.1',
      '--operator',
      'Acme Ops',
    ]),
    globex: await runAgainst({ tokenTtlSeconds: 2, faults: ['wrong-secret-accepted'] }, [
      ...full,
      '--target-name',
      'Globex',
    ]),
    initech: await runAgainst({ tokenTtlSeconds: 2, faults: ['no-pragma'] }, [...full, '--target-name', 'Initech']),
    // No --target-name: named by its base URL's host. Expiry skipped (tokens outlive --max-expiry-wait).
    partial: await runAgainst({}, ['--max-expiry-wait', '0']),
  };
  expect(Object.values(runs).map((r) => r.code)).toEqual([0, 1, 0, 0]);
  return {
    dir,
    reports: Object.fromEntries(Object.entries(runs).map(([k, r]) => [k, r.report])),
    dirs: Object.values(runs).map((r) => r.reportsDir),
  };
}

let fixture: Awaited<ReturnType<typeof targets>>;
let out: string;
let matrix: Matrix;
let stdout: string;

beforeAll(async () => {
  fixture = await targets();
  out = join(fixture.dir, 'matrix');
  // Directories, as a combine job gets them from downloaded artifacts.
  const result = await runMain(['matrix', ...fixture.dirs, '--out', out]);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  stdout = result.stdout;
  matrix = JSON.parse(await readFile(join(out, 'matrix.json'), 'utf8')) as Matrix;
}, 120_000);

describe('carrier-conformance matrix', () => {
  it('records every target with its totals, and every check with one cell per target', () => {
    const partialHost = new URL(fixture.reports.partial!.target.baseUrl).host;
    expect(matrix.targets.map((t) => t.name)).toEqual([HOSTILE_NAME, 'Globex', 'Initech', partialHost]);
    expect(matrix.catalogue).toEqual({ digest: catalogueDigest(), checks: CHECKS.length, must: MUST, current: true });
    expect(matrix.checks.map((c) => c.id)).toEqual(CHECKS.map((c) => c.id));
    for (const row of matrix.checks) expect(row.cells).toHaveLength(4);

    const [acme, globex, initech, partial] = matrix.targets;
    expect(acme).toMatchObject({
      version: '2.4.1',
      operator: 'Acme Ops',
      verdict: 'conformant',
      must: { total: MUST, passed: MUST },
      should: { passed: CHECKS.length - MUST },
    });
    expect(globex?.verdict).toBe('non-conformant');
    expect(globex?.must.failed).toBeGreaterThan(0);
    expect(initech?.should.warning).toBe(1);
    expect(partial?.must.skipped).toBeGreaterThanOrEqual(3);
    expect(matrix.targets.map((t) => t.standing)).toEqual(['conformant', 'non-conformant', 'conformant', 'partial']);

    const cell = (id: string, target: number) => matrix.checks.find((c) => c.id === id)?.cells[target];
    expect(cell('TOKEN-WRONG-SECRET', 1)?.status).toBe('failed');
    expect(cell('TOKEN-WRONG-SECRET', 1)?.reason).toMatch(/expected 401, got 200/);
    expect(cell('TOKEN-PRAGMA', 2)).toMatchObject({ status: 'warning' });
    expect(cell('EXPIRY-RENEW', 3)?.status).toBe('skipped');
    expect(cell('EXPIRY-RENEW', 3)?.reason).toMatch(/--max-expiry-wait/);
    expect(cell('TOKEN-ISSUE', 0)).toEqual({ status: 'passed' });
  });

  it('writes a shields.io endpoint badge per target, its colour saying what the count cannot', async () => {
    const files = (await readdir(join(out, 'badges'))).sort();
    expect(files).toEqual(matrix.targets.map((t) => `${t.slug}.json`).sort());
    const badge = async (i: number): Promise<unknown> =>
      JSON.parse(await readFile(join(out, 'badges', `${matrix.targets[i]?.slug ?? ''}.json`), 'utf8'));
    const failedMust = matrix.targets[1]!.must.passed;
    const skippedMust = matrix.targets[3]!.must.passed;
    expect(await badge(0)).toEqual({
      schemaVersion: 1,
      label: 'conformance',
      message: `${MUST}/${MUST} MUST`,
      color: 'brightgreen',
    });
    expect(await badge(1)).toEqual({
      schemaVersion: 1,
      label: 'conformance',
      message: `${failedMust}/${MUST} MUST`,
      color: 'red',
    });
    expect(await badge(2)).toEqual({
      schemaVersion: 1,
      label: 'conformance',
      message: `${MUST}/${MUST} MUST`,
      color: 'green',
    });
    expect(await badge(3)).toEqual({
      schemaVersion: 1,
      label: 'conformance',
      message: `${skippedMust}/${MUST} MUST`,
      color: 'yellow',
    });
    // The hostile name becomes a plain file name.
    expect(matrix.targets[0]?.slug).toBe('acme-script-alert-1-script-img-src-x-onerror-alert-2-co');
    expect(stdout).toMatch(/Matrix of 4 targets/);
    expect(stdout).toMatch(/Globex +NON-CONFORMANT +\d+\/\d+ MUST +badges\/globex\.json/);
  });

  it('drops badges of targets no longer in the matrix', async () => {
    const again = join(fixture.dir, 'again');
    await mkdir(join(again, 'badges'), { recursive: true });
    await writeFile(join(again, 'badges', 'gone.json'), '{}');
    expect((await runMain(['matrix', fixture.dirs[1]!, '--out', again])).code).toBe(0);
    expect(await readdir(join(again, 'badges'))).toEqual(['globex.json']);
  });

  it('appends a table of the targets to GITHUB_STEP_SUMMARY', async () => {
    const summary = join(fixture.dir, 'summary.md');
    process.env.GITHUB_STEP_SUMMARY = summary;
    try {
      expect((await runMain(['matrix', ...fixture.dirs, '--out', join(fixture.dir, 'm2')])).code).toBe(0);
    } finally {
      delete process.env.GITHUB_STEP_SUMMARY;
    }
    const text = await readFile(summary, 'utf8');
    expect(text).toMatch(/## Carrier-Platform API conformance matrix: 2 of 4 conformant/);
    expect(text).toMatch(/\| Globex \| ❌ NON-CONFORMANT \|/);
    expect(text).not.toContain('<script>');
  });
});

describe('carrier-conformance matrix refuses what cannot be combined (one line, exit 2)', () => {
  async function refused(args: string[], message: RegExp): Promise<void> {
    const result = await runMain(['matrix', ...args, '--out', join(fixture.dir, 'refused')]);
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    expect(result.stdout).toBe('');
    expect(existsSync(join(fixture.dir, 'refused'))).toBe(false);
  }

  it('reports of different catalogue versions', async () => {
    // A report as an older harness with another catalogue writes it: one check fewer, another digest.
    const older = structuredClone(fixture.reports.globex!);
    older.tool.version = '0.0.9';
    older.checks = older.checks.filter((c) => c.id !== 'LINK-PREV');
    older.catalogue = { digest: `sha256:${'0'.repeat(64)}`, checks: older.checks.length, must: MUST - 1 };
    const path = await writeReport(fixture.dir, 'older.json', older);
    await refused(
      [fixture.dirs[0]!, path],
      /^carrier-conformance: matrix: reports from different catalogue versions cannot be combined: .*report\.json \(catalogue sha256:[0-9a-f]{12}…, carrier-conformance 0\.1\.0\) and .*older\.json \(catalogue sha256:000000000000…, carrier-conformance 0\.0\.9\); run every target with the same harness version$/,
    );
  });

  it('a report without a catalogue digest (made before it was recorded)', async () => {
    const legacy = structuredClone(fixture.reports.globex!) as Partial<RunReport>;
    delete legacy.catalogue;
    await refused(
      [fixture.dirs[0]!, await writeReport(fixture.dir, 'legacy.json', legacy)],
      /legacy\.json records no catalogue digest \(made by carrier-conformance 0\.1\.0\); rerun that target with this harness$/,
    );
  });

  it('two reports of the same target, however the name is cased', async () => {
    const twin = structuredClone(fixture.reports.globex!);
    twin.target.name = '  GLOBEX ';
    await refused(
      [fixture.dirs[1]!, await writeReport(fixture.dir, 'twin.json', twin)],
      /two reports of the same target "GLOBEX": .*report\.json and .*twin\.json; give each run its own --target-name$/,
    );
    await refused([fixture.dirs[1]!, fixture.dirs[1]!], /two reports of the same target "Globex"/);
  });

  it('malformed and huge reports', async () => {
    await refused(
      [await writeReport(fixture.dir, 'not-a-report.json', { hello: 'world' })],
      /not-a-report\.json: not a carrier-conformance report\.json/,
    );
    await refused([join(fixture.dir, 'absent.json')], /absent\.json: cannot read it \(no such file\)/);
    const { truncate } = await import('node:fs/promises');
    const huge = join(fixture.dir, 'huge.json');
    await writeFile(huge, '');
    await truncate(huge, 200 * 1024 * 1024);
    await refused([huge], /huge\.json: 209715200 bytes, more than the \d+ a report can be/);
  });
});

// Issue 32: `matrix DIR` over a folder of downloaded artifacts, one folder per target.
describe('carrier-conformance matrix DIR: the reports in its subfolders, or why not', () => {
  const named = (name: string) => fullReport({}, { target: { ...fullReport().target, name } });

  it('finds */report.json one level down, regular files in real folders only', async () => {
    const dir = await tempDir('carrier-matrix-dir-');
    const artifacts = join(dir, 'artifacts');
    for (const [folder, name] of [
      ['reports-globex', 'Globex'],
      ['reports-acme', 'Acme'],
    ] as const) {
      await mkdir(join(artifacts, folder), { recursive: true });
      await writeReport(join(artifacts, folder), 'report.json', named(name));
    }
    await mkdir(join(artifacts, 'logs'));
    await writeFile(join(artifacts, 'README.txt'), 'not a report');
    const result = await runMain(['matrix', artifacts, '--out', join(dir, 'm')]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(
      (JSON.parse(await readFile(join(dir, 'm', 'matrix.json'), 'utf8')) as Matrix).targets.map((t) => t.name).sort(),
    ).toEqual(['Acme', 'Globex']);
  });

  it.each([
    [
      'no folder in it',
      (_d: string): Promise<unknown> => Promise.resolve(),
      /holds no report\.json, and no folder \(looked one level down\): give the report\.json of each target, or the folders holding them$/,
    ],
    [
      'folders without a report',
      (d: string): Promise<unknown> => mkdir(join(d, 'logs')),
      /holds no report\.json, nor does any of its 1 folder \(looked one level down\)/,
    ],
    [
      'a report.json that is a symbolic link',
      (d: string): Promise<unknown> =>
        mkdir(join(d, 'linked')).then(() => symlink('/etc/passwd', join(d, 'linked', 'report.json'))),
      /linked\/report\.json: cannot read it \(a symbolic link, refused\)$/,
    ],
  ])('says why not: %s', async (_what, arrange, message) => {
    const dir = await tempDir('carrier-matrix-dir-');
    const artifacts = join(dir, 'artifacts');
    await mkdir(artifacts);
    await arrange(artifacts);
    const result = await runMain(['matrix', artifacts, '--out', join(dir, 'm')]);
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
  });
});

it('a hand-made report with a target name full of markup round-trips into matrix.json unchanged', async () => {
  const dir = await tempDir('carrier-matrix-unit-');
  const report = fullReport({}, { target: { ...fullReport().target, name: HOSTILE_NAME } });
  const result = await runMain(['matrix', await writeReport(dir, 'r.json', report), '--out', dir]);
  expect(result.code).toBe(0);
  expect((JSON.parse(await readFile(join(dir, 'matrix.json'), 'utf8')) as Matrix).targets[0]?.name).toBe(HOSTILE_NAME);
  expect(await readFile(join(dir, 'matrix.html'), 'utf8')).not.toMatch(/<script|<img/);
});

/* Chromium, as for report.html (test/html-report.test.ts): skipped without it locally, failed in CI. */
const SCREENSHOTS = fileURLToPath(new URL('../reports/', import.meta.url));

describe('matrix.html in Chromium', () => {
  let browser: Browser | undefined;
  afterAll(async () => {
    await browser?.close();
  });
  const { skip, name } = browserTest('shows checks x targets as text, opens reasons, runs no script and loads nothing');

  it.skipIf(skip)(
    name,
    async () => {
      expect(HAVE_CHROMIUM, NO_CHROMIUM_IN_CI).toBe(true);
      browser = await launchChromium(BROWSER_TIMEOUT_MS);
      const fileUrl = pathToFileURL(join(out, 'matrix.html')).href;
      await mkdir(SCREENSHOTS, { recursive: true });
      for (const width of [1280, 390]) {
        const context = await browser.newContext({ viewport: { width, height: 900 }, javaScriptEnabled: true });
        const page = await context.newPage();
        page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
        const requests: string[] = [];
        const dialogs: string[] = [];
        page.on('request', (req) => requests.push(req.url()));
        page.on('dialog', (dialog) => {
          dialogs.push(dialog.message());
          void dialog.dismiss();
        });
        await page.goto(fileUrl, { waitUntil: 'load' });

        expect(await page.title()).toBe('Carrier-Platform API conformance matrix: 2 of 4 conformant');
        // Targets across: the hostile name is text in the column header, nothing ran.
        const headers = await page.locator('table.matrix thead th').allInnerTexts();
        expect(headers[2]).toContain(HOSTILE_NAME);
        expect(headers[3]).toMatch(/Globex\s+NON-CONFORMANT\s+\d+\/\d+ MUST/);
        expect(await page.locator('script, img, iframe, object, embed').count()).toBe(0);
        expect(dialogs).toEqual([]);
        expect(requests).toEqual([fileUrl]);

        // Checks down: every id, one cell per target.
        const rows = page.locator('table.matrix tbody tr:not(.suite-row)');
        expect(await rows.count()).toBe(CHECKS.length);
        expect(await rows.first().locator('td.cell').count()).toBe(4);
        // A failed cell: its reason on hover (title) and on expansion.
        const failed = page.locator('table.matrix tr', { hasText: 'TOKEN-WRONG-SECRET' }).locator('td.cell-failed');
        expect(await failed.getAttribute('title')).toMatch(
          /^TOKEN-WRONG-SECRET on Globex: failed: .*expected 401, got 200/,
        );
        const reason = failed.locator('.reason');
        expect(await reason.isVisible()).toBe(false);
        await failed.locator('summary').click();
        expect(await reason.isVisible()).toBe(true);
        expect(await reason.innerText()).toMatch(/expected 401, got 200/);
        // Per-target totals.
        expect(await page.locator('table.matrix tfoot tr', { hasText: 'MUST passed' }).innerText()).toContain(
          `${MUST}/${MUST}`,
        );

        // The page itself never scrolls sideways; the matrix scrolls inside its box.
        const overflow = Number(
          await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'),
        );
        expect(overflow, `page overflow at ${width} px`).toBeLessThanOrEqual(0);
        // Issue 32: at every width, no word of either table is broken across lines (a check id or a
        // verdict, whole; in prose, names, URLs and paths, a run of letters and digits: they may wrap where the
        // browser's line breaking allows, between words), and no cell's content spills out of its column.
        const broken = await page.evaluate(`(() => {
          const out = [];
          for (const el of document.querySelectorAll('table.matrix th, table.matrix td, table.targets th, table.targets td')) {
            if (el.scrollWidth > el.clientWidth + 1) out.push('cut: ' + el.textContent.trim().slice(0, 40));
            if (el.querySelector('details[open]')) continue;
            const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
              const token = node.parentElement.closest('table.matrix code, .verdict-tag') !== null;
              for (const m of node.data.matchAll(token ? /\\S+/g : /[\\p{L}\\p{N}]+/gu)) {
                const range = document.createRange();
                range.setStart(node, m.index);
                range.setEnd(node, m.index + m[0].length);
                const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
                if (lines.size > 1) out.push('broken: ' + m[0]);
              }
            }
          }
          return out;
        })()`);
        expect(broken, `at ${width} px`).toEqual([]);
        await page.screenshot({ path: join(SCREENSHOTS, `matrix-${width}.png`), fullPage: false });
        await context.close();
      }
    },
    2 * BROWSER_TIMEOUT_MS,
  );
});
