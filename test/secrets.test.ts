/**
 * No secret ever reaches an output. The whole battery runs against a server with faults (so that
 * failing exchanges are written into every report), with every reporter on, and then the console
 * output, every file of the reports directory and the GitHub step summary are searched for the
 * client secret in every spelling, the Basic credentials, and every token the server issued.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeBasicCredentials, formEncode } from '../src/core/basic-credentials.js';
import { startReferenceServer, type ReferenceOptions, type ReferenceServer } from '../src/reference/index.js';
import { runMain, targetArgs, tempDir, type CliResult } from './support/harness.js';
import { forward, type ForwardedHeaders } from './support/hostile.js';
import { onLoopback } from './support/loopback.js';

// Every character RFC 6749 §2.3.1 form-encoding changes, within RFC 6749 Appendix A.2 (printable ASCII).
const SECRET = 'Leak-Check+%:&= /"\\2026';
/** A refresh token the refresh-token-issued fault hands out (src/reference/faults.ts). */
const REFRESH_TOKEN = 'rt-a9f3c1e07b2d4e6f';

function spellings(secret: string, clientId: string): string[] {
  return [
    secret,
    encodeURIComponent(secret),
    formEncode(secret),
    JSON.stringify(secret).slice(1, -1),
    encodeBasicCredentials(clientId, secret),
    Buffer.from(`${clientId}:${secret}`).toString('base64'),
  ];
}

/**
 * A run against a reference server with `faults` and every reporter on, SECRET its client
 * secret, and everything it wrote: the console, the step summary and each file of its reports
 * directory, by name.
 */
async function runWritingEverything(
  options: ReferenceOptions,
  args: readonly string[] = [],
): Promise<{ result: CliResult; server: ReferenceServer; outputs: [string, string][] }> {
  const server = await startReferenceServer({ ...options, clientSecret: SECRET });
  const reportsDir = await tempDir();
  const summary = join(await tempDir(), 'step-summary.md');
  await writeFile(summary, '');
  process.env.CARRIER_CLIENT_SECRET = SECRET;
  process.env.GITHUB_STEP_SUMMARY = summary;
  let result;
  try {
    result = await runMain(['run', ...targetArgs(server), '--reports-dir', reportsDir, ...args]);
  } finally {
    delete process.env.CARRIER_CLIENT_SECRET;
    delete process.env.GITHUB_STEP_SUMMARY;
    await server.close();
  }
  const outputs: [string, string][] = [
    ['console', result.stdout + result.stderr],
    ['step summary', await readFile(summary, 'utf8')],
    ...(await Promise.all(
      (
        await readdir(reportsDir)
      ).map(async (f): Promise<[string, string]> => [f, await readFile(join(reportsDir, f), 'utf8')]),
    )),
  ];
  return { result, server, outputs };
}

describe('secrets', () => {
  it('never reach the console, the reports or the step summary, even in failing exchanges', async () => {
    const { result, server, outputs } = await runWritingEverything({
      tokenTtlSeconds: 2,
      faults: [
        'wrong-secret-accepted',
        'refresh-token-issued',
        'missing-auth-accepted',
        'user-email-omitted',
        'pages-lose-items',
        'token-type-mac',
        'legacy-redirect',
        'tokens-never-expire',
      ],
    });
    const tokens = server.issuedTokens();
    const needles = [...spellings(SECRET, server.clientId), ...tokens, REFRESH_TOKEN];

    // The run did fail, and wrote its failing exchanges: the search had something to search.
    expect(result.code).toBe(1);
    expect(tokens.length).toBeGreaterThan(10);
    expect(outputs.map(([name]) => name).sort()).toEqual([
      'console',
      'junit.xml',
      'report.html',
      'report.json',
      'step summary',
    ]);
    expect(outputs.find(([name]) => name === 'junit.xml')?.[1]).toMatch(
      /\[REDACTED:(access-token|basic-credentials)\]/,
    );
    const leaks = outputs.flatMap(([name, text]) =>
      needles.filter((n) => text.includes(n)).map((n) => `${name}: ${n.slice(0, 6)}…`),
    );
    expect(leaks).toEqual([]);
  });
});

