/**
 * Paging as frameworks get it wrong, or right in their own way (issue 38 items 3, 4 and 9): links
 * that drop `size` fail the LINK checks on the page read at another size; a size capped without
 * saying so fails PAGE-ECHO at a size a client asks for, while a validation maximum (4xx) or a cap
 * Page-Size states passes; a link that leaves the base URL's path says so, without an internal
 * number; and a body-only paging (Django REST framework's PageNumberPagination) is not held to
 * one page size it never stated.
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startReferenceServer, type ReferenceOptions } from '../src/reference/index.js';
import type { RunReport } from '../src/model/run-report.js';
import { listArgs, runMain, tempDir } from './support/harness.js';
import { forward, serveOnLoopback, type ForwardedHeaders } from './support/hostile.js';

interface Front {
  url: string;
  close(): Promise<void>;
}

/** The pagination suite against a reference server's `shipments` (through `through`, when given), without a document. */
async function pagination(
  options: ReferenceOptions,
  args: readonly string[] = [],
  through?: (upstream: string) => Promise<Front>,
): Promise<RunReport> {
  const server = await startReferenceServer({ tokenTtlSeconds: 60, ...options });
  const reportsDir = await tempDir();
  process.env.CARRIER_CLIENT_SECRET = server.clientSecret;
  let front: Front | undefined;
  try {
    front = await through?.(server.url);
    const target = listArgs(server, ['shipments']).map((a) => (front && a === server.url ? front.url : a));
    await runMain([
      'run',
      ...target,
      '--suite',
      'pagination',
      '--reporter',
      'json',
      '--reports-dir',
      reportsDir,
      ...args,
    ]);
    return JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
  } finally {
    delete process.env.CARRIER_CLIENT_SECRET;
    await front?.close();
    await server.close();
  }
}

const notPassed = (report: RunReport): string[] =>
  report.checks.filter((c) => c.status !== 'passed').map((c) => `${c.id} ${c.status}`);
const messages = (report: RunReport, id: string): string[] =>
  report.checks.find((c) => c.id === id)?.findings.map((f) => f.message) ?? [];
const notes = (report: RunReport, id: string): string[] => report.checks.find((c) => c.id === id)?.notes ?? [];

describe('links that drop size (Starlette: replace_query_params(page=n))', () => {
  it('fail the LINK checks on the page read at half the size, and its next followed once', async () => {
    const report = await pagination({ faults: ['links-drop-size'] });
    expect(notPassed(report)).toEqual([
      'LINK-NEXT failed',
      'LINK-PREV failed',
      'LINK-FIRST-LAST failed',
      'LINK-FOLLOW failed',
    ]);
    const next = messages(report, 'LINK-NEXT');
    expect(next).toHaveLength(1);
    expect(next[0]).toMatch(
      /^GET shipments\?page=2&size=5: rel="next" http:\/\/127\.0\.0\.1:\d+\/tenants\/[^/]+\/shipments\?page=3 leads to page 3 with Page-Size 10, not this page's 5$/,
    );
    expect(messages(report, 'LINK-FOLLOW')[0]).toMatch(
      /^following rel="next" from GET shipments\?page=2&size=5: \S+\?page=3 leads to page 3 with Page-Size 10, not this page's 5$/,
    );
  }, 60_000);
});

describe('a size capped without saying so', () => {
  it('fails PAGE-ECHO at a size a client asks for (the whole list), though 1 000 000 is refused with a 422', async () => {
    const report = await pagination({ faults: ['size-capped-silently'] });
    expect(notPassed(report)).toEqual(['PAGE-ECHO failed']);
    expect(messages(report, 'PAGE-ECHO')).toEqual([
      'GET shipments?page=1&size=23: 12 items, but its headers promise 23 = min(Page-Size 23, Total-Elements 23 − (1 − 1) × 23)',
    ]);
  }, 60_000);

  it('passes a validation maximum below that size (a 4xx), saying that a cap under it cannot be seen', async () => {
    const report = await pagination({ variants: ['size-maximum-refused'] });
    expect(notPassed(report)).toEqual([]);
    expect(notes(report, 'PAGE-ECHO')).toContain(
      'GET /tenants/{tenantId}/shipments: GET shipments?page=1&size=23: refused with 422 (a size maximum below 23): a silent cap under it cannot be seen',
    );
  }, 60_000);

  it('passes a cap that Page-Size states', async () => {
    const report = await pagination({ variants: ['small-page-size'] });
    expect(notPassed(report)).toEqual([]);
    expect(notes(report, 'PAGE-ECHO')).toContain(
      'GET /tenants/{tenantId}/shipments: shipments: the server caps size at 6',
    );
  }, 60_000);
});

