/**
 * Every exchange kept as evidence (issue 39, items 2 and 8): the HAR and a bundle's exchanges.jsonl
 * hold every request the run made, each naming the checks that used it, and verify-bundle checks
 * the verdicts against them: a failing bundle rewritten as all-passed with the harness's own
 * renderers and signed again does not verify.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE_FILES, MANIFESTED } from '../src/certification/bundle-format.js';
import { sealBundle } from '../src/bundle/write.js';
import { startReferenceServer, type ReferenceOptions } from '../src/reference/index.js';
import { renderHtmlReport } from '../src/report/html.js';
import { renderJsonReport } from '../src/report/json.js';
import { renderJUnit } from '../src/report/junit.js';
import { countStatuses, type RunReport } from '../src/model/run-report.js';
import { parseRunReport } from '../src/report/read.js';
import { suiteCounts, verdictLine, verdictOf } from '../src/report/verdict.js';
import { keyPair, type Keys } from './support/keys.js';
import { restoreEnv, runMain, setEnv, tempDir } from './support/harness.js';

let dir: string;
let signer: Keys;

beforeAll(async () => {
  dir = await tempDir('carrier-evidence-');
  signer = await keyPair(dir, 'vendor');
});

interface HarEntry {
  request: { method: string; url: string };
  response: { status: number };
  _checks: string[];
  _id: string;
}

/** A run against a reference server with the HAR and a signed bundle; what the server saw. */
async function runWith(
  name: string,
  options: ReferenceOptions,
  args: readonly string[],
  { second = false }: { second?: boolean } = {},
): Promise<{ report: RunReport; har: HarEntry[]; bundle: string; requests: number }> {
  const server = await startReferenceServer(options);
  const reportsDir = join(dir, name);
  const bundle = join(dir, `${name}-bundle`);
  try {
    setEnv({
      CARRIER_CLIENT_SECRET: server.clientSecret,
      ...(second ? { CARRIER_SECOND_CLIENT_SECRET: server.secondClientSecret } : {}),
    });
    const secondClient = second ? ['--second-client-id', server.secondClientId] : [];
    await runMain([
      'run',
      '--base-url',
      server.url,
      '--client-id',
      server.clientId,
      '--openapi',
      server.openapiFile,
      '--reports-dir',
      reportsDir,
      '--reporter',
      'json',
      '--reporter',
      'har',
      '--bundle',
      bundle,
      '--sign-key',
      signer.privatePath,
      ...secondClient,
      ...args,
    ]);
    const report = JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
    const har = (JSON.parse(await readFile(join(reportsDir, 'report.har'), 'utf8')) as { log: { entries: HarEntry[] } })
      .log.entries;
    return { report, har, bundle, requests: server.requestCount() };
  } finally {
    restoreEnv();
    await server.close();
  }
}

async function verify(bundle: string): Promise<{ code: number; stdout: string; fails: string[] }> {
  const result = await runMain(['verify-bundle', bundle, '--public-key', signer.publicPath]);
  return {
    ...result,
    fails: result.stdout
      .split('\n')
      .filter((l) => l.startsWith('  FAIL  '))
      .map((l) => l.slice(8)),
  };
}

/** What a vendor with the harness and its own key can do: every check passed, every file rendered and sealed again. */
async function rewriteAsAllPassed(bundle: string): Promise<void> {
  const report = parseRunReport(await readFile(join(bundle, BUNDLE_FILES.report), 'utf8'), BUNDLE_FILES.report);
  const checks = report.checks.map(({ message: _message, ...c }) => ({
    ...c,
    status: 'passed' as const,
    findings: [],
    exchanges: [],
    ...(c.endpoints
      ? { endpoints: c.endpoints.map((e) => ({ endpoint: e.endpoint, status: 'passed' as const })) }
      : {}),
  }));
  const { verdict, exitCode } = verdictOf(checks, { strict: report.strict }, undefined, report.scope);
  const forged: RunReport = {
    ...report,
    checks,
    counts: countStatuses(checks),
    suites: suiteCounts(checks),
    verdict,
    exitCode,
  };
  const json = renderJsonReport({ ...forged, summary: verdictLine(forged) });
  const parsed = parseRunReport(json, BUNDLE_FILES.report);
  const target = JSON.parse(await readFile(join(bundle, BUNDLE_FILES.target), 'utf8')) as { run: { verdict: string } };
  target.run.verdict = parsed.verdict;
  const files: [string, string][] = [
    [BUNDLE_FILES.report, json],
    [BUNDLE_FILES.junit, renderJUnit(parsed)],
    [BUNDLE_FILES.html, renderHtmlReport(parsed)],
    [BUNDLE_FILES.target, `${JSON.stringify(target, null, 2)}\n`],
    [BUNDLE_FILES.exchanges, await readFile(join(bundle, BUNDLE_FILES.exchanges), 'utf8')],
  ];
  expect(files.map(([n]) => n)).toEqual(MANIFESTED);
  await sealBundle(bundle, files, signer.key);
}

