import type { KeyObject } from 'node:crypto';
import { access, lstat, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { constants as fsConstants } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { parameterValues, type RunOptions } from '../config/options.js';
import { UsageError } from '../core/errors.js';
import { FILE_LIMITS, readRegularFile, type FileLimit } from '../core/files.js';
import { proxyFor } from '../http/proxy.js';
import { renderHtmlReport } from '../report/html.js';
import { renderJsonReport } from '../report/json.js';
import { renderJUnit } from '../report/junit.js';
import type { RunReport } from '../model/run-report.js';
import { parseRunReport } from '../report/read.js';
import { targetName } from '../report/target-name.js';
import { writeAtomically } from '../report/write.js';
import { writeExchangesJsonl, type RunExchanges } from '../report/exchanges.js';
import {
  BUNDLE_FILES,
  BUNDLE_NAMES,
  MANIFEST_FORMAT,
  PARTS_DIR,
  SIGNATURE_FORMAT,
  TARGET_FORMAT,
  sha256Of,
  type Manifest,
  type Signature,
  type TargetInfo,
} from '../certification/bundle-format.js';
import { keyFingerprint, loadSigningKey, publicKeyPem, signBytes } from './keys.js';
import { isArchivePath, packBundle, removeAtExit, removeUnpacked, unpackBundle } from './archive.js';
import type { AppliedProfile } from '../certification/apply.js';
import { recordHosts, type HostRecord } from '../certification/targets.js';

/**
 * `run --bundle DIR [--sign-key FILE]`: the run's evidence as a certification bundle (format.ts).
 * Everything the user gave is checked before the run (directory, key), so a bad option costs no run.
 */

export interface BundlePlan {
  /** Where the bundle's files are written: the folder asked for, or a private folder packed into `archive`. */
  dir: string;
  /** `--bundle NAME.tar.gz`: the single file the bundle is packed into once written (archive.ts). */
  archive?: string;
  key?: KeyObject;
  /** The certification profile the run applied (`run --profile`): its digest goes into target.json. */
  profile?: AppliedProfile;
}

/** The directory must be new, empty, or an earlier bundle (which is replaced): never someone's files. */
/**
 * Where a bundle may be written (`run --bundle DIR`, `combine-bundles --output DIR`): a new or
 * empty directory, or an earlier bundle (only a bundle's files, and a combined bundle's parts/),
 * which is replaced (clearEarlierBundle, once the new one is ready to be written); never a folder
 * holding anything else (issue 39 item 11: the two commands disagreed).
 */
export async function checkBundleDir(dir: string, flag: '--bundle' | '--output', create = true): Promise<void> {
  let entries: string[];
  try {
    const stat = await lstat(dir);
    if (!stat.isDirectory())
      throw new UsageError(`${flag} ${dir}: exists and is not a directory; give a new directory`);
    entries = await readdir(dir);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    if ((err as { code?: string }).code === 'ENOENT') entries = [];
    else
      throw new UsageError(
        `${flag} ${dir}: cannot use it (${(err as { code?: string }).code ?? (err as Error).message})`,
      );
  }
  const foreign = entries.filter((name) => !BUNDLE_NAMES.includes(name) && name !== PARTS_DIR);
  if (foreign.length > 0)
    throw new UsageError(
      `${flag} ${dir}: holds files that are not a bundle's (${foreign.slice(0, 3).join(', ')}${foreign.length > 3 ? ', …' : ''}); give a new or empty directory, or an earlier bundle (which is replaced)`,
    );
  // Made now where the bundle is written an hour later (run --bundle): a directory it cannot write is said before the run.
  if (!create) return;
  try {
    await mkdir(dir, { recursive: true });
    await access(dir, fsConstants.W_OK);
  } catch (err) {
    throw new UsageError(
      `${flag} ${dir}: cannot write there (${(err as { code?: string }).code ?? (err as Error).message})`,
    );
  }
}

/** An earlier bundle's files, removed before the new one is written: none of it may stay unlisted beside it. */
export async function clearEarlierBundle(dir: string): Promise<void> {
  for (const name of [...BUNDLE_NAMES, PARTS_DIR]) await rm(join(dir, name), { recursive: true, force: true });
}

export async function prepareBundle(options: RunOptions, profile?: AppliedProfile): Promise<BundlePlan | undefined> {
  if (options.bundle === undefined) {
    if (options.signKey !== undefined)
      throw new UsageError('--sign-key needs --bundle DIR: it signs a certification bundle');
    return undefined;
  }
  const key = options.signKey === undefined ? undefined : loadSigningKey(options.signKey);
  const extras = { ...(key ? { key } : {}), ...(profile ? { profile } : {}) };
  if (isArchivePath(options.bundle)) {
    await checkArchiveOutput(options.bundle, '--bundle');
    return { dir: await privateBundleDir(), archive: options.bundle, ...extras };
  }
  await checkBundleDir(options.bundle, '--bundle');
  return { dir: options.bundle, ...extras };
}

function fileDigest(path: string, what: string, limit: FileLimit): { file: string; sha256: string } {
  // Read once already by the run; read again for its digest, as safely: it may have been
  // replaced since (by a FIFO, which would hang the end of the run).
  return { file: basename(path), sha256: sha256Of(readRegularFile(path, what, limit)) };
}

/** target.json, from an allow-list of the report and options: nothing secret can reach it. */
export function targetInfo(
  report: RunReport,
  options: RunOptions,
  extra: { hosts?: HostRecord[]; profile?: AppliedProfile } = {},
): TargetInfo {
  const { target } = report;
  // The proxy each of the target's URLs was reached through, if any (src/http/dispatcher.ts).
  const proxies = target.embedded
    ? []
    : [...new Set([target.baseUrl, target.authUrl])].flatMap((url) => {
        const via = proxyFor(url);
        return via === undefined ? [] : [{ url, via }];
      });
  return {
    format: TARGET_FORMAT,
    implementation: {
      name: targetName(report),
      ...(target.version !== undefined ? { version: target.version } : {}),
      ...(target.operator !== undefined ? { operator: target.operator } : {}),
    },
    target: {
      baseUrl: target.baseUrl,
      authUrl: target.authUrl,
      embedded: target.embedded,
      ...(target.tenantId !== undefined ? { tenantId: target.tenantId } : {}),
      // By digest only: enough for combine-bundles to tell two runs used the same client.
      ...(options.clientId !== undefined && !target.embedded ? { clientIdSha256: sha256Of(options.clientId) } : {}),
      pagedPaths: target.pagedPaths,
      ...(target.endpoints !== undefined ? { endpoints: target.endpoints } : {}),
      ...(extra.hosts !== undefined ? { hosts: extra.hosts } : {}),
      ...(proxies.length > 0 ? { proxies } : {}),
      ...(target.isolation !== undefined
        ? {
            isolation: {
              ...target.isolation,
              ...(target.isolation.method === 'second-client' &&
              options.secondClientId !== undefined &&
              !target.embedded
                ? { secondClientIdSha256: sha256Of(options.secondClientId) }
                : {}),
            },
          }
        : {}),
    },
    ...(extra.profile !== undefined
      ? {
          certification: {
            profile: {
              file: basename(extra.profile.file),
              sha256: extra.profile.sha256,
              ...(extra.profile.name !== undefined ? { name: extra.profile.name } : {}),
            },
          },
        }
      : {}),
    harness: { name: report.tool.name, version: report.tool.version },
    catalogue: report.catalogue ?? { digest: 'unknown', checks: 0, must: 0 },
    run: { startedAt: report.startedAt, finishedAt: report.finishedAt, verdict: report.verdict },
    options: {
      strict: options.strict,
      suites: [...options.suite],
      checks: [...options.check],
      ...(report.rerunOf !== undefined ? { rerunOf: report.rerunOf } : {}),
      ...(options.baseline !== undefined
        ? {
            baseline: {
              ...fileDigest(options.baseline, 'baseline file', FILE_LIMITS.baseline),
              entries: report.baseline?.entries ?? 0,
              strict: options.strictBaseline,
            },
          }
        : {}),
      ...(options.expectations !== undefined
        ? { expectations: fileDigest(options.expectations, 'expectations file', FILE_LIMITS.expectations) }
        : {}),
      ...(options.openapi !== undefined
        ? {
            openapi: {
              ...fileDigest(options.openapi, '--openapi', FILE_LIMITS.openapi),
              ...(report.target.openapiFiles !== undefined ? { files: report.target.openapiFiles } : {}),
            },
          }
        : {}),
      endpoints: [...options.endpoint],
      parameters: parameterValues(options),
      ...(options.caFile !== undefined ? { caFile: fileDigest(options.caFile, '--ca-file', FILE_LIMITS.ca) } : {}),
      insecure: options.insecure,
      ...(options.foreignTenantId !== undefined ? { foreignTenantId: options.foreignTenantId } : {}),
      maxExpiryWait: options.maxExpiryWait,
      expiryMargin: options.expiryMargin,
      timeout: options.timeout,
      deadline: options.deadline,
      maxRetries: options.maxRetries,
      maxRetryWait: options.maxRetryWait,
      maxBodyBytes: options.maxBodyBytes,
      ...(options.pageSize !== undefined ? { pageSize: options.pageSize } : {}),
      ...(options.maxPages !== undefined ? { maxPages: options.maxPages } : {}),
      ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    },
  };
}

export interface WrittenBundle {
  dir: string;
  files: string[];
  fingerprint?: string;
}

/** Writes the bundle (sealBundle); `exchanges`: the run's exchange log, streamed into exchanges.jsonl (none: the run made no request). */
export async function writeBundle(
  plan: BundlePlan,
  report: RunReport,
  options: RunOptions,
  exchanges?: RunExchanges,
): Promise<WrittenBundle> {
  const json = renderJsonReport(report);
  await clearEarlierBundle(plan.dir);
  // Where the target was, for a profile that refuses loopback and private addresses (issue 31).
  const hosts = report.target.embedded ? undefined : await recordHosts([report.target.baseUrl, report.target.authUrl]);
  const contents: [string, string][] = [
    [BUNDLE_FILES.report, json],
    [BUNDLE_FILES.junit, renderJUnit(report)],
    // From report.json as written, as the verifier renders it (src/bundle/verify.ts checkHtml):
    // the page must be byte for byte what report.json alone makes.
    [BUNDLE_FILES.html, renderHtmlReport(parseRunReport(json, BUNDLE_FILES.report))],
    [
      BUNDLE_FILES.target,
      `${JSON.stringify(targetInfo(report, options, { ...(hosts ? { hosts } : {}), ...(plan.profile ? { profile: plan.profile } : {}) }), null, 2)}\n`,
    ],
  ];
  // Every exchange of the run, streamed from the log: a walk of a million items is never in memory.
  await rm(join(plan.dir, BUNDLE_FILES.signature), { force: true });
  await rm(join(plan.dir, BUNDLE_FILES.manifest), { force: true });
  const written =
    exchanges !== undefined ? await writeExchangesJsonl(exchanges, join(plan.dir, BUNDLE_FILES.exchanges)) : undefined;
  if (written === undefined) contents.push([BUNDLE_FILES.exchanges, '']);
  const sealed = await sealBundle(
    plan.dir,
    contents,
    plan.key,
    written ? [{ path: BUNDLE_FILES.exchanges, ...written }] : [],
  );
  return plan.archive === undefined ? sealed : packInto(plan.dir, plan.archive, sealed);
}

/** A folder of the harness's own to write a bundle into before it is packed (archive.ts removes it at exit if need be). */
export async function privateBundleDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'carrier-writing-bundle-'));
  removeAtExit(dir);
  return dir;
}

