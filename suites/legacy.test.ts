/**
 * legacy: `POST /uaa/oauth/token` and `GET /uaa/userinfo` are still accepted; the gateway
 * rewrites them to the current paths (spec §Obtain an access token, §Get the current user).
 * Versioning and auth on these paths are covered by those suites, which include them.
 */
import { isDeepStrictEqual } from 'node:util';
import { LEGACY_TOKEN_PATH, LEGACY_USER_PATH, USER_PATH } from '../src/carrier/paths.js';
import { check, suite } from '../src/battery/check.js';
import {
  LEGACY_TOKEN_ENDPOINT,
  LEGACY_USER_ENDPOINT,
  USER_ENDPOINT,
  basicRefusedAt,
  probeWhenWorking,
  requireWorking,
  validAnswer,
  workingAnswer,
} from '../src/battery/endpoints.js';
import { expectStatus } from '../src/battery/expect.js';
import {
  badTokenRequest,
  expectClientRefused,
  expectFreshTokenWorks,
  judgeTokenResponse,
  notePostAnswer,
  tokenFieldProblems,
} from '../src/battery/token-response.js';
import { userBody } from '../src/battery/user.js';

suite('legacy', () => {
  check('LEGACY-TOKEN', async (c) => {
    // HTTP Basic refused on both paths is TOKEN-ISSUE's finding, once: here the path is judged
    // on the request that gets a token (basicRefusedAt), as the current path's token response is.
    const res = await workingAnswer(c, LEGACY_TOKEN_ENDPOINT);
    if (await basicRefusedAt(c, LEGACY_TOKEN_ENDPOINT)) notePostAnswer(c, LEGACY_TOKEN_ENDPOINT);
    const body = judgeTokenResponse(c, res, `POST ${LEGACY_TOKEN_PATH} with valid client credentials`);
    if (!body) return;
    for (const problem of tokenFieldProblems(body, res.text)) c.fail(`POST ${LEGACY_TOKEN_PATH}: ${problem}`, res);
  });

  check('LEGACY-TOKEN-WORKS', async (c) => {
    // Only evidence about the legacy path where tokens work on /users/me at all (TOKEN-WORKS).
    if (!(await requireWorking(c, USER_ENDPOINT))) return;
    await expectFreshTokenWorks(c, LEGACY_TOKEN_ENDPOINT, LEGACY_TOKEN_PATH);
  });

  check('LEGACY-TOKEN-REFUSES', async (c) => {
    // A refusal of a wrong secret is evidence only where the right one is accepted (LEGACY-TOKEN).
    const res = await probeWhenWorking(
      c,
      LEGACY_TOKEN_ENDPOINT,
      () => badTokenRequest(c, 'wrong-secret', LEGACY_TOKEN_PATH),
      'basic',
    );
    if (res) expectClientRefused(c, res, `POST ${LEGACY_TOKEN_PATH} with a wrong client secret`);
  });

  check('LEGACY-USERINFO', async (c) => {
    // Both asked at once; the legacy answer is judged only against a User from the current path.
    const asked = validAnswer(c, LEGACY_USER_ENDPOINT);
    asked.catch(() => undefined);
    const current = await userBody(c);
    if (!current) return;
    const legacy = await asked;
    if (!expectStatus(c, legacy, [200], `GET ${LEGACY_USER_PATH}`)) return;
    const parsed = legacy.json();
    if (!parsed.ok) return c.fail(`GET ${LEGACY_USER_PATH}: ${parsed.error}`, legacy);
    if (!isDeepStrictEqual(parsed.value, current.user)) {
      c.fail(
        `GET ${LEGACY_USER_PATH} returned ${JSON.stringify(parsed.value)}, not the User of ${USER_PATH}: ${JSON.stringify(current.user)}`,
        legacy,
      );
    }
  });

  check('LEGACY-NO-REDIRECT', async (c) => {
    const probes = await Promise.all([validAnswer(c, LEGACY_TOKEN_ENDPOINT), validAnswer(c, LEGACY_USER_ENDPOINT)]);
    for (const res of probes) {
      if (res.status >= 300 && res.status < 400) {
        c.fail(
          `${new URL(res.url).pathname}: expected the gateway to serve it directly, got a ${res.status} redirect to ${res.header('location') ?? 'nowhere'}`,
          res,
        );
      }
    }
  });
});
