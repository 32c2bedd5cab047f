import { currentCatalogue } from '../catalogue/digest.js';
import { CHECKS, selectChecks } from '../catalogue/index.js';
import { sha256Of } from './bundle-format.js';
import { flagName, type RunOptions, type RunOptionSources } from '../config/options.js';
import { envName } from '../core/environment.js';
import { UsageError } from '../core/errors.js';
import { FILE_LIMITS, readRegularFile } from '../core/files.js';
import { proxyFor } from '../http/proxy.js';
import { loadProfile, writeProbesEnough, type LoadedProfile } from './profile.js';
import { recordHosts } from './targets.js';

/**
 * `run --profile FILE` (issue 31): the platform's profile decides the options that shape what a
 * certifying run proves. An option the profile names and the user left out is set to the profile's
 * value; one the user gave that would prove less (a lower --max-expiry-wait, --no-require-complete,
 * a document or expectations file with another SHA-256, a selection without the expiry checks) is
 * refused before anything runs, with one line naming the option and the profile's value (exit 2).
 */

/** What a bundle records of the profile a run was made under. */
export interface AppliedProfile {
  file: string;
  sha256: string;
  name?: string;
}

type Key = keyof RunOptions;

/** How the source that gave `key` spells it (`--strict`, `CARRIER_STRICT`, the config file's "strict"), or undefined if none did. */
function givenAs(key: Key, sources: RunOptionSources): string | undefined {
  if (sources.argv[key] !== undefined) return flagName(key);
  if (sources.env?.[key] !== undefined) return envName(key);
  if (sources.config?.[key] !== undefined) return `the config file's "${key}"`;
  return undefined;
}

function digestOf(path: string, what: string): string {
  return sha256Of(readRegularFile(path, what, FILE_LIMITS.openapi));
}

