/**
 * Certification profiles (issue 31): the platform's file that pins what a certifying run must use
 * and prove. `run --profile` applies it and refuses what contradicts it; `verify-bundle --profile`
 * proves each of its items from the bundle, or lists what it does not prove. Runs of the
 * reference server on loopback, as a vendor's would be, and bundles gamed the ways issue 31 found.
 */
import { spawn } from 'node:child_process';
import type { KeyObject } from 'node:crypto';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { MANIFESTED, sha256Of } from '../src/certification/bundle-format.js';
import { keyFingerprint } from '../src/bundle/keys.js';
import { sealBundle } from '../src/bundle/write.js';
import { currentCatalogue } from '../src/catalogue/digest.js';
import { addressKind, hostKind } from '../src/certification/targets.js';
import { reportExpiryWait } from '../src/runner/expiry-progress.js';
import { startReferenceServer } from '../src/reference/index.js';
import { REFERENCE_OPENAPI_FILE } from '../src/reference/seeded.js';
import type { RunReport } from '../src/model/run-report.js';
import { renderHtmlReport } from '../src/report/html.js';
import { parseRunReport } from '../src/report/read.js';
import { BIN, runAgainst, runBin, runMain, tempDir, type HarnessResult } from './support/harness.js';
import { referenceExpectations } from './support/reports.js';
import { keyPair, type Keys } from './support/keys.js';

const ENDPOINTS = ['shipments', 'shipments/{shipmentId}', 'invoices', 'invoices/{invoiceId}', 'settings'];

let dir: string;
let expectations: string;
let signer: Keys;
let stranger: Keys;
let openapiSha: string;
/** A profile that allows loopback (the test servers are all there), and the same without it. */
let loopbackProfile: string;
let publicOnlyProfile: string;
/** The vendor's copy of the document, without GET /tenants/{tenantId}/invoices/{invoiceId}. */
let reduced: string;

async function writeProfile(name: string, extra: Record<string, unknown>): Promise<string> {
  const path = join(dir, name);
  const profile = {
    format: 'carrier-conformance-profile/1',
    name: 'Carrier Platform certification',
    openapi: { sha256: openapiSha },
    endpoints: ENDPOINTS,
    expectations: { sha256: sha256Of(await readFile(expectations)) },
    catalogue: currentCatalogue().digest,
    requireComplete: true,
    expiryProven: true,
    minMaxExpiryWait: 10,
    ...extra,
  };
  await writeFile(path, JSON.stringify(profile, null, 2));
  return path;
}

beforeAll(async () => {
  dir = await tempDir('carrier-certification-');
  expectations = await referenceExpectations(dir);
  signer = await keyPair(dir, 'signer');
  stranger = await keyPair(dir, 'stranger');
  const document = await readFile(REFERENCE_OPENAPI_FILE, 'utf8');
  openapiSha = sha256Of(document);
  loopbackProfile = await writeProfile('profile-loopback.json', { allowTargets: ['loopback'] });
  publicOnlyProfile = await writeProfile('profile.json', {});
  reduced = join(dir, 'vendor-openapi.yaml');
  const cut = document.replace(/^ {2}\/tenants\/\{tenantId\}\/invoices\/\{invoiceId\}:\n(?: {4,}.*\n|\n)*/m, '');
  expect(cut).not.toBe(document);
  await writeFile(reduced, cut);
});

async function certifyingRun(
  name: string,
  profile: string | undefined,
  args: readonly string[] = [],
  variants: string[] = [],
): Promise<HarnessResult & { bundle: string }> {
  const bundle = join(dir, name);
  const run = await runAgainst({ tokenTtlSeconds: 2, variants }, [
    '--expectations',
    expectations,
    '--target-name',
    'Globex Carrier',
    '--target-version',
    '1.0.0',
    '--bundle',
    bundle,
    '--sign-key',
    signer.privatePath,
    ...(profile !== undefined ? ['--profile', profile] : []),
    ...args,
  ]);
  return { ...run, bundle };
}

async function verify(
  bundle: string,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string; fails: string[] }> {
  const result = await runMain(['verify-bundle', bundle, ...args]);
  const fails = result.stdout
    .split('\n')
    .filter((l) => l.startsWith('  FAIL  '))
    .map((l) => l.slice(8));
  return { ...result, fails };
}

/** A forger's copy: files as they are, manifest recomputed, unsigned or signed with `signWith`. */
async function forge(from: string, to: string, signWith?: KeyObject): Promise<string> {
  if (from !== to) await cp(from, to, { recursive: true });
  const files = await Promise.all(
    MANIFESTED.map(async (path) => [path, await readFile(join(to, path), 'utf8')] as const),
  );
  await sealBundle(to, files, signWith);
  return to;
}

