/**
 * expiry: a token works until expires_in runs out and not after (spec §Access token response,
 * §Authentication 3; RFC 6750 §3, §3.1). The timeline starts with the runner's shared token, so
 * the wait overlaps the other suites (see src/battery/expiry.ts for the timing rules).
 */
import { check, suite } from '../src/battery/check.js';
import { expectChallenge, expectStatus } from '../src/battery/expect.js';
import { acceptedWhenNew, failedRenewalBeforeWait, freshTimeline, getTimeline, observeExpiry, probeShortlyBefore, skipUnlessWaitable } from '../src/battery/expiry.js';
import { judgeTokenResponse, judgeTokenUse, requestValidToken } from '../src/battery/token-response.js';
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
        let t = await getTimeline(c);
        skipUnlessWaitable(c, t);
        if (!acceptedWhenNew(c, t)) return;
        // A busy moment can make one probe inconclusive: then once more, on a token of its own.
        for (let attempt = 1; attempt <= 2; attempt += 1) {
          if ((await probeShortlyBefore(c, t)) !== 'inconclusive') return;
          if (attempt === 2) break;
          t = await freshTimeline(c);
          if (!acceptedWhenNew(c, t)) return;
        }
        c.error('cannot judge: twice the probe shortly before expiry could not be sent or answered in time; the target (or this machine) is too slow for tokens this short-lived');
      },
      { timeoutMs: 2 * timeoutMs },
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
          return c.fail(`the token was still accepted ${seen.secondsLate.toFixed(1)} s after its expires_in (${t.expiresIn} s) ran out, beyond a second of whole-second rounding and the ${margin} s clock margin (--expiry-margin)`, seen.lastAccepted);
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
        if (failedRenewalBeforeWait(c, t)) return;
        skipUnlessWaitable(c, t);
        if (!acceptedWhenNew(c, t)) return;
        await observeExpiry(c, t);
        const where = 'a token request after the first token expired';
        for (let attempt = 1; attempt <= 2; attempt += 1) {
          const sentAt = Date.now();
          const res = await requestValidToken(c);
          const body = judgeTokenResponse(c, res, where);
          if (!body) return;
          if (typeof body.access_token !== 'string') return c.fail('the fresh token response has no access_token string', res);
          const expiresIn = typeof body.expires_in === 'number' ? body.expires_in : Number.NaN;
          if ((await judgeTokenUse(c, { res, token: body.access_token, sentAt, expiresIn }, where)) !== 'inconclusive') return;
        }
        c.error('cannot judge: twice the fresh token was refused only once its expires_in (less a second) had run out; the target answers too slowly for tokens this short-lived');
      },
      { timeoutMs },
    );
  },
  { sequential: true },
);
