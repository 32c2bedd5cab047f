import { z } from '../core/zod.js';
import { LEVELS, SUITES } from '../catalogue/types.js';

/**
 * The data every report is written from (JSON, JUnit, console). It is also what
 * `reports/report.json` contains, so this schema is that file's documentation.
 * Everything in it has already passed through the redactor (`src/core/redact.ts`).
 */

/** How a run proved tenant isolation (TENANT-FOREIGN), strongest first. */
export const ISOLATION_METHODS = ['second-client', 'foreign-tenant', 'none'] as const;
export type IsolationMethod = (typeof ISOLATION_METHODS)[number];

export const headerListSchema = z.array(z.tuple([z.string(), z.string()]));

export const recordedExchangeSchema = z.object({
  /** What the check meant to do with this request, e.g. "GET /users/me without Accept-Version". */
  purpose: z.string(),
  request: z.object({
    method: z.string(),
    url: z.string(),
    headers: headerListSchema,
    body: z.string().optional(),
  }),
  response: z
    .object({
      status: z.number().int(),
      headers: headerListSchema,
      body: z.string(),
      /** The body was longer than the recording limit and is cut. */
      bodyTruncated: z.boolean(),
    })
    .optional(),
  /** Transport failure: timeout, reset, refused connection. */
  error: z.string().optional(),
  startedAt: z.string(),
  durationMs: z.number(),
  /** How the request authenticated, so that a reproduction can use environment variables. */
  auth: z.enum(['none', 'client-basic', 'bearer', 'literal']),
  /**
   * For `client-basic`: how the Basic credentials were made from the configured ones, so that a
   * reproduction sends the same bytes while the report holds no secret. `encoding`: RFC 6749
   * §2.3.1 form-encoding (`form`) or none (`raw`); `clientId`: the id sent when it was not the
   * configured one (an unknown client); `secretSuffix`: appended to the configured secret (a
   * wrong secret). Absent in reports of earlier versions.
   */
  basic: z
    .object({ encoding: z.enum(['form', 'raw']), clientId: z.string().optional(), secretSuffix: z.string().optional() })
    .optional(),
});
export type RecordedExchange = z.infer<typeof recordedExchangeSchema>;

export const findingSchema = z.object({
  /** `failure`: the target does not conform. `error`: the check could not be carried out. */
  kind: z.enum(['failure', 'error']),
  message: z.string(),
  /** Index into the check's `exchanges` of the exchange that shows the finding. */
  exchange: z.number().int().nonnegative().optional(),
  /** The endpoint the finding is about, e.g. "GET /tenants/{tenantId}/invoices/{invoiceId}". */
  endpoint: z.string().optional(),
});
export type Finding = z.infer<typeof findingSchema>;

export const CHECK_STATUSES = ['passed', 'failed', 'warning', 'error', 'skipped', 'expected'] as const;
export const checkStatusSchema = z.enum(CHECK_STATUSES);
export type CheckStatus = z.infer<typeof checkStatusSchema>;

export const checkResultSchema = z.object({
  id: z.string(),
  suite: z.enum(SUITES),
  level: z.enum(LEVELS),
  title: z.string(),
  refs: z.array(z.string()),
  /**
   * passed; failed (a MUST check found non-conformance); warning (a SHOULD check did);
   * error (the check could not be carried out); skipped (with the reason in `message`);
   * expected (it failed or errored, but --baseline lists it as a known failure).
   */
  status: checkStatusSchema,
  /**
   * Set when --baseline lists the check. `stale`: it is listed but passed, so the entry can go.
   * `expires`: the last day the entry holds; `expired`: it had expired when the run started, so
   * a failure stays a failure.
   */
  baseline: z
    .object({ reason: z.string(), stale: z.boolean(), expires: z.string().optional(), expired: z.boolean().optional() })
    .optional(),
  /** One line: why it failed, errored, warned or was skipped. */
  message: z.string().optional(),
  findings: z.array(findingSchema),
  /**
   * Every endpoint the check was applied to, with its own outcome (a SHOULD check's failure is a
   * warning, as for the check). Absent for checks that are not about endpoints.
   */
  endpoints: z
    .array(
      z.object({
        endpoint: z.string(),
        status: z.enum(['passed', 'failed', 'warning', 'error', 'skipped']),
        message: z.string().optional(),
        /**
         * On a pass, what the target chose where the spec lets it choose: for the checks of two
         * defects at once (src/battery/precedence.ts), whose rule it answered for: `version`,
         * `tenant`, `auth` or `both`. Absent otherwise, and in reports of earlier versions.
         */
        observed: z.string().optional(),
      }),
    )
    .optional(),
  /** Informational remarks, e.g. "size capped at 100 by the server". */
  notes: z.array(z.string()),
  exchanges: z.array(recordedExchangeSchema),
  durationMs: z.number().nonnegative(),
});
export type CheckResult = z.infer<typeof checkResultSchema>;

