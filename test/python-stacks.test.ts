/**
 * The whole battery against the API as Python teams write it, each setup with the OpenAPI document
 * its framework generates and the test account's ground truth (--expectations):
 *
 * - FastAPI 0.92 + pydantic 1.10 on uvicorn (test/support/stacks/python/fastapi_app.py);
 * - Django 3.2 + Django REST framework 3.14 on uvicorn (test/support/stacks/python/drf/);
 * - Caddy 2.6 in front of the DRF app (test/support/gateways.ts): its internal TLS CA, gzip, the
 *   legacy paths rewritten (the backend does not serve them).
 *
 * All are Debian 12 packages, which `.ci/run` installs; without them these tests are skipped
 * locally and fail in CI. One Python process per framework serves every variant, each on a port
 * of its own; the runs go three at a time.
 *
 * Each conformant setup must be CONFORMANT, check by check, with every endpoint of its document
 * judged. Each framework-typical defect must be caught by the check whose rule it breaks, with a
 * message that names it, and by no other; a setup that carries several defects carries only
 * defects that break disjoint rules, so the table still says which check caught which. Every
 * expected status is the one the spec and the RFCs call for, reasoned beside it: where the
 * harness does not give it yet, this file fails (issue 38).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../src/model/run-report.js';
import {
  GATEWAY_BINARIES,
  GATEWAY_PACKAGES,
  GATEWAY_REWRITES,
  haveGateway,
  startGateway,
  type Gateway,
} from './support/gateways.js';
import { SUITES_BUT_EXPIRY } from './support/harness.js';
import {
  ALL_PASSED,
  differences,
  VERSION_THEN_TOKEN_THEN_TENANT,
  precedenceChoices,
  writeOutcomes,
  ofSuites,
  reasonsOf,
  runHarness,
  type Run,
  type Verdict,
} from './support/stack-runs.js';
import {
  havePythonFramework,
  PYTHON,
  PYTHON_PACKAGES,
  startPythonStack,
  type PythonFramework,
  type PythonStack,
} from './support/stacks/python-stacks.js';

const IN_CI = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';
/** PYTHON_STACKS_REPORTS=DIR keeps each run's report.json there (the verdict tables of the docs come from them). */
const KEEP_REPORTS = process.env.PYTHON_STACKS_REPORTS;
/** Harness runs at once: each is a process of its own, mostly waiting on the servers. */
const PARALLEL_RUNS = 3;
/** The suites of a run without the expiry suite (the defects below have nothing to do with expiry). */
const NO_EXPIRY_SUITES = SUITES_BUT_EXPIRY;

/**
 * Token lifetimes: short where the expiry suite waits it out (the full batteries), long where a run
 * without it must not outlive its tokens on a loaded machine (a server that answers an expired
 * token with 403 gives the harness nothing to tell expiry by).
 */
const WAITED_OUT_TTL = 2;
const LONG_TTL = 600;

const FASTAPI = {
  conformant: 'conformant',
  /** HTTPBearer() as the docs show it, response_model_exclude_none=True, expires_in from total_seconds(), size capped at 25. */
  defects: 'http-bearer-403+exclude-none+expires-float+size-capped',
  linksDropSize: 'links-drop-size',
  basicIgnored: 'basic-ignored',
} as const;

const DRF = {
  conformant: 'conformant',
  /** The backend behind Caddy: conformant, without the legacy paths (the gateway rewrites them). */
  backend: 'no-legacy',
  /** The docs' authentication example (403), 406 for a bad version, Django's "" for strings, size ignored. */
  defects: 'auth-403+version-406+blank-strings+size-ignored',
  appendSlash: 'append-slash',
  bodyPaging: 'body-paging',
} as const;

/** Each app with its token lifetime: the conformant ones (and Caddy's backend) run the expiry suite. */
const lifetimes = (apps: Record<string, string>, waited: readonly string[]): Record<string, number> =>
  Object.fromEntries(Object.values(apps).map((app) => [app, waited.includes(app) ? WAITED_OUT_TTL : LONG_TTL]));

const available = {
  fastapi: havePythonFramework('fastapi'),
  drf: havePythonFramework('drf'),
  caddy: haveGateway('caddy'),
};
const missing = {
  fastapi: `no FastAPI for ${PYTHON}; install it with \`apt-get install ${PYTHON_PACKAGES.fastapi.debian.join(' ')}\``,
  drf: `no Django REST framework for ${PYTHON}; install it with \`apt-get install ${PYTHON_PACKAGES.drf.debian.join(' ')}\``,
  caddy: `no caddy at ${GATEWAY_BINARIES.caddy}; install it with \`apt-get install ${GATEWAY_PACKAGES.caddy}\``,
};
type Needed = keyof typeof available;
const skipWithout = (needs: readonly Needed[]): boolean => !IN_CI && needs.some((n) => !available[n]);
const title = (name: string, needs: readonly Needed[]): string => {
  const absent = needs.filter((n) => !available[n]);
  return absent.length > 0 && !IN_CI ? `${name} (skipped: ${absent.map((n) => missing[n]).join('; ')})` : name;
};

