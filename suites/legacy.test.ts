/**
 * legacy: `POST /uaa/oauth/token` and `GET /uaa/userinfo` are still accepted; the gateway
 * rewrites them to the current paths (spec §Obtain an access token, §Get the current user).
 * Versioning and auth on these paths are covered by those suites, which include them.
 */
import { isDeepStrictEqual } from 'node:util';
import { LEGACY_TOKEN_PATH, LEGACY_USER_PATH, USER_PATH } from '../src/api/paths.js';
import { check, suite } from '../src/battery/check.js';
import { expectStatus } from '../src/battery/expect.js';
import { expectClientRefused, expectTokenWorks, issuedTokenBody, requestValidToken, tokenFieldProblems, wrongSecret } from '../src/battery/token-response.js';
import { requestUser, userBody } from '../src/battery/user.js';

suite('legacy', () => {
  check('LEGACY-TOKEN', async (c) => {
    const issued = await issuedTokenBody(c, LEGACY_TOKEN_PATH, false);
    if (!issued) return;
    for (const problem of tokenFieldProblems(issued.body)) c.fail(`POST ${LEGACY_TOKEN_PATH}: ${problem}`, issued.res);
  });

  check('LEGACY-TOKEN-WORKS', async (c) => {
    const issued = await issuedTokenBody(c, LEGACY_TOKEN_PATH);
    if (!issued) return;
    if (typeof issued.body.access_token !== 'string') return c.error(`cannot check: POST ${LEGACY_TOKEN_PATH} gave no access_token string (see LEGACY-TOKEN)`, issued.res);
    await expectTokenWorks(c, issued.body.access_token, LEGACY_TOKEN_PATH);
  });

  check('LEGACY-TOKEN-REFUSES', (c) => expectClientRefused(c, wrongSecret(c.credentials), LEGACY_TOKEN_PATH, `POST ${LEGACY_TOKEN_PATH} with a wrong client secret`));

  check('LEGACY-USERINFO', async (c) => {
    const current = await userBody(c, USER_PATH);
    if (!current) return;
    const legacy = await requestUser(c, LEGACY_USER_PATH);
    if (!expectStatus(c, legacy, [200], `GET ${LEGACY_USER_PATH}`)) return;
    const parsed = legacy.json();
    if (!parsed.ok) return c.fail(`GET ${LEGACY_USER_PATH}: ${parsed.error}`, legacy);
    if (!isDeepStrictEqual(parsed.value, current.user)) {
      c.fail(`GET ${LEGACY_USER_PATH} returned ${JSON.stringify(parsed.value)}, not the User of ${USER_PATH}: ${JSON.stringify(current.user)}`, legacy);
    }
  });

  check('LEGACY-NO-REDIRECT', async (c) => {
    const probes = [await requestValidToken(c, LEGACY_TOKEN_PATH), await requestUser(c, LEGACY_USER_PATH)];
    for (const res of probes) {
      if (res.status >= 300 && res.status < 400) {
        c.fail(`${new URL(res.url).pathname}: expected the gateway to serve it directly, got a ${res.status} redirect to ${res.header('location') ?? 'nowhere'}`, res);
      }
    }
  });
});
