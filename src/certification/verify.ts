import type { TargetInfo } from './bundle-format.js';
import { endpointLabel } from '../carrier/endpoint-specs.js';
import { CHECKS } from '../catalogue/index.js';
import { CHOICE_WORDS, PRECEDENCE_PAIRS, type PrecedenceChoice } from '../catalogue/precedence.js';
import type { RunReport } from '../model/run-report.js';
import { writeProbesEnough, type LoadedProfile } from './profile.js';
import { hostKind, hostOfUrl, type AddressKind } from './targets.js';

/**
 * `verify-bundle --profile FILE` (issue 31): the bundle was made under exactly this profile (the
 * SHA-256 target.json records is the file's), and proves each of its items. Every item it does not
 * prove is one `FAIL` line of its own, so a reviewer reads what is missing, not only that something is.
 */

/** Where findings go (src/bundle/verify.ts Findings). */
export interface FindingSink {
  ok: (topic: string, message: string) => void;
  fail: (topic: string, message: string) => void;
  note: (topic: string, message: string) => void;
}

const ENDPOINT_PROBLEMS = new Set(['skipped', 'error', 'failed']);

/**
 * RESOURCE-EXPECTED-VALUES skipping an endpoint because the resource it served is not one the
 * expectations describe (suites/resources.test.ts): a profile that pins the expected values of some
 * items only (the platform's seeded test data) could otherwise never certify, since the single
 * resource an endpoint serves is the first of its list, which the expectations need not name.
 * Nothing is known to compare, so nothing is left unproven by it; the endpoint still has to be
 * judged by the other checks (schema, fields, versioning), none of which may skip it.
 */
function notSeeded(checkId: string, outcome: { status: string; message?: string | undefined }): boolean {
  return (
    checkId === 'RESOURCE-EXPECTED-VALUES' &&
    outcome.status === 'skipped' &&
    /^the resource served \([^)]*\) is not a seeded item: nothing known to compare$/.test(outcome.message ?? '')
  );
}

function checkIdentity(loaded: LoadedProfile, report: RunReport, info: TargetInfo | undefined, f: FindingSink): void {
  const { profile: p, sha256 } = loaded;
  const recorded = info?.certification?.profile;
  if (recorded === undefined)
    f.fail(
      'profile',
      `the bundle was not made under a profile (run --profile); this one is ${loaded.path} (sha256 ${sha256.slice(0, 16)}…)`,
    );
  else if (recorded.sha256 !== sha256)
    f.fail(
      'profile',
      `made under ${JSON.stringify(recorded.file)} (sha256 ${recorded.sha256.slice(0, 16)}…), not under ${loaded.path} (sha256 ${sha256.slice(0, 16)}…)`,
    );
  else
    f.ok(
      'profile',
      `made under ${loaded.path}${p.name !== undefined ? ` (${p.name})` : ''}, sha256 ${sha256.slice(0, 16)}…`,
    );

  const openapi = info?.options.openapi;
  if (openapi === undefined)
    f.fail('openapi', `no OpenAPI document recorded (the profile requires sha256 ${p.openapi.sha256.slice(0, 16)}…)`);
  else if (openapi.sha256 !== p.openapi.sha256)
    f.fail(
      'openapi',
      `${JSON.stringify(openapi.file)} has sha256 ${openapi.sha256.slice(0, 16)}…, not the profile's document (${p.openapi.sha256.slice(0, 16)}…)`,
    );
  else f.ok('openapi', `the profile's document (${openapi.file}, sha256 ${openapi.sha256.slice(0, 16)}…)`);
  if (openapi !== undefined) checkDocumentFiles(p.openapi.files ?? {}, openapi.files ?? [], f);

  if (p.expectations !== undefined) {
    const given = info?.options.expectations;
    if (given === undefined) f.fail('expectations', 'no expectations file recorded (the profile requires one)');
    else if (given.sha256 !== p.expectations.sha256)
      f.fail(
        'expectations',
        `${JSON.stringify(given.file)} has sha256 ${given.sha256.slice(0, 16)}…, not the profile's (${p.expectations.sha256.slice(0, 16)}…)`,
      );
    else f.ok('expectations', `the profile's (${given.file})`);
  }
  if (p.catalogue !== undefined && report.catalogue?.digest !== p.catalogue)
    f.fail(
      'catalogue',
      `made with catalogue ${report.catalogue?.digest ?? '(none recorded)'}, not the profile's ${p.catalogue}`,
    );
}

