/**
 * writes: the header and tenant rules on every write operation under /tenants/{tenantId}/ of the
 * OpenAPI document (spec §Endpoints: "Every endpoint requires the Accept-Version header. Every
 * endpoint except the token endpoint requires the Authorization header"; §Tenant-scoped
 * endpoints), judged by requests that never carry content (src/battery/writes.ts: each announces
 * it with Expect: 100-continue, RFC 9110 §10.1.1, and the connection closes if the server asks).
 */
import { randomBytes } from 'node:crypto';
import { check, suite } from '../src/battery/check.js';
import { challengeOf, expectChallenge, expectRefusal, expectStatus, expectStatusClass } from '../src/battery/expect.js';
import {
  TENANT_AND_AUTH,
  VERSION_AND_AUTH,
  choiceOf,
  judgePrecedence,
  observeChoice,
  type PrecedencePair,
} from '../src/battery/precedence.js';
import { onEveryWrite, type WriteProbe, type WriteRule } from '../src/battery/writes.js';
import type { HttpResponse } from '../src/http/client.js';

/** A refusal with a Bearer challenge (RFC 6750 §3: MUST, whatever the status); a 401 without one fails outright. */
const REFUSED_WITH_CHALLENGE: WriteRule = {
  holds: (res: HttpResponse) => res.status >= 400 && res.status < 500 && challengeOf(res, 'Bearer') !== undefined,
  expected: 'a refusal (4xx) with a Bearer challenge (RFC 6750 §3)',
  certain: (res: HttpResponse) => res.status === 401,
  fail: (e, res, what) => {
    if (expectRefusal(e, res, what)) expectChallenge(e, res, 'Bearer', what, { always: true });
  },
};

const statusIn = (statuses: readonly number[], expected: string): WriteRule => ({
  holds: (res) => statuses.includes(res.status),
  expected,
  fail: (e, res, what) => void expectStatus(e, res, statuses, what),
});

/** Either rule's answer, for two defects at once (src/battery/precedence.ts); a 401 is authentication's, whatever else is wrong. */
const eitherRule = (pair: PrecedencePair): WriteRule => ({
  holds: (res) => choiceOf(pair, res) !== undefined,
  expected: `${pair.otherExpected}, or a refusal with a Bearer challenge (RFC 6750 §3)`,
  certain: (res) => res.status === 401,
  fail: (e, res, what) => void judgePrecedence(e, pair, res, what),
  observe: (e, res) => observeChoice(e, pair, res),
});

suite('writes', () => {
  check('WRITE-VERSION-MISSING', (c) =>
    onEveryWrite(
      c,
      () => [{ variation: { acceptVersion: null }, label: 'no Accept-Version header' }],
      statusIn([400], '400'),
    ),
  );

  check('WRITE-VERSION-INVALID', (c) =>
    onEveryWrite(
      c,
      () =>
        ['0', '999999', 'banana'].map(
          (v): WriteProbe => ({ variation: { acceptVersion: v }, label: `Accept-Version: ${v}` }),
        ),
      statusIn([400, 404], '400 or 404'),
    ),
  );

  check('WRITE-AUTH-MISSING', (c) =>
    onEveryWrite(
      c,
      () => [{ variation: { auth: { kind: 'none' } }, label: 'no Authorization header' }],
      REFUSED_WITH_CHALLENGE,
    ),
  );

  check('WRITE-AUTH-INVALID', (c) =>
    onEveryWrite(
      c,
      () => [
        { variation: { auth: { kind: 'literal', value: 'Bearer %not a token%' } }, label: 'a malformed bearer token' },
        {
          variation: {
            auth: { kind: 'literal', value: `Bearer carrier-conformance-unknown-${randomBytes(12).toString('hex')}` },
          },
          label: 'an unknown access token',
        },
      ],
      REFUSED_WITH_CHALLENGE,
    ),
  );

  check('WRITE-TENANT-UNKNOWN', (c) =>
    onEveryWrite(
      c,
      () => [{ variation: { tenantId: c.settings.unknownTenantId }, label: 'a tenant id that names no tenant' }],
      statusIn([403, 404], '403 or 404'),
    ),
  );

  check('WRITE-TENANT-INVALID-ID', (c) =>
    onEveryWrite(c, () => [{ variation: { tenantId: 'not-a-uuid' }, label: 'a tenant id that is not a UUID' }], {
      holds: (res) => res.status >= 400 && res.status < 500,
      expected: 'a 4xx',
      fail: (e, res, what) => void expectStatusClass(e, res, 4, what),
    }),
  );

  check('WRITE-VERSION-AND-AUTH-MISSING', (c) =>
    onEveryWrite(
      c,
      () => [{ variation: { acceptVersion: null, auth: { kind: 'none' } }, label: VERSION_AND_AUTH.defect }],
      eitherRule(VERSION_AND_AUTH),
    ),
  );

  check('WRITE-TENANT-UNKNOWN-NO-AUTH', (c) =>
    onEveryWrite(
      c,
      () => [
        { variation: { tenantId: c.settings.unknownTenantId, auth: { kind: 'none' } }, label: TENANT_AND_AUTH.defect },
      ],
      eitherRule(TENANT_AND_AUTH),
    ),
  );
});
