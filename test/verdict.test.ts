/**
 * A verdict says what was proven, and nothing more, in every output: the console, report.html's
 * banner, the JUnit properties, report.json and the GitHub step summary. "CONFORMANT" alone, and
 * green, only for a run that carried out every check of the catalogue with nothing baselined; a
 * subset, skipped checks, baselined failures and an empty run each say so. Also: the policy for
 * skipped required checks (--require-complete), and a run stopped by its --deadline.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKS } from '../src/catalogue/index.js';
import type { RunReport } from '../src/model/run-report.js';
import { startReferenceServer, type ReferenceOptions, type ReferenceServer } from '../src/reference/index.js';
import { runMain, targetArgs, tempDir } from './support/harness.js';

interface Outputs {
  code: number;
  stdout: string;
  stderr: string;
  report: RunReport;
  junit: string;
  html: string;
  summary: string;
}

const servers: ReferenceServer[] = [];
afterAll(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function server(options: ReferenceOptions = {}): Promise<ReferenceServer> {
  const s = await startReferenceServer(options);
  servers.push(s);
  return s;
}

let expectations: string;
beforeAll(async () => {
  const s = await server();
  expectations = join(await tempDir(), 'expectations.json');
  await writeFile(expectations, JSON.stringify(s.expectations));
});

/** Runs the harness in-process with every reporter, GitHub's step summary included. */
async function run(args: string[], options: { secret?: string; reportsDir?: string } = {}): Promise<Outputs> {
  const reportsDir = options.reportsDir ?? (await tempDir());
  const summaryFile = join(await tempDir(), 'step-summary.md');
  await writeFile(summaryFile, '');
  const saved = { secret: process.env.CARRIER_CLIENT_SECRET, summary: process.env.GITHUB_STEP_SUMMARY };
  if (options.secret !== undefined) process.env.CARRIER_CLIENT_SECRET = options.secret;
  process.env.GITHUB_STEP_SUMMARY = summaryFile;
  try {
    const result = await runMain(['run', '--reports-dir', reportsDir, ...args]);
    const read = (name: string): Promise<string> => readFile(join(reportsDir, name), 'utf8');
    return {
      ...result,
      report: JSON.parse(await read('report.json')) as RunReport,
      junit: await read('junit.xml'),
      html: await read('report.html'),
      summary: await readFile(summaryFile, 'utf8'),
    };
  } finally {
    for (const [name, value] of [
      ['CARRIER_CLIENT_SECRET', saved.secret],
      ['GITHUB_STEP_SUMMARY', saved.summary],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/** The verdict as each output states it: console headline, banner class and word, JUnit summary, step summary heading. */
function verdictIn(o: Outputs): {
  console: string;
  bannerClass: string;
  banner: string;
  junit: string;
  json: string;
  summary: string;
} {
  const property = /<property name="run\.summary" value="([^"]*)"/.exec(o.junit)?.[1] ?? '';
  return {
    console: o.stdout.split('\n').find((l) => /^[A-Z]/.test(l) && !l.startsWith('Testing')) ?? '',
    bannerClass: /<section class="verdict (verdict-[a-z-]+)"/.exec(o.html)?.[1] ?? '',
    banner: (/<p class="verdict-word">(.*?)<\/p>/s.exec(o.html)?.[1] ?? '').replace(/<[^>]*>/g, '').trim(),
    junit: property.replace(/&quot;/g, '"').replace(/&amp;/g, '&'),
    json: o.report.summary ?? '',
    summary: o.summary.split('\n').find((l) => l.startsWith('## ')) ?? '',
  };
}

const TOTAL = CHECKS.length;

describe('the verdict of a run that carried out every check', () => {
  it('is CONFORMANT, and green, in every output', async () => {
    const s = await server({ tokenTtlSeconds: 2 });
    const o = await run([...targetArgs(s), '--expectations', expectations], { secret: s.clientSecret });
    expect(o.code).toBe(0);
    expect(o.report.scope).toMatchObject({
      coverage: 'full',
      catalogue: TOTAL,
      carriedOut: TOTAL,
      notSelected: [],
      skipped: [],
      baselined: [],
    });
    const v = verdictIn(o);
    expect(v.console).toBe(`CONFORMANT  ${s.url}`);
    expect(v.bannerClass).toBe('verdict-conformant');
    expect(v.banner).toBe('✓ CONFORMANT');
    expect(v.json).toBe('CONFORMANT: every check of the catalogue was carried out, and every required check passed');
    expect(v.junit).toBe(v.json);
    expect(v.summary).toBe('## Carrier-Platform API conformance: ✅ CONFORMANT');
  });
});

describe('a verdict on part of the catalogue says which part, and is never green', () => {
  it('a --suite subset: "conformant on 18 of 58 checks", the selection recorded', async () => {
    const s = await server();
    const o = await run([...targetArgs(s), '--suite', 'token'], { secret: s.clientSecret });
    expect(o.code).toBe(0);
    const tokenChecks = CHECKS.filter((c) => c.suite === 'token').length;
    const v = verdictIn(o);
    expect(v.console).toBe(`CONFORMANT ON ${tokenChecks} OF ${TOTAL} CHECKS  ${s.url}`);
    expect(o.stdout).toContain(
      `  ${TOTAL - tokenChecks} of ${TOTAL} checks not carried out: ${TOTAL - tokenChecks} not selected (--suite token)`,
    );
    expect(v.bannerClass).toBe('verdict-partial');
    expect(v.banner).toBe(`◐ CONFORMANT ON ${tokenChecks} OF ${TOTAL} CHECKS`);
    expect(v.json).toMatch(
      new RegExp(
        `^CONFORMANT ON ${tokenChecks} OF ${TOTAL} CHECKS: every required check that was carried out passed; ${TOTAL - tokenChecks} of ${TOTAL} checks not carried out`,
      ),
    );
    expect(v.junit).toBe(v.json);
    expect(v.summary).toBe(`## Carrier-Platform API conformance: 🟡 CONFORMANT ON ${tokenChecks} OF ${TOTAL} CHECKS`);
    expect(o.report.scope).toMatchObject({
      coverage: 'partial',
      carriedOut: tokenChecks,
      selection: { suites: ['token'], checks: [] },
    });
    expect(o.report.scope?.notSelected).toEqual(CHECKS.filter((c) => c.suite !== 'token').map((c) => c.id));
    expect(o.junit).toContain('<property name="run.coverage" value="partial"/>');
  });

  it('checks skipped for want of --paged-path and --expectations: each reason with its checks', async () => {
    const s = await server({ tokenTtlSeconds: 2 });
    const o = await run(['--base-url', s.url, '--client-id', s.clientId], { secret: s.clientSecret });
    expect(o.code).toBe(0);
    const skipped = o.report.scope?.skipped ?? [];
    const ids = (reason: RegExp): string[] => skipped.filter((g) => reason.test(g.reason)).flatMap((g) => g.checks);
    expect(ids(/--paged-path/).sort()).toEqual(
      CHECKS.filter((c) => ['tenant', 'pagination', 'nulls'].includes(c.suite))
        .map((c) => c.id)
        .sort(),
    );
    expect(ids(/--expectations/).sort()).toEqual(['RESOURCE-EXPECTED-VALUES', 'USER-EXPECTED-VALUES']);
    const done = o.report.scope?.carriedOut ?? 0;
    expect(done).toBe(TOTAL - skipped.flatMap((g) => g.checks).length);
    const v = verdictIn(o);
    expect(v.console).toBe(`CONFORMANT ON ${done} OF ${TOTAL} CHECKS  ${s.url}`);
    expect(o.stdout).toMatch(/skipped: no list endpoint configured: pass --openapi or --paged-path/);
    expect(v.bannerClass).toBe('verdict-partial');
    expect(o.html).toMatch(/not carried out: .*skipped: no list endpoint configured: pass --openapi or --paged-path/);
  });

  it('expiry checks skipped because expires_in exceeds --max-expiry-wait: the reason and the fix', async () => {
    const s = await server({ tokenTtlSeconds: 120 });
    const o = await run([...targetArgs(s), '--suite', 'expiry', '--suite', 'user'], { secret: s.clientSecret });
    expect(o.code).toBe(0);
    const reason =
      'expires_in is 120 s, longer than --max-expiry-wait 60 s; pass --max-expiry-wait 120 to wait it out, or prove it in a job of its own (run --suite expiry --max-expiry-wait 120)';
    // EXPIRY-VALID-BEFORE is judged on the part of the lifetime the run observed (issue 30): the
    // token probed again as the other checks ended. The checks after expiry are skipped.
    const afterExpiry = CHECKS.filter((c) => c.suite === 'expiry' && c.id !== 'EXPIRY-VALID-BEFORE').map((c) => c.id);
    expect(o.report.scope?.skipped).toContainEqual({ reason, checks: afterExpiry });
    expect(o.report.checks.find((c) => c.id === 'EXPIRY-VALID-BEFORE')?.status).toBe('passed');
    expect(verdictIn(o).console).toMatch(/^CONFORMANT ON 4 OF \d+ CHECKS/);
    expect(o.stdout).toContain(`${afterExpiry.length} skipped: ${reason}`);
  });

  it('MUST failures that are all baselined: "conformant except 1 baselined MUST failure", never green', async () => {
    const s = await server({ faults: ['wrong-secret-accepted'] });
    const baseline = join(await tempDir(), 'baseline.json');
    await writeFile(
      baseline,
      JSON.stringify({
        failures: [{ check: 'TOKEN-WRONG-SECRET', reason: 'PLAT-101: the staging IdP accepts any secret' }],
      }),
    );
    const o = await run([...targetArgs(s), '--suite', 'token', '--baseline', baseline], { secret: s.clientSecret });
    expect(o.code).toBe(0);
    const v = verdictIn(o);
    const tokenChecks = CHECKS.filter((c) => c.suite === 'token').length;
    expect(v.console).toMatch(
      new RegExp(`^CONFORMANT ON ${tokenChecks} OF \\d+ CHECKS, EXCEPT 1 BASELINED MUST FAILURE {2}`),
    );
    expect(o.stdout).toContain(
      `every required check that was carried out passed, except 1 known failure that ${baseline} accepts: TOKEN-WRONG-SECRET`,
    );
    expect(v.bannerClass).toBe('verdict-partial');
    expect(v.summary).toMatch(
      new RegExp(`🟡 CONFORMANT ON ${tokenChecks} OF \\d+ CHECKS, EXCEPT 1 BASELINED MUST FAILURE$`),
    );
    expect(o.report.scope?.baselined).toEqual([
      { check: 'TOKEN-WRONG-SECRET', level: 'MUST', reason: 'PLAT-101: the staging IdP accepts any secret' },
    ]);
  });

  it('--strict-baseline exiting 1: the banner is red, and says why', async () => {
    const s = await server();
    const baseline = join(await tempDir(), 'baseline.json');
    await writeFile(baseline, JSON.stringify({ failures: [{ check: 'TOKEN-PRAGMA', reason: 'PLAT-412' }] }));
    const o = await run([...targetArgs(s), '--suite', 'token', '--baseline', baseline, '--strict-baseline'], {
      secret: s.clientSecret,
    });
    expect(o.code).toBe(1);
    const v = verdictIn(o);
    expect(v.console).toBe(`BASELINE OUT OF DATE  ${s.url}`);
    expect(v.bannerClass).toBe('verdict-non-conformant');
    expect(v.json).toMatch(
      /--strict-baseline: 1 known failure of .*baseline\.json now passes \(TOKEN-PRAGMA\); remove it from the file/,
    );
    expect(v.summary).toMatch(/❌ BASELINE OUT OF DATE$/);
  });
});

describe('a run that carried out no check has no verdict', () => {
  it('--rerun-failed of a report where everything passed: NOTHING CHECKED, exit 3', async () => {
    const s = await server();
    const first = await run([...targetArgs(s), '--check', 'USER-OK'], { secret: s.clientSecret });
    const previous = join(await tempDir(), 'previous.json');
    await writeFile(previous, JSON.stringify(first.report));
    const o = await run([...targetArgs(s), '--rerun-failed', previous], { secret: s.clientSecret });
    expect(o.code).toBe(3);
    const v = verdictIn(o);
    expect(v.console).toMatch(/^NOTHING CHECKED {2}/);
    expect(v.bannerClass).toBe('verdict-incomplete');
    expect(v.json).toBe(`NOTHING CHECKED: nothing to rerun: every selected check passed in ${previous}`);
    expect(o.report).toMatchObject({
      verdict: 'nothing-checked',
      exitCode: 3,
      scope: { coverage: 'none', carriedOut: 0 },
    });
  });

  it('every selected check skipped (no --paged-path): NOTHING CHECKED, exit 3, the reason given', async () => {
    const s = await server();
    const o = await run(['--base-url', s.url, '--client-id', s.clientId, '--suite', 'pagination'], {
      secret: s.clientSecret,
    });
    expect(o.code).toBe(3);
    expect(verdictIn(o).console).toMatch(/^NOTHING CHECKED {2}/);
    expect(o.report.incompleteReason).toMatch(
      /^no check was carried out: of the \d+ selected, \d+ skipped \(no list endpoint configured: pass --openapi or --paged-path/,
    );
  });
});

describe('skipped required checks and --require-complete', () => {
  it('by default a skip does not fail the run; with --require-complete a skipped MUST check is an error and exit 1', async () => {
    const s = await server({ tokenTtlSeconds: 2 });
    // No --paged-path nor --openapi: the tenant, pagination, nulls and resources checks skip.
    const args = ['--base-url', s.url, '--client-id', s.clientId, '--expectations', expectations];
    const lenient = await run(args, { secret: s.clientSecret });
    expect(lenient.code).toBe(0);
    const strict = await run([...args, '--require-complete'], { secret: s.clientSecret });
    expect(strict.code).toBe(1);
    const skippedMust = lenient.report.checks
      .filter((c) => c.status === 'skipped' && c.level === 'MUST')
      .map((c) => c.id);
    expect(skippedMust.length).toBeGreaterThan(0);
    for (const id of skippedMust) {
      const check = strict.report.checks.find((c) => c.id === id);
      expect(check?.status, id).toBe('error');
      // The error gives the reason the check skipped in the lenient run.
      const reason = lenient.report.checks.find((c) => c.id === id)?.message ?? '';
      expect(reason, id).not.toBe('');
      expect(check?.message, id).toBe(`not carried out, and --require-complete requires it: ${reason}`);
    }
    expect(strict.report.scope).toMatchObject({ requireComplete: true, coverage: 'partial' });
    expect(verdictIn(strict).console).toBe(`NOT PROVEN  ${s.url}`);
    expect(strict.stdout).toMatch(
      new RegExp(`  ${skippedMust.length} required checks could not be carried out: nothing was proven either way`),
    );
    expect(strict.junit).toMatch(/<error message="not carried out, and --require-complete requires it: /);
  });

  it('refuses a subset: --require-complete with --suite, --check or --rerun-failed is exit 2', async () => {
    for (const subset of [['--suite', 'token'], ['--check', 'USER-OK'], ['--rerun-failed']]) {
      const result = await runMain([
        'run',
        '--embedded',
        '--require-complete',
        ...subset,
        '--reports-dir',
        await tempDir(),
      ]);
      expect(result.code, subset.join(' ')).toBe(2);
      expect(result.stderr).toMatch(
        new RegExp(
          `^carrier-conformance: --require-complete asks for every check of the catalogue, ${subset[0]} for a part of it: drop one\\n$`,
        ),
      );
    }
  });
});

describe('a run stopped by its --deadline', () => {
  it('reports the checks it did not finish as errors, not as skipped by "the user", and JUnit counts them', async () => {
    const s = await server({ tokenTtlSeconds: 30 });
    const o = await run([...targetArgs(s), '--expectations', expectations, '--deadline', '2'], {
      secret: s.clientSecret,
    });
    expect(o.code).toBe(3);
    expect(o.stdout + o.stderr).not.toMatch(/aborted by the user/i);
    // The expiry checks wait 30 s for their token (the default --max-expiry-wait is 60 s; one given
    // above the deadline is refused up front): the deadline stops them. Nothing is "skipped".
    const expiry = o.report.checks.filter((c) => c.suite === 'expiry');
    expect(expiry.map((c) => [c.id, c.status])).toEqual(expiry.map((c) => [c.id, 'error']));
    expect(expiry.find((c) => c.id === 'EXPIRY-RENEW')?.message).toBe(
      'not run: the run exceeded its --deadline of 2 s',
    );
    expect(o.report.checks.filter((c) => c.status === 'skipped')).toEqual([]);
    const errors = [...o.junit.matchAll(/<testsuite [^>]*errors="(\d+)"/g)].reduce((n, m) => n + Number(m[1]), 0);
    expect(errors).toBe(o.report.counts.error);
    expect(errors).toBeGreaterThanOrEqual(expiry.length);
    expect(verdictIn(o).console).toMatch(/^INCOMPLETE {2}/);
    expect(o.junit).toContain('<property name="run.incompleteReason" value="the run exceeded its --deadline of 2 s"/>');
  });
});
