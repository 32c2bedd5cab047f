/**
 * expiry: a token works until expires_in runs out and not after (spec §Access token response,
 * §Authentication 3; RFC 6750 §3, §3.1). The timeline starts with the runner's shared token, so
 * the wait overlaps the other suites (see src/battery/expiry.ts for the timing rules).
 */
import { check, suite } from '../src/battery/check.js';
import { expectChallenge, expectStatus } from '../src/battery/expect.js';
import { acceptedWhenNew, getTimeline, observeExpiry, probe, probeBeforeAt, skipUnlessWaitable, sleepUntil, TIMER_SLACK_MS } from '../src/battery/expiry.js';
import { expectTokenWorks, judgeTokenResponse, requestValidToken } from '../src/battery/token-response.js';
import { getBattery } from '../src/battery/context.js';

const { settings } = getBattery();
// Each check may wait out a whole token lifetime.
const timeoutMs = (settings.maxExpiryWaitSeconds + settings.expiryMarginSeconds) * 1000 + 60_000;

suite(
  'expiry',
  () => {
    check(
      'EXPIRY-VALID-BEFORE',
      async (c) => {
        const t = await getTimeline(c);
        skipUnlessWaitable(c, t);
        if (!acceptedWhenNew(c, t)) return;
        const at = probeBeforeAt(t);
        if (at > t.receivedAt && Date.now() > at + TIMER_SLACK_MS) return c.error('the probe before expiry came too late to be meaningful (the run was too slow)');
        if (at === t.receivedAt) c.note(`expires_in (${t.expiresIn} s) is too short to probe closer to its end than right after issue: the probe must lead by 1 s of clock granularity plus the ${t.roundTripMs} ms round trip`);
        await sleepUntil(at, c.signal);
        const secondsLeft = (t.sentAt + t.expiresIn * 1000 - Date.now()) / 1000;
        const res = await probe(c, t.token, `GET /users/me with a token that has ${secondsLeft.toFixed(1)} s left of its expires_in`);
        expectStatus(c, res, [200], `GET /users/me ${secondsLeft.toFixed(1)} s before the token's expires_in (${t.expiresIn} s) runs out`);
      },
      { timeoutMs },
    );

    check(
      'EXPIRY-REFUSED-AFTER',
      async (c) => {
        const t = await getTimeline(c);
        skipUnlessWaitable(c, t);
        if (!acceptedWhenNew(c, t)) return;
        const seen = await observeExpiry(c, t);
        const margin = settings.expiryMarginSeconds;
        if (!seen.refused) {
          return c.fail(`the token was still accepted ${seen.secondsLate.toFixed(1)} s after its expires_in (${t.expiresIn} s) ran out, beyond the ${margin} s clock margin (--expiry-margin)`, seen.lastAccepted);
        }
        const what = `GET /users/me with a token ${seen.secondsLate.toFixed(1)} s past its expires_in`;
        if (expectStatus(c, seen.refused, [401], what)) expectChallenge(c, seen.refused, 'Bearer', what);
        c.note(`the server refused the token ${seen.secondsLate.toFixed(2)} s after receivedAt + expires_in`);
      },
      { timeoutMs },
    );

    check(
      'EXPIRY-INVALID-TOKEN-ERROR',
      async (c) => {
        const t = await getTimeline(c);
        skipUnlessWaitable(c, t);
        if (!acceptedWhenNew(c, t)) return;
        // The first refusal EXPIRY-REFUSED-AFTER observed (or this check, when run alone).
        const { refused } = await observeExpiry(c, t);
        const what = 'GET /users/me with an expired token';
        if (refused?.status !== 401) return c.error(`cannot check the challenge: the expired token got ${refused ? refused.status : 'no refusal'}, not 401 (see EXPIRY-REFUSED-AFTER)`, refused);
        const challenge = expectChallenge(c, refused, 'Bearer', what);
        if (challenge && challenge.params.error !== 'invalid_token') {
          c.fail(`${what}: expected error="invalid_token" in the Bearer challenge, got ${challenge.params.error === undefined ? 'no error parameter' : JSON.stringify(challenge.params.error)}`, refused);
        }
      },
      { timeoutMs },
    );

    check(
      'EXPIRY-RENEW',
      async (c) => {
        const t = await getTimeline(c);
        skipUnlessWaitable(c, t);
        if (!acceptedWhenNew(c, t)) return;
        await observeExpiry(c, t);
        const res = await requestValidToken(c);
        const body = judgeTokenResponse(c, res, 'a token request after the first token expired');
        if (!body) return;
        if (typeof body.access_token !== 'string') return c.fail('the fresh token response has no access_token string', res);
        await expectTokenWorks(c, body.access_token, 'a token request after the first token expired');
      },
      { timeoutMs },
    );
  },
  { sequential: true },
);