describe('client_secret_post found in the preflight (issue 38): the secret in the form body', () => {
  // A token endpoint that ignores HTTP Basic: the run sends the secret in the form body, records
  // that exchange (TOKEN-ISSUE shows it, TOKEN-TYPE cites it), and every output must hold it redacted.
  it('never reaches the console, the reports or the step summary', async () => {
    const { result, server, outputs } = await runWritingEverything(
      { faults: ['basic-auth-ignored', 'token-type-mac'] },
      ['--suite', 'token', '--suite', 'user', '--verbose'],
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/warning: the token endpoint refused the client credentials in HTTP Basic/);
    // The form body with the secret was written, redacted, into every report: the search had something to search.
    for (const name of ['report.json', 'report.html', 'junit.xml'])
      expect(outputs.find(([n]) => n === name)?.[1], name).toMatch(/client_secret=\[REDACTED/);
    const needles = [...spellings(SECRET, server.clientId), ...server.issuedTokens()];
    const leaks = outputs.flatMap(([name, text]) =>
      needles.filter((n) => text.includes(n)).map((n) => `${name}: ${n.slice(0, 6)}…`),
    );
    expect(leaks).toEqual([]);
  });
});

describe('credentials derived from the secret, echoed back by a target', () => {
  // TOKEN-WRONG-SECRET sends the secret plus "-wrong"; a gateway that echoes Authorization in
  // another field puts its Basic value in the recorded exchange. Two lengths, so that the suffix
  // falls off a 3-byte boundary of the Base64 in at least one of them.
  it.each(['ref secret+%:&=/20267', 'ref secret+%:&=/202678'])(
    '%j: neither the secret nor the derived Basic value reaches the console or a report',
    async (secret) => {
      const server = await startReferenceServer({ clientSecret: secret, faults: ['wrong-secret-accepted'] });
      const front = createServer((req, res) => {
        const echo = (headers: ForwardedHeaders): void =>
          void (headers['x-echo-authorization'] = req.headers.authorization ?? '');
        forward(server.url, req, res, echo).catch(() => res.destroy());
      });
      await onLoopback(front);
      const reportsDir = await tempDir();
      process.env.CARRIER_CLIENT_SECRET = secret;
      let result;
      try {
        const args = targetArgs(server).map((a) =>
          a === server.url ? `http://127.0.0.1:${(front.address() as AddressInfo).port}` : a,
        );
        result = await runMain([
          'run',
          ...args,
          '--suite',
          'token',
          '--reports-dir',
          reportsDir,
          '--reporter',
          'junit',
          '--reporter',
          'json',
          '--reporter',
          'html',
        ]);
      } finally {
        delete process.env.CARRIER_CLIENT_SECRET;
        front.closeAllConnections();
        front.close();
        await server.close();
      }
      const outputs: [string, string][] = [
        ['console', result.stdout + result.stderr],
        ...(await Promise.all(
          (
            await readdir(reportsDir)
          ).map(async (f): Promise<[string, string]> => [f, await readFile(join(reportsDir, f), 'utf8')]),
        )),
      ];
      const wrong = `${secret}-wrong`;
      const needles = [
        ...spellings(secret, server.clientId),
        encodeBasicCredentials(server.clientId, wrong),
        Buffer.from(`${server.clientId}:${wrong}`).toString('base64'),
      ];
      expect(result.code).toBe(1);
      // The echo is in the report (redacted): the search had something to search.
      expect(outputs.find(([name]) => name === 'report.json')?.[1]).toContain('x-echo-authorization');
      const leaks = outputs.flatMap(([name, text]) =>
        needles.filter((n) => text.includes(n)).map((n) => `${name}: ${n.slice(0, 6)}…`),
      );
      expect(leaks).toEqual([]);
    },
  );
});

describe('--client-secret-file', () => {
  it('reads the secret from a file (the trailing newline is not part of it)', async () => {
    const server = await startReferenceServer();
    const file = join(await tempDir(), 'secret');
    await writeFile(file, `${server.clientSecret}\n`);
    try {
      const result = await runMain([
        'run',
        ...targetArgs(server),
        '--client-secret-file',
        file,
        '--check',
        'TOKEN-ISSUE',
        '--reports-dir',
        await tempDir(),
      ]);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
    } finally {
      await server.close();
    }
  });

  it.each([
    ['an empty file', '', [] as string[], /--client-secret-file .*: the file is empty; put the client secret in it/],
    [
      'a file and --client-secret',
      'x',
      ['--client-secret', 'y'],
      /--client-secret and --client-secret-file are both given/,
    ],
  ])('refuses %s with exit 2', async (_what, content, extra, message) => {
    const file = join(await tempDir(), 'secret');
    await writeFile(file, content);
    const result = await runMain([
      'run',
      '--base-url',
      'http://127.0.0.1:9',
      '--client-id',
      'x',
      '--client-secret-file',
      file,
      ...extra,
      '--reports-dir',
      await tempDir(),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});
