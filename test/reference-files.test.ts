/**
 * The reference files the package ships (issue 39 item 6): the reference server's test account
 * (docs/reference-expectations.json) and a sample certification profile
 * (docs/reference-profile.yaml). `serve` prints a command that names the expectations, so that
 * `serve` plus its command judges every check; the sample profile certifies the reference server.
 * If docs/openapi.yaml or the server's data change, regenerate both files as the messages say.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256Of } from '../src/certification/bundle-format.js';
import { loadProfile } from '../src/certification/profile.js';
import {
  REFERENCE_CLIENT_SECRET,
  REFERENCE_SECOND_CLIENT_SECRET,
  startReferenceServer,
} from '../src/reference/index.js';
import {
  REFERENCE_EXPECTATIONS_FILE,
  REFERENCE_OPENAPI_FILE,
  REFERENCE_PROFILE_FILE,
} from '../src/reference/seeded.js';
import { CHECKS } from '../src/catalogue/index.js';
import { BIN, runMain, tempDir } from './support/harness.js';
import { keyPair } from './support/keys.js';

const REGENERATE =
  "regenerate docs/reference-expectations.json from the reference server's `expectations` (JSON, 2 spaces) and the digests in docs/reference-profile.yaml (sha256sum)";

describe('docs/reference-expectations.json', () => {
  it("is the reference server's test account, byte for byte", async () => {
    const server = await startReferenceServer();
    try {
      expect(await readFile(REFERENCE_EXPECTATIONS_FILE, 'utf8'), REGENERATE).toBe(
        `${JSON.stringify(server.expectations, null, 2)}\n`,
      );
    } finally {
      await server.close();
    }
  });
});

describe('docs/reference-profile.yaml', () => {
  it('pins the shipped document and expectations by SHA-256, and loads', async () => {
    const loaded = loadProfile(REFERENCE_PROFILE_FILE);
    expect(loaded.profile.openapi.sha256, REGENERATE).toBe(sha256Of(await readFile(REFERENCE_OPENAPI_FILE)));
    expect(loaded.profile.expectations?.sha256, REGENERATE).toBe(sha256Of(await readFile(REFERENCE_EXPECTATIONS_FILE)));
    expect(loaded.openapiFile).toBe(REFERENCE_OPENAPI_FILE);
  });
});

/** `serve` in a child process until `body` is done; the command it printed, as arguments after `run`. */
async function serving<T>(
  args: readonly string[],
  body: (command: string[], stdout: string) => Promise<T>,
): Promise<T> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  try {
    const line = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no command printed in 15 s: ${stdout}`)), 15_000);
      child.stdout.on('data', () => {
        const m = /^ {2}npx carrier-conformance run (.*)$/m.exec(stdout);
        if (m?.[1]) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
    });
    // The printed words are plain (shellWord quotes only what needs it, and these need nothing).
    return await body(line.split(' '), stdout);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

describe('serve and the command it prints (before: ENDPOINTS NOT JUDGED, RESOURCE-EXPECTED-VALUES skipped)', () => {
  it('names the shipped expectations, and the command judges every check: CONFORMANT on all of them', async () => {
    await serving(['--token-ttl', '3'], async (command, stdout) => {
      expect(stdout).toMatch(
        /^ {2}expectations: {4}\S*docs\/reference-expectations\.json \(the test account's data\)$/m,
      );
      expect(command).toContain('--expectations');
      process.env.CARRIER_CLIENT_SECRET = REFERENCE_CLIENT_SECRET;
      process.env.CARRIER_SECOND_CLIENT_SECRET = REFERENCE_SECOND_CLIENT_SECRET;
      try {
        const result = await runMain(['run', ...command, '--reports-dir', await tempDir()]);
        expect(result.code, result.stdout).toBe(0);
        expect(result.stdout).toMatch(/^CONFORMANT {2}http:\/\/127\.0\.0\.1:\d+$/m);
        expect(result.stdout).toContain(
          `${CHECKS.length} checks: ${CHECKS.length} passed, 0 failed, 0 warnings, 0 errors, 0 skipped`,
        );
        expect(result.stdout).not.toContain('ENDPOINTS NOT JUDGED');
      } finally {
        delete process.env.CARRIER_CLIENT_SECRET;
        delete process.env.CARRIER_SECOND_CLIENT_SECRET;
      }
    });
  }, 90_000);

  it('with the sample profile, the run certifies: the bundle is CERTIFIABLE under it', async () => {
    const dir = await tempDir();
    const signer = await keyPair(dir, 'vendor');
    await serving(['--token-ttl', '3'], async (command) => {
      process.env.CARRIER_CLIENT_SECRET = REFERENCE_CLIENT_SECRET;
      process.env.CARRIER_SECOND_CLIENT_SECRET = REFERENCE_SECOND_CLIENT_SECRET;
      try {
        const bundle = join(dir, 'bundle');
        const result = await runMain([
          'run',
          ...command,
          '--profile',
          REFERENCE_PROFILE_FILE,
          '--deadline',
          '4000',
          '--bundle',
          bundle,
          '--sign-key',
          signer.privatePath,
          '--reports-dir',
          join(dir, 'reports'),
        ]);
        expect(result.code, result.stdout + result.stderr).toBe(0);
        const verified = await runMain([
          'verify-bundle',
          bundle,
          '--profile',
          REFERENCE_PROFILE_FILE,
          '--public-key',
          signer.publicPath,
        ]);
        expect([verified.code, verified.stdout.trim().split('\n').at(-1)]).toEqual([
          0,
          'CERTIFIABLE: complete, untampered (signed by the key you gave) and conformant',
        ]);
      } finally {
        delete process.env.CARRIER_CLIENT_SECRET;
        delete process.env.CARRIER_SECOND_CLIENT_SECRET;
      }
    });
  }, 90_000);
});
