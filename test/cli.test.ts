/**
 * The command line end to end: the real executable (built into dist/ by `npm test`), its
 * commands, its exit codes and its one-line errors.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../src/catalogue/index.js';
import { closest } from '../src/cli/main.js';
import type { RunReport } from '../src/model/run-report.js';
import { startReferenceServer } from '../src/reference/index.js';
import { loadXsd, validateAgainst, XSD_FILES } from './fixtures/report/xml.js';
import { BIN, freePort, runBin, runMain, targetArgs, tempDir } from './support/harness.js';

/** A usage error: exit 2, exactly one line on stderr, no stack trace. */
function expectUsageError(result: { code: number; stderr: string }, mentions: RegExp): void {
  expect(result.code).toBe(2);
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^carrier-conformance: /);
  expect(lines[0]).toMatch(mentions);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

describe('carrier-conformance run (no --base-url, on a developer machine): the whole battery against the embedded reference server', () => {
  it('passes every check, skips none, exits 0 and writes JUnit that both XSDs accept', async () => {
    const reportsDir = await tempDir();
    // Outside CI (CI unset, as in a developer's terminal): the embedded server needs no --embedded there.
    const result = await runBin(['run', '--reports-dir', reportsDir], { env: { CI: '' } });

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Testing the embedded reference server, started at http:\/\/127\.0\.0\.1:\d+/);
    expect(result.stdout).toMatch(/^CONFORMANT {2}http:/m);
    expect(result.stdout).toMatch(
      new RegExp(`${CHECKS.length} checks: ${CHECKS.length} passed, 0 failed, 0 warnings, 0 errors, 0 skipped`),
    );

    const report = JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
    expect(report.verdict).toBe('conformant');
    expect(report.checks.map((c) => c.id)).toEqual(CHECKS.map((c) => c.id));
    expect(report.checks.filter((c) => c.status !== 'passed')).toEqual([]);

    const junit = await readFile(join(reportsDir, 'junit.xml'), 'utf8');
    for (const xsd of XSD_FILES)
      expect(await validateAgainst(junit, await loadXsd(xsd))).toEqual({ valid: true, errors: [] });
  });
});

