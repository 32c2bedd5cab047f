/**
 * Hostile files (issue 28, items 4 and 7b): every file the harness reads may have been made by
 * someone else: a report, a bundle, a CI artifact, even a config file on a shared runner. Only a
 * regular file is read, and at most its limit; anything else is one line that names the file and
 * why (exit 2; inside a bundle, a finding and exit 1), promptly: never a hang, never a stack trace.
 *
 * Every case runs outside the test's process, with a kill timer: opening a FIFO blocks inside a
 * synchronous call, where not even SIGTERM is handled, so a regression must not be able to hang
 * the test run (an in-process run would hang Vitest's worker with it). The cases of a kind run
 * one after another in one child, the built CLI's `main` called once each (support/cli-batch.ts):
 * a process start per case was most of this file's CPU. A few spawn the executable itself.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, symlink, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE_FILES, MANIFEST_FORMAT, MANIFESTED, type Manifest } from '../src/certification/bundle-format.js';
import { lazyBatch, type BatchCase } from './support/cli-batch.js';
import { runBin, tempDir, type CliResult } from './support/harness.js';
import { fullReport, writeReport } from './support/reports.js';

/**
 * A refusal takes a process start (~0.3 s, several seconds on a loaded 2-core machine running two
 * test files at once); a hang lasts until the kill. Far apart, so that load cannot fail a case.
 */
const KILL_AFTER_MS = 30_000;
const PROMPT_MS = 20_000;

interface Timed extends CliResult {
  ms: number;
}

async function cli(args: readonly string[], env: Record<string, string> = {}): Promise<Timed> {
  const started = performance.now();
  const result = await runBin(args, { timeoutMs: KILL_AFTER_MS, env });
  return { ...result, ms: performance.now() - started };
}

/** The cases of one describe, planted in order and run in one child (support/cli-batch.ts). */
const batch = <C>(cases: readonly C[], prepare: (c: C) => Promise<BatchCase>): ((i: number) => Promise<Timed>) =>
  lazyBatch(cases, prepare, KILL_AFTER_MS);

/** One line on stderr, exit 2, promptly, nothing on stdout. */
function expectRefused(result: Timed, line: string | RegExp): void {
  expect(result.ms, 'returned promptly').toBeLessThan(PROMPT_MS);
  expect(result.code, result.stderr).toBe(2);
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  if (typeof line === 'string') expect(lines[0]).toBe(line);
  else expect(lines[0]).toMatch(line);
  expect(result.stdout).toBe('');
}

let dir: string;
/** A regular file outside every tree below, as a link's target. */
let outside: string;
let good: string;

/** What a hostile party can put where the harness expects a file. */
type Bad = 'fifo' | 'directory' | 'device' | 'link';

function fifo(path: string): void {
  execFileSync('mkfifo', [path]);
}

/**
 * A bad file at `path`. A path the operator names is trusted as a path (a link of their own is
 * followed), so there `link` is a link to a FIFO elsewhere: followed, and the FIFO refused.
 * Inside a tree (a bundle, a directory of reports) a link is refused as such, wherever it points.
 */
async function plant(path: string, bad: Bad, inTree: boolean): Promise<void> {
  switch (bad) {
    case 'fifo':
      fifo(path);
      return;
    case 'directory':
      return mkdir(path);
    case 'device':
      // A regular user cannot make a device node: a path named directly is /dev/zero itself (see
      // `named`); inside a tree, a link to it.
      return symlink('/dev/zero', path);
    case 'link':
      if (inTree) return symlink(outside, path);
      fifo(`${path}.target`);
      return symlink(`${path}.target`, path);
  }
}

/** The reason a reader gives for each bad file named directly on the command line. */
const NAMED_REASON: Record<Bad, string> = {
  fifo: 'it is a FIFO',
  directory: 'it is a directory',
  device: 'it is a device',
  link: 'it is a FIFO',
};
/** ... and inside a tree, where no link is followed. */
const IN_TREE_REASON: Record<Bad, string> = {
  fifo: 'it is a FIFO',
  directory: 'it is a directory',
  device: 'a symbolic link, refused',
  link: 'a symbolic link, refused',
};

let counter = 0;
/** A fresh path holding the bad file, named directly. */
async function named(bad: Bad): Promise<string> {
  if (bad === 'device') return '/dev/zero';
  const path = join(dir, `named-${counter++}-${bad}`);
  await plant(path, bad, false);
  return path;
}

beforeAll(async () => {
  dir = await tempDir('carrier-hostile-files-');
  outside = await writeReport(dir, 'outside.json', fullReport());
  good = await writeReport(dir, 'good.json', fullReport());
});

const BADS: Bad[] = ['fifo', 'directory', 'device', 'link'];

