/**
 * A bundle as one file to send (issue 39 item 11): `run --bundle NAME.tar.gz` writes it,
 * `verify-bundle` reads it as it reads the folder; and an archive is someone else's file, read as
 * data (docs/security.md): links, devices, paths out of it, names no bundle has, duplicates,
 * oversized entries and decompression bombs are refused with one line, and nothing lands outside
 * the private folder it is unpacked into, which is gone afterwards.
 */
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unpackBundle, removeUnpacked } from '../src/bundle/archive.js';
import { startReferenceServer, type ReferenceServer } from '../src/reference/index.js';
import { BIN, runMain, targetArgs, tempDir } from './support/harness.js';
import { startHostile } from './support/hostile.js';
import { keyPair, type Keys } from './support/keys.js';

/** One ustar header block (POSIX.1-1988) and the entry's data padded to 512 bytes: what any tar writes, hand-made so that a test can write what no tar would. */
function entry(
  name: string,
  data: string | Buffer = '',
  o: { type?: string; link?: string; size?: number } = {},
): Buffer {
  const body = Buffer.from(data);
  const header = Buffer.alloc(512);
  const field = (offset: number, length: number, value: string): void =>
    void header.write(value, offset, length, 'utf8');
  const octal = (offset: number, length: number, n: number): void =>
    field(offset, length, `${n.toString(8).padStart(length - 1, '0')}\0`);
  field(0, 100, name);
  octal(100, 8, 0o644);
  octal(108, 8, 0);
  octal(116, 8, 0);
  octal(124, 12, o.size ?? body.length);
  octal(136, 12, 0);
  field(148, 8, '        ');
  field(156, 1, o.type ?? '0');
  if (o.link !== undefined) field(157, 100, o.link);
  field(257, 6, 'ustar\0');
  field(263, 2, '00');
  let sum = 0;
  for (const byte of header) sum += byte;
  field(148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  const padded = Buffer.alloc(Math.ceil(body.length / 512) * 512);
  body.copy(padded);
  return Buffer.concat([header, padded]);
}

const archive = (...entries: Buffer[]): Buffer => gzipSync(Buffer.concat([...entries, Buffer.alloc(1024)]));

let dir: string;
let keys: Keys;
let server: ReferenceServer;
let bundle: string;
let run: Awaited<ReturnType<typeof runMain>>;
let unpackedBefore: string[];
const previousTmp = process.env.TMPDIR;
/** The folders archives are unpacked into: in a temporary folder of this test's own, to count them. */
let tmp: string;

beforeAll(async () => {
  dir = await tempDir('carrier-archive-');
  tmp = join(dir, 'tmp');
  await mkdir(tmp);
  process.env.TMPDIR = tmp;
  keys = await keyPair(dir, 'signer');
  server = await startReferenceServer({});
  bundle = join(dir, 'sent', 'globex.tar.gz');
  process.env.CARRIER_CLIENT_SECRET = server.clientSecret;
  try {
    run = await runMain([
      'run',
      ...targetArgs(server),
      '--suite',
      'user',
      '--suite',
      'versioning',
      '--bundle',
      bundle,
      '--sign-key',
      keys.privatePath,
      '--reports-dir',
      join(dir, 'reports'),
    ]);
  } finally {
    delete process.env.CARRIER_CLIENT_SECRET;
  }
  unpackedBefore = await readdir(tmp);
}, 60_000);

afterAll(async () => {
  if (previousTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = previousTmp;
  await server?.close();
});

describe('run --bundle NAME.tar.gz', () => {
  it('writes the bundle as one archive of its fixed names, and says how to check it', () => {
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain(`Bundle: ${bundle} (signed, Ed25519 key `);
    expect(run.stdout).toContain(`verify-bundle ${bundle} --public-key YOUR-PUBLIC-KEY.pem`);
    const listed = execFileSync('tar', ['-tzf', bundle], { encoding: 'utf8' }).trim().split('\n');
    expect(listed).toEqual([
      'report.json',
      'junit.xml',
      'report.html',
      'target.json',
      'exchanges.jsonl',
      'manifest.json',
      'signature.json',
    ]);
    // Written in a private folder, then packed: nothing of it is left.
    expect(unpackedBefore).toEqual([]);
  });

  it('verify-bundle reads it as it reads the folder tar unpacks it to: the same findings and exit code, and no folder left behind', async () => {
    const verified = await runMain(['verify-bundle', bundle, '--public-key', keys.publicPath]);
    expect(verified.stdout).toMatch(new RegExp(`^Bundle ${bundle.replaceAll('.', '\\.')}\n`));
    // Signed by the key given, complete and untampered; a run of two suites is not certifiable.
    expect(verified.stdout).toContain('  ok    signature: ');
    expect(verified.stdout).toContain('  ok    manifest.json: 5 files, each matches its SHA-256');
    expect(verified.stdout).toContain('NOT CERTIFIABLE: ');
    expect(verified.code).toBe(1);
    expect(await readdir(tmp)).toEqual([]);
    const folder = join(dir, 'unpacked-by-tar');
    await mkdir(folder);
    execFileSync('tar', ['-xzf', bundle, '-C', folder]);
    const asFolder = await runMain(['verify-bundle', folder, '--public-key', keys.publicPath]);
    expect(asFolder.code).toBe(verified.code);
    expect(asFolder.stdout.split('\n').slice(1)).toEqual(verified.stdout.split('\n').slice(1));
  });

  it("an archive tar made of the folder (with ./ or the folder's name in front) reads the same", async () => {
    const folder = join(dir, 'unpacked-by-tar');
    const expected = (await runMain(['verify-bundle', folder, '--public-key', keys.publicPath])).stdout
      .split('\n')
      .slice(1);
    for (const [name, args] of [
      ['dot.tar.gz', ['-C', folder, '.']],
      ['named.tgz', ['-C', dir, 'unpacked-by-tar']],
    ] as const) {
      execFileSync('tar', ['-czf', join(dir, name), ...args]);
      const verified = await runMain(['verify-bundle', join(dir, name), '--public-key', keys.publicPath]);
      expect(verified.stdout.split('\n').slice(1), name).toEqual(expected);
    }
  });

  it('a bundle tampered with inside its archive: NOT CERTIFIABLE (exit 1), the file named', async () => {
    const folder = join(dir, 'tampered');
    await mkdir(folder);
    execFileSync('tar', ['-xzf', bundle, '-C', folder]);
    const report = join(folder, 'report.json');
    await writeFile(report, (await readFile(report, 'utf8')).replace('"passed"', '"passed" '));
    execFileSync('tar', ['-czf', join(dir, 'tampered.tar.gz'), '-C', folder, '.']);
    const verified = await runMain(['verify-bundle', join(dir, 'tampered.tar.gz'), '--public-key', keys.publicPath]);
    expect(verified.code).toBe(1);
    expect(verified.stdout).toMatch(/FAIL {2}report\.json: /);
  });

  it('refuses an --bundle archive path that is another file, before the run (exit 2)', async () => {
    const other = join(dir, 'notes.tar.gz');
    await writeFile(other, 'my notes');
    const refused = await runMain(['run', '--embedded', '--bundle', other, '--reports-dir', join(dir, 'reports-2')]);
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim()).toBe(
      `carrier-conformance: --bundle ${other}: exists and is not a bundle archive; give a new file name, or an earlier bundle archive (which is replaced)`,
    );
    expect(await readFile(other, 'utf8')).toBe('my notes');
  });
});

describe('run --bundle NAME.tar.gz interrupted', () => {
  it('SIGINT ends the run with its partial report and still writes the archive (exit 3), leaving no folder behind', async () => {
    const hostile = await startHostile({
      upstream: server.url,
      misbehaviour: 'silent',
      match: (path) => path === '/uaa/userinfo',
    });
    const childTmp = join(dir, 'child-tmp');
    await mkdir(childTmp);
    const archivePath = join(dir, 'interrupted.tar.gz');
    try {
      const child = spawn(
        process.execPath,
        [
          BIN,
          'run',
          '--base-url',
          hostile.url,
          '--client-id',
          server.clientId,
          '--reports-dir',
          join(dir, 'reports-interrupted'),
          '--suite',
          'legacy',
          '--timeout',
          '60000',
          '--bundle',
          archivePath,
        ],
        {
          env: { ...process.env, CARRIER_CLIENT_SECRET: server.clientSecret, TMPDIR: childTmp },
        },
      );
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      for (let i = 0; i < 100 && hostile.misbehaved === 0; i += 1) await new Promise((r) => setTimeout(r, 100));
      child.kill('SIGINT');
      expect(await exited, stderr).toBe(3);
      expect(execFileSync('tar', ['-tzf', archivePath], { encoding: 'utf8' })).toContain('report.json');
      const verified = await runMain(['verify-bundle', archivePath]);
      expect(verified.stdout).toContain('  ok    manifest.json: 5 files, each matches its SHA-256');
      expect((await readdir(childTmp)).filter((n) => n.startsWith('carrier-'))).toEqual([]);
    } finally {
      await hostile.close();
    }
  }, 60_000);
});

describe('a hostile archive is refused with one line, and nothing lands outside its private folder', () => {
  const cases: [string, Buffer, RegExp][] = [
    [
      'a symbolic link',
      archive(entry('report.json', '', { type: '2', link: '/etc/passwd' })),
      /"report\.json" is a symbolic link, refused: a bundle holds plain files only$/,
    ],
    [
      'a hard link',
      archive(entry('report.json', '', { type: '1', link: '/etc/passwd' })),
      /"report\.json" is a hard link, refused/,
    ],
    [
      'a device',
      archive(entry('report.json', '', { type: '3' })),
      /"report\.json" is a CharacterDevice entry, refused/,
    ],
    ['a FIFO', archive(entry('report.json', '', { type: '6' })), /"report\.json" is a FIFO entry, refused/],
    [
      'a path out of the folder',
      archive(entry('../../escaped.json', '{}')),
      /"\.\.\/\.\.\/escaped\.json": (not a plain name|outside the folder the other entries are in), refused$/,
    ],
    [
      'an absolute path',
      archive(entry('report.json', '{}'), entry('/tmp/escaped.json', '{}')),
      /"\/tmp\/escaped\.json": not a plain name, refused$/,
    ],
    [
      'a name no bundle has',
      archive(entry('report.json', '{}'), entry('run.sh', 'rm -rf /')),
      /"run\.sh": not part of a bundle, refused$/,
    ],
    [
      'a name that writes to the terminal',
      archive(entry('report.json', '{}'), entry('\u001b]0;owned\u0007\u009b31m\u202eevil', '')),
      /"\]0;owned31mevil": not part of a bundle, refused$/,
    ],
    [
      'a name twice',
      archive(entry('report.json', '{}'), entry('report.json', '{"x":1}')),
      /"report\.json": in the archive twice, refused$/,
    ],
    [
      'an entry larger than its kind can be',
      archive(entry('report.json', '', { size: 65 * 1024 * 1024 })),
      /"report\.json": more than the 67108864 bytes a bundle's report\.json can be$/,
    ],
    ['not gzip', Buffer.from('PK\u0003\u0004 a zip'), /not a gzip-compressed tar archive \(Z_DATA_ERROR\)$/],
    ['gzip of something not tar', gzipSync(Buffer.alloc(4096, 'x')), /not a bundle archive \(/],
  ];
  for (const [what, bytes, message] of cases) {
    it(`${what}: exit 2`, async () => {
      const file = join(dir, `hostile-${what.replaceAll(' ', '-')}.tar.gz`);
      await writeFile(file, bytes);
      const result = await runMain(['verify-bundle', file]);
      expect(result.code, result.stdout + result.stderr).toBe(2);
      const [line, ...more] = result.stderr.trim().split('\n');
      expect(more).toEqual([]);
      expect(line).toMatch(message);
      expect(line?.startsWith(`carrier-conformance: verify-bundle ${file}: `)).toBe(true);
      expect(await readdir(tmp)).toEqual([]);
    });
  }

  it('a decompression bomb: stopped at the bound, not unpacked to the end', async () => {
    const file = join(dir, 'bomb.tar.gz');
    // 64 MiB of zeros in one exchanges.jsonl: a few dozen KiB compressed.
    await writeFile(file, archive(entry('exchanges.jsonl', Buffer.alloc(64 * 1024 * 1024))));
    await expect(unpackBundle(file, 'verify-bundle', { maxUnpackedBytes: 1024 * 1024 })).rejects.toThrow(
      `verify-bundle ${file}: unpacks to more than the 1048576 bytes a bundle can hold`,
    );
    expect(await readdir(tmp)).toEqual([]);
  });

  it('the archive itself a link or a folder: refused as the folder form is', async () => {
    const link = join(dir, 'link.tar.gz');
    await symlink(bundle, link);
    expect((await runMain(['verify-bundle', link])).stderr.trim()).toBe(
      `carrier-conformance: verify-bundle ${link}: a symbolic link, refused; give the folder or the .tar.gz \`run --bundle\` wrote, not a link to it`,
    );
    const folder = join(dir, 'folder.tar.gz');
    await mkdir(folder);
    expect((await runMain(['verify-bundle', folder])).stderr.trim()).toBe(
      `carrier-conformance: verify-bundle ${folder}: not a regular file; give the folder or the .tar.gz \`run --bundle\` wrote`,
    );
  });

  it('matrix: an archive without a report.json is named as given, not by the folder it was unpacked into', async () => {
    const file = join(dir, 'no-report.tar.gz');
    await writeFile(file, archive(entry('target.json', '{}')));
    const result = await runMain(['matrix', file, '--out', join(dir, 'matrix')]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toMatch(
      new RegExp(`^carrier-conformance: matrix: report ${file.replaceAll('.', '\\.')}/report\\.json: `),
    );
    expect(await readdir(tmp)).toEqual([]);
  });

  it("only the bundle's names are written, as new plain files in a private folder", async () => {
    const file = join(dir, 'plain.tar.gz');
    await writeFile(
      file,
      archive(
        entry('bundle/', '', { type: '5' }),
        entry('bundle/report.json', '{}'),
        entry('bundle/parts/main/target.json', '{}'),
      ),
    );
    const unpacked = await unpackBundle(file, 'verify-bundle');
    try {
      expect(unpacked.startsWith(tmp)).toBe(true);
      expect(await readdir(unpacked, { recursive: true })).toEqual(
        expect.arrayContaining(['report.json', 'parts', join('parts', 'main'), join('parts', 'main', 'target.json')]),
      );
      expect(await readFile(join(unpacked, 'report.json'), 'utf8')).toBe('{}');
    } finally {
      await removeUnpacked(unpacked);
    }
    expect(await readdir(tmp)).toEqual([]);
  });
});