describe("behind Caddy's handle_path /api/*, which strips the prefix before the backend writes its links", () => {
  // The backend writes `/tenants/…` links from the path it saw; Caddy answers what it does not
  // route with an empty 200.
  const handlePath = (upstream: string): Promise<Front> =>
    serveOnLoopback(
      createServer((req, res) => {
        const target = req.url ?? '/';
        if (!target.startsWith('/api/')) return void res.writeHead(200).end();
        req.url = target.slice('/api'.length);
        forward(upstream, req, res).catch(() => res.destroy());
      }),
      '/api',
    );

  it("says the link is not under the base URL's path, and prints no internal page number", async () => {
    const report = await pagination({}, [], handlePath);
    expect(notPassed(report)).toEqual([
      'LINK-NEXT failed',
      'LINK-PREV failed',
      'LINK-FIRST-LAST failed',
      'LINK-FOLLOW failed',
    ]);
    expect(messages(report, 'LINK-NEXT')[0]).toMatch(
      /^GET shipments\?page=1&size=10: rel="next" http:\/\/127\.0\.0\.1:\d+\/tenants\/[^/]+\/shipments\?page=2&size=10 is not under the base URL's path \/api: it leads to a page without Page-Number, expected page 2$/,
    );
    expect(messages(report, 'LINK-FOLLOW')[0]).toMatch(
      /^following rel="next" from page 1 of shipments: page 1's rel="next" http:\S+ is not under the base URL's path \/api: it leads to a page without Page-Number, expected page 2 \(visits 1 → \(no Page-Number\), expected 1 → … → 3\)$/,
    );
    const all = report.checks.flatMap((c) => c.findings.map((f) => f.message));
    expect(all.filter((m) => /-1\b/.test(m))).toEqual([]);
  }, 60_000);
});

describe("a body-only paging (Django REST framework's PageNumberPagination)", () => {
  // No paging headers; the items in `results`; a default size of 20, which the walk, told none, does not know.
  const drf = (upstream: string): Promise<Front> =>
    serveOnLoopback(
      createServer((req, res) => {
        const asBody = (headers: ForwardedHeaders): void => {
          for (const name of ['total-pages', 'page-size', 'page-number', 'total-elements', 'link'])
            delete headers[name];
        };
        const wrap = (body: string): string => {
          const items = JSON.parse(body) as unknown;
          return Array.isArray(items)
            ? JSON.stringify({ count: 23, next: null, previous: null, results: items })
            : body;
        };
        forward(upstream, req, res, asBody, wrap).catch(() => res.destroy());
      }),
    );

  it('fails PAGE-HEADERS, not PAGE-DEFAULT: two pages without Page-Size are not known to have one size', async () => {
    const report = await pagination({ pageSizeDefault: 20 }, [], drf);
    expect(report.checks.find((c) => c.id === 'PAGE-DEFAULT')?.status).toBe('passed');
    expect(report.checks.find((c) => c.id === 'PAGE-HEADERS')?.status).toBe('failed');
  }, 60_000);

  it('still fails PAGE-DEFAULT when the page without page is not the start of the list', async () => {
    const report = await pagination(
      { pageSizeDefault: 20, faults: ['default-page-is-last'], shipmentCount: 45 },
      [],
      drf,
    );
    expect(messages(report, 'PAGE-DEFAULT')).toEqual([
      "GET shipments without page returns other items than page=1 (item 1: id 9319db14-b2dc-48bc-b478-000000000029 vs id 9319db14-b2dc-48bc-b478-000000000001; at any size page 1 starts with the list's first items)",
    ]);
  }, 60_000);
});
