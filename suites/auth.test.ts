/**
 * auth: every resource endpoint (/users/me, its legacy path, every tenant endpoint)
 * requires `Authorization: Bearer <token>` (spec §Authentication 4; RFC 6750 §2.1, §3, §3.1).
 */
import { randomBytes } from 'node:crypto';
import type { CheckContext } from '../src/battery/check.js';
import { check, suite } from '../src/battery/check.js';
import {
  noteMissingTenantEndpoints,
  onEach,
  probeWhenWorking,
  resourceEndpoints,
  sharedProbe,
} from '../src/battery/endpoints.js';
import { challengeOf, expectChallenge, expectRefusal, expectStatusClass, isRefusal } from '../src/battery/expect.js';
import type { Challenge } from '../src/http/challenge.js';
import type { HttpResponse, RequestAuth } from '../src/http/client.js';

/** A well-formed b64token (RFC 6750 §2.1) that no server issued. */
const UNKNOWN_TOKEN: RequestAuth = {
  kind: 'literal',
  value: `Bearer carrier-conformance-unknown-${randomBytes(12).toString('hex')}`,
};
/** Credentials that are not a b64token: nothing after the scheme, and characters b64token excludes. */
const MALFORMED: Probe[] = [
  { label: 'a Bearer scheme with no token', auth: { kind: 'literal', value: 'Bearer' } },
  { label: 'a Bearer credential that is not a b64token', auth: { kind: 'literal', value: 'Bearer %not a token%' } },
];

interface Probe {
  auth: RequestAuth;
  /** What is sent, e.g. "no Authorization header": also the key under which checks share the answer. */
  label: string;
}

/**
 * Sends the probes to every resource endpoint that works with a valid token, all at once and
 * beside the valid request, and hands each answer to `judge`, in order, with the endpoint's own
 * context: a refusal proves that the endpoint requires a token only where a valid one is accepted
 * (an endpoint that refuses every token refuses these too, vacuously). Checks that judge the
 * same request (AUTH-MISSING, AUTH-MISSING-401 and AUTH-MISSING-NO-ERROR) share its answer: the
 * MUST of the answer and each SHOULD are judged apart, so that a SHOULD only ever warns.
 */
async function onEveryEndpoint(
  c: CheckContext,
  probes: readonly Probe[],
  judge: (e: CheckContext, res: HttpResponse, what: string) => void,
): Promise<void> {
  noteMissingTenantEndpoints(c);
  await onEach(c, resourceEndpoints(c), async (e, endpoint) => {
    const answers = await probeWhenWorking(e, endpoint, () =>
      Promise.all(
        probes.map((p) =>
          sharedProbe(e, `${endpoint.label} with ${p.label}`, (via) =>
            endpoint.send(e, { auth: p.auth }, p.label, via),
          ),
        ),
      ),
    );
    answers?.forEach((res, i) => judge(e, res, `${endpoint.label} with ${probes[i]?.label ?? ''}`));
  });
}

const NO_CREDENTIALS: Probe = { auth: { kind: 'none' }, label: 'no Authorization header' };
const UNKNOWN: Probe = { auth: UNKNOWN_TOKEN, label: 'an unknown access token' };
const NOT_BEARER = (c: CheckContext): Probe => ({
  auth: { kind: 'client-basic', ...c.credentials },
  label: 'Basic authentication with the client credentials',
});

/**
 * The MUST of every refusal here (RFC 6750 §3: a request that "does not include authentication
 * credentials or does not contain an access token that enables access to the protected resource"
 * MUST get a WWW-Authenticate challenge, and "All challenges defined by this specification MUST
 * use the auth-scheme value "Bearer""): refused with a 4xx, and a Bearer challenge whatever the
 * status. Which status is a SHOULD of its own (the *-401 and AUTH-MALFORMED-STATUS checks): the
 * spec leaves the statuses of failed authentication "not shown" (spec §Errors).
 */
function refusedWithChallenge(e: CheckContext, res: HttpResponse, what: string): void {
  if (expectRefusal(e, res, what)) expectChallenge(e, res, 'Bearer', what, { always: true });
}

/**
 * A SHOULD about the refusal's status: `statuses`, else a warning that says `why`. Judged only on
 * a refusal: data, a redirect or a server error is the MUST check's failure (`mustCheck`).
 */
function refusalStatus(
  e: CheckContext,
  res: HttpResponse,
  what: string,
  statuses: readonly number[],
  mustCheck: string,
  why: string,
): boolean {
  if (!isRefusal(res)) {
    e.error(`${what}: cannot judge the status of the refusal: got ${res.status}, no refusal (see ${mustCheck})`, res);
    return false;
  }
  if (statuses.includes(res.status)) return true;
  e.fail(`${what}: refused with ${res.status}, expected ${statuses.join(' or ')}: ${why}`, res);
  return false;
}

/**
 * The Bearer challenge of a refusal, for a SHOULD about its error code; without a refusal or a
 * challenge there is nothing to judge, and the MUST check (`mustCheck`) has failed: an error.
 */
