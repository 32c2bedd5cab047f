/**
 * auth: every resource endpoint (/users/me, its legacy path, each configured tenant endpoint)
 * requires `Authorization: Bearer <token>` (spec §Authentication 4; RFC 6750 §2.1, §3, §3.1).
 */
import { randomBytes } from 'node:crypto';
import type { CheckContext } from '../src/battery/check.js';
import { check, suite } from '../src/battery/check.js';
import { noteMissingTenantEndpoints, requireWorking, resourceEndpoints } from '../src/battery/endpoints.js';
import { expectChallenge, expectStatus, expectStatusClass } from '../src/battery/expect.js';
import type { HttpResponse, RequestAuth } from '../src/http/client.js';

/** A well-formed b64token (RFC 6750 §2.1) that no server issued. */
const UNKNOWN_TOKEN: RequestAuth = { kind: 'literal', value: `Bearer carrier-conformance-unknown-${randomBytes(12).toString('hex')}` };
/** Credentials that are not a b64token: nothing after the scheme, and characters b64token excludes. */
const MALFORMED: { label: string; auth: RequestAuth }[] = [
  { label: 'a Bearer scheme with no token', auth: { kind: 'literal', value: 'Bearer' } },
  { label: 'a Bearer credential that is not a b64token', auth: { kind: 'literal', value: 'Bearer %not a token%' } },
];

/**
 * Sends the request to every resource endpoint that works with a valid token and hands each
 * response to `judge`: a refusal proves that the endpoint requires a token only where a valid
 * one is accepted (an endpoint that refuses every token refuses these too, vacuously).
 */
async function onEveryEndpoint(c: CheckContext, auth: RequestAuth, purpose: string, judge: (res: HttpResponse, what: string) => void): Promise<void> {
  noteMissingTenantEndpoints(c);
  for (const endpoint of resourceEndpoints(c)) {
    if (!(await requireWorking(c, endpoint))) continue;
    const res = await endpoint.send(c, { auth }, purpose);
    judge(res, `${endpoint.label} with ${purpose}`);
  }
}

/** 401 with a Bearer challenge (RFC 6750 §3). */
function refusedWithChallenge(c: CheckContext) {
  return (res: HttpResponse, what: string): void => {
    if (expectStatus(c, res, [401], what)) expectChallenge(c, res, 'Bearer', what);
  };
}

suite('auth', () => {
  check('AUTH-MISSING', (c) => onEveryEndpoint(c, { kind: 'none' }, 'no Authorization header', refusedWithChallenge(c)));

  check('AUTH-MALFORMED', async (c) => {
    for (const probe of MALFORMED) {
      await onEveryEndpoint(c, probe.auth, probe.label, (res, what) => {
        // RFC 6750 §3.1 recommends 400 invalid_request for a malformed request; 401 is as good.
        if (expectStatus(c, res, [400, 401], what)) expectChallenge(c, res, 'Bearer', what);
      });
    }
  });

  check('AUTH-UNKNOWN-TOKEN', (c) => onEveryEndpoint(c, UNKNOWN_TOKEN, 'an unknown access token', refusedWithChallenge(c)));

  check('AUTH-NOT-BEARER', (c) =>
    onEveryEndpoint(c, { kind: 'client-basic', ...c.credentials }, 'Basic authentication with the client credentials', refusedWithChallenge(c)),
  );

  check('AUTH-MISSING-NO-ERROR', (c) =>
    onEveryEndpoint(c, { kind: 'none' }, 'no Authorization header', (res, what) => {
      if (res.status !== 401) return c.error(`${what}: cannot judge the challenge of a ${res.status} (see AUTH-MISSING)`, res);
      const challenge = expectChallenge(c, res, 'Bearer', what);
      if (challenge?.params.error !== undefined) c.fail(`${what}: the challenge should carry no error code when no credentials were sent, got error="${challenge.params.error}"`, res);
    }),
  );

  check('AUTH-INVALID-TOKEN-ERROR', (c) =>
    onEveryEndpoint(c, UNKNOWN_TOKEN, 'an unknown access token', (res, what) => {
      if (res.status !== 401) return c.error(`${what}: cannot judge the challenge of a ${res.status} (see AUTH-UNKNOWN-TOKEN)`, res);
      const challenge = expectChallenge(c, res, 'Bearer', what);
      if (challenge && challenge.params.error !== 'invalid_token') {
        c.fail(`${what}: expected error="invalid_token" in the Bearer challenge, got ${challenge.params.error === undefined ? 'no error parameter' : JSON.stringify(challenge.params.error)}`, res);
      }
    }),
  );

  check('AUTH-SCHEME-CASE', (c) =>
    // The shared token with another spelling of the scheme: never retried with a fresh token,
    // since the spelling is what is tested; the same token with "Bearer" works (requireWorking).
    onEveryEndpoint(c, { kind: 'shared-token', scheme: 'bearer' }, 'a valid token and the scheme spelled "bearer"', (res, what) => void expectStatusClass(c, res, 2, what)),
  );
});
