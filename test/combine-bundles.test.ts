/**
 * The two-job expiry proof (issue 31), scaled down: a main run with a 10 s deadline that cannot
 * wait a token out (--max-expiry-wait below the lifetime), an expiry job (`run --suite expiry`)
 * against the same reference server with a 15 s lifetime, and `combine-bundles` making one signed
 * bundle of them that `verify-bundle --profile` accepts; and the combinations it must refuse.
 */
import type { KeyObject } from 'node:crypto';
import { cp, mkdir, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packBundle } from '../src/bundle/archive.js';
import { EXPIRY_CHECKS, combinationProblems, type PartRun } from '../src/bundle/combination.js';
import { BUNDLE_FILES, PART_FILES, sha256Of, targetInfoSchema } from '../src/certification/bundle-format.js';
import { keyFingerprint } from '../src/bundle/keys.js';
import { sealBundle } from '../src/bundle/write.js';
import { currentCatalogue } from '../src/catalogue/digest.js';
import { CHECKS } from '../src/catalogue/index.js';
import { startReferenceServer, type ReferenceServer } from '../src/reference/index.js';
import { REFERENCE_OPENAPI_FILE } from '../src/reference/seeded.js';
import type { RunReport } from '../src/model/run-report.js';
import { renderHtmlReport } from '../src/report/html.js';
import { parseRunReport } from '../src/report/read.js';
import { runMain, targetArgs, tempDir, type CliResult } from './support/harness.js';
import { referenceExpectations } from './support/reports.js';
import { keyPair, type Keys } from './support/keys.js';

const TTL = 15;
const MUST = CHECKS.filter((c) => c.level === 'MUST').length;

let dir: string;
let expectations: string;
let signer: Keys;
/** Allows a separate expiry job (and loopback, where the test servers are); the same without the job. */
let profile: string;
let sameRunProfile: string;
let server: ReferenceServer;
let main: string;
let expiry: string;
let combined: string;
let mainRun: CliResult;
let expiryRun: CliResult;
let combineRun: CliResult;

async function writeProfile(name: string, extra: Record<string, unknown>): Promise<string> {
  const path = join(dir, name);
  await writeFile(
    path,
    JSON.stringify({
      format: 'carrier-conformance-profile/1',
      name: 'Carrier Platform certification',
      openapi: { sha256: sha256Of(await readFile(REFERENCE_OPENAPI_FILE)) },
      endpoints: ['shipments', 'shipments/{shipmentId}', 'invoices', 'invoices/{invoiceId}', 'settings'],
      expectations: { sha256: sha256Of(await readFile(expectations)) },
      catalogue: currentCatalogue().digest,
      requireComplete: true,
      expiryProven: true,
      minMaxExpiryWait: 20,
      allowTargets: ['loopback'],
      ...extra,
    }),
  );
  return path;
}

/** A certifying run against `target` under `profileFile`, written as a signed bundle. */
async function bundledRun(
  target: ReferenceServer,
  name: string,
  args: readonly string[],
  profileFile = profile,
): Promise<CliResult & { bundle: string }> {
  const bundle = join(dir, name);
  process.env.CARRIER_CLIENT_SECRET = target.clientSecret;
  try {
    const result = await runMain([
      'run',
      ...targetArgs(target),
      '--expectations',
      expectations,
      '--profile',
      profileFile,
      '--target-name',
      'Globex Carrier',
      '--bundle',
      bundle,
      '--sign-key',
      signer.privatePath,
      '--reports-dir',
      join(dir, `${name}-reports`),
      ...args,
    ]);
    return { ...result, bundle };
  } finally {
    delete process.env.CARRIER_CLIENT_SECRET;
  }
}

async function verify(bundle: string, ...args: string[]): Promise<CliResult & { fails: string[] }> {
  const result = await runMain(['verify-bundle', bundle, ...args]);
  return {
    ...result,
    fails: result.stdout
      .split('\n')
      .filter((l) => l.startsWith('  FAIL  '))
      .map((l) => l.slice(8)),
  };
}

