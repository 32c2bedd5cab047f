/**
 * expiry: a token works until expires_in runs out and not after (spec §Access token response,
 * §Authentication 3; RFC 6750 §3, §3.1). The timeline starts with the runner's shared token, so
 * the wait overlaps the other suites (see src/battery/expiry.ts for the timing rules).
 */
import { check, suite } from '../src/battery/check.js';
import { challengeOf, expectChallenge, expectRefusal, isRefusal } from '../src/battery/expect.js';
import {
  acceptedWhenNew,
  failedRenewalBeforeWait,
  freshTimeline,
  getTimeline,
  judgeObservedPart,
  observeExpiry,
  probeShortlyBefore,
  skipUnlessWaitable,
  waitable,
} from '../src/battery/expiry.js';
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
        const started = Date.now();
        let t = await getTimeline(c);
        if (!acceptedWhenNew(c, t)) return;
        // Too long-lived to wait out: judged on the part of the lifetime the run observes anyway
        // (a refusal of a shared token before its expires_in, the token probed again as the run
        // ends), leaving time within this check's timeout for that probe (--timeout) and slack.
        if (!waitable(c, t)) return judgeObservedPart(c, t, started + 2 * timeoutMs - settings.http.timeoutMs - 5_000);
        // A busy moment can make one probe inconclusive: then once more, on a token of its own.
        for (let attempt = 1; attempt <= 2; attempt += 1) {
          if ((await probeShortlyBefore(c, t)) !== 'inconclusive') return;
          if (attempt === 2) break;
          t = await freshTimeline(c);
          if (!acceptedWhenNew(c, t)) return;
        }
        c.error(
          'cannot judge: twice the probe shortly before expiry could not be sent or answered in time; the target (or this machine) is too slow for tokens this short-lived',
        );
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
          return c.fail(
            `the token was still accepted ${seen.secondsLate.toFixed(1)} s after its expires_in (${t.expiresIn} s) ran out, beyond a second of whole-second rounding and the ${margin} s clock margin (--expiry-margin)`,
            seen.lastAccepted,
          );
        }
        // The MUST (spec §Authentication 3: "After that time the token is invalid"; RFC 6750 §3:
        // a request without a token "that enables access" MUST get a challenge, a Bearer one):
        // refused, with a Bearer challenge whatever the status. 401 is EXPIRY-REFUSED-401's SHOULD.
        const what = `GET /users/me with a token ${seen.secondsLate.toFixed(1)} s past its expires_in`;
        if (expectRefusal(c, seen.refused, what)) expectChallenge(c, seen.refused, 'Bearer', what, { always: true });
        c.note(`the server refused the token ${seen.secondsLate.toFixed(2)} s after receivedAt + expires_in`);
      },
      { timeoutMs },
    );

    check(
      'EXPIRY-REFUSED-401',
      async (c) => {
        const t = await getTimeline(c);
        skipUnlessWaitable(c, t);
        if (!acceptedWhenNew(c, t)) return;
        // The first refusal EXPIRY-REFUSED-AFTER observed (or this check, when run alone).
        const { refused } = await observeExpiry(c, t);
        c.restsOn(refused);
        const what = 'GET /users/me with an expired token';
        if (!refused || !isRefusal(refused))
          return c.error(
            `cannot judge the status of the refusal: the expired token got ${refused ? refused.status : 'no refusal'} (see EXPIRY-REFUSED-AFTER)`,
            refused,
          );
        // RFC 6750 §3.1, invalid_token ("The access token provided is expired"): "The resource
        // SHOULD respond with the HTTP 401 (Unauthorized) status code".
        if (refused.status !== 401)
          c.fail(
            `${what}: refused with ${refused.status}, expected 401: RFC 6750 §3.1 says an expired token (invalid_token) SHOULD get 401 Unauthorized`,
            refused,
          );
      },
      { timeoutMs },
    );

    check(
      'EXPIRY-INVALID-TOKEN-ERROR',
      async (c) => {
        const t = await getTimeline(c);
        skipUnlessWaitable(c, t);
        if (!acceptedWhenNew(c, t)) return;
        const { refused } = await observeExpiry(c, t);
        c.restsOn(refused);
        const what = 'GET /users/me with an expired token';
        // Judged on any refusal with a Bearer challenge: its status is EXPIRY-REFUSED-401's, and
        // without a refusal or a challenge EXPIRY-REFUSED-AFTER has failed.
        if (!refused || !isRefusal(refused))
          return c.error(
            `cannot check the challenge: the expired token got ${refused ? refused.status : 'no refusal'} (see EXPIRY-REFUSED-AFTER)`,
            refused,
          );
        const challenge = challengeOf(refused, 'Bearer');
        if (!challenge)
          return c.error(
            `cannot check the challenge: the ${refused.status} for the expired token carries no Bearer challenge (see EXPIRY-REFUSED-AFTER)`,
            refused,
          );
        if (challenge.params.error !== 'invalid_token') {
          c.fail(
            `${what}: expected error="invalid_token" in the Bearer challenge, got ${challenge.params.error === undefined ? 'no error parameter' : JSON.stringify(challenge.params.error)}`,
            refused,
          );
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
          if (typeof body.access_token !== 'string')
            return c.fail('the fresh token response has no access_token string', res);
          const expiresIn = typeof body.expires_in === 'number' ? body.expires_in : Number.NaN;
          if ((await judgeTokenUse(c, { res, token: body.access_token, sentAt, expiresIn }, where)) !== 'inconclusive')
            return;
        }
        c.error(
          'cannot judge: twice the fresh token was refused only once its expires_in (less a second) had run out; the target answers too slowly for tokens this short-lived',
        );
      },
      { timeoutMs },
    );
  },
  { sequential: true },
);