describe('a genuine bundle made under the profile', () => {
  let genuine: Awaited<ReturnType<typeof certifyingRun>>;
  beforeAll(async () => {
    genuine = await certifyingRun('genuine', loopbackProfile);
  }, 90_000);

  it('the run applies the profile (--require-complete, the least --max-expiry-wait) and the bundle records it', async () => {
    expect(genuine.code, genuine.stdout + genuine.stderr).toBe(0);
    expect(genuine.report.scope?.requireComplete).toBe(true);
    const target = JSON.parse(await readFile(join(genuine.bundle, 'target.json'), 'utf8')) as {
      certification: unknown;
      options: { maxExpiryWait: number; openapi: unknown };
      target: { hosts: unknown };
    };
    expect(target.certification).toEqual({
      profile: {
        file: 'profile-loopback.json',
        sha256: sha256Of(await readFile(loopbackProfile)),
        name: 'Carrier Platform certification',
      },
    });
    expect(target.options.maxExpiryWait).toBe(60); // the default, above the profile's 10
    expect(target.options.openapi).toEqual({ file: 'openapi.yaml', sha256: openapiSha });
    expect(target.target.hosts).toEqual([
      { host: '127.0.0.1', addresses: [{ address: '127.0.0.1', kind: 'loopback' }] },
    ]);
    // The run's last lines say what the platform's verify-bundle will (issue 39 item 4).
    expect(genuine.stdout).toContain(
      `  under the profile ${loopbackProfile}: this bundle will verify (with the public key of the key that signed it)\n`,
    );
  });

  it("a run under the profile whose bundle will not verify says so in its last lines, and why (before: only the platform's verify-bundle, an hour later)", async () => {
    const bundle = join(dir, 'will-not-verify');
    const run = await runAgainst({ tokenTtlSeconds: 2, faults: ['version-ignored-on-single-invoice'] }, [
      '--expectations',
      expectations,
      '--target-name',
      'Globex Carrier',
      '--bundle',
      bundle,
      '--sign-key',
      signer.privatePath,
      '--profile',
      loopbackProfile,
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      `  under the profile ${loopbackProfile}: this bundle will NOT verify, because:\n    MUST VERSION-MISSING: failed: `,
    );
  }, 60_000);

  it('verify-bundle --profile --public-key: every item proven, exit 0', async () => {
    const result = await verify(genuine.bundle, '--profile', loopbackProfile, '--public-key', signer.publicPath);
    expect([result.code, result.fails]).toEqual([0, []]);
    expect(result.stdout).toContain(
      `  ok    profile: made under ${loopbackProfile} (Carrier Platform certification), sha256 ${sha256Of(await readFile(loopbackProfile)).slice(0, 16)}…`,
    );
    expect(result.stdout).toContain(
      `  ok    endpoints: each of the profile's 5 endpoints was judged by the checks, none skipped`,
    );
    expect(result.stdout).toContain('  ok    EXPIRY-*: every expiry check passed (the profile requires expiry proven)');
    expect(result.stdout).toContain('  ok    target: loopback, which the profile allows (public addresses, loopback)');
    expect(result.stdout.trim().split('\n').at(-1)).toBe(
      'CERTIFIABLE: complete, untampered (signed by the key you gave) and conformant',
    );
  });

  it("with --trusted-keys, the programme's signers by name: exit 0; a key not in it: exit 1", async () => {
    const keys = join(dir, 'signers.pem');
    await writeFile(
      keys,
      `# Stranger Inc\n${await readFile(stranger.publicPath, 'utf8')}\n# Globex Ltd\n${await readFile(signer.publicPath, 'utf8')}`,
    );
    const result = await verify(genuine.bundle, '--profile', loopbackProfile, '--trusted-keys', keys);
    expect([result.code, result.fails]).toEqual([0, []]);
    expect(result.stdout).toContain(
      `  ok    signature: Ed25519 signature of manifest.json holds for "Globex Ltd" (${keyFingerprint(signer.key)}), a signer of --trusted-keys`,
    );
    const strangers = join(dir, 'strangers.pem');
    await writeFile(strangers, await readFile(stranger.publicPath, 'utf8'));
    const other = await verify(genuine.bundle, '--trusted-keys', strangers);
    expect([other.code, other.fails]).toEqual([
      1,
      [`signature: made with key ${keyFingerprint(signer.key)}, which is not one of the 1 keys of --trusted-keys`],
    ]);
  });

  it("a key signs for its own name or its '# signs for:' operators: a bundle naming another operator, signed by a programme member's key, is refused (before: certified, naming the real signer)", async () => {
    const acme = await certifyingRun('named-acme', loopbackProfile, ['--operator', 'Acme Ltd']);
    const keys = join(dir, 'globex.pem');
    await writeFile(keys, `# Globex Ltd\n${await readFile(signer.publicPath, 'utf8')}`);
    const refused = await verify(acme.bundle, '--profile', loopbackProfile, '--trusted-keys', keys);
    expect([refused.code, refused.fails]).toEqual([
      1,
      [
        'signer: the bundle names the operator "Acme Ltd", but is signed by "Globex Ltd", which signs for "Globex Ltd" only',
      ],
    ]);
    const bound = join(dir, 'globex-for-acme.pem');
    await writeFile(
      bound,
      `# Globex Ltd\n# signs for: Globex Ltd, Acme Ltd\n${await readFile(signer.publicPath, 'utf8')}`,
    );
    const allowed = await verify(acme.bundle, '--profile', loopbackProfile, '--trusted-keys', bound);
    expect([allowed.code, allowed.fails]).toEqual([0, []]);
    expect(allowed.stdout).toContain(
      '  ok    signer: "Globex Ltd" signs for "Acme Ltd", the operator the bundle names',
    );
    // A bundle naming no operator: a note, not a refusal.
    const unnamed = await verify(genuine.bundle, '--trusted-keys', keys);
    expect(unnamed.stdout).toContain(
      '  note  signer: the bundle names no operator (run --operator); "Globex Ltd" signs for "Globex Ltd"',
    );
    await writeFile(
      join(dir, 'empty-bound.pem'),
      `# Globex Ltd\n# signs for:\n${await readFile(signer.publicPath, 'utf8')}`,
    );
    const bad = await verify(acme.bundle, '--trusted-keys', join(dir, 'empty-bound.pem'));
    expect([bad.code, bad.stderr.trim()]).toEqual([
      2,
      `carrier-conformance: --trusted-keys ${join(dir, 'empty-bound.pem')}: line 2: "# signs for:" names no operator; give one or more, separated by commas`,
    ]);
  }, 60_000);

  it('matrix over bundles verifies each, as verify-bundle does: certified beside not certified and signer not proven, never a green badge for an unverified one (before: CONFORMANT, bright green)', async () => {
    // A copy under another name, signed by a key the platform does not trust.
    const copy = join(dir, 'copy-by-stranger');
    await cp(genuine.bundle, copy, { recursive: true });
    const report = JSON.parse(await readFile(join(copy, 'report.json'), 'utf8')) as RunReport;
    report.target.name = 'Stranger Copy';
    await writeFile(join(copy, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
    await forge(copy, copy, stranger.key);
    const matrixOf = async (
      out: string,
      ...args: string[]
    ): Promise<{
      code: number;
      stdout: string;
      targets: {
        name: string;
        certification?: { standing: string; reason?: string };
        badge: { message: string; color: string };
      }[];
    }> => {
      const result = await runMain(['matrix', genuine.bundle, copy, '--out', join(dir, out), ...args]);
      const matrix = JSON.parse(await readFile(join(dir, out, 'matrix.json'), 'utf8')) as {
        targets: {
          name: string;
          certification?: { standing: string; reason?: string };
          badge: { message: string; color: string };
        }[];
      };
      return { ...result, targets: matrix.targets };
    };
    const verified = await matrixOf('matrix-verified', '--public-key', signer.publicPath, '--profile', loopbackProfile);
    expect(verified.code).toBe(0);
    const [globex, strangerCopy] = verified.targets;
    expect(globex).toMatchObject({
      name: 'Globex Carrier',
      certification: { standing: 'certified' },
      badge: { color: 'brightgreen' },
    });
    expect(strangerCopy).toMatchObject({
      name: 'Stranger Copy',
      certification: {
        standing: 'not-certified',
        reason: `signature: made with key ${keyFingerprint(stranger.key)}, not with the key you trust (${keyFingerprint(signer.key)})`,
      },
      badge: { message: 'not certified', color: 'red' },
    });
    expect(verified.stdout).toMatch(/Stranger Copy .* NOT CERTIFIED \(signature: made with key/);
    // No key given: nothing is shown as certified.
    const unverified = await matrixOf('matrix-unverified');
    expect(unverified.targets.map((t) => [t.certification?.standing, t.badge.color])).toEqual([
      ['signer-not-proven', 'lightgrey'],
      ['not-certified', 'red'],
    ]);
    expect(await readFile(join(dir, 'matrix-unverified', 'matrix.html'), 'utf8')).toContain('SIGNER NOT PROVEN');
  }, 60_000);

  it('a bundle of 40,000 findings (9 MB, anyone can submit one unsigned) is verified in seconds, and SIGTERM ends verify-bundle at once (before: minutes, grouping findings by cause was quadratic, and the signal waited for it)', async () => {
    const big = join(dir, 'big-bundle');
    await cp(genuine.bundle, big, { recursive: true });
    const report = JSON.parse(await readFile(join(big, 'report.json'), 'utf8')) as RunReport;
    const schema = report.checks.find((c) => c.id === 'RESOURCE-SCHEMA');
    if (!schema) throw new Error('no RESOURCE-SCHEMA');
    schema.status = 'failed';
    schema.findings = Array.from({ length: 40_000 }, (_, i) => ({
      kind: 'failure' as const,
      message: `GET /tenants/{tenantId}/shipments/s${i}: field "f${i % 997}" must be string`,
      endpoint: `GET /tenants/{tenantId}/shipments/{id${i}}`,
    }));
    await writeFile(join(big, 'report.json'), JSON.stringify(report));
    await forge(big, big);
    const started = performance.now();
    const verified = await runBin(['verify-bundle', big], { timeoutMs: 60_000 });
    const took = performance.now() - started;
    expect(verified.code).toBe(1);
    expect(verified.stdout.trim().split('\n').at(-1)).toMatch(/^NOT CERTIFIABLE: /);
    // Linear: 2 s on the 2-core machine (27.6 s for half of it before, and four times that for all of it).
    expect(took).toBeLessThan(25_000);
    const child = spawn(process.execPath, [BIN, 'verify-bundle', big], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    await new Promise((resolve) => setTimeout(resolve, 700));
    child.kill('SIGTERM');
    const ended = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('close', (code, signal) => resolve({ code, signal })),
    );
    expect([ended.signal, out.includes('CERTIFIABLE')]).toEqual(['SIGTERM', false]);
  }, 90_000);

  it("a document split into files: each file it reads beside itself must be pinned (openapi.files), with its SHA-256 (before: the root alone, and an edited $ref'd schema certified)", async () => {
    const split = join(dir, 'split');
    await mkdir(join(split, 'schemas'), { recursive: true });
    const whole = await readFile(REFERENCE_OPENAPI_FILE, 'utf8');
    const block = /^ {4}Shipment:\n((?: {6,}.*\n)+)/m.exec(whole);
    if (!block?.[1]) throw new Error('no Shipment schema');
    await writeFile(
      join(split, 'openapi.yaml'),
      whole.replace(block[0], "    Shipment: { $ref: 'schemas/shipment.yaml' }\n"),
    );
    const shipment = block[1].replace(/^ {6}/gm, '');
    await writeFile(join(split, 'schemas', 'shipment.yaml'), shipment);
    const rootSha = sha256Of(await readFile(join(split, 'openapi.yaml')));
    const rootOnly = await writeProfile('profile-split-root.json', {
      allowTargets: ['loopback'],
      openapi: { sha256: rootSha },
    });
    const pinned = await writeProfile('profile-split-pinned.json', {
      allowTargets: ['loopback'],
      openapi: { sha256: rootSha, files: { 'schemas/shipment.yaml': sha256Of(shipment) } },
    });

    const server = await startReferenceServer({ tokenTtlSeconds: 2 });
    const splitRun = async (
      name: string,
      profile: string,
    ): Promise<{ code: number; stdout: string; stderr: string; bundle: string }> => {
      const bundle = join(dir, name);
      process.env.CARRIER_CLIENT_SECRET = server.clientSecret;
      try {
        const argv = [
          'run',
          '--base-url',
          server.url,
          '--client-id',
          server.clientId,
          '--foreign-tenant-id',
          server.foreignTenantId,
          '--openapi',
          join(split, 'openapi.yaml'),
        ];
        return {
          ...(await runMain([
            ...argv,
            '--expectations',
            expectations,
            '--target-name',
            'Globex Carrier',
            '--bundle',
            bundle,
            '--sign-key',
            signer.privatePath,
            '--profile',
            profile,
            '--reports-dir',
            join(dir, `${name}-reports`),
          ])),
          bundle,
        };
      } finally {
        delete process.env.CARRIER_CLIENT_SECRET;
      }
    };
    // Pinned: it verifies. Under a profile that pins the root alone, the same bundle does not.
    const good = await splitRun('split-pinned', pinned);
    expect(good.code, good.stdout + good.stderr).toBe(0);
    expect((await verify(good.bundle, '--profile', pinned, '--public-key', signer.publicPath)).fails).toEqual([]);
    const unpinnedLine =
      'openapi: the document read 1 file beside itself that the profile does not pin ("schemas/shipment.yaml"): a changed $ref\'d file changes what is certified; pin each in openapi.files (its sha256sum)';
    expect((await verify(good.bundle, '--profile', rootOnly, '--public-key', signer.publicPath)).fails).toContain(
      unpinnedLine,
    );
    // The vendor's edit of the $ref'd file (a status the platform does not have): refused.
    await writeFile(
      join(split, 'schemas', 'shipment.yaml'),
      shipment.replace('enum: [created, in_transit, delivered]', 'enum: [created, in_transit, delivered, lost]'),
    );
    const edited = await splitRun('split-edited', pinned);
    await server.close();
    expect(edited.stdout).toMatch(
      /this bundle will NOT verify, because:\n {4}openapi: "schemas\/shipment\.yaml" has sha256 /,
    );
    expect((await verify(edited.bundle, '--profile', pinned, '--public-key', signer.publicPath)).fails).toEqual([
      expect.stringMatching(
        /^openapi: "schemas\/shipment\.yaml" has sha256 [0-9a-f]{16}…, not the file the profile pins \([0-9a-f]{16}…\)$/,
      ),
    ]);
  }, 90_000);

  it('bad --trusted-keys files and both key options: one line, exit 2', async () => {
    const mixed = join(dir, 'mixed.pem');
    await writeFile(mixed, `# ok\n${await readFile(signer.publicPath, 'utf8')}certified!\n`);
    const empty = join(dir, 'empty.pem');
    await writeFile(empty, '# nobody\n');
    for (const [args, message] of [
      [
        ['--trusted-keys', mixed],
        /^carrier-conformance: --trusted-keys .*mixed\.pem: line 5: neither a "# name" line nor the start of a PEM public key/,
      ],
      [['--trusted-keys', empty], /^carrier-conformance: --trusted-keys .*empty\.pem: holds no public key/],
      [
        ['--trusted-keys', signer.privatePath],
        /^carrier-conformance: --trusted-keys .*signer\.pem: line 1: a private key; give public keys only/,
      ],
      [
        ['--trusted-keys', empty, '--public-key', signer.publicPath],
        /^carrier-conformance: --public-key and --trusted-keys are both given; give one/,
      ],
    ] as const) {
      const result = await runMain(['verify-bundle', genuine.bundle, ...args]);
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(message)]);
    }
  });

  it('under a profile that does not allow loopback, run --profile refuses at once (exit 2, before: CONFORMANT and a bundle that did not verify), and verify-bundle refuses such a bundle: one line for the target, exit 1', async () => {
    const server = await startReferenceServer();
    process.env.CARRIER_CLIENT_SECRET = server.clientSecret;
    const run = await runMain([
      'run',
      '--base-url',
      server.url,
      '--client-id',
      server.clientId,
      '--openapi',
      REFERENCE_OPENAPI_FILE,
      '--expectations',
      expectations,
      '--profile',
      publicOnlyProfile,
      '--bundle',
      join(dir, 'public-only'),
      '--reports-dir',
      join(dir, 'public-only-reports'),
    ]).finally(async () => {
      delete process.env.CARRIER_CLIENT_SECRET;
      await server.close();
    });
    expect([run.code, run.stderr.trim(), run.stdout]).toEqual([
      2,
      `carrier-conformance: --profile ${publicOnlyProfile}: the target's host 127.0.0.1 is a loopback address, which the profile does not allow (allowTargets: []): a bundle of this run would not verify; run against the deployment's public address`,
      '',
    ]);
    const embedded = await runMain([
      'run',
      '--embedded',
      '--openapi',
      REFERENCE_OPENAPI_FILE,
      '--expectations',
      expectations,
      '--profile',
      loopbackProfile,
      '--reports-dir',
      join(dir, 'public-only-reports'),
    ]);
    expect([embedded.code, embedded.stderr.trim()]).toEqual([
      2,
      `carrier-conformance: --profile ${loopbackProfile}: the embedded reference server is not a target the profile allows (allowTargets: [loopback]): a bundle of this run would not verify; give --base-url`,
    ]);
    // A bundle verified against another profile than the one it was made under.
    const other = await verify(genuine.bundle, '--profile', publicOnlyProfile, '--public-key', signer.publicPath);
    expect(other.code).toBe(1);
    expect(other.fails).toEqual([
      `profile: made under "profile-loopback.json" (sha256 ${sha256Of(await readFile(loopbackProfile)).slice(0, 16)}…), not under ${publicOnlyProfile} (sha256 ${sha256Of(await readFile(publicOnlyProfile)).slice(0, 16)}…)`,
      'target 127.0.0.1: loopback, not allowed by the profile',
    ]);
  }, 90_000);

  it('a profile requiring isolation proven with a second client: a bundle that named a foreign tenant only is refused on that line; run --profile without one is refused at once (issue 39)', async () => {
    const secondClientProfile = await writeProfile('profile-second-client.json', {
      allowTargets: ['loopback'],
      isolation: 'second-client',
    });
    const target = JSON.parse(await readFile(join(genuine.bundle, 'target.json'), 'utf8')) as {
      target: { isolation?: unknown };
    };
    expect(target.target.isolation).toEqual({
      method: 'foreign-tenant',
      foreignTenantId: 'c4e6a8b0-2d4f-4c6e-a8b0-c2d4e6f8a0b2',
    });
    const result = await verify(genuine.bundle, '--profile', secondClientProfile, '--public-key', signer.publicPath);
    expect(result.code).toBe(1);
    expect(result.fails).toContain(
      'isolation: tenant isolation proven by asking for a tenant the vendor named (--foreign-tenant-id); the profile requires it proven with a second client, both ways',
    );
    const server = await startReferenceServer();
    try {
      vi.stubEnv('CARRIER_CLIENT_SECRET', server.clientSecret);
      const refused = await runMain([
        'run',
        '--profile',
        secondClientProfile,
        '--base-url',
        server.url,
        '--client-id',
        server.clientId,
        '--openapi',
        REFERENCE_OPENAPI_FILE,
        '--expectations',
        expectations,
        '--reports-dir',
        join(dir, 'no-second-client'),
      ]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(
        /requires tenant isolation proven with a second client \(isolation: second-client\): give --second-client-id/,
      );
      expect(server.requestCount()).toBe(0);
    } finally {
      vi.unstubAllEnvs();
      await server.close();
    }
  });

  it('forged by someone without the key, unsigned or self-signed: never 0 under --profile', async () => {
    const unsigned = await forge(genuine.bundle, join(dir, 'forged-unsigned'));
    const selfSigned = await forge(genuine.bundle, join(dir, 'forged-self-signed'), stranger.key);
    for (const bundle of [unsigned, selfSigned]) {
      // Every profile item holds (the forger copied a genuine bundle): only the signer is not proven.
      const withoutKey = await verify(bundle, '--profile', loopbackProfile);
      expect([withoutKey.code, withoutKey.fails]).toEqual([4, []]);
      const withKey = await verify(bundle, '--profile', loopbackProfile, '--public-key', signer.publicPath);
      expect(withKey.code).toBe(1);
      expect(withKey.fails).toEqual([
        bundle === unsigned
          ? `signature: the bundle is not signed, but --public-key was given (key ${keyFingerprint(signer.key)})`
          : `signature: made with key ${keyFingerprint(stranger.key)}, not with the key you trust (${keyFingerprint(signer.key)})`,
      ]);
    }
  });
});

describe('a profile that pins which rule wins where two apply at once (issue 41 item 4: the spec orders neither)', () => {
  it("the reference's order (Accept-Version before the token, the token before the tenant) verifies; a server that checks in another order is conformant, and its bundle fails that item: one line per check, naming the endpoints", async () => {
    const pinned = await writeProfile('profile-precedence.json', {
      allowTargets: ['loopback'],
      precedence: { versionAndAuth: 'version', tenantAndAuth: 'auth' },
    });
    const [ours, other] = await Promise.all([
      certifyingRun('precedence-reference', pinned),
      certifyingRun('precedence-other-order', pinned, [], ['checks-in-another-order']),
    ]);
    expect(ours.code, ours.stdout + ours.stderr).toBe(0);
    const verified = await verify(ours.bundle, '--profile', pinned, '--public-key', signer.publicPath);
    expect([verified.code, verified.fails]).toEqual([0, []]);
    expect(verified.stdout).toContain(
      "  ok    precedence versionAndAuth: Accept-Version's answer (400) on each of the 10 endpoints observed, as the profile pins",
    );
    expect(verified.stdout).toContain(
      "  ok    precedence tenantAndAuth: authentication's answer (a refusal with a Bearer challenge) on each of the 8 endpoints observed, as the profile pins",
    );

    // Conformant either way: the run passes; only the profile's pin tells the orders apart.
    expect(other.code, other.stdout + other.stderr).toBe(0);
    expect(other.report.verdict).toBe('conformant');
    expect(other.stdout).toContain(`  under the profile ${pinned}: this bundle will NOT verify, because:`);
    const refused = await verify(other.bundle, '--profile', pinned, '--public-key', signer.publicPath);
    expect(refused.code).toBe(1);
    expect(refused.fails).toEqual([
      "precedence versionAndAuth: VERSION-AND-AUTH-MISSING: authentication's answer (a refusal with a Bearer challenge) on 7 endpoints (GET /users/me, GET /uaa/userinfo (legacy), GET /tenants/{tenantId}/shipments, GET /tenants/{tenantId}/shipments/{shipmentId}, GET /tenants/{tenantId}/invoices, and 2 more); the profile pins Accept-Version's answer (400)",
      "precedence versionAndAuth: WRITE-VERSION-AND-AUTH-MISSING: authentication's answer (a refusal with a Bearer challenge) on 3 endpoints (POST /tenants/{tenantId}/shipments, PATCH /tenants/{tenantId}/shipments/{shipmentId}, DELETE /tenants/{tenantId}/shipments/{shipmentId}); the profile pins Accept-Version's answer (400)",
      "precedence tenantAndAuth: TENANT-UNKNOWN-NO-AUTH: the unknown tenant's answer (403 or 404) on 5 endpoints (GET /tenants/{tenantId}/shipments, GET /tenants/{tenantId}/shipments/{shipmentId}, GET /tenants/{tenantId}/invoices, GET /tenants/{tenantId}/invoices/{invoiceId}, GET /tenants/{tenantId}/settings); the profile pins authentication's answer (a refusal with a Bearer challenge)",
      "precedence tenantAndAuth: WRITE-TENANT-UNKNOWN-NO-AUTH: the unknown tenant's answer (403 or 404) on 3 endpoints (POST /tenants/{tenantId}/shipments, PATCH /tenants/{tenantId}/shipments/{shipmentId}, DELETE /tenants/{tenantId}/shipments/{shipmentId}); the profile pins authentication's answer (a refusal with a Bearer challenge)",
    ]);
  }, 90_000);

  it('a pin that is neither choice is refused with the profile: one line, exit 2', async () => {
    const wrong = await writeProfile('profile-precedence-wrong.json', { precedence: { versionAndAuth: 'tenant' } });
    const result = await runMain(['run', '--profile', wrong]);
    expect([result.code, result.stderr.trim()]).toEqual([
      2,
      `carrier-conformance: --profile ${wrong}: precedence.versionAndAuth: "tenant" is neither version nor auth`,
    ]);
  });
});

describe('a run that skipped the expiry checks (a token lifetime longer than its --max-expiry-wait)', () => {
  it('verify-bundle --profile: the skipped EXPIRY-* checks and the wait below the minimum, exit 1', async () => {
    const run = await certifyingRun('expiry-skipped', undefined, ['--max-expiry-wait', '0']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const result = await verify(run.bundle, '--profile', loopbackProfile, '--public-key', signer.publicPath);
    expect(result.code).toBe(1);
    expect(result.fails).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^EXPIRY-\*: skipped \(the profile requires expiry proven\): EXPIRY-REFUSED-AFTER, EXPIRY-REFUSED-401, EXPIRY-INVALID-TOKEN-ERROR, EXPIRY-RENEW; expires_in is 2 s and --max-expiry-wait is 0: not waited out in this run/,
        ) as unknown as string,
        "option maxExpiryWait: 0, below the profile's minimum of 10 s",
        'option requireComplete: the run did not use --require-complete (the profile requires it)',
      ]),
    );
    expect(result.fails.filter((l) => l.startsWith('endpoint '))).toEqual([]);
  }, 90_000);
});