/**
 * A team's own check (--team-checks, docs/team-checks.md), judged as the catalogue's are: the
 * same fields but the suite, and the module it came from; `refs` holds the team's reference.
 */
export const teamCheckResultSchema = checkResultSchema.omit({ suite: true, baseline: true }).extend({
  module: z.string(),
});
export type TeamCheckResult = z.infer<typeof teamCheckResultSchema>;

export const countsSchema = z.object({
  total: z.number().int(),
  passed: z.number().int(),
  failed: z.number().int(),
  warning: z.number().int(),
  error: z.number().int(),
  skipped: z.number().int(),
  expected: z.number().int(),
});
export type Counts = z.infer<typeof countsSchema>;

/** Every value of report.json's `verdict` (see runReportSchema), best first. */
export const VERDICTS = [
  'conformant',
  'conformant-subset',
  'conformant-baselined',
  'non-conformant',
  'not-proven',
  'incomplete',
  'nothing-checked',
] as const;
export type Verdict = (typeof VERDICTS)[number];

/**
 * What the verdict covers: which checks were selected, which were carried out, which were
 * skipped and why, and which failures a baseline accepted. A verdict is evidence only for the
 * checks carried out; every output says so (src/report/verdict.ts).
 */
export const scopeSchema = z.object({
  /**
   * full: every check of the catalogue was carried out; partial: some were not selected, were
   * skipped or could not be carried out; none: no check was carried out.
   */
  coverage: z.enum(['full', 'partial', 'none']),
  /** Checks in the harness's catalogue. */
  catalogue: z.number().int(),
  /** How the checks were chosen: --suite and --check (both empty: every check), narrowed by --rerun-failed. */
  selection: z.object({
    suites: z.array(z.string()),
    checks: z.array(z.string()),
    rerunOf: z.string().optional(),
    /** `traffic`: a capture was judged, so only the passive checks were selected (the others need requests of their own). */
    passive: z.boolean().optional(),
  }),
  /** Checks of the catalogue the selection left out. */
  notSelected: z.array(z.string()),
  /** Checks carried out: they passed, failed or warned (a baselined failure included). */
  carriedOut: z.number().int(),
  /** Selected checks that were skipped, grouped by the reason they gave. */
  skipped: z.array(z.object({ reason: z.string(), checks: z.array(z.string()) })),
  /** Failures the --baseline accepted (status `expected`): the verdict holds except for these. */
  baselined: z.array(z.object({ check: z.string(), level: z.enum(LEVELS), reason: z.string() })),
  /** --require-complete: a skipped required check was turned into an error and fails the run. */
  requireComplete: z.boolean(),
});
export type Scope = z.infer<typeof scopeSchema>;

/**
 * A cause the run found before its checks (the preflight: the token request, GET /users/me) that
 * kept checks from running: reported once, here, and each check it kept from running is an error
 * whose message points at it ("not run: GET /users/me answered 500 in the preflight (see the
 * cause)"). Absent in reports of earlier versions.
 */
export const runCauseSchema = z.object({
  /** Where it was found. */
  source: z.enum(['preflight']),
  /** What went wrong, in one line: "GET /users/me answered 500". */
  title: z.string(),
  /** What it meant for the run, e.g. "no tenant was given (--tenant-id) and GET /users/me (500) lists no tenant with a UUID id". */
  detail: z.string().optional(),
  /** The request that went wrong, e.g. "GET /users/me", and the status it got (none: it got no answer). */
  endpoint: z.string().optional(),
  status: z.number().int().optional(),
  /** The checks that could not run because of it, in report order. */
  checks: z.array(z.string()),
  /** The exchange that shows it, when it was recorded. */
  exchange: recordedExchangeSchema.optional(),
});
export type RunCause = z.infer<typeof runCauseSchema>;

