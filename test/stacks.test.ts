/**
 * The whole battery against an implementation written with a real framework, as product teams
 * write the API: Fastify 5 with response schemas serialised by fast-json-stringify
 * (test/support/stacks/fastify-app.ts). Each run is judged check by check against the verdict the
 * spec and the RFCs call for, with the reasoning for every non-pass here: a false failure, an
 * error where the harness should have judged, or a missed defect fails this file.
 *
 * The conformant app must pass everything (exit 0). The variant with the commonest real mistake,
 * optional fields declared `type: 'string'` without null (fast-json-stringify then writes `""`
 * for null), cannot be judged without ground truth: exit 0, but a review item for each list
 * field where the pattern shows; with the ground truth (--expectations) the value checks fail.
 * Then Express 5, with and without checkContinue (what it does with a write's Expect: 100-continue).
 * Last, the conformant app behind Apache 2.4 with and without X-Forwarded-Proto (needs Debian's
 * `apache2`, which `.ci/run` installs: skipped locally without it, failed in CI).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_BINARIES, GATEWAY_PACKAGES, haveGateway, startGateway } from './support/gateways.js';
import {
  ALL_PASSED,
  VERSION_THEN_TOKEN_THEN_TENANT,
  differences,
  precedenceChoices,
  runHarness,
  writeOutcomes,
  type Run,
  type Verdict,
} from './support/stack-runs.js';
import { startExpressApp, type ExpressMode } from './support/stacks/express-app.js';
import { startFastifyApp, type FastifyVariant } from './support/stacks/fastify-app.js';

/** Short, so that the expiry suite (which waits the lifetime out) keeps each run to a few seconds. */
const TOKEN_TTL_SECONDS = 2;
const IN_CI = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';

/** The conformant Fastify app, with its ground truth: every check passes. */
const FASTIFY_CONFORMANT: Verdict = ALL_PASSED;

/**
 * `type: 'string'` without null, without ground truth. Every check that can be judged from the
 * answers alone passes: "" is a valid string, the fields are present, the schema (whose optional
 * strings allow null) accepts "" as well; whether "" stands for null is a fact about the data
 * (spec §Generic rules for optional fields 2), which no answer shows. The value checks have no
 * data to compare with: skipped, saying so, and the run exits 0. The pattern is reported apart,
 * as review items (below).
 */
const FASTIFY_STRING_WITHOUT_NULL: Verdict = {
  ...ALL_PASSED,
  'USER-EXPECTED-VALUES': 'skipped',
  'RESOURCE-EXPECTED-VALUES': 'skipped',
};

/**
 * The same app with the ground truth: the known items carry null where "" arrives, which spec
 * §Generic rules for optional fields 2 forbids ("An empty string is never a substitute for null"):
 * both value checks fail (User.email of /users/me; deliveredAt, paidAt, note, dueDate, shipmentId
 * and the settings' defaultCarrier of the tenant's resources). Nothing else changes.
 */
const FASTIFY_STRING_WITHOUT_NULL_KNOWN: Verdict = {
  ...ALL_PASSED,
  'USER-EXPECTED-VALUES': 'failed',
  'RESOURCE-EXPECTED-VALUES': 'failed',
};

const runOf = async (variant: FastifyVariant, expectations: boolean): Promise<Run> => {
  const stack = await startFastifyApp({ variant, tokenTtlSeconds: TOKEN_TTL_SECONDS });
  try {
    return await runHarness(stack, stack.url, { expectations });
  } finally {
    await stack.close();
  }
};

