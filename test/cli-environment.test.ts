/**
 * What the command line takes from its environment: no silent fallback to the embedded server
 * where a real target was meant (CI, or credentials given), yes/no settings that mean what they
 * say in every spelling and refuse every other, and CARRIER_* variables that a command does not
 * use ignored by it (the README's `export CARRIER_CLIENT_SECRET=…` must not break `list`).
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import type { RunReport } from '../src/model/run-report.js';
import { startReferenceServer } from '../src/reference/index.js';
import { runBin, runMain, tempDir, type CliResult, restoreEnv, setEnv } from './support/harness.js';

/** A usage error: exit 2, exactly one line on stderr, nothing on stdout. */
function expectOneLine(result: CliResult, code: number, mentions: RegExp): void {
  expect(result.code).toBe(code);
  expect(result.stdout).toBe('');
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^carrier-conformance: /);
  expect(lines[0]).toMatch(mentions);
}

afterEach(restoreEnv);

/** The CI markers this machine's environment may carry, cleared for runs that must not be in CI. */
const NOT_CI = { CI: undefined, JENKINS_URL: undefined, TF_BUILD: undefined, TEAMCITY_VERSION: undefined };

describe('no base URL where a real target was meant: exit 2, never the embedded server', () => {
  it('a CI job with credentials but CARRIER_BASE_URL missing (a renamed secret) stops with one line, writes nothing', async () => {
    const reportsDir = join(await tempDir(), 'reports');
    const result = await runBin(['run', '--reports-dir', reportsDir], {
      env: { CI: 'true', CARRIER_CLIENT_ID: 'my-client', CARRIER_CLIENT_SECRET: 'a-real-secret' },
    });
    expectOneLine(
      result,
      2,
      /^carrier-conformance: no --base-url, but client credentials are given, so a real target was meant: give the API under test with --base-url \(CARRIER_BASE_URL\), or --embedded to test the built-in reference server$/,
    );
    expect(existsSync(reportsDir)).toBe(false);
  });

  it.each([
    [
      'CI=true without credentials',
      { ...NOT_CI, CI: 'true' },
      /no --base-url in a CI job \(CI=true\), where testing the built-in reference server instead would pass the gate unseen/,
    ],
    [
      'a Jenkins job',
      { ...NOT_CI, JENKINS_URL: 'https://ci.example.test/' },
      /in a CI job \(JENKINS_URL=https:\/\/ci\.example\.test\/\)/,
    ],
    ['credentials outside CI', { ...NOT_CI, CARRIER_CLIENT_SECRET: 'x' }, /client credentials are given/],
  ])('%s: exit 2', async (_what, env, message) => {
    setEnv(env);
    expectOneLine(await runMain(['run', '--reports-dir', join(await tempDir(), 'r')]), 2, message);
  });

  it('--embedded asks for the embedded server, in CI too; outside CI and without credentials it is implied', async () => {
    setEnv({ CI: 'true' });
    const asked = await runMain(['run', '--embedded', '--check', 'USER-OK', '--reports-dir', await tempDir()]);
    expect(asked.code).toBe(0);
    expect(asked.stdout).toMatch(/^Testing the embedded reference server, started at http:\/\/127\.0\.0\.1:\d+$/m);
    setEnv({ ...NOT_CI, CI: 'false' });
    expect((await runMain(['run', '--check', 'USER-OK', '--reports-dir', await tempDir()])).code).toBe(0);
  });

  it('--embedded with --base-url is a contradiction', async () => {
    expectOneLine(
      await runMain(['run', '--embedded', '--base-url', 'https://api.example.test', '--reports-dir', await tempDir()]),
      2,
      /--embedded and --base-url contradict each other/,
    );
  });
});