describe('--reporter +har: the HAR file added, the reports a CI step reads kept', () => {
  it('writes report.har beside junit.xml, report.json and report.html', async () => {
    const reportsDir = await tempDir();
    const result = await runBin([
      'run',
      '--embedded',
      '--suite',
      'user',
      '--reporter',
      '+har',
      '--reports-dir',
      reportsDir,
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `Reports: ${['junit.xml', 'report.json', 'report.html', 'report.har'].map((f) => join(reportsDir, f)).join(', ')}`,
    );
  });
});

describe('closest: the option a mistyped one was meant to be', () => {
  const known = ['--concurrency', '--config', '--suite', '--strict', '--port'];
  it.each([
    ['--concurency', '--concurrency'],
    ['--sutie', '--suite'],
    ['--strikt', '--strict'],
    ['--confg', '--config'],
    ['--prot', '--port'],
  ])('%s: %s', (typed, meant) => {
    expect(closest(typed, known)).toBe(meant);
  });

  // Issue 32: a name that differs only in case is that name, however short (config keys, check ids).
  it.each([
    ['clientID', ['clientId', 'clientSecret'], 'clientId'],
    ['pagedPaths', ['pagedPath', 'maxPages'], 'pagedPath'],
    ['page-walk', ['PAGE-WALK', 'PAGE-ECHO'], 'PAGE-WALK'],
    ['PAGE-WALKK', ['PAGE-WALK', 'PAGE-ECHO'], 'PAGE-WALK'],
    ['--Suite', ['--suite', '--strict'], '--suite'],
  ])('%s: %s', (typed, names, meant) => {
    expect(closest(typed, names)).toBe(meant);
  });

  it.each(['--bogus-option', '--x', '--cfg', '--concurrencyyyy'])(
    '%s: none (too far, or too short to tell)',
    (typed) => {
      expect(closest(typed, known)).toBeUndefined();
    },
  );

  const commands = ['run', 'list', 'diff', 'matrix', 'verify-bundle', 'serve'];
  it.each([
    ['rnu', 'run'],
    ['lsit', 'list'],
    ['dif', 'diff'],
    ['serv', 'serve'],
    ['matirx', 'matrix'],
    ['verify-bundel', 'verify-bundle'],
  ])('command %s: %s', (typed, meant) => {
    expect(closest(typed, commands)).toBe(meant);
  });

  it.each(['rn', 'xyz', 'verify', 'runs-all'])('command %s: none', (typed) => {
    expect(closest(typed, commands)).toBeUndefined();
  });
});

describe('carrier-conformance list', () => {
  it('prints every check with its id, level and spec reference', async () => {
    const result = await runMain(['list']);
    expect(result.code).toBe(0);
    for (const check of CHECKS) {
      expect(result.stdout).toContain(check.id);
      expect(result.stdout).toContain(check.refs.join('; '));
    }
  });

  it('prints the catalogue as JSON with --json', async () => {
    const result = await runMain(['list', '--json']);
    expect(JSON.parse(result.stdout)).toEqual(CHECKS);
  });
});

describe('help', () => {
  it('documents the exit codes', async () => {
    const result = await runMain(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /Exit codes:\s+0 {2}every required check that was carried out passed.*\s+1 .*failed.*\s+2 {2}usage or configuration error \(credentials refused, 404 at the token endpoint\)\s+3 {2}the run could not be carried out/s,
    );
    expect(result.stdout).toContain('--base-url');
  });
});

describe('bad input: exit 2 with one line that names the problem', () => {
  it.each([
    [['run', '--base-url', 'ftp://example.com'], /--base-url: "ftp:\/\/example.com" is not an http\(s\) URL/],
    [['run', '--suite', 'tokens'], /--suite: unknown suite "tokens"; the suites are token, expiry/],
    [['run', '--check', 'TOKEN-NOPE'], /--check: unknown check id "TOKEN-NOPE"; `carrier-conformance list`/],
    [['run', '--tenant-id', '42'], /--tenant-id: "42" is not a UUID/],
    [['run', '--timeout', '-5'], /--timeout: must be greater than 0/],
    // A numeric option without its value is not the default.
    [['run', '--timeout'], /^carrier-conformance: --timeout: needs a number after it \(see --help\)$/m],
    [['run', '--concurrency', '--strict'], /--concurrency: needs a number after it/],
    [['serve', '--port'], /--port: needs a number after it/],
    [['run', '--timeout', '5000', '--timeout', '6000'], /--timeout is given more than once; give it once/],
    [['run', '--reports-dir', 'a', '--reports-dir', 'b'], /--reports-dir is given more than once; give it once/],
    [['run', '--bogus-option'], /Unknown argument: --bogus-option \(see --help\)$/],
    [['run', '--bogus-option=3'], /Unknown argument: --bogus-option \(see --help\)$/],
    [['run', '-q'], /Unknown argument: -q \(see --help\)$/],
    // A typo of a known option names it (its own command's: `list` has --json, `run` does not).
    [
      ['run', '--concurency', '4'],
      /^carrier-conformance: Unknown argument: --concurency \(did you mean --concurrency\?\) \(see --help\)$/m,
    ],
    [['run', '--reprts-dir', 'x'], /Unknown argument: --reprts-dir \(did you mean --reports-dir\?\) \(see --help\)$/],
    [['list', '--jsn'], /Unknown argument: --jsn \(did you mean --json\?\) \(see --help\)$/],
    [['run', '--jsn'], /Unknown argument: --jsn \(see --help\)$/],
    [['frobnicate'], /Unknown argument: frobnicate \(see --help\)$/],
    // A typo of a command where the command goes names it; the same word elsewhere does not.
    [['rnu', '--embedded'], /^carrier-conformance: Unknown argument: rnu \(did you mean run\?\) \(see --help\)$/m],
    [['lsit'], /Unknown argument: lsit \(did you mean list\?\) \(see --help\)$/],
    [['run', 'lsit'], /Unknown argument: lsit \(see --help\)$/],
    [['run', 'extra-word'], /Unknown argument: extra-word/],
    [
      ['run', '--config', '/nonexistent/config.json'],
      /config file \/nonexistent\/config.json: cannot read it \(no such file\)/,
    ],
    [
      ['run', '--base-url', 'https://api.example.com', '--client-id', 'x'],
      /--client-secret is missing: set CARRIER_CLIENT_SECRET/,
    ],
    [
      ['run', '--embedded', '--expectations', '/nonexistent.json'],
      /expectations file \/nonexistent.json: cannot read it/,
    ],
  ])('%j', async (args, mentions) => {
    expectUsageError(await runMain(args), mentions);
  });

  it('reads options from CARRIER_* variables and names the option when one is wrong', async () => {
    const result = await runBin(['run'], { env: { CARRIER_TIMEOUT: 'soon' } });
    expectUsageError(result, /^carrier-conformance: CARRIER_TIMEOUT: must be a number/);
  });

  it('checks a --config file field by field', async () => {
    const dir = await tempDir();
    const path = join(dir, 'config.json');
    await import('node:fs/promises').then((fs) =>
      fs.writeFile(path, JSON.stringify({ baseUrl: 'https://api.example.com', timeout: 'soon' })),
    );
    expectUsageError(
      await runMain(['run', '--config', path]),
      /config file .*config.json: "timeout": must be a number/,
    );
  });
});

describe('a target that cannot be reached', () => {
  it('ends with exit 3 and one clear line, and still writes a report marked incomplete', async () => {
    const port = await freePort();
    const reportsDir = await tempDir();
    const result = await runBin(
      ['run', '--base-url', `http://127.0.0.1:${port}`, '--client-id', 'someone', '--reports-dir', reportsDir],
      { env: { CARRIER_CLIENT_SECRET: 'not-a-real-secret' } },
    );

    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/cannot reach the token endpoint at http:\/\/127\.0\.0\.1:\d+: connection refused/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    const report = JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
    expect(report.verdict).toBe('incomplete');
    expect(report.exitCode).toBe(3);
  });
});

describe('a battery whose worker thread cannot start', () => {
  it("ends with exit 3 and a line that gives Node's reason, not an internal error or a stack trace", async () => {
    const reportsDir = await tempDir();
    // Node hands its own options to worker threads, and refuses this one there without its value
    // (written as two words): Vitest's worker never starts.
    const result = await runBin(['run', '--embedded', '--suite', 'user', '--reports-dir', reportsDir], {
      nodeArgs: ['--cpu-prof-interval', '1000'],
      env: { CARRIER_DEBUG: '' },
    });

    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(
      /^error: the battery hit an unexpected error: .*Failed to start carrier-threads worker.*invalid execArgv flags: --cpu-prof-interval requires an argument$/m,
    );
    expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
    const report = JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
    expect(report.verdict).toBe('incomplete');
    expect(report.checks.filter((c) => c.suite === 'user').map((c) => c.status)).toEqual([
      'error',
      'error',
      'error',
      'error',
    ]);
  });
});

describe('a run under Node options for V8', () => {
  // `node --max-old-space-size=… carrier-conformance` for a big run: Node refuses V8's options
  // when they are handed to a thread explicitly, and the run ended with exit 3.
  it('runs the battery, its OpenAPI thread inheriting the option', async () => {
    const reportsDir = await tempDir();
    const result = await runBin(['run', '--embedded', '--suite', 'user', '--reports-dir', reportsDir], {
      nodeArgs: ['--max-old-space-size=512'],
    });

    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/4 checks: 4 passed/);
  });

  it('runs it from a string entry too, the document read on the main thread when Node refuses the thread its options', async () => {
    const reportsDir = await tempDir();
    const script = `process.argv.splice(1, 0, ${JSON.stringify(BIN)}); await import(${JSON.stringify(BIN)});`;
    const args = [
      '--max-old-space-size=512',
      '--input-type=module',
      '-e',
      script,
      'run',
      '--embedded',
      '--suite',
      'user',
      '--reports-dir',
      reportsDir,
    ];
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
      (resolve) => {
        const child = spawn(process.execPath, args, { env: { ...process.env, NO_COLOR: '1' } });
        let out = '';
        let err = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        child.on('close', (c) => resolve({ code: c, stdout: out, stderr: err }));
      },
    );

    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/4 checks: 4 passed/);
  });
});

