import { createHash } from 'node:crypto';
import { z } from '../core/zod.js';
import { ISOLATION_METHODS } from '../model/run-report.js';

/**
 * A certification bundle is a directory of plain files:
 *
 *   report.json, junit.xml, report.html   the run's reports, as `run` writes them
 *   target.json                           what was tested and how (no secret)
 *   exchanges.jsonl                       every exchange of the run, one HAR 1.2 entry a line, redacted,
 *                                         each naming the checks that used it (src/report/exchanges.ts)
 *   manifest.json                         the SHA-256 and size of each of the five files above
 *   signature.json                        with --sign-key: an Ed25519 signature of manifest.json
 *
 * The manifest names files, never paths: a bundle is one flat directory, and a verifier reads
 * nothing the manifest could point outside it. The one exception is a combined bundle
 * (`combine-bundles`, src/bundle/combine.ts): it also holds the two runs it was made of, each a
 * whole bundle, as `parts/main/` and `parts/expiry/`, and its manifest lists their files by those
 * fixed names too (PART_FILES): still no name a bundle could choose.
 */

export const BUNDLE_FILES = {
  report: 'report.json',
  junit: 'junit.xml',
  html: 'report.html',
  target: 'target.json',
  exchanges: 'exchanges.jsonl',
  manifest: 'manifest.json',
  signature: 'signature.json',
} as const;

/** The files the manifest must list, in this order. */
export const MANIFESTED: readonly string[] = [
  BUNDLE_FILES.report,
  BUNDLE_FILES.junit,
  BUNDLE_FILES.html,
  BUNDLE_FILES.target,
  BUNDLE_FILES.exchanges,
];

/** What a combined bundle's manifest lists at its top: its exchanges are its parts' (PART_FILES). */
export const COMBINED_TOP: readonly string[] = MANIFESTED.filter((name) => name !== BUNDLE_FILES.exchanges);

/** Every file a bundle directory may hold. */
export const BUNDLE_NAMES: readonly string[] = Object.values(BUNDLE_FILES);

/** A combined bundle's folder of parts, and its two parts: the main run and the expiry job. */
export const PARTS_DIR = 'parts';
export const PART_NAMES = ['main', 'expiry'] as const;
export type PartName = (typeof PART_NAMES)[number];

/** Every file of a combined bundle's parts, as its manifest lists them: each part is a whole, signed bundle. */
export const PART_FILES: readonly string[] = PART_NAMES.flatMap((part) =>
  [...MANIFESTED, BUNDLE_FILES.manifest, BUNDLE_FILES.signature].map((name) => `${PARTS_DIR}/${part}/${name}`),
);

export const MANIFEST_FORMAT = 'carrier-conformance-bundle/1';
export const TARGET_FORMAT = 'carrier-conformance-target/1';
export const SIGNATURE_FORMAT = 'carrier-conformance-signature/1';

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 in lower-case hex');

export const manifestSchema = z
  .object({
    format: z.literal(MANIFEST_FORMAT),
    algorithm: z.literal('sha256'),
    files: z
      .array(z.object({ path: z.string(), sha256: sha256Hex, bytes: z.number().int().nonnegative() }).strict())
      .max(64),
  })
  .strict();
export type Manifest = z.infer<typeof manifestSchema>;

export const signatureSchema = z
  .object({
    format: z.literal(SIGNATURE_FORMAT),
    algorithm: z.literal('Ed25519'),
    signed: z.literal(BUNDLE_FILES.manifest),
    publicKey: z.string().max(4096),
    keyFingerprint: z.string().max(100),
    signature: z.string().max(200),
  })
  .strict();
export type Signature = z.infer<typeof signatureSchema>;

const fileDigest = z.object({ file: z.string(), sha256: sha256Hex }).strict();

/**
 * target.json: who and what was certified, and every option that shapes a verdict, so a reviewer
 * can tell a full, strict run from a lenient subset. Built from an allow-list: never a secret,
 * never the client id; user files (CA, expectations, baseline) by name and digest only.
 */
