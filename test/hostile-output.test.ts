/**
 * Hostile text: what a target answers, what a forged report or bundle holds, reaches the console
 * only neutralised (src/core/console-safety.ts). Judged with each CI's own grammar
 * (test/support/ci-parsers.ts): no CI system finds a command in the log, no terminal gets an
 * escape sequence, whatever the text and however the harness's writes cut it.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BUNDLE_FILES, MANIFEST_FORMAT, sha256Of, type Manifest } from '../src/certification/bundle-format.js';
import { SafeStream, withoutControls } from '../src/core/console-safety.js';
import { main } from '../src/cli/main.js';
import { startReferenceServer } from '../src/reference/index.js';
import { renderConsoleSummary } from '../src/report/console.js';
import type { RunReport } from '../src/model/run-report.js';
import { PARSERS, ciCommandsIn, hostileLines, terminalControlsIn } from './support/ci-parsers.js';
import { startHostile } from './support/hostile.js';
import { tempDir } from './support/harness.js';
import { fullReport, reportOf, writeReport } from './support/reports.js';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of cleanup.reverse()) await close();
  cleanup = [];
});

/** Writes `pieces` through one SafeStream and returns the log as the CI would read it. */
function logOf(pieces: readonly string[], colour = false): string {
  let log = '';
  const stream = new SafeStream((text) => (log += text), colour);
  for (const piece of pieces) stream.write(piece);
  return log;
}

describe('the CI parsers of the test (test/support/ci-parsers.ts)', () => {
  it.each(Object.keys(PARSERS))('%s finds commands in the raw hostile lines', (ci) => {
    const found = hostileLines().filter((line) => ciCommandsIn(line).some((c) => c.ci === ci));
    expect(found.length).toBeGreaterThanOrEqual(ci === 'GitLab' ? 1 : 8);
  });

  it.each(hostileLines().filter((line) => !line.startsWith('quoted ')))(
    'find a command or a control in the raw line %j',
    (line) => {
      expect([...ciCommandsIn(line), ...terminalControlsIn(line)].length).toBeGreaterThan(0);
    },
  );
});

describe('SafeStream: a hostile line in the log', () => {
  const prefixes = ['', 'FAILED  TOKEN-TYPE  got ', '  ', 'line one\n', 'line one\n   '];

  it.each(hostileLines())('%j acts on no CI and no terminal, whatever comes before it', (line) => {
    for (const prefix of prefixes) {
      const log = logOf([`${prefix}${line}\n`]);
      expect(ciCommandsIn(log), JSON.stringify(log)).toEqual([]);
      expect(terminalControlsIn(log), JSON.stringify(log)).toEqual([]);
    }
  });

  it.each(hostileLines())('%j acts on nothing when the writes cut it anywhere', (line) => {
    const text = `  ${line}\n`;
    for (let cut = 0; cut <= text.length; cut += 1) {
      const log = logOf([text.slice(0, cut), text.slice(cut)]);
      expect(ciCommandsIn(log), `cut at ${cut}: ${JSON.stringify(log)}`).toEqual([]);
      expect(terminalControlsIn(log)).toEqual([]);
    }
  });

  it('keeps what it neutralises readable: only the first character of a command changes', () => {
    expect(logOf(['got ##vso[task.setvariable variable=X;]1\n'])).toBe('got ＃#vso[task.setvariable variable=X;]1\n');
    expect(logOf(['  ::error::forged\n'])).toBe('  ：:error::forged\n');
    expect(logOf(['--- group\n'])).toBe('－-- group\n');
    expect(logOf(['a::b ---x #[ok] ## [ok]\n'])).toBe('a::b ---x #[ok] ## [ok]\n');
  });

  it('keeps colour (SGR) only when the console is coloured, and no other escape', () => {
    const painted = '\x1b[1m\x1b[31mNON-CONFORMANT\x1b[39m\x1b[22m \x1b]0;title\x07\x1b[2J';
    expect(withoutControls(painted, true)).toBe('\x1b[1m\x1b[31mNON-CONFORMANT\x1b[39m\x1b[22m ]0;title[2J');
    expect(withoutControls(painted, false)).toBe('[1m[31mNON-CONFORMANT[39m[22m ]0;title[2J');
    expect(terminalControlsIn(logOf([painted], true), true)).toEqual([]);
  });

  it('leaves the harness own console summary as it was', () => {
    const report = fullReport({ 'TOKEN-TYPE': ['failed', 'expected token_type "bearer", got "mac"'] });
    for (const color of [false, true]) {
      const summary = renderConsoleSummary(report, { color });
      expect(logOf([summary], color)).toBe(summary);
    }
  });
});