describe('yes/no settings: 1/0, true/false, yes/no, on/off in any case, and nothing else', () => {
  const strictOf = async (
    args: string[],
    env: Record<string, string> = {},
  ): Promise<{ result: CliResult; strict?: boolean }> => {
    setEnv({ CARRIER_STRICT: undefined, ...env });
    const reportsDir = await tempDir();
    const result = await runMain([
      'run',
      '--embedded',
      '--check',
      'TOKEN-PRAGMA',
      '--reporter',
      'json',
      '--reports-dir',
      reportsDir,
      ...args,
    ]);
    const report = await readFile(join(reportsDir, 'report.json'), 'utf8').then(
      (t) => JSON.parse(t) as RunReport,
      () => undefined,
    );
    return { result, ...(report ? { strict: report.strict } : {}) };
  };

  it.each([['1'], ['yes'], ['TRUE'], ['On']])('CARRIER_STRICT=%s runs strict', async (value) => {
    expect((await strictOf([], { CARRIER_STRICT: value })).strict).toBe(true);
  });

  it.each([
    ['--strict=yes', true],
    ['--strict=1', true],
    ['--strict=0', false],
    ['--strict', true],
    ['--no-strict', false],
  ] as const)('%s on the command line', async (flag, strict) => {
    expect((await strictOf([flag])).strict).toBe(strict);
  });

  it('refuses any other spelling with exit 2 and one line that names what was written', async () => {
    expectOneLine((await strictOf(['--strict=maybe'])).result, 2, /--strict=maybe: "maybe" is not a yes\/no value/);
    expectOneLine(
      (await strictOf([], { CARRIER_STRICT: 'maybe' })).result,
      2,
      /^carrier-conformance: CARRIER_STRICT: "maybe" is not a yes\/no value; use 1\/0, true\/false, yes\/no or on\/off$/,
    );
    const config = join(await tempDir(), 'c.json');
    await writeFile(config, JSON.stringify({ strict: 'sure' }));
    expectOneLine(
      (await strictOf(['--config', config])).result,
      2,
      /config file .*c\.json: "strict": "sure" is not a yes\/no value/,
    );
    await writeFile(config, JSON.stringify({ strict: 'Yes' }));
    const yes = await strictOf(['--config', config]);
    expect(yes.strict, yes.result.stderr).toBe(true);
  });
});

describe('CARRIER_* variables a command does not use are none of its business', () => {
  it("`list` and `serve` run with the README's exported secret, CARRIER_ACCESS_TOKEN and other commands' variables", async () => {
    const env = {
      CARRIER_CLIENT_SECRET: 'from-the-readme',
      CARRIER_ACCESS_TOKEN: 'tok',
      CARRIER_BASE_URL: 'https://api.example.test',
      CARRIER_PAGED_PATH: 'shipments',
      CARRIER_TIMEOUT: 'soon',
    };
    const list = await runBin(['list'], { env });
    expect(list.stderr).toBe('');
    expect(list.code).toBe(0);
    setEnv(env);
    let stdout = '';
    const stopped = AbortSignal.abort('test');
    const code = await main(
      ['serve', '--port', '0'],
      { out: (t) => void (stdout += t), err: (t) => void (stdout += t), color: false },
      stopped,
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(/reference server listening at http:\/\/127\.0\.0\.1:\d+/);
  });

  it('`run` ignores CARRIER_ACCESS_TOKEN, the name its own curl commands use', async () => {
    setEnv({ CARRIER_ACCESS_TOKEN: 'tok' });
    expect((await runMain(['run', '--embedded', '--check', 'USER-OK', '--reports-dir', await tempDir()])).code).toBe(0);
  });

  it('the command line stays strict', async () => {
    expectOneLine(await runMain(['list', '--client-secret', 'x']), 2, /Unknown arguments?: --client-secret/);
  });

  it('serve reads its own options from the environment, and names the variable when one is wrong', async () => {
    setEnv({ CARRIER_PORT: 'eighty' });
    expectOneLine(
      await runMain(['serve']),
      2,
      /^carrier-conformance: CARRIER_PORT: "eighty" is not a port number \(0-65535\)$/,
    );
  });
});

describe('the client secret from the environment and from a file', () => {
  it('--client-secret-file on the command line wins over an exported CARRIER_CLIENT_SECRET, as argv wins over the environment', async () => {
    const server = await startReferenceServer();
    try {
      const file = join(await tempDir(), 'secret');
      await writeFile(file, `${server.clientSecret}\n`);
      setEnv({ CARRIER_CLIENT_SECRET: 'the-one-exported-for-another-deployment' });
      const result = await runMain([
        'run',
        '--base-url',
        server.url,
        '--client-id',
        server.clientId,
        '--client-secret-file',
        file,
        '--check',
        'USER-OK',
        '--reports-dir',
        await tempDir(),
      ]);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
    } finally {
      await server.close();
    }
  });

  it('both on the command line, or both in the environment, is a conflict named as written', async () => {
    const file = join(await tempDir(), 'secret');
    await writeFile(file, 'x\n');
    const both = await runMain(['run', '--client-secret', 'x', '--client-secret-file', file]);
    expect(both.code).toBe(2);
    // The warning about a secret on the command line comes first; then the one error.
    expect(both.stderr.trimEnd().split('\n').at(-1)).toMatch(
      /^carrier-conformance: --client-secret and --client-secret-file are both given; keep one/,
    );
    setEnv({ CARRIER_CLIENT_SECRET: 'x', CARRIER_CLIENT_SECRET_FILE: file });
    expectOneLine(
      await runMain(['run']),
      2,
      /CARRIER_CLIENT_SECRET and CARRIER_CLIENT_SECRET_FILE are both set; unset one/,
    );
  });
});
