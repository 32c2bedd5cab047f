/**
 * `diff OLD NEW` and `run --compare-with OLD`: a release gate that fails only on what got worse.
 * The classification is tested on hand-made reports (each situation stated exactly), the commands
 * end to end on runs of the reference server with and without faults.
 */
import { readFile, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../src/catalogue/index.js';
import { diffReports, regressions, type ChangeKind, type ReportDiff } from '../src/compare/diff.js';
import { renderDiffMarkdown } from '../src/compare/render.js';
import type { RunReport } from '../src/model/run-report.js';
import { readRunReport, REPORT_MAX_BYTES } from '../src/report/read.js';
import { runAgainst, runBin, runMain, tempDir } from './support/harness.js';
import { fullReport, reportOf, writeReport } from './support/reports.js';

function kinds(diff: ReportDiff): Record<string, ChangeKind[]> {
  const out: Record<string, ChangeKind[]> = {};
  for (const c of diff.changes) out[c.id] = [...(out[c.id] ?? []), c.kind];
  return out;
}

describe('diffReports: what counts as a regression', () => {
  it('passed or warning → failed or error is a regression; the reverse is a fix', () => {
    const old = reportOf({
      'TOKEN-ISSUE': 'passed',
      'TOKEN-PRAGMA': 'warning',
      'TOKEN-NO-STORE': 'passed',
      'USER-OK': 'failed',
      'AUTH-MISSING': 'error',
      'LEGACY-USERINFO': 'expected',
    });
    const neu = reportOf({
      'TOKEN-ISSUE': 'failed',
      'TOKEN-PRAGMA': 'error',
      'TOKEN-NO-STORE': 'passed',
      'USER-OK': 'passed',
      'AUTH-MISSING': 'passed',
      'LEGACY-USERINFO': 'passed',
    });
    const diff = diffReports(old, neu);
    expect(kinds(diff)).toEqual({
      'TOKEN-ISSUE': ['regression'],
      'TOKEN-PRAGMA': ['regression'],
      'USER-OK': ['fix'],
      'AUTH-MISSING': ['fix'],
      'LEGACY-USERINFO': ['fix'],
    });
    expect(diff.unchanged).toBe(1);
  });

  it('a MUST check that becomes skipped or is no longer run regresses; a SHOULD one does not', () => {
    const old = reportOf({
      'PAGE-WALK': 'passed',
      'USER-OK': 'failed',
      'TOKEN-ISSUE': 'passed',
      'TOKEN-PRAGMA': 'passed',
      'TOKEN-NO-REFRESH': 'passed',
      'EXPIRY-RENEW': 'skipped',
    });
    const neu = reportOf({
      'PAGE-WALK': 'skipped',
      'USER-OK': 'skipped',
      'TOKEN-PRAGMA': 'skipped',
      'EXPIRY-RENEW': 'skipped',
    });
    const diff = diffReports(old, neu);
    expect(kinds(diff)).toEqual({
      'PAGE-WALK': ['regression'],
      'USER-OK': ['regression'],
      'TOKEN-ISSUE': ['regression'],
      'TOKEN-PRAGMA': ['status'],
      'TOKEN-NO-REFRESH': ['not-run'],
    });
    expect(diff.changes.find((c) => c.id === 'TOKEN-ISSUE')?.note).toBe('not run in NEW');
  });

  it('a --rerun-failed run leaves out what passed on purpose: not a regression; what failed and is not rerun still is', () => {
    const old = reportOf({
      'TOKEN-ISSUE': 'passed',
      'TOKEN-PRAGMA': 'warning',
      'USER-OK': 'failed',
      'PAGE-WALK': 'failed',
    });
    const neu: RunReport = { ...reportOf({ 'USER-OK': 'passed' }), rerunOf: 'reports/report.json' };
    const diff = diffReports(old, neu);
    expect(kinds(diff)).toEqual({
      'USER-OK': ['fix'],
      'TOKEN-ISSUE': ['not-run'],
      'TOKEN-PRAGMA': ['not-run'],
      'PAGE-WALK': ['regression'],
    });
    expect(diff.changes.find((c) => c.id === 'TOKEN-ISSUE')?.note).toBe(
      'not rerun: NEW repeats only the checks that did not pass in reports/report.json',
    );
  });

  it('a failure without an earlier verdict is listed, not counted as a regression', () => {
    const diff = diffReports(
      reportOf({ 'PAGE-WALK': 'skipped' }),
      reportOf({ 'PAGE-WALK': 'failed', 'USER-OK': 'error' }),
    );
    expect(kinds(diff)).toEqual({ 'PAGE-WALK': ['unverified'], 'USER-OK': ['unverified'] });
    expect(regressions(diff)).toEqual([]);
  });

  it('other status changes and changed reasons are listed; a reason that differs only in the target URL is not', () => {
    const old = reportOf(
      {
        'TOKEN-PRAGMA': 'passed',
        'USER-OK': ['failed', 'GET https://old.example.test/users/me: status 500'],
        'AUTH-MISSING': ['failed', 'status 200, expected 401'],
        'TOKEN-ISSUE': 'failed',
      },
      {
        target: {
          baseUrl: 'https://old.example.test',
          authUrl: 'https://old.example.test',
          embedded: false,
          pagedPaths: [],
          credentialsFormEncoded: false,
        },
      },
    );
    const neu = reportOf({
      'TOKEN-PRAGMA': 'warning',
      'USER-OK': ['failed', 'GET https://api.example.test/users/me: status 500'],
      'AUTH-MISSING': ['failed', 'status 403, expected 401'],
      'TOKEN-ISSUE': 'error',
    });
    const diff = diffReports(old, neu);
    expect(kinds(diff)).toEqual({ 'TOKEN-PRAGMA': ['status'], 'AUTH-MISSING': ['message'], 'TOKEN-ISSUE': ['status'] });
    expect(regressions(diff)).toEqual([]);
    expect(diff.notes).toContain('the runs tested different targets: old.example.test (OLD) and example (NEW)');
  });

  // Issue 32: a reason that changed only by measured time is jitter, not a change.
  it('a reason that differs only in measured times is unchanged; one that differs otherwise is not', () => {
    const old = reportOf({
      'EXPIRY-REFUSED-AFTER': ['failed', 'GET /users/me 0.0 s past expiry: expected 401, got 200'],
      'EXPIRY-VALID-BEFORE': ['warning', 'accepted 9.2 s after issue, 0.2 % of expires_in; answered in 212 ms'],
      'TOKEN-EXPIRES-IN': ['failed', 'expires_in 3600 s, expected at most 600 s'],
    });
    const neu = reportOf({
      'EXPIRY-REFUSED-AFTER': ['failed', 'GET /users/me 0.1 s past expiry: expected 401, got 200'],
      'EXPIRY-VALID-BEFORE': ['warning', 'accepted 11.0 s after issue, 0.3 % of expires_in; answered in 1043 ms'],
      'TOKEN-EXPIRES-IN': ['failed', 'expires_in 7200 s, expected at most 600 s'],
    });
    const diff = diffReports(old, neu);
    expect(kinds(diff)).toEqual({ 'TOKEN-EXPIRES-IN': ['message'] });
    expect(diff.unchanged).toBe(2);
  });

  it('says "endpoint no longer tested" when the endpoint set shrank', () => {
    const endpoint = (e: string, status: 'passed' | 'failed') => ({ endpoint: e, status });
    const old = reportOf({ 'RESOURCE-SCHEMA': 'failed', 'PAGE-WALK': 'passed' });
    const neu = reportOf({ 'RESOURCE-SCHEMA': 'passed', 'PAGE-WALK': 'passed' });
    const [invoices, shipments] = ['GET /tenants/{tenantId}/invoices', 'GET /tenants/{tenantId}/shipments'];
    old.checks = old.checks.map((c) => ({
      ...c,
      endpoints:
        c.id === 'RESOURCE-SCHEMA'
          ? [endpoint(shipments, 'passed'), endpoint(invoices, 'failed')]
          : [endpoint(shipments, 'passed'), endpoint(invoices, 'passed')],
    }));
    neu.checks = neu.checks.map((c) => ({ ...c, endpoints: [endpoint(shipments, 'passed')] }));
    old.target = {
      ...old.target,
      endpoints: [
        { path: 'shipments', kind: 'list', source: 'openapi' },
        { path: 'invoices', kind: 'list', source: 'openapi' },
      ],
    };
    neu.target = { ...neu.target, endpoints: [{ path: 'shipments', kind: 'list', source: 'openapi' }] };
    const diff = diffReports(old, neu);
    expect(diff.changes.map((c) => [c.id, c.kind, c.note])).toEqual([
      ['RESOURCE-SCHEMA', 'fix', `endpoint no longer tested: ${invoices}`],
      ['PAGE-WALK', 'message', `endpoint no longer tested: ${invoices}`],
    ]);
    expect(diff.notes).toContain('endpoint no longer tested: invoices (in OLD, not in NEW)');
  });

  it('a failure the baseline accepts is a regression when the check passed before (issue 42 item 7: it was "NO REGRESSION"); a known failure that is no longer baselined is not', () => {
    const diff = diffReports(
      reportOf({ 'TOKEN-PRAGMA': 'passed', 'USER-OK': 'expected', 'TOKEN-NO-STORE': 'warning' }),
      reportOf({ 'TOKEN-PRAGMA': 'expected', 'USER-OK': 'failed', 'TOKEN-NO-STORE': 'expected' }),
    );
    expect(kinds(diff)).toEqual({
      'TOKEN-PRAGMA': ['regression'],
      'USER-OK': ['status'],
      'TOKEN-NO-STORE': ['status'],
    });
    expect(regressions(diff).map((c) => c.note)).toEqual([
      expect.stringMatching(/^a failure now, which the baseline accepts \(.*\); it passed before$/),
    ]);
  });

  it('checks added and removed by a catalogue change are listed apart from regressions', () => {
    // Two full runs of different catalogues: OLD had a check NEW's catalogue dropped, NEW one OLD lacked.
    const old = fullReport({}, {});
    old.checks = old.checks
      .filter((c) => c.id !== 'LINK-PREV')
      .concat([{ ...old.checks[0]!, id: 'TOKEN-RETIRED', title: 'A check a later catalogue dropped' }]);
    old.catalogue = { digest: 'sha256:older', checks: old.checks.length, must: 50 };
    old.tool = { name: 'carrier-conformance', version: '0.0.9' };
    const neu = fullReport({ 'LINK-PREV': 'failed' });
    const diff = diffReports(old, neu);
    expect(kinds(diff)).toEqual({ 'LINK-PREV': ['added'], 'TOKEN-RETIRED': ['removed'] });
    expect(regressions(diff)).toEqual([]);
    expect(diff.notes.join('\n')).toMatch(
      /the check catalogue changed between the runs \(carrier-conformance 0\.0\.9 → carrier-conformance 0\.1\.0\)/,
    );
  });

  it('a level change is listed, and judged at the new level', () => {
    const old = reportOf({ 'TOKEN-PRAGMA': 'warning' });
    const neu = reportOf({ 'TOKEN-PRAGMA': 'failed' });
    neu.checks[0]!.level = 'MUST';
    expect(kinds(diffReports(old, neu))).toEqual({ 'TOKEN-PRAGMA': ['level', 'regression'] });
  });

  it('with an unknown catalogue, a vanished MUST check counts as a regression (fail safe), and the note says why', () => {
    const old = reportOf({ 'TOKEN-ISSUE': 'passed' }, { catalogue: undefined });
    const neu = reportOf({}, { catalogue: { digest: 'sha256:elsewhere', checks: 70, must: 60 } });
    const diff = diffReports(old, neu);
    expect(kinds(diff)).toEqual({ 'TOKEN-ISSUE': ['regression'] });
    expect(diff.changes[0]?.note).toMatch(/removed from NEW's catalogue, or not run/);
    expect(diff.notes.join('\n')).toMatch(/OLD records no catalogue digest/);
  });

  it('renders hostile text in Markdown as text', () => {
    const evil = '<img src=x onerror=alert(1)> [x](http://evil.test) | `x`';
    const md = renderDiffMarkdown(
      diffReports(
        reportOf({ 'USER-OK': 'passed' }),
        reportOf({ 'USER-OK': ['failed', evil] }, { target: { ...reportOf({}).target, name: evil } }),
      ),
    );
    expect(md).not.toMatch(/<img|\]\(http/);
    expect(md).toContain('&lt;img src=x onerror=alert\\(1\\)&gt;');
  });
});

/** One clean run and one with faults of the reference server, written once for the file. */
async function runs(): Promise<{ dir: string; clean: string; faulty: string; faultyReport: RunReport }> {
  const dir = await tempDir('carrier-diff-');
  const args = ['--suite', 'token', '--suite', 'legacy', '--suite', 'user'];
  const clean = await runAgainst({}, [...args, '--target-name', 'acme']);
  const faulty = await runAgainst({ faults: ['wrong-secret-accepted', 'user-email-omitted'] }, [
    ...args,
    '--target-name',
    'acme',
  ]);
  expect([clean.code, faulty.code]).toEqual([0, 1]);
  return {
    dir,
    clean: await writeReport(dir, 'clean.json', clean.report),
    faulty: await writeReport(dir, 'faulty.json', faulty.report),
    faultyReport: faulty.report,
  };
}

describe('carrier-conformance diff, against runs of the reference server', () => {
  it('exits 1 and names every regression; the other way round, exit 0 with the fixes; the same run, no change', async () => {
    const { clean, faulty, faultyReport } = await runs();
    const worse = await runMain(['diff', clean, faulty]);
    expect(worse.code).toBe(1);
    expect(worse.stderr).toBe('');
    const failed = faultyReport.checks.filter((c) => c.status === 'failed' || c.status === 'error').map((c) => c.id);
    expect(failed).toEqual(expect.arrayContaining(['TOKEN-WRONG-SECRET', 'USER-FIELDS-PRESENT']));
    expect(worse.stdout).toMatch(new RegExp(`REGRESSED: ${failed.length} checks got worse`));
    for (const id of failed) expect(worse.stdout).toMatch(new RegExp(`\\n  ${id} +MUST +passed → (failed|error): `));
    expect(worse.stdout).toMatch(
      /TOKEN-WRONG-SECRET +MUST +passed → failed: token request with a wrong client secret: expected 401, got 200/,
    );

    const better = await runMain(['diff', faulty, clean]);
    expect(better.code).toBe(0);
    expect(better.stdout).toMatch(/NO REGRESSION/);
    expect(better.stdout).toMatch(new RegExp(`FIXED \\(${failed.length}\\)`));
    expect(better.stdout).toMatch(
      /TOKEN-WRONG-SECRET +MUST +failed → passed: was: token request with a wrong client secret/,
    );

    const same = await runMain(['diff', clean, clean]);
    expect(same.code).toBe(0);
    expect(same.stdout).toMatch(/0 regressions, 0 fixes, 0 other changes, \d+ unchanged/);
  });

  it('appends the Markdown to GITHUB_STEP_SUMMARY and writes --markdown FILE', async () => {
    const { dir, clean, faulty } = await runs();
    const summary = join(dir, 'summary.md');
    await writeFile(summary, '# earlier step\n');
    process.env.GITHUB_STEP_SUMMARY = summary;
    try {
      const result = await runMain(['diff', clean, faulty, '--markdown', join(dir, 'diff.md')]);
      expect(result.code).toBe(1);
    } finally {
      delete process.env.GITHUB_STEP_SUMMARY;
    }
    const text = await readFile(summary, 'utf8');
    expect(text.startsWith('# earlier step\n')).toBe(true);
    expect(text).toMatch(/## Carrier-Platform API conformance diff: ❌ \d+ regressions/);
    expect(text).toMatch(/- \*\*TOKEN-WRONG-SECRET\*\* \(MUST\) passed → failed: /);
    expect(await readFile(join(dir, 'diff.md'), 'utf8')).toBe(text.slice('# earlier step\n\n'.length));
  });

  it('refuses unusable input with one line and exit 2', async () => {
    const dir = await tempDir('carrier-diff-bad-');
    const good = await writeReport(dir, 'good.json', fullReport());
    const cases: [string, RegExp][] = [
      [join(dir, 'missing.json'), /OLD report .*missing\.json: cannot read it \(no such file\)/],
      [await writeReport(dir, 'array.json', [1, 2]), /not a carrier-conformance report\.json but a JSON array/],
      // The files beside a report, named for what they are (not a validator's "expected object").
      [
        await writeReport(dir, 'report.har', { log: { version: '1.2', entries: [] } }),
        /report\.har: not a carrier-conformance report\.json but a HAR file \(report\.har: the exchanges of a run\): give a run's report\.json$/,
      ],
      [await writeReport(dir, 'results.sarif', { version: '2.1.0', runs: [] }), /but a SARIF log: /],
      [
        await writeReport(dir, 'lint.json', { tool: 'carrier-conformance', documents: [], findings: [] }),
        /but the JSON output of `lint`: /,
      ],
      [
        await writeReport(dir, 'other.json', { hello: 'world' }),
        /but a JSON object without the tool and checks a report has: /,
      ],
      [
        await writeReport(dir, 'partial.json', { tool: { name: 'x', version: '1' } }),
        /not a carrier-conformance report\.json \(target: /,
      ],
      [
        await writeReport(dir, 'dup.json', {
          ...fullReport(),
          checks: [...fullReport().checks, fullReport().checks[0]],
        }),
        /check "TOKEN-ISSUE" appears twice/,
      ],
      [dir, /report\.json: cannot read it \(no such file\)/],
    ];
    const broken = join(dir, 'broken.json');
    await writeFile(broken, '{"tool": \u001b[31m');
    cases.push([broken, /not valid JSON \(/]);
    const huge = join(dir, 'huge.json');
    await writeFile(huge, '');
    await truncate(huge, REPORT_MAX_BYTES + 1); // sparse: refused by its size, never read
    cases.push([huge, new RegExp(`${REPORT_MAX_BYTES + 1} bytes, more than the ${REPORT_MAX_BYTES} a report can be`)]);
    for (const [path, message] of cases) {
      const result = await runMain(['diff', path, good]);
      expect(result.code, path).toBe(2);
      const lines = result.stderr.trim().split('\n');
      expect(lines, path).toHaveLength(1);
      expect(lines[0], path).toMatch(message);
      expect(result.stderr).not.toContain('\u001b');
      expect(result.stdout).toBe('');
    }
    const noArgs = await runMain(['diff', good]);
    expect(noArgs.code).toBe(2);
    expect(noArgs.stderr).toMatch(/Not enough non-option arguments/);
  });
});

describe('reports with the causes the preflight found (issue 30), and reports from before them', () => {
  it('are read either way round: the causes kept, their absence accepted', async () => {
    const dir = await tempDir('carrier-diff-causes-');
    const pointer = 'not run: GET /users/me answered 500 in the preflight (see the cause)';
    const cause = {
      source: 'preflight' as const,
      title: 'GET /users/me answered 500',
      detail: 'no tenant was given (--tenant-id) and GET /users/me (500) lists no tenant with a UUID id',
      endpoint: 'GET /users/me',
      status: 500,
      checks: ['TENANT-ACCESS', 'PAGE-WALK'],
    };
    // A report of an earlier version has no `causes`.
    const old = await writeReport(dir, 'old.json', fullReport());
    const neu = await writeReport(
      dir,
      'new.json',
      fullReport(
        {
          'USER-OK': ['failed', 'GET /users/me with a valid token: expected 200, got 500'],
          'TENANT-ACCESS': ['error', pointer],
          'PAGE-WALK': ['error', pointer],
        },
        { causes: [cause] },
      ),
    );
    expect(readRunReport(neu).report.causes).toEqual([cause]);
    expect(readRunReport(old).report.causes).toBeUndefined();

    const worse = await runMain(['diff', old, neu]);
    expect(worse.stderr).toBe('');
    expect(worse.code).toBe(1);
    expect(worse.stdout).toMatch(
      /TENANT-ACCESS +MUST +passed → error: not run: GET \/users\/me answered 500 in the preflight \(see the cause\)/,
    );
    const better = await runMain(['diff', neu, old]);
    expect(better.stderr).toBe('');
    expect(better.code).toBe(0);
    expect(better.stdout).toMatch(/FIXED \(3\)/);
  });
});

describe('run --compare-with OLD: the gate fails only on what got worse', () => {
  it('passes a run whose failures were already there, fails one with a new failure, and records the comparison', async () => {
    const { faulty, clean } = await runs();
    const args = ['--suite', 'token', '--suite', 'legacy', '--suite', 'user'];

    // The same faults as the last release: non-conformant, but nothing got worse.
    const same = await runAgainst({ faults: ['wrong-secret-accepted', 'user-email-omitted'] }, [
      ...args,
      '--compare-with',
      faulty,
    ]);
    expect(same.report.verdict).toBe('non-conformant');
    expect(same.code).toBe(0);
    expect(same.report.exitCode).toBe(0);
    expect(same.report.comparison).toEqual({ with: faulty, regressions: [], fixes: [] });
    expect(same.stdout).toMatch(/NO REGRESSION/);

    // A new fault since the last release: exit 1, naming it.
    const worse = await runAgainst(
      { faults: ['wrong-secret-accepted', 'user-email-omitted', 'no-pragma', 'token-cacheable'] },
      [...args, '--compare-with', faulty],
    );
    expect(worse.code).toBe(1);
    expect(worse.report.comparison?.regressions).toEqual(['TOKEN-NO-STORE']);
    expect(worse.stdout).toMatch(/REGRESSED: 1 check got worse/);
    expect(worse.stdout).toMatch(/TOKEN-NO-STORE +MUST +passed → failed/);
    expect(worse.stdout).toMatch(/TOKEN-PRAGMA +SHOULD +passed → warning/);

    // Fixed since: exit 0 and the fixes are listed.
    const fixed = await runAgainst({}, [...args, '--compare-with', faulty]);
    expect(fixed.code).toBe(0);
    expect(fixed.report.comparison?.fixes).toEqual(
      expect.arrayContaining(['TOKEN-WRONG-SECRET', 'USER-FIELDS-PRESENT']),
    );

    // A narrower run than the last release: MUST checks no longer run are regressions.
    const narrower = await runAgainst({}, ['--suite', 'token', '--compare-with', clean]);
    expect(narrower.code).toBe(1);
    expect(narrower.stdout).toMatch(/USER-OK +MUST +passed → not run \(not run in NEW\)/);
  });

  it('refuses an unusable OLD before running anything', async () => {
    const dir = await tempDir('carrier-compare-');
    const result = await runMain(['run', '--embedded', '--compare-with', join(dir, 'nope.json'), '--reports-dir', dir]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toMatch(
      /^carrier-conformance: --compare-with .*nope\.json: cannot read it \(no such file\)$/,
    );
    expect(result.stdout).toBe('');
  });
});

it('diff, matrix and verify-bundle ignore the CARRIER_* variables of run (a secret exported for it)', async () => {
  const dir = await tempDir('carrier-env-');
  const report = await writeReport(dir, 'report.json', fullReport());
  const env = {
    CARRIER_CLIENT_SECRET: 'exported for run',
    CARRIER_BASE_URL: 'https://api.example.test',
    CARRIER_OUT: 'elsewhere',
  };
  const diff = await runBin(['diff', report, report], { env });
  expect([diff.code, diff.stderr]).toEqual([0, '']);
  const matrix = await runBin(['matrix', report, '--out', join(dir, 'matrix')], { env });
  expect([matrix.code, matrix.stderr]).toEqual([0, '']);
  const verify = await runBin(['verify-bundle', dir], { env });
  expect([verify.code, verify.stderr]).toEqual([1, '']);
  expect(verify.stdout).toMatch(/FAIL {2}manifest\.json: cannot read it \(no such file\)/);
});

it('the catalogue is what the classification is tested against', () => {
  // The hand-made reports use real ids; a renamed id would make these tests vacuous.
  for (const id of [
    'TOKEN-ISSUE',
    'TOKEN-PRAGMA',
    'PAGE-WALK',
    'USER-OK',
    'LINK-PREV',
    'EXPIRY-RENEW',
    'TOKEN-NO-REFRESH',
  ])
    expect(
      CHECKS.some((c) => c.id === id),
      id,
    ).toBe(true);
});