describe('options from a config file and the environment', () => {
  it('runs against the target a --config file names, with the secret from CARRIER_CLIENT_SECRET', async () => {
    const server = await startReferenceServer();
    try {
      const dir = await tempDir();
      const config = join(dir, 'carrier.json');
      await import('node:fs/promises').then((fs) =>
        fs.writeFile(
          config,
          JSON.stringify({ 'base-url': server.url, clientId: server.clientId, suite: ['user'], reportsDir: dir }),
        ),
      );
      const result = await runBin(['run', '--config', config], { env: { CARRIER_CLIENT_SECRET: server.clientSecret } });
      expect(result.code, result.stderr + result.stdout).toBe(0);
      expect(result.stdout).toMatch(/4 checks: 3 passed, 0 failed, 0 warnings, 0 errors, 1 skipped/);
    } finally {
      await server.close();
    }
  });

  it('warns when the secret is typed on the command line', async () => {
    const server = await startReferenceServer();
    try {
      const result = await runMain([
        'run',
        ...targetArgs(server),
        '--client-secret',
        server.clientSecret,
        '--check',
        'USER-OK',
        '--reports-dir',
        await tempDir(),
      ]);
      expect(result.code).toBe(0);
      expect(result.stderr).toMatch(/warning: --client-secret on the command line is visible to other users/);
    } finally {
      await server.close();
    }
  });
});