describe('Fastify 5 with fast-json-stringify response schemas', () => {
  it('conformant (nullable optional fields as type [string, null]): every check passes, exit 0', async () => {
    const run = await runOf('conformant', true);
    const diff = differences(FASTIFY_CONFORMANT, run.report);
    expect.soft(diff, `${diff.length} checks differ:\n${diff.join('\n')}`).toEqual([]);
    expect.soft(run.code, `exit code${run.stderr ? `; stderr: ${run.stderr}` : ''}`).toBe(0);
    expect.soft(run.report.review ?? [], 'review items').toEqual([]);
    // node:http answers Expect: 100-continue itself unless the application listens for
    // checkContinue, and Fastify does not: the create operation asks for its content before its
    // onRequest guard runs. The app has no PATCH route: node:http asks for the content of that
    // one too, before Fastify's 404. A DELETE has no content, and is judged on its answer.
    expect.soft(writeOutcomes(run.report)).toEqual({
      'POST /tenants/{tenantId}/shipments': 'asks for the content',
      'PATCH /tenants/{tenantId}/shipments/{shipmentId}': 'asks for the content',
      // Its DELETE answers an unknown version and an unknown tenant 404, as it answers the made-up id.
      'DELETE /tenants/{tenantId}/shipments/{shipmentId}':
        'not proven by WRITE-TENANT-UNKNOWN, WRITE-VERSION-INVALID: as with valid headers',
    });
    expect.soft(precedenceChoices(run.report)).toEqual(VERSION_THEN_TOKEN_THEN_TENANT(1));
  }, 40_000);

  describe('optional fields as type: \'string\' without null (fast-json-stringify writes "" for null)', () => {
    let withoutTruth: Run;
    let withTruth: Run;

    beforeAll(async () => {
      [withoutTruth, withTruth] = [await runOf('string-without-null', false), await runOf('string-without-null', true)];
    }, 60_000);

    it('without ground truth: the verdict check by check, exit 0, and a review item for each list field that shows the pattern', () => {
      const diff = differences(FASTIFY_STRING_WITHOUT_NULL, withoutTruth.report);
      expect.soft(diff, `${diff.length} checks differ:\n${diff.join('\n')}`).toEqual([]);
      expect
        .soft(withoutTruth.code, `exit code${withoutTruth.stderr ? `; stderr: ${withoutTruth.stderr}` : ''}`)
        .toBe(0);
      // The lists' fields the document says may be null and that are never null but often "":
      // deliveredAt (not yet delivered), and the invoices' dueDate, note and paidAt, whatever the
      // share of their items (issue 38 item 8: before, note and dueDate were under the detector's
      // "at least half"). shipmentId is "" on too few items; the user's email and the settings are
      // single objects, which show no pattern: only the ground truth finds those (below). In the
      // order of the endpoints, then by field.
      expect
        .soft(
          (withoutTruth.report.review ?? []).map((r) => ({
            kind: r.kind,
            endpoint: r.endpoint,
            field: r.field,
            judgedBy: r.judgedBy,
          })),
        )
        .toEqual([
          {
            kind: 'empty-string-for-null',
            endpoint: 'GET /tenants/{tenantId}/shipments',
            field: 'deliveredAt',
            judgedBy: 'RESOURCE-EXPECTED-VALUES',
          },
          {
            kind: 'empty-string-for-null',
            endpoint: 'GET /tenants/{tenantId}/invoices',
            field: 'dueDate',
            judgedBy: 'RESOURCE-EXPECTED-VALUES',
          },
          {
            kind: 'empty-string-for-null',
            endpoint: 'GET /tenants/{tenantId}/invoices',
            field: 'note',
            judgedBy: 'RESOURCE-EXPECTED-VALUES',
          },
          {
            kind: 'empty-string-for-null',
            endpoint: 'GET /tenants/{tenantId}/invoices',
            field: 'paidAt',
            judgedBy: 'RESOURCE-EXPECTED-VALUES',
          },
        ]);
    });

    it('with ground truth (--expectations): USER-EXPECTED-VALUES and RESOURCE-EXPECTED-VALUES fail on "" for null, nothing else changes, exit 1', () => {
      const diff = differences(FASTIFY_STRING_WITHOUT_NULL_KNOWN, withTruth.report);
      expect.soft(diff, `${diff.length} checks differ:\n${diff.join('\n')}`).toEqual([]);
      expect.soft(withTruth.code).toBe(1);
      const reasons = (id: string) =>
        withTruth.report.checks.find((c) => c.id === id)?.findings.map((f) => f.message) ?? [];
      expect
        .soft(reasons('USER-EXPECTED-VALUES'))
        .toContainEqual(expect.stringContaining('User.email: expected null, got the string ""'));
      for (const field of ['deliveredAt', 'paidAt', 'note', 'defaultCarrier']) {
        expect
          .soft(
            reasons('RESOURCE-EXPECTED-VALUES').some((m) =>
              m.includes(`field "${field}": expected null, got the string ""`),
            ),
            `RESOURCE-EXPECTED-VALUES names ${field}`,
          )
          .toBe(true);
      }
    });
  });
});

/**
 * The app behind Apache 2.4 (test/support/gateways.ts), TLS with a private CA. Fastify with
 * `trustProxy` builds its absolute links from X-Forwarded-Host (which Apache's mod_proxy always
 * sends) and X-Forwarded-Proto (which it sends only when configured): with it the links are on
 * the gateway's https origin and every check passes; without it (Apache's default) they are
 * `http://` on the gateway's host and port, another origin (RFC 6454 §4: the scheme is part of
 * it), which a client must not send its bearer token to (RFC 6750 §5.3). The link checks that
 * follow links fail for that reason; LINK-SYNTAX passes (an absolute target is a valid link,
 * RFC 8288 §3), and every other check keeps its verdict.
 */