/** Packs the bundle written in the private folder `dir` into `archive`, and removes the folder. */
export async function packInto(dir: string, archive: string, sealed: WrittenBundle): Promise<WrittenBundle> {
  try {
    await packBundle(dir, archive);
  } finally {
    await removeUnpacked(dir);
  }
  return { ...sealed, dir: resolve(archive) };
}

/**
 * Where a bundle archive may be written (`--bundle NAME.tar.gz`, `combine-bundles --output
 * NAME.tar.gz`): a new file in a folder that can be written, or an earlier bundle archive (which
 * is replaced); never a file that is not a bundle's, nor a link.
 */
export async function checkArchiveOutput(file: string, flag: '--bundle' | '--output'): Promise<void> {
  let stat;
  try {
    stat = await lstat(file);
  } catch (err) {
    if ((err as { code?: string }).code !== 'ENOENT')
      throw new UsageError(
        `${flag} ${file}: cannot use it (${(err as { code?: string }).code ?? (err as Error).message})`,
      );
  }
  if (stat !== undefined) {
    if (!stat.isFile()) throw new UsageError(`${flag} ${file}: exists and is not a regular file; give a new file name`);
    try {
      await removeUnpacked(await unpackBundle(file, flag));
    } catch {
      throw new UsageError(
        `${flag} ${file}: exists and is not a bundle archive; give a new file name, or an earlier bundle archive (which is replaced)`,
      );
    }
  }
  try {
    await mkdir(dirname(resolve(file)), { recursive: true });
    await access(dirname(resolve(file)), fsConstants.W_OK);
  } catch (err) {
    throw new UsageError(
      `${flag} ${file}: cannot write there (${(err as { code?: string }).code ?? (err as Error).message})`,
    );
  }
}