describe('carrier-conformance serve', () => {
  it('serves the reference API until SIGTERM and never prints the client secret', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--token-ttl', '7'], {
      env: { ...process.env, CARRIER_CLIENT_SECRET: 'serve-secret-xyz' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      // A child that fails says how at once (it has failed once under a full run's load, silently).
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no URL printed in 15 s; stdout: ${stdout}; stderr: ${stderr}`)),
          15_000,
        );
        void exited.then((code) => {
          clearTimeout(timer);
          reject(new Error(`serve exited ${code} before printing its URL; stdout: ${stdout}; stderr: ${stderr}`));
        });
        child.stdout.on('data', () => {
          const m = /listening at (http:\/\/\S+)/.exec(stdout);
          if (m?.[1]) {
            clearTimeout(timer);
            resolve(m[1]);
          }
        });
      });
      const res = await fetch(`${url}/uaa/oauth2/token`, {
        method: 'POST',
        headers: {
          'Accept-Version': '1',
          'Content-Type': 'application/x-www-form-urlencoded',
          Authorization: `Basic ${Buffer.from('conformance-client:serve-secret-xyz').toString('base64')}`,
        },
        body: 'grant_type=client_credentials',
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { expires_in: number }).expires_in).toBe(7);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(stdout).toContain('reference server stopped');
    expect(stdout).not.toContain('serve-secret-xyz');
  });
});

describe('bad input that only shows once the run starts', () => {
  it('refuses an unwritable --reports-dir before running anything', async () => {
    const dir = await tempDir();
    const file = join(dir, 'a-file');
    await import('node:fs/promises').then((fs) => fs.writeFile(file, 'x'));
    expectUsageError(
      await runMain(['run', '--embedded', '--reports-dir', join(file, 'reports')]),
      /--reports-dir .*a-file\/reports: cannot write reports there \(ENOTDIR\); choose a writable directory/,
    );
  });

  it.each([
    ['invalid JSON', '{"user": ', /expectations file .*: not valid JSON/],
    [
      'an unknown key',
      '{"users": {}}',
      /expectations file .*: the file: unknown key users; "user" and "resources" are known/,
    ],
  ])('refuses an expectations file with %s', async (_what, content, message) => {
    const path = join(await tempDir(), 'expectations.json');
    await import('node:fs/promises').then((fs) => fs.writeFile(path, content));
    expectUsageError(await runMain(['run', '--embedded', '--expectations', path]), message);
  });

  it('refuses an invalid config file', async () => {
    const path = join(await tempDir(), 'config.json');
    await import('node:fs/promises').then((fs) => fs.writeFile(path, '{not json'));
    expectUsageError(await runMain(['run', '--config', path]), /config file .*: not valid JSON/);
  });
});