function refusalChallenge(e: CheckContext, res: HttpResponse, what: string, mustCheck: string): Challenge | undefined {
  if (!isRefusal(res)) {
    e.error(`${what}: cannot judge the challenge: got ${res.status}, no refusal (see ${mustCheck})`, res);
    return undefined;
  }
  const challenge = challengeOf(res, 'Bearer');
  if (!challenge)
    e.error(
      `${what}: cannot judge the challenge of the ${res.status}: it carries no Bearer challenge (see ${mustCheck})`,
      res,
    );
  return challenge;
}

/** What an error parameter is, in a finding. */
const describeError = (challenge: Challenge): string =>
  challenge.params.error === undefined ? 'no error parameter' : `error=${JSON.stringify(challenge.params.error)}`;

suite('auth', () => {
  check('AUTH-MISSING', (c) => onEveryEndpoint(c, [NO_CREDENTIALS], refusedWithChallenge));

  check('AUTH-MISSING-401', (c) =>
    onEveryEndpoint(c, [NO_CREDENTIALS], (e, res, what) => {
      refusalStatus(
        e,
        res,
        what,
        [401],
        'AUTH-MISSING',
        'RFC 9110 §15.5.2 defines 401 for a request that "lacks valid authentication credentials", as RFC 6750 §3 answers one without authentication',
      );
    }),
  );

  check('AUTH-MISSING-NO-ERROR', (c) =>
    onEveryEndpoint(c, [NO_CREDENTIALS], (e, res, what) => {
      const challenge = refusalChallenge(e, res, what, 'AUTH-MISSING');
      if (challenge?.params.error !== undefined)
        e.fail(
          `${what}: the challenge should carry no error code when no credentials were sent (RFC 6750 §3.1), got error="${challenge.params.error}"`,
          res,
        );
    }),
  );

  // RFC 6750 §3.1 recommends 400 invalid_request for a malformed request, and 401 invalid_token
  // for a malformed token: which of the two is AUTH-MALFORMED-STATUS's business.
  check('AUTH-MALFORMED', (c) => onEveryEndpoint(c, MALFORMED, refusedWithChallenge));

  check('AUTH-MALFORMED-STATUS', (c) =>
    onEveryEndpoint(c, MALFORMED, (e, res, what) => {
      refusalStatus(
        e,
        res,
        what,
        [400, 401],
        'AUTH-MALFORMED',
        'RFC 6750 §3.1 says a malformed request (invalid_request) SHOULD get 400, a malformed token (invalid_token) 401',
      );
    }),
  );

  check('AUTH-UNKNOWN-TOKEN', (c) => onEveryEndpoint(c, [UNKNOWN], refusedWithChallenge));

  check('AUTH-UNKNOWN-TOKEN-401', (c) =>
    onEveryEndpoint(c, [UNKNOWN], (e, res, what) => {
      refusalStatus(
        e,
        res,
        what,
        [401],
        'AUTH-UNKNOWN-TOKEN',
        'RFC 6750 §3.1 says an invalid token (invalid_token) SHOULD get 401 Unauthorized',
      );
    }),
  );

  check('AUTH-INVALID-TOKEN-ERROR', (c) =>
    onEveryEndpoint(c, [UNKNOWN], (e, res, what) => {
      const challenge = refusalChallenge(e, res, what, 'AUTH-UNKNOWN-TOKEN');
      if (challenge && challenge.params.error !== 'invalid_token')
        e.fail(`${what}: expected error="invalid_token" in the Bearer challenge, got ${describeError(challenge)}`, res);
    }),
  );

  check('AUTH-NOT-BEARER', (c) => onEveryEndpoint(c, [NOT_BEARER(c)], refusedWithChallenge));

  // A client that sent Basic "attempted using an unsupported authentication method": RFC 6750
  // §3.1 says such a request "lacks any authentication information" and SHOULD get no error code,
  // and its example of that is a 401. Both SHOULDs, so a 400 invalid_request (what
  // @node-oauth/oauth2-server answers) is a warning, never a failure.
  check('AUTH-NOT-BEARER-401', (c) =>
    onEveryEndpoint(c, [NOT_BEARER(c)], (e, res, what) => {
      refusalStatus(
        e,
        res,
        what,
        [401],
        'AUTH-NOT-BEARER',
        'RFC 6750 §3.1 treats another scheme as no authentication information, and answers that with 401 (as RFC 9110 §15.5.2 defines it)',
      );
      if (!isRefusal(res)) return;
      const challenge = challengeOf(res, 'Bearer');
      if (challenge?.params.error !== undefined)
        e.fail(
          `${what}: the challenge should carry no error code when the client used an unsupported authentication method (RFC 6750 §3.1), got error="${challenge.params.error}"`,
          res,
        );
      else if (!challenge && !e.failed)
        e.error(
          `${what}: cannot judge the challenge of the ${res.status}: it carries no Bearer challenge (see AUTH-NOT-BEARER)`,
          res,
        );
    }),
  );

  check('AUTH-SCHEME-CASE', (c) =>
    // The shared token with another spelling of the scheme: never retried with a fresh token,
    // since the spelling is what is tested; the same token with "Bearer" works (requireWorking).
    onEveryEndpoint(
      c,
      [{ auth: { kind: 'shared-token', scheme: 'bearer' }, label: 'a valid token and the scheme spelled "bearer"' }],
      (e, res, what) => void expectStatusClass(e, res, 2, what),
    ),
  );
});