function checkOptions(loaded: LoadedProfile, report: RunReport, info: TargetInfo | undefined, f: FindingSink): void {
  const p = loaded.profile;
  if (p.requireComplete && report.scope?.requireComplete !== true)
    f.fail('option requireComplete', 'the run did not use --require-complete (the profile requires it)');
  if (p.strict === true && !report.strict)
    f.fail('option strict', 'the run did not use --strict (the profile requires it)');
  const wait = info?.options.maxExpiryWait;
  if (p.minMaxExpiryWait !== undefined && (wait === undefined || wait < p.minMaxExpiryWait))
    f.fail('option maxExpiryWait', `${wait ?? 'not recorded'}, below the profile's minimum of ${p.minMaxExpiryWait} s`);
  // Options that let a run prove less than the whole battery on the whole lists (run --profile refuses them: src/certification/apply.ts).
  if (info?.options.maxPages !== undefined)
    f.fail(
      'option maxPages',
      `--max-pages ${info.options.maxPages}: the lists were judged on a sample of their pages, which may hide a defect between them (a certifying run walks every page)`,
    );
  if (info?.options.baseline !== undefined)
    f.fail(
      'option baseline',
      `--baseline ${info.options.baseline.file}: ${info.options.baseline.entries} known failures accepted as expected (a certifying run accepts none)`,
    );
  if (info?.options.rerunOf !== undefined)
    f.fail(
      'option rerunFailed',
      'a rerun of the failed checks of another run proves only those (a certifying run runs the battery)',
    );
  if (p.expiryProven) {
    const byId = new Map(report.checks.map((c) => [c.id, c]));
    const notPassed = new Map<string, string[]>();
    for (const check of CHECKS.filter((c) => c.suite === 'expiry')) {
      const status = byId.get(check.id)?.status ?? 'not in the run';
      if (status !== 'passed') notPassed.set(status, [...(notPassed.get(status) ?? []), check.id]);
    }
    for (const [status, ids] of notPassed) {
      const why = byId.get(ids[0] ?? '')?.message;
      f.fail(
        'EXPIRY-*',
        `${status} (the profile requires expiry proven): ${ids.join(', ')}${why !== undefined ? `; ${why}` : ''}`,
      );
    }
    if (notPassed.size === 0) f.ok('EXPIRY-*', 'every expiry check passed (the profile requires expiry proven)');
  }
}

function checkEndpoints(loaded: LoadedProfile, report: RunReport, f: FindingSink): void {
  const inRun = new Set((report.target.endpoints ?? []).map((e) => e.path));
  let proven = 0;
  for (const path of loaded.profile.endpoints) {
    const label = endpointLabel(path);
    if (!inRun.has(path)) {
      f.fail(`endpoint ${label}`, 'not in the run (the profile requires it)');
      continue;
    }
    // Judged: some check applied to it and passed, and no check skipped it, could not carry it out, or failed on it.
    const all = report.checks.flatMap((c) =>
      (c.endpoints ?? []).filter((e) => e.endpoint === label).map((e) => ({ check: c, outcome: e })),
    );
    const unseeded = all.filter(({ check, outcome }) => notSeeded(check.id, outcome));
    const outcomes = all.filter((o) => !unseeded.includes(o));
    const problems = outcomes.filter(
      ({ check, outcome }) =>
        ENDPOINT_PROBLEMS.has(outcome.status) && (check.level === 'MUST' || outcome.status !== 'failed'),
    );
    if (outcomes.length === 0)
      f.fail(`endpoint ${label}`, 'in the run but judged by no check (the profile requires it judged)');
    for (const { check, outcome } of problems)
      f.fail(
        `endpoint ${label}`,
        `${outcome.status} by ${check.id}${outcome.message !== undefined ? `: ${outcome.message}` : ''}`,
      );
    for (const { check, outcome } of unseeded)
      f.note(
        `endpoint ${label}`,
        `${check.id} compared nothing (${outcome.message ?? 'skipped'}); accepted: the expectations pin no item it served, and the other checks judged it`,
      );
    if (outcomes.length > 0 && problems.length === 0) proven += 1;
  }
  if (proven === loaded.profile.endpoints.length)
    f.ok('endpoints', `each of the profile's ${proven} endpoints was judged by the checks, none skipped`);
}

/** The kind of each host of the target, as recorded in target.json and as the URL itself shows it. */
function targetKinds(
  report: RunReport,
  info: TargetInfo | undefined,
): { host: string; kind: AddressKind | 'embedded' | 'unknown'; detail?: string }[] {
  if (report.target.embedded || info?.target.embedded === true)
    return [{ host: report.target.baseUrl, kind: 'embedded' }];
  const found: { host: string; kind: AddressKind | 'unknown'; detail?: string }[] = [];
  for (const url of new Set([report.target.baseUrl, report.target.authUrl])) {
    const host = hostOfUrl(url);
    if (host === undefined) continue;
    // A literal address or localhost speaks for itself, whatever target.json says.
    const literal = hostKind(host.replace(/^\[|\]$/g, ''));
    const recorded = info?.target.hosts?.find((h) => h.host === host);
    if (literal !== undefined) found.push({ host: host.replace(/^\[|\]$/g, ''), kind: literal });
    else if (recorded === undefined || recorded.addresses.length === 0)
      found.push({ host, kind: 'unknown', detail: recorded?.unresolved ?? 'its addresses are not recorded' });
    else for (const a of recorded.addresses) found.push({ host: `${host} (${a.address})`, kind: a.kind });
  }
  return found;
}

