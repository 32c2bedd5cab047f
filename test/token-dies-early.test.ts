/**
 * A shared token that stops working before its expires_in (a whole-second clock, a token used up,
 * revoked) must never be judged as the rule a request tests: "TENANT-FOREIGN failed: … expected 403
 * or 404, got 401" once came from a token that had merely run out. Here a front before the
 * reference server accepts each access token for a few requests only and then refuses it, as an
 * expired one (RFC 6750 §3.1 invalid_token), so that every check meets such tokens, many times and
 * under concurrency, whatever the timing: the tenant and resource checks keep their true verdicts.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunReport } from '../src/model/run-report.js';
import { startReferenceServer, type ReferenceServer } from '../src/reference/index.js';
import { startFront, type Front } from './support/front.js';
import { runMain, targetArgs, tempDir } from './support/harness.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

/** Requests an access token is accepted for, before the front refuses it as expired. */
const USES = 2;

/** How many requests the front refused with a token that had been used up. */
interface Refusals {
  refused: number;
}

/** A front before `upstream` that accepts each bearer token for USES requests (the token endpoint aside), then refuses it as expired. */
async function tokenUsingFront(upstream: string): Promise<Front & Refusals> {
  const uses = new Map<string, number>();
  const counts: Refusals = { refused: 0 };
  const front = await startFront(upstream, (req, res) => {
    const token = /^bearer +(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (token === undefined || (req.url ?? '').startsWith('/uaa/oauth')) return false;
    const n = (uses.get(token) ?? 0) + 1;
    uses.set(token, n);
    if (n <= USES) return false;
    counts.refused += 1;
    res.writeHead(401, {
      'WWW-Authenticate':
        'Bearer realm="carrier-platform", error="invalid_token", error_description="The access token expired"',
      'Content-Type': 'application/json',
      'Cache-Control': 'no-store',
    });
    res.end(JSON.stringify({ error: 'invalid_token', error_description: 'The access token expired' }));
    return true;
  });
  cleanup.push(() => front.close());
  return Object.assign(counts, { url: front.url, close: () => front.close() });
}

async function runBehind(faults: string[]): Promise<{ code: number; report: RunReport; front: Refusals }> {
  const target: ReferenceServer = await startReferenceServer({ tokenTtlSeconds: 60, faults });
  cleanup.push(() => target.close());
  const front = await tokenUsingFront(target.url);
  const reportsDir = await tempDir();
  const expectations = join(reportsDir, 'expectations.json');
  await writeFile(expectations, JSON.stringify(target.expectations));
  process.env.CARRIER_CLIENT_SECRET = target.clientSecret;
  try {
    const suites = ['tenant', 'resources'].flatMap((s) => ['--suite', s]);
    const { code } = await runMain([
      'run',
      ...targetArgs({ ...target, url: front.url }),
      '--expectations',
      expectations,
      ...suites,
      '--reports-dir',
      reportsDir,
    ]);
    const report = JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
    return { code, report, front };
  } finally {
    delete process.env.CARRIER_CLIENT_SECRET;
  }
}

const verdicts = (report: RunReport): string[] =>
  report.checks.map((c) => `${c.id} ${c.status}${c.status === 'passed' ? '' : `: ${c.message ?? ''}`}`);

describe('a shared token that stops working before its expires_in', { timeout: 60_000 }, () => {
  it('is renewed and the request sent again: the tenant and resource checks pass a conformant server', async () => {
    const { code, report, front } = await runBehind([]);
    // The scenario happened: tokens were refused as used up, again and again.
    expect(front.refused).toBeGreaterThan(10);
    expect(verdicts(report)).toEqual(
      [
        'TENANT-ACCESS',
        'TENANT-FOREIGN',
        'TENANT-UNKNOWN',
        'TENANT-INVALID-ID',
        'TENANT-UNKNOWN-NO-AUTH',
        'RESOURCE-SCHEMA',
        'RESOURCE-FIELDS-PRESENT',
        'RESOURCE-EXPECTED-VALUES',
      ].map((id) => `${id} passed`),
    );
    expect(code).toBe(0);
  });

  it('is no cover for a real failure: a tenant served across tenants still fails TENANT-FOREIGN, for its data, not for a 401', async () => {
    const { report, front } = await runBehind(['cross-tenant-data']);
    expect(front.refused).toBeGreaterThan(10);
    const foreign = report.checks.find((c) => c.id === 'TENANT-FOREIGN');
    expect(foreign?.status).toBe('failed');
    const messages = foreign?.findings.map((f) => f.message) ?? [];
    expect(messages.length).toBeGreaterThan(0);
    for (const message of messages) expect(message).not.toMatch(/401/);
    expect(verdicts(report).filter((v) => !v.startsWith('TENANT-FOREIGN'))).toEqual(
      [
        'TENANT-ACCESS',
        'TENANT-UNKNOWN',
        'TENANT-INVALID-ID',
        'TENANT-UNKNOWN-NO-AUTH',
        'RESOURCE-SCHEMA',
        'RESOURCE-FIELDS-PRESENT',
        'RESOURCE-EXPECTED-VALUES',
      ].map((id) => `${id} passed`),
    );
  });
});
