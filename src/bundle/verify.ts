import type { KeyObject } from 'node:crypto';
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ZodType } from 'zod';
import { CHECKS, findCheck } from '../catalogue/index.js';
import { catalogueDigest } from '../catalogue/digest.js';
import { HarnessExit } from '../errors.js';
import { checkReason, oneLine } from '../report/format.js';
import { renderHtmlReport } from '../report/html.js';
import { countStatuses, type RunReport } from '../report/model.js';
import { readRegularFile, type FileLimit } from '../files.js';
import { REPORT_LIMIT, parseRunReport } from '../report/read.js';
import { scopeOfReport, verdictOfReport } from '../report/verdict.js';
import { verdictOf } from '../runner/results.js';
import { TOOL_NAME, TOOL_VERSION } from '../version.js';
import { BUNDLE_FILES, BUNDLE_NAMES, MANIFESTED, isBundleFileName, manifestSchema, sha256Of, signatureSchema, targetInfoSchema, type Manifest, type TargetInfo } from './format.js';
import { junitDisagreements } from './junit-agree.js';
import { JUnitReadError, readJUnit } from './junit-read.js';
import { keyFingerprint, parsePublicKey, verifyBytes } from './keys.js';

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
   * with a key of their own, so certification needs this too (exit 4 otherwise, src/exit-codes.ts).
   */
  signerProven: boolean;
}

/** Far larger than a manifest, target.json or signature.json can honestly be. */
function small(name: string): FileLimit {
  return { maxBytes: 1024 * 1024, of: `a bundle's ${name}` };
}

class Findings {
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
  constructor(
    readonly dir: string,
    private readonly f: Findings,
  ) {}

  exists(name: string): boolean {
    return lstatOrUndefined(join(this.dir, name)) !== undefined;
  }

