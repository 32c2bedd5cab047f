/**
 * The token and expiry suites against two independent, widely used OAuth 2.0 servers from npm:
 * panva's oidc-provider (OpenID Certified; opaque and JWT access tokens) and
 * @node-oauth/oauth2-server. Each run is judged check by check against the verdict the RFCs call
 * for, not against what the harness happens to print: a false failure, or an error where the
 * harness should have tested, fails this file.
 *
 * Tokens live TTL_SECONDS, so the expiry suite waits only that long.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { checksOfSuite } from '../src/catalogue/index.js';
import type { CheckStatus, RunReport } from '../src/model/run-report.js';
import { runBin, runMain, tempDir } from './support/harness.js';
import {
  SECRETS,
  startNodeOAuth2Server,
  startOidcProvider,
  type OAuthServerFixture,
  type SecretKind,
} from './support/oauth-servers.js';
import { differences as statusDifferences } from './support/verdicts.js';

const TTL_SECONDS = 2;

type Verdict = Record<string, CheckStatus>;

const SUITE_CHECKS = [...checksOfSuite('token'), ...checksOfSuite('expiry')].map((c) => c.id);

/**
 * oidc-provider, whichever token format, whichever secret (it form-decodes the Basic credentials
 * as RFC 6749 §2.3.1 requires, so the special secret changes nothing).
 */
const OIDC_PROVIDER: Verdict = {
  'TOKEN-ISSUE': 'passed',
  'TOKEN-ACCESS-TOKEN': 'passed',
  // "Bearer": RFC 6749 §5.1 makes token_type case-insensitive, and RFC 6750 §6.1.1 registers
  // it spelled "Bearer", so the MUST check passes ...
  'TOKEN-TYPE': 'passed',
  // ... and the SHOULD check warns, because the spec documents "bearer" ("Always `bearer`"). Arguable:
  // the registered spelling could be said to deserve no warning at all; but a client that compares
  // with the documented value exactly would break, which is what the warning is for.
  'TOKEN-TYPE-CASE': 'warning',
  'TOKEN-EXPIRES-IN': 'passed',
  // ClientCredentials TTL as configured (the library's default is 600 s): short-lived.
  'TOKEN-SHORT-LIVED': 'passed',
  'TOKEN-NO-STORE': 'passed',
  // No Pragma at all. RFC 6749 §5.1 says MUST ("as well as the Pragma response header field with a
  // value of no-cache"), but RFC 9111 §5.4 has deprecated Pragma and OAuth 2.1 drops it: the
  // catalogue deliberately makes it a SHOULD, hence a warning, not a failure. Arguable both ways.
  'TOKEN-PRAGMA': 'warning',
  'TOKEN-NO-REFRESH': 'passed',
  'TOKEN-WORKS': 'passed',
  'TOKEN-WRONG-SECRET': 'passed',
  'TOKEN-UNKNOWN-CLIENT': 'passed',
  // 400 invalid_request "no client authentication mechanism provided". RFC 6749 §5.2 illustrates
  // invalid_client with "no client authentication included", but defines invalid_request for a
  // request "missing a required parameter", and without any client authentication nothing
  // identifies the client; the §5.2 list is examples ("e.g."). Both readings are defensible and an
  // OpenID Certified server takes the second, so the catalogue accepts either code (its notes).
  'TOKEN-NO-CREDENTIALS': 'passed',
  'TOKEN-GRANT-MISSING': 'passed',
  'TOKEN-GRANT-UNSUPPORTED': 'passed',
  // authorization_code and refresh_token are always on in oidc-provider: 400 unauthorized_client for
  // a client registered for client_credentials alone; password, the JWT bearer grant, the device
  // code and token exchange are not enabled: 400 unsupported_grant_type.
  'TOKEN-GRANT-OTHERS': 'passed',
  'TOKEN-ERROR-FORMAT': 'passed',
  'TOKEN-EXTRA-PARAM': 'passed',
  'TOKEN-BASIC-CASE': 'passed',
  // Form-decodes the Basic credentials (RFC 6749 §2.3.1): with a secret that the encoding changes
  // the check passes; with a plain one there is nothing to observe, and it says so (skipped).
  'TOKEN-CREDENTIALS-ENCODING': 'skipped',
  // The provider computes exp = floor(now) + ttl (RFC 7519 NumericDate, whole seconds) and refuses
  // from exp on: up to 1 s before sentAt + expires_in. expires_in is a whole number of seconds
  // (RFC 6749 §5.1), so an error under 1 s is within its resolution; only a refusal earlier than
  // that is non-conformant. The harness used to probe 0.5 s before and failed about half the runs.
  'EXPIRY-VALID-BEFORE': 'passed',
  'EXPIRY-REFUSED-AFTER': 'passed',
  // The resource server here answers an expired token 401 (RFC 6750 §3.1's SHOULD).
  'EXPIRY-REFUSED-401': 'passed',
  'EXPIRY-INVALID-TOKEN-ERROR': 'passed',
  'EXPIRY-RENEW': 'passed',
};

