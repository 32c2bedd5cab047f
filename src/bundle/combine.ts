import { createPublicKey, type KeyObject } from 'node:crypto';
import { existsSync } from 'node:fs';
import { lstat, mkdir } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { UsageError } from '../core/errors.js';
import { ExitCode } from '../core/exit-codes.js';
import { readRegularFile } from '../core/files.js';
import { renderHtmlReport } from '../report/html.js';
import { renderJUnit } from '../report/junit.js';
import { oneLine, printable } from '../core/wording.js';
import { REPORT_LIMIT } from '../report/read.js';
import { isArchivePath, removeUnpacked, unpackBundle } from './archive.js';
import { combinationProblems, deriveCombined, EXPIRY_CHECKS, type PartRun } from './combination.js';
import { BUNDLE_FILES, MANIFESTED, PART_NAMES, PARTS_DIR, type PartName } from '../certification/bundle-format.js';
import { keyFingerprint, loadSigningKey, trustOf } from './keys.js';
import {
  checkArchiveOutput,
  checkBundleDir,
  clearEarlierBundle,
  packInto,
  privateBundleDir,
  sealBundle,
} from './write.js';
import { Findings, verifyContents, type Trust } from './verify.js';

/**
 * `combine-bundles MAIN EXPIRY --output DIR --sign-key KEY`: the two-job expiry proof's command;
 * the combination itself, a pure function of the two parts, is combination.ts.
 */

export interface CombineOptions {
  output: string;
  signKey: string;
  publicKey?: string | undefined;
  trustedKeys?: string | undefined;
}

export interface CombineIO {
  out: (text: string) => void;
}

async function checkPartDir(dir: string, part: PartName): Promise<void> {
  const give = `give the folder or the .tar.gz \`run --bundle\` wrote for the ${part} run`;
  let stat;
  try {
    stat = await lstat(dir);
  } catch {
    throw new UsageError(`combine-bundles ${dir}: no such ${isArchivePath(dir) ? 'file' : 'directory'}; ${give}`);
  }
  const archive = isArchivePath(dir);
  if (stat.isSymbolicLink() || (archive ? !stat.isFile() : !stat.isDirectory()))
    throw new UsageError(
      `combine-bundles ${dir}: not a ${archive ? 'regular file' : 'directory'} (a link is refused); ${give}`,
    );
}

export async function combineBundlesCommand(
  mainPath: string,
  expiryPath: string,
  options: CombineOptions,
  io: CombineIO,
): Promise<number> {
  const given = trustOf(options.publicKey, options.trustedKeys);
  const key = loadSigningKey(options.signKey);
  // The parts must be signed by a key the combiner trusts: by default the one it signs with.
  const trust: Trust = given ?? { source: '--public-key', keys: [{ key: createPublicKey(key) }] };
  await checkPartDir(mainPath, 'main');
  await checkPartDir(expiryPath, 'expiry');
  // Nothing is made before the parts are known to combine: a refusal writes nothing.
  const archiveOut = isArchivePath(options.output);
  if (archiveOut) await checkArchiveOutput(options.output, '--output');
  else await checkBundleDir(options.output, '--output', false);
  for (const part of [mainPath, expiryPath]) {
    const inside = relative(resolve(part), resolve(options.output));
    // A directory written into a part would make it a bundle with a file no manifest covers.
    if (inside === '' || (!inside.startsWith('..') && !isAbsolute(inside)))
      throw new UsageError(
        `--output ${options.output}: ${inside === '' && archiveOut ? 'is' : 'inside'} the bundle ${part}; give ${archiveOut ? 'a file' : 'a directory'} of its own`,
      );
    // A part inside the output (an earlier combined bundle's parts/) would be replaced with it.
    const holds = relative(resolve(options.output), resolve(part));
    if (!archiveOut && !holds.startsWith('..') && !isAbsolute(holds))
      throw new UsageError(
        `--output ${options.output}: holds the bundle ${part}, which writing there would replace; give a directory of its own`,
      );
  }
  // An archive part is read from a private folder it is unpacked into; messages name the archive.
  const unpacked: string[] = [];
  try {
    const open = async (path: string): Promise<string> => {
      if (!isArchivePath(path)) return path;
      const dir = await unpackBundle(path, 'combine-bundles');
      unpacked.push(dir);
      return dir;
    };
    const parts = {
      main: { shown: mainPath, dir: await open(mainPath) },
      expiry: { shown: expiryPath, dir: await open(expiryPath) },
    };
    return await combineParts(parts, key, trust, options, io);
  } finally {
    for (const dir of unpacked) await removeUnpacked(dir);
  }
}