export function applyProfile(
  path: string,
  given: RunOptions,
  sources: RunOptionSources,
): { options: RunOptions; profile: AppliedProfile; loaded: LoadedProfile } {
  const loaded: LoadedProfile = loadProfile(path);
  const p = loaded.profile;
  const contradicts = (key: Key, value: unknown, wanted: string): never => {
    throw new UsageError(
      `${givenAs(key, sources) ?? flagName(key)} ${String(value)} contradicts the profile ${path} (${wanted})`,
    );
  };
  const options: RunOptions = { ...given };

  const catalogue = currentCatalogue().digest;
  if (p.catalogue !== undefined && p.catalogue !== catalogue)
    throw new UsageError(
      `--profile ${path}: requires catalogue ${p.catalogue}; this harness's is ${catalogue}: run the harness version the profile names`,
    );

  // With separateExpiryJob, a run of exactly the expiry checks is the expiry job of a two-job
  // proof (src/bundle/combine.ts): the main run's --require-complete covers it once combined, and
  // --require-complete itself refuses a --suite selection (src/runner/scope.ts).
  const selectedIds = new Set(selectChecks(options.suite, options.check).map((c) => c.id));
  const expiryIds = CHECKS.filter((c) => c.suite === 'expiry').map((c) => c.id);
  const expiryJob =
    p.separateExpiryJob && selectedIds.size === expiryIds.length && expiryIds.every((id) => selectedIds.has(id));
  if (p.requireComplete && !expiryJob) {
    if (givenAs('requireComplete', sources) !== undefined && !options.requireComplete)
      contradicts('requireComplete', false, 'requireComplete: true');
    options.requireComplete = true;
  }
  if (p.strict !== undefined) {
    // Stricter than the profile proves more, never less: only a weaker run is refused.
    if (p.strict && givenAs('strict', sources) !== undefined && !options.strict)
      contradicts('strict', false, 'strict: true');
    if (givenAs('strict', sources) === undefined) options.strict = p.strict;
  }
  // With separateExpiryJob, a main run may choose not to wait expiry out (`--max-expiry-wait 0`):
  // the expiry job proves it, with the wait the profile requires (verify-bundle holds the combined
  // bundle to it, and the main bundle alone fails it). Given no wait, the run is held to the profile's.
  const leftToExpiryJob = p.separateExpiryJob && !expiryJob && givenAs('maxExpiryWait', sources) !== undefined;
  if (p.minMaxExpiryWait !== undefined && !leftToExpiryJob) {
    if (givenAs('maxExpiryWait', sources) !== undefined && options.maxExpiryWait < p.minMaxExpiryWait)
      contradicts('maxExpiryWait', options.maxExpiryWait, `minMaxExpiryWait: ${p.minMaxExpiryWait}`);
    options.maxExpiryWait = Math.max(options.maxExpiryWait, p.minMaxExpiryWait);
    // As src/config/options.ts refuses a given wait the deadline cannot hold: the run would end incomplete.
    if (options.maxExpiryWait >= options.deadline)
      throw new UsageError(
        `--profile ${path}: requires --max-expiry-wait ${options.maxExpiryWait}, which is not below ${givenAs('deadline', sources) ?? '--deadline (default)'} ${options.deadline}: raise the deadline above the wait`,
      );
  }
  if (p.expiryProven) {
    // Selected out, the EXPIRY-* checks are not run, let alone passed.
    const missing = CHECKS.filter((c) => c.suite === 'expiry' && !selectedIds.has(c.id));
    if (missing.length > 0) {
      const key: Key = options.check.length > 0 ? 'check' : 'suite';
      contradicts(
        key,
        (key === 'check' ? options.check : options.suite).join(','),
        `expiryProven: true, which needs ${missing.map((c) => c.id).join(', ')}`,
      );
    }
    if (options.rerunFailed !== undefined)
      contradicts(
        'rerunFailed',
        options.rerunFailed || '(the last report)',
        'expiryProven: true: a rerun of some checks proves no expiry',
      );
  }

  // Options that let a run prove less, whatever the profile says: a sample of each list's pages
  // (--max-pages hides a defect on a middle page), known failures accepted (--baseline), some
  // checks rerun (--rerun-failed). verify-bundle --profile refuses a bundle made with them too.
  const lessProving: [Key, string][] = [
    ['maxPages', 'a certifying run walks every page of every list'],
    ['baseline', 'a certifying run accepts no known failure'],
    ['rerunFailed', 'a certifying run runs the battery, not the failures of another run'],
  ];
  for (const [key, why] of lessProving) {
    const value = options[key];
    if (value !== undefined)
      throw new UsageError(
        `${givenAs(key, sources) ?? flagName(key)} ${typeof value === 'string' || typeof value === 'number' ? String(value) || '(the last report)' : ''} is refused under the profile ${path}: ${why}`,
      );
  }

  // The isolation proof the profile requires, asked for now: not found missing after an hour's run (issue 39).
  const isolationRun = selectedIds.has('TENANT-FOREIGN');
  if (p.isolation !== undefined && isolationRun && options.baseUrl !== undefined) {
    if (p.isolation === 'second-client' && options.secondClientId === undefined) {
      throw new UsageError(
        `--profile ${path}: requires tenant isolation proven with a second client (isolation: second-client): give --second-client-id and its secret in CARRIER_SECOND_CLIENT_SECRET, a client of another tenant that has data`,
      );
    }
    if (
      p.isolation === 'foreign-tenant' &&
      options.secondClientId === undefined &&
      options.foreignTenantId === undefined
    ) {
      throw new UsageError(
        `--profile ${path}: requires tenant isolation proven (isolation: foreign-tenant): give --second-client-id (with CARRIER_SECOND_CLIENT_SECRET) or --foreign-tenant-id`,
      );
    }
  }

  // The write probes the profile requires (issue 41), asked for now.
  if (
    p.writeProbes !== undefined &&
    options.baseUrl !== undefined &&
    !writeProbesEnough(options.writeProbes, p.writeProbes)
  )
    throw new UsageError(
      `--profile ${path}: requires the write operations probed with --write-probes ${p.writeProbes}${p.writeProbes === 'invalid-content' ? ' (and --allow-writes: the target is not production)' : ''}; the run has --write-probes ${options.writeProbes}`,
    );

  // The platform's document, by content: a vendor's edited copy (an endpoint left out) does not match.
  if (options.openapi === undefined) {
    if (loaded.openapiFile === undefined)
      throw new UsageError(
        `--profile ${path}: requires --openapi, the platform's document (sha256 ${p.openapi.sha256})`,
      );
    options.openapi = loaded.openapiFile;
  }
  const openapi = digestOf(options.openapi, '--openapi');
  if (openapi !== p.openapi.sha256)
    throw new UsageError(
      `--openapi ${options.openapi}: sha256 ${openapi} is not the document the profile ${path} names (openapi.sha256: ${p.openapi.sha256}); use the platform's document unchanged`,
    );

  if (p.expectations !== undefined) {
    if (options.expectations === undefined)
      throw new UsageError(
        `--profile ${path}: requires --expectations, the test account's data (sha256 ${p.expectations.sha256})`,
      );
    const expectations = digestOf(options.expectations, '--expectations');
    if (expectations !== p.expectations.sha256)
      throw new UsageError(
        `--expectations ${options.expectations}: sha256 ${expectations} is not the file the profile ${path} names (expectations.sha256: ${p.expectations.sha256})`,
      );
  }
  return {
    options,
    profile: { file: path, sha256: loaded.sha256, ...(p.name !== undefined ? { name: p.name } : {}) },
    loaded,
  };
}