/** What a signer who edits a combined bundle by hand does: the top manifest recomputed and signed again. */
async function reseal(bundle: string, key: KeyObject): Promise<void> {
  const names = [BUNDLE_FILES.report, BUNDLE_FILES.junit, BUNDLE_FILES.html, BUNDLE_FILES.target, ...PART_FILES];
  const files = await Promise.all(
    names.map(async (path) => [path, await readFile(join(bundle, path), 'utf8')] as const),
  );
  await sealBundle(bundle, files, key);
}

beforeAll(async () => {
  dir = await tempDir('carrier-combine-');
  expectations = await referenceExpectations(dir);
  signer = await keyPair(dir, 'signer');
  profile = await writeProfile('profile.json', { separateExpiryJob: true });
  sameRunProfile = await writeProfile('profile-same-run.json', {});
  server = await startReferenceServer({ tokenTtlSeconds: TTL });
  // The main job: everything but expiry proven within a 10 s deadline (expires_in 15 s > --max-expiry-wait 5).
  const m = await bundledRun(server, 'main', ['--max-expiry-wait', '5', '--deadline', '10']);
  mainRun = m;
  main = m.bundle;
  // The expiry job, apart: a wait longer than the lifetime, its own deadline.
  const e = await bundledRun(server, 'expiry', ['--suite', 'expiry', '--max-expiry-wait', '30', '--deadline', '40']);
  expiryRun = e;
  expiry = e.bundle;
  combined = join(dir, 'combined');
  combineRun = await runMain(['combine-bundles', main, expiry, '--output', combined, '--sign-key', signer.privatePath]);
}, 90_000);

afterAll(async () => {
  await server?.close();
});

