/**
 * Round trips cost time where users run the battery (across a network): each question is asked
 * once, and what the run already knows is not asked again. The preflight's token request and
 * GET /users/me are the token endpoint's and /users/me's valid requests; a request that several
 * checks judge, each by its own rule, is sent once and judged by all of them.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startReferenceServer, type ServedRequest } from '../src/reference/index.js';
import type { RunReport } from '../src/model/run-report.js';
import { runMain, targetArgs, tempDir } from './support/harness.js';

async function served(
  args: readonly string[],
): Promise<{ code: number; report: RunReport; log: readonly ServedRequest[] }> {
  const server = await startReferenceServer({ recordRequests: true, tokenTtlSeconds: 300 });
  const reportsDir = await tempDir();
  const previous = process.env.CARRIER_CLIENT_SECRET;
  process.env.CARRIER_CLIENT_SECRET = server.clientSecret;
  try {
    const { code } = await runMain([
      'run',
      ...targetArgs(server),
      '--reports-dir',
      reportsDir,
      '--reporter',
      'json',
      ...args,
    ]);
    const report = JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
    return { code, report, log: [...server.requestLog()] };
  } finally {
    if (previous === undefined) delete process.env.CARRIER_CLIENT_SECRET;
    else process.env.CARRIER_CLIENT_SECRET = previous;
    await server.close();
  }
}

const header = (r: ServedRequest, name: string): string | undefined =>
  r.headers.find(([n]) => n.toLowerCase() === name)?.[1];
const counts = (requests: readonly ServedRequest[]): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const r of requests)
    out[`${r.method} ${r.target.split('?')[0]}`] = (out[`${r.method} ${r.target.split('?')[0]}`] ?? 0) + 1;
  return out;
};

describe('each question is asked once', () => {
  it("judges the preflight's token request and GET /users/me instead of sending them again", async () => {
    const { code, report, log } = await served(['--check', 'TOKEN-ISSUE', '--check', 'USER-OK']);
    expect(code).toBe(0);
    expect(counts(log)).toEqual({ 'POST /uaa/oauth2/token': 1, 'GET /users/me': 1 });
    // The report still shows the exchange each check judged.
    const issue = report.checks.find((c) => c.id === 'TOKEN-ISSUE');
    expect(issue?.status).toBe('passed');
  }, 60_000);

  it('sends the request without credentials, and the one with an unknown token, once per endpoint for the checks that judge it (the MUST and its SHOULDs)', async () => {
    const auth = [
      'AUTH-MISSING',
      'AUTH-MISSING-401',
      'AUTH-MISSING-NO-ERROR',
      'AUTH-UNKNOWN-TOKEN',
      'AUTH-UNKNOWN-TOKEN-401',
      'AUTH-INVALID-TOKEN-ERROR',
    ];
    const { code, log } = await served(auth.flatMap((id) => ['--check', id]));
    expect(code).toBe(0);
    const withoutCredentials = log.filter(
      (r) => r.endpoint !== '/uaa/oauth2/token' && header(r, 'authorization') === undefined,
    );
    const unknownToken = log.filter((r) =>
      header(r, 'authorization')?.startsWith('Bearer carrier-conformance-unknown-'),
    );
    // /users/me, /uaa/userinfo and the five tenant endpoints of the reference's OpenAPI document.
    expect(withoutCredentials).toHaveLength(7);
    expect(new Set(withoutCredentials.map((r) => r.target)).size).toBe(7);
    expect(unknownToken).toHaveLength(7);
  }, 60_000);

  it('sends each bad token request once for the check of its rule and TOKEN-ERROR-FORMAT', async () => {
    const { code, log } = await served([
      '--check',
      'TOKEN-WRONG-SECRET',
      '--check',
      'TOKEN-NO-CREDENTIALS',
      '--check',
      'TOKEN-GRANT-MISSING',
      '--check',
      'TOKEN-GRANT-UNSUPPORTED',
      '--check',
      'TOKEN-ERROR-FORMAT',
    ]);
    expect(code).toBe(0);
    // The preflight's, and the four bad requests, once each.
    expect(log.filter((r) => r.endpoint === '/uaa/oauth2/token')).toHaveLength(5);
  }, 60_000);
});
