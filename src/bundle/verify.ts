import type { KeyObject } from 'node:crypto';
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ZodType } from 'zod';
import { CHECKS, findCheck } from '../catalogue/index.js';
import { catalogueDigest } from '../catalogue/digest.js';
import { HarnessExit } from '../core/errors.js';
import { oneLine } from '../core/wording.js';
import { checkReason } from '../report/findings-text.js';
import { renderHtmlReport } from '../report/html.js';
import { countStatuses, type RunReport } from '../model/run-report.js';
import { readRegularFile, type FileLimit } from '../core/files.js';
import { REPORT_LIMIT, parseRunReport } from '../report/read.js';
import { expiryNotWaitedOut, scopeOfReport, verdictOf, verdictOfReport } from '../report/verdict.js';
import { TOOL_NAME, TOOL_VERSION } from '../core/version.js';
import { checkEvidence, readExchanges, type ReadExchanges } from './evidence.js';
import {
  BUNDLE_FILES,
  BUNDLE_NAMES,
  COMBINED_TOP,
  MANIFESTED,
  PARTS_DIR,
  PART_FILES,
  PART_NAMES,
  isBundleFileName,
  manifestSchema,
  sha256Of,
  signatureSchema,
  targetInfoSchema,
  type Manifest,
  type TargetInfo,
} from '../certification/bundle-format.js';
import { junitDisagreements } from './junit-agree.js';
import { JUnitReadError, readJUnit } from './junit-read.js';
import { keyFingerprint, parsePublicKey, verifyBytes, type Trust, type TrustedKey } from './keys.js';
import type { LoadedProfile } from '../certification/profile.js';
import { checkProfile } from '../certification/verify.js';
import { EXPIRY_CHECKS, combinationProblems, deriveCombined, type PartRun } from './combination.js';
import type { PartName } from '../certification/bundle-format.js';

/**
 * `verify-bundle DIR`: what a certification programme checks before it accepts a submission.
 * Integrity (every file matches the manifest, nothing else is in the bundle, the signature holds),
 * currency (today's catalogue), completeness and conformance (every MUST check of the catalogue
 * passed: none missing, skipped, errored, failed or accepted by a baseline), and consistency
 * (report.json, junit.xml and target.json tell the same story, and report.html is the page
 * report.json renders). Every finding is collected;
 * nothing stops at the first. The bundle is data: no file outside it is read, nothing is fetched.
 */

export type FindingLevel = 'ok' | 'fail' | 'note';

export interface BundleFinding {
  level: FindingLevel;
  topic: string;
  message: string;
}

export interface BundleVerdict {
  findings: BundleFinding[];
  /** Complete, untampered, conformant: no `fail` finding. */
  certifiable: boolean;
  /**
   * The signature holds for a key the verifier gave (--public-key). Without it a bundle proves
   * only that its files belong together: anyone can make one from scratch, unsigned or signed
   * with a key of their own, so certification needs this too (exit 4 otherwise, src/core/exit-codes.ts).
   */
  signerProven: boolean;
}

/** Far larger than a manifest, target.json or signature.json can honestly be. */
function small(name: string): FileLimit {
  return { maxBytes: 1024 * 1024, of: `a bundle's ${name}` };
}

export class Findings {
  readonly list: BundleFinding[] = [];
  ok(topic: string, message: string): void {
    this.list.push({ level: 'ok', topic, message });
  }
  fail(topic: string, message: string): void {
    this.list.push({ level: 'fail', topic, message });
  }
  note(topic: string, message: string): void {
    this.list.push({ level: 'note', topic, message });
  }
}

/** The bundle's files, each read at most once, never through a link, bounded; a problem is said once. */
class BundleFiles {
  readonly #read = new Map<string, Buffer | undefined>();
  readonly #exchanges = new Map<string, ReadExchanges | undefined>();
  constructor(
    readonly dir: string,
    private readonly f: Findings,
  ) {}

  exists(name: string): boolean {
    return lstatOrUndefined(join(this.dir, name)) !== undefined;
  }

