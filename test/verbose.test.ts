/**
 * --verbose (issue 32): each request as it is sent and each answer as it arrives, one line each
 * on stderr, redacted. The preflight's requests (token, /users/me) are the runner's own; a list
 * page is a worker's, whose line reaches the runner over the run's channel.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RUN_OPTION_KINDS, resolveRunOptions } from '../src/config/options.js';
import { optionsFromEnv } from '../src/core/environment.js';
import { encodeBasicCredentials, formEncode } from '../src/core/basic-credentials.js';
import { startReferenceServer, type ReferenceServer } from '../src/reference/index.js';
import { restoreEnv, runMain, setEnv, targetArgs, tempDir, type CliResult } from './support/harness.js';

const SECRET = 'Verbose-Secret+%:&= /2026';

async function run(server: ReferenceServer, extra: readonly string[]): Promise<CliResult> {
  setEnv({ CARRIER_CLIENT_SECRET: SECRET });
  return runMain([
    'run',
    ...targetArgs(server),
    '--suite',
    'pagination',
    '--reports-dir',
    await tempDir(),
    '--reporter',
    'json',
    ...extra,
  ]);
}

const VERBOSE_LINE = /^[→←] /m;

describe('--verbose', () => {
  afterEach(restoreEnv);

  it('prints a → and a ← line for each request, redacted, to stderr only; without it, none', async () => {
    const server = await startReferenceServer({ clientSecret: SECRET });
    let verbose: CliResult;
    let quiet: CliResult;
    try {
      verbose = await run(server, ['--verbose']);
      quiet = await run(server, []);
    } finally {
      await server.close();
    }
    expect(verbose.code).toBe(0);
    const lines = verbose.stderr.split('\n').filter((l) => VERBOSE_LINE.test(l));
    const base = server.url.replace(/\/$/, '').replace(/[.]/g, '\\.');
    const has = (re: RegExp): void =>
      expect(
        lines.some((l) => re.test(l)),
        `${re} in:\n${lines.join('\n')}`,
      ).toBe(true);
    has(new RegExp(`^→ POST ${base}/uaa/oauth2/token$`));
    has(new RegExp(`^← 200 POST ${base}/uaa/oauth2/token \\d+ ms$`));
    has(new RegExp(`^→ GET ${base}/users/me$`));
    has(new RegExp(`^← 200 GET ${base}/users/me \\d+ ms$`));
    has(new RegExp(`^→ GET ${base}/tenants/[0-9a-f-]{36}/shipments\\S*$`));
    has(new RegExp(`^← 200 GET ${base}/tenants/[0-9a-f-]{36}/shipments\\S* \\d+ ms$`));
    // Every line is one of the three shapes.
    for (const line of lines)
      expect(line).toMatch(/^(→ [A-Z]+ \S+|← \d{3} [A-Z]+ \S+ \d+ ms|← error [A-Z]+ \S+ : .+)$/);
    // The summary's stream keeps none of them.
    expect(verbose.stdout).not.toMatch(VERBOSE_LINE);

    const secrets = [
      SECRET,
      encodeURIComponent(SECRET),
      formEncode(SECRET),
      encodeBasicCredentials(server.clientId, SECRET),
      ...server.issuedTokens(),
    ];
    expect(server.issuedTokens().length).toBeGreaterThan(0);
    expect(
      secrets.filter((s) => verbose.stderr.includes(s) || verbose.stdout.includes(s)).map((s) => `${s.slice(0, 6)}…`),
    ).toEqual([]);

    expect(quiet.code).toBe(0);
    expect(quiet.stderr + quiet.stdout).not.toMatch(VERBOSE_LINE);
  });

  it('comes from CARRIER_VERBOSE and the config file too, off by default', () => {
    expect(
      resolveRunOptions({ argv: {}, env: optionsFromEnv(RUN_OPTION_KINDS, { CARRIER_VERBOSE: '1' }) }).verbose,
    ).toBe(true);
    expect(resolveRunOptions({ argv: {}, env: {}, config: { verbose: 'yes' } }).verbose).toBe(true);
    expect(resolveRunOptions({ argv: {}, env: {} }).verbose).toBe(false);
  });
});