/**
 * What the profile says of the target, checked before the run starts (issue 39 item 4): a target
 * the profile does not allow (the embedded server, a loopback or private address) would make a
 * bundle that verify-bundle refuses, found out only after an hour's expiry job. Refused here
 * (exit 2, one line). A host that does not resolve is left to the run, which says so. So is a
 * target reached through a proxy: the addresses the bundle records are then where the proxy was
 * asked to go, not where the requests went (a public-only profile certified the loopback
 * reference behind HTTP_PROXY).
 */
export async function refuseTargetsTheProfileDisallows(
  path: string,
  loaded: LoadedProfile,
  options: RunOptions,
): Promise<void> {
  for (const url of [options.baseUrl, options.authUrl]) {
    const via = url === undefined ? undefined : proxyFor(url);
    if (via !== undefined)
      throw new UsageError(
        `--profile ${path}: the requests to ${url} would go through the proxy ${via} (HTTP_PROXY/HTTPS_PROXY): a certifying run must reach the target itself, whose addresses the bundle records; unset the proxy for this run, or name the host in NO_PROXY`,
      );
  }
  const allowed = new Set<string>(loaded.profile.allowTargets);
  const shown = `allowTargets: [${[...allowed].join(', ')}]`;
  if (options.baseUrl === undefined) {
    if (!allowed.has('embedded'))
      throw new UsageError(
        `--profile ${path}: the embedded reference server is not a target the profile allows (${shown}): a bundle of this run would not verify; give --base-url`,
      );
    return;
  }
  for (const record of await recordHosts([
    options.baseUrl,
    ...(options.authUrl !== undefined ? [options.authUrl] : []),
  ])) {
    const refused = record.addresses.find((a) => a.kind !== 'public' && !allowed.has(a.kind));
    if (refused !== undefined) {
      throw new UsageError(
        `--profile ${path}: the target's host ${record.host} is ${refused.address === record.host.replace(/^\[|\]$/g, '') ? '' : `at ${refused.address}, `}a ${refused.kind} address, which the profile does not allow (${shown}): a bundle of this run would not verify; run against the deployment's public address`,
      );
    }
  }
}