  get(name: string, limit: FileLimit = REPORT_LIMIT): Buffer | undefined {
    if (this.#read.has(name)) return this.#read.get(name);
    let bytes: Buffer | undefined;
    const path = join(this.dir, name);
    try {
      // Only the bundle's own plain files: no link out of it, no FIFO or device to block on.
      bytes = readRegularFile(path, name, limit, { noFollow: true });
    } catch (err) {
      this.f.fail(name, err instanceof HarnessExit ? err.message.replace(`${name} ${path}: `, '') : (err as Error).message);
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

/** Only the bundle's own plain files: a link could point anywhere, an extra file is unsigned. */
function checkListing(dir: string, f: Findings): void {
  for (const name of readdirSync(dir)) {
    if (!BUNDLE_NAMES.includes(name)) f.fail('bundle', `${JSON.stringify(oneLine(name, 120))} is not part of a bundle and no manifest covers it`);
  }
}

/** Every manifested file present, once, with its digest; the manifest's bytes for the signature. */
function checkManifest(files: BundleFiles, f: Findings): { manifestBytes?: Buffer; intact: Set<string> } {
  const intact = new Set<string>();
  const manifestBytes = files.get(BUNDLE_FILES.manifest, small(BUNDLE_FILES.manifest));
  if (manifestBytes === undefined) return { intact };
  const manifest: Manifest | undefined = parseJson(manifestBytes, manifestSchema, BUNDLE_FILES.manifest, f);
  if (manifest === undefined) return { manifestBytes, intact };
  const listed = new Set<string>();
  for (const entry of manifest.files) {
    if (!isBundleFileName(entry.path)) {
      f.fail(BUNDLE_FILES.manifest, `lists ${JSON.stringify(oneLine(entry.path, 120))}, which is not one of the bundle's files (${MANIFESTED.join(', ')}): not read`);
      continue;
    }
    if (listed.has(entry.path)) {
      f.fail(BUNDLE_FILES.manifest, `lists ${entry.path} twice`);
      continue;
    }
    listed.add(entry.path);
    const bytes = files.get(entry.path);
    if (bytes === undefined) continue;
    const digest = sha256Of(bytes);
    if (digest !== entry.sha256 || bytes.length !== entry.bytes) f.fail(entry.path, `does not match the manifest (sha256 ${digest.slice(0, 16)}…, ${bytes.length} bytes; the manifest says ${entry.sha256.slice(0, 16)}…, ${entry.bytes} bytes): changed after the bundle was made`);
    else intact.add(entry.path);
  }
  for (const name of MANIFESTED) {
    if (!listed.has(name)) f.fail(BUNDLE_FILES.manifest, `does not list ${name}`);
  }
  if (intact.size === MANIFESTED.length) f.ok(BUNDLE_FILES.manifest, `${MANIFESTED.length} files, each matches its SHA-256`);
  return { manifestBytes, intact };
}

function lstatOrUndefined(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/** Whether the signature holds for the trusted key; every other outcome is a finding. */
function checkSignature(files: BundleFiles, manifestBytes: Buffer | undefined, trusted: KeyObject | undefined, f: Findings): boolean {
  const topic = 'signature';
  if (!files.exists(BUNDLE_FILES.signature)) {
    if (trusted !== undefined) f.fail(topic, `the bundle is not signed, but --public-key was given (key ${keyFingerprint(trusted)})`);
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
  const key = trusted ?? embedded;
  if (!verifyBytes(manifestBytes, key, signature.signature)) {
    f.fail(topic, trusted !== undefined && keyFingerprint(trusted) !== keyFingerprint(embedded)
      ? `made with key ${keyFingerprint(embedded)}, not with the key you trust (${keyFingerprint(trusted)})`
      : `the Ed25519 signature of manifest.json does not hold (key ${keyFingerprint(key)}): the manifest changed after it was signed`);
    return false;
  }
  if (trusted !== undefined) {
    f.ok(topic, `Ed25519 signature of manifest.json holds for the key you gave (${keyFingerprint(trusted)})`);
    return true;
  }
  f.note(topic, `Ed25519 signature holds for the key the bundle carries (${keyFingerprint(embedded)}); anyone can sign with their own key: give --public-key with the key you trust`);
  return false;
}

function checkTarget(info: TargetInfo, report: RunReport, f: Findings): void {
  const mismatches: string[] = [];
  const same = (what: string, a: unknown, b: unknown): void => void (JSON.stringify(a) !== JSON.stringify(b) && mismatches.push(what));
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
    f.ok(BUNDLE_FILES.target, `${name}${version !== undefined ? ` ${version}` : ''}${operator !== undefined ? `, operated by ${operator}` : ''}, at ${info.target.baseUrl}`);
  }
  if (info.target.embedded) f.fail(BUNDLE_FILES.target, 'the run tested the embedded reference server that the harness starts itself, not an implementation');
  if (info.options.insecure) f.note(BUNDLE_FILES.target, 'the run did not verify TLS certificates (--insecure)');
  if (info.options.baseline !== undefined) f.note(BUNDLE_FILES.target, `the run had a baseline of known failures (${info.options.baseline.file}, ${info.options.baseline.entries} entries)`);
  if (info.options.suites.length > 0 || info.options.checks.length > 0 || info.options.rerunOf !== undefined) f.note(BUNDLE_FILES.target, 'the run selected a subset of the checks (--suite, --check or --rerun-failed)');
}

function checkCatalogue(report: RunReport, f: Findings): void {
  const current = catalogueDigest();
  if (report.catalogue === undefined) f.fail('catalogue', `report.json records no catalogue digest (made by ${report.tool.name} ${report.tool.version}); this harness's catalogue is ${current}`);
  else if (report.catalogue.digest !== current) f.fail('catalogue', `made with catalogue ${report.catalogue.digest} (${report.tool.name} ${report.tool.version}), not the current one ${current} (${TOOL_NAME} ${TOOL_VERSION}): run the current harness`);
  else f.ok('catalogue', `the current one (${current.slice(0, 19)}…, ${CHECKS.length} checks)`);
  if (report.tool.version !== TOOL_VERSION) f.note('harness', `made with ${report.tool.name} ${report.tool.version}; this is ${TOOL_NAME} ${TOOL_VERSION}`);
}

/** report.json against itself and the catalogue: counts, verdict, levels. */
function checkConsistency(report: RunReport, f: Findings): void {
  const problems: string[] = [];
  if (JSON.stringify(countStatuses(report.checks)) !== JSON.stringify(report.counts)) problems.push('its counts do not add up to its checks');
  const { verdict } = verdictOf(report.checks, { strict: report.strict }, report.incompleteReason, scopeOfReport(report));
  // A report of an earlier harness wrote a coarser vocabulary (conformant for a subset): read as refined.
  const stated = report.tool.version === TOOL_VERSION ? report.verdict : verdictOfReport(report);
  if (verdict !== stated) problems.push(`its verdict is ${report.verdict}, its checks make it ${verdict}`);
  for (const check of report.checks) {
    const known = findCheck(check.id);
    if (known === undefined) problems.push(`${check.id} is not in the catalogue`);
    else if (known.level !== check.level || known.suite !== check.suite) problems.push(`${check.id} is recorded as ${check.level} in ${check.suite}; the catalogue has it ${known.level} in ${known.suite}`);
  }
  if (problems.length > 0) for (const p of problems) f.fail(BUNDLE_FILES.report, p);
  else f.ok(BUNDLE_FILES.report, `${report.checks.length} checks, counts and verdict consistent`);
}

/** Every MUST check of the catalogue passed. SHOULD checks are reported, not required. */
function checkConformance(report: RunReport, f: Findings): void {
  if (report.verdict === 'incomplete' || report.verdict === 'nothing-checked') f.fail('run', `${report.verdict}: ${report.incompleteReason ?? 'the run stopped early'}`);
  const byId = new Map(report.checks.map((c) => [c.id, c]));
  const must = CHECKS.filter((c) => c.level === 'MUST');
  let passed = 0;
  for (const check of must) {
    const result = byId.get(check.id);
    if (result === undefined) f.fail(`MUST ${check.id}`, 'missing: not run');
    else if (result.status === 'passed') passed += 1;
    else {
      const why = checkReason(result) ?? 'no reason recorded';
      const what = result.status === 'expected' ? `failed, accepted by a baseline (${result.baseline?.reason ?? 'no reason'}): ${why}` : `${result.status}: ${why}`;
      f.fail(`MUST ${check.id}`, what);
    }
  }
  if (passed === must.length) f.ok('MUST checks', `${passed} of ${must.length} passed`);
  else f.fail('MUST checks', `${passed} of ${must.length} passed`);
  const should = CHECKS.filter((c) => c.level === 'SHOULD');
  const notPassed = should.filter((c) => byId.get(c.id)?.status !== 'passed');
  const detail = notPassed.map((c) => `${c.id} ${byId.get(c.id)?.status ?? 'not run'}`).join(', ');
  f.note('SHOULD checks', `${should.length - notPassed.length} of ${should.length} passed${detail ? ` (${detail})` : ''}; they do not decide certification`);
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
  const shown = (line: string | undefined): string => (line === undefined ? 'the end of the file' : JSON.stringify(oneLine(line, 120)));
  const other = report.tool.version !== TOOL_VERSION ? ` (made with ${report.tool.name} ${report.tool.version}, which may render it differently)` : '';
  f.fail(BUNDLE_FILES.html, `is not the page report.json renders${other}: line ${i + 1} is ${shown(actualLines[i])}, where it should be ${shown(expectedLines[i])}`);
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
  if (problems.length === 0) f.ok(BUNDLE_FILES.junit, `agrees with report.json (${report.checks.length} test cases, same outcomes)`);
  const shown = problems.slice(0, 20);
  for (const p of shown) f.fail(BUNDLE_FILES.junit, p);
  if (problems.length > shown.length) f.fail(BUNDLE_FILES.junit, `and ${problems.length - shown.length} more disagreements with report.json`);
}

/** Verifies the bundle in `dir` (which the caller has checked is a directory). */
export function verifyBundle(dir: string, trusted?: KeyObject): BundleVerdict {
  const f = new Findings();
  const files = new BundleFiles(dir, f);
  checkListing(dir, f);
  const { manifestBytes } = checkManifest(files, f);
  const signerProven = checkSignature(files, manifestBytes, trusted, f);

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
  if (report !== undefined) {
    if (info !== undefined) checkTarget(info, report, f);
    checkCatalogue(report, f);
    checkConsistency(report, f);
    checkJUnit(files, report, f);
    checkHtml(files, report, f);
    checkConformance(report, f);
  } else f.fail('conformance', 'not judged: report.json could not be read');
  return { findings: f.list, certifiable: !f.list.some((x) => x.level === 'fail'), signerProven };
}