/**
 * A review item: a pattern the run noticed that may break a rule of the spec which cannot be
 * judged without ground truth, so it is neither a failure nor a warning. Review items are a list
 * apart, not a check level: a level belongs to a check of the catalogue, which passes or fails
 * and counts in the verdict, the catalogue digest, matrices and baselines; a review item is an
 * observation of the data that none of them may count (docs/design.md, "Review items"). They
 * never change the verdict or the exit code.
 */
export const reviewItemSchema = z.object({
  /** What was noticed: `empty-string-for-null` (spec §Generic rules for optional fields 2). A string, so later kinds still read. */
  kind: z.string(),
  /** The check whose walk noticed it, and the one that would judge it with ground truth. */
  check: z.string(),
  judgedBy: z.string(),
  /** The endpoint, e.g. "GET /tenants/{tenantId}/invoices", and the field. */
  endpoint: z.string(),
  field: z.string(),
  /** What was seen, in one line. */
  message: z.string(),
  /** What to do to have it judged. */
  advice: z.string(),
  refs: z.array(z.string()),
});
export type ReviewItem = z.infer<typeof reviewItemSchema>;

/**
 * One finding of `lint` (src/lint/rules.ts) in the run's --openapi document: the rule, its level,
 * and where it was written (the file, relative to the working directory when inside it, the JSON
 * Pointer in that file, its line and column).
 */
export const documentFindingSchema = z.object({
  rule: z.string(),
  level: z.enum(LEVELS),
  message: z.string(),
  file: z.string(),
  pointer: z.string(),
  line: z.number().int().optional(),
  column: z.number().int().optional(),
});
export type DocumentFinding = z.infer<typeof documentFindingSchema>;

/**
 * The --openapi document linted as `carrier-conformance lint` lints it (issue 33). It is about the
 * document, not the deployment: never a check, never in the counts, the verdict or the exit code.
 * Absent when the run had no document, and in reports of earlier versions.
 */
export const documentSectionSchema = z.object({
  /** The document, as --openapi named it. */
  file: z.string(),
  /** How many lint rules it was held to. */
  rules: z.number().int(),
  /** The findings listed: as `lint` lists them, at most so many of a rule and at one place (src/lint/caps.ts). */
  findings: z.array(documentFindingSchema),
  /** How many more findings of each rule there are, not listed. Absent when every finding is listed, and in reports of earlier versions. */
  notListed: z.array(z.object({ rule: z.string(), count: z.number().int() })).optional(),
  /** Why it could not be linted (its findings are then unknown, not none). */
  error: z.string().optional(),
});
export type DocumentSection = z.infer<typeof documentSectionSchema>;