/** A run that fails on its files before it reaches the network: a target nothing listens on. */
const run = (...args: string[]): string[] => [
  'run',
  '--base-url',
  'http://127.0.0.1:9',
  '--client-id',
  'hostile-files',
  '--reports-dir',
  join(dir, 'reports'),
  ...args,
];
const SECRET = { CARRIER_CLIENT_SECRET: 'not-used' };

const TAKES_DIRECTORY = ['diff OLD', 'diff NEW', 'matrix', 'run --compare-with'];

/** Each reader of a file named on the command line: how to make it read `path`, and what it calls the file. */
const READERS: [string, (path: string) => string[], string][] = [
  ['diff OLD', (p) => ['diff', p, good], 'OLD report'],
  ['diff NEW', (p) => ['diff', good, p], 'NEW report'],
  ['matrix', (p) => ['matrix', p, '--out', join(dir, 'matrix-out')], 'matrix: report'],
  ['run --compare-with', (p) => run('--compare-with', p), '--compare-with'],
  ['run --baseline', (p) => run('--baseline', p), 'baseline file'],
  ['run --expectations', (p) => run('--expectations', p), 'expectations file'],
  ['run --config', (p) => ['run', '--config', p], 'config file'],
  ['run --rerun-failed', (p) => run('--rerun-failed', p), 'report'],
  [
    'run --client-secret-file',
    (p) => [
      'run',
      '--base-url',
      'http://127.0.0.1:9',
      '--client-id',
      'x',
      '--reports-dir',
      join(dir, 'reports'),
      '--client-secret-file',
      p,
    ],
    '--client-secret-file',
  ],
  ['run --ca-file', (p) => run('--ca-file', p), '--ca-file'],
  ['run --sign-key', (p) => run('--bundle', join(dir, 'new-bundle'), '--sign-key', p), '--sign-key'],
  ['verify-bundle --public-key', (p) => ['verify-bundle', dir, '--public-key', p], '--public-key'],
];

describe.skipIf(process.platform === 'win32')('a file named on the command line that is not a regular file', () => {
  // A directory named to diff, matrix or --compare-with is one of reports: see the next describe.
  const cases = READERS.flatMap(([reader, args, what]) =>
    BADS.filter((bad) => bad !== 'directory' || !TAKES_DIRECTORY.includes(reader)).map(
      (bad) => [reader, bad, args, what] as const,
    ),
  );
  const paths: string[] = [];
  const result = batch(cases, async ([, bad, args]) => {
    const path = await named(bad);
    paths.push(path);
    return { args: args(path), env: SECRET };
  });
  it.each(cases.map((c, i) => [...c, i] as const))('%s: %s', async (_reader, bad, _args, what, i) => {
    const ran = await result(i);
    expectRefused(ran, `carrier-conformance: ${what} ${paths[i] ?? ''}: cannot read it (${NAMED_REASON[bad]})`);
  });

  it('a link of the operator’s own to a regular file is followed (--config, diff)', async () => {
    const config = join(dir, 'real-config.json');
    await writeFile(
      config,
      JSON.stringify({
        baseUrl: 'http://127.0.0.1:9',
        clientId: 'x',
        reportsDir: join(dir, 'reports'),
        baseline: join(dir, 'nowhere.json'),
      }),
    );
    const link = join(dir, 'linked-config.json');
    await symlink(config, link);
    // It is read: the baseline it names is what is missing.
    expectRefused(
      await cli(['run', '--config', link], SECRET),
      `carrier-conformance: baseline file ${join(dir, 'nowhere.json')}: cannot read it (no such file)`,
    );
    const report = join(dir, 'linked-report.json');
    await symlink(outside, report);
    const diff = await cli(['diff', report, good]);
    expect(diff.code, diff.stderr).toBe(0);
  });
});

/** Each reader that takes a directory holding a report.json: the report.json in it is the directory's, not a way out. */
const DIRECTORY_READERS: [string, (path: string) => string[], string][] = [
  ['diff OLD', (p) => ['diff', p, good], 'OLD report'],
  ['matrix', (p) => ['matrix', p, '--out', join(dir, 'matrix-out')], 'matrix: report'],
  ['run --compare-with', (p) => run('--compare-with', p), '--compare-with'],
];

describe.skipIf(process.platform === 'win32')(
  'a directory of reports whose report.json is not a regular file of its own',
  () => {
    const cases = DIRECTORY_READERS.flatMap(([reader, args, what]) =>
      BADS.map((bad) => [reader, bad, args, what] as const),
    );
    const trees: string[] = [];
    const result = batch(cases, async ([, bad, args]) => {
      const tree = join(dir, `tree-${counter++}`);
      await mkdir(tree);
      await plant(join(tree, 'report.json'), bad, true);
      trees.push(tree);
      return { args: args(tree), env: SECRET };
    });
    it.each(cases.map((c, i) => [...c, i] as const))('%s DIR: %s', async (_reader, bad, _args, what, i) => {
      expectRefused(
        await result(i),
        `carrier-conformance: ${what} ${join(trees[i] ?? '', 'report.json')}: cannot read it (${IN_TREE_REASON[bad]})`,
      );
    });
  },
);

