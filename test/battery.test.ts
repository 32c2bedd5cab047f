/**
 * The battery end to end against broken servers: for each suite, a reference server with one
 * fault, the harness run against it, and the verdict. (test/meta/ holds every fault and variant
 * to account; this file shows, suite by suite, what a failing run looks like to its user.)
 */
import { describe, expect, it } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunReport } from '../src/model/run-report.js';
import { startReferenceServer } from '../src/reference/index.js';
import { junitRuleProblems } from './fixtures/report/junit-rules.js';
import { loadXsd, validateAgainst, XSD_FILES } from './fixtures/report/xml.js';
import { runAgainst, runMain, statusOf, tempDir, WITHOUT_EXPIRY } from './support/harness.js';

describe.each([
  {
    suite: 'token',
    fault: 'wrong-secret-accepted',
    check: 'TOKEN-WRONG-SECRET',
    message: /token request with a wrong client secret: expected 401, got 200/,
  },
  {
    suite: 'auth',
    fault: 'missing-auth-accepted',
    check: 'AUTH-MISSING',
    message: /GET \/users\/me with no Authorization header: expected a refusal \(a 4xx status\), got 200/,
  },
  {
    suite: 'versioning',
    fault: 'version-missing-accepted',
    check: 'VERSION-MISSING',
    message: /POST \/uaa\/oauth2\/token with no Accept-Version header: expected 400, got 200/,
  },
  {
    suite: 'user',
    fault: 'user-email-omitted',
    check: 'USER-FIELDS-PRESENT',
    message: /User: the field "email" is omitted; a field without data must be sent as null/,
  },
  {
    suite: 'legacy',
    fault: 'legacy-redirect',
    check: 'LEGACY-NO-REDIRECT',
    message:
      /\/uaa\/oauth\/token: expected the gateway to serve it directly, got a 308 redirect to \/uaa\/oauth2\/token/,
  },
  {
    suite: 'tenant',
    fault: 'cross-tenant-data',
    check: 'TENANT-FOREIGN',
    message: /a tenant this client may not access\): expected 403 or 404, got 200/,
  },
  {
    suite: 'pagination',
    fault: 'pages-lose-items',
    check: 'PAGE-WALK',
    message: /walking all 3 pages of shipments yields 21 items, but Total-Elements is 23/,
  },
  {
    suite: 'nulls',
    fault: 'item-null-fields-omitted',
    check: 'NULLS-SAME-FIELDS',
    message:
      /shipments page \d: item id \S+( \(and \d+ more like it\))? omits "(weightKg|deliveredAt)"(, "\w+")*, which other items carry \(send null instead\)/,
  },
])('$suite: a server with the fault $fault', ({ suite, fault, check, message }) => {
  it(`fails ${check}, exits 1 and says why`, async () => {
    const result = await runAgainst({ faults: [fault] }, ['--suite', suite]);

    expect(result.code).toBe(1);
    expect(statusOf(result.report, check)).toBe('failed');
    const failed = result.report.checks.find((c) => c.id === check);
    expect(failed?.findings.map((f) => f.message)).toContainEqual(expect.stringMatching(message));
    // The failing exchange is in the report, for the person who has to reproduce it.
    expect(failed?.exchanges.length).toBeGreaterThan(0);
    expect(result.stdout).toContain(check);
    expect(result.report.verdict).toBe('non-conformant');
  });
});

describe('expiry: a server whose tokens never expire', () => {
  it('fails EXPIRY-REFUSED-AFTER once expires_in, a second of whole-second rounding and the clock margin have passed', async () => {
    const result = await runAgainst({ faults: ['tokens-never-expire'], tokenTtlSeconds: 1 }, ['--suite', 'expiry']);

    expect(result.code).toBe(1);
    expect(statusOf(result.report, 'EXPIRY-REFUSED-AFTER')).toBe('failed');
    expect(result.report.checks.find((c) => c.id === 'EXPIRY-REFUSED-AFTER')?.message).toMatch(
      /the token was still accepted 2\.\d s after its expires_in \(1 s\) ran out, beyond a second of whole-second rounding and the 1 s clock margin \(--expiry-margin\)/,
    );
    expect(statusOf(result.report, 'EXPIRY-VALID-BEFORE')).toBe('passed');
    expect(statusOf(result.report, 'EXPIRY-RENEW')).toBe('passed');
  });
});

