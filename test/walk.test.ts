/**
 * The walk of a long list (src/battery/walk.ts), as the harness runs it in-process against the
 * reference server: findings capped with a count of the rest, the concurrency growing while the
 * latency stays flat and backing off when the target throttles, with the verdict unchanged.
 * No time is asserted: only what was found, how it was counted, and how the walk paced itself.
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startReferenceServer, type ReferenceOptions } from '../src/reference/index.js';
import type { RunReport } from '../src/model/run-report.js';
import { FINDINGS_PER_ENDPOINT } from '../src/battery/findings-cap.js';
import { listArgs, runMain, tempDir } from './support/harness.js';
import { forward, serveOnLoopback, type ForwardedHeaders } from './support/hostile.js';

/**
 * A gateway that serves the API under `/api` (as many do): strips the prefix on the way in, puts it
 * back in Link targets on the way out, and counts the request targets it was sent.
 */
async function prefixedFront(upstream: string): Promise<Front & { targets: Map<string, number> }> {
  const targets = new Map<string, number>();
  const server = createServer((req, res) => {
    const target = req.url ?? '/';
    targets.set(target, (targets.get(target) ?? 0) + 1);
    if (!target.startsWith('/api/')) {
      res.writeHead(404).end();
      return;
    }
    req.url = target.slice('/api'.length);
    const underPrefix = (headers: ForwardedHeaders): void => {
      if (typeof headers.link === 'string') headers.link = headers.link.replace(/<\//g, '</api/');
    };
    forward(upstream, req, res, underPrefix).catch(() => res.destroy());
  });
  return { ...(await serveOnLoopback(server, '/api')), targets };
}

/** A front that drops the connection, answering nothing, for the request targets `drop` picks; forwards the rest. */
async function droppingFront(upstream: string, drop: (target: string) => boolean): Promise<Front> {
  const server = createServer((req, res) => {
    if (drop(req.url ?? '/')) req.socket.destroy();
    else forward(upstream, req, res).catch(() => res.destroy());
  });
  return serveOnLoopback(server);
}

/** A server put before the reference server, at `url`. */
interface Front {
  url: string;
  close(): Promise<void>;
}

/**
 * Runs the harness in-process against a reference server with the list `shipments` only:
 * directly, or through the front `through` puts before it (returned, closed, for what it counted).
 */
async function walk<F extends Front>(
  options: ReferenceOptions,
  args: readonly string[],
  through?: (upstream: string) => Promise<F>,
): Promise<{ code: number; report: RunReport; throttled: number; front: F | undefined }> {
  const server = await startReferenceServer(options);
  const reportsDir = await tempDir();
  const previous = process.env.CARRIER_CLIENT_SECRET;
  process.env.CARRIER_CLIENT_SECRET = server.clientSecret;
  let front: F | undefined;
  try {
    front = await through?.(server.url);
    const target = listArgs(server, ['shipments']).map((a) => (front && a === server.url ? front.url : a));
    const { code } = await runMain(['run', ...target, '--reports-dir', reportsDir, '--reporter', 'json', ...args]);
    const report = JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
    return { code, report, throttled: server.throttledCount(), front };
  } finally {
    if (previous === undefined) delete process.env.CARRIER_CLIENT_SECRET;
    else process.env.CARRIER_CLIENT_SECRET = previous;
    await front?.close();
    await server.close();
  }
}

const check = (report: RunReport, id: string) => report.checks.find((c) => c.id === id);

describe('a walk of a long list', () => {
  it('lists the first findings of a rule broken on every page, counts the rest, and keeps only their exchanges', async () => {
    // Every list response repeats Total-Elements: 200 pages and the unparameterised request.
    const { code, report } = await walk({ shipmentCount: 200, faults: ['paging-header-repeated'] }, [
      '--check',
      'PAGE-HEADERS',
      '--page-size',
      '1',
    ]);
    expect(code).toBe(1);
    const result = check(report, 'PAGE-HEADERS');
    expect(result?.status).toBe('failed');
    expect(result?.findings).toHaveLength(FINDINGS_PER_ENDPOINT);
    expect(result?.message).toMatch(/Total-Elements is sent 2 times .* \(and 200 more\)$/);
    expect(result?.notes).toContain(
      `${201 - FINDINGS_PER_ENDPOINT} more findings not listed (${201 - FINDINGS_PER_ENDPOINT} failures, 0 errors): at most ${FINDINGS_PER_ENDPOINT} per endpoint and 100 per check are`,
    );
    // The exchanges cited by the listed findings, and the last ones sent: not one per page.
    expect(result?.exchanges.length).toBeLessThanOrEqual(FINDINGS_PER_ENDPOINT + 2);
    expect(
      result?.findings.every((f) => f.exchange !== undefined && result.exchanges[f.exchange]?.response?.status === 200),
    ).toBe(true);
    expect(result?.endpoints).toEqual([
      { endpoint: 'GET /tenants/{tenantId}/shipments', status: 'failed', message: result?.findings[0]?.message },
    ]);
  }, 60_000);

  it('grows its concurrency beyond the start while the latency stays flat, up to the politeness bound', async () => {
    // Every answer takes 40 ms: the latency is the server's wait, not this machine's load.
    const { code, report } = await walk({ shipmentCount: 300, variants: ['slow-responses'] }, [
      '--suite',
      'pagination',
      '--page-size',
      '2',
    ]);
    expect(code).toBe(0);
    const pace = check(report, 'PAGE-WALK')?.notes.find((n) => n.includes('shipments: 150 pages'));
    expect(pace).toMatch(
      /^GET \/tenants\/\{tenantId\}\/shipments: 150 pages, 300 items read at concurrency 4 to (\d+) \(at most 16\)$/,
    );
    expect(Number(/to (\d+)/.exec(pace ?? '')?.[1])).toBeGreaterThan(4);
  }, 60_000);

  it('never exceeds --concurrency', async () => {
    const { report } = await walk({ shipmentCount: 100, variants: ['slow-responses'] }, [
      '--suite',
      'pagination',
      '--page-size',
      '1',
      '--concurrency',
      '2',
    ]);
    expect(check(report, 'PAGE-WALK')?.notes).toContain(
      'GET /tenants/{tenantId}/shipments: 100 pages, 100 items read at concurrency 2 (at most 2)',
    );
  }, 60_000);

  it('backs off when the target throttles (429), and the verdict is the same: every check passes', async () => {
    // A gateway that refuses a request arriving while 3 are being answered, with Retry-After: 1.
    const { code, report, throttled } = await walk(
      { shipmentCount: 120, variants: ['slow-responses'], maxInFlight: 3 },
      ['--suite', 'pagination', '--page-size', '1', '--max-retries', '6'],
    );
    expect(throttled).toBeGreaterThan(0);
    expect(
      report.checks.filter((c) => c.status !== 'passed').map((c) => `${c.id}: ${c.status} ${c.message ?? ''}`),
    ).toEqual([]);
    expect(code).toBe(0);
    expect(
      check(report, 'PAGE-WALK')?.notes.some((n) => /backed off \d+ times? \(\d+ answers 429\/503\)/.test(n)),
    ).toBe(true);
  }, 90_000);

  it('cites the page whose rel="next" is wrong, whose recorded Link header shows it, and says which step of the chain broke', async () => {
    const { code, report } = await walk({ faults: ['next-skips-a-page'] }, [
      '--check',
      'LINK-NEXT',
      '--check',
      'LINK-FOLLOW',
    ]);
    expect(code).toBe(1);
    for (const id of ['LINK-NEXT', 'LINK-FOLLOW']) {
      const result = check(report, id);
      const cited = result?.exchanges[result.findings[0]?.exchange ?? -1];
      expect(cited?.request.url, id).toMatch(/[?&]page=1&size=10$/);
      expect(JSON.stringify(cited?.response?.headers), id).toMatch(/page=3&size=10>; rel=\\"next\\"/);
    }
    expect(check(report, 'LINK-FOLLOW')?.findings[0]?.message).toBe(
      'following rel="next" from page 1 of shipments: page 1\'s rel="next" leads to page 3, expected page 2 (visits 1 → 3, expected 1 → … → 3)',
    );
  }, 60_000);

  it('whose page 3 never answers (the connection dropped): an error of the walk checks naming the exchange, not a pass or a failure', async () => {
    const dropPage3 = (upstream: string): Promise<Front> =>
      droppingFront(upstream, (target) => /\/shipments\?page=3&size=10$/.test(target));
    const { code, report } = await walk(
      { shipmentCount: 60 },
      ['--check', 'PAGE-WALK', '--check', 'LINK-NEXT', '--page-size', '10'],
      dropPage3,
    );
    for (const id of ['PAGE-WALK', 'LINK-NEXT']) {
      const result = check(report, id);
      expect(result?.status, id).toBe('error');
      // The endpoint's own error: it was not judged, and why (never "passed").
      expect(
        result?.findings.map((f) => f.message),
        id,
      ).toEqual([
        expect.stringMatching(/^not judged: the exchange failed: connection to 127\.0\.0\.1:\d+ closed unexpectedly/),
      ]);
      expect(
        result?.endpoints?.map((e) => e.status),
        id,
      ).toEqual(['error']);
      // The finding cites the exchange that failed: page 3's request, with no response.
      const cited = result?.exchanges[result.findings[0]?.exchange ?? -1];
      expect(cited?.request.url, id).toMatch(/\/shipments\?page=3&size=10$/);
      expect(cited?.response, id).toBeUndefined();
    }
    expect(code).toBe(1);
  }, 60_000);

  it('whose rel="next" targets are javascript: URIs: LINK-NEXT and LINK-FOLLOW fail saying why, nothing is sent there, and the checks that page by number keep their verdict', async () => {
    const { code, report } = await walk({ shipmentCount: 25, faults: ['link-javascript'] }, [
      '--suite',
      'pagination',
      '--page-size',
      '10',
    ]);
    expect(report.checks.map((c) => `${c.id} ${c.status}`)).toEqual([
      'PAGE-HEADERS passed',
      'PAGE-DEFAULT passed',
      'PAGE-ECHO passed',
      'PAGE-TOTALS passed',
      'PAGE-WALK passed',
      'PAGE-PAST-END passed',
      'PAGE-INVALID-PARAMS passed',
      'LINK-SYNTAX passed',
      'LINK-NEXT failed',
      'LINK-PREV passed',
      'LINK-FIRST-LAST passed',
      'LINK-FOLLOW failed',
    ]);
    expect(code).toBe(1);
    const origin = new URL(report.target.baseUrl).origin;
    const why = `javascript:alert(document.domain) is not an http(s) URL on the API's origin ${origin}: a client cannot follow it with its credentials`;
    // The walk's pages, and the page PAGE-ECHO reads at half the size (issue 38 item 3).
    expect(check(report, 'LINK-NEXT')?.findings.map((f) => f.message)).toEqual([
      `GET shipments?page=1&size=10: rel="next" ${why}`,
      `GET shipments?page=2&size=10: rel="next" ${why}`,
      `GET shipments?page=2&size=5: rel="next" ${why}`,
    ]);
    expect(check(report, 'LINK-FOLLOW')?.findings.map((f) => f.message)).toEqual([
      `following rel="next" from page 1 of shipments: page 1's rel="next" ${why} (visits 1)`,
      `following rel="next" from GET shipments?page=2&size=5: ${why}`,
    ]);
    // Each cites the page whose Link header holds the target, and no check requested it.
    for (const id of ['LINK-NEXT', 'LINK-FOLLOW']) {
      const result = check(report, id);
      const cited = result?.exchanges[result.findings[0]?.exchange ?? -1];
      expect(cited?.request.url, id).toMatch(/[?&]page=1&size=10$/);
      expect(JSON.stringify(cited?.response?.headers), id).toContain(
        '<javascript:alert(document.domain)>; rel=\\"next\\"',
      );
    }
    expect(report.checks.flatMap((c) => c.exchanges).filter((e) => !e.request.url.startsWith(origin))).toEqual([]);
  }, 60_000);

  it("behind a gateway whose links name its upstream's origin: the link checks fail naming the API's origin, and the walk by page number passes", async () => {
    // A gateway under /api that forwards the answers' Link targets as the upstream wrote them,
    // made absolute on the upstream's own origin (as one that misses its rewrite does).
    const leakingFront = (upstream: string): Promise<Front> => {
      const server = createServer((req, res) => {
        const target = req.url ?? '/';
        if (!target.startsWith('/api/')) return void res.writeHead(404).end();
        req.url = target.slice('/api'.length);
        const toUpstream = (headers: ForwardedHeaders): void => {
          if (typeof headers.link === 'string') headers.link = headers.link.replace(/<\//g, `<${upstream}/`);
        };
        forward(upstream, req, res, toUpstream).catch(() => res.destroy());
      });
      return serveOnLoopback(server, '/api');
    };
    const { code, report } = await walk(
      { shipmentCount: 25 },
      ['--suite', 'pagination', '--page-size', '10'],
      leakingFront,
    );
    expect(report.checks.filter((c) => c.status !== 'passed').map((c) => `${c.id} ${c.status}`)).toEqual([
      'LINK-NEXT failed',
      'LINK-PREV failed',
      'LINK-FIRST-LAST failed',
      'LINK-FOLLOW failed',
    ]);
    expect(code).toBe(1);
    const origin = new URL(report.target.baseUrl).origin;
    const first = check(report, 'LINK-FIRST-LAST')?.findings[0]?.message;
    expect(first).toMatch(
      new RegExp(
        `^GET shipments\\?page=1&size=10: rel="first" http://127\\.0\\.0\\.1:\\d+/tenants/[^ ]+/shipments\\?page=1&size=10 is not on the API's origin ${origin.replace(/\./g, '\\.')}: a client cannot follow it with its credentials$`,
      ),
    );
    expect(first).not.toContain(origin + '/');
  }, 60_000);

  it('behind a gateway that serves the API under a path prefix, reads each page once: its links are matched with the prefix', async () => {
    const { code, report, front } = await walk(
      { shipmentCount: 40 },
      [
        '--check',
        'LINK-NEXT',
        '--check',
        'LINK-PREV',
        '--check',
        'LINK-FIRST-LAST',
        '--check',
        'LINK-FOLLOW',
        '--page-size',
        '2',
      ],
      prefixedFront,
    );
    expect(report.checks.map((c) => `${c.id} ${c.status}`)).toEqual([
      'LINK-NEXT passed',
      'LINK-PREV passed',
      'LINK-FIRST-LAST passed',
      'LINK-FOLLOW passed',
    ]);
    expect(code).toBe(0);
    // Pages 2 to 20, each requested by the walk; their links (next, prev, first, last) lead to them.
    const pages = [...(front?.targets ?? [])].filter(([t]) => /[?&]size=2(&|$)/.test(t) && !/[?&]page=1(&|$)/.test(t));
    expect(pages.length).toBe(19);
    expect(pages.filter(([, n]) => n !== 1)).toEqual([]);
  }, 60_000);
});

/** A front that serves every list item as the same object without an id: elements alike, as rows of a report may be. */
async function alikeFront(upstream: string): Promise<Front> {
  const server = createServer((req, res) => {
    const alike = (body: string): string => {
      try {
        const parsed = JSON.parse(body) as unknown;
        return Array.isArray(parsed) ? JSON.stringify(parsed.map(() => ({ status: 'created', note: null }))) : body;
      } catch {
        return body;
      }
    };
    forward(upstream, req, res, undefined, alike).catch(() => res.destroy());
  });
  return serveOnLoopback(server);
}

describe('items without an id', () => {
  it('that are alike on two pages are two elements, not one twice: PAGE-WALK passes and says why repeats are not judged', async () => {
    const { report } = await walk({ shipmentCount: 12 }, ['--check', 'PAGE-WALK', '--page-size', '5'], alikeFront);
    const walked = check(report, 'PAGE-WALK');
    expect(walked?.status).toBe('passed');
    expect(walked?.notes?.join('\n')).toMatch(
      /items without an id are told apart by their content only, and some repeat .*: two elements may be alike, so repeats are not judged/,
    );
  });

  it('with an id are one element: the same id on two pages still fails PAGE-WALK (the fault pages-overlap)', async () => {
    const { report } = await walk({ shipmentCount: 12, faults: ['pages-overlap'] }, [
      '--check',
      'PAGE-WALK',
      '--page-size',
      '5',
    ]);
    expect(check(report, 'PAGE-WALK')?.status).toBe('failed');
  });
});