/** The special secret, which form-encoding changes: oidc-provider decodes it as RFC 6749 §2.3.1 requires. */
const OIDC_PROVIDER_SPECIAL: Verdict = { ...OIDC_PROVIDER, 'TOKEN-CREDENTIALS-ENCODING': 'passed' };

/** @node-oauth/oauth2-server: conformant but for the spelling of token_type. */
const NODE_OAUTH2_SERVER: Verdict = {
  ...Object.fromEntries(SUITE_CHECKS.map((id) => [id, 'passed' as const])),
  // "Bearer", as for oidc-provider above: a pass for TOKEN-TYPE, a SHOULD warning here.
  'TOKEN-TYPE-CASE': 'warning',
  // A plain secret: nothing that form-encoding changes, nothing to observe (skipped, with the reason).
  'TOKEN-CREDENTIALS-ENCODING': 'skipped',
  // EXPIRY-REFUSED-AFTER passes: expires_in = floor(expiresAt - now), so it reads TTL - 1 whenever
  // a millisecond passed while issuing, while the token lives TTL; it is refused just under 1 s
  // after receivedAt + expires_in, inside the second that whole-second rounding allows.
};

/**
 * The special secret: the library does not form-decode Basic credentials (see the last describe
 * below), so the RFC 6749 §2.3.1 encoding of `+ % : & =` and the space is refused with 401. The
 * spec's own words are RFC 7617's ("username is the clientId, password is the clientSecret"),
 * under which the raw secret is right, and the server does issue tokens to it: every other check
 * must give the plain secret's verdict. RFC 6749 §2.3.1 does require the encoding, so not decoding
 * is an interoperability defect, reported once, as a SHOULD warning of its own.
 */
const NODE_OAUTH2_SERVER_SPECIAL: Verdict = { ...NODE_OAUTH2_SERVER, 'TOKEN-CREDENTIALS-ENCODING': 'warning' };

interface Target {
  name: string;
  start: (secret: string) => Promise<OAuthServerFixture>;
  verdict: Record<SecretKind, Verdict>;
}

const TARGETS: Target[] = [
  {
    name: 'oidc-provider, opaque access tokens',
    start: (clientSecret) => startOidcProvider({ format: 'opaque', clientSecret, tokenTtlSeconds: TTL_SECONDS }),
    verdict: { plain: OIDC_PROVIDER, special: OIDC_PROVIDER_SPECIAL },
  },
  {
    name: 'oidc-provider, JWT access tokens',
    start: (clientSecret) => startOidcProvider({ format: 'jwt', clientSecret, tokenTtlSeconds: TTL_SECONDS }),
    verdict: { plain: OIDC_PROVIDER, special: OIDC_PROVIDER_SPECIAL },
  },
  {
    name: '@node-oauth/oauth2-server',
    start: (clientSecret) => startNodeOAuth2Server({ clientSecret, tokenTtlSeconds: TTL_SECONDS }),
    verdict: { plain: NODE_OAUTH2_SERVER, special: NODE_OAUTH2_SERVER_SPECIAL },
  },
];

let fixture: OAuthServerFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** `carrier-conformance run --suite token --suite expiry` against the fixture, in-process. */
function runTokenAndExpiry(target: OAuthServerFixture): Promise<{ code: number; report: RunReport }> {
  return runSuites(target, ['token', 'expiry']);
}

/** `carrier-conformance run --suite …` against the fixture, in-process, with its JSON report. */
async function runSuites(
  target: OAuthServerFixture,
  suites: readonly string[],
): Promise<{ code: number; report: RunReport }> {
  const reportsDir = await tempDir();
  process.env.CARRIER_CLIENT_SECRET = target.clientSecret;
  try {
    const args = ['run', '--base-url', target.url, '--client-id', target.clientId, '--tenant-id', target.tenantId];
    const { code } = await runMain([
      ...args,
      ...suites.flatMap((s) => ['--suite', s]),
      '--reporter',
      'json',
      '--reports-dir',
      reportsDir,
    ]);
    return { code, report: JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport };
  } finally {
    delete process.env.CARRIER_CLIENT_SECRET;
  }
}