  /** An exchanges.jsonl, read a chunk at a time (it may be far larger than a report): its digest and entries. */
  exchanges(name: string): ReadExchanges | undefined {
    if (this.#exchanges.has(name)) return this.#exchanges.get(name);
    let read: ReadExchanges | undefined;
    const path = join(this.dir, name);
    try {
      read = readExchanges(path, name);
    } catch (err) {
      this.f.fail(
        name,
        err instanceof HarnessExit ? err.message.replace(`${name} ${path}: `, '') : (err as Error).message,
      );
    }
    this.#exchanges.set(name, read);
    return read;
  }

  get(name: string, limit: FileLimit = REPORT_LIMIT): Buffer | undefined {
    if (this.#read.has(name)) return this.#read.get(name);
    let bytes: Buffer | undefined;
    const path = join(this.dir, name);
    try {
      // Only the bundle's own plain files: no link out of it, no FIFO or device to block on.
      bytes = readRegularFile(path, name, limit, { noFollow: true });
    } catch (err) {
      this.f.fail(
        name,
        err instanceof HarnessExit ? err.message.replace(`${name} ${path}: `, '') : (err as Error).message,
      );
    }
    this.#read.set(name, bytes);
    return bytes;
  }
}

function parseJson<T>(bytes: Buffer, schema: ZodType<T>, name: string, f: Findings): T | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    f.fail(name, `not valid JSON (${(err as Error).message})`);
    return undefined;
  }
  const result = schema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    f.fail(name, `not a bundle's ${name} (${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'})`);
    return undefined;
  }
  return result.data;
}

/** Only the bundle's own plain files (and a combined bundle's parts/): a link could point anywhere, an extra file is unsigned. */
function checkListing(dir: string, f: Findings, combined: boolean): void {
  for (const name of readdirSync(dir)) {
    if (!BUNDLE_NAMES.includes(name) && !(combined && name === PARTS_DIR))
      f.fail('bundle', `${JSON.stringify(oneLine(name, 120))} is not part of a bundle and no manifest covers it`);
  }
}

/**
 * A combined bundle's parts/ holds exactly main/ and expiry/, real directories: read through a
 * link, parts/main/report.json could be any file (readRegularFile refuses a link only as the last
 * part of a path). Whether the layout holds; each problem is a finding.
 */
function checkPartsLayout(dir: string, f: Findings): boolean {
  const isDir = (path: string): boolean => {
    const stat = lstatOrUndefined(path);
    return stat !== undefined && stat.isDirectory() && !stat.isSymbolicLink();
  };
  if (!isDir(join(dir, PARTS_DIR))) {
    f.fail(PARTS_DIR, 'not a directory (a link is refused): a combined bundle holds its two runs there');
    return false;
  }
  let ok = true;
  for (const name of readdirSync(join(dir, PARTS_DIR))) {
    if (!(PART_NAMES as readonly string[]).includes(name)) {
      f.fail(
        PARTS_DIR,
        `${JSON.stringify(oneLine(name, 120))} is not a part of a combined bundle (${PART_NAMES.join(', ')})`,
      );
      ok = false;
    }
  }
  for (const part of PART_NAMES) {
    if (!isDir(join(dir, PARTS_DIR, part))) {
      f.fail(`${PARTS_DIR}/${part}`, 'missing or not a directory (a link is refused)');
      ok = false;
    }
  }
  return ok;
}