const KIND_WORDS: Record<string, string> = {
  loopback: 'loopback',
  private: 'a private address',
  embedded: 'the embedded reference server',
  unknown: 'address unknown',
};

function checkTargets(loaded: LoadedProfile, report: RunReport, info: TargetInfo | undefined, f: FindingSink): void {
  // Through a proxy, where the requests went is the proxy's secret: the recorded addresses prove nothing.
  for (const { url, via } of info?.target.proxies ?? [])
    f.fail(
      `target ${url}`,
      `reached through the proxy ${via}: where its requests went is not what the bundle records of its addresses; run without HTTP_PROXY/HTTPS_PROXY for the target`,
    );
  const allowed = new Set<string>(loaded.profile.allowTargets);
  let refused = 0;
  const seen = new Set<string>();
  const kinds = new Set<string>();
  for (const { host, kind, detail } of targetKinds(report, info)) {
    kinds.add(kind);
    if (kind === 'public' || allowed.has(kind) || seen.has(host)) continue;
    seen.add(host);
    refused += 1;
    f.fail(
      `target ${host}`,
      `${KIND_WORDS[kind] ?? kind}${detail !== undefined ? ` (${detail})` : ''}, not allowed by the profile`,
    );
  }
  // What the target was, then what the profile allows (public addresses always).
  const was = [...kinds].map((k) => KIND_WORDS[k] ?? (k === 'public' ? 'public addresses' : k)).join(' and ');
  if (refused === 0)
    f.ok(
      'target',
      `${was === '' ? 'no host recorded' : was}, which the profile allows (public addresses${loaded.profile.allowTargets.length > 0 ? `, ${loaded.profile.allowTargets.join(', ')}` : ' only'})`,
    );
}

const ISOLATION_WORDS: Record<string, string> = {
  'second-client': 'with a second client, both ways',
  'foreign-tenant': 'by asking for a tenant the vendor named (--foreign-tenant-id)',
  none: 'not at all (TENANT-FOREIGN skipped)',
};