describe('an endpoint the run had but did not judge', () => {
  it('a check skipped on it, signed by a signer who edited the report: one line per check, exit 1', async () => {
    const genuine = join(dir, 'genuine');
    const bundle = join(dir, 'endpoint-skipped');
    await cp(genuine, bundle, { recursive: true });
    const report = JSON.parse(await readFile(join(bundle, 'report.json'), 'utf8')) as RunReport;
    const label = 'GET /tenants/{tenantId}/invoices/{invoiceId}';
    for (const check of report.checks)
      for (const e of check.endpoints ?? [])
        if (e.endpoint === label && check.id === 'RESOURCE-EXPECTED-VALUES')
          Object.assign(e, { status: 'skipped', message: 'no expectations for it' });
    const json = `${JSON.stringify(report, null, 2)}\n`;
    await writeFile(join(bundle, 'report.json'), json);
    await writeFile(join(bundle, 'report.html'), renderHtmlReport(parseRunReport(json, 'report.json')));
    await forge(bundle, bundle, signer.key);
    const result = await verify(bundle, '--profile', loopbackProfile, '--public-key', signer.publicPath);
    expect([result.code, result.fails]).toEqual([
      1,
      [`endpoint ${label}: skipped by RESOURCE-EXPECTED-VALUES: no expectations for it`],
    ]);
  });
});