/** Runs the CLI in-process, as entry.ts does, capturing what reaches the two streams. */
async function cli(args: readonly string[], env: Record<string, string> = {}): Promise<{ code: number; log: string }> {
  let log = '';
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    const code = await main(args, {
      out: (t) => void (log += t),
      err: (t) => void (log += t.endsWith('\n') ? t : `${t}\n`),
      color: false,
    });
    return { code, log };
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

const INJECTED =
  "##vso[task.setvariable variable=PWNED;]yes ##[error]forged ##teamcity[buildStatus status='SUCCESS'] \x1b]0;TITLE\x07\x1b[2J\r::error::forged";

describe('a target that answers with CI commands and escapes', () => {
  it('is quoted in the console neutralised, and in report.json as it was sent', async () => {
    const server = await startReferenceServer({ tokenTtlSeconds: 60 });
    cleanup.push(() => server.close());
    const hostile = await startHostile({
      upstream: server.url,
      misbehaviour: 'rewrite',
      match: (path) => path.endsWith('/token'),
      rewrite: (body) => body.replace(/"token_type":"[^"]*"/, `"token_type":${JSON.stringify(INJECTED)}`),
    });
    cleanup.push(() => hostile.close());
    const reportsDir = await tempDir();
    const run = await cli(
      [
        'run',
        '--base-url',
        hostile.url,
        '--client-id',
        server.clientId,
        '--reports-dir',
        reportsDir,
        '--check',
        'TOKEN-TYPE',
        '--check',
        'TOKEN-TYPE-CASE',
      ],
      { CARRIER_CLIENT_SECRET: server.clientSecret },
    );

    expect(run.code).toBe(1);
    expect(run.log).toMatch(/TOKEN-TYPE .*＃#vso\[task\.setvariable/);
    // The report is the record: it keeps what the target sent (JSON escapes its controls).
    const report = JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
    expect(report.checks.find((c) => c.id === 'TOKEN-TYPE')?.message).toContain(
      '##vso[task.setvariable variable=PWNED;]yes',
    );
    expect(ciCommandsIn(run.log)).toEqual([]);
    expect(terminalControlsIn(run.log)).toEqual([]);
  });
});

describe('a target that echoes the client secret encoded', () => {
  it('hex, Base64 or HTML-escaped, it reaches neither the console nor a report', async () => {
    const server = await startReferenceServer({ tokenTtlSeconds: 60 });
    cleanup.push(() => server.close());
    const secret = Buffer.from(server.clientSecret);
    const html = server.clientSecret.replace(/&/g, '&amp;');
    const echoes = [secret.toString('hex'), secret.toString('base64'), secret.toString('base64url'), html];
    const hostile = await startHostile({
      upstream: server.url,
      misbehaviour: 'rewrite',
      match: (path) => path.endsWith('/token'),
      // token_type is quoted by TOKEN-TYPE's message, on the console and in every report.
      rewrite: (body) => body.replace(/"token_type":"[^"]*"/, `"token_type":${JSON.stringify(echoes.join(' '))}`),
    });
    cleanup.push(() => hostile.close());
    const reportsDir = await tempDir();
    const run = await cli(
      [
        'run',
        '--base-url',
        hostile.url,
        '--client-id',
        server.clientId,
        '--reports-dir',
        reportsDir,
        '--check',
        'TOKEN-TYPE',
        '--reporter',
        'json',
        '--reporter',
        'junit',
        '--reporter',
        'html',
      ],
      { CARRIER_CLIENT_SECRET: server.clientSecret },
    );

    const written = await Promise.all(
      ['report.json', 'junit.xml', 'report.html'].map((f) => readFile(join(reportsDir, f), 'utf8')),
    );
    expect(written[0]).toContain('[REDACTED:client-secret]');
    for (const text of [run.log, ...written]) for (const echo of echoes) expect(text).not.toContain(echo);
  });
});

describe('forged report files and bundles', () => {
  const hostileName = '::error file=a,line=1::forged\u2028##[add-mask]NON-CONFORMANT';

  it('diff: the rerun note, target names and tool names reach the console neutralised', async () => {
    const dir = await tempDir();
    const old = await writeReport(dir, 'old.json', fullReport());
    // A rerun of one check: the checks it left out carry a note that quotes rerunOf.
    const forged = await writeReport(
      dir,
      'new.json',
      reportOf(
        { 'TOKEN-TYPE': 'passed' },
        {
          rerunOf: `x\x1b]0;PWNED\x07\x1b[2J\x1b]8;;http://evil/\x1b\\click\x1b]8;;\x1b\\\x9b31m ##vso[task.prependpath]/tmp`,
          tool: { name: 'carrier-conformance\x1b]0;T\x07', version: '0.1.0 ##teamcity[x]' },
          target: { ...fullReport().target, name: hostileName },
        },
      ),
    );
    const run = await cli(['diff', old, forged]);

    expect(run.log).toMatch(/not rerun: NEW repeats only the checks that did not pass in x\]0;PWNED/);
    expect(ciCommandsIn(run.log)).toEqual([]);
    expect(terminalControlsIn(run.log)).toEqual([]);
  });

  it('matrix: a target name at the start of a line and a tool name in a refusal reach the console neutralised', async () => {
    const dir = await tempDir();
    const a = await writeReport(
      dir,
      'a.json',
      fullReport({}, { target: { ...fullReport().target, name: hostileName } }),
    );
    const b = await writeReport(dir, 'b.json', fullReport());
    const listed = await cli(['matrix', a, b, '--out', join(dir, 'm')]);
    expect(listed.code).toBe(0);

    const withoutCatalogue: Partial<RunReport> = reportOf(
      { 'TOKEN-ISSUE': 'passed' },
      { tool: { name: `\n::error::x ##vso[task.complete]\x1b[2J`, version: '\x9b2J' } },
    );
    delete withoutCatalogue.catalogue;
    const refused = await cli(['matrix', await writeReport(dir, 'c.json', withoutCatalogue), '--out', join(dir, 'n')]);
    expect(refused.code).toBe(2);

    for (const log of [listed.log, refused.log]) {
      expect(ciCommandsIn(log)).toEqual([]);
      expect(terminalControlsIn(log)).toEqual([]);
    }
  });

  it('verify-bundle: what a forged bundle says reaches the console neutralised', async () => {
    const dir = join(await tempDir(), 'bundle');
    await mkdir(dir);
    const report: Partial<RunReport> = fullReport(
      {},
      { tool: { name: 'carrier-conformance ::error::x', version: '\x1b]0;T\x07##vso[task.complete]' } },
    );
    delete report.catalogue;
    const files = new Map<string, string>([
      [BUNDLE_FILES.report, JSON.stringify(report)],
      [BUNDLE_FILES.junit, '<testsuites/>'],
      [BUNDLE_FILES.html, '<p>'],
      [BUNDLE_FILES.target, JSON.stringify({ name: hostileName })],
    ]);
    for (const [name, text] of files) await writeFile(join(dir, name), text);
    const manifest: Manifest = {
      format: MANIFEST_FORMAT,
      algorithm: 'sha256',
      files: [...files].map(([path, text]) => ({ path, sha256: sha256Of(text), bytes: Buffer.byteLength(text) })),
    };
    await writeFile(join(dir, BUNDLE_FILES.manifest), JSON.stringify(manifest));
    const run = await cli(['verify-bundle', dir]);

    expect(run.code).not.toBe(0);
    expect(ciCommandsIn(run.log)).toEqual([]);
    expect(terminalControlsIn(run.log)).toEqual([]);
  });
});
