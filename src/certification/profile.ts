import { createRequire } from 'node:module';
import { dirname, isAbsolute, resolve } from 'node:path';
import type * as JsYaml from 'js-yaml';
import { sha256Of } from './bundle-format.js';
import { PRECEDENCE_PAIRS } from '../catalogue/precedence.js';
import { UsageError } from '../core/errors.js';
import { readRegularFile, type FileLimit } from '../core/files.js';
import { oneLine, printable } from '../core/wording.js';
import { z } from '../core/zod.js';

/**
 * A certification profile (issue 31): the platform's own file that says what a certifying run must
 * use and prove, so that the vendor being certified does not choose what is tested. `run --profile
 * FILE` applies it (src/certification/apply.ts); `verify-bundle --profile FILE` proves each of its
 * items from the bundle (src/certification/verify.ts). The bundle records the profile's SHA-256,
 * so a bundle made under an edited copy of the profile does not match the platform's.
 *
 * JSON, or YAML in a `.yaml`/`.yml` file (YAML 1.2 core schema, as --config reads it).
 */

export const PROFILE_FORMAT = 'carrier-conformance-profile/1';

/** Where a target may be: what `allowTargets` may name (src/certification/targets.ts classifies). */
export const TARGET_KINDS = ['loopback', 'private', 'embedded'] as const;
export type AllowedTargetKind = (typeof TARGET_KINDS)[number];

const PROFILE_LIMIT: FileLimit = { maxBytes: 1024 * 1024, of: 'a certification profile' };
const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, { error: 'must be a SHA-256 in lower-case hex (sha256sum FILE)' });

/**
 * A tenant endpoint as report.json names it: `invoices/{invoiceId}`, or its label
 * `GET /tenants/{tenantId}/invoices/{invoiceId}` (src/carrier/endpoint-specs.ts endpointLabel); kept
 * tenant-relative.
 */
const endpoint = z
  .string()
  .min(1, { error: 'must not be empty' })
  .transform((p) =>
    p
      .replace(/^GET\s+/, '')
      .replace(/^\/?tenants\/\{[^}/]+\}\//, '')
      .replace(/^\/+/, ''),
  )
  .refine((p) => p !== '' && !/[?#\s]/.test(p), {
    error: (issue) => `${JSON.stringify(issue.input)} is not a tenant endpoint; give e.g. invoices/{invoiceId}`,
  });

export const profileSchema = z
  .object({
    format: z.literal(PROFILE_FORMAT, { error: `must be "${PROFILE_FORMAT}"` }),
    /** Shown in findings: which programme this is. */
    name: z.string().min(1).max(200).optional(),
    /** The platform's OpenAPI document, by the SHA-256 of its bytes; `file` (relative to the profile) is used when the run gives no --openapi. */
    openapi: z
      .object({
        sha256: sha256Hex,
        file: z.string().min(1).optional(),
        files: z.record(z.string().min(1), sha256Hex).optional(),
      })
      .strict(),
    /** Every tenant endpoint that must be judged: in the run, and no check skipping it. */
    endpoints: z.array(endpoint).min(1, { error: 'must name at least one endpoint' }),
    /** The test account's known data (--expectations), by SHA-256. */
    expectations: z.object({ sha256: sha256Hex }).strict().optional(),
    /** The catalogue version: the digest report.json records (`carrier-conformance list` runs with it). */
    catalogue: z
      .string()
      .regex(/^sha256:[0-9a-f]{64}$/, {
        error: 'must be a catalogue digest, sha256:<64 hex digits>, as report.json records it',
      })
      .optional(),
    /** --require-complete: a skipped MUST check fails the run. */
    requireComplete: z.boolean().default(true),
    /** --strict: SHOULD checks fail the run too. Absent: either is accepted. */
    strict: z.boolean().optional(),
    /** The EXPIRY-* checks must have passed (spec §Authentication 3), not been skipped for a long expires_in. */
    expiryProven: z.boolean().default(true),
    /** The least --max-expiry-wait a run may use, in seconds (with separateExpiryJob, the expiry job). */
    minMaxExpiryWait: z.number().nonnegative().optional(),
    /**
     * The EXPIRY-* checks may be proven by a job of their own (`run --suite expiry` with a long
     * --max-expiry-wait), combined with the main run by `combine-bundles` (src/bundle/combine.ts):
     * real lifetimes (expires_in 3600) do not fit a main run's deadline. The main run may then
     * leave them unproven (a short --max-expiry-wait), and only the combined bundle certifies.
     */
    separateExpiryJob: z.boolean().default(false),
    /**
     * How tenant isolation (TENANT-FOREIGN) must have been proven: `second-client`, with a second
     * client whose tenant has data, both ways (--second-client-id); `foreign-tenant`, at least by
     * asking for a tenant the vendor named (--foreign-tenant-id), or with a second client. Absent:
     * any proof TENANT-FOREIGN passes with (it is a MUST check: never none).
     */
    isolation: z
      .enum(['second-client', 'foreign-tenant'], {
        error: (issue) => `${JSON.stringify(issue.input)} is neither second-client nor foreign-tenant`,
      })
      .optional(),
    /**
     * The least the write operations must have been probed with (issue 41): `headers`, never with
     * content (--write-probes headers, the default); `invalid-content`, also with content that is
     * not JSON (--write-probes invalid-content, a target marked --allow-writes). Absent: any,
     * `none` included.
     */
    writeProbes: z
      .enum(['headers', 'invalid-content'], {
        error: (issue) => `${JSON.stringify(issue.input)} is neither headers nor invalid-content`,
      })
      .optional(),
    /**
     * Which rule wins where two apply at once and the spec does not order them (issue 41 item 4;
     * src/catalogue/precedence.ts): `versionAndAuth`, no Accept-Version and no token, answered for
     * `version` (400) or `auth` (a Bearer challenge); `tenantAndAuth`, an unknown tenant and no
     * token, for `tenant` (403 or 404) or `auth`. Every endpoint the checks of the pair observed
     * must have answered so (an answer both rules allow counts as either). Absent: either.
     */
    precedence: z
      .object({
        versionAndAuth: z
          .enum(PRECEDENCE_PAIRS.versionAndAuth.choices, {
            error: (issue) => `${JSON.stringify(issue.input)} is neither version nor auth`,
          })
          .optional(),
        tenantAndAuth: z
          .enum(PRECEDENCE_PAIRS.tenantAndAuth.choices, {
            error: (issue) => `${JSON.stringify(issue.input)} is neither tenant nor auth`,
          })
          .optional(),
      })
      .strict()
      .optional(),
    /** Targets a certifying run may test besides public addresses; none by default. */
    allowTargets: z
      .array(
        z.enum(TARGET_KINDS, {
          error: (issue) => `${JSON.stringify(issue.input)} is not one of ${TARGET_KINDS.join(', ')}`,
        }),
      )
      .default([]),
  })
  .strict();

