/**
 * Messages that must point the right way: the help, a `serve --fault` without a name, a step
 * summary that was asked for and cannot be written, paths in a config file, and a refused run
 * that must leave nothing behind.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT_CODES_HELP } from '../src/core/exit-codes.js';
import { startReferenceServer } from '../src/reference/index.js';
import { runBin, runMain, tempDir, restoreEnv, setEnv } from './support/harness.js';

afterEach(restoreEnv);

const count = (text: string, part: string): number => text.split(part).length - 1;

describe('help', () => {
  it('prints the exit codes once, for --help, -h and run --help', async () => {
    for (const args of [['--help'], ['-h'], ['run', '--help'], ['run', '-h']]) {
      const result = await runMain(args);
      expect(result.code, args.join(' ')).toBe(0);
      expect(count(result.stdout, EXIT_CODES_HELP), args.join(' ')).toBe(1);
      expect(result.stdout).toContain('--require-complete');
    }
  });
});

describe('serve', () => {
  it.each([['--fault'], ['--variant']])(
    '%s without a name is exit 2 naming the choices, not a server without it',
    async (flag) => {
      const result = await runMain(['serve', '--port', '0', flag]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(
        new RegExp(
          `^carrier-conformance: ${flag} needs the name of a ${flag.slice(2)}; the ${flag.slice(2)}s are: [a-z0-9-]+, `,
        ),
      );
    },
  );
});

describe('the GitHub step summary', () => {
  it('--reporter github-summary without GITHUB_STEP_SUMMARY says that nothing was written', async () => {
    setEnv({ GITHUB_STEP_SUMMARY: undefined });
    const result = await runMain([
      'run',
      '--embedded',
      '--check',
      'USER-OK',
      '--reporter',
      'github-summary',
      '--reports-dir',
      await tempDir(),
    ]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      'warning: --reporter github-summary: GITHUB_STEP_SUMMARY is not set (GitHub Actions sets it in every job), so no step summary was written\n',
    );
  });

  it('a step summary that cannot be written is a warning naming it: the console summary, the reports and the exit code stay', async () => {
    const notAFile = await tempDir();
    const reportsDir = await tempDir();
    setEnv({ GITHUB_STEP_SUMMARY: notAFile });
    const result = await runMain(['run', '--embedded', '--check', 'USER-OK', '--reports-dir', reportsDir]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^CONFORMANT ON 1 OF \d+ CHECKS {2}http/m);
    expect(result.stdout).toContain(
      `Reports: ${join(reportsDir, 'junit.xml')}, ${join(reportsDir, 'report.json')}, ${join(reportsDir, 'report.html')}\n`,
    );
    expect(result.stderr).toMatch(
      new RegExp(
        `^warning: cannot append the step summary to GITHUB_STEP_SUMMARY \\(${notAFile}\\): EISDIR: .*; the other reports hold the same\\n$`,
      ),
    );
    expect(result.stderr).not.toContain('reports directory');
  });
});

describe('a config file', () => {
  it('names files relative to itself, not to the directory the harness runs in', async () => {
    const server = await startReferenceServer();
    try {
      const dir = await tempDir();
      await mkdir(join(dir, 'ci'));
      await writeFile(join(dir, 'ci', 'expectations.json'), JSON.stringify(server.expectations));
      await writeFile(join(dir, 'ci', 'secret.txt'), `${server.clientSecret}\n`);
      await writeFile(
        join(dir, 'ci', 'carrier.json'),
        JSON.stringify({
          baseUrl: server.url,
          clientId: server.clientId,
          clientSecretFile: 'secret.txt',
          expectations: 'expectations.json',
          check: ['USER-EXPECTED-VALUES'],
          reportsDir: 'reports',
        }),
      );
      const elsewhere = await tempDir();
      const result = await runBin(['run', '--config', join(dir, 'ci', 'carrier.json')], { cwd: elsewhere });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(existsSync(join(dir, 'ci', 'reports', 'report.json'))).toBe(true);
      expect(JSON.parse(await readFile(join(dir, 'ci', 'reports', 'report.json'), 'utf8'))).toMatchObject({
        checks: [{ id: 'USER-EXPECTED-VALUES', status: 'passed' }],
      });
    } finally {
      await server.close();
    }
  });
});

describe('a run refused for bad input leaves nothing behind', () => {
  it.each([
    [
      'a missing expectations file',
      ['--embedded', '--expectations', '/nonexistent/expectations.json'],
      /expectations file/,
    ],
    ['a missing CA file', ['--embedded', '--ca-file', '/nonexistent/ca.pem'], /--ca-file/],
    ['no base URL in CI', [], /no --base-url in a CI job/],
    [
      'a subset with --require-complete',
      ['--embedded', '--require-complete', '--suite', 'token'],
      /--require-complete/,
    ],
  ])('%s: exit 2, and no reports directory created', async (_what, args, message) => {
    setEnv({ CI: 'true' });
    const reportsDir = join(await tempDir(), 'new', 'reports');
    const result = await runMain(['run', '--reports-dir', reportsDir, ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(existsSync(join(reportsDir, '..'))).toBe(false);
  });
});

describe('an error in an environment variable names the variable', () => {
  it.each([
    ['CARRIER_TENANT_ID', '42', /^carrier-conformance: CARRIER_TENANT_ID: "42" is not a UUID/],
    ['CARRIER_SUITE', 'tokens', /^carrier-conformance: CARRIER_SUITE: unknown suite "tokens"/],
    ['CARRIER_BASE_URL', 'ftp://x', /^carrier-conformance: CARRIER_BASE_URL: "ftp:\/\/x" is not an http\(s\) URL/],
  ])('%s=%s', async (name, value, message) => {
    setEnv({ [name]: value });
    const result = await runMain(['run', '--embedded']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});