describe('every exchange of a conformant run, in the HAR and the bundle', () => {
  it('the HAR holds every request the server received, each naming its checks; every passed check is named', async () => {
    const run = await runWith('clean', { tokenTtlSeconds: 60 }, [
      '--suite',
      'token',
      '--suite',
      'auth',
      '--suite',
      'tenant',
      '--suite',
      'pagination',
      '--foreign-tenant-id',
      'c4e6a8b0-2d4f-4c6e-a8b0-c2d4e6f8a0b2',
    ]);
    expect(run.report.counts.failed).toBe(0);
    // On main a clean run's HAR had no entry: now one per request.
    expect(run.har).toHaveLength(run.requests);
    expect(new Set(run.har.map((e) => e._id)).size).toBe(run.har.length);
    const named = new Set(run.har.flatMap((e) => e._checks));
    for (const check of run.report.checks.filter((c) => c.status === 'passed'))
      expect(named, check.id).toContain(check.id);
    // The bundle's copy, one entry a line.
    const lines = (await readFile(join(run.bundle, BUNDLE_FILES.exchanges), 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(run.requests);
    const verified = await verify(run.bundle);
    expect(verified.stdout).toMatch(
      /^ {2}ok {4}evidence: \d+ exchanges recorded \(\d+ used by checks\); of the \d+ passed checks, \d+ cross-checked against what their exchanges answered/m,
    );
    expect(verified.fails.filter((f) => f.startsWith('evidence'))).toEqual([]);
  });
});

describe('refusal bodies in the exchanges, judged as TENANT-FOREIGN judges them (src/battery/refusal-data.ts)', () => {
  it("a conformant server's error arrays (FastAPI's detail, JSON:API's errors) are no data: the passes verify", async () => {
    const run = await runWith(
      'error-arrays',
      { variants: ['error-bodies-fastapi-jsonapi'], tokenTtlSeconds: 60 },
      ['--suite', 'tenant'],
      { second: true },
    );
    expect(run.report.checks.filter((c) => c.id.startsWith('TENANT-')).map((c) => `${c.id} ${c.status}`)).toEqual([
      'TENANT-ACCESS passed',
      'TENANT-FOREIGN passed',
      'TENANT-UNKNOWN passed',
      'TENANT-INVALID-ID passed',
      'TENANT-UNKNOWN-NO-AUTH passed',
    ]);
    const verified = await verify(run.bundle);
    expect(verified.fails.filter((f) => f.startsWith('evidence'))).toEqual([]);
  });

  it("a refusal that carries the second client's items, its failure rewritten as a pass, does not verify", async () => {
    const run = await runWith(
      'refusal-data',
      { faults: ['foreign-refusal-with-data'], tokenTtlSeconds: 60 },
      ['--suite', 'tenant'],
      { second: true },
    );
    expect(run.report.checks.find((c) => c.id === 'TENANT-FOREIGN')?.status).toBe('failed');
    await rewriteAsAllPassed(run.bundle);
    const result = await verify(run.bundle);
    expect(result.fails).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^evidence TENANT-FOREIGN: passed, but \d+ of its \d+ requests for another tenant than the asking client may access did not answer 403 or 404 without data \(GET \/tenants\/\S+ answered 403\)/,
        ),
      ]),
    );
  });
});

describe('a vendor who rewrites what the exchanges show', () => {
  it("a failing bundle rewritten as all-passed with the harness's renderers and signed again does not verify: the exchanges show the server answered without a token", async () => {
    const run = await runWith('no-auth', { faults: ['missing-auth-accepted'], tokenTtlSeconds: 60 }, [
      '--suite',
      'auth',
    ]);
    expect(run.report.checks.find((c) => c.id === 'AUTH-MISSING')?.status).toBe('failed');
    await rewriteAsAllPassed(run.bundle);
    const result = await verify(run.bundle);
    expect(result.code).toBe(1);
    expect(result.fails).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^evidence AUTH-MISSING: passed, but \d+ of its \d+ requests without an Authorization header did not answer a 4xx refusal \(GET \/\S+ answered 200\): the verdict is not what the exchanges show$/,
        ),
      ]),
    );
    // Everything else about the forgery holds: the evidence is what gives it away.
    expect(
      result.fails.filter((f) => !f.startsWith('evidence') && !f.startsWith('MUST') && !f.startsWith('run')),
    ).toEqual([]);
  });

  it('the exchanges a pass rests on dropped from exchanges.jsonl and the bundle sealed again: the pass is not supported', async () => {
    const run = await runWith('edited', { tokenTtlSeconds: 60 }, [
      '--check',
      'VERSION-MISSING',
      '--check',
      'TOKEN-ISSUE',
    ]);
    const path = join(run.bundle, BUNDLE_FILES.exchanges);
    // The forger drops the requests without Accept-Version, the ones VERSION-MISSING judged.
    const kept = (await readFile(path, 'utf8'))
      .split('\n')
      .filter((l) => l === '' || !/"_checks":\["VERSION-MISSING"\]/.test(l) || /"name":"Accept-Version"/.test(l));
    await writeFile(path, kept.join('\n'));
    const files = await Promise.all(
      MANIFESTED.map(async (n) => [n, await readFile(join(run.bundle, n), 'utf8')] as const),
    );
    await sealBundle(run.bundle, files, signer.key);
    const result = await verify(run.bundle);
    expect(result.fails).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^evidence VERSION-MISSING: passed, but none of its \d+ exchanges is one of the requests without Accept-Version the check judges$/,
        ),
      ]),
    );
    expect(result.stdout).toMatch(
      /note {2}evidence: \d+ exchanges recorded \(\d+ used by checks\); of the 2 passed checks, 1 cross-checked against what their exchanges answered, 0 shown to have exchanges \(no rule here judges their content\), 1 not supported/,
    );
  });
});