describe('the conformant Fastify app behind Apache', () => {
  const have = haveGateway('apache');
  const skip = !have && !IN_CI;
  const missing = `no apache at ${GATEWAY_BINARIES.apache}; install it with \`apt-get install ${GATEWAY_PACKAGES.apache}\``;
  const title = (name: string) => (skip ? `${name} (skipped: ${missing})` : name);
  const FOLLOWS_LINKS = ['LINK-NEXT', 'LINK-PREV', 'LINK-FIRST-LAST', 'LINK-FOLLOW'];

  const behindApache = async (forwardedHeaders: boolean): Promise<Run> => {
    expect(have, `CI is set but there is ${missing}: the CI script must install it`).toBe(true);
    const stack = await startFastifyApp({ tokenTtlSeconds: TOKEN_TTL_SECONDS });
    const gateway = await startGateway({ kind: 'apache', upstream: stack.url, forwardedHeaders });
    try {
      return await runHarness(stack, gateway.url, { extra: ['--ca-file', gateway.ca?.caFile ?? ''] });
    } finally {
      await gateway.close();
      await stack.close();
    }
  };

  it.skipIf(skip)(
    title('with X-Forwarded-Proto: every check passes, exit 0'),
    async () => {
      const run = await behindApache(true);
      const diff = differences(FASTIFY_CONFORMANT, run.report);
      expect.soft(diff, `${diff.length} checks differ:\n${diff.join('\n')}`).toEqual([]);
      expect.soft(run.code, `exit code${run.stderr ? `; stderr: ${run.stderr}` : ''}`).toBe(0);
    },
    40_000,
  );

  it.skipIf(skip)(
    title(
      "without (Apache's default): the links are http://, the checks that follow them fail as not on the API's origin, exit 1",
    ),
    async () => {
      const run = await behindApache(false);
      const expected: Verdict = {
        ...FASTIFY_CONFORMANT,
        ...Object.fromEntries(FOLLOWS_LINKS.map((id) => [id, 'failed' as const])),
      };
      const diff = differences(expected, run.report);
      expect.soft(diff, `${diff.length} checks differ:\n${diff.join('\n')}`).toEqual([]);
      for (const id of FOLLOWS_LINKS) {
        const check = run.report.checks.find((c) => c.id === id);
        const reasons = [check?.message, ...(check?.findings.map((f) => f.message) ?? [])].join('\n');
        expect
          .soft(reasons, id)
          .toMatch(/<?http:\/\/127\.0\.0\.1:\d+\/tenants\/[^\n]*not on the API's origin https:\/\/127\.0\.0\.1:\d+/);
      }
      expect.soft(run.code).toBe(1);
    },
    40_000,
  );
});

/**
 * Express 5, as a product team writes the API (test/support/stacks/express-app.ts): what it does
 * with a write that announces its content (issue 41). With `app.listen()`, node:http answers 100
 * Continue itself before the app sees the request, so no guard can refuse from the header
 * section; listening for checkContinue, with `res.writeContinue()` after the guards, every write
 * operation is provable. Either way the whole battery passes.
 */
describe('Express 5 with its guards as middleware', () => {
  const expressRun = async (mode: ExpressMode): Promise<Run> => {
    const stack = await startExpressApp({ mode, tokenTtlSeconds: TOKEN_TTL_SECONDS });
    try {
      return await runHarness(stack, stack.url);
    } finally {
      await stack.close();
    }
  };

  it('app.listen(): conformant, exit 0; node:http asks for the content of the create and change operations before the guards, the DELETE is judged', async () => {
    const run = await expressRun('listen');
    const diff = differences(ALL_PASSED, run.report);
    expect.soft(diff, `${diff.length} checks differ:\n${diff.join('\n')}`).toEqual([]);
    expect.soft(run.code, `exit code${run.stderr ? `; stderr: ${run.stderr}` : ''}`).toBe(0);
    expect.soft(writeOutcomes(run.report)).toEqual({
      'POST /tenants/{tenantId}/shipments': 'asks for the content',
      'PATCH /tenants/{tenantId}/shipments/{shipmentId}': 'asks for the content',
      // The reference's routes: a DELETE of the made-up id is 204 (idempotent), every refusal the defect's.
      'DELETE /tenants/{tenantId}/shipments/{shipmentId}': 'proven',
    });
    expect.soft(precedenceChoices(run.report)).toEqual(VERSION_THEN_TOKEN_THEN_TENANT(1));
  }, 40_000);

  it('checkContinue handed to the app, writeContinue() after the guards: conformant, exit 0, every write operation proven', async () => {
    const run = await expressRun('check-continue');
    const diff = differences(ALL_PASSED, run.report);
    expect.soft(diff, `${diff.length} checks differ:\n${diff.join('\n')}`).toEqual([]);
    expect.soft(run.code, `exit code${run.stderr ? `; stderr: ${run.stderr}` : ''}`).toBe(0);
    expect.soft(writeOutcomes(run.report)).toEqual({
      'POST /tenants/{tenantId}/shipments': 'proven',
      'PATCH /tenants/{tenantId}/shipments/{shipmentId}': 'proven',
      'DELETE /tenants/{tenantId}/shipments/{shipmentId}': 'proven',
    });
    expect.soft(precedenceChoices(run.report)).toEqual(VERSION_THEN_TOKEN_THEN_TENANT(3));
  }, 40_000);
});