const stacks: Partial<Record<PythonFramework, PythonStack>> = {};
const gateways: Gateway[] = [];
const runs = new Map<string, Run | Error>();

/** A planned run of the harness: its name, what it needs, and how it is made once the servers run. */
interface Planned {
  name: string;
  needs: readonly Needed[];
  run: () => Promise<Run>;
}

/** Runs `tasks` with at most `limit` at once; every one's result or error is kept. */
async function inParallel(tasks: readonly Planned[], limit: number): Promise<void> {
  const queue = [...tasks];
  const worker = async (): Promise<void> => {
    for (let task = queue.shift(); task !== undefined; task = queue.shift()) {
      const run = await task.run().catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
      runs.set(task.name, run);
      if (KEEP_REPORTS !== undefined && !(run instanceof Error))
        await writeFile(
          join(KEEP_REPORTS, `${task.name.replace(/[^a-z0-9-]+/gi, '_')}.json`),
          JSON.stringify(run.report, null, 2),
        );
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
}

const stackOf = (framework: PythonFramework): PythonStack => {
  const stack = stacks[framework];
  if (!stack) throw new Error(`${framework} did not start`);
  return stack;
};
/** The harness against an app of a framework's process, directly. */
const direct = (framework: PythonFramework, app: string, suites?: readonly string[]) => (): Promise<Run> => {
  const stack = stackOf(framework);
  return runHarness({ ...stack, openapiFile: stack.openapiFile(app) }, stack.url(app), {
    extra: suites ? suites.flatMap((s) => ['--suite', s]) : [],
  });
};
/** The harness through Caddy in front of the DRF backend (started here, closed in afterAll). */
const throughCaddy =
  (
    options: { legacyRewrites?: boolean; forwardedHeaders?: boolean; hideResponseHeaders?: readonly string[] },
    suites?: readonly string[],
  ) =>
  async (): Promise<Run & { gateway: Gateway }> => {
    const stack = stackOf('drf');
    const gateway = await startGateway({ kind: 'caddy', upstream: stack.url(DRF.backend), ...options });
    gateways.push(gateway);
    const run = await runHarness({ ...stack, openapiFile: stack.openapiFile(DRF.backend) }, gateway.url, {
      extra: ['--ca-file', gateway.ca?.caFile ?? '', ...(suites ?? []).flatMap((s) => ['--suite', s])],
    });
    return { ...run, gateway };
  };

const PLANNED: readonly Planned[] = [
  // Longest first: the three full batteries (the expiry suite waits the token lifetime out).
  { name: 'fastapi conformant', needs: ['fastapi'], run: direct('fastapi', FASTAPI.conformant) },
  { name: 'drf conformant', needs: ['drf'], run: direct('drf', DRF.conformant) },
  { name: 'caddy conformant', needs: ['drf', 'caddy'], run: throughCaddy({}) },
  { name: 'fastapi defects', needs: ['fastapi'], run: direct('fastapi', FASTAPI.defects, NO_EXPIRY_SUITES) },
  {
    name: 'fastapi links-drop-size',
    needs: ['fastapi'],
    run: direct('fastapi', FASTAPI.linksDropSize, NO_EXPIRY_SUITES),
  },
  { name: 'fastapi basic-ignored', needs: ['fastapi'], run: direct('fastapi', FASTAPI.basicIgnored, NO_EXPIRY_SUITES) },
  { name: 'drf defects', needs: ['drf'], run: direct('drf', DRF.defects, NO_EXPIRY_SUITES) },
  { name: 'drf append-slash', needs: ['drf'], run: direct('drf', DRF.appendSlash, NO_EXPIRY_SUITES) },
  { name: 'drf body-paging', needs: ['drf'], run: direct('drf', DRF.bodyPaging, NO_EXPIRY_SUITES) },
  {
    name: 'caddy without rewrites, Host the upstream',
    needs: ['drf', 'caddy'],
    run: throughCaddy({ legacyRewrites: false, forwardedHeaders: false }, NO_EXPIRY_SUITES),
  },
  {
    name: 'caddy hiding the paging headers',
    needs: ['drf', 'caddy'],
    run: throughCaddy({ hideResponseHeaders: ['Total-*', 'Page-*', 'Link'] }, NO_EXPIRY_SUITES),
  },
];

beforeAll(async () => {
  const start = async (framework: PythonFramework, apps: Record<string, number>) => {
    if (available[framework]) stacks[framework] = await startPythonStack({ framework, apps });
  };
  await Promise.all([
    start('fastapi', lifetimes(FASTAPI, [FASTAPI.conformant])),
    start('drf', lifetimes(DRF, [DRF.conformant, DRF.backend])),
  ]);
  await inParallel(
    PLANNED.filter((p) => p.needs.every((n) => available[n])),
    PARALLEL_RUNS,
  );
}, 180_000);

afterAll(async () => {
  await Promise.all(gateways.map((g) => g.close()));
  await Promise.all(Object.values(stacks).map((s) => s.close()));
});

/** The run's result; in CI a missing package fails here, saying which. */
function runOf(name: string): Run {
  const planned = PLANNED.find((p) => p.name === name);
  for (const need of planned?.needs ?? [])
    expect(available[need], `CI is set but there is ${missing[need]}: the CI script must install it`).toBe(true);
  const run = runs.get(name);
  if (run instanceof Error) throw run;
  if (run === undefined) throw new Error(`no run ${name}`);
  return run;
}

/** The run's verdict is `expected`, check by check. */
function expectVerdict(run: Run, expected: Verdict): void {
  const diff = differences(expected, run.report);
  expect.soft(diff, `${diff.length} checks differ:\n${diff.join('\n')}`).toEqual([]);
}

/**
 * Endpoints that some check did not judge (skipped), with the reason: a conformant setup must have
 * none. The write operations are asserted apart (writeOutcomes): what a probe without content can
 * prove depends on the server (docs/writes.md).
 */
function unjudged(report: RunReport): string[] {
  const lines = new Set<string>();
  for (const check of report.checks)
    for (const e of check.endpoints ?? [])
      if (e.status === 'skipped' && check.suite !== 'writes') lines.add(`${e.endpoint}: ${e.message ?? '(no reason)'}`);
  return [...lines];
}

/**
 * uvicorn answers `Expect: 100-continue` with 100 when the application first reads the content,
 * and both frameworks read it before anything judges the header section (FastAPI parses the body
 * before it solves the route's dependencies; Django's ASGI handler reads the whole request before
 * its middleware and views run): a create operation is never proven. A DELETE has no content,
 * and is judged on its answer.
 */
const UVICORN_WRITES = (collection: string, item: string, asTheId: string): Record<string, string> => ({
  [`POST /tenants/{tenantId}/${collection}`]: 'asks for the content',
  [`DELETE /tenants/{tenantId}/${item}`]: asTheId,
});
/**
 * The DELETE's probes answered 404, as its control is (the made-up id): FastAPI's app answers an
 * unknown version and an unknown tenant 404; Django's `<uuid:tenant_id>` route answers a tenant id
 * that is not a UUID 404 (no route), and its version middleware an unknown version 404.
 */
const FASTAPI_DELETE = 'not proven by WRITE-TENANT-UNKNOWN, WRITE-VERSION-INVALID: as with valid headers';
const DRF_DELETE = 'not proven by WRITE-TENANT-INVALID-ID, WRITE-VERSION-INVALID: as with valid headers';

/** A conformant setup: every check passes, every endpoint judged, no review item, exit 0. */
function expectConformant(run: Run): void {
  expectVerdict(run, ALL_PASSED);
  const notJudged = unjudged(run.report);
  expect.soft(notJudged, `endpoints not judged:\n${notJudged.join('\n')}`).toEqual([]);
  expect.soft(run.report.review ?? [], 'review items').toEqual([]);
  expect.soft(run.report.verdict).toBe('conformant');
  expect.soft(run.code, `exit code${run.stderr ? `; stderr: ${run.stderr}` : ''}`).toBe(0);
}

/** Some reason of check `id` matches each pattern. */
function expectReasons(report: RunReport, id: string, patterns: readonly RegExp[]): void {
  const reasons = reasonsOf(report, id);
  for (const pattern of patterns)
    expect
      .soft(
        reasons.some((r) => pattern.test(r)),
        `${id} says ${String(pattern)}; it says:\n${reasons.slice(0, 5).join('\n')}`,
      )
      .toBe(true);
}

const WITHOUT = ofSuites(ALL_PASSED, NO_EXPIRY_SUITES);

/**
 * Refusals without a WWW-Authenticate challenge (403) of a request without credentials, with
 * another scheme, and with "Bearer" and no token. RFC 6750 §3 makes the Bearer challenge a MUST
 * whatever the status: AUTH-MISSING, AUTH-MALFORMED and AUTH-NOT-BEARER fail; their status
 * SHOULDs warn (403, where RFC 6750 §3.1 and RFC 9110 §15.5.2 recommend 401, or 400 for a malformed
 * request); AUTH-MISSING-NO-ERROR cannot judge a challenge that is not there (an error pointing at
 * AUTH-MISSING, never a pass).
 */
const REFUSED_WITHOUT_CHALLENGE: Verdict = {
  'AUTH-MISSING': 'failed',
  'AUTH-MISSING-401': 'warning',
  'AUTH-MISSING-NO-ERROR': 'error',
  'AUTH-MALFORMED': 'failed',
  'AUTH-MALFORMED-STATUS': 'warning',
  'AUTH-NOT-BEARER': 'failed',
  'AUTH-NOT-BEARER-401': 'warning',
};

describe('FastAPI 0.92 + pydantic 1.10 on uvicorn', () => {
  const needs = ['fastapi'] as const;
  const test = (name: string, body: () => void | Promise<void>) =>
    it.skipIf(skipWithout(needs))(title(name, needs), body);

  /**
   * Every check passes with FastAPI's own /openapi.json:
   * - pydantic 1 documents `deliveredAt: Optional[datetime] = None` as a date-time string outside
   *   `required`, without `nullable`; the server sends null, exactly as spec §Generic rules for
   *   optional fields 1 demands: RESOURCE-SCHEMA must accept null for an optional property (the
   *   spec over the document; the gap is the document's, reported by lint as OAS-NULLABLE).
   * - `tenant_id: UUID` answers a tenant id that is not a UUID with FastAPI's 422
   *   `{"detail":[{"loc":["path","tenant_id"],"msg":"value is not a valid uuid",…}]}`: a 4xx, which
   *   is all TENANT-INVALID-ID may ask (spec §Errors leaves the body's shape "not shown"); the
   *   array is an error description, not data (no item of the list, no id of one).
   * - pydantic writes `2026-01-01T00:00:00+00:00` for the seeded `2026-01-01T00:00:00.000Z`: the
   *   same instant (RFC 3339 §5.6), in a property the document types `format: date-time`, so
   *   RESOURCE-EXPECTED-VALUES must compare the two as instants.
   */
  test('conformant, with its generated /openapi.json: every check passes, every endpoint judged, exit 0', () => {
    const run = runOf('fastapi conformant');
    expectConformant(run);
    expect
      .soft(writeOutcomes(run.report))
      .toEqual(UVICORN_WRITES('shipments', 'shipments/{shipment_id}', FASTAPI_DELETE));
    expect.soft(precedenceChoices(run.report)).toEqual(VERSION_THEN_TOKEN_THEN_TENANT(1));
  });

  /**
   * Four defects that break disjoint rules:
   * - `HTTPBearer()` (auto_error): 403 {"detail":"Not authenticated"} without WWW-Authenticate for
   *   a request without credentials, with another scheme, or with "Bearer" and no token
   *   (REFUSED_WITHOUT_CHALLENGE). An unknown token gets the app's own 401 with a challenge:
   *   AUTH-UNKNOWN-TOKEN and its SHOULDs pass.
   * - `response_model_exclude_none=True`: null fields are left out, which spec §Generic rules for
   *   optional fields 1 forbids ("sent as null"): USER-FIELDS-PRESENT, NULLS-SAME-FIELDS and
   *   RESOURCE-FIELDS-PRESENT fail (the document declares the property; its missing `nullable`
   *   does not make omission right), and both value checks (expected null, got no field).
   *   RESOURCE-SCHEMA passes: nothing sent has a wrong type.
   * - `"expires_in": 600.0` (timedelta.total_seconds() in a JSONResponse): spec §Access token
   *   response says integer, RFC 6749 Appendix A.14 `expires-in = 1*DIGIT`: TOKEN-EXPIRES-IN fails
   *   on the body's lexical form, whatever JSON.parse makes of it.
   * - The data layer returns at most 25 rows whatever it is asked, while Page-Size echoes the
   *   requested size and Total-Pages is computed from it: a client asking for 30, or for the list's
   *   60 (its Total-Elements), gets 25 items and pages that skip the rest. PAGE-ECHO's rule (page n
   *   holds min(Page-Size, Total-Elements − (n − 1) × Page-Size) items) must be applied at a size a
   *   client really asks for: `size=1000000` is refused by the app's `le=100` with a 422 (allowed),
   *   and the walk's 10 stays under the cap.
   */
  test('HTTPBearer() 403s, exclude_none, expires_in 600.0, a size capped at 25: caught by the auth, null-field, token and PAGE-ECHO checks, nothing else', () => {
    const run = runOf('fastapi defects');
    expectVerdict(run, {
      ...WITHOUT,
      ...REFUSED_WITHOUT_CHALLENGE,
      // The DELETE without credentials gets HTTPBearer's 403 without a challenge where its control gets 404.
      'WRITE-AUTH-MISSING': 'failed',
      'PAGE-ECHO': 'failed',
      'USER-FIELDS-PRESENT': 'failed',
      'USER-EXPECTED-VALUES': 'failed',
      'NULLS-SAME-FIELDS': 'failed',
      'RESOURCE-FIELDS-PRESENT': 'failed',
      'RESOURCE-EXPECTED-VALUES': 'failed',
      'TOKEN-EXPIRES-IN': 'failed',
      // The legacy path is the same token endpoint: its expires_in is written the same way.
      'LEGACY-TOKEN': 'failed',
    });
    expectReasons(run.report, 'AUTH-MISSING', [
      /GET \/users\/me with no Authorization header: the refusal \(403\) must carry a WWW-Authenticate challenge/,
    ]);
    expectReasons(run.report, 'USER-FIELDS-PRESENT', [/"email" is omitted/]);
    expectReasons(run.report, 'RESOURCE-FIELDS-PRESENT', [/deliveredAt/, /paidAt/]);
    expectReasons(run.report, 'NULLS-SAME-FIELDS', [/omits "deliveredAt"/]);
    expectReasons(run.report, 'RESOURCE-EXPECTED-VALUES', [/field "deliveredAt": expected null, got no such field/]);
    expectReasons(run.report, 'TOKEN-EXPIRES-IN', [/got \d+\.0: typed clients refuse it/]);
    expectReasons(run.report, 'LEGACY-TOKEN', [/got \d+\.0/]);
    expectReasons(run.report, 'PAGE-ECHO', [/25 items/]);
    expect.soft(run.code).toBe(1);
  });

  /**
   * Starlette's `request.url.replace_query_params(page=n)` drops every other parameter: on a page
   * read with `size=5` every link leads to a page of the default size 10 (spec §Pagination: `size`
   * is the number of elements per page). The walk reads the default size, where both agree; the
   * page PAGE-ECHO reads at another size must be held to the LINK-* rules too: its rel="next"
   * leads to another page than the next one (LINK-NEXT), its first and last to pages of another
   * size (LINK-FIRST-LAST; the last one past the end). rel="prev" is wrong too where the probe
   * page has one, and a chain followed at that size goes astray: LINK-PREV and LINK-FOLLOW fail
   * when the harness reads that evidence, and pass otherwise (which probe page it reads is its
   * choice).
   */
  test('Links without size (replace_query_params): caught by LINK-NEXT and LINK-FIRST-LAST on a page read at another size', () => {
    const run = runOf('fastapi links-drop-size');
    expectVerdict(run, {
      ...WITHOUT,
      'LINK-NEXT': 'failed',
      'LINK-FIRST-LAST': 'failed',
      'LINK-PREV': ['failed', 'passed'],
      'LINK-FOLLOW': ['failed', 'passed'],
    });
    expectReasons(run.report, 'LINK-NEXT', [/size/i]);
    expect.soft(run.code).toBe(1);
  });

  /**
   * A token endpoint modelled on OAuth2PasswordRequestForm reads client_id and client_secret from
   * the form only: the configured credentials, sent with HTTP Basic as spec §Obtain an access token
   * says, are refused. That is no configuration mistake (the same credentials work as
   * client_secret_post), so no exit 2: the token rule fails (spec §Authentication 2: "The token
   * request authenticates with HTTP Basic"), saying so, and the run goes on with the credentials
   * that work, so that everything behind the token endpoint is judged as for the conformant app.
   * Which other token and legacy checks fail with it (they send HTTP Basic) is left to the harness.
   */
  test('a token endpoint that ignores HTTP Basic (client_secret_post only): TOKEN-ISSUE fails naming it, the rest is judged, exit 1', () => {
    const run = runOf('fastapi basic-ignored');
    expect.soft(run.code, `exit code${run.stderr ? `; stderr: ${run.stderr}` : ''}`).toBe(1);
    expect.soft(run.report.checks.find((c) => c.id === 'TOKEN-ISSUE')?.status).toBe('failed');
    expectReasons(run.report, 'TOKEN-ISSUE', [/HTTP Basic/i, /client_secret_post/]);
    expectVerdict(
      {
        ...run,
        report: {
          ...run.report,
          checks: run.report.checks.filter((c) => !['token', 'legacy', 'versioning'].includes(c.suite)),
        },
      },
      ofSuites(WITHOUT, ['auth', 'user', 'tenant', 'writes', 'pagination', 'nulls', 'resources']),
    );
  });
});

describe('Django 3.2 + Django REST framework 3.14 on uvicorn', () => {
  const needs = ['drf'] as const;
  const test = (name: string, body: () => void | Promise<void>) =>
    it.skipIf(skipWithout(needs))(title(name, needs), body);

  /**
   * Every check passes with the document `generateschema` writes:
   * - its paths end in "/" (DRF's router): the detail endpoints `shipments/{id}/` take their id
   *   from the list `shipments/`, so every endpoint is judged;
   * - DRF writes `2026-01-01T00:00:00Z` for the seeded `2026-01-01T00:00:00.000Z`: the same
   *   instant (RFC 3339 §5.6, `format: date-time`);
   * - the settings' `webhookUrl`, a URLField, is documented with Django's URL regex in which DRF
   *   turned Python's `\Z` into `\z`: as ECMA-262 (what a `pattern` is) that is a literal "z", which
   *   no webhook URL without one matches. The value is a URL, as the document's `format: uri` says;
   *   the spec says nothing of patterns (the spec over the document): RESOURCE-SCHEMA, which judges
   *   the types and nullability the schema declares, passes; the pattern is the document's defect.
   */
  test('conformant, with its generateschema document: every check passes, every endpoint judged, exit 0', () => {
    const run = runOf('drf conformant');
    expectConformant(run);
    expect.soft(writeOutcomes(run.report)).toEqual(UVICORN_WRITES('shipments/', 'shipments/{id}/', DRF_DELETE));
    expect.soft(precedenceChoices(run.report)).toEqual(VERSION_THEN_TOKEN_THEN_TENANT(1));
  });

  /**
   * Four defects that break disjoint rules:
   * - DRF's custom-authentication example (no authenticate_header): every refusal is 403 without
   *   a challenge (REFUSED_WITHOUT_CHALLENGE), an unknown token's too: AUTH-UNKNOWN-TOKEN fails,
   *   its status SHOULD warns, AUTH-INVALID-TOKEN-ERROR cannot judge a challenge that is not there.
   * - An invalid Accept-Version gets 406, as DRF's AcceptHeaderVersioning answers: spec §Errors
   *   allows 404 or 400 only: VERSION-INVALID fails, and WRITE-VERSION-INVALID on the DELETE (no
   *   made-up id explains a 406: its control gets 404; the create operation asks for its content
   *   first, not proven). The 403s without a challenge fail WRITE-AUTH-MISSING and
   *   WRITE-AUTH-INVALID on the DELETE too, where the control gets 404.
   * - `size` ignored (page_size_query_param left at None): `size=5` gets 10 items and Page-Size 10,
   *   neither the size asked for nor a cap below it (spec §Pagination): PAGE-ECHO fails.
   * - Django's string convention (blank=True, no null): invoice notes and the settings' default
   *   carrier are "" where the data has none, which spec §Generic rules for optional fields 2
   *   forbids: RESOURCE-EXPECTED-VALUES fails on the seeded items ("" is a string: the types are
   *   right, RESOURCE-SCHEMA passes).
   */
  test('403 without challenge, 406 for a bad version, size ignored, "" for null: each caught by its check, nothing else', () => {
    const run = runOf('drf defects');
    expectVerdict(run, {
      ...WITHOUT,
      ...REFUSED_WITHOUT_CHALLENGE,
      'AUTH-UNKNOWN-TOKEN': 'failed',
      'AUTH-UNKNOWN-TOKEN-401': 'warning',
      'AUTH-INVALID-TOKEN-ERROR': 'error',
      'VERSION-INVALID': 'failed',
      'WRITE-VERSION-INVALID': 'failed',
      // The DELETE without credentials, or with a bad token, gets 403 without a challenge, where its control gets 404.
      'WRITE-AUTH-MISSING': 'failed',
      'WRITE-AUTH-INVALID': 'failed',
      'PAGE-ECHO': 'failed',
      'RESOURCE-EXPECTED-VALUES': 'failed',
    });
    expectReasons(run.report, 'WRITE-VERSION-INVALID', [
      /DELETE \/tenants\/\{tenantId\}\/shipments\/\{id\}\/ with Accept-Version: \w+: expected 400 or 404, got 406/,
    ]);
    expectReasons(run.report, 'AUTH-UNKNOWN-TOKEN', [/the refusal \(403\) must carry a WWW-Authenticate challenge/]);
    expectReasons(run.report, 'VERSION-INVALID', [/expected 400 or 404, got 406/]);
    expectReasons(run.report, 'PAGE-ECHO', [/expected Page-Size 5, got 10/]);
    expectReasons(run.report, 'RESOURCE-EXPECTED-VALUES', [
      /field "note": expected null, got the string ""/,
      /field "defaultCarrier": expected null, got the string ""/,
    ]);
    expect.soft(run.code).toBe(1);
  });

  /**
   * `users/me/` and `uaa/userinfo/` written Django's way: APPEND_SLASH answers GET /users/me with
   * 301 to /users/me/, which a client that follows the spec does not follow (the harness never
   * does): USER-OK fails, naming the redirect, and LEGACY-NO-REDIRECT on /uaa/userinfo's (spec
   * §Get the current user: the legacy path is rewritten, not redirected). The token endpoint is at
   * the spec's path: the token suite passes, and so do LEGACY-TOKEN and LEGACY-TOKEN-REFUSES.
   * Without a User there is no tenant to test (none given): every check that needs one, or the
   * User's body, is an error naming the preflight's 301, never a failure. TOKEN-WORKS and VERSION-ONE see the same 301 where they
   * expect /users/me to answer: a failure, or an error pointing at USER-OK, are both right.
   */
  test('APPEND_SLASH 301s on /users/me: USER-OK and LEGACY-NO-REDIRECT fail naming the redirect, what needs the User is an error', () => {
    const run = runOf('drf append-slash');
    const judged: Verdict = {
      ...ofSuites(WITHOUT, ['token']),
      'TOKEN-WORKS': ['failed', 'error'],
      'VERSION-ONE': ['failed', 'error'],
      'USER-OK': 'failed',
      'LEGACY-TOKEN': 'passed',
      'LEGACY-TOKEN-REFUSES': 'passed',
      'LEGACY-NO-REDIRECT': 'failed',
    };
    expectVerdict(run, { ...Object.fromEntries(Object.keys(WITHOUT).map((id) => [id, 'error' as const])), ...judged });
    expectReasons(run.report, 'USER-OK', [/301 \(a redirect to \/users\/me\/\)/]);
    expectReasons(run.report, 'LEGACY-NO-REDIRECT', [/301 redirect to \/uaa\/userinfo\//]);
    expect.soft(run.code).toBe(1);
  });

  /**
   * DRF's PageNumberPagination as shipped: `{"count", "next", "previous", "results"}` and no
   * paging header (spec §Pagination lists them as response headers): PAGE-HEADERS fails. Without
   * Total-Pages, Total-Elements and Page-Size nothing else about the pages can be known: the walk
   * and the checks that need it are errors pointing at PAGE-HEADERS, never failures of their own
   * rules: PAGE-INVALID-PARAMS cannot tell a clamped size from another without Page-Size (error),
   * and PAGE-DEFAULT, which compares the items of no `page` and `page=1`, passes on them. LINK-SYNTAX
   * judges the Link fields there are (none).
   */
  test('body-only paging (PageNumberPagination): PAGE-HEADERS fails, the checks that need the headers are errors', () => {
    const run = runOf('drf body-paging');
    const cannotWalk = [
      'PAGE-ECHO',
      'PAGE-TOTALS',
      'PAGE-WALK',
      'PAGE-PAST-END',
      'PAGE-INVALID-PARAMS',
      'LINK-NEXT',
      'LINK-PREV',
      'LINK-FIRST-LAST',
      'LINK-FOLLOW',
      'NULLS-SAME-FIELDS',
    ];
    expectVerdict(run, {
      ...WITHOUT,
      'PAGE-HEADERS': 'failed',
      ...Object.fromEntries(cannotWalk.map((id) => [id, 'error' as const])),
    });
    expectReasons(run.report, 'PAGE-HEADERS', [/Page-Number is missing/, /Total-Elements is missing/]);
    expect.soft(run.code).toBe(1);
  });
});

describe('Caddy 2.6 in front of the DRF app', () => {
  const needs = ['drf', 'caddy'] as const;
  const test = (name: string, body: () => void | Promise<void>) =>
    it.skipIf(skipWithout(needs))(title(name, needs), body);
  const FOLLOWS_LINKS = ['LINK-NEXT', 'LINK-PREV', 'LINK-FIRST-LAST', 'LINK-FOLLOW'];

  /**
   * The internal CA's root (`--ca-file`), gzip, the legacy paths rewritten (the backend does not
   * serve them), X-Forwarded-Proto: https to Django (SECURE_PROXY_SSL_HEADER): the links are on
   * the gateway's https origin. The verdict of the direct run: every check passes.
   */
  test('conformant: every check passes, every endpoint judged, exit 0; the gateway rewrote and gzipped', async () => {
    const run = runOf('caddy conformant') as Run & { gateway: Gateway };
    expectConformant(run);
    // Caddy reads the content of a request it proxies itself: it answers 100 before the backend sees the header section.
    expect.soft(writeOutcomes(run.report)).toEqual(UVICORN_WRITES('shipments/', 'shipments/{id}/', DRF_DELETE));
    expect.soft(precedenceChoices(run.report)).toEqual(VERSION_THEN_TOKEN_THEN_TENANT(1));
    const access = await run.gateway.accessLog();
    expect
      .soft(
        access.filter((e) => GATEWAY_REWRITES.some(([legacy]) => e.target.split('?')[0] === legacy) && e.status === 200)
          .length,
        'legacy paths answered through the gateway',
      )
      .toBeGreaterThan(0);
    expect
      .soft(
        access.some((e) => e.contentEncoding === 'gzip'),
        'some response gzipped by the gateway',
      )
      .toBe(true);
  });

  /**
   * Two gateway defects that break disjoint rules:
   * - no `rewrite` for the legacy paths: the backend answers them 404 (spec §Obtain an access
   *   token, §Get the current user: "still accepted"): LEGACY-TOKEN and LEGACY-USERINFO fail; what
   *   needs a token from the legacy path cannot be judged (errors). The auth and versioning checks
   *   cannot judge the legacy endpoints either, where even a valid request gets 404: errors (or
   *   skips) naming that, never failures of their own rules; VERSION-ONE, whose own valid request
   *   that is, may fail or point at LEGACY-*. LEGACY-NO-REDIRECT sees no redirect: it passes.
   * - `header_up Host {upstream_hostport}`: Django builds its links on the backend's host and
   *   port (with https, from X-Forwarded-Proto), another origin than the API's (RFC 6454 §4), to
   *   which a client sends no bearer token (RFC 6750 §5.3): the link checks that follow links fail
   *   for that reason; LINK-SYNTAX passes (an absolute target is a valid link, RFC 8288 §3).
   */
  test("no legacy rewrites, Host the upstream's: LEGACY-* and the link-following checks fail, naming why", () => {
    const run = runOf('caddy without rewrites, Host the upstream');
    const probesLegacy = ofSuites(WITHOUT, ['auth', 'versioning']);
    expectVerdict(run, {
      ...WITHOUT,
      ...Object.fromEntries(Object.keys(probesLegacy).map((id) => [id, ['error', 'skipped'] as const])),
      'VERSION-ONE': ['failed', 'error'],
      'LEGACY-TOKEN': 'failed',
      'LEGACY-TOKEN-WORKS': 'error',
      'LEGACY-TOKEN-REFUSES': 'error',
      'LEGACY-USERINFO': 'failed',
      ...Object.fromEntries(FOLLOWS_LINKS.map((id) => [id, 'failed' as const])),
    });
    expectReasons(run.report, 'LEGACY-USERINFO', [/expected 200, got 404/]);
    for (const id of FOLLOWS_LINKS) expectReasons(run.report, id, [/not on the API's origin/]);
    expect.soft(run.code).toBe(1);
  });

  /**
   * The paging headers and Link removed on the way out (`header_down -Total-* -Page-* -Link`, an
   * allow-list of response headers ported from another gateway): as for body-only paging, PAGE-HEADERS
   * fails and the checks that need the headers are errors pointing at it.
   */
  test('paging headers stripped: PAGE-HEADERS fails, the checks that need them are errors', () => {
    const run = runOf('caddy hiding the paging headers');
    const cannotWalk = [
      'PAGE-ECHO',
      'PAGE-TOTALS',
      'PAGE-WALK',
      'PAGE-PAST-END',
      'PAGE-INVALID-PARAMS',
      'LINK-NEXT',
      'LINK-PREV',
      'LINK-FIRST-LAST',
      'LINK-FOLLOW',
      'NULLS-SAME-FIELDS',
    ];
    expectVerdict(run, {
      ...WITHOUT,
      'PAGE-HEADERS': 'failed',
      ...Object.fromEntries(cannotWalk.map((id) => [id, 'error' as const])),
    });
    expectReasons(run.report, 'PAGE-HEADERS', [/Total-Pages is missing/]);
    expect.soft(run.code).toBe(1);
  });
});