/** Every manifested file present, once, with its digest; the manifest's bytes for the signature. */
function checkManifest(
  files: BundleFiles,
  f: Findings,
  combined: boolean,
): { manifestBytes?: Buffer; intact: Set<string> } {
  const required = combined ? [...COMBINED_TOP, ...PART_FILES] : MANIFESTED;
  const intact = new Set<string>();
  const manifestBytes = files.get(BUNDLE_FILES.manifest, small(BUNDLE_FILES.manifest));
  if (manifestBytes === undefined) return { intact };
  const manifest: Manifest | undefined = parseJson(manifestBytes, manifestSchema, BUNDLE_FILES.manifest, f);
  if (manifest === undefined) return { manifestBytes, intact };
  const listed = new Set<string>();
  for (const entry of manifest.files) {
    if (!isBundleFileName(entry.path, combined)) {
      f.fail(
        BUNDLE_FILES.manifest,
        `lists ${JSON.stringify(oneLine(entry.path, 120))}, which is not one of the bundle's files (${MANIFESTED.join(', ')}): not read`,
      );
      continue;
    }
    if (listed.has(entry.path)) {
      f.fail(BUNDLE_FILES.manifest, `lists ${entry.path} twice`);
      continue;
    }
    listed.add(entry.path);
    const isExchanges = entry.path.endsWith(BUNDLE_FILES.exchanges);
    const streamed = isExchanges ? files.exchanges(entry.path) : undefined;
    const bytes = isExchanges ? undefined : files.get(entry.path);
    if (bytes === undefined && streamed === undefined) continue;
    const digest = streamed?.sha256 ?? sha256Of(bytes ?? Buffer.alloc(0));
    const size = streamed?.bytes ?? bytes?.length ?? 0;
    if (digest !== entry.sha256 || size !== entry.bytes)
      f.fail(
        entry.path,
        `does not match the manifest (sha256 ${digest.slice(0, 16)}…, ${size} bytes; the manifest says ${entry.sha256.slice(0, 16)}…, ${entry.bytes} bytes): changed after the bundle was made`,
      );
    else intact.add(entry.path);
  }
  for (const name of required) {
    if (!listed.has(name)) f.fail(BUNDLE_FILES.manifest, `does not list ${name}`);
  }
  if (intact.size === required.length)
    f.ok(BUNDLE_FILES.manifest, `${required.length} files, each matches its SHA-256`);
  return { manifestBytes, intact };
}