describe('SHOULD checks', () => {
  it('report a warning and exit 0, and fail the run with --strict', async () => {
    const lenient = await runAgainst({ faults: ['no-pragma'] }, [
      '--check',
      'TOKEN-PRAGMA',
      '--check',
      'TOKEN-NO-STORE',
    ]);
    expect(lenient.code).toBe(0);
    expect(statusOf(lenient.report, 'TOKEN-PRAGMA')).toBe('warning');
    expect(lenient.stdout).toMatch(/TOKEN-PRAGMA/);

    const strict = await runAgainst({ faults: ['no-pragma'] }, ['--check', 'TOKEN-PRAGMA', '--strict']);
    expect(strict.code).toBe(1);
    expect(statusOf(strict.report, 'TOKEN-PRAGMA')).toBe('failed');
  });
});

describe('a run without --paged-path', () => {
  it('skips the tenant, pagination and nulls checks and says how to run them', async () => {
    const server = await startReferenceServer();
    process.env.CARRIER_CLIENT_SECRET = server.clientSecret;
    try {
      const result = await runMain([
        'run',
        '--base-url',
        server.url,
        '--client-id',
        server.clientId,
        '--reports-dir',
        await tempDir(),
        ...WITHOUT_EXPIRY,
      ]);
      const report = JSON.parse(
        await readFile(join(result.stdout.match(/Reports: (\S+)\/junit.xml/)?.[1] ?? '', 'report.json'), 'utf8'),
      ) as RunReport;

      expect(result.code).toBe(0);
      const listChecks = report.checks.filter((c) => ['tenant', 'pagination', 'nulls'].includes(c.suite));
      expect(listChecks.length).toBeGreaterThan(0);
      for (const c of listChecks) {
        expect(c.status).toBe('skipped');
        expect(c.message).toMatch(/pass --openapi(, --paged-path or --endpoint| or --paged-path)/);
      }
      expect(report.checks.filter((c) => c.status === 'failed' || c.status === 'error')).toEqual([]);
    } finally {
      delete process.env.CARRIER_CLIENT_SECRET;
      await server.close();
    }
  });
});

describe('the JUnit of a run with failures', () => {
  it('validates against both Jenkins XSDs, follows every consumer rule and carries the failing exchange', async () => {
    // Failures, a warning, errors (a refused tenant leaves nothing to page through), a skip, an expected failure.
    const baseline = join(await tempDir(), 'baseline.json');
    await writeFile(baseline, JSON.stringify({ failures: [{ check: 'USER-FIELDS-PRESENT', reason: 'PLAT-7' }] }));
    const result = await runAgainst(
      { faults: ['wrong-secret-accepted', 'user-email-omitted', 'no-pragma', 'tenant-access-denied'] },
      [
        '--suite',
        'token',
        '--suite',
        'user',
        '--suite',
        'pagination',
        '--suite',
        'expiry',
        '--max-expiry-wait',
        '1',
        '--baseline',
        baseline,
      ],
    );
    const junit = await readFile(join(result.reportsDir, 'junit.xml'), 'utf8');
    expect(new Set(result.report.checks.map((c) => c.status))).toEqual(
      new Set(['passed', 'failed', 'warning', 'error', 'skipped', 'expected']),
    );

    for (const xsd of XSD_FILES)
      expect(await validateAgainst(junit, await loadXsd(xsd))).toEqual({ valid: true, errors: [] });
    expect(await junitRuleProblems(junit)).toEqual([]);
    expect(junit).toMatch(
      /<failure message="token request with a wrong client secret: expected 401, got 200[^"]*" type="NonConformance">/,
    );
    expect(junit).toContain('> POST http://127.0.0.1:');
    expect(junit).toContain('WARNING (SHOULD)');
  });
});

describe('--max-pages on a long list', () => {
  it('judges a sample of the pages, says so, and still catches a broken page', async () => {
    const options = { shipmentCount: 5000, pageSizeDefault: 10, pageSizeMax: 10 };
    const clean = await runAgainst(options, ['--suite', 'pagination', '--suite', 'nulls', '--max-pages', '6']);
    expect(clean.code).toBe(0);
    expect(clean.report.checks.find((c) => c.id === 'PAGE-WALK')?.notes).toContainEqual(
      'GET /tenants/{tenantId}/shipments: judged on a sample of 6 of 500 pages (--max-pages): the first, the last and some between',
    );

    const broken = await runAgainst({ ...options, faults: ['pages-lose-items'] }, [
      '--suite',
      'pagination',
      '--max-pages',
      '6',
    ]);
    expect(broken.code).toBe(1);
    expect(statusOf(broken.report, 'PAGE-WALK')).toBe('failed');
  });
});
