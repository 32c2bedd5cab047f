import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderConsoleSummary } from '../src/report/console.js';
import { describeCheck, formatDuration, formatExchange, formatFindings, oneLine } from '../src/report/format.js';
import { renderJsonReport } from '../src/report/json.js';
import { renderJUnit } from '../src/report/junit.js';
import { runReportSchema } from '../src/report/model.js';
import type { CheckResult, RecordedExchange, RunReport } from '../src/report/model.js';
import { writeReports } from '../src/report/write.js';
import { makeRunReport } from './fixtures/report/run-report.js';

function checkOf(report: RunReport, id: string): CheckResult {
  const check = report.checks.find((c) => c.id === id);
  if (!check) throw new Error(`no check ${id} in the fixture`);
  return check;
}

const ESC = '\u001b';

describe('format', () => {
  const base: RecordedExchange = {
    purpose: 'GET /users/me without Accept-Version',
    request: { method: 'GET', url: 'https://api.example.test/users/me', headers: [['Authorization', 'Bearer [REDACTED]']] },
    response: { status: 400, headers: [['Content-Type', 'application/json']], body: '{"error":"missing version"}', bodyTruncated: false },
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
      request: { method: 'POST', url: 'https://auth.example.test/uaa/oauth2/token', headers: [['Content-Type', 'application/x-www-form-urlencoded']], body: 'grant_type=client_credentials' },
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
    expect(formatExchange({ ...noResponse, error: 'connect ECONNREFUSED 127.0.0.1:8443' }).split('\n').at(-1)).toBe(
      '! transport error: connect ECONNREFUSED 127.0.0.1:8443',
    );
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
      ['Check: TOKEN-PRAGMA', 'Level: SHOULD', 'Title: The token response carries Pragma: no-cache', 'Refs: RFC 6749 §5.1'].join('\n'),
    );
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

  it('starts with the verdict and the target', () => {
    expect(lines[0]).toBe('NON-CONFORMANT  https://api.example.test');
    expect(lines[1]).toBe('carrier-conformance 0.1.0, auth https://auth.example.test, tenant 0d9f6b4e-3c51-4c1a-9b0e-8f2f7c7d1a11');
  });

  it('has a table of counts per suite', () => {
    const table = lines.slice(lines.indexOf('') + 1, lines.indexOf('', lines.indexOf('') + 1));
    expect(table.map((l) => l.split(/\s+/))).toEqual([
      ['suite', 'passed', 'failed', 'warning', 'error', 'skipped'],
      ['token', '1', '1', '1', '0', '0'],
      ['auth', '1', '0', '0', '1', '0'],
      ['user', '1', '0', '0', '0', '1'],
      ['tenant', '0', '0', '0', '0', '2'],
      ['pagination', '1', '1', '0', '0', '0'],
    ]);
  });

  it('lists failed, errored and warning checks with id, level and a one-line reason', () => {
    const block = (title: string): string[] => {
      const start = lines.findIndex((l) => l.startsWith(title));
      const end = lines.indexOf('', start);
      return lines.slice(start + 1, end).map((l) => l.trim().split(/\s{2,}/).join(' | '));
    };
    expect(block('FAILED (2)')).toEqual([
      'TOKEN-WRONG-SECRET | MUST | Expected 401 ]]> but got 200 ]]> with a token[31m and ]]> too second line',
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

  it('ends with the totals line', () => {
    expect(text.endsWith('\n11 checks: 4 passed, 2 failed, 1 warning, 1 error, 3 skipped (11.32 s)\n')).toBe(true);
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
    const incomplete = renderConsoleSummary(
      { ...makeRunReport(), verdict: 'incomplete', incompleteReason: 'token endpoint unreachable', checks: [] },
      { color: false },
    );
    expect(incomplete.split('\n').slice(0, 3)).toEqual([
      'INCOMPLETE  https://api.example.test',
      'carrier-conformance 0.1.0, auth https://auth.example.test, tenant 0d9f6b4e-3c51-4c1a-9b0e-8f2f7c7d1a11',
      'Incomplete: token endpoint unreachable',
    ]);
    expect(incomplete).toContain('\nNo checks were run.\n');
    expect(incomplete).toContain('0 checks: 0 passed, 0 failed, 0 warnings, 0 errors, 0 skipped');
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

  it('creates the directory, writes both reports and leaves no temporary file', async () => {
    const report = makeRunReport();
    const dir = join(root, 'nested', 'reports');
    const paths = await writeReports(report, dir, ['junit', 'json']);
    expect(paths).toEqual([join(dir, 'junit.xml'), join(dir, 'report.json')]);
    expect((await readdir(dir)).sort()).toEqual(['junit.xml', 'report.json']);
    expect(await readFile(join(dir, 'junit.xml'), 'utf8')).toBe(renderJUnit(report));
    expect(await readFile(join(dir, 'report.json'), 'utf8')).toBe(renderJsonReport(report));
  });

  it('writes only the formats asked for, once each, and replaces an older file', async () => {
    await writeFile(join(root, 'report.json'), 'old');
    const paths = await writeReports(makeRunReport(), root, ['json', 'json']);
    expect(paths).toEqual([join(root, 'report.json')]);
    expect(await readdir(root)).toEqual(['report.json']);
    expect(JSON.parse(await readFile(join(root, 'report.json'), 'utf8'))).toEqual(makeRunReport());
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