/** Every check whose status differs from the verdict, with the harness's reasons, for the failure output. */
const differences = (report: RunReport, verdict: Verdict): string => statusDifferences(verdict, report).join('\n');

describe('the token and expiry suites against OAuth 2.0 servers from npm', () => {
  it('judges every check of the two suites', () => {
    for (const verdict of [OIDC_PROVIDER, OIDC_PROVIDER_SPECIAL, NODE_OAUTH2_SERVER, NODE_OAUTH2_SERVER_SPECIAL])
      expect(Object.keys(verdict).sort()).toEqual([...SUITE_CHECKS].sort());
  });

  describe.each(TARGETS)('$name', ({ start, verdict }) => {
    it.each(['plain', 'special'] as const)(
      '%s client secret: the verdict the RFCs call for, check by check',
      async (kind) => {
        fixture = await start(SECRETS[kind]);
        const { code, report } = await runTokenAndExpiry(fixture);
        const expected = verdict[kind];
        const statuses = Object.fromEntries(report.checks.map((c) => [c.id, c.status]));
        expect(statuses, differences(report, expected)).toEqual(expected);
        // The gate: a failed MUST check (or an error) fails the run; warnings do not.
        expect(code).toBe(Object.values(expected).some((s) => s === 'failed' || s === 'error') ? 1 : 0);
      },
    );
  });
});

/**
 * The clock-granularity defect, measured as the issue asked: oidc-provider ends a token up to a
 * second before sentAt + expires_in (exp = floor(iat) + ttl), which made EXPIRY-VALID-BEFORE fail in
 * 9 to 14 of 20 runs. Runs of the expiry suite, four real CLI processes at a time, must all give
 * the verdict above: 8 in `npm test` (CI's time; the defect back would pass all 8 with a chance of
 * 0.55^8, under 1 %), 20 as the issue measured with EXPIRY_REPEAT_RUNS=20.
 */
const REPEAT_RUNS = Number(process.env.EXPIRY_REPEAT_RUNS ?? 8);

describe(`EXPIRY-* against a whole-second JWT issuer, ${REPEAT_RUNS} runs`, () => {
  it(`gives the same verdict in ${REPEAT_RUNS} of ${REPEAT_RUNS} runs`, { timeout: 180_000 }, async () => {
    fixture = await startOidcProvider({ format: 'jwt', clientSecret: SECRETS.plain, tokenTtlSeconds: TTL_SECONDS });
    const target = fixture;
    const expiry = checksOfSuite('expiry').map((c) => c.id);
    const expected: Verdict = Object.fromEntries(Object.entries(OIDC_PROVIDER).filter(([id]) => expiry.includes(id)));
    const outcomes: string[] = [];
    const one = async (): Promise<void> => {
      const reportsDir = await tempDir();
      const args = [
        'run',
        '--base-url',
        target.url,
        '--client-id',
        target.clientId,
        '--tenant-id',
        target.tenantId,
        '--suite',
        'expiry',
        '--reporter',
        'json',
        '--reports-dir',
        reportsDir,
      ];
      const { code } = await runBin(args, { env: { CARRIER_CLIENT_SECRET: target.clientSecret }, timeoutMs: 60_000 });
      const report = JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
      const got = Object.fromEntries(report.checks.map((c) => [c.id, c.status]));
      const same = JSON.stringify(got) === JSON.stringify(expected) && code === 0;
      outcomes.push(same ? 'same' : `exit ${code}: ${differences(report, expected)}`);
    };
    for (let started = 0; started < REPEAT_RUNS; started += 4)
      await Promise.all(Array.from({ length: Math.min(4, REPEAT_RUNS - started) }, one));
    expect(
      outcomes.filter((o) => o !== 'same'),
      'runs whose verdict differed',
    ).toEqual([]);
    expect(outcomes).toHaveLength(REPEAT_RUNS);
  });
});

/**
 * What the libraries themselves do with Basic credentials that form-encoding changes (RFC 6749
 * §2.3.1: id and secret are application/x-www-form-urlencoded, then joined with ":" and Base64
 * encoded as in RFC 7617): the premise of the verdicts above.
 */