async function combineParts(
  parts: Record<PartName, { shown: string; dir: string }>,
  key: KeyObject,
  trust: Trust,
  options: CombineOptions,
  io: CombineIO,
): Promise<number> {
  const f = new Findings();
  const runs: Partial<Record<PartName, PartRun>> = {};
  for (const part of PART_NAMES) {
    const { shown, dir } = parts[part];
    const pf = new Findings();
    const contents = verifyContents(dir, trust, true, pf, false);
    for (const x of pf.list) if (x.level === 'fail') f.fail(`${part} ${shown}: ${x.topic}`, x.message);
    if (!contents.signerProven && !pf.list.some((x) => x.level === 'fail'))
      f.fail(
        `${part} ${shown}: signature`,
        `not signed by ${options.publicKey !== undefined || options.trustedKeys !== undefined ? 'a key you trust' : `the key of --sign-key (${keyFingerprint(key)})`}`,
      );
    if (contents.report !== undefined && contents.info !== undefined)
      runs[part] = {
        report: contents.report,
        info: contents.info,
        ...(contents.signer !== undefined ? { signer: contents.signer } : {}),
      };
  }
  if (runs.main !== undefined && runs.expiry !== undefined)
    for (const p of combinationProblems(runs.main, runs.expiry)) f.fail('combination', p);
  if (f.list.length > 0 || runs.main === undefined || runs.expiry === undefined) {
    io.out(
      `${['The bundles do not combine:', ...f.list.map((x) => `  FAIL  ${oneLine(printable(`${x.topic}: ${x.message}`), 400)}`)].join('\n')}\n`,
    );
    return ExitCode.NonConformant;
  }

  const derived = deriveCombined(runs.main, runs.expiry);
  const contents: [string, string][] = [
    [BUNDLE_FILES.report, derived.json],
    [BUNDLE_FILES.junit, renderJUnit(derived.report)],
    [BUNDLE_FILES.html, renderHtmlReport(derived.report)],
    [BUNDLE_FILES.target, derived.target],
  ];
  // An earlier bundle there is replaced (no part is inside it: refused above); an archive is written in a private folder first.
  const out = isArchivePath(options.output) ? await privateBundleDir() : options.output;
  await clearEarlierBundle(out);
  for (const part of PART_NAMES) {
    const { shown, dir } = parts[part];
    try {
      await mkdir(join(out, PARTS_DIR, part), { recursive: true });
    } catch (err) {
      throw new UsageError(
        `--output ${options.output}: cannot write there (${(err as { code?: string }).code ?? (err as Error).message})`,
      );
    }
    for (const name of [...MANIFESTED, BUNDLE_FILES.manifest, BUNDLE_FILES.signature]) {
      // Bundles of earlier versions have no exchanges.jsonl: verify-bundle says so of the part.
      if (name === BUNDLE_FILES.exchanges && !existsSync(join(dir, name))) continue;
      // Verified above; copied as they are (a bundle's files are UTF-8 text: the writer makes them so).
      const bytes = readRegularFile(join(dir, name), name, REPORT_LIMIT, { noFollow: true });
      const text = bytes.toString('utf8');
      if (!Buffer.from(text, 'utf8').equals(bytes))
        throw new UsageError(`combine-bundles ${shown}: ${name} is not UTF-8 text`);
      contents.push([`${PARTS_DIR}/${part}/${name}`, text]);
    }
  }
  const sealed = await sealBundle(out, contents, key);
  const written = out === options.output ? sealed : await packInto(out, options.output, sealed);
  const taken = derived.report.checks.filter((c) => EXPIRY_CHECKS.includes(c.id)).length;
  io.out(
    [
      `Combined bundle: ${printable(options.output)} (signed, Ed25519 key ${written.fingerprint ?? ''})`,
      `  ${taken} EXPIRY-* results from the expiry job (${runs.expiry.report.startedAt}, --max-expiry-wait ${runs.expiry.info.options.maxExpiryWait}), the other ${derived.report.checks.length - taken} from the main run (${runs.main.report.startedAt})`,
      `  ${derived.report.summary ?? derived.report.verdict}`,
      `  verdict: ${derived.report.verdict}; check it with: carrier-conformance verify-bundle ${printable(options.output)} --public-key KEY [--profile FILE]`,
    ].join('\n') + '\n',
  );
  return ExitCode.Conformant;
}