describe('an endpoint whose served resource the expectations do not pin (RESOURCE-EXPECTED-VALUES: nothing known to compare)', () => {
  const label = 'GET /tenants/{tenantId}/invoices/{invoiceId}';
  const unseeded = 'the resource served (id inv-unseeded) is not a seeded item: nothing known to compare';

  /** The genuine bundle with RESOURCE-EXPECTED-VALUES skipping the endpoint for that reason, `edit` applied, re-signed. */
  async function edited(name: string, edit: (report: RunReport) => void = () => undefined): Promise<string> {
    const bundle = join(dir, name);
    await cp(join(dir, 'genuine'), bundle, { recursive: true });
    const report = JSON.parse(await readFile(join(bundle, 'report.json'), 'utf8')) as RunReport;
    for (const check of report.checks)
      for (const e of check.endpoints ?? [])
        if (e.endpoint === label && check.id === 'RESOURCE-EXPECTED-VALUES')
          Object.assign(e, { status: 'skipped', message: unseeded });
    edit(report);
    const json = `${JSON.stringify(report, null, 2)}\n`;
    await writeFile(join(bundle, 'report.json'), json);
    await writeFile(join(bundle, 'report.html'), renderHtmlReport(parseRunReport(json, 'report.json')));
    return forge(bundle, bundle, signer.key);
  }

  it('is accepted when the other checks judged it: a note, exit 0', async () => {
    const result = await verify(
      await edited('endpoint-unseeded'),
      '--profile',
      loopbackProfile,
      '--public-key',
      signer.publicPath,
    );
    expect([result.code, result.fails]).toEqual([0, []]);
    expect(result.stdout).toContain(
      `  note  endpoint ${label}: RESOURCE-EXPECTED-VALUES compared nothing (${unseeded}); accepted: the expectations pin no item it served, and the other checks judged it`,
    );
    expect(result.stdout).toContain(
      "  ok    endpoints: each of the profile's 5 endpoints was judged by the checks, none skipped",
    );
  });

  it('is not enough alone: an endpoint no other check judged is still not proven', async () => {
    const bundle = await edited('endpoint-unseeded-only', (report) => {
      for (const check of report.checks)
        if (check.id !== 'RESOURCE-EXPECTED-VALUES' && check.endpoints)
          check.endpoints = check.endpoints.filter((e) => e.endpoint !== label);
    });
    const result = await verify(bundle, '--profile', loopbackProfile, '--public-key', signer.publicPath);
    expect([result.code, result.fails]).toEqual([
      1,
      [`endpoint ${label}: in the run but judged by no check (the profile requires it judged)`],
    ]);
  });
});