export type CertificationProfile = z.output<typeof profileSchema>;

export interface LoadedProfile {
  /** The path as given. */
  path: string;
  /** SHA-256 of the file's bytes: what a bundle records and verify-bundle compares. */
  sha256: string;
  profile: CertificationProfile;
  /** `openapi.file`, resolved against the profile's folder. */
  openapiFile?: string;
}

/** Few aliases and little nesting, as for --config (src/config/options.ts): a profile needs neither (the "billion laughs"). */
const PROFILE_YAML_LIMITS = { maxAliases: 8, maxDepth: 16 } as const;

function parseText(path: string, text: string): unknown {
  if (/\.ya?ml$/i.test(path)) {
    const { CORE_SCHEMA, YAMLException, load } = createRequire(import.meta.url)('js-yaml') as typeof JsYaml;
    try {
      return load(text, { schema: CORE_SCHEMA, ...PROFILE_YAML_LIMITS });
    } catch (err) {
      if (!(err instanceof YAMLException)) throw err;
      throw new UsageError(
        `--profile ${path}: not valid YAML (${oneLine(printable(`${err.reason}${err.mark ? ` at line ${err.mark.line + 1}` : ''}`), 160)})`,
      );
    }
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new UsageError(`--profile ${path}: not valid JSON (${oneLine(printable((err as Error).message), 160)})`);
  }
}

/** Reads and checks a profile; every problem is one line naming the file and the key (exit 2). */
export function loadProfile(path: string): LoadedProfile {
  const bytes = readRegularFile(path, '--profile', PROFILE_LIMIT);
  const result = profileSchema.safeParse(parseText(path, bytes.toString('utf8')));
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'the file';
    const problem =
      issue?.code === 'unrecognized_keys'
        ? `unknown key ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`
        : (issue?.message ?? 'invalid');
    throw new UsageError(`--profile ${path}: ${where}: ${oneLine(printable(problem), 200)}`);
  }
  const profile = result.data;
  const file = profile.openapi.file;
  return {
    path,
    sha256: sha256Of(bytes),
    profile,
    ...(file !== undefined ? { openapiFile: isAbsolute(file) ? file : resolve(dirname(path), file) } : {}),
  };
}

/** The tiers of --write-probes, least first: a run's tier is enough when it is the profile's or above. */
const WRITE_TIERS = ['none', 'headers', 'invalid-content'] as const;

export function writeProbesEnough(run: string | undefined, required: string): boolean {
  return (
    WRITE_TIERS.indexOf(run as (typeof WRITE_TIERS)[number]) >=
    WRITE_TIERS.indexOf(required as (typeof WRITE_TIERS)[number])
  );
}
