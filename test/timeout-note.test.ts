/**
 * Issue 32: a --timeout the target's answers come close to is said after the run, whatever its
 * verdict: on a slower day the same answers time out and the checks waiting for them err.
 */
import { describe, expect, it } from 'vitest';
import type { RecordedExchange } from '../src/model/run-report.js';
import { startReferenceServer } from '../src/reference/index.js';
import { timeoutNote } from '../src/runner/timeout-note.js';
import { startChaosProxy } from './support/chaos-proxy.js';
import { runMain, tempDir } from './support/harness.js';
import { fullReport } from './support/reports.js';

function exchange(path: string, durationMs: number, error?: string): RecordedExchange {
  return {
    purpose: 'p',
    request: { method: 'GET', url: `https://api.example.test${path}`, headers: [] },
    ...(error === undefined ? { response: { status: 200, headers: [], body: '', bodyTruncated: false } } : { error }),
    startedAt: new Date(0).toISOString(),
    durationMs,
    auth: 'bearer',
  };
}

function reportWith(...exchanges: RecordedExchange[]) {
  const report = fullReport({ 'USER-OK': 'failed' });
  report.checks = report.checks.map((c) => (c.id === 'USER-OK' ? { ...c, exchanges } : c));
  return report;
}

describe('timeoutNote', () => {
  it('is silent when every answer came well within --timeout', () => {
    expect(
      timeoutNote(reportWith(exchange('/users/me', 120)), 10_000, [{ request: 'POST /uaa/oauth2/token', ms: 300 }]),
    ).toBeUndefined();
  });

  it('names the slowest answer, its share of --timeout, and a larger one', () => {
    expect(timeoutNote(reportWith(exchange('/users/me', 120), exchange('/tenants/t/invoices', 7_412.6)), 10_000)).toBe(
      'the slowest recorded answer (GET /tenants/t/invoices) took 7413 ms, 74 % of --timeout 10000 ms: answers this slow time out on a slower day, and the checks waiting for them err; consider --timeout 20000',
    );
  });

  it('counts the preflight answers, which a green report does not record', () => {
    expect(timeoutNote(reportWith(), 1_000, [{ request: 'POST /uaa/oauth2/token', ms: 640 }])).toMatch(
      /^the slowest recorded answer \(POST \/uaa\/oauth2\/token\) took 640 ms, 64 % of --timeout 1000 ms: /,
    );
  });

  it('says so when recorded requests timed out', () => {
    expect(
      timeoutNote(reportWith(exchange('/users/me', 1_000, 'GET /users/me timed out after 1000 ms (--timeout)')), 1_000),
    ).toMatch(/^1 recorded request timed out: .*consider --timeout 2000$/);
  });
});

describe('run: the note, end to end', () => {
  it('a run whose answers take most of --timeout ends with the note on stderr', async () => {
    const server = await startReferenceServer();
    // 100 ms each way: every answer takes 200 ms or more, over half of --timeout 350.
    const proxy = await startChaosProxy({ upstream: server.url, delayMs: 100 });
    const previous = process.env.CARRIER_CLIENT_SECRET;
    process.env.CARRIER_CLIENT_SECRET = server.clientSecret;
    try {
      const result = await runMain([
        'run',
        '--base-url',
        proxy.url,
        '--client-id',
        server.clientId,
        '--paged-path',
        'shipments',
        '--check',
        'TOKEN-ISSUE',
        '--timeout',
        '350',
        '--reports-dir',
        await tempDir(),
        '--reporter',
        'json',
      ]);
      expect(result.stderr).toMatch(
        /^note: the slowest recorded answer \((POST \/uaa\/oauth2\/token|GET \/users\/me)\) took \d+ ms, \d+ % of --timeout 350 ms: .*consider --timeout 700$/m,
      );
    } finally {
      if (previous === undefined) delete process.env.CARRIER_CLIENT_SECRET;
      else process.env.CARRIER_CLIENT_SECRET = previous;
      await proxy.close();
      await server.close();
    }
  }, 60_000);

  it('a run against a prompt target has none', async () => {
    const server = await startReferenceServer();
    const previous = process.env.CARRIER_CLIENT_SECRET;
    process.env.CARRIER_CLIENT_SECRET = server.clientSecret;
    try {
      const result = await runMain([
        'run',
        '--base-url',
        server.url,
        '--client-id',
        server.clientId,
        '--paged-path',
        'shipments',
        '--check',
        'TOKEN-ISSUE',
        '--reports-dir',
        await tempDir(),
        '--reporter',
        'json',
      ]);
      expect(result.stderr).not.toMatch(/--timeout/);
    } finally {
      if (previous === undefined) delete process.env.CARRIER_CLIENT_SECRET;
      else process.env.CARRIER_CLIENT_SECRET = previous;
      await server.close();
    }
  }, 60_000);
});