describe("a vendor's reduced document", () => {
  it("is refused by run --profile: its digest is not the profile's (exit 2, one line, nothing run)", async () => {
    const result = await runMain([
      'run',
      '--embedded',
      '--openapi',
      reduced,
      '--expectations',
      expectations,
      '--profile',
      loopbackProfile,
      '--reports-dir',
      join(dir, 'refused'),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      `carrier-conformance: --openapi ${reduced}: sha256 ${sha256Of(await readFile(reduced))} is not the document the profile ${loopbackProfile} names (openapi.sha256: ${openapiSha}); use the platform's document unchanged`,
    ]);
    expect(result.stdout).toBe('');
  });

  it('run without --profile, a faulty server passes; verify-bundle --profile lists what the bundle does not prove', async () => {
    // Issue 31: the single-invoice fault hides behind a document without that endpoint.
    const server = await startReferenceServer({ tokenTtlSeconds: 2, faults: ['version-ignored-on-single-invoice'] });
    const bundle = join(dir, 'reduced');
    process.env.CARRIER_CLIENT_SECRET = server.clientSecret;
    const run = await runMain([
      'run',
      '--base-url',
      server.url,
      '--client-id',
      server.clientId,
      '--foreign-tenant-id',
      server.foreignTenantId,
      '--openapi',
      reduced,
      '--suite',
      'versioning',
      '--expectations',
      expectations,
      '--reports-dir',
      join(dir, 'reduced-reports'),
      '--bundle',
      bundle,
      '--sign-key',
      signer.privatePath,
    ]).finally(async () => {
      delete process.env.CARRIER_CLIENT_SECRET;
      await server.close();
    });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^CONFORMANT ON \d+ OF \d+ CHECKS/m);
    const result = await verify(bundle, '--profile', publicOnlyProfile, '--public-key', signer.publicPath);
    expect(result.code).toBe(1);
    expect(result.fails).toEqual(
      expect.arrayContaining([
        `profile: the bundle was not made under a profile (run --profile); this one is ${publicOnlyProfile} (sha256 ${sha256Of(await readFile(publicOnlyProfile)).slice(0, 16)}…)`,
        `openapi: "vendor-openapi.yaml" has sha256 ${sha256Of(await readFile(reduced)).slice(0, 16)}…, not the profile's document (${openapiSha.slice(0, 16)}…)`,
        'endpoint GET /tenants/{tenantId}/invoices/{invoiceId}: not in the run (the profile requires it)',
        'option requireComplete: the run did not use --require-complete (the profile requires it)',
        expect.stringMatching(
          /^EXPIRY-\*: not in the run \(the profile requires expiry proven\): EXPIRY-VALID-BEFORE, /,
        ) as unknown as string,
        'target 127.0.0.1: loopback, not allowed by the profile',
      ]),
    );
    expect(result.fails.filter((l) => l.startsWith('endpoint '))).toEqual([
      'endpoint GET /tenants/{tenantId}/invoices/{invoiceId}: not in the run (the profile requires it)',
    ]);
  }, 90_000);
});