describe('a main run and a separate expiry job, combined', () => {
  it('the main run proves all but expiry (NOT PROVEN on EXPIRY-* alone, exit 5: only the expiry proof is missing); the expiry job proves expiry (exit 0)', async () => {
    expect(mainRun.code, mainRun.stdout + mainRun.stderr).toBe(5);
    // Two skipped, two errors (--require-complete): counted once each (before: "4 skipped").
    expect(mainRun.stdout).toMatch(
      / 4 of \d+ checks not carried out: 2 skipped: expires_in is 15 s, longer than --max-expiry-wait 5 s; .*; 2 could not be carried out\n/,
    );
    const mainReport = JSON.parse(await readFile(join(main, 'report.json'), 'utf8')) as RunReport;
    expect(mainReport.verdict).toBe('not-proven');
    // Only the expiry checks that wait the token out: the MUST ones errors (--require-complete), the SHOULD ones skipped.
    expect(mainReport.checks.filter((c) => c.status !== 'passed').map((c) => [c.id, c.status])).toEqual([
      ['EXPIRY-REFUSED-AFTER', 'error'],
      ['EXPIRY-REFUSED-401', 'skipped'],
      ['EXPIRY-INVALID-TOKEN-ERROR', 'skipped'],
      ['EXPIRY-RENEW', 'error'],
    ]);
    expect(expiryRun.code, expiryRun.stdout + expiryRun.stderr).toBe(0);
    const expiryReport = JSON.parse(await readFile(join(expiry, 'report.json'), 'utf8')) as RunReport;
    expect(expiryReport.checks.map((c) => [c.id, c.status])).toEqual(EXPIRY_CHECKS.map((id) => [id, 'passed']));
  });

  it('combine-bundles writes one signed bundle with both runs inside, EXPIRY-* from the expiry job', async () => {
    expect(combineRun.code, combineRun.stdout + combineRun.stderr).toBe(0);
    expect(combineRun.stdout).toContain(
      `Combined bundle: ${combined} (signed, Ed25519 key ${keyFingerprint(signer.key)})`,
    );
    expect((await readdir(combined)).sort()).toEqual([
      'junit.xml',
      'manifest.json',
      'parts',
      'report.html',
      'report.json',
      'signature.json',
      'target.json',
    ]);
    for (const part of ['main', 'expiry']) {
      for (const name of await readdir(join(combined, 'parts', part)))
        expect(await readFile(join(combined, 'parts', part, name), 'utf8'), `${part}/${name}`).toBe(
          await readFile(join(dir, part, name), 'utf8'),
        );
    }
    const report = JSON.parse(await readFile(join(combined, 'report.json'), 'utf8')) as RunReport;
    expect(report.verdict).toBe('conformant');
    expect(report.exitCode).toBe(0);
    expect(report.scope?.coverage).toBe('full');
    expect(report.scope?.requireComplete).toBe(true);
    const expiryReport = JSON.parse(await readFile(join(expiry, 'report.json'), 'utf8')) as RunReport;
    for (const id of EXPIRY_CHECKS)
      expect(report.checks.find((c) => c.id === id)).toEqual(expiryReport.checks.find((c) => c.id === id));
    const target = JSON.parse(await readFile(join(combined, 'target.json'), 'utf8')) as {
      run: { verdict: string };
      options: { maxExpiryWait: number };
      combined: { expiry: { maxExpiryWait: number; checks: string[] } };
    };
    expect(target.run.verdict).toBe('conformant');
    expect(target.options.maxExpiryWait).toBe(30);
    expect(target.combined.expiry).toMatchObject({ maxExpiryWait: 30, deadline: 40, checks: EXPIRY_CHECKS });
  });

  it('verify-bundle --profile --public-key: exit 0, each part and the combination proven', async () => {
    const result = await verify(combined, '--profile', profile, '--public-key', signer.publicPath);
    expect([result.code, result.fails]).toEqual([0, []]);
    expect(result.stdout).toContain(`  ok    manifest.json: ${4 + PART_FILES.length} files, each matches its SHA-256`);
    expect(result.stdout).toMatch(
      /^ {2}ok {4}parts\/main: a valid bundle, signed by a key you trust: \d+ checks, not-proven, started /m,
    );
    expect(result.stdout).toMatch(
      /^ {2}ok {4}parts\/expiry: a valid bundle, signed by a key you trust: 5 checks, conformant-subset, started /m,
    );
    expect(result.stdout).toContain(
      "  ok    combination: report.json and target.json are exactly what parts/ combine to: the expiry job's 5 EXPIRY-* results",
    );
    expect(result.stdout).toContain('  ok    EXPIRY-*: every expiry check passed (the profile requires expiry proven)');
    expect(result.stdout).toContain('  ok    expiry job: EXPIRY-* proven by a separate job');
    expect(result.stdout.trim().split('\n').at(-1)).toBe(
      'CERTIFIABLE: complete, untampered (signed by the key you gave) and conformant',
    );
    // Without --profile too; without a key the signer is not proven (exit 4), never 0.
    expect((await verify(combined, '--public-key', signer.publicPath)).code).toBe(0);
    expect((await verify(combined)).code).toBe(4);
  });

  it('as single files to send: parts given as .tar.gz, the combined bundle written as one; verify-bundle and matrix read it as the folder', async () => {
    const [mainArchive, expiryArchive, out] = ['main.tar.gz', 'expiry.tgz', 'combined.tar.gz'].map((name) =>
      join(dir, 'archives', name),
    ) as [string, string, string];
    await mkdir(join(dir, 'archives'));
    await packBundle(main, mainArchive);
    await packBundle(expiry, expiryArchive);
    const made = await runMain([
      'combine-bundles',
      mainArchive,
      expiryArchive,
      '--output',
      out,
      '--sign-key',
      signer.privatePath,
    ]);
    expect(made.code, made.stdout + made.stderr).toBe(0);
    expect(made.stdout).toContain(`Combined bundle: ${out} (signed, Ed25519 key ${keyFingerprint(signer.key)})`);
    const fromArchive = await verify(out, '--profile', profile, '--public-key', signer.publicPath);
    expect([fromArchive.code, fromArchive.fails]).toEqual([0, []]);
    // The same findings as the combined folder's, line for line (the first names the bundle).
    const fromFolder = await verify(combined, '--profile', profile, '--public-key', signer.publicPath);
    expect(fromArchive.stdout.split('\n').slice(1)).toEqual(fromFolder.stdout.split('\n').slice(1));
    const matrix = await runMain([
      'matrix',
      out,
      '--out',
      join(dir, 'archives', 'matrix'),
      '--profile',
      profile,
      '--public-key',
      signer.publicPath,
    ]);
    expect(matrix.code, matrix.stdout + matrix.stderr).toBe(0);
    expect(matrix.stdout).toMatch(/Globex Carrier .* CERTIFIED$/m);
    // An archive part that does not combine is named as the user gave it.
    const refused = await runMain([
      'combine-bundles',
      expiryArchive,
      mainArchive,
      '--output',
      join(dir, 'archives', 'wrong.tar.gz'),
      '--sign-key',
      signer.privatePath,
    ]);
    expect(refused.code).toBe(1);
    expect(await readdir(join(dir, 'archives'))).not.toContain('wrong.tar.gz');
  });

  it('the main bundle alone, under a profile requiring expiry proven: exit 1, with a note on what completes it', async () => {
    const result = await verify(main, '--profile', profile, '--public-key', signer.publicPath);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      '  note  expiry: EXPIRY-REFUSED-AFTER, EXPIRY-REFUSED-401, EXPIRY-INVALID-TOKEN-ERROR, EXPIRY-RENEW not waited out in this run: if an expiry job (run --suite expiry) proved them, verify the two combined: combine-bundles THIS-BUNDLE EXPIRY-BUNDLE --output DIR --sign-key KEY',
    );
    expect(result.fails).toEqual([
      'MUST EXPIRY-REFUSED-AFTER: error: not carried out, and --require-complete requires it: expires_in is 15 s, longer than --max-expiry-wait 5 s; pass --max-expiry-wait 15 to wait it out, or prove it in a job of its own (run --suite expiry --max-expiry-wait 15)',
      'MUST EXPIRY-RENEW: error: not carried out, and --require-complete requires it: expires_in is 15 s, longer than --max-expiry-wait 5 s; pass --max-expiry-wait 15 to wait it out, or prove it in a job of its own (run --suite expiry --max-expiry-wait 15)',
      `MUST checks: ${MUST - 2} of ${MUST} passed`,
      "option maxExpiryWait: 5, below the profile's minimum of 20 s",
      'EXPIRY-*: error (the profile requires expiry proven): EXPIRY-REFUSED-AFTER, EXPIRY-RENEW; not carried out, and --require-complete requires it: expires_in is 15 s, longer than --max-expiry-wait 5 s; pass --max-expiry-wait 15 to wait it out, or prove it in a job of its own (run --suite expiry --max-expiry-wait 15)',
      'EXPIRY-*: skipped (the profile requires expiry proven): EXPIRY-REFUSED-401, EXPIRY-INVALID-TOKEN-ERROR; expires_in is 15 s, longer than --max-expiry-wait 5 s; pass --max-expiry-wait 15 to wait it out, or prove it in a job of its own (run --suite expiry --max-expiry-wait 15)',
    ]);
  });

  it('a profile that does not allow a separate expiry job refuses the combination', async () => {
    const result = await verify(combined, '--profile', sameRunProfile, '--public-key', signer.publicPath);
    expect(result.code).toBe(1);
    expect(result.fails).toContain(
      'expiry job: EXPIRY-* proven by a separate job (combine-bundles), which the profile does not allow (separateExpiryJob is not true)',
    );
  });
});

