import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderConsoleSummary } from '../src/report/console.js';
import { formatDuration, oneLine } from '../src/core/wording.js';
import { checkReason, describeCheck, formatExchange, formatFindings } from '../src/report/findings-text.js';
import { renderJsonReport } from '../src/report/json.js';
import { renderHtmlReport } from '../src/report/html.js';
import { renderJUnit } from '../src/report/junit.js';
import { MARKDOWN_MAX_BYTES, renderMarkdownSummary } from '../src/report/markdown.js';
import { runReportSchema } from '../src/model/run-report.js';
import type { CheckResult, RecordedExchange, RunReport } from '../src/model/run-report.js';
import { encodeBasicCredentials } from '../src/core/basic-credentials.js';
import { FORM_ENCODE_FUNCTION, curlCommand } from '../src/report/reproduce.js';
import { REPORT_FORMATS, appendGithubSummary, writeReports } from '../src/report/write.js';
import { BASELINE_REASON, HOSTILE_FINDING, STALE_REASON, makeRunReport } from './fixtures/report/run-report.js';
import { childElements, parseXml, textOf } from './fixtures/report/xml.js';

function checkOf(report: RunReport, id: string): CheckResult {
  const check = report.checks.find((c) => c.id === id);
  if (!check) throw new Error(`no check ${id} in the fixture`);
  return check;
}

const ESC = '\u001b';