export const targetInfoSchema = z
  .object({
    format: z.literal(TARGET_FORMAT),
    implementation: z
      .object({ name: z.string(), version: z.string().optional(), operator: z.string().optional() })
      .strict(),
    target: z
      .object({
        baseUrl: z.string(),
        authUrl: z.string(),
        embedded: z.boolean(),
        tenantId: z.string().optional(),
        /**
         * SHA-256 of the client id the run authenticated as: not the id itself (target.json names
         * no credential), but enough to tell that two runs combined into one bundle used the same
         * client (combine-bundles). Absent in bundles of earlier versions and of embedded runs.
         */
        clientIdSha256: sha256Hex.optional(),
        pagedPaths: z.array(z.string()),
        /** Every tenant endpoint under test, as report.json lists them. */
        endpoints: z.array(z.object({ path: z.string(), kind: z.string(), source: z.string() })).optional(),
        /**
         * Where the base and auth URLs' hosts resolved when the bundle was written, each address
         * loopback, private (RFC 1918, RFC 4193, link-local) or public (src/certification/targets.ts).
         */
        hosts: z
          .array(
            z
              .object({
                host: z.string(),
                addresses: z
                  .array(z.object({ address: z.string(), kind: z.enum(['loopback', 'private', 'public']) }).strict())
                  .max(64),
                unresolved: z.string().optional(),
              })
              .strict(),
          )
          .max(8)
          .optional(),
        /**
         * The proxy the run's requests went through (HTTP_PROXY, HTTPS_PROXY, not excluded by
         * NO_PROXY), by origin without credentials, for the base and the auth URL: `hosts` then
         * says where the proxy was asked to go, not where the requests went (issue 39).
         */
        proxies: z
          .array(z.object({ url: z.string(), via: z.string() }).strict())
          .max(2)
          .optional(),
        /**
         * How tenant isolation was proven (TENANT-FOREIGN, report.json's target.isolation): with a
         * second client (its id by SHA-256, its tenant), a named foreign tenant, or not at all.
         */
        isolation: z
          .object({
            method: z.enum(ISOLATION_METHODS),
            secondClientIdSha256: sha256Hex.optional(),
            secondTenantId: z.string().optional(),
            foreignTenantId: z.string().optional(),
          })
          .strict()
          .optional(),
      })
      .strict(),
    /** The certification profile the run was made under (`run --profile`), by SHA-256 of its bytes. */
    certification: z
      .object({ profile: z.object({ file: z.string(), sha256: sha256Hex, name: z.string().optional() }).strict() })
      .strict()
      .optional(),
    /**
     * A combined bundle (`combine-bundles`): its EXPIRY-* results come from a separate expiry job,
     * run as recorded here; everything else is the main run's (parts/main/target.json).
     */
    combined: z
      .object({
        expiry: z
          .object({
            startedAt: z.string(),
            finishedAt: z.string(),
            maxExpiryWait: z.number(),
            deadline: z.number(),
            checks: z.array(z.string()),
          })
          .strict(),
      })
      .strict()
      .optional(),
    harness: z.object({ name: z.string(), version: z.string() }).strict(),
    catalogue: z.object({ digest: z.string(), checks: z.number().int(), must: z.number().int() }).strict(),
    run: z.object({ startedAt: z.string(), finishedAt: z.string(), verdict: z.string() }).strict(),
    options: z
      .object({
        strict: z.boolean(),
        suites: z.array(z.string()),
        checks: z.array(z.string()),
        rerunOf: z.string().optional(),
        baseline: fileDigest.extend({ entries: z.number().int(), strict: z.boolean() }).optional(),
        expectations: fileDigest.optional(),
        /** The OpenAPI document given (its own bytes; files it references are not digested). */
        /** `files`: those it read beside itself ($refs), from its folder: a profile pins each. */
        openapi: fileDigest.extend({ files: z.array(fileDigest).optional() }).optional(),
        /** --endpoint paths, and path parameter values (ids of the test account's data, not secrets). */
        endpoints: z.array(z.string()),
        parameters: z.record(z.string(), z.string()),
        caFile: fileDigest.optional(),
        insecure: z.boolean(),
        foreignTenantId: z.string().optional(),
        maxExpiryWait: z.number(),
        expiryMargin: z.number(),
        timeout: z.number(),
        deadline: z.number(),
        maxRetries: z.number(),
        maxRetryWait: z.number(),
        maxBodyBytes: z.number(),
        pageSize: z.number().optional(),
        maxPages: z.number().optional(),
        // Absent: the adaptive default (no --concurrency given).
        concurrency: z.number().optional(),
      })
      .strict(),
  })
  .strict();
export type TargetInfo = z.infer<typeof targetInfoSchema>;

export function sha256Of(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** A manifest entry must be one of the bundle's own file names: no directory, no `..`, nothing absolute. */
export function isBundleFileName(path: string, combined = false): boolean {
  return combined ? COMBINED_TOP.includes(path) || PART_FILES.includes(path) : MANIFESTED.includes(path);
}