/** The isolation proof the profile requires, as target.json records how it was made (issue 39). */
function checkIsolation(loaded: LoadedProfile, report: RunReport, info: TargetInfo | undefined, f: FindingSink): void {
  const wanted = loaded.profile.isolation;
  if (wanted === undefined) return;
  const recorded = info?.target.isolation ?? report.target.isolation;
  const method = recorded?.method;
  const enough = method === 'second-client' || (wanted === 'foreign-tenant' && method === 'foreign-tenant');
  const how =
    method === undefined ? 'not recorded (a bundle of an earlier version)' : (ISOLATION_WORDS[method] ?? method);
  if (!enough)
    f.fail(
      'isolation',
      `tenant isolation proven ${how}; the profile requires it proven ${ISOLATION_WORDS[wanted] ?? wanted}`,
    );
  else
    f.ok(
      'isolation',
      `tenant isolation proven ${how}${recorded?.secondTenantId !== undefined ? ` (the second client's tenant ${recorded.secondTenantId})` : ''}, as the profile requires`,
    );
}

/** The write probes the profile requires (issue 41), as report.json records them. */
function checkWriteProbes(loaded: LoadedProfile, report: RunReport, f: FindingSink): void {
  const wanted = loaded.profile.writeProbes;
  if (wanted === undefined) return;
  const recorded = report.target.writeProbes;
  if (recorded === undefined || !writeProbesEnough(recorded, wanted))
    f.fail(
      'write probes',
      `the write operations were probed ${recorded === undefined ? 'as a bundle of an earlier version does not record' : `with --write-probes ${recorded}`}; the profile requires --write-probes ${wanted}`,
    );
  else
    f.ok('write probes', `the write operations were probed with --write-probes ${recorded}, as the profile requires`);
}

/** At most this many endpoints are named in one line. */
const NAMED_ENDPOINTS = 5;

const named = (endpoints: readonly string[]): string =>
  `${endpoints.slice(0, NAMED_ENDPOINTS).join(', ')}${endpoints.length > NAMED_ENDPOINTS ? `, and ${endpoints.length - NAMED_ENDPOINTS} more` : ''}`;

/**
 * The order of rules the profile pins (issue 41 item 4), as report.json records what each endpoint
 * answered (checks[].endpoints[].observed, src/battery/precedence.ts): one FAIL line per check
 * whose endpoints chose otherwise, naming them; one when nothing at all was observed.
 */
function checkPrecedence(loaded: LoadedProfile, report: RunReport, f: FindingSink): void {
  for (const [pair, pinned] of Object.entries(loaded.profile.precedence ?? {})) {
    if (pinned === undefined) continue;
    const topic = `precedence ${pair}`;
    const { checks } = PRECEDENCE_PAIRS[pair as keyof typeof PRECEDENCE_PAIRS];
    let agreeing = 0;
    let contrary = 0;
    for (const id of checks) {
      const endpoints = report.checks.find((c) => c.id === id)?.endpoints ?? [];
      const otherwise = new Map<string, string[]>();
      for (const { endpoint, observed } of endpoints) {
        if (observed === undefined) continue;
        if (observed === pinned || observed === 'both') agreeing += 1;
        else otherwise.set(observed, [...(otherwise.get(observed) ?? []), endpoint]);
      }
      for (const [observed, on] of otherwise) {
        contrary += on.length;
        f.fail(
          topic,
          `${id}: ${CHOICE_WORDS[observed as PrecedenceChoice] ?? JSON.stringify(observed)} on ${on.length} endpoint${on.length === 1 ? '' : 's'} (${named(on)}); the profile pins ${CHOICE_WORDS[pinned]}`,
        );
      }
    }
    if (agreeing + contrary === 0)
      f.fail(
        topic,
        `no endpoint's answer was observed by ${checks.join(' or ')} (a bundle of an earlier version, or the checks not run or passed nowhere); the profile pins ${CHOICE_WORDS[pinned]}`,
      );
    else if (contrary === 0)
      f.ok(topic, `${CHOICE_WORDS[pinned]} on each of the ${agreeing} endpoints observed, as the profile pins`);
  }
}

export function checkProfile(
  loaded: LoadedProfile,
  report: RunReport,
  info: TargetInfo | undefined,
  f: FindingSink,
): void {
  checkIdentity(loaded, report, info, f);
  checkWriteProbes(loaded, report, f);
  checkPrecedence(loaded, report, f);
  // A combined bundle (combine-bundles) proved expiry in a job of its own: the profile decides whether it may.
  const combined = info?.combined;
  if (combined !== undefined) {
    if (loaded.profile.separateExpiryJob)
      f.ok(
        'expiry job',
        `EXPIRY-* proven by a separate job (started ${combined.expiry.startedAt}, --max-expiry-wait ${combined.expiry.maxExpiryWait}), as the profile allows (separateExpiryJob)`,
      );
    else
      f.fail(
        'expiry job',
        'EXPIRY-* proven by a separate job (combine-bundles), which the profile does not allow (separateExpiryJob is not true)',
      );
  }
  checkOptions(loaded, report, info, f);
  checkEndpoints(loaded, report, f);
  checkIsolation(loaded, report, info, f);
  checkTargets(loaded, report, info, f);
}

/**
 * Every file the document read beside itself ($refs) is pinned by the profile, with the same
 * SHA-256 (issue 39 item 8: the profile pinned the root only, and a vendor's edited schema file
 * certified a server that broke it). A file the profile pins that the run did not read is noted.
 */
function checkDocumentFiles(
  pinned: Readonly<Record<string, string>>,
  read: readonly { file: string; sha256: string }[],
  f: FindingSink,
): void {
  const unpinned = read.filter((r) => pinned[r.file] === undefined);
  const changed = read.filter((r) => pinned[r.file] !== undefined && pinned[r.file] !== r.sha256);
  if (unpinned.length > 0)
    f.fail(
      'openapi',
      `the document read ${unpinned.length} file${unpinned.length === 1 ? '' : 's'} beside itself that the profile does not pin (${unpinned
        .slice(0, 3)
        .map((r) => JSON.stringify(r.file))
        .join(
          ', ',
        )}${unpinned.length > 3 ? ', …' : ''}): a changed $ref'd file changes what is certified; pin each in openapi.files (its sha256sum)`,
    );
  for (const r of changed)
    f.fail(
      'openapi',
      `${JSON.stringify(r.file)} has sha256 ${r.sha256.slice(0, 16)}…, not the file the profile pins (${(pinned[r.file] ?? '').slice(0, 16)}…)`,
    );
  const missing = Object.keys(pinned).filter((file) => !read.some((r) => r.file === file));
  for (const file of missing)
    f.note('openapi', `the profile pins ${JSON.stringify(file)}, which the document did not read`);
  if (read.length > 0 && unpinned.length === 0 && changed.length === 0)
    f.ok('openapi', `each of the ${read.length} files the document read beside itself is the one the profile pins`);
}