describe('combinations that are not what their parts say', () => {
  it('the combined report.json edited (and re-signed): exit 1, the first line that differs', async () => {
    const edited = join(dir, 'edited');
    await cp(combined, edited, { recursive: true });
    const report = JSON.parse(await readFile(join(edited, 'report.json'), 'utf8')) as RunReport;
    // The least edit a signer could make: one number the parts do not say.
    report.durationMs += 1;
    const json = `${JSON.stringify(report, null, 2)}\n`;
    await writeFile(join(edited, 'report.json'), json);
    await writeFile(join(edited, 'report.html'), renderHtmlReport(parseRunReport(json, 'report.json')));
    await reseal(edited, signer.key);
    const result = await verify(edited, '--profile', profile, '--public-key', signer.publicPath);
    expect(result.code).toBe(1);
    expect(result.fails).toEqual([
      expect.stringMatching(
        /^report\.json: is not what the parts combine to \(the main run's, with the expiry job's EXPIRY-\* results\): line \d+ is "\\"durationMs\\": \d+,", where it should be "\\"durationMs\\": \d+,"$/,
      ) as unknown as string,
    ]);
  });

  it("a part tampered with: exit 1, the top manifest and the part's own both say so", async () => {
    const tampered = join(dir, 'tampered');
    await cp(combined, tampered, { recursive: true });
    const path = join(tampered, 'parts', 'expiry', 'report.json');
    await writeFile(path, (await readFile(path, 'utf8')).replace('"passed"', '"passed" '));
    const result = await verify(tampered, '--profile', profile, '--public-key', signer.publicPath);
    expect(result.code).toBe(1);
    expect(result.fails).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^parts\/expiry\/report\.json: does not match the manifest/) as unknown as string,
        expect.stringMatching(/^parts\/expiry\/report\.json: does not match the manifest/) as unknown as string,
      ]),
    );
    expect(result.fails.filter((l) => l.includes('does not match the manifest'))).toHaveLength(2);
  });

  it('a main run against another target: combine-bundles refuses (exit 1); combined by hand, verify-bundle refuses (exit 1)', async () => {
    const other = await startReferenceServer({ tokenTtlSeconds: TTL });
    let otherMain: string;
    try {
      otherMain = (await bundledRun(other, 'other-main', ['--max-expiry-wait', '5', '--deadline', '10'])).bundle;
    } finally {
      await other.close();
    }
    const refused = await runMain([
      'combine-bundles',
      otherMain,
      expiry,
      '--output',
      join(dir, 'refused'),
      '--sign-key',
      signer.privatePath,
    ]);
    expect(refused.code).toBe(1);
    const lines = refused.stdout.trim().split('\n');
    expect(lines[0]).toBe('The bundles do not combine:');
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(
        /^ {2}FAIL {2}combination: the two runs differ on the base URL \(main: "http:\/\/127\.0\.0\.1:\d+"; expiry: "http:\/\/127\.0\.0\.1:\d+"\)$/,
      ),
      expect.stringMatching(/^ {2}FAIL {2}combination: the two runs differ on the auth URL/),
    ]);
    await expect(readdir(join(dir, 'refused'))).rejects.toThrow();

    // By hand: the other main run in parts/main, report.json and target.json derived, re-signed.
    const forged = join(dir, 'forged-targets');
    await cp(combined, forged, { recursive: true });
    await cp(otherMain, join(forged, 'parts', 'main'), { recursive: true });
    const { deriveCombined } = await import('../src/bundle/combination.js');
    const part = async (
      name: string,
    ): Promise<{ report: RunReport; info: ReturnType<typeof targetInfoSchema.parse> }> => ({
      report: parseRunReport(await readFile(join(forged, 'parts', name, 'report.json'), 'utf8'), 'report.json'),
      info: targetInfoSchema.parse(JSON.parse(await readFile(join(forged, 'parts', name, 'target.json'), 'utf8'))),
    });
    const derived = deriveCombined(await part('main'), await part('expiry'));
    await writeFile(join(forged, 'report.json'), derived.json);
    await writeFile(join(forged, 'target.json'), derived.target);
    await writeFile(join(forged, 'report.html'), renderHtmlReport(derived.report));
    const { renderJUnit } = await import('../src/report/junit.js');
    await writeFile(join(forged, 'junit.xml'), renderJUnit(derived.report));
    await reseal(forged, signer.key);
    const result = await verify(forged, '--profile', profile, '--public-key', signer.publicPath);
    expect(result.code).toBe(1);
    expect(result.fails).toEqual([
      expect.stringMatching(/^combination: the two runs differ on the base URL/),
      expect.stringMatching(/^combination: the two runs differ on the auth URL/),
    ]);
  }, 60_000);

  it('run --profile with separateExpiryJob: the expiry job is held to minMaxExpiryWait; a profile without it holds the main run too (exit 2)', async () => {
    const common = [
      'run',
      '--embedded',
      '--openapi',
      REFERENCE_OPENAPI_FILE,
      '--expectations',
      expectations,
      '--reports-dir',
      join(dir, 'refused-runs'),
    ];
    const expiryJob = await runMain([...common, '--profile', profile, '--suite', 'expiry', '--max-expiry-wait', '10']);
    expect([expiryJob.code, expiryJob.stderr.trim()]).toEqual([
      2,
      `carrier-conformance: --max-expiry-wait 10 contradicts the profile ${profile} (minMaxExpiryWait: 20)`,
    ]);
    const tooShort = await runMain([
      ...common,
      '--profile',
      profile,
      '--suite',
      'expiry',
      '--max-expiry-wait',
      '30',
      '--deadline',
      '20',
    ]);
    expect([tooShort.code, tooShort.stderr.trim().split('\n').length]).toEqual([2, 1]);
    expect(tooShort.stderr).toContain('--max-expiry-wait 30 is not below --deadline 20');
    const sameRun = await runMain([...common, '--profile', sameRunProfile, '--max-expiry-wait', '0']);
    expect([sameRun.code, sameRun.stderr.trim()]).toEqual([
      2,
      `carrier-conformance: --max-expiry-wait 0 contradicts the profile ${sameRunProfile} (minMaxExpiryWait: 20)`,
    ]);
    const partOfExpiry = await runMain([
      ...common,
      '--profile',
      profile,
      '--check',
      'EXPIRY-RENEW',
      '--max-expiry-wait',
      '30',
    ]);
    expect(partOfExpiry.code).toBe(2);
    expect(partOfExpiry.stderr).toContain('contradicts the profile');
  });

  it('a part replaced by a link: refused, never read through', async () => {
    const linked = join(dir, 'linked');
    await cp(combined, linked, { recursive: true });
    await rm(join(linked, 'parts', 'expiry'), { recursive: true });
    await symlink(expiry, join(linked, 'parts', 'expiry'));
    const result = await verify(linked, '--public-key', signer.publicPath);
    expect(result.code).toBe(1);
    expect(result.fails).toContain('parts/expiry: missing or not a directory (a link is refused)');
    // The layout broken, no part file is read: the manifest's entries for them are refused.
    expect(result.fails.filter((l) => l.startsWith('manifest.json: lists "parts/'))).toHaveLength(PART_FILES.length);
  });

  it('runs more than 24 h apart do not combine', async () => {
    const part = async (name: string): Promise<PartRun> => ({
      report: parseRunReport(await readFile(join(dir, name, 'report.json'), 'utf8'), 'report.json'),
      info: targetInfoSchema.parse(JSON.parse(await readFile(join(dir, name, 'target.json'), 'utf8'))),
    });
    const [m, e] = [await part('main'), await part('expiry')];
    expect(combinationProblems(m, e)).toEqual([]);
    const later = (iso: string, hours: number): string => new Date(Date.parse(iso) + hours * 3_600_000).toISOString();
    const late = {
      ...e,
      report: { ...e.report, startedAt: later(e.report.startedAt, 24), finishedAt: later(e.report.finishedAt, 24) },
    };
    expect(combinationProblems(m, late)).toEqual([
      expect.stringMatching(
        /^the two runs span 24\.0 h from the first start to the last end, more than 24 h: the deployment may have changed between them$/,
      ),
    ]);
  });

  it('the parts the wrong way round: combine-bundles refuses saying so (exit 1, nothing written); before, it wrote a bundle that did not verify', async () => {
    const out = join(dir, 'swapped');
    const result = await runMain(['combine-bundles', expiry, main, '--output', out, '--sign-key', signer.privatePath]);
    expect(result.code).toBe(1);
    expect(result.stdout.trim().split('\n')).toEqual([
      'The bundles do not combine:',
      "  FAIL  combination: the parts are the wrong way round: the first ran only the expiry suite, the second the rest; give the main run's bundle first: combine-bundles MAIN EXPIRY",
    ]);
    await expect(readdir(out)).rejects.toThrow();
    // A main run given twice: its expiry checks that wait the token out were not carried out.
    const twice = await runMain(['combine-bundles', main, main, '--output', out, '--sign-key', signer.privatePath]);
    expect(twice.code).toBe(1);
    expect(twice.stdout.trim().split('\n').slice(1)).toEqual([
      expect.stringMatching(
        /^ {2}FAIL {2}combination: the expiry part did not carry out EXPIRY-REFUSED-AFTER, EXPIRY-REFUSED-401, EXPIRY-INVALID-TOKEN-ERROR, EXPIRY-RENEW \(EXPIRY-REFUSED-AFTER error: not carried out, and --require-complete requires it: expires_in is 15 s, .*\): it does not prove expiry; give an expiry job's bundle second \(run --suite expiry --max-expiry-wait N\)$/,
      ),
    ]);
  });

  it('parts signed by two trusted signers do not combine: one signer vouches for a combined bundle', async () => {
    const other = await keyPair(dir, 'other-signer');
    const resigned = join(dir, 'expiry-other-signer');
    await cp(expiry, resigned, { recursive: true });
    const names = (await readdir(resigned)).filter((n) => n !== BUNDLE_FILES.manifest && n !== BUNDLE_FILES.signature);
    await sealBundle(
      resigned,
      await Promise.all(names.map(async (n) => [n, await readFile(join(resigned, n), 'utf8')] as [string, string])),
      other.key,
    );
    const keys = join(dir, 'two-signers.pem');
    await writeFile(
      keys,
      `# Globex Ltd\n${await readFile(signer.publicPath, 'utf8')}\n# Other Ltd\n${await readFile(other.publicPath, 'utf8')}`,
    );
    const result = await runMain([
      'combine-bundles',
      main,
      resigned,
      '--output',
      join(dir, 'two-signers'),
      '--sign-key',
      signer.privatePath,
      '--trusted-keys',
      keys,
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout.trim().split('\n').slice(1)).toEqual([
      `  FAIL  combination: the two parts are signed by different keys (main: ${keyFingerprint(signer.key)}; expiry: ${keyFingerprint(other.key)}): a combined bundle speaks for one signer; sign both runs with one key`,
    ]);
  });

  it('parts whose host resolved to a loopback address for one and a public one for the other do not combine', async () => {
    const part = async (name: string): Promise<PartRun> => ({
      report: parseRunReport(await readFile(join(dir, name, 'report.json'), 'utf8'), 'report.json'),
      info: targetInfoSchema.parse(JSON.parse(await readFile(join(dir, name, 'target.json'), 'utf8'))),
    });
    const [m, e] = [await part('main'), await part('expiry')];
    const publicly = {
      ...m,
      info: {
        ...m.info,
        target: {
          ...m.info.target,
          hosts: [{ host: 'carrier.example', addresses: [{ address: '203.0.113.7', kind: 'public' as const }] }],
        },
      },
    };
    const loopback = {
      ...e,
      info: {
        ...e.info,
        target: {
          ...e.info.target,
          hosts: [{ host: 'carrier.example', addresses: [{ address: '127.0.0.1', kind: 'loopback' as const }] }],
        },
      },
    };
    expect(combinationProblems(publicly, loopback)).toEqual([
      'the two runs differ on the kinds of address the hosts resolved to (main: [{"host":"carrier.example","kinds":["public"]}]; expiry: [{"host":"carrier.example","kinds":["loopback"]}])',
    ]);
  });

  it('combine-bundles: parts not signed by the key, and bad usage', async () => {
    const stranger = await keyPair(dir, 'stranger');
    const result = await runMain([
      'combine-bundles',
      main,
      expiry,
      '--output',
      join(dir, 'not-theirs'),
      '--sign-key',
      stranger.privatePath,
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      `  FAIL  main ${main}: signature: made with key ${keyFingerprint(signer.key)}, not with the key you trust (${keyFingerprint(stranger.key)})`,
    );
    const notEmpty = await runMain([
      'combine-bundles',
      main,
      expiry,
      '--output',
      main,
      '--sign-key',
      signer.privatePath,
    ]);
    expect([notEmpty.code, notEmpty.stderr.trim()]).toEqual([
      2,
      `carrier-conformance: --output ${main}: inside the bundle ${main}; give a directory of its own`,
    ]);
    // Like run --bundle: a folder holding anything but a bundle is refused; an earlier bundle is replaced (issue 39 item 11).
    const foreign = join(dir, 'with-notes');
    await cp(combined, foreign, { recursive: true });
    await writeFile(join(foreign, 'notes.txt'), 'mine');
    const refused = await runMain([
      'combine-bundles',
      main,
      expiry,
      '--output',
      foreign,
      '--sign-key',
      signer.privatePath,
    ]);
    expect([refused.code, refused.stderr.trim()]).toEqual([
      2,
      `carrier-conformance: --output ${foreign}: holds files that are not a bundle's (notes.txt); give a new or empty directory, or an earlier bundle (which is replaced)`,
    ]);
    const earlier = join(dir, 'earlier-combined');
    await cp(combined, earlier, { recursive: true });
    await writeFile(join(earlier, 'exchanges.jsonl'), '{"stale": true}\n');
    const replaced = await runMain([
      'combine-bundles',
      main,
      expiry,
      '--output',
      earlier,
      '--sign-key',
      signer.privatePath,
    ]);
    expect(replaced.code).toBe(0);
    expect((await verify(earlier, '--public-key', signer.publicPath)).fails).toEqual([]);
    const holding = await runMain([
      'combine-bundles',
      join(earlier, 'parts', 'main'),
      join(earlier, 'parts', 'expiry'),
      '--output',
      earlier,
      '--sign-key',
      signer.privatePath,
    ]);
    expect([holding.code, holding.stderr.trim()]).toEqual([
      2,
      `carrier-conformance: --output ${earlier}: holds the bundle ${join(earlier, 'parts', 'main')}, which writing there would replace; give a directory of its own`,
    ]);
    const inside = await runMain([
      'combine-bundles',
      main,
      expiry,
      '--output',
      join(main, 'combined'),
      '--sign-key',
      signer.privatePath,
    ]);
    expect([inside.code, inside.stderr.trim()]).toEqual([
      2,
      `carrier-conformance: --output ${join(main, 'combined')}: inside the bundle ${main}; give a directory of its own`,
    ]);
    const missing = await runMain([
      'combine-bundles',
      join(dir, 'nowhere'),
      expiry,
      '--output',
      join(dir, 'x'),
      '--sign-key',
      signer.privatePath,
    ]);
    expect([missing.code, missing.stderr.trim()]).toEqual([
      2,
      `carrier-conformance: combine-bundles ${join(dir, 'nowhere')}: no such directory; give the folder or the .tar.gz \`run --bundle\` wrote for the main run`,
    ]);
  });
});