describe("options that contradict the profile: one line naming the option and the profile's value, exit 2, before anything runs", () => {
  it.each([
    [['--no-require-complete'], '--require-complete false contradicts the profile {profile} (requireComplete: true)'],
    [['--max-expiry-wait', '5'], '--max-expiry-wait 5 contradicts the profile {profile} (minMaxExpiryWait: 10)'],
    [
      ['--suite', 'token'],
      '--suite token contradicts the profile {profile} (expiryProven: true, which needs EXPIRY-VALID-BEFORE, EXPIRY-REFUSED-AFTER, EXPIRY-REFUSED-401, EXPIRY-INVALID-TOKEN-ERROR, EXPIRY-RENEW)',
    ],
    [
      ['--deadline', '10', '--max-expiry-wait', '5'],
      '--max-expiry-wait 5 contradicts the profile {profile} (minMaxExpiryWait: 10)',
    ],
    [
      ['--deadline', '10'],
      '--profile {profile}: requires --max-expiry-wait 60, which is not below --deadline 10: raise the deadline above the wait',
    ],
  ])('%j', async (args, message) => {
    const result = await runMain([
      'run',
      '--embedded',
      '--openapi',
      REFERENCE_OPENAPI_FILE,
      '--expectations',
      expectations,
      '--profile',
      loopbackProfile,
      ...args,
      '--reports-dir',
      join(dir, 'contradicted'),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      `carrier-conformance: ${message.replace('{profile}', loopbackProfile)}`,
    ]);
    expect(result.stdout).toBe('');
  });

  it('options that let a run prove less are refused under any profile (--max-pages, --baseline); a bundle made with one fails verify-bundle --profile (before: certified)', async () => {
    const baseline = join(dir, 'baseline.json');
    await writeFile(baseline, '{}');
    for (const [args, message] of [
      [
        ['--max-pages', '2'],
        `--max-pages 2 is refused under the profile ${loopbackProfile}: a certifying run walks every page of every list`,
      ],
      [
        ['--baseline', baseline],
        `--baseline ${baseline} is refused under the profile ${loopbackProfile}: a certifying run accepts no known failure`,
      ],
    ] as const) {
      const result = await runMain([
        'run',
        '--embedded',
        '--openapi',
        REFERENCE_OPENAPI_FILE,
        '--expectations',
        expectations,
        '--profile',
        loopbackProfile,
        ...args,
        '--reports-dir',
        join(dir, 'contradicted'),
      ]);
      expect([result.code, result.stderr.trim()]).toEqual([2, `carrier-conformance: ${message}`]);
    }
    const sampled = await certifyingRun('sampled', undefined, ['--max-pages', '2']);
    const result = await verify(sampled.bundle, '--profile', loopbackProfile, '--public-key', signer.publicPath);
    expect(result.code).toBe(1);
    expect(result.fails).toContain(
      'option maxPages: --max-pages 2: the lists were judged on a sample of their pages, which may hide a defect between them (a certifying run walks every page)',
    );
  }, 60_000);

  it("an expectations file or document other than the profile's, or none", async () => {
    const other = join(dir, 'other-expectations.json');
    await writeFile(other, '{"user": {}}');
    const cases: [string[], string][] = [
      [
        ['--openapi', REFERENCE_OPENAPI_FILE, '--expectations', other],
        `--expectations ${other}: sha256 ${sha256Of('{"user": {}}')} is not the file the profile ${loopbackProfile} names (expectations.sha256: ${sha256Of(await readFile(expectations))})`,
      ],
      [
        ['--openapi', REFERENCE_OPENAPI_FILE],
        `--profile ${loopbackProfile}: requires --expectations, the test account's data (sha256 ${sha256Of(await readFile(expectations))})`,
      ],
      [
        ['--expectations', expectations],
        `--profile ${loopbackProfile}: requires --openapi, the platform's document (sha256 ${openapiSha})`,
      ],
    ];
    for (const [args, message] of cases) {
      const result = await runMain([
        'run',
        '--embedded',
        '--profile',
        loopbackProfile,
        ...args,
        '--reports-dir',
        join(dir, 'contradicted'),
      ]);
      expect([result.code, result.stderr.trim()]).toEqual([2, `carrier-conformance: ${message}`]);
    }
  });

  it('from the environment too, named as it is written', async () => {
    process.env.CARRIER_REQUIRE_COMPLETE = 'no';
    const result = await runMain(['run', '--embedded', '--profile', loopbackProfile]).finally(
      () => delete process.env.CARRIER_REQUIRE_COMPLETE,
    );
    expect([result.code, result.stderr.trim()]).toEqual([
      2,
      `carrier-conformance: CARRIER_REQUIRE_COMPLETE false contradicts the profile ${loopbackProfile} (requireComplete: true)`,
    ]);
  });

  it.each([
    [['run', '--embedded', '--profile'], '--profile: needs a file after it (see --help)'],
    [['verify-bundle', '.', '--profile'], '--profile: needs a file after it (see --help)'],
    [['verify-bundle', '.', '--trusted-keys'], '--trusted-keys: needs a file after it (see --help)'],
  ])('%j: one line', async (argv, message) => {
    const result = await runMain(argv);
    expect([result.code, result.stderr.trim()]).toEqual([2, `carrier-conformance: ${message}`]);
  });

  it('a profile that is not one: unknown key, missing digest, not a file', async () => {
    const bad = join(dir, 'bad-profile.yaml');
    await writeFile(
      bad,
      `format: carrier-conformance-profile/1\nopenapi: { sha256: ${openapiSha} }\nendpoints: [invoices]\nallowTargets: [anywhere]\n`,
    );
    const unknown = join(dir, 'unknown-key.json');
    await writeFile(
      unknown,
      JSON.stringify({
        format: 'carrier-conformance-profile/1',
        openapi: { sha256: openapiSha },
        endpoints: ['invoices'],
        skipExpiry: true,
      }),
    );
    for (const [path, message] of [
      [bad, `--profile ${bad}: allowTargets.0: "anywhere" is not one of loopback, private, embedded`],
      [unknown, `--profile ${unknown}: the file: unknown key "skipExpiry"`],
      [join(dir, 'missing.json'), `--profile ${join(dir, 'missing.json')}: cannot read it (no such file)`],
    ]) {
      for (const argv of [
        ['run', '--embedded', '--profile', path ?? ''],
        ['verify-bundle', dir, '--profile', path ?? ''],
      ]) {
        const result = await runMain(argv);
        expect([result.code, result.stderr.trim()]).toEqual([2, `carrier-conformance: ${message ?? ''}`]);
      }
    }
  });
});

