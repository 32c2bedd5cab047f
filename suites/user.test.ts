/**
 * user: GET {base_url}/users/me returns the User (spec §Get the current user, §User, §Generic
 * rules for optional fields). The spec's table calls the tenants array "the service"; its field
 * name is `tenants`.
 */
import { isDeepStrictEqual } from 'node:util';
import { userFieldProblems, userSchemaProblems } from '../src/carrier/user-judges.js';
import { check, suite } from '../src/battery/check.js';
import { expectJsonObject, expectStatus } from '../src/battery/expect.js';
import { describeValue } from '../src/battery/token-response.js';
import { userBody } from '../src/battery/user.js';
import { USER_ENDPOINT, validAnswer } from '../src/battery/endpoints.js';

suite('user', () => {
  check('USER-OK', async (c) => {
    const res = await validAnswer(c, USER_ENDPOINT);
    if (expectStatus(c, res, [200], 'GET /users/me with a valid token')) expectJsonObject(c, res, 'GET /users/me');
  });

  check('USER-SCHEMA', async (c) => {
    const got = await userBody(c);
    if (!got) return;
    for (const problem of userSchemaProblems(got.user)) c.fail(problem, got.res);
  });

  check('USER-FIELDS-PRESENT', async (c) => {
    const got = await userBody(c);
    if (!got) return;
    for (const problem of userFieldProblems(got.user)) c.fail(problem, got.res);
  });

  check('USER-EXPECTED-VALUES', async (c) => {
    const expected = c.settings.expectations?.user;
    if (!expected) return c.skip('no --expectations file with a "user" object was given');
    const got = await userBody(c);
    if (!got) return;
    const { user, res } = got;
    for (const [field, want] of Object.entries(expected)) {
      if (field === 'tenants') continue;
      if (!isDeepStrictEqual(user[field], want))
        c.fail(`User.${field}: expected ${describeValue(want)}, got ${describeValue(user[field])}`, res);
    }
    const actualTenants = Array.isArray(user.tenants) ? (user.tenants as Record<string, unknown>[]) : [];
    for (const wantTenant of expected.tenants ?? []) {
      const tenant = actualTenants.find((t) => t !== null && typeof t === 'object' && t.id === wantTenant.id);
      if (!tenant) {
        c.fail(`User.tenants: expected a tenant with id ${wantTenant.id}, got none`, res);
        continue;
      }
      for (const [field, want] of Object.entries(wantTenant)) {
        if (!isDeepStrictEqual(tenant[field], want))
          c.fail(
            `User.tenants[id=${wantTenant.id}].${field}: expected ${describeValue(want)}, got ${describeValue(tenant[field])}`,
            res,
          );
      }
    }
  });
});
