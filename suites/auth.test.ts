/**
 * auth: every resource endpoint (/users/me, its legacy path, every tenant endpoint)
 * requires `Authorization: Bearer <token>` (spec §Authentication 4; RFC 6750 §2.1, §3, §3.1).
 */
import { randomBytes } from 'node:crypto';
import type { CheckContext } from '../src/battery/check.js';
import { check, suite } from '../src/battery/check.js';
import { noteMissingTenantEndpoints, onEach, probeWhenWorking, resourceEndpoints, sharedProbe } from '../src/battery/endpoints.js';
import { expectChallenge, expectStatus, expectStatusClass } from '../src/battery/expect.js';
import type { HttpResponse, RequestAuth } from '../src/http/client.js';

/** A well-formed b64token (RFC 6750 §2.1) that no server issued. */
const UNKNOWN_TOKEN: RequestAuth = { kind: 'literal', value: `Bearer carrier-conformance-unknown-${randomBytes(12).toString('hex')}` };
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
 * same request (AUTH-MISSING and AUTH-MISSING-NO-ERROR) share its answer.
 */
async function onEveryEndpoint(c: CheckContext, probes: readonly Probe[], judge: (e: CheckContext, res: HttpResponse, what: string) => void): Promise<void> {
  noteMissingTenantEndpoints(c);
  await onEach(c, resourceEndpoints(c), async (e, endpoint) => {
    const answers = await probeWhenWorking(e, endpoint, () =>
      Promise.all(probes.map((p) => sharedProbe(e, `${endpoint.label} with ${p.label}`, (via) => endpoint.send(e, { auth: p.auth }, p.label, via)))),
    );
    answers?.forEach((res, i) => judge(e, res, `${endpoint.label} with ${probes[i]?.label ?? ''}`));
  });
}

const NO_CREDENTIALS: Probe = { auth: { kind: 'none' }, label: 'no Authorization header' };
const UNKNOWN: Probe = { auth: UNKNOWN_TOKEN, label: 'an unknown access token' };

/** 401 with a Bearer challenge (RFC 6750 §3). */
function refusedWithChallenge(e: CheckContext, res: HttpResponse, what: string): void {
  if (expectStatus(e, res, [401], what)) expectChallenge(e, res, 'Bearer', what);
}

suite('auth', () => {
  check('AUTH-MISSING', (c) => onEveryEndpoint(c, [NO_CREDENTIALS], refusedWithChallenge));

  check('AUTH-MALFORMED', (c) =>
    onEveryEndpoint(c, MALFORMED, (e, res, what) => {
      // RFC 6750 §3.1 recommends 400 invalid_request for a malformed request; 401 is as good.
      if (expectStatus(e, res, [400, 401], what)) expectChallenge(e, res, 'Bearer', what);
    }),
  );

  check('AUTH-UNKNOWN-TOKEN', (c) => onEveryEndpoint(c, [UNKNOWN], refusedWithChallenge));

  check('AUTH-NOT-BEARER', (c) => onEveryEndpoint(c, [{ auth: { kind: 'client-basic', ...c.credentials }, label: 'Basic authentication with the client credentials' }], refusedWithChallenge));

  check('AUTH-MISSING-NO-ERROR', (c) =>
    onEveryEndpoint(c, [NO_CREDENTIALS], (e, res, what) => {
      if (res.status !== 401) return e.error(`${what}: cannot judge the challenge of a ${res.status} (see AUTH-MISSING)`, res);
      const challenge = expectChallenge(e, res, 'Bearer', what);
      if (challenge?.params.error !== undefined) e.fail(`${what}: the challenge should carry no error code when no credentials were sent, got error="${challenge.params.error}"`, res);
    }),
  );

  check('AUTH-INVALID-TOKEN-ERROR', (c) =>
    onEveryEndpoint(c, [UNKNOWN], (e, res, what) => {
      if (res.status !== 401) return e.error(`${what}: cannot judge the challenge of a ${res.status} (see AUTH-UNKNOWN-TOKEN)`, res);
      const challenge = expectChallenge(e, res, 'Bearer', what);
      if (challenge && challenge.params.error !== 'invalid_token') {
        e.fail(`${what}: expected error="invalid_token" in the Bearer challenge, got ${challenge.params.error === undefined ? 'no error parameter' : JSON.stringify(challenge.params.error)}`, res);
      }
    }),
  );

  check('AUTH-SCHEME-CASE', (c) =>
    // The shared token with another spelling of the scheme: never retried with a fresh token,
    // since the spelling is what is tested; the same token with "Bearer" works (requireWorking).
    onEveryEndpoint(c, [{ auth: { kind: 'shared-token', scheme: 'bearer' }, label: 'a valid token and the scheme spelled "bearer"' }], (e, res, what) => void expectStatusClass(e, res, 2, what)),
  );
});
