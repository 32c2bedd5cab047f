import { dirname, isAbsolute, resolve } from 'node:path';
import { z } from '../core/zod.js';
import { CHECKS, SUITES, findCheck } from '../catalogue/index.js';
import { BOOLEAN_SPELLINGS, envName, parseBooleanWord, type OptionKind } from '../core/environment.js';
import { UsageError } from '../core/errors.js';
import { createRequire } from 'node:module';
import type * as JsYaml from 'js-yaml';
import { FILE_LIMITS, readJsonFile, readTextFile, urlInsteadOfFile } from '../core/files.js';
import { oneLine, printable } from '../core/wording.js';
import { parseHeaderLine } from '../http/extra-headers.js';
import { jsonKind } from '../core/json-problem.js';
import { didYouMean } from '../core/suggest.js';
import { DEFAULT_MAX_EXPIRY_WAIT_SECONDS } from '../core/option-defaults.js';

/**
 * The run options, validated with zod whatever their source: argv, `CARRIER_*` environment
 * variables, or a JSON config file (`--config`). Every problem is reported as one line that names
 * the option as the user wrote it (the flag, the variable, or the file and its key) and says how
 * to fix it (exit code 2).
 */

/** The reports a run can write; all of them unless --reporter names some. */

export const REPORTERS = ['junit', 'json', 'html', 'github-summary', 'har'] as const;
export type ReporterName = (typeof REPORTERS)[number];
/** What a run writes without --reporter: all but the HAR file, which is asked for (`--reporter +har`). */
export const DEFAULT_REPORTERS: readonly ReporterName[] = REPORTERS.filter((r) => r !== 'har');
/**
 * How --reporter may name reports: `NAME` (these reports only), `+NAME` (the default ones and
 * this one: adding a format never removes the JUnit a CI step reads) and `all`.
 */
export const REPORTER_SPELLINGS = [...REPORTERS, ...REPORTERS.map((r) => `+${r}` as const), 'all'] as const;
export type ReporterSpelling = (typeof REPORTER_SPELLINGS)[number];