describe('where a target is: loopback, private (RFC 1918, RFC 4193, link-local) or public', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.10.10', 'private'],
    ['fd12:3456::1', 'private'],
    ['fe80::1', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['[::ffff:7f00:1]', 'loopback'],
    ['::ffff:c0a8:101', 'private'],
    ['172.32.0.1', 'public'],
    ['8.8.8.8', 'public'],
    ['2001:db8::1', 'public'],
  ])('%s is %s', (address, kind) => {
    expect(addressKind(address)).toBe(kind);
  });

  it('localhost and names under it are loopback; other names are resolved, not guessed', () => {
    expect(hostKind('localhost')).toBe('loopback');
    expect(hostKind('api.localhost.')).toBe('loopback');
    expect(hostKind('api.example.com')).toBeUndefined();
    // As a base URL's host reaches the classifier: the URL parser's own spelling.
    expect(hostKind(new URL('http://[::ffff:127.0.0.1]:8080').hostname)).toBe('loopback');
  });
});

describe('progress while a run waits out a token lifetime (CI kills silent jobs)', () => {
  it('a line at a steady pace saying what it waits for and how long is left, then none once the token has expired', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    try {
      const lines: string[] = [];
      const stop = reportExpiryWait(
        {
          receivedAt: 1_000_000,
          expiresIn: 100,
          maxExpiryWaitSeconds: 3600,
          marginSeconds: 1,
          checks: ['EXPIRY-REFUSED-AFTER', 'EXPIRY-RENEW'],
        },
        (l) => lines.push(l),
        30_000,
      );
      vi.advanceTimersByTime(29_999);
      expect(lines).toEqual([]);
      vi.advanceTimersByTime(200_000);
      expect(lines).toEqual(
        [72, 42, 12].map(
          (left) =>
            `waiting for the access token to expire (expires_in 100 s) for EXPIRY-REFUSED-AFTER, EXPIRY-RENEW: ${left} s left`,
        ),
      );
      stop();
      // Not waited out (longer than --max-expiry-wait), or no expiry check selected: nothing.
      const none: string[] = [];
      reportExpiryWait(
        {
          receivedAt: Date.now(),
          expiresIn: 3600,
          maxExpiryWaitSeconds: 60,
          marginSeconds: 1,
          checks: ['EXPIRY-RENEW'],
        },
        (l) => none.push(l),
        30_000,
      );
      reportExpiryWait(
        { receivedAt: Date.now(), expiresIn: 100, maxExpiryWaitSeconds: 3600, marginSeconds: 1, checks: [] },
        (l) => none.push(l),
        30_000,
      );
      vi.advanceTimersByTime(200_000);
      expect(none).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a run of the expiry suite prints them on stderr (CARRIER_PROGRESS_INTERVAL scales the pace); the verdict is the same', async () => {
    process.env.CARRIER_PROGRESS_INTERVAL = '1';
    const run = await runAgainst({ tokenTtlSeconds: 4 }, ['--suite', 'expiry']).finally(
      () => delete process.env.CARRIER_PROGRESS_INTERVAL,
    );
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const lines = run.stderr.split('\n').filter((l) => l.startsWith('waiting for'));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines)
      expect(line).toMatch(
        /^waiting for the access token to expire \(expires_in 4 s\) for EXPIRY-VALID-BEFORE, EXPIRY-REFUSED-AFTER, EXPIRY-REFUSED-401, EXPIRY-INVALID-TOKEN-ERROR, EXPIRY-RENEW: [1-6] s left$/,
      );
    expect(run.stdout).not.toContain('waiting for');
  }, 60_000);
});