describe('format', () => {
  const base: RecordedExchange = {
    purpose: 'GET /users/me without Accept-Version',
    request: {
      method: 'GET',
      url: 'https://api.example.test/users/me',
      headers: [['Authorization', 'Bearer [REDACTED]']],
    },
    response: {
      status: 400,
      headers: [['Content-Type', 'application/json']],
      body: '{"error":"missing version"}',
      bodyTruncated: false,
    },
    startedAt: '2025-03-01T03:04:05.678Z',
    durationMs: 12.4,
    auth: 'bearer',
  };

  it('formats an exchange as an HTTP message', () => {
    expect(formatExchange(base)).toBe(
      [
        '* GET /users/me without Accept-Version (12 ms, auth: bearer, started 2025-03-01T03:04:05.678Z)',
        '> GET https://api.example.test/users/me',
        '> Authorization: Bearer [REDACTED]',
        '< 400',
        '< Content-Type: application/json',
        '',
        '{"error":"missing version"}',
      ].join('\n'),
    );
  });

  it('shows the request body after a blank line and notes a truncated response body', () => {
    const text = formatExchange({
      ...base,
      request: {
        method: 'POST',
        url: 'https://auth.example.test/uaa/oauth2/token',
        headers: [['Content-Type', 'application/x-www-form-urlencoded']],
        body: 'grant_type=client_credentials',
      },
      response: { status: 401, headers: [], body: 'x'.repeat(5), bodyTruncated: true },
    });
    expect(text).toBe(
      [
        '* GET /users/me without Accept-Version (12 ms, auth: bearer, started 2025-03-01T03:04:05.678Z)',
        '> POST https://auth.example.test/uaa/oauth2/token',
        '> Content-Type: application/x-www-form-urlencoded',
        '',
        'grant_type=client_credentials',
        '',
        '< 401',
        '',
        'xxxxx',
        '[response body truncated: it was longer than the recording limit]',
      ].join('\n'),
    );
  });

  it('shows a transport error, or that nothing was recorded', () => {
    const noResponse: RecordedExchange = { ...base };
    delete noResponse.response;
    expect(
      formatExchange({ ...noResponse, error: 'connect ECONNREFUSED 127.0.0.1:8443' })
        .split('\n')
        .at(-1),
    ).toBe('! transport error: connect ECONNREFUSED 127.0.0.1:8443');
    expect(formatExchange(noResponse).split('\n').at(-1)).toBe('! no response was recorded');
  });

  it('lists findings and prints each referenced exchange once', () => {
    const check = checkOf(makeRunReport(), 'TOKEN-WRONG-SECRET');
    const text = formatFindings(check);
    expect(text.split('\n').filter((l) => l.startsWith('- '))).toHaveLength(check.findings.length);
    expect(text.match(/^Exchange #1:$/gm)).toHaveLength(1);
    expect(text.match(/^Exchange #2:$/gm)).toHaveLength(1);
    expect(text).not.toContain('Exchange #3:');
    expect(text.endsWith('(1 further exchange of this check is in report.json)')).toBe(true);
    expect(text.indexOf('Exchange #1:')).toBeGreaterThan(text.lastIndexOf('\n- '));
  });

  it('says so when a finding points at an exchange that was not recorded', () => {
    const check: CheckResult = {
      ...checkOf(makeRunReport(), 'USER-OK'),
      status: 'failed',
      findings: [{ kind: 'failure', message: 'bad', exchange: 4 }],
    };
    expect(formatFindings(check)).toBe('- failure: bad [exchange #5 was not recorded]');
    expect(formatFindings({ ...check, findings: [] })).toBe('');
  });

  it('describes a check as labelled lines', () => {
    expect(describeCheck(checkOf(makeRunReport(), 'TOKEN-PRAGMA'))).toBe(
      [
        'Check: TOKEN-PRAGMA',
        'Level: SHOULD',
        'Title: The token response carries Pragma: no-cache',
        'Refs: RFC 6749 §5.1',
      ].join('\n'),
    );
  });

  it('gives a check one reason, the same in every report: its message, else its first finding with words', () => {
    const found = {
      ...checkOf(makeRunReport(), 'USER-OK'),
      status: 'failed' as const,
      message: '  ',
      findings: [
        { kind: 'failure' as const, message: ' ' },
        { kind: 'failure' as const, message: 'ARRIVAL-NOT-NULL' },
      ],
    };
    expect(checkReason(found)).toBe('ARRIVAL-NOT-NULL');
    expect(checkReason({ ...found, message: 'SAID-SO' })).toBe('SAID-SO');
    expect(checkReason({ ...found, findings: [] })).toBeUndefined();
    const report = { ...makeRunReport(), checks: [found] };
    for (const out of [
      renderConsoleSummary(report, { color: false }),
      renderMarkdownSummary(report),
      renderHtmlReport(report),
      renderJUnit(report),
    ]) {
      expect(out).toContain('ARRIVAL-NOT-NULL');
      expect(out).not.toContain('no reason');
    }
    const silent = { ...makeRunReport(), checks: [{ ...found, findings: [] }] };
    expect(renderConsoleSummary(silent, { color: false })).toContain('(no reason recorded)');
  });

  it("on the console, a reason too long for its line drops the endpoints' names before the cause, which the reports keep", () => {
    const endpoints = [
      { endpoint: 'GET /tenants/{tenantId}/shipments', status: 'failed' as const },
      { endpoint: 'GET /tenants/{tenantId}/invoices', status: 'failed' as const },
    ];
    const cause =
      'GET shipments?page=1&size=10: rel="next" https://gw.example.com/api/tenants/5e0c3b8a-1f2d-4a6b-8c9d-0e1f2a3b4c5d/shipments?page=3&size=10 leads to page 3, expected page 2';
    const message = `2 endpoints, 2 failed: GET /tenants/{tenantId}/shipments, GET /tenants/{tenantId}/invoices. ${cause}`;
    const failed = {
      ...checkOf(makeRunReport(), 'USER-OK'),
      status: 'failed' as const,
      message,
      endpoints,
      findings: [{ kind: 'failure' as const, message: cause }],
    };
    const report = { ...makeRunReport(), checks: [failed] };
    expect(renderConsoleSummary(report, { color: false })).toContain(`2 endpoints, 2 failed. ${cause}`);
    expect(renderHtmlReport(report)).toMatch(
      /2 endpoints, 2 failed\. GET shipments\?page=1&amp;size=10: rel=&quot;next&quot; \S+ leads to page 3, expected page 2/,
    );
    expect(renderJUnit(report)).toContain(
      '2 endpoints, 2 failed: GET /tenants/{tenantId}/shipments, GET /tenants/{tenantId}/invoices',
    );
    // A short one keeps them.
    const short = { ...failed, message: '2 endpoints, 2 failed: GET /a, GET /b. GET /a: expected 400, got 200' };
    expect(renderConsoleSummary({ ...report, checks: [short] }, { color: false })).toContain(short.message);
  });

  it('makes one line and cuts it without splitting a surrogate pair', () => {
    expect(oneLine(' a\n\tb\r\n c\u2028d ')).toBe('a b c d');
    expect(oneLine('abcdef', 4)).toBe('abc…');
    expect(oneLine('😀😀😀😀', 3)).toBe('😀😀…');
    expect(formatDuration(999.6)).toBe('1000 ms');
    expect(formatDuration(1234.5)).toBe('1.23 s');
    expect(formatDuration(125_000)).toBe('2 min 5 s');
  });
});

describe('renderJsonReport', () => {
  it('round-trips through runReportSchema', () => {
    const report = makeRunReport();
    const json = renderJsonReport(report);
    expect(json.endsWith('}\n')).toBe(true);
    expect(json.split('\n')[1]).toMatch(/^ {2}"tool": \{$/);
    const back = runReportSchema.parse(JSON.parse(json));
    expect(back).toEqual(report);
    expect(renderJsonReport(back)).toBe(json);
  });

  it('keeps lone surrogates and control characters as JSON escapes', () => {
    const json = renderJsonReport(makeRunReport());
    expect(json).toContain('\\ud800');
    expect(json).toContain('\\u0000');
    expect(json).not.toContain('\u0000');
  });

  it('refuses a report that does not match the schema', () => {
    const bad = { ...makeRunReport(), verdict: 'maybe' } as unknown as RunReport;
    expect(() => renderJsonReport(bad)).toThrow(/does not match its schema[\s\S]*verdict/);
  });

  it('drops keys the schema does not document', () => {
    const extra = { ...makeRunReport(), secret: 'hunter2' } as RunReport;
    expect(renderJsonReport(extra)).not.toContain('hunter2');
  });
});

describe('renderConsoleSummary', () => {
  const report = makeRunReport();
  const text = renderConsoleSummary(report, { color: false });
  const lines = text.split('\n');

  it('starts with the verdict and what it covers, then the target and the baseline', () => {
    expect(lines.slice(0, 8)).toEqual([
      'NON-CONFORMANT  https://api.example.test',
      '  3 required checks failed: the target does not conform',
      '  1 required check could not be carried out: nothing was proven either way',
      '  1 known failure accepted by conformance-baseline.json: TOKEN-BASIC-SCHEME-CASE',
      '  1 SHOULD check warned (not failing the run)',
      '  4 of 13 checks not carried out: 1 skipped: needs --expectations; 2 skipped: no --tenant given <]]>&>; 1 could not be carried out',
      'carrier-conformance 0.1.0, auth https://auth.example.test, tenant 0d9f6b4e-3c51-4c1a-9b0e-8f2f7c7d1a11',
      'Baseline: conformance-baseline.json (2 known failures)',
    ]);
  });

  it('has a table of counts per suite', () => {
    const table = lines.slice(lines.indexOf('') + 1, lines.indexOf('', lines.indexOf('') + 1));
    expect(table.map((l) => l.split(/\s+/))).toEqual([
      ['suite', 'passed', 'failed', 'warning', 'error', 'skipped', 'expected'],
      ['token', '1', '1', '1', '0', '0', '1'],
      ['auth', '1', '0', '0', '1', '0', '0'],
      ['user', '1', '1', '0', '0', '1', '0'],
      ['tenant', '0', '0', '0', '0', '2', '0'],
      ['pagination', '1', '1', '0', '0', '0', '0'],
    ]);
  });

  it('lists failed, errored and warning checks with id, level and a one-line reason', () => {
    const block = (title: string): string[] => {
      const start = lines.findIndex((l) => l.startsWith(title));
      const end = lines.indexOf('', start);
      return lines.slice(start + 1, end).map((l) =>
        l
          .trim()
          .split(/\s{2,}/)
          .join(' | '),
      );
    };
    expect(block('FAILED (3)')).toEqual([
      'TOKEN-WRONG-SECRET | MUST | Expected 401 ]]> but got 200 ]]> with a token[31m and ]]> too second line',
      `USER-FIELDS | MUST | ${HOSTILE_FINDING}`,
      expect.stringMatching(/^PAGE-WALK \| MUST \| page 3 repeats items of page 2: a1b2c3d4, .*…$/),
    ]);
    expect(block('ERRORS (1)')).toEqual(['AUTH-MISSING | MUST | GET /users/me timed out after 10 s']);
    expect(block('WARNINGS (1)')).toEqual(['TOKEN-PRAGMA | SHOULD | no Pragma: no-cache on the token response']);
    expect(lines.find((l) => l.startsWith('WARNINGS'))).toContain('they do not fail the run');
  });

  it('groups skipped checks by reason', () => {
    const start = lines.indexOf('SKIPPED (3)');
    expect(lines.slice(start + 1, start + 3)).toEqual([
      '  needs --expectations (1): USER-EXPECTED-VALUES',
      '  no --tenant given <]]>&> (2): TENANT-ACCESS, TENANT-FOREIGN',
    ]);
  });

  it('lists expected failures with the baseline reason, and the baseline entries that now pass', () => {
    const start = lines.findIndex((l) => l.startsWith('EXPECTED FAILURES (baseline)'));
    expect(lines[start]).toBe(
      'EXPECTED FAILURES (baseline) (1): known failures listed in conformance-baseline.json; they do not fail the run',
    );
    expect(lines[start + 1]?.trim().split(/\s{2,}/)).toEqual([
      'TOKEN-BASIC-SCHEME-CASE',
      'MUST',
      `${BASELINE_REASON} | this run: status 401 for the scheme spelled "basic", expected 200`,
    ]);
    const stale = lines.findIndex((l) => l.startsWith('BASELINE ENTRIES THAT NOW PASS'));
    expect(lines.slice(stale, stale + 3)).toEqual([
      'BASELINE ENTRIES THAT NOW PASS (remove them from conformance-baseline.json) (1)',
      `  PAGE-HEADERS  ${STALE_REASON}`,
      '',
    ]);
  });

  it('ends with the totals line, expected failures included', () => {
    expect(
      text.endsWith('\n13 checks: 4 passed, 3 failed, 1 warning, 1 error, 3 skipped, 1 expected (11.32 s)\n'),
    ).toBe(true);
  });

  it('leaves the expected column and count out of a run without a baseline', () => {
    const plain = makeRunReport();
    delete plain.baseline;
    plain.checks = plain.checks
      .filter((c) => c.status !== 'expected')
      .map((c) => {
        const copy = { ...c };
        delete copy.baseline;
        return copy;
      });
    const out = renderConsoleSummary(plain, { color: false });
    expect(out).not.toContain('expected');
    expect(out).not.toContain('BASELINE');
    expect(out.endsWith('\n12 checks: 4 passed, 3 failed, 1 warning, 1 error, 3 skipped (11.32 s)\n')).toBe(true);
  });

  it('says when the run repeats the failed checks of an earlier report, and when the baseline is strict', () => {
    const rerun = makeRunReport();
    rerun.rerunOf = 'reports/report.json';
    if (rerun.baseline) rerun.baseline.strict = true;
    const out = renderConsoleSummary(rerun, { color: false }).split('\n');
    const tool = out.findIndex((l) => l.startsWith('carrier-conformance 0.1.0'));
    expect(out.slice(tool + 1, tool + 3)).toEqual([
      'Rerun: only the checks that did not pass in reports/report.json',
      'Baseline: conformance-baseline.json (2 known failures, strict: entries that now pass fail the run)',
    ]);
    expect(out.find((l) => l.startsWith('BASELINE ENTRIES'))).toContain('with --strict-baseline they fail the run');
  });

  it('prints no escape sequences without colour, not even ones the target sent', () => {
    expect(checkOf(report, 'TOKEN-WRONG-SECRET').message).toContain(ESC);
    expect(text).not.toContain(ESC);
    const controls = Array.from(text).filter((ch) => {
      const code = ch.codePointAt(0) ?? 0;
      return (code < 0x20 && ch !== '\n') || (code >= 0x7f && code <= 0x9f);
    });
    expect(controls).toEqual([]);
  });

  it('colours only when asked, whatever stdout is', () => {
    const coloured = renderConsoleSummary(report, { color: true });
    expect(coloured).toContain(`${ESC}[31m`);
    expect(stripVTControlCharacters(coloured)).toBe(text);
  });

  it('says why a run is incomplete, and when nothing ran', () => {
    const stopped = makeRunReport();
    stopped.verdict = 'incomplete';
    stopped.incompleteReason = 'the run exceeded its --deadline of 60 s';
    expect(renderConsoleSummary(stopped, { color: false }).split('\n').slice(0, 3)).toEqual([
      'INCOMPLETE  https://api.example.test',
      '  the run exceeded its --deadline of 60 s',
      '  9 of 13 checks were carried out before it stopped; this is no verdict on the rest',
    ]);
    const incomplete = renderConsoleSummary(
      {
        ...makeRunReport(),
        verdict: 'incomplete',
        incompleteReason: 'nothing to rerun: every selected check passed in old.json',
        checks: [],
      },
      { color: false },
    );
    expect(incomplete.split('\n').slice(0, 4)).toEqual([
      'NOTHING CHECKED  https://api.example.test',
      '  nothing to rerun: every selected check passed in old.json',
      'carrier-conformance 0.1.0, auth https://auth.example.test, tenant 0d9f6b4e-3c51-4c1a-9b0e-8f2f7c7d1a11',
      'Baseline: conformance-baseline.json (2 known failures)',
    ]);
    expect(incomplete).toContain('\nNo checks were run.\n');
    expect(incomplete).toContain('0 checks: 0 passed, 0 failed, 0 warnings, 0 errors, 0 skipped, 0 expected');
  });
});

describe('writeReports', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'carrier-report-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('creates the directory, writes every report and leaves no temporary file', async () => {
    const report = makeRunReport();
    const dir = join(root, 'nested', 'reports');
    expect(REPORT_FORMATS).toEqual(['junit', 'json', 'html', 'har']);
    const paths = await writeReports(report, dir, REPORT_FORMATS);
    expect(paths).toEqual([
      join(dir, 'junit.xml'),
      join(dir, 'report.json'),
      join(dir, 'report.html'),
      join(dir, 'report.har'),
    ]);
    expect((await readdir(dir)).sort()).toEqual(['junit.xml', 'report.har', 'report.html', 'report.json']);
    expect(await readFile(join(dir, 'junit.xml'), 'utf8')).toBe(renderJUnit(report));
    expect(await readFile(join(dir, 'report.json'), 'utf8')).toBe(renderJsonReport(report));
    expect(await readFile(join(dir, 'report.html'), 'utf8')).toBe(renderHtmlReport(report));
  });

  it('appends the Markdown summary to the GitHub step summary file, keeping what was there', async () => {
    const path = join(root, 'step-summary.md');
    await writeFile(path, '# Earlier step output');
    await appendGithubSummary(makeRunReport(), path);
    await appendGithubSummary(makeRunReport(), path);
    const summary = renderMarkdownSummary(makeRunReport());
    expect(await readFile(path, 'utf8')).toBe(`# Earlier step output\n${summary}\n${summary}`);
  });

  it('writes only the formats asked for, once each, and replaces an older file', async () => {
    await writeFile(join(root, 'report.json'), 'old');
    const paths = await writeReports(makeRunReport(), root, ['json', 'json']);
    expect(paths).toEqual([join(root, 'report.json')]);
    expect(await readdir(root)).toEqual(['report.json']);
    expect(JSON.parse(await readFile(join(root, 'report.json'), 'utf8'))).toEqual(makeRunReport());
  });

  it("removes an earlier run's reports of the formats not written, so that none is published as this run's", async () => {
    for (const name of ['junit.xml', 'report.json', 'report.html', 'other.txt'])
      await writeFile(join(root, name), 'an earlier run');
    await writeReports(makeRunReport(), root, ['har']);
    expect((await readdir(root)).sort()).toEqual(['other.txt', 'report.har']);
  });

  it('writes nothing when a report cannot be rendered', async () => {
    await writeFile(join(root, 'junit.xml'), 'previous');
    const bad = { ...makeRunReport(), counts: null } as unknown as RunReport;
    await expect(writeReports(bad, root, ['junit', 'json'])).rejects.toThrow(/schema/);
    expect(await readdir(root)).toEqual(['junit.xml']);
    expect(await readFile(join(root, 'junit.xml'), 'utf8')).toBe('previous');
  });

  it('removes its temporary file when the final rename fails', async () => {
    await mkdir(join(root, 'junit.xml', 'occupied'), { recursive: true });
    await expect(writeReports(makeRunReport(), root, ['junit'])).rejects.toThrow();
    expect(await readdir(root)).toEqual(['junit.xml']);
  });
});

describe('renderMarkdownSummary', () => {
  const report = makeRunReport();
  const md = renderMarkdownSummary(report);
  const lines = md.split('\n');

  it('starts with the verdict and what it covers, the target and the tool version', () => {
    expect(lines[0]).toBe('## Carrier-Platform API conformance: ❌ NON-CONFORMANT');
    expect(lines[2]).toBe('- 3 required checks failed: the target does not conform');
    expect(lines[6]).toBe(
      '- 4 of 13 checks not carried out: 1 skipped: needs --expectations; 2 skipped: no --tenant given &lt;\\]\\]&gt;&amp;&gt;; 1 could not be carried out',
    );
    expect(lines.find((l) => l.startsWith('Target **'))).toBe(
      'Target **https\\://api.example.test** · auth https\\://auth.example.test · tenant 0d9f6b4e-3c51-4c1a-9b0e-8f2f7c7d1a11 · carrier-conformance 0.1.0 · 2025-03-01 03:04:05 UTC, 11.32 s',
    );
    expect(md).toContain('\n\nBaseline: conformance-baseline.json (2 known failures).\n\n');
  });

  it('has a table of counts per suite with a total row', () => {
    const start = lines.findIndex((l) => l.startsWith('| Suite'));
    expect(lines.slice(start, start + 8)).toEqual([
      '| Suite | Passed | Failed | Warnings | Errors | Skipped | Expected |',
      '| :-- | --: | --: | --: | --: | --: | --: |',
      '| token | 1 | 1 | 1 | 0 | 0 | 1 |',
      '| auth | 1 | 0 | 0 | 1 | 0 | 0 |',
      '| user | 1 | 1 | 0 | 0 | 1 | 0 |',
      '| tenant | 0 | 0 | 0 | 0 | 2 | 0 |',
      '| pagination | 1 | 1 | 0 | 0 | 0 | 0 |',
      '| **Total** | **4** | **3** | **1** | **1** | **3** | **1** |',
    ]);
  });

  it('lists failures, errors, warnings, expected failures and stale entries with id, level and refs', () => {
    const section = (title: string): string[] => {
      const start = lines.findIndex((l) => l.startsWith(`### ${title}`));
      expect(start, title).toBeGreaterThan(0);
      const end = lines.findIndex((l, i) => i > start + 1 && l === '');
      return lines.slice(start + 2, end < 0 ? undefined : end);
    };
    expect(section('❌ Failed (3)')).toEqual([
      '- **TOKEN-WRONG-SECRET** (MUST, spec §Authentication 2; RFC 6749 §5.2): Expected 401 \\]\\]&gt; but got 200 \\]\\]&gt; with a token\\[31m and \\]\\]&gt; too second line',
      expect.stringMatching(/^- \*\*USER-FIELDS\*\* \(MUST, /),
      expect.stringMatching(
        /^- \*\*PAGE-WALK\*\* \(MUST, spec §Pagination\): page 3 repeats items of page 2: a1b2c3d4, .*…$/,
      ),
    ]);
    expect(section('❌ Errors (1)')).toEqual([
      '- **AUTH-MISSING** (MUST, spec §Authentication 4; RFC 6750 §3): GET /users/me timed out after 10 s',
    ]);
    expect(section('⚠️ Warnings (1)')).toEqual([
      '- **TOKEN-PRAGMA** (SHOULD, RFC 6749 §5.1): no Pragma: no-cache on the token response',
    ]);
    expect(section('Expected failures (baseline) (1)')).toEqual([
      '- **TOKEN-BASIC-SCHEME-CASE** (MUST, RFC 7617 §2; RFC 9110 §11.1): baseline: ACME-1234: the gateway only accepts the scheme spelled &quot;Basic&quot;; fix planned; this run: status 401 for the scheme spelled &quot;basic&quot;, expected 200',
    ]);
    expect(lines.find((l) => l.startsWith('### Baseline entries that now pass'))).toBe(
      '### Baseline entries that now pass (1): remove them from conformance-baseline.json',
    );
    expect(md).toContain(`\n- **PAGE-HEADERS**: ${STALE_REASON}\n`);
    expect(section('Skipped (3)')).toEqual([
      '- needs --expectations (1): USER-EXPECTED-VALUES',
      '- no --tenant given &lt;\\]\\]&gt;&amp;&gt; (2): TENANT-ACCESS, TENANT-FOREIGN',
    ]);
  });

  it('escapes what a server sent so that it renders as text: no HTML, links, code, emphasis or extra table cells', () => {
    const line = lines.find((l) => l.startsWith('- **USER-FIELDS**')) ?? '';
    expect(line).toContain(
      'undocumented field &quot;&lt;img src=x onerror=alert\\(3\\)&gt;&quot; \\| \\`code\\` \\*bold\\* \\[link\\]\\(http\\://evil.test\\) in the User',
    );
    expect(md).not.toMatch(/<(?!br>)[a-z]/i);
    expect(md).not.toContain(ESC);
    // A hostile value in a table cell (the suite table only holds numbers) and in the header.
    const hostile = makeRunReport();
    hostile.target.baseUrl = 'https://x.test/|</td><script>alert(1)</script> www.evil.test a@b.test';
    const head =
      renderMarkdownSummary(hostile)
        .split('\n')
        .find((l) => l.startsWith('Target **')) ?? '';
    expect(head).toContain(
      'https\\://x.test/\\|&lt;/td&gt;&lt;script&gt;alert\\(1\\)&lt;/script&gt; www\\.evil.test a\\@b.test',
    );
  });

  it('stays under the byte budget by cutting whole lines, with a note', () => {
    const big = makeRunReport();
    const failed = checkOf(big, 'TOKEN-WRONG-SECRET');
    big.checks = Array.from({ length: 5000 }, (_, i) => ({
      ...failed,
      id: `BIG-${i}`,
      message: `${'é'.repeat(250)} ${i}`,
    }));
    const cut = renderMarkdownSummary(big, { maxBytes: 200_000 });
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(200_000);
    expect(Buffer.byteLength(cut)).toBeGreaterThan(190_000);
    expect(cut).toMatch(
      /\n\n> \*\*Truncated:\*\* \d+ more lines did not fit GitHub's step summary limit; every check is in junit.xml, report.json and report.html.\n$/,
    );
    const items = cut.split('\n').filter((l) => l.startsWith('- **BIG-'));
    expect(items.length).toBeGreaterThan(100);
    // Whole list items only: each one ends with its number.
    items.forEach((l, i) => expect(l.endsWith(`é ${i}`)).toBe(true));
    // The default budget is below GitHub's 1 MiB, and a report far bigger is cut to it.
    expect(MARKDOWN_MAX_BYTES).toBeLessThan(1024 * 1024);
    const full = renderMarkdownSummary(big);
    expect(Buffer.byteLength(full)).toBeLessThanOrEqual(MARKDOWN_MAX_BYTES);
    expect(full).toContain('> **Truncated:**');
    expect(renderMarkdownSummary(makeRunReport())).not.toContain('Truncated');
  });

  it('says why a run is incomplete and when it is a rerun', () => {
    const md2 = renderMarkdownSummary({
      ...makeRunReport(),
      verdict: 'incomplete',
      incompleteReason: 'the token endpoint <broke>',
      rerunOf: 'old/report.json',
    });
    expect(md2.split('\n').slice(0, 3)).toEqual([
      '## Carrier-Platform API conformance: ⚠️ INCOMPLETE',
      '',
      '- the token endpoint &lt;broke&gt;',
    ]);
    expect(md2).toContain('\n\nRerun: only the checks that did not pass in old/report.json.\n');
    const md3 = renderMarkdownSummary({
      ...makeRunReport(),
      verdict: 'incomplete',
      incompleteReason: 'nothing to rerun',
      rerunOf: 'old/report.json',
      checks: [],
    });
    expect(md3.split('\n')[0]).toBe('## Carrier-Platform API conformance: ⚠️ NOTHING CHECKED');
    expect(md3).toContain('\nNo checks were run.\n');
  });
});

/** Where the fake curl writes each call's argv: NUL after each argument, RS after each call. */
const FAKE_CURL = `curl() {
  for a in "$@"; do printf '%s\\0' "$a" >&2; done; printf '\\036' >&2
  if [ "$1" = -sS ]; then printf '{"token_type":"bearer", "access_token" : "tok-%s", "expires_in" : 7}\\n' "$CARRIER_CLIENT_ID"; fi
}`;

interface ShellRun {
  status: number | null;
  /** argv of every curl call, in order, without the program name. */
  calls: string[][];
  stdout: string;
}

/** Runs `command` with `sh`, `curl` being a shell function that records its argv. */
function runWithFakeCurl(command: string, env: Record<string, string> = {}): ShellRun {
  const result = spawnSync('sh', ['-c', `${FAKE_CURL}\n${command}`], {
    encoding: 'utf8',
    timeout: 10_000,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      LC_ALL: 'C.UTF-8',
      CARRIER_CLIENT_ID: 'my id',
      CARRIER_CLIENT_SECRET: "s3cr3t'$x",
      ...env,
    },
  });
  const calls = result.stderr
    .split('\u001e')
    .slice(0, -1)
    .map((call) => call.split('\u0000').slice(0, -1));
  return { status: result.status, calls, stdout: result.stdout };
}

function shellSyntaxOk(command: string): { status: number | null; stderr: string } {
  const result = spawnSync('sh', ['-n', '-c', command], { encoding: 'utf8', timeout: 10_000 });
  return { status: result.status, stderr: result.stderr };
}

function exchangeOf(report: RunReport, id: string, index = 0): RecordedExchange {
  const ex = checkOf(report, id).exchanges[index];
  if (!ex) throw new Error(`no exchange ${index} in ${id}`);
  return ex;
}

const TOKEN_URL = 'https://auth.example.test/uaa/oauth2/token';
const TOKEN_CALL = [
  '-sS',
  '-u',
  "my id:s3cr3t'$x",
  '-H',
  'Accept-Version: 1',
  '-d',
  'grant_type=client_credentials',
  TOKEN_URL,
];

describe('curlCommand', () => {
  const report = makeRunReport();

  it('is valid POSIX shell for every exchange of the fixture, and never holds a redaction marker', () => {
    for (const check of report.checks) {
      for (const ex of check.exchanges) {
        const command = curlCommand(ex, report);
        expect(shellSyntaxOk(command), `${check.id}: ${command}`).toEqual({ status: 0, stderr: '' });
        expect(command, check.id).not.toContain('[REDACTED');
        expect(command.split('\n').at(-1), check.id).toMatch(/^curl -i /);
      }
    }
  });

  it('sends the configured client credentials with -u, from environment variables, for a redacted Basic header', () => {
    const ex = exchangeOf(report, 'TOKEN-ISSUE');
    expect(ex.request.headers).toContainEqual(['authorization', 'Basic [REDACTED:basic-credentials]']);
    const command = curlCommand(ex, report);
    // Guarded: without the variables it stops before sending (test/reproduction.test.ts runs that).
    expect(command).toBe(
      [
        ': "${CARRIER_CLIENT_ID:?export CARRIER_CLIENT_ID (the client id of the run) first}" &&',
        ': "${CARRIER_CLIENT_SECRET:?export CARRIER_CLIENT_SECRET (the client secret of the run) first}" &&',
        `curl -i -X POST -u "$CARRIER_CLIENT_ID:$CARRIER_CLIENT_SECRET" -H 'accept: application/json' -H 'Accept-Version: 1' -H 'Content-Type: application/x-www-form-urlencoded' --compressed --data-raw 'grant_type=client_credentials' '${TOKEN_URL}'`,
      ].join('\n'),
    );
    expect(command).not.toContain('REDACTED');
    expect(command).toContain('$CARRIER_CLIENT_SECRET');
    const run = runWithFakeCurl(command);
    expect(run.status).toBe(0);
    // user-agent and accept-encoding are left to curl (--compressed asks for compression).
    expect(run.calls).toEqual([
      [
        '-i',
        '-X',
        'POST',
        '-u',
        "my id:s3cr3t'$x",
        '-H',
        'accept: application/json',
        '-H',
        'Accept-Version: 1',
        '-H',
        'Content-Type: application/x-www-form-urlencoded',
        '--compressed',
        '--data-raw',
        'grant_type=client_credentials',
        TOKEN_URL,
      ],
    ]);
  });

  it('keeps a scheme spelled otherwise than "Basic" by building the header itself', () => {
    const command = curlCommand(exchangeOf(report, 'TOKEN-BASIC-SCHEME-CASE'), report);
    expect(command).toContain(
      `-H "Authorization: basic $(printf '%s:%s' "$CARRIER_CLIENT_ID" "$CARRIER_CLIENT_SECRET" | base64 | tr -d '\\n')"`,
    );
    const run = runWithFakeCurl(command, { CARRIER_CLIENT_SECRET: 'a'.repeat(80) });
    expect(run.calls).toHaveLength(1);
    const args = run.calls[0] ?? [];
    // Longer than base64's 76-column wrap: the newline it would insert is removed.
    expect(args[args.indexOf('-H') + 1]).toBe(
      `Authorization: basic ${Buffer.from(`my id:${'a'.repeat(80)}`).toString('base64')}`,
    );
    expect(args.at(-1)).toBe(TOKEN_URL);
  });

  it('obtains a fresh token first for a bearer request, without jq, and keeps the scheme spelling', () => {
    const ex = exchangeOf(report, 'USER-FIELDS');
    const command = curlCommand(ex, report);
    const [, , tokenLine, tokenGuard, curlLine] = command.split('\n');
    expect(tokenLine).toBe(
      `CARRIER_ACCESS_TOKEN=$(curl -sS -u "$CARRIER_CLIENT_ID:$CARRIER_CLIENT_SECRET" -H 'Accept-Version: 1' -d grant_type=client_credentials '${TOKEN_URL}' | sed -n 's/.*"access_token" *: *"\\([^"]*\\)".*/\\1/p') &&`,
    );
    // No token (a refused client, no connection): one line, and no request with `Bearer `.
    expect(tokenGuard).toBe(': "${CARRIER_ACCESS_TOKEN:?no access_token in the token response}" &&');
    expect(curlLine).toContain('-H "Authorization: Bearer $CARRIER_ACCESS_TOKEN"');
    const run = runWithFakeCurl(command);
    expect(run.calls).toEqual([
      TOKEN_CALL,
      [
        '-i',
        '-H',
        'Authorization: Bearer tok-my id',
        '-H',
        'accept: application/json',
        '-H',
        'Accept-Version: 1',
        '--compressed',
        'https://api.example.test/users/me',
      ],
    ]);

    const lower: RecordedExchange = {
      ...ex,
      request: { ...ex.request, headers: [['authorization', 'bearer [REDACTED:access-token]']] },
    };
    expect(runWithFakeCurl(curlCommand(lower, report)).calls[1]).toContain('Authorization: bearer tok-my id');
  });

  it('waits, for a request the check sent with a token past or near its expires_in, as long as the check did, and says so', () => {
    const ex = exchangeOf(report, 'USER-FIELDS');
    // A sleep that is recorded among the curl calls, so that their order shows.
    const fakeSleep = `sleep() { printf 'sleep\\0%s\\0\\036' "$1" >&2; }\n`;
    const run = (e: RecordedExchange, r: RunReport = report): ShellRun =>
      runWithFakeCurl(fakeSleep + curlCommand(e, r));
    const resource = [
      '-i',
      '-H',
      'Authorization: Bearer tok-my id',
      '-H',
      'accept: application/json',
      '-H',
      'Accept-Version: 1',
      '--compressed',
      'https://api.example.test/users/me',
    ];

    // After: the fake token's expires_in (7 s), a second of whole-second rounding, the margin.
    const expired: RecordedExchange = { ...ex, purpose: 'GET /users/me with a token whose expires_in has passed' };
    const command = curlCommand(expired, report);
    expect(shellSyntaxOk(command)).toEqual({ status: 0, stderr: '' });
    expect(command.split('\n')[0]).toMatch(
      /^# The check sent its token after the token's expires_in had passed: .*waits expires_in \+ 2 s .*the default: the report does not say/,
    );
    expect(run(expired)).toEqual({ status: 0, calls: [TOKEN_CALL, ['sleep', '9'], resource], stdout: '' });
    const margin = { ...report, target: { ...report.target, expiryMargin: 2.5 } };
    expect(run(expired, margin).calls[1]).toEqual(['sleep', '11']);
    expect(curlCommand(expired, margin).split('\n')[0]).toContain("the run's --expiry-margin of 2.5 s");

    // Shortly before: with at least the seconds left that the check had; never less than none.
    const before = (left: string): RecordedExchange => ({
      ...ex,
      purpose: `GET /users/me with a token that has ${left} s left of its expires_in`,
    });
    expect(run(before('1.4')).calls).toEqual([TOKEN_CALL, ['sleep', '5'], resource]);
    expect(run(before('9.2')).calls[1]).toEqual(['sleep', '0']);
    expect(curlCommand(before('1.4'), report).split('\n')[0]).toMatch(
      /^# The check sent its token with 1\.4 s of its expires_in left: .*waits expires_in - 2 s /,
    );

    // A token response without a whole-number expires_in: it stops before the request.
    const noExpiry = `curl() { for a in "$@"; do printf '%s\\0' "$a" >&2; done; printf '\\036' >&2; [ "$1" = -sS ] && printf '{"access_token":"t","expires_in":"7"}\\n'; }\n`;
    const stopped = runWithFakeCurl(noExpiry + curlCommand(expired, report));
    expect(stopped.status).not.toBe(0);
    expect(stopped.calls).toHaveLength(1);
    // Requests sent with a fresh token at once are reproduced at once.
    expect(curlCommand(exchangeOf(report, 'USER-FIELDS'), report)).not.toMatch(/sleep|^#/m);
  });

  it('form-encodes the credentials itself, as the run sent them (RFC 6749 §2.3.1), and sends them raw where the run did', () => {
    // The header curl is given must be the one the harness sent: the shell makes it, from the
    // secret in the environment, byte for byte as src/core/basic-credentials.ts does.
    const secret = "s3cr3t'$x +%:&=/é~*";
    const env = { CARRIER_CLIENT_SECRET: secret };
    const encoded = { ...report, target: { ...report.target, credentialsFormEncoded: true } };
    const issue = curlCommand(exchangeOf(encoded, 'TOKEN-ISSUE'), encoded);
    expect(issue).not.toContain('#');
    expect(issue.split('\n')[0]).toBe(FORM_ENCODE_FUNCTION);
    expect(shellSyntaxOk(issue)).toEqual({ status: 0, stderr: '' });
    const header = (call: string[] | undefined): string | undefined => call?.[(call.indexOf('-H') ?? -2) + 1];
    expect(header(runWithFakeCurl(issue, env).calls[0])).toBe(
      `Authorization: Basic ${encodeBasicCredentials('my id', secret, 'form')}`,
    );
    // The scheme spelled otherwise, and the token request of a bearer reproduction, the same way.
    expect(
      header(runWithFakeCurl(curlCommand(exchangeOf(encoded, 'TOKEN-BASIC-SCHEME-CASE'), encoded), env).calls[0]),
    ).toBe(`Authorization: basic ${encodeBasicCredentials('my id', secret, 'form')}`);
    const bearer = runWithFakeCurl(curlCommand(exchangeOf(encoded, 'USER-FIELDS'), encoded), env);
    expect(bearer.calls[0]?.slice(0, 3)).toEqual([
      '-sS',
      '-H',
      `Authorization: Basic ${encodeBasicCredentials('my id', secret, 'form')}`,
    ]);
    // A token endpoint that took them only unencoded (basicEncoding raw) got them raw: curl -u.
    const raw = { ...encoded, target: { ...encoded.target, basicEncoding: 'raw' as const } };
    expect(runWithFakeCurl(curlCommand(exchangeOf(raw, 'TOKEN-ISSUE'), raw), env).calls[0]?.slice(3, 5)).toEqual([
      '-u',
      `my id:${secret}`,
    ]);
    // Not for a request without credentials, nor when the credentials need no encoding.
    expect(curlCommand(exchangeOf(encoded, 'AUTH-MISSING'), encoded)).not.toContain('carrier_form');
    expect(curlCommand(exchangeOf(report, 'TOKEN-ISSUE'), report)).not.toContain('carrier_form');
  });

  it('sends the wrong secret or the unknown client id the check sent, not the configured credentials', () => {
    const secret = 'ref secret+%:&=/2026';
    const env = { CARRIER_CLIENT_ID: 'conformance-client', CARRIER_CLIENT_SECRET: secret };
    const encoded = { ...report, target: { ...report.target, credentialsFormEncoded: true } };
    const base = exchangeOf(encoded, 'TOKEN-ISSUE');
    const header = (ex: RecordedExchange, r: RunReport): string | undefined => {
      const call = runWithFakeCurl(curlCommand(ex, r), env).calls[0] ?? [];
      const h = call.indexOf('-H');
      return call[h + 1]?.startsWith('Authorization') ? call[h + 1] : `-u ${call[call.indexOf('-u') + 1] ?? ''}`;
    };
    const wrong: RecordedExchange = { ...base, basic: { encoding: 'form', secretSuffix: '-wrong' } };
    expect(curlCommand(wrong, encoded)).not.toContain('#');
    expect(header(wrong, encoded)).toBe(
      `Authorization: Basic ${encodeBasicCredentials('conformance-client', `${secret}-wrong`, 'form')}`,
    );
    const unknown: RecordedExchange = {
      ...base,
      basic: { encoding: 'form', clientId: 'carrier-conformance-unknown-client-42' },
    };
    expect(header(unknown, encoded)).toBe(
      `Authorization: Basic ${encodeBasicCredentials('carrier-conformance-unknown-client-42', secret, 'form')}`,
    );
    const wrongRaw: RecordedExchange = { ...base, basic: { encoding: 'raw', secretSuffix: '-wrong' } };
    expect(header(wrongRaw, encoded)).toBe(`-u conformance-client:${secret}-wrong`);
    // Credentials that form-encoding leaves as they are: curl -u, with the wrong secret.
    const plain = { ...report, target: { ...report.target, credentialsFormEncoded: false } };
    expect(
      runWithFakeCurl(curlCommand(wrong, plain), {
        CARRIER_CLIENT_ID: 'c',
        CARRIER_CLIENT_SECRET: 'plain',
      }).calls[0]?.slice(3, 5),
    ).toEqual(['-u', 'c:plain-wrong']);
  });

  it('trusts what the run trusted: --cacert for --ca-file, --insecure for --insecure, the token request too', () => {
    const caFile = "/etc/carrier ca's/root.pem";
    const trusting = { ...report, target: { ...report.target, caFile, insecure: true } };
    const bearer = curlCommand(exchangeOf(trusting, 'USER-FIELDS'), trusting);
    expect(bearer).toContain(`curl -i --cacert '/etc/carrier ca'\\''s/root.pem' --insecure -H`);
    expect(shellSyntaxOk(bearer)).toEqual({ status: 0, stderr: '' });
    const [tokenCall, userCall] = runWithFakeCurl(bearer).calls;
    expect(tokenCall?.slice(0, 4)).toEqual(['-sS', '--cacert', caFile, '--insecure']);
    expect(tokenCall?.slice(4)).toEqual(TOKEN_CALL.slice(1));
    expect(userCall?.slice(0, 4)).toEqual(['-i', '--cacert', caFile, '--insecure']);
    expect(userCall?.at(-1)).toBe('https://api.example.test/users/me');

    const caOnly = { ...report, target: { ...report.target, caFile } };
    expect(runWithFakeCurl(curlCommand(exchangeOf(caOnly, 'TOKEN-ISSUE'), caOnly)).calls[0]?.slice(0, 4)).toEqual([
      '-i',
      '--cacert',
      caFile,
      '-X',
    ]);
    const insecureOnly = { ...report, target: { ...report.target, insecure: true } };
    expect(
      runWithFakeCurl(curlCommand(exchangeOf(insecureOnly, 'TOKEN-ISSUE'), insecureOnly)).calls[0]?.slice(0, 3),
    ).toEqual(['-i', '--insecure', '-X']);
    // Neither: curl verifies against its own bundle, as the harness did against the system's.
    expect(curlCommand(exchangeOf(report, 'USER-FIELDS'), report)).not.toMatch(/--cacert|--insecure/);

    // The writers take the command from here: JUnit carries it, report.json keeps what it needs.
    expect(renderJUnit(trusting)).toContain('--cacert');
    expect(renderHtmlReport(trusting)).toContain('--cacert');
    expect((JSON.parse(renderJsonReport(trusting)) as RunReport).target).toMatchObject({ caFile, insecure: true });
  });

  it('in a report of an earlier version, which does not say how: warns that a deliberately wrong credential is not reproduced, and names a hidden value as a variable', () => {
    const wrong = curlCommand(exchangeOf(report, 'TOKEN-WRONG-SECRET', 0), report);
    expect(wrong.split('\n')[0]).toMatch(/^# The check sent client credentials other than the configured ones/);
    const body = curlCommand(exchangeOf(report, 'TOKEN-WRONG-SECRET', 1), report);
    expect(body).toContain('"grant_type=client_credentials&client_secret=$CARRIER_HIDDEN_1"');
    expect(body.split('\n')[0]).toMatch(/^# .*set \$CARRIER_HIDDEN_1 before running this/);
    const run = runWithFakeCurl(body, { CARRIER_HIDDEN_1: 'the-wrong-one' });
    // No Accept or Content-Type was recorded, so curl's own are switched off.
    expect(run.calls).toEqual([
      [
        '-i',
        '-X',
        'POST',
        '-H',
        'Accept:',
        '-H',
        'Content-Type:',
        '--data-raw',
        'grant_type=client_credentials&client_secret=the-wrong-one',
        TOKEN_URL,
      ],
    ]);
  });

  it('sends a made-up literal credential as recorded, and an embedded real secret from the environment', () => {
    const literal: RecordedExchange = {
      purpose: 'probe',
      request: {
        method: 'GET',
        url: 'https://api.example.test/users/me',
        headers: [['authorization', 'Bearer %not a token%']],
      },
      startedAt: '2025-03-01T03:04:05.678Z',
      durationMs: 1,
      auth: 'literal',
    };
    expect(runWithFakeCurl(curlCommand(literal, report)).calls).toEqual([
      ['-i', '-H', 'Authorization: Bearer %not a token%', '-H', 'Accept:', 'https://api.example.test/users/me'],
    ]);
    const embedded = {
      ...literal,
      request: {
        ...literal.request,
        headers: [['authorization', 'Basic [REDACTED:basic-credentials], Bearer [REDACTED:secret]']] as [
          string,
          string,
        ][],
      },
    };
    const command = curlCommand(embedded, report);
    expect(command).not.toContain('REDACTED');
    const args = runWithFakeCurl(command, { CARRIER_HIDDEN_1: 'h1dden' }).calls[0] ?? [];
    expect(args[2]).toBe(`Authorization: Basic ${Buffer.from("my id:s3cr3t'$x").toString('base64')}, Bearer h1dden`);
    // No Authorization at all for a request without authentication.
    expect(curlCommand(exchangeOf(report, 'AUTH-MISSING'), report)).not.toMatch(/authorization|-u /i);
  });

  it('reproduces hostile values exactly: quotes, expansions, controls, bidi overrides, methods, globs, empty headers', () => {
    const nasty = `it's "$(touch /tmp/pwned)" \`id\` $HOME \\ !! \t tab\r\nline2\u001b[31m \u202Eevil\u202C 😀 \u2028 end'`;
    const ex: RecordedExchange = {
      purpose: 'hostile',
      request: {
        method: 'PUT',
        url: "https://[::1]:8443/a/{b}?q='x'&r=[1]",
        headers: [
          ['X-Nasty', nasty.replace(/[\r\n]/g, '')],
          ['X-Empty', ''],
          ['Content-Type', 'text/plain'],
          ['accept', '*/*'],
        ],
        body: nasty,
      },
      startedAt: '2025-03-01T03:04:05.678Z',
      durationMs: 1,
      auth: 'none',
    };
    const command = curlCommand(ex, report);
    expect(shellSyntaxOk(command).status).toBe(0);
    // Nothing a terminal or XML would change is left raw in the command.
    for (const raw of ['\t', '\r', ESC, '\u202e', '\u202c', '\u2028']) expect(command).not.toContain(raw);
    const run = runWithFakeCurl(command);
    expect(run.status).toBe(0);
    expect(run.calls).toEqual([
      [
        '-i',
        '-g',
        '-X',
        'PUT',
        '-H',
        `X-Nasty: ${nasty.replace(/[\r\n]/g, '')}`,
        '-H',
        'X-Empty;',
        '-H',
        'Content-Type: text/plain',
        '-H',
        'accept: */*',
        '--data-raw',
        nasty,
        "https://[::1]:8443/a/{b}?q='x'&r=[1]",
      ],
    ]);
    expect(
      runWithFakeCurl(
        curlCommand(
          { ...ex, request: { method: 'HEAD', url: 'https://api.example.test/', headers: [['accept', '*/*']] } },
          report,
        ),
      ).calls,
    ).toEqual([['-i', '-I', '-H', 'accept: */*', 'https://api.example.test/']]);
  });

  it('survives the trip through junit.xml: the command read back from system-out runs the same argv', async () => {
    const check = checkOf(report, 'USER-FIELDS');
    const hostile: CheckResult = {
      ...check,
      exchanges: check.exchanges.map((ex) => ({
        ...ex,
        request: { ...ex.request, method: 'POST', body: 'a\r\nb\u0000c]]>d\u0007' },
      })),
    };
    const root = await parseXml(renderJUnit({ ...report, checks: [hostile] }));
    const testcase = childElements(childElements(root, 'testsuite')[0] ?? root, 'testcase')[0];
    if (!testcase) throw new Error('no testcase');
    const out = textOf(childElements(testcase, 'system-out')[0] ?? testcase);
    const command = out.slice(out.indexOf('\nReproduce:\n') + '\nReproduce:\n'.length);
    expect(command).toBe(curlCommand(hostile.exchanges[0] ?? exchangeOf(report, 'USER-FIELDS'), report));
    const run = runWithFakeCurl(command);
    expect(run.calls[1]?.slice(-3)).toEqual([
      '--data-raw',
      'a\r\nb\u0000c]]>d\u0007'.replace('\u0000', ''),
      'https://api.example.test/users/me',
    ]);
  });
});