/**
 * A bundle whose every file is read: a manifest that lists the four manifested files (with digests
 * that do not match, which is a finding of its own), a readable report.json, and a signature.
 */
async function bundleWith(name: string, bad: Bad): Promise<string> {
  const bundle = join(dir, `bundle-${counter++}`);
  await mkdir(bundle);
  const manifest: Manifest = {
    format: MANIFEST_FORMAT,
    algorithm: 'sha256',
    files: MANIFESTED.map((path) => ({ path, sha256: '0'.repeat(64), bytes: 1 })),
  };
  const contents: Record<string, string> = {
    [BUNDLE_FILES.manifest]: JSON.stringify(manifest),
    [BUNDLE_FILES.report]: JSON.stringify(fullReport()),
    [BUNDLE_FILES.junit]: '<testsuites/>',
    [BUNDLE_FILES.html]: '<html></html>',
    [BUNDLE_FILES.target]: '{}',
    [BUNDLE_FILES.exchanges]: '',
    [BUNDLE_FILES.signature]: '{}',
  };
  for (const [file, text] of Object.entries(contents)) {
    if (file === name) await plant(join(bundle, file), bad, true);
    else await writeFile(join(bundle, file), text);
  }
  return bundle;
}

describe.skipIf(process.platform === 'win32')('a bundle holding a file that is not a regular file of its own', () => {
  const cases = Object.values(BUNDLE_FILES).flatMap((name) => BADS.map((bad) => [name, bad] as const));
  const verified = batch(cases, async ([name, bad]) => ({ args: ['verify-bundle', await bundleWith(name, bad)] }));
  it.each(cases.map((c, i) => [...c, i] as const))('verify-bundle with %s: %s', async (name, bad, i) => {
    const result = await verified(i);
    expect(result.ms, 'returned promptly').toBeLessThan(PROMPT_MS);
    // The bundle is judged, not the command line: a finding that names the file, exit 1.
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toBe('');
    const findings = result.stdout.split('\n').filter((l) => l.startsWith(`  FAIL  ${name}: cannot read it`));
    expect(findings).toEqual([`  FAIL  ${name}: cannot read it (${IN_TREE_REASON[bad]})`]);
    expect(result.stdout).toMatch(/NOT CERTIFIABLE/);
  });
});

describe('a file larger than its kind can be', () => {
  it.each([
    ['run --ca-file', (p: string) => run('--ca-file', p), '--ca-file', 4 * 1024 * 1024, 'a CA file'],
    [
      'run --client-secret-file',
      (p: string) => [
        'run',
        '--base-url',
        'http://127.0.0.1:9',
        '--client-id',
        'x',
        '--reports-dir',
        join(dir, 'reports'),
        '--client-secret-file',
        p,
      ],
      '--client-secret-file',
      64 * 1024,
      'a client secret file',
    ],
    [
      'verify-bundle --public-key',
      (p: string) => ['verify-bundle', dir, '--public-key', p],
      '--public-key',
      64 * 1024,
      'a PEM key',
    ],
  ] as const)('%s: refused by its size, never read', async (_reader, args, what, max, of) => {
    const path = join(dir, `huge-${counter++}`);
    await writeFile(path, '');
    await truncate(path, 1024 * 1024 * 1024); // sparse: a gigabyte that takes no room
    const result = await cli(args(path), SECRET);
    expectRefused(
      result,
      `carrier-conformance: ${what} ${path}: ${1024 * 1024 * 1024} bytes, more than the ${max} ${of} can be; is it the right file?`,
    );
  });
});

describe.skipIf(process.platform === 'win32')('verify-bundle of a link to a bundle', () => {
  it.each(['', '/', '/.', '//'])('is refused, however the path ends (%j)', async (ending) => {
    const real = await bundleWith('none', 'fifo');
    const link = join(dir, `linked-bundle-${counter++}`);
    await symlink(real, link);
    const result = await cli(['verify-bundle', `${link}${ending}`]);
    expectRefused(
      result,
      `carrier-conformance: verify-bundle ${link}${ending}: a symbolic link, refused; give the folder or the .tar.gz \`run --bundle\` wrote, not a link to it`,
    );
  });

  it('the bundle itself is verified with or without a trailing slash', async () => {
    const real = await bundleWith('none', 'fifo');
    const bare = await cli(['verify-bundle', real]);
    const slashed = await cli(['verify-bundle', `${real}/`]);
    expect([bare.code, slashed.code]).toEqual([1, 1]);
    expect(slashed.stdout.split('\n').slice(1)).toEqual(bare.stdout.split('\n').slice(1));
  });
});