describe('RFC 6749 §2.3.1 client credentials encoding, in the libraries', () => {
  const formEncode = (value: string): string => new URLSearchParams([['', value]]).toString().slice(1);
  const basic = (id: string, secret: string): string =>
    `Basic ${Buffer.from(`${id}:${secret}`, 'utf8').toString('base64')}`;

  async function tokenRequest(
    target: OAuthServerFixture,
    authorization: string,
  ): Promise<{ status: number; error?: unknown }> {
    const res = await request(`${target.url}/uaa/oauth2/token`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/x-www-form-urlencoded', 'accept-version': '1' },
      body: 'grant_type=client_credentials',
    });
    const body = (await res.body.json()) as { error?: unknown };
    return { status: res.statusCode, ...(body.error === undefined ? {} : { error: body.error }) };
  }

  const secret = SECRETS.special;

  it('oidc-provider form-decodes them: the encoded secret works, the raw one is malformed', async () => {
    fixture = await startOidcProvider({ format: 'opaque', clientSecret: secret, tokenTtlSeconds: 60 });
    expect(await tokenRequest(fixture, basic(formEncode(fixture.clientId), formEncode(secret)))).toEqual({
      status: 200,
    });
    // "%:&" is no valid percent-escape: 400 "client_id and client_secret in the authorization header are not properly encoded".
    expect(await tokenRequest(fixture, basic(fixture.clientId, secret))).toEqual({
      status: 400,
      error: 'invalid_request',
    });
  });

  it('@node-oauth/oauth2-server does not: the raw secret works, the encoded one is a wrong secret', async () => {
    fixture = await startNodeOAuth2Server({ clientSecret: secret, tokenTtlSeconds: 60 });
    expect(await tokenRequest(fixture, basic(fixture.clientId, secret))).toEqual({ status: 200 });
    expect(await tokenRequest(fixture, basic(formEncode(fixture.clientId), formEncode(secret)))).toEqual({
      status: 401,
      error: 'invalid_client',
    });
  });
});

/**
 * The auth suite against @node-oauth/oauth2-server's own Bearer check, as shipped: the fixture's
 * /users/me and /uaa/userinfo are guarded by the library's `authenticate()` (issue 30). Its
 * answers: 401 `Bearer realm="Service"` without credentials, 401 `error="invalid_token"` for an
 * unknown token, and 400 `Bearer realm="Service",error="invalid_request"` for anything its
 * case-sensitive /^Bearer / does not match: a malformed credential, Basic, and "bearer <token>".
 */
describe("the auth suite against @node-oauth/oauth2-server's authenticate()", () => {
  const ISSUED_CHALLENGE = 'Bearer realm="Service",error="invalid_request"';

  const VERDICT: Verdict = {
    'AUTH-MISSING': 'passed',
    'AUTH-MISSING-401': 'passed',
    'AUTH-MISSING-NO-ERROR': 'passed',
    // 400 invalid_request: RFC 6750 §3.1 recommends exactly that for a malformed request.
    'AUTH-MALFORMED': 'passed',
    'AUTH-MALFORMED-STATUS': 'passed',
    'AUTH-UNKNOWN-TOKEN': 'passed',
    'AUTH-UNKNOWN-TOKEN-401': 'passed',
    'AUTH-INVALID-TOKEN-ERROR': 'passed',
    // Basic gets 400 with a Bearer challenge. The MUSTs hold: refused, and RFC 6750 §3's challenge,
    // "Bearer" as its scheme. No source requires 401 here (the spec leaves failed-authentication
    // statuses "not shown"), so this used to be a false MUST failure that made the run NON-CONFORMANT ...
    'AUTH-NOT-BEARER': 'passed',
    // ... while what RFC 6750 §3.1 recommends for "an unsupported authentication method" (no error
    // code; its example is a 401) is not met: a SHOULD, hence a warning.
    'AUTH-NOT-BEARER-401': 'warning',
    // "bearer <token>" is refused: RFC 9110 §11.1 makes scheme names case-insensitive; a SHOULD check.
    'AUTH-SCHEME-CASE': 'warning',
  };

  it('the verdict the RFCs call for, check by check: not NON-CONFORMANT, the MUST passes, the SHOULD warns', async () => {
    fixture = await startNodeOAuth2Server({ clientSecret: SECRETS.plain, tokenTtlSeconds: 60 });
    // The premise: the library's answer to Basic credentials, as shipped.
    const basic = `Basic ${Buffer.from(`${fixture.clientId}:${fixture.clientSecret}`, 'utf8').toString('base64')}`;
    const premise = await request(`${fixture.url}/users/me`, {
      headers: { authorization: basic, 'accept-version': '1' },
    });
    await premise.body.dump();
    expect({ status: premise.statusCode, challenge: premise.headers['www-authenticate'] }).toEqual({
      status: 400,
      challenge: ISSUED_CHALLENGE,
    });

    const { code, report } = await runSuites(fixture, ['auth']);
    const statuses = Object.fromEntries(report.checks.map((c) => [c.id, c.status]));
    expect(statuses, differences(report, VERDICT)).toEqual(VERDICT);
    expect(Object.keys(VERDICT).sort()).toEqual(
      checksOfSuite('auth')
        .map((c) => c.id)
        .sort(),
    );
    expect(report.verdict).not.toBe('non-conformant');
    expect(code).toBe(0);
    // Every resource endpoint is judged, and the warning says what came back and what is recommended.
    const notBearer = report.checks.find((c) => c.id === 'AUTH-NOT-BEARER-401');
    expect(notBearer?.findings.map((f) => f.message)).toEqual(
      expect.arrayContaining([
        'GET /users/me with Basic authentication with the client credentials: refused with 400, expected 401: RFC 6750 §3.1 treats another scheme as no authentication information, and answers that with 401 (as RFC 9110 §15.5.2 defines it)',
        'GET /users/me with Basic authentication with the client credentials: the challenge should carry no error code when the client used an unsupported authentication method (RFC 6750 §3.1), got error="invalid_request"',
      ]),
    );
    expect(report.checks.find((c) => c.id === 'AUTH-NOT-BEARER')?.endpoints?.map((e) => e.status)).toEqual([
      'passed',
      'passed',
    ]);
  });
});