function lstatOrUndefined(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/** The keys the verifier trusts: one given with --public-key, or the programme's signers (--trusted-keys). */
export type { Trust } from './keys.js';

/** Whether the signature holds for a key of the trusted keys file; every other outcome is a finding. */
function checkSignatureByKeysFile(
  signatureKey: KeyObject,
  manifestBytes: Buffer,
  signature: string,
  trust: Trust,
  f: Findings,
  seen: { trusted?: TrustedKey },
): boolean {
  const topic = 'signature';
  const embedded = keyFingerprint(signatureKey);
  // The bundle's own key only says which trusted key to try: the signature must hold for that one.
  const signer = trust.keys.find((k) => keyFingerprint(k.key) === embedded);
  if (signer === undefined) {
    f.fail(topic, `made with key ${embedded}, which is not one of the ${trust.keys.length} keys of --trusted-keys`);
    return false;
  }
  if (!verifyBytes(manifestBytes, signer.key, signature)) {
    f.fail(
      topic,
      `the Ed25519 signature of manifest.json does not hold (key ${embedded}): the manifest changed after it was signed`,
    );
    return false;
  }
  f.ok(
    topic,
    `Ed25519 signature of manifest.json holds for ${signer.name !== undefined ? `${JSON.stringify(signer.name)} ` : ''}(${embedded}), a signer of --trusted-keys`,
  );
  seen.trusted = signer;
  return true;
}

/**
 * A signer of --trusted-keys vouches for the operators it may sign for (its `# signs for:` line,
 * else its name): a bundle naming another operator (run --operator) is refused, for the signature
 * proves who vouches, and one programme member must not certify in another's name (issue 39).
 */
function checkSignerBinding(signer: TrustedKey, info: TargetInfo, f: Findings): void {
  const { operator } = info.implementation;
  const allowed = signer.signsFor ?? (signer.name !== undefined ? [signer.name] : undefined);
  const who = signer.name !== undefined ? JSON.stringify(signer.name) : `key ${keyFingerprint(signer.key)}`;
  if (operator === undefined) {
    if (allowed !== undefined)
      f.note(
        'signer',
        `the bundle names no operator (run --operator); ${who} signs for ${allowed.map((n) => JSON.stringify(n)).join(', ')}`,
      );
    return;
  }
  if (allowed === undefined) {
    f.note(
      'signer',
      `the bundle names the operator ${JSON.stringify(oneLine(operator, 100))}; --trusted-keys does not say whom ${who} signs for (a "# name" or "# signs for:" line)`,
    );
    return;
  }
  if (allowed.includes(operator))
    f.ok('signer', `${who} signs for ${JSON.stringify(operator)}, the operator the bundle names`);
  else
    f.fail(
      'signer',
      `the bundle names the operator ${JSON.stringify(oneLine(operator, 100))}, but is signed by ${who}, which signs for ${allowed.map((n) => JSON.stringify(n)).join(', ')} only`,
    );
}

/** Whether the signature holds for the trusted key; every other outcome is a finding. `seen.signer`: the key it names. */
function checkSignature(
  files: BundleFiles,
  manifestBytes: Buffer | undefined,
  trust: Trust | undefined,
  f: Findings,
  seen: { signer?: string; trusted?: TrustedKey } = {},
): boolean {
  const topic = 'signature';
  const trusted = trust?.source === '--public-key' ? trust.keys[0]?.key : undefined;
  if (!files.exists(BUNDLE_FILES.signature)) {
    if (trust?.source === '--trusted-keys')
      f.fail(topic, `the bundle is not signed, but --trusted-keys was given (${trust.keys.length} keys)`);
    else if (trusted !== undefined)
      f.fail(topic, `the bundle is not signed, but --public-key was given (key ${keyFingerprint(trusted)})`);
    else f.note(topic, 'the bundle is not signed: the manifest proves the files belong together, not who made them');
    return false;
  }
  const bytes = files.get(BUNDLE_FILES.signature, small(BUNDLE_FILES.signature));
  const signature = bytes === undefined ? undefined : parseJson(bytes, signatureSchema, BUNDLE_FILES.signature, f);
  if (signature === undefined || manifestBytes === undefined) return false;
  let embedded: KeyObject;
  try {
    embedded = parsePublicKey(signature.publicKey, (problem) => new Error(problem));
  } catch (err) {
    f.fail(topic, `the public key in signature.json: ${(err as Error).message}`);
    return false;
  }
  seen.signer = keyFingerprint(embedded);
  if (trust?.source === '--trusted-keys')
    return checkSignatureByKeysFile(embedded, manifestBytes, signature.signature, trust, f, seen);
  const key = trusted ?? embedded;
  if (!verifyBytes(manifestBytes, key, signature.signature)) {
    f.fail(
      topic,
      trusted !== undefined && keyFingerprint(trusted) !== keyFingerprint(embedded)
        ? `made with key ${keyFingerprint(embedded)}, not with the key you trust (${keyFingerprint(trusted)})`
        : `the Ed25519 signature of manifest.json does not hold (key ${keyFingerprint(key)}): the manifest changed after it was signed`,
    );
    return false;
  }
  if (trusted !== undefined) {
    f.ok(topic, `Ed25519 signature of manifest.json holds for the key you gave (${keyFingerprint(trusted)})`);
    return true;
  }
  f.note(
    topic,
    `Ed25519 signature holds for the key the bundle carries (${keyFingerprint(embedded)}); anyone can sign with their own key: give --public-key with the key you trust`,
  );
  return false;
}

function checkTarget(info: TargetInfo, report: RunReport, f: Findings, profiled: boolean): void {
  const mismatches: string[] = [];
  const same = (what: string, a: unknown, b: unknown): void =>
    void (JSON.stringify(a) !== JSON.stringify(b) && mismatches.push(what));
  same('harness', info.harness, { name: report.tool.name, version: report.tool.version });
  same('catalogue', info.catalogue.digest, report.catalogue?.digest);
  same('base URL', info.target.baseUrl, report.target.baseUrl);
  same('embedded server', info.target.embedded, report.target.embedded);
  same('start time', info.run.startedAt, report.startedAt);
  same('verdict', info.run.verdict, report.verdict);
  same('strict mode', info.options.strict, report.strict);
  if (report.target.name !== undefined) same('target name', info.implementation.name, report.target.name);
  if (mismatches.length > 0) f.fail(BUNDLE_FILES.target, `disagrees with report.json on the ${mismatches.join(', ')}`);
  else {
    const { name, version, operator } = info.implementation;
    f.ok(
      BUNDLE_FILES.target,
      `${name}${version !== undefined ? ` ${version}` : ''}${operator !== undefined ? `, operated by ${operator}` : ''}, at ${info.target.baseUrl}`,
    );
  }
  // Under a profile, the profile decides whether the embedded server may be certified (allowTargets).
  if (info.target.embedded && !profiled)
    f.fail(
      BUNDLE_FILES.target,
      'the run tested the embedded reference server that the harness starts itself, not an implementation',
    );
  if (info.options.insecure) f.note(BUNDLE_FILES.target, 'the run did not verify TLS certificates (--insecure)');
  for (const { url, via } of info.target.proxies ?? [])
    f.note(BUNDLE_FILES.target, `the requests to ${url} went through the proxy ${via}`);
  if (info.options.baseline !== undefined)
    f.note(
      BUNDLE_FILES.target,
      `the run had a baseline of known failures (${info.options.baseline.file}, ${info.options.baseline.entries} entries)`,
    );
  if (info.options.suites.length > 0 || info.options.checks.length > 0 || info.options.rerunOf !== undefined)
    f.note(BUNDLE_FILES.target, 'the run selected a subset of the checks (--suite, --check or --rerun-failed)');
}

function checkCatalogue(report: RunReport, f: Findings): void {
  const current = catalogueDigest();
  if (report.catalogue === undefined)
    f.fail(
      'catalogue',
      `report.json records no catalogue digest (made by ${report.tool.name} ${report.tool.version}); this harness's catalogue is ${current}`,
    );
  else if (report.catalogue.digest !== current)
    f.fail(
      'catalogue',
      `made with catalogue ${report.catalogue.digest} (${report.tool.name} ${report.tool.version}), not the current one ${current} (${TOOL_NAME} ${TOOL_VERSION}): run the current harness`,
    );
  else f.ok('catalogue', `the current one (${current.slice(0, 19)}…, ${CHECKS.length} checks)`);
  if (report.tool.version !== TOOL_VERSION)
    f.note('harness', `made with ${report.tool.name} ${report.tool.version}; this is ${TOOL_NAME} ${TOOL_VERSION}`);
}

/** report.json against itself and the catalogue: counts, verdict, levels. */
function checkConsistency(report: RunReport, f: Findings): void {
  const problems: string[] = [];
  if (JSON.stringify(countStatuses(report.checks)) !== JSON.stringify(report.counts))
    problems.push('its counts do not add up to its checks');
  const { verdict } = verdictOf(
    report.checks,
    { strict: report.strict },
    report.incompleteReason,
    scopeOfReport(report),
  );
  // A report of an earlier harness wrote a coarser vocabulary (conformant for a subset): read as refined.
  const stated = report.tool.version === TOOL_VERSION ? report.verdict : verdictOfReport(report);
  if (verdict !== stated) problems.push(`its verdict is ${report.verdict}, its checks make it ${verdict}`);
  for (const check of report.checks) {
    const known = findCheck(check.id);
    if (known === undefined) problems.push(`${check.id} is not in the catalogue`);
    else if (known.level !== check.level || known.suite !== check.suite)
      problems.push(
        `${check.id} is recorded as ${check.level} in ${check.suite}; the catalogue has it ${known.level} in ${known.suite}`,
      );
  }
  if (problems.length > 0) for (const p of problems) f.fail(BUNDLE_FILES.report, p);
  else f.ok(BUNDLE_FILES.report, `${report.checks.length} checks, counts and verdict consistent`);
}

/** Every MUST check of the catalogue passed. SHOULD checks are reported, not required. */
function checkConformance(report: RunReport, f: Findings): void {
  if (report.verdict === 'incomplete' || report.verdict === 'nothing-checked')
    f.fail('run', `${report.verdict}: ${report.incompleteReason ?? 'the run stopped early'}`);
  const byId = new Map(report.checks.map((c) => [c.id, c]));
  const must = CHECKS.filter((c) => c.level === 'MUST');
  let passed = 0;
  for (const check of must) {
    const result = byId.get(check.id);
    if (result === undefined) f.fail(`MUST ${check.id}`, 'missing: not run');
    else if (result.status === 'passed') passed += 1;
    else {
      const why = checkReason(result) ?? 'no reason recorded';
      const what =
        result.status === 'expected'
          ? `failed, accepted by a baseline (${result.baseline?.reason ?? 'no reason'}): ${why}`
          : `${result.status}: ${why}`;
      f.fail(`MUST ${check.id}`, what);
    }
  }
  if (passed === must.length) f.ok('MUST checks', `${passed} of ${must.length} passed`);
  else f.fail('MUST checks', `${passed} of ${must.length} passed`);
  const should = CHECKS.filter((c) => c.level === 'SHOULD');
  const notPassed = should.filter((c) => byId.get(c.id)?.status !== 'passed');
  const detail = notPassed.map((c) => `${c.id} ${byId.get(c.id)?.status ?? 'not run'}`).join(', ');
  f.note(
    'SHOULD checks',
    `${should.length - notPassed.length} of ${should.length} passed${detail ? ` (${detail})` : ''}; they do not decide certification`,
  );
}

/**
 * report.html must be exactly the page report.json renders: a page is what a person reads, and a
 * hand-made one could say anything, or carry a script and drop the Content-Security-Policy, under
 * a manifest and signature that hold. The page is rendered from report.json alone (the writer
 * renders it from the parsed report.json too, src/bundle/write.ts), so the comparison is exact.
 */
function checkHtml(files: BundleFiles, report: RunReport, f: Findings): void {
  const bytes = files.get(BUNDLE_FILES.html);
  if (bytes === undefined) return;
  let expected: string;
  try {
    expected = renderHtmlReport(report);
  } catch (err) {
    f.fail(BUNDLE_FILES.html, `report.json cannot be rendered to compare it with: ${(err as Error).message}`);
    return;
  }
  if (bytes.equals(Buffer.from(expected, 'utf8'))) {
    f.ok(BUNDLE_FILES.html, 'exactly the page report.json renders');
    return;
  }
  const actualLines = bytes.toString('utf8').split('\n');
  const expectedLines = expected.split('\n');
  let i = 0;
  while (i < actualLines.length && i < expectedLines.length && actualLines[i] === expectedLines[i]) i += 1;
  const shown = (line: string | undefined): string =>
    line === undefined ? 'the end of the file' : JSON.stringify(oneLine(line, 120));
  const other =
    report.tool.version !== TOOL_VERSION
      ? ` (made with ${report.tool.name} ${report.tool.version}, which may render it differently)`
      : '';
  f.fail(
    BUNDLE_FILES.html,
    `is not the page report.json renders${other}: line ${i + 1} is ${shown(actualLines[i])}, where it should be ${shown(expectedLines[i])}`,
  );
}

function checkJUnit(files: BundleFiles, report: RunReport, f: Findings): void {
  const bytes = files.get(BUNDLE_FILES.junit);
  if (bytes === undefined) return;
  let problems: string[];
  try {
    problems = junitDisagreements(report, readJUnit(bytes.toString('utf8')));
  } catch (err) {
    if (!(err instanceof JUnitReadError)) throw err;
    f.fail(BUNDLE_FILES.junit, `not well-formed JUnit XML: ${err.message}`);
    return;
  }
  if (problems.length === 0)
    f.ok(BUNDLE_FILES.junit, `agrees with report.json (${report.checks.length} test cases, same outcomes)`);
  const shown = problems.slice(0, 20);
  for (const p of shown) f.fail(BUNDLE_FILES.junit, p);
  if (problems.length > shown.length)
    f.fail(BUNDLE_FILES.junit, `and ${problems.length - shown.length} more disagreements with report.json`);
}

/** What a bundle's own files show: its report and target.json when they can be read, and whether a trusted key signed it. */
export interface BundleContents {
  report?: RunReport;
  info?: TargetInfo;
  reportBytes?: Buffer;
  targetBytes?: Buffer;
  signerProven: boolean;
  /** The fingerprint of the key signature.json names (proven or not): the parts of a combined bundle share one. */
  signer?: string;
}

/**
 * Everything but the verdict on conformance: listing, manifest, signature, and report.json,
 * target.json, junit.xml and report.html telling one story. Also how each part of a combined
 * bundle is checked (a part alone proves only its half of the catalogue).
 */
export function verifyContents(
  dir: string,
  trust: Trust | undefined,
  profiled: boolean,
  f: Findings,
  combined: boolean,
): BundleContents {
  const files = new BundleFiles(dir, f);
  checkListing(dir, f, combined);
  const { manifestBytes } = checkManifest(files, f, combined);
  const seen: { signer?: string; trusted?: TrustedKey } = {};
  const signerProven = checkSignature(files, manifestBytes, trust, f, seen);

  const reportBytes = files.get(BUNDLE_FILES.report);
  let report: RunReport | undefined;
  if (reportBytes !== undefined) {
    try {
      report = parseRunReport(reportBytes.toString('utf8'), BUNDLE_FILES.report);
    } catch (err) {
      f.fail(BUNDLE_FILES.report, (err as Error).message.replace(`${BUNDLE_FILES.report}: `, ''));
    }
  }
  const targetBytes = files.get(BUNDLE_FILES.target, small(BUNDLE_FILES.target));
  const info = targetBytes === undefined ? undefined : parseJson(targetBytes, targetInfoSchema, BUNDLE_FILES.target, f);
  if (seen.trusted !== undefined && info !== undefined) checkSignerBinding(seen.trusted, info, f);
  if (report !== undefined) {
    if (info !== undefined) checkTarget(info, report, f, profiled);
    checkCatalogue(report, f);
    checkConsistency(report, f);
    checkJUnit(files, report, f);
    checkHtml(files, report, f);
    // The verdicts against the exchanges they rest on (a combined bundle's: each part's, in its part).
    const exchanges = combined ? undefined : files.exchanges(BUNDLE_FILES.exchanges);
    if (exchanges !== undefined) checkEvidence(report, exchanges, f);
  }
  return {
    ...(report ? { report } : {}),
    ...(info ? { info } : {}),
    ...(reportBytes ? { reportBytes } : {}),
    ...(targetBytes ? { targetBytes } : {}),
    signerProven,
    ...(seen.signer !== undefined ? { signer: seen.signer } : {}),
  };
}

/** Where `actual` first differs from `expected`, for a finding: "line 12 is …, where it should be …". */
function firstDifference(actual: string, expected: string): string {
  const actualLines = actual.split('\n');
  const expectedLines = expected.split('\n');
  let i = 0;
  while (i < actualLines.length && i < expectedLines.length && actualLines[i] === expectedLines[i]) i += 1;
  const shown = (line: string | undefined): string =>
    line === undefined ? 'the end of the file' : JSON.stringify(oneLine(line, 120));
  return `line ${i + 1} is ${shown(actualLines[i])}, where it should be ${shown(expectedLines[i])}`;
}

/**
 * A combined bundle (src/bundle/combine.ts): each part a valid bundle signed by a trusted key, the
 * two runs combinable (same target, document, profile, within MAX_APART_MS), and report.json and
 * target.json exactly what the parts derive, byte for byte. Whether both parts' signers are proven.
 */
function checkCombination(
  dir: string,
  trust: Trust | undefined,
  profiled: boolean,
  top: BundleContents,
  f: Findings,
): boolean {
  const runs: Partial<Record<PartName, PartRun>> = {};
  let signersProven = true;
  for (const part of PART_NAMES) {
    const pf = new Findings();
    const contents = verifyContents(join(dir, PARTS_DIR, part), trust, profiled, pf, false);
    signersProven &&= contents.signerProven;
    for (const x of pf.list) if (x.level !== 'ok') f[x.level](`${PARTS_DIR}/${part}/${x.topic}`, x.message);
    if (!pf.list.some((x) => x.level === 'fail') && contents.report !== undefined) {
      f.ok(
        `${PARTS_DIR}/${part}`,
        `a valid bundle${contents.signerProven ? ', signed by a key you trust' : ''}: ${contents.report.checks.length} checks, ${contents.report.verdict}, started ${contents.report.startedAt}`,
      );
    }
    if (contents.report !== undefined && contents.info !== undefined)
      runs[part] = {
        report: contents.report,
        info: contents.info,
        ...(contents.signer !== undefined ? { signer: contents.signer } : {}),
      };
  }
  if (runs.main === undefined || runs.expiry === undefined) {
    f.fail('combination', "not derived: a part's report.json or target.json could not be read");
    return false;
  }
  const problems = combinationProblems(runs.main, runs.expiry);
  for (const p of problems) f.fail('combination', p);
  let derived: ReturnType<typeof deriveCombined>;
  try {
    derived = deriveCombined(runs.main, runs.expiry);
  } catch (err) {
    f.fail('combination', `cannot be derived from the parts: ${oneLine((err as Error).message, 200)}`);
    return false;
  }
  let same = true;
  for (const [name, bytes, expected] of [
    [BUNDLE_FILES.report, top.reportBytes, derived.json],
    [BUNDLE_FILES.target, top.targetBytes, derived.target],
  ] as const) {
    if (bytes === undefined) continue;
    if (!bytes.equals(Buffer.from(expected, 'utf8'))) {
      same = false;
      f.fail(
        name,
        `is not what the parts combine to (the main run's, with the expiry job's EXPIRY-* results): ${firstDifference(bytes.toString('utf8'), expected)}`,
      );
    }
  }
  if (same && problems.length === 0)
    f.ok(
      'combination',
      `report.json and target.json are exactly what parts/ combine to: the expiry job's ${EXPIRY_CHECKS.length} EXPIRY-* results (started ${runs.expiry.report.startedAt}, --max-expiry-wait ${runs.expiry.info.options.maxExpiryWait}), the main run's others`,
    );
  return signersProven;
}

/**
 * Verifies the bundle in `dir` (which the caller has checked is a directory), its signature against
 * `trust`, and with `profile` every item of the platform's certification profile (src/certification/verify.ts).
 * A combined bundle (it holds parts/) is verified part by part too, and its report.json and
 * target.json derived from the parts again (checkCombination).
 */
export function verifyBundle(dir: string, trust?: Trust, profile?: LoadedProfile): BundleVerdict {
  const f = new Findings();
  const combined = lstatOrUndefined(join(dir, PARTS_DIR)) !== undefined;
  // A bad layout: the part files are then not read at all (the manifest's entries for them are refused).
  const layout = combined && checkPartsLayout(dir, f);
  const top = verifyContents(dir, trust, profile !== undefined, f, layout);
  let signerProven = top.signerProven;
  if (layout) signerProven = checkCombination(dir, trust, profile !== undefined, top, f) && signerProven;
  else if (top.info?.combined !== undefined)
    f.fail(BUNDLE_FILES.target, 'records a combination with an expiry job, but the bundle holds no parts/ to prove it');
  const { report, info } = top;
  if (report !== undefined) {
    checkConformance(report, f);
    if (profile !== undefined) checkProfile(profile, report, info, f);
    // The main job of a two-job proof, verified alone: say what completes it (issue 39 item 5).
    const leftToJob = report.checks.filter(expiryNotWaitedOut);
    if (leftToJob.length > 0 && info?.combined === undefined)
      f.note(
        'expiry',
        `${leftToJob.map((c) => c.id).join(', ')} not waited out in this run: if an expiry job (run --suite expiry) proved them, verify the two combined: combine-bundles THIS-BUNDLE EXPIRY-BUNDLE --output DIR --sign-key KEY`,
      );
  } else {
    f.fail('conformance', 'not judged: report.json could not be read');
    if (profile !== undefined) f.fail('profile', 'not proven: report.json could not be read');
  }
  return { findings: f.list, certifiable: !f.list.some((x) => x.level === 'fail'), signerProven };
}