/**
 * Writes `contents` (name, text) into `dir`, then the manifest of them all and, with `key`, its
 * signature. The old manifest and signature go first, so that a bundle interrupted while written
 * never pairs a valid-looking manifest with other files; each file is written atomically.
 * combine-bundles (src/bundle/combine.ts) seals a combined bundle the same way.
 */
export async function sealBundle(
  dir: string,
  contents: readonly (readonly [string, string])[],
  key: KeyObject | undefined,
  prewritten: readonly { path: string; sha256: string; bytes: number }[] = [],
): Promise<WrittenBundle> {
  await rm(join(dir, BUNDLE_FILES.signature), { force: true });
  await rm(join(dir, BUNDLE_FILES.manifest), { force: true });
  for (const [name, text] of contents) await writeAtomically(join(dir, name), text);

  const manifest: Manifest = {
    format: MANIFEST_FORMAT,
    algorithm: 'sha256',
    // Files written already (streamed, with their digest): listed after the others, in the order of MANIFESTED.
    files: [
      ...contents.map(([path, text]) => ({ path, sha256: sha256Of(text), bytes: Buffer.byteLength(text, 'utf8') })),
      ...prewritten.map(({ path, sha256, bytes }) => ({ path, sha256, bytes })),
    ],
  };
  const manifestText = `${JSON.stringify(manifest, null, 2)}\n`;
  await writeAtomically(join(dir, BUNDLE_FILES.manifest), manifestText);
  const files = [...contents.map(([name]) => name), ...prewritten.map((p) => p.path), BUNDLE_FILES.manifest];
  if (key === undefined) return { dir: resolve(dir), files };

  const fingerprint = keyFingerprint(key);
  const signature: Signature = {
    format: SIGNATURE_FORMAT,
    algorithm: 'Ed25519',
    signed: BUNDLE_FILES.manifest,
    publicKey: publicKeyPem(key),
    keyFingerprint: fingerprint,
    signature: signBytes(Buffer.from(manifestText, 'utf8'), key),
  };
  await writeAtomically(join(dir, BUNDLE_FILES.signature), `${JSON.stringify(signature, null, 2)}\n`);
  return { dir: resolve(dir), files: [...files, BUNDLE_FILES.signature], fingerprint };
}