/**
 * Issue 38, item 7: what a library does when configured as its documentation shows, against the
 * spec's grant_type rule. (Item 6, a token endpoint that ignores HTTP Basic, has no library here
 * to show it: oidc-provider takes Basic for a client registered for client_secret_post as well;
 * test/deployment-options.test.ts has a front that takes the form body only.)
 */
describe('issue 38: the token rules against the libraries as their documentation configures them', () => {
  const message = (report: RunReport, id: string): string[] =>
    report.checks.find((c) => c.id === id)?.findings.map((f) => f.message) ?? [];

  it("@node-oauth/oauth2-server with password, authorization_code and refresh_token among the client's grants: TOKEN-GRANT-OTHERS fails on the password token and the 500s, every other token check as before", async () => {
    fixture = await startNodeOAuth2Server({
      clientSecret: SECRETS.plain,
      tokenTtlSeconds: 60,
      extraGrants: ['password', 'authorization_code', 'refresh_token'],
    });
    // The premise, as the issue found it: a password-grant token for any pair, a 500 for the others.
    const basic = `Basic ${Buffer.from(`${fixture.clientId}:${fixture.clientSecret}`).toString('base64')}`;
    const ask = async (body: string): Promise<{ status: number; token: boolean }> => {
      const res = await request(`${fixture?.url ?? ''}/uaa/oauth2/token`, {
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded', 'accept-version': '1' },
        body,
      });
      const json = (await res.body.json()) as { access_token?: unknown };
      return { status: res.statusCode, token: typeof json.access_token === 'string' };
    };
    expect(await ask('grant_type=password&username=a&password=b')).toEqual({ status: 200, token: true });
    expect(
      await ask('grant_type=authorization_code&code=x&redirect_uri=https%3A%2F%2Fclient.example%2Fcallback'),
    ).toEqual({ status: 500, token: false });

    const { code, report } = await runSuites(fixture, ['token']);
    const statuses = Object.fromEntries(report.checks.map((c) => [c.id, c.status]));
    const tokenChecks = Object.fromEntries(
      Object.entries(NODE_OAUTH2_SERVER).filter(([id]) => id.startsWith('TOKEN-')),
    );
    expect(statuses, differences(report, tokenChecks)).toEqual({ ...tokenChecks, 'TOKEN-GRANT-OTHERS': 'failed' });
    expect(code).toBe(1);
    expect(message(report, 'TOKEN-GRANT-OTHERS')).toEqual([
      'token request with grant_type=password and a made-up username and password: answered 200 with an access token: grant_type must be client_credentials (spec §Obtain an access token), and no conformant server issues a token for a made-up username and password',
      'token request with grant_type=authorization_code and a made-up authorization code: expected a refusal (a 4xx status, RFC 6749 §5.2), got 500 (a server error)',
      'token request with grant_type=refresh_token and a made-up refresh token: expected a refusal (a 4xx status, RFC 6749 §5.2), got 500 (a server error)',
    ]);
  });
});