/** The reports to write, from --reporter as given; `named`: those the user asked for by name (a missing GITHUB_STEP_SUMMARY is then worth a warning). */
export function reportersOf(given: readonly ReporterSpelling[]): { reporters: ReporterName[]; named: ReporterName[] } {
  const named = given.filter((g) => g !== 'all').map((g) => (g.startsWith('+') ? g.slice(1) : g) as ReporterName);
  if (given.includes('all')) return { reporters: [...REPORTERS], named };
  const onlyThese = given.some((g) => g !== 'all' && !g.startsWith('+'));
  const base = given.length === 0 || !onlyThese ? DEFAULT_REPORTERS : [];
  return { reporters: REPORTERS.filter((r) => base.includes(r) || named.includes(r)), named };
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const httpUrl = z
  .string()
  .refine(
    (value) => {
      // URL parsing silently drops tabs, newlines and surrounding spaces: refuse them instead.
      if (/\s/.test(value) || [...value].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) return false;
      try {
        const url = new URL(value);
        return (
          (url.protocol === 'http:' || url.protocol === 'https:') &&
          url.search === '' &&
          url.hash === '' &&
          url.username === '' &&
          url.password === ''
        );
      } catch {
        return false;
      }
    },
    {
      error: (issue) =>
        `${JSON.stringify(issue.input)} is not an http(s) URL without spaces, credentials, query or fragment; give e.g. https://api.example.com`,
    },
  )
  .transform((value) => new URL(value).href.replace(/\/+$/, ''));

const uuid = z.string().regex(UUID_RE, {
  error: (issue) => `${JSON.stringify(issue.input)} is not a UUID; give e.g. 0b6f3c1e-2d4a-4c5e-9f10-3a2b1c0d9e8f`,
});

/**
 * The OpenAPI document: a file. A URL (Schemathesis takes one) would otherwise be read as a path
 * and its `$ref`s refused; the harness fetches nothing a document names, and this says so first.
 */
const documentFile = z
  .string()
  .min(1, { error: 'must name a file' })
  .refine((p) => urlInsteadOfFile(p, '--openapi') === undefined, {
    error: (issue) => urlInsteadOfFile(String(issue.input), '--openapi'),
  });

/** A tenant-relative path such as `shipments` (spec §Tenant-scoped endpoints). */
const pagedPath = z
  .string()
  .refine((p) => /^\/*[^/?#\s]/.test(p) && !/[?#\s]/.test(p) && !/^https?:/i.test(p), {
    error: (issue) =>
      `${JSON.stringify(issue.input)} is not a tenant-relative path; give e.g. shipments (meaning {base}/tenants/{tenantId}/shipments)`,
  })
  .transform((p) => p.replace(/^\/+/, ''));

/** A tenant-relative path that may hold parameters, such as `settings` or `invoices/{invoiceId}`. */
const endpointPath = pagedPath.refine((p) => !/[{}]/.test(p.replace(/\{[A-Za-z_][A-Za-z0-9_.-]*\}/g, '')), {
  error: (issue) =>
    `${JSON.stringify(issue.input)} has unbalanced braces; parameters are written {name}, e.g. invoices/{invoiceId}`,
});

/**
 * `NAME=VALUE`: the value of a path or required query parameter (`--parameter invoiceId=inv-1`),
 * or `PATH:NAME=VALUE` for one endpoint only (`--parameter trips:origin=efdb…`), PATH as the
 * tenant-relative path template. Names may hold brackets (`filter[status]`).
 */
const parameterAssignment = z.string().regex(/^(?:[^=\s]+:)?[A-Za-z_][A-Za-z0-9_.[\]-]*=.+$/, {
  error: (issue) =>
    `${JSON.stringify(issue.input)} is not NAME=VALUE or PATH:NAME=VALUE; give e.g. invoiceId=8f2c… or trips:origin=efdb…`,
});

/** `Name: value`, a header field sent with every request (src/http/extra-headers.ts); the value is never echoed. */
const headerLine = z.string().superRefine((line, ctx) => {
  const parsed = parseHeaderLine(line);
  if (!Array.isArray(parsed)) ctx.addIssue({ code: 'custom', message: parsed.problem });
});

/**
 * `NAME=VALUE`, a form field of every token request (`--token-param audience=https://api…`). The
 * fields the harness writes itself are refused: grant_type is what the checks vary, and the
 * credentials go where --client-auth says.
 */
const tokenParam = z
  .string()
  .regex(/^[A-Za-z0-9_.~-]+=/, {
    error: (issue) => `${JSON.stringify(issue.input)} is not NAME=VALUE; give e.g. audience=https://api.example.com`,
  })
  .refine((p) => !['grant_type', 'client_id', 'client_secret'].includes(p.slice(0, p.indexOf('='))), {
    error: (issue) =>
      `${JSON.stringify(String(issue.input).split('=')[0])} is set by the harness itself; --client-auth post sends client_id and client_secret in the form`,
  });

const positiveInt = (what: string) =>
  z
    .number({ error: `must be a number (${what})` })
    .int({ error: `must be a whole number (${what})` })
    .positive({ error: `must be greater than 0 (${what})` });
const nonNegative = (what: string) =>
  z.number({ error: `must be a number (${what})` }).nonnegative({ error: `must not be negative (${what})` });

/** A name shown in matrices, badges and bundles: one line, no control character, not too long to show. */
const label = (max: number) =>
  z
    .string()
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(max, { error: `must be at most ${max} characters` })
    .refine(
      (v) => ![...v].some((c) => c.charCodeAt(0) < 0x20 || (c.charCodeAt(0) >= 0x7f && c.charCodeAt(0) <= 0x9f)),
      { error: 'must be one line without control characters' },
    );

/** A yes/no setting: a JSON boolean, or one of the words every source accepts (src/core/environment.ts). */
const yesNo = z.preprocess(
  (v: unknown) => (typeof v === 'string' ? (parseBooleanWord(v) ?? v) : v),
  z.boolean({ error: (issue) => `${JSON.stringify(issue.input)} is not a yes/no value; use ${BOOLEAN_SPELLINGS}` }),
);

const list = <T extends z.ZodType>(item: T) =>
  z.preprocess(
    (v: unknown): unknown[] => (v === undefined ? [] : Array.isArray(v) ? (v as unknown[]) : [v]),
    z.array(item),
  );

/**
 * An empty secret is most often a CI secret that is not there: GitHub Actions and GitLab pass an
 * unset secret as an empty string, and pass none to a pull request from a fork (issue 39 item 11).
 */
const EMPTY_SECRET =
  'must not be empty: an unset CI secret is passed as an empty string (GitHub Actions and GitLab give none to pull requests from forks); give the secret, or run the job only where it has one';

export const runOptionsSchema = z
  .object({
    baseUrl: httpUrl.optional(),
    authUrl: httpUrl.optional(),
    clientId: z.string().min(1, { error: 'must not be empty' }).optional(),
    clientSecret: z.string().min(1, { error: EMPTY_SECRET }).optional(),
    clientSecretFile: z.string().min(1, { error: 'must name a file' }).optional(),
    tenantId: uuid.optional(),
    foreignTenantId: uuid.optional(),
    /**
     * A second API client, of another tenant: TENANT-FOREIGN proves isolation with it (reads its
     * tenant's data with its token, then asks for it with the first client's, and the other way
     * round). Its secret comes from CARRIER_SECOND_CLIENT_SECRET, a config file or a file, never argv.
     */
    secondClientId: z.string().min(1, { error: 'must not be empty' }).optional(),
    secondClientSecret: z.string().min(1, { error: EMPTY_SECRET }).optional(),
    secondClientSecretFile: z.string().min(1, { error: 'must name a file' }).optional(),
    /** The second client's tenant (default: the first tenant its /users/me lists). */
    secondTenantId: uuid.optional(),
    pagedPath: list(pagedPath),
    /** A Swagger 2.0 or OpenAPI 3.0, 3.1 or 3.2 document (YAML or JSON): its GET operations under /tenants/{tenantId}/ are tested. */
    openapi: documentFile.optional(),
    /**
     * How the document's write operations under /tenants/{tenantId}/ are judged (issue 41):
     * `headers`, by requests that announce content and never send it (src/battery/writes.ts);
     * `none`, not at all.
     */
    writeProbes: z
      .enum(['headers', 'invalid-content', 'none'], {
        error: (issue) =>
          `${JSON.stringify(issue.input)} is not headers (requests that never send content: the default), invalid-content (also content no schema accepts, to a target marked --allow-writes) or none`,
      })
      .default('headers'),
    /**
     * The operator's word that the target is not production (issue 41 item 3): write probes that
     * carry content (`--write-probes invalid-content`) are refused without it.
     */
    allowWrites: yesNo.default(false),
    /** The folder the document's `$ref`s may reach (default: the document's own folder; src/openapi/document-files.ts). */
    openapiRoot: z.string().min(1, { error: 'must name a folder' }).optional(),
    /** Tenant-relative single-resource endpoints, for users without an OpenAPI document. */
    endpoint: list(endpointPath),
    /** Path and required query parameter values, `NAME=VALUE` or `PATH:NAME=VALUE` (command line). */
    parameter: list(parameterAssignment),
    /** Path parameter values by name (config file); `parameter` entries win. */
    parameters: z.record(z.string(), z.string({ error: 'each parameter value must be a string' })).default({}),
    expectations: z.string().min(1).optional(),
    /** Modules of the team's own checks (docs/team-checks.md), run beside the catalogue's and kept out of its verdict. */
    teamChecks: list(z.string().min(1, { error: 'must name a file' })),
    suite: list(
      z.enum(SUITES, {
        error: (issue) => `unknown suite ${JSON.stringify(issue.input)}; the suites are ${SUITES.join(', ')}`,
      }),
    ),
    check: list(
      z
        .string()
        .refine((id) => findCheck(id.toUpperCase()) !== undefined, {
          error: (issue) =>
            `unknown check id ${JSON.stringify(issue.input)}; \`carrier-conformance list\` prints the ${CHECKS.length} ids`,
        })
        .transform((id) => id.toUpperCase()),
    ),
    maxExpiryWait: nonNegative('seconds').default(DEFAULT_MAX_EXPIRY_WAIT_SECONDS),
    expiryMargin: nonNegative('seconds').max(30, { error: 'must be at most 30 seconds' }).default(1),
    timeout: positiveInt('milliseconds').default(10_000),
    deadline: positiveInt('seconds for the whole run').default(600),
    maxRetries: z
      .number({ error: 'must be a number' })
      .int({ error: 'must be a whole number' })
      .min(0, { error: 'must not be negative' })
      .max(10, { error: 'must be at most 10' })
      .default(2),
    maxRetryWait: nonNegative('seconds').max(120, { error: 'must be at most 120 seconds' }).default(10),
    caFile: z.string().min(1, { error: 'must name a PEM file' }).optional(),
    /** A client certificate and its key for mutual TLS (PEM files), and the key's passphrase. */
    cert: z.string().min(1, { error: 'must name a PEM file' }).optional(),
    key: z.string().min(1, { error: 'must name a PEM file' }).optional(),
    keyPassphrase: z.string().min(1, { error: 'must not be empty' }).optional(),
    keyPassphraseFile: z.string().min(1, { error: 'must name a file' }).optional(),
    /** Form fields of every token request (RFC 6749 §4.4.2 scope, RFC 8707 resource, Auth0's audience). */
    tokenParam: list(tokenParam),
    /** The `scope` of every token request (RFC 6749 §3.3): the same as --token-param scope=…. */
    scope: z.string().min(1, { error: 'must not be empty' }).optional(),
    /** How the run's own token requests authenticate: HTTP Basic (the spec's), or client_secret_post. */
    clientAuth: z
      .enum(['basic', 'post'], {
        error: (issue) =>
          `${JSON.stringify(issue.input)} is neither basic (HTTP Basic, the spec's) nor post (client_secret_post)`,
      })
      .default('basic'),
    /** Header fields sent with every request to the target, e.g. a gateway's API key (secrets: redacted). */
    header: list(headerLine),
    insecure: yesNo.default(false),
    /** Print each request and its answer to stderr as it happens, one line each, redacted. */
    verbose: yesNo.default(false),
    maxBodyBytes: positiveInt('bytes').default(8 * 1024 * 1024),
    pageSize: positiveInt('items per page').optional(),
    maxPages: positiveInt('pages a walk requests')
      .min(2, { error: 'must be at least 2 (the first and the last page)' })
      .optional(),
    concurrency: positiveInt('parallel requests of a page walk').max(64, { error: 'must be at most 64' }).optional(),
    reportsDir: z.string().min(1, { error: 'must not be empty' }).default('reports'),
    reporter: list(
      z.enum(REPORTER_SPELLINGS, {
        error: (issue) =>
          `unknown reporter ${JSON.stringify(issue.input)}; the reporters are ${REPORTERS.join(', ')} (+NAME adds one to the default ones; all writes every one)`,
      }),
    ),
    strict: yesNo.default(false),
    baseline: z.string().min(1, { error: 'must name a file' }).optional(),
    strictBaseline: yesNo.default(false),
    /** A required check that was skipped fails the run (src/runner/results.ts). */
    requireComplete: yesNo.default(false),
    /** Test the embedded reference server: never implied where a real target may have been meant (src/runner/target.ts). */
    embedded: yesNo.default(false),
    /** The report.json whose failed checks to run again; '' means the one in --reports-dir. */
    rerunFailed: z.string().optional(),
    /** How matrices, badges and bundles name the target (default: the base URL's host). */
    targetName: label(100).optional(),
    targetVersion: label(100).optional(),
    operator: label(200).optional(),
    /** An earlier report.json: the exit code says whether anything regressed since (src/compare/). */
    compareWith: z.string().min(1, { error: 'must name a report.json' }).optional(),
    /** A directory for a certification bundle (src/bundle/), signed with --sign-key. */
    bundle: z.string().min(1, { error: 'must name a directory' }).optional(),
    signKey: z.string().min(1, { error: 'must name a PEM file' }).optional(),
  })
  .strict();

export type RunOptions = z.output<typeof runOptionsSchema>;
export type RunOptionsInput = z.input<typeof runOptionsSchema>;

/** Every option of `run`, with how the command line and the environment write it. */
/** A `run` option: its kind, and its `--help` entry (none: accepted, but not shown). */
export interface RunOptionSpec {
  kind: OptionKind;
  group?: string;
  describe?: string;
  hidden?: boolean;
}

/**
 * Every `run` option, once: its kind (how the environment and a config file give it), and what
 * `--help` says of it, in `--help`'s order. The yargs options (src/cli/main.ts), the kinds and
 * the config schema's keys (RunOptions) are all this table; test/options-table.test.ts holds
 * docs/reference.md's options table to it.
 */
export const RUN_OPTIONS = {
  baseUrl: { kind: 'string', group: 'Target:', describe: 'The API under test (CARRIER_BASE_URL)' },
  embedded: {
    kind: 'boolean',
    group: 'Target:',
    describe:
      'Test the embedded reference server, started on loopback (implied without --base-url, except in CI or with client credentials)',
  },
  authUrl: { kind: 'string', group: 'Target:', describe: 'Host serving the token endpoint (default: the base URL)' },
  clientId: { kind: 'string', group: 'Target:', describe: 'API client id (CARRIER_CLIENT_ID)' },
  clientSecret: {
    kind: 'string',
    group: 'Target:',
    describe:
      'API client secret; prefer CARRIER_CLIENT_SECRET or --client-secret-file: the command line is visible to other users',
  },
  clientSecretFile: {
    kind: 'string',
    group: 'Target:',
    describe: 'File holding the client secret (a trailing newline is ignored)',
  },
  tokenParam: {
    kind: 'lines',
    group: 'Target:',
    describe:
      'Form field of every token request, NAME=VALUE (repeatable): audience (Auth0), resource (RFC 8707, Azure AD v1)…',
  },
  scope: {
    kind: 'string',
    group: 'Target:',
    describe: 'The scope of every token request (RFC 6749 §3.3), e.g. "api://carrier/.default"',
  },
  clientAuth: {
    kind: 'string',
    group: 'Target:',
    describe:
      "How the run's own token requests authenticate: basic (HTTP Basic, the spec's) or post (client_secret_post, reported as a deviation; the token checks still test Basic) [default: basic]",
  },
  caFile: {
    kind: 'string',
    group: 'Target:',
    describe: 'PEM file of certificate authorities to trust besides the system ones (a private CA)',
  },
  header: {
    kind: 'lines',
    group: 'Target:',
    describe:
      "Header field sent with every request to the target, 'Name: value' (repeatable): a gateway's API key beside OAuth. Values are secrets: redacted everywhere",
  },
  cert: {
    kind: 'string',
    group: 'Target:',
    describe: 'Client certificate (PEM, with its chain) for mutual TLS, sent when the server asks for one',
  },
  key: { kind: 'string', group: 'Target:', describe: "The client certificate's private key (PEM; may be encrypted)" },
  keyPassphrase: {
    kind: 'string',
    group: 'Target:',
    describe:
      "The key's passphrase; prefer CARRIER_KEY_PASSPHRASE or --key-passphrase-file: the command line is visible to other users",
  },
  keyPassphraseFile: {
    kind: 'string',
    group: 'Target:',
    describe: "File holding the key's passphrase (a trailing newline is ignored)",
  },
  insecure: {
    kind: 'boolean',
    group: 'Target:',
    describe: 'Do not verify TLS certificates (test targets only; warned about)',
  },
  tenantId: {
    kind: 'string',
    group: 'Target:',
    describe: 'Tenant to test (default: the first tenant /users/me lists)',
  },
  foreignTenantId: {
    kind: 'string',
    group: 'Target:',
    describe:
      'A tenant that exists but this client may not access: TENANT-FOREIGN asks for it (a second client proves more)',
  },
  secondClientId: {
    kind: 'string',
    group: 'Target:',
    describe:
      'A second API client, of another tenant with data: TENANT-FOREIGN proves isolation with it both ways (its secret: CARRIER_SECOND_CLIENT_SECRET or --second-client-secret-file)',
  },
  secondClientSecretFile: {
    kind: 'string',
    group: 'Target:',
    describe: "File holding the second client's secret (a trailing newline is ignored)",
  },
  // Declared so that it is refused with a reason, not as an unknown option: a secret never goes on the command line.
  secondClientSecret: { kind: 'string', hidden: true },
  secondTenantId: {
    kind: 'string',
    group: 'Target:',
    describe: "The second client's tenant (default: the first its /users/me lists)",
  },
  pagedPath: {
    kind: 'list',
    group: 'Target:',
    describe:
      'Tenant-relative list endpoint, e.g. shipments (repeatable). None: tenant and pagination checks are skipped',
  },
  openapi: {
    kind: 'string',
    group: 'Target:',
    describe:
      'Swagger 2.0 or OpenAPI 3.0, 3.1 or 3.2 document (YAML or JSON) of the API: every GET under /tenants/{tenantId}/ is tested, its responses against their schemas',
  },
  writeProbes: {
    kind: 'string',
    group: 'Target:',
    describe:
      "How the document's POST, PUT, PATCH and DELETE operations under /tenants/{tenantId}/ are judged: headers (requests with a defective header that announce content and never send it: they cannot change data), invalid-content (also, where the server asks for the content first, the same defects with content that is not JSON; needs --allow-writes) or none [default: headers]",
  },
  allowWrites: {
    kind: 'boolean',
    group: 'Target:',
    describe:
      'The target is not production: write probes that carry content (--write-probes invalid-content) may be sent to it',
  },
  openapiRoot: {
    kind: 'string',
    group: 'Target:',
    describe: "The folder the document's $refs may read files in (default: the document's own folder)",
  },
  endpoint: {
    kind: 'list',
    group: 'Target:',
    describe: 'Tenant-relative single-resource endpoint, e.g. settings or invoices/{invoiceId} (repeatable)',
  },
  parameter: {
    kind: 'list',
    group: 'Target:',
    describe:
      'Value of a path or required query parameter, NAME=VALUE, or PATH:NAME=VALUE for one endpoint (repeatable); by default ids come from the list the endpoint is under, query values from the document',
  },
  // A config file's {"parameters": {NAME: VALUE}}: declared so that strict parsing accepts it.
  parameters: { kind: 'map', hidden: true },
  expectations: {
    kind: 'string',
    group: 'Target:',
    describe: 'JSON file with the known data of the test account: {"user": {...}, "resources": {...}}',
  },
  teamChecks: {
    kind: 'list',
    group: 'Selection:',
    describe:
      "JavaScript module of the team's own checks, run on every endpoint or list beside the catalogue's, reported apart from the spec's verdict (repeatable; docs/team-checks.md)",
  },
  suite: { kind: 'list', group: 'Selection:', describe: `Run only these suites (repeatable): ${SUITES.join(', ')}` },
  check: { kind: 'list', group: 'Selection:', describe: 'Run only these check ids (repeatable); see `list`' },
  strict: { kind: 'boolean', group: 'Selection:', describe: 'SHOULD checks fail the run too, instead of warning' },
  maxExpiryWait: {
    kind: 'number',
    group: 'Timing:',
    describe:
      'Wait out expires_in for the expiry checks when it is at most this many seconds; else skip those after expiry and judge EXPIRY-VALID-BEFORE on the part of the lifetime the run observes [default: 60]',
  },
  expiryMargin: {
    kind: 'number',
    group: 'Timing:',
    describe: 'Seconds of clock margin a server gets after expires_in before a token must be refused [default: 1]',
  },
  timeout: { kind: 'number', group: 'Timing:', describe: 'Per-request timeout in milliseconds [default: 10000]' },
  deadline: {
    kind: 'number',
    group: 'Timing:',
    describe: 'The whole run ends after this many seconds, with a partial report and exit 3 [default: 600]',
  },
  maxRetries: {
    kind: 'number',
    group: 'Timing:',
    describe: 'Retries of a 429 or 503 that carries Retry-After [default: 2]',
  },
  maxRetryWait: {
    kind: 'number',
    group: 'Timing:',
    describe: 'Longest wait before such a retry, in seconds [default: 10]',
  },
  maxBodyBytes: {
    kind: 'number',
    group: 'Timing:',
    describe: 'Largest response body accepted, in bytes [default: 8388608]',
  },
  pageSize: { kind: 'number', group: 'Timing:', describe: "Page size for walking lists (default: the endpoint's own)" },
  concurrency: {
    kind: 'number',
    group: 'Timing:',
    describe: 'Most page requests of a walk in flight at once [default: adaptive, 4 to 16]',
  },
  maxPages: {
    kind: 'number',
    group: 'Timing:',
    describe: 'Walk at most this many pages of a list: the first, the last and some between (default: every page)',
  },
  verbose: {
    kind: 'boolean',
    group: 'Output:',
    describe: 'Print each request and its answer to stderr as it happens, one line each, redacted (CARRIER_VERBOSE)',
  },
  reportsDir: { kind: 'string', group: 'Output:', describe: 'Where reports are written [default: reports]' },
  reporter: {
    kind: 'list',
    group: 'Output:',
    describe: `Reports to write (repeatable): ${REPORTERS.join(', ')}; +NAME adds one to the default ones (+har), all writes every one [default: all but har; github-summary only when GITHUB_STEP_SUMMARY is set]`,
  },
  baseline: {
    kind: 'string',
    group: 'Gating:',
    describe:
      'JSON file of known failures, {"failures": [{"check": ID, "reason": ...}]}: reported as expected, they do not fail the run',
  },
  strictBaseline: {
    kind: 'boolean',
    group: 'Gating:',
    describe: 'A baselined check that now passes fails the run (trim the baseline)',
  },
  requireComplete: {
    kind: 'boolean',
    group: 'Gating:',
    describe: 'Every required check must be carried out: a skipped MUST check (SHOULD too with --strict) fails the run',
  },
  rerunFailed: {
    kind: 'string',
    group: 'Gating:',
    describe: 'Run only the checks that did not pass in this report.json [default: <reports-dir>/report.json]',
  },
  compareWith: {
    kind: 'string',
    group: 'Gating:',
    describe: "An earlier report.json (the last release's): print what regressed and exit 1 only if something did",
  },
  targetName: {
    kind: 'string',
    group: 'Certification:',
    describe: "The target's name in reports, matrices, badges and bundles [default: the base URL's host]",
  },
  targetVersion: {
    kind: 'string',
    group: 'Certification:',
    describe: "The implementation's version, kept in the reports and bundle",
  },
  operator: {
    kind: 'string',
    group: 'Certification:',
    describe: 'Who operates the target, recorded in the reports and the bundle',
  },
  bundle: {
    kind: 'string',
    group: 'Certification:',
    describe:
      'Also write a certification bundle to this new directory (or, for a name ending .tar.gz, as one archive to send): the reports, target.json, every exchange and a SHA-256 manifest',
  },
  signKey: {
    kind: 'string',
    group: 'Certification:',
    describe: 'Sign the bundle with this Ed25519 private key (PKCS#8 PEM: openssl genpkey -algorithm ed25519)',
  },
} as const satisfies Record<keyof RunOptions, RunOptionSpec>;

/** How the environment and a config file give each option (src/core/environment.ts). */
export const RUN_OPTION_KINDS = Object.fromEntries(
  Object.entries(RUN_OPTIONS).map(([key, spec]) => [key, spec.kind]),
) as { [K in keyof typeof RUN_OPTIONS]: (typeof RUN_OPTIONS)[K]['kind'] };

/** Options whose value is a file or directory: in a config file, relative to the file itself. */
const PATH_OPTIONS: readonly (keyof RunOptions)[] = [
  'clientSecretFile',
  'secondClientSecretFile',
  'openapi',
  'openapiRoot',
  'expectations',
  'teamChecks',
  'caFile',
  'cert',
  'key',
  'keyPassphraseFile',
  'baseline',
  'reportsDir',
  'rerunFailed',
  'compareWith',
  'bundle',
  'signKey',
];

/** The option as the user spells it on the command line. */
export function flagName(key: PropertyKey): string {
  return `--${String(key).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

function firstProblem(error: z.ZodError, where: (path: PropertyKey[]) => string): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid options';
  if (issue.code === 'unrecognized_keys')
    return `${where([])}: unknown option ${issue.keys.map((k) => flagName(k)).join(', ')}; \`carrier-conformance run --help\` lists them`;
  return `${where(issue.path)}: ${issue.message}`;
}

/** Validates options gathered from argv, environment and config file, naming each as a flag. */
export function parseRunOptions(raw: Record<string, unknown>): RunOptions {
  const result = runOptionsSchema.safeParse(raw);
  if (!result.success)
    throw new UsageError(firstProblem(result.error, (path) => (path.length ? flagName(path[0] ?? '') : 'options')));
  return result.data;
}

/** Checks the options of one source on their own, so that a problem is named as that source writes it. */
function checkSource(raw: Record<string, unknown>, name: (key: string) => string): void {
  const result = runOptionsSchema.partial().safeParse(raw);
  if (!result.success)
    throw new UsageError(firstProblem(result.error, (path) => (path.length ? name(String(path[0])) : 'options')));
}

/** Where the run options come from, highest precedence first: argv, environment, config file. */
export interface RunOptionSources {
  /** The options given on the command line (and only those: no defaults). */
  argv: Record<string, unknown>;
  /** `CARRIER_<NAME>` variables of the run's options (src/core/environment.ts optionsFromEnv). */
  env?: Record<string, unknown>;
  /** A --config file, as loadConfigFile read and checked it. */
  config?: Record<string, unknown>;
}

/**
 * The client secret is one setting given three ways (--client-secret, --client-secret-file, and
 * their variables): the source of highest precedence that gives it wins, as for any option, and
 * only two ways within one source conflict. So is the passphrase of a --key.
 */
const SECRET_PAIRS = [
  ['clientSecret', 'clientSecretFile'],
  ['secondClientSecret', 'secondClientSecretFile'],
  ['keyPassphrase', 'keyPassphraseFile'],
] as const;

function conflictingSecrets(
  keys: (typeof SECRET_PAIRS)[number],
  argv: Record<string, unknown>,
  env: Record<string, unknown>,
  config: Record<string, unknown>,
): Record<string, unknown>[] {
  const [value, file] = keys;
  const sources: [Record<string, unknown>, string][] = [
    [argv, `${flagName(value)} and ${flagName(file)} are both given; keep one (the file is safer)`],
    [env, `${envName(value)} and ${envName(file)} are both set; unset one`],
    [config, `the config file gives both "${value}" and "${file}"; keep one`],
  ];
  const winner = sources.find(([values]) => keys.some((k) => values[k] !== undefined));
  if (!winner) return [];
  if (keys.every((k) => winner[0][k] !== undefined)) throw new UsageError(winner[1]);
  return sources.filter(([values]) => values !== winner[0]).map(([values]) => values);
}

/**
 * The run options from every source, argv > environment > config file > default. Each source is
 * checked on its own first, so that an error names what the user wrote: `--timeout`,
 * `CARRIER_TIMEOUT` or the config file's "timeout".
 */
export function resolveRunOptions(sources: RunOptionSources): RunOptions {
  const argv = { ...sources.argv };
  const env = { ...(sources.env ?? {}) };
  const config = { ...(sources.config ?? {}) };
  checkSource(env, envName);
  // An option of one value given twice on the command line (yargs makes it a list).
  const twice = Object.keys(argv).find(
    (k) =>
      Array.isArray(argv[k]) &&
      k in RUN_OPTION_KINDS &&
      !['list', 'lines', 'map'].includes(RUN_OPTION_KINDS[k as keyof RunOptions]),
  );
  if (twice !== undefined) throw new UsageError(`${flagName(twice)} is given more than once; give it once`);
  checkSource(argv, flagName);
  for (const keys of SECRET_PAIRS)
    for (const lower of conflictingSecrets(keys, argv, env, config)) for (const key of keys) delete lower[key];
  const options = parseRunOptions({ ...config, ...env, ...argv });
  refuseExpiryWaitPastDeadline(options, [
    [argv, flagName],
    [env, envName],
    [config, (key) => `the config file's "${key}"`],
  ]);
  return options;
}

/**
 * A --max-expiry-wait the --deadline cannot hold (issue 31): the run would wait for the token to
 * expire until the deadline ends it, and say only INCOMPLETE. Refused before anything runs, named
 * as its source writes it. Only a wait the user gave: the default (60 s) with a short --deadline
 * is not a choice to refuse, and a run that needs no expiry wait keeps running as before.
 */
function refuseExpiryWaitPastDeadline(
  options: RunOptions,
  sources: readonly [Record<string, unknown>, (key: string) => string][],
): void {
  const given = sources.find(([values]) => values.maxExpiryWait !== undefined);
  if (given === undefined || options.maxExpiryWait < options.deadline) return;
  const deadline = sources.find(([values]) => values.deadline !== undefined);
  const deadlineName = deadline === undefined ? '--deadline (default)' : deadline[1]('deadline');
  throw new UsageError(
    `${given[1]('maxExpiryWait')} ${options.maxExpiryWait} is not below ${deadlineName} ${options.deadline}: the run would wait out its deadline for a token to expire and end incomplete; lower the wait (expiry checks whose expires_in exceeds it are skipped) or raise the deadline`,
  );
}

/**
 * YAML aliases a config file may hold: an option file has no use for many, and each alias can
 * multiply what the file expands to (the "billion laughs"). Nesting is bounded too.
 */
const CONFIG_YAML_LIMITS = { maxAliases: 8, maxDepth: 16 } as const;

/** A config file's YAML (`.yaml`, `.yml`): YAML 1.2's core schema, so `on`, `yes` stay strings for the options' own words. */
function readYamlConfig(path: string): unknown {
  const text = readTextFile(path, 'config file', FILE_LIMITS.config);
  // Loaded when a YAML file is given: every other run's start-up does not pay for the parser
  // (src/build/bundle-cli.ts: packages loaded on demand stay outside the CLI's bundle).
  const { CORE_SCHEMA, YAMLException, load } = createRequire(import.meta.url)('js-yaml') as typeof JsYaml;
  try {
    return load(text, { schema: CORE_SCHEMA, ...CONFIG_YAML_LIMITS });
  } catch (err) {
    if (!(err instanceof YAMLException)) throw err;
    // The reason quotes a piece of the file: made printable and one line, as for JSON (src/core/files.ts).
    throw new UsageError(
      `config file ${path}: not valid YAML (${oneLine(printable(`${err.reason}${err.mark ? ` at line ${err.mark.line + 1}` : ''}`), 160)})`,
    );
  }
}

/**
 * An unknown key of a config file, quoted, with the option it is a typo of if any (`"clientID"
 * (did you mean "clientId"?)`), spelt the way the file spells keys: kebab-case or camelCase.
 */
function unknownKey(key: string): string {
  const known = Object.keys(RUN_OPTION_KINDS).map((k) => (key.includes('-') ? flagName(k).slice(2) : k));
  return `"${key}"${didYouMean(key, known, (k) => `"${k}"`)}`;
}

/**
 * Reads a `--config` file: a JSON object, or a YAML mapping in a `.yaml` or `.yml` file, whose
 * keys are the long option names, in camelCase or kebab-case (`baseUrl` or `base-url`). Either
 * is checked field by field against the same schema, with the same messages. Paths in it are
 * relative to the file, not to the directory the harness runs in, so that a config file and the
 * files it names can move together.
 */
export function loadConfigFile(path: string): Record<string, unknown> {
  const yaml = /\.ya?ml$/i.test(path);
  const raw = yaml ? readYamlConfig(path) : readJsonFile(path, 'config file', FILE_LIMITS.config);
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    // Said in plain words, with what the file holds instead: not zod's "expected object, received array".
    const kind = yaml && Array.isArray(raw) ? 'a list' : jsonKind(raw);
    throw new UsageError(
      `config file ${path}: ${yaml ? 'must be a YAML mapping of options, e.g. "baseUrl: https://api.example.com"' : 'must be a JSON object of options, e.g. {"baseUrl": "https://api.example.com"}'}, not ${kind}`,
    );
  }
  const config: Record<string, unknown> = {};
  const written = new Map<string, string>();
  for (const [key, value] of Object.entries(raw)) {
    const camel = key.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
    config[camel] = value;
    written.set(camel, key);
  }
  const result = runOptionsSchema.partial().safeParse(config);
  if (!result.success) {
    const issue = result.error.issues[0];
    const problem =
      issue?.code === 'unrecognized_keys'
        ? `unknown option ${issue.keys.map((k) => unknownKey(written.get(k) ?? k)).join(', ')}; \`carrier-conformance run --help\` lists them`
        : `"${written.get(String(issue?.path[0] ?? '')) ?? String(issue?.path[0] ?? '')}": ${issue?.message ?? 'invalid'}`;
    throw new UsageError(`config file ${path}: ${problem}`);
  }
  for (const key of PATH_OPTIONS) {
    const value = config[key];
    const relativeTo = (v: unknown): unknown =>
      typeof v === 'string' && v !== '' && !isAbsolute(v) ? resolve(dirname(path), v) : v;
    if (value !== undefined) config[key] = Array.isArray(value) ? value.map(relativeTo) : relativeTo(value);
  }
  return config;
}

/** spec §User, partially: the known data of the test account. Tenants are matched by `id`. */
const expectedTenant = z.looseObject({ id: z.string({ error: 'each expected tenant needs an "id" string' }) });
const expectedItem = z.looseObject({
  id: z.union([z.string(), z.number()], { error: 'each expected item needs an "id" (a string or a number)' }),
});
const expectationsSchema = z
  .object({
    user: z.looseObject({ tenants: z.array(expectedTenant).optional() }).optional(),
    /**
     * Known data per tenant endpoint (tenant-relative path, as --paged-path): items matched by
     * `id` wherever they appear (the list's pages, the single resource under it), or, for a
     * single resource without an id, the resource itself. Partial: only the fields given are compared.
     */
    resources: z
      .record(
        z.string().transform((p) => p.replace(/^\/?tenants\/\{[^}]+\}\//, '').replace(/^\/+/, '')),
        z.union([z.array(expectedItem), z.looseObject({})], {
          error: 'must be an array of items with an "id", or one object',
        }),
      )
      .optional(),
  })
  .strict();
export type Expectations = z.infer<typeof expectationsSchema>;

/** Reads an `--expectations` file: `{"user": {...}, "resources": {...}}`, partial known data. */
export function loadExpectations(path: string): Expectations {
  const result = expectationsSchema.safeParse(readJsonFile(path, 'expectations file', FILE_LIMITS.expectations));
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'the file';
    throw new UsageError(
      `expectations file ${path}: ${where}: ${issue?.code === 'unrecognized_keys' ? `unknown key ${issue.keys.join(', ')}; "user" and "resources" are known` : (issue?.message ?? 'invalid')}`,
    );
  }
  return result.data;
}

/** The path parameter values the user gave: `parameters` of a config file, then --parameter NAME=VALUE. */
export function parameterValues(options: RunOptions): Record<string, string> {
  const out: Record<string, string> = { ...options.parameters };
  for (const assignment of options.parameter) {
    const at = assignment.indexOf('=');
    out[assignment.slice(0, at)] = assignment.slice(at + 1);
  }
  return out;
}
