/**
 * versioning: every endpoint requires Accept-Version (spec §Versioning 1-2, §Errors): missing
 * gives 400, an invalid version 400 or 404, `1` succeeds. Each probe is otherwise a valid request.
 */
import type { CheckContext } from '../src/battery/check.js';
import { check, suite } from '../src/battery/check.js';
import { allEndpoints, noteMissingTenantEndpoints, requireWorking, validAnswer, type Endpoint } from '../src/battery/endpoints.js';
import { expectNoToken, expectStatus, expectStatusClass } from '../src/battery/expect.js';
import type { VersionHeader } from '../src/api/requests.js';
import type { HttpResponse } from '../src/http/client.js';

/** Clearly invalid versions: below the first, far beyond any plausible one, not a number. */
const INVALID_VERSIONS = ['0', '999999', 'banana'];

/**
 * Sends the variation to every endpoint that works with a valid request (spec §Versioning 2: a
 * 400 proves nothing on an endpoint that answers 400 to everything) and judges each answer.
 */
async function onEveryEndpoint(c: CheckContext, version: VersionHeader, purpose: string, judge: (endpoint: Endpoint, res: HttpResponse, what: string) => void): Promise<void> {
  noteMissingTenantEndpoints(c);
  for (const endpoint of allEndpoints(c)) {
    if (!(await requireWorking(c, endpoint))) continue;
    const res = await endpoint.send(c, version, purpose);
    judge(endpoint, res, `${endpoint.label} with ${purpose}`);
  }
}

/** Success: the token endpoint issues a token (200), a resource endpoint answers 2xx. */
function expectSuccess(c: CheckContext, endpoint: Endpoint, res: HttpResponse, what: string): void {
  if (endpoint.kind === 'token') expectStatus(c, res, [200], what);
  else expectStatusClass(c, res, 2, what);
}

suite('versioning', () => {
  check('VERSION-MISSING', (c) =>
    onEveryEndpoint(c, { acceptVersion: null }, 'no Accept-Version header', (endpoint, res, what) => {
      expectStatus(c, res, [400], what);
      if (endpoint.kind === 'token') expectNoToken(c, res, what);
    }),
  );

  check('VERSION-INVALID', async (c) => {
    for (const version of INVALID_VERSIONS) {
      await onEveryEndpoint(c, { acceptVersion: version }, `Accept-Version: ${version}`, (endpoint, res, what) => {
        expectStatus(c, res, [400, 404], what);
        if (endpoint.kind === 'token') expectNoToken(c, res, what);
      });
    }
  });

  // The valid request of every endpoint is sent with Accept-Version: 1: this check judges it.
  check('VERSION-ONE', async (c) => {
    noteMissingTenantEndpoints(c);
    for (const endpoint of allEndpoints(c)) expectSuccess(c, endpoint, await validAnswer(c, endpoint), `${endpoint.label} with Accept-Version: 1`);
  });

  check('VERSION-HEADER-CASE', (c) =>
    onEveryEndpoint(c, { acceptVersion: '1', acceptVersionName: 'ACCEPT-VERSION' }, 'the header spelled ACCEPT-VERSION: 1', (endpoint, res, what) => expectSuccess(c, endpoint, res, what)),
  );
});