export const runReportSchema = z.object({
  tool: z.object({ name: z.string(), version: z.string() }),
  target: z.object({
    baseUrl: z.string(),
    authUrl: z.string(),
    /** The embedded reference server was started for this run. */
    embedded: z.boolean(),
    tenantId: z.string().optional(),
    /** The tenant-relative paths of the lists under test. */
    pagedPaths: z.array(z.string()),
    /** Every tenant endpoint under test: lists and single resources, and where each was named. */
    endpoints: z
      .array(
        z.object({
          path: z.string(),
          kind: z.enum(['list', 'single']),
          source: z.string(),
          /** What made it a list: paging declared, an array body, or a wrapper around one (README, Every endpoint of your API). */
          listBy: z.enum(['paging', 'array', 'wrapped-array']).optional(),
          /** The wrapper property holding a list's items (`data` of `{"data": [...]}`). */
          itemsProperty: z.string().optional(),
          /** Its required query parameters: the value sent and where it came from, or why there is none (the endpoint is then skipped). --parameter values are not shown here. */
          query: z
            .array(
              z.object({
                name: z.string(),
                value: z.string().optional(),
                from: z.enum(['example', 'default', 'enum', 'invented', 'parameter']).optional(),
                problem: z.string().optional(),
              }),
            )
            .optional(),
          /** Its required header parameters, as `query` (issue 37 item 4); those --header sends are not listed. */
          headers: z
            .array(
              z.object({
                name: z.string(),
                value: z.string().optional(),
                from: z.enum(['example', 'default', 'enum', 'invented', 'parameter']).optional(),
                problem: z.string().optional(),
              }),
            )
            .optional(),
          /** Why its body is not held to a schema (RESOURCE-SCHEMA and RESOURCE-FIELDS-PRESENT skip it, saying so). */
          schemaGap: z.string().optional(),
          /** Why its kind (list or single resource) is not certain, and so may be wrong (issue 37 item 3): the console lists it with the option that overrides it. */
          uncertain: z.string().optional(),
        }),
      )
      .optional(),
    /** How many operations (every method) the --openapi document declares; `endpoints` are its GETs under the tenant path. */
    operations: z.number().int().nonnegative().optional(),
    /** The OpenAPI document the endpoints came from (--openapi). */
    openapi: z.string().optional(),
    /** The files the document read beside itself ($refs), from its folder, each by SHA-256 (issue 39 item 8). */
    openapiFiles: z.array(z.object({ file: z.string(), sha256: z.string() }).strict()).optional(),
    /**
     * The client credentials contain characters that RFC 6749 §2.3.1 form-encodes before
     * Base64, so a naive `curl -u id:secret` would not send what the harness sent.
     */
    credentialsFormEncoded: z.boolean(),
    /**
     * `raw`: the token endpoint accepted the credentials only without that form-encoding, and
     * the run sent them as they are (TOKEN-CREDENTIALS-ENCODING). Absent: form-encoded.
     */
    basicEncoding: z.enum(['form', 'raw']).optional(),
    /**
     * `post`: the run's own token requests used client_secret_post, not the spec's HTTP Basic:
     * --client-auth post, or HTTP Basic refused and client_secret_post accepted (TOKEN-ISSUE says so).
     */
    clientAuth: z.enum(['basic', 'post']).optional(),
    /** The --ca-file the run trusted (an absolute path): a reproduction must trust it too (curl --cacert). */
    caFile: z.string().optional(),
    /** True when the run did not verify TLS certificates (--insecure), so a reproduction must not either. */
    insecure: z.boolean().optional(),
    /**
     * The run's --expiry-margin, in seconds: a reproduction of a request sent with an expired
     * token waits expires_in, a second and this margin, as the run did. Absent: not recorded
     * (a reproduction then assumes the default, 1 s, and says so).
     */
    expiryMargin: z.number().nonnegative().optional(),
    /**
     * How tenant isolation was proven (TENANT-FOREIGN): `second-client`, reading a second client's
     * tenant (`secondTenantId`) with both clients' tokens; `foreign-tenant`, asking for a tenant the
     * user named; `none`, not at all (the check is skipped). Absent in reports of earlier versions.
     */
    isolation: z
      .object({
        method: z.enum(ISOLATION_METHODS),
        secondTenantId: z.string().optional(),
        foreignTenantId: z.string().optional(),
      })
      .optional(),
    /**
     * How the write operations were probed (--write-probes, issue 41): `headers`, never with
     * content; `invalid-content`, also with content that is not JSON (a target marked
     * --allow-writes); `none`, not at all. Absent in reports of earlier versions.
     */
    writeProbes: z.enum(['headers', 'invalid-content', 'none']).optional(),
    /** What matrices, badges and bundles call the target: --target-name, else the base URL's host. */
    name: z.string().optional(),
    /** The implementation's version (--target-version) and who runs it (--operator), as the run was told. */
    version: z.string().optional(),
    operator: z.string().optional(),
  }),
  /**
   * The check catalogue the run was judged against (src/catalogue/digest.ts): reports with the same
   * digest can be combined (`matrix`), and a bundle is held to the current one (`verify-bundle`).
   * Absent in reports of harnesses that predate it.
   */
  catalogue: z.object({ digest: z.string(), checks: z.number().int(), must: z.number().int() }).optional(),
  startedAt: z.string(),
  finishedAt: z.string(),
  durationMs: z.number().nonnegative(),
  strict: z.boolean(),
  /** The --baseline file, when one was given; `stale` lists the entries whose check now passes. */
  baseline: z
    .object({
      file: z.string(),
      entries: z.number().int(),
      stale: z.array(z.string()),
      /** Entries whose `expires` day had passed (absent in reports of earlier versions). */
      expired: z.array(z.string()).optional(),
      strict: z.boolean(),
    })
    .optional(),
  /** The report.json whose failed checks this run repeats (--rerun-failed). */
  rerunOf: z.string().optional(),
  /**
   * The machine verdict, one of VERDICTS (decided by src/report/verdict.ts decideVerdict; JUnit's
   * `run.verdict`, the step summary, `diff`, `matrix` and bundles write the same value):
   * conformant: every check of the catalogue carried out, every required one passed, none accepted
   * by a baseline. conformant-subset: every required check carried out passed, but not every check
   * was (`scope` says which). conformant-baselined: as either, except failures a baseline accepts.
   * non-conformant: a required check failed. not-proven: required checks could not be carried out
   * (errors; with --require-complete, skips) and none failed. incomplete: the run stopped early
   * (see `incompleteReason`). nothing-checked: the run carried out no check at all.
   * Reports of earlier versions hold only conformant, non-conformant and incomplete, in a coarser
   * sense: readers refine them from the checks (src/report/verdict.ts verdictOfReport).
   */
  verdict: z.enum(VERDICTS),
  /** The verdict in one line, as every output words it: what was proven, and what was not (see `scope`). */
  summary: z.string().optional(),
  /** What the verdict covers. Absent in reports of earlier versions. */
  scope: scopeSchema.optional(),
  incompleteReason: z.string().optional(),
  /** The process's exit code; with --compare-with it says whether anything regressed (see `comparison`). */
  exitCode: z.number().int(),
  /** --compare-with: the earlier report.json and the ids of the checks that got worse since (src/compare/). */
  comparison: z.object({ with: z.string(), regressions: z.array(z.string()), fixes: z.array(z.string()) }).optional(),
  /** How the run used the target: token requests made for the shared token (preflight and refreshes). */
  stats: z.object({ sharedTokenRequests: z.number().int() }).optional(),
  /** The causes found before the checks ran (the preflight), each reported once. Absent when there was none. */
  causes: z.array(runCauseSchema).optional(),
  /** The --openapi document's lint findings: not checks of the deployment (see documentSectionSchema). */
  document: documentSectionSchema.optional(),
  /** Review items (see reviewItemSchema): outside the verdict. Absent when there was none, and in reports of earlier versions. */
  review: z.array(reviewItemSchema).optional(),
  /**
   * The team's own checks (--team-checks): never in `verdict`, `counts` or `checks`, which are the
   * spec's. `passed`: none of them blocks (a MUST one failed or erred; with --strict, a SHOULD one
   * failed); when one does, a run the spec finds conformant exits 6 (src/core/exit-codes.ts).
   */
  team: z
    .object({
      modules: z.array(z.string()),
      passed: z.boolean(),
      counts: countsSchema,
      checks: z.array(teamCheckResultSchema),
    })
    .optional(),
  /**
   * `traffic` (issue 43): the captures judged instead of a run. No request was sent; each check
   * judged the exchanges it fits, and says per endpoint what it saw (`checks[].endpoints`).
   */
  traffic: z
    .object({
      captures: z.array(
        z.object({
          file: z.string(),
          format: z.enum(['har', 'ndjson', 'nginx', 'kong']),
          sha256: z.string(),
          exchanges: z.number().int().nonnegative(),
        }),
      ),
      /** Exchanges read, and those to an endpoint of the spec's. */
      exchanges: z.number().int().nonnegative(),
      matched: z.number().int().nonnegative(),
      /** The endpoints the captures reached, as the checks name them. */
      endpoints: z.array(z.string()),
      /** What the captures could not carry: no request headers, no bodies (docs/traffic.md, What a capture can prove). */
      limits: z.array(z.string()),
      /** Where the exchanges went (origin and path prefix), when to more than one place: the first 100. */
      origins: z.array(z.string()).optional(),
    })
    .optional(),
  counts: countsSchema,
  suites: z.array(z.object({ name: z.enum(SUITES), counts: countsSchema })),
  checks: z.array(checkResultSchema),
});
export type RunReport = z.infer<typeof runReportSchema>;

export function countStatuses(checks: readonly { status: CheckStatus }[]): Counts {
  const counts: Counts = { total: checks.length, passed: 0, failed: 0, warning: 0, error: 0, skipped: 0, expected: 0 };
  for (const c of checks) counts[c.status] += 1;
  return counts;
}
