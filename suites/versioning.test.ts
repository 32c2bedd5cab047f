/**
 * versioning: every endpoint requires Accept-Version (spec §Versioning 1-2, §Errors): missing
 * gives 400, an invalid version 400 or 404, `1` succeeds. Each probe is otherwise a valid request.
 * Every check is applied to every endpoint: the token endpoint, /users/me, the legacy paths and
 * every tenant endpoint, each with its own outcome in the report.
 */
import type { CheckContext } from '../src/battery/check.js';
import { check, suite } from '../src/battery/check.js';
import {
  allEndpoints,
  noteMissingTenantEndpoints,
  notValidByDocument,
  onEach,
  probeWhenWorking,
  resourceEndpoints,
  succeeded,
  workingAnswer,
  type Endpoint,
} from '../src/battery/endpoints.js';
import { expectNoToken, expectStatus, expectStatusClass } from '../src/battery/expect.js';
import { VERSION_AND_AUTH, judgePrecedence } from '../src/battery/precedence.js';
import type { VersionHeader } from '../src/carrier/requests.js';
import type { HttpResponse } from '../src/http/client.js';

/** Clearly invalid versions: below the first, far beyond any plausible one, not a number. */
const INVALID_VERSIONS = ['0', '999999', 'banana'];

/**
 * Sends the variations to every endpoint that works with a valid request (spec §Versioning 2: a
 * 400 proves nothing on an endpoint that answers 400 to everything), all at once and beside the
 * valid request, and judges each answer, in order.
 */
async function onEveryEndpoint(
  c: CheckContext,
  versions: VersionHeader[],
  purpose: (v: VersionHeader) => string,
  judge: (e: CheckContext, endpoint: Endpoint, res: HttpResponse, what: string) => void,
): Promise<void> {
  noteMissingTenantEndpoints(c);
  await onEach(c, allEndpoints(c), async (e, endpoint) => {
    const answers = await probeWhenWorking(e, endpoint, () =>
      Promise.all(versions.map((version) => endpoint.send(e, version, purpose(version)))),
    );
    answers?.forEach((res, i) => {
      const version = versions[i] as VersionHeader;
      judge(e, endpoint, res, `${endpoint.label} with ${purpose(version)}`);
    });
  });
}

/** Success: the token endpoint issues a token (200), a resource endpoint answers 2xx. */
function expectSuccess(e: CheckContext, endpoint: Endpoint, res: HttpResponse, what: string): void {
  if (endpoint.kind === 'token') expectStatus(e, res, [200], what);
  else expectStatusClass(e, res, 2, what);
}

suite('versioning', () => {
  check('VERSION-MISSING', (c) =>
    onEveryEndpoint(
      c,
      [{ acceptVersion: null }],
      () => 'no Accept-Version header',
      (e, endpoint, res, what) => {
        expectStatus(e, res, [400], what);
        if (endpoint.kind === 'token') expectNoToken(e, res, what);
      },
    ),
  );

  check('VERSION-INVALID', (c) =>
    onEveryEndpoint(
      c,
      INVALID_VERSIONS.map((acceptVersion) => ({ acceptVersion })),
      (v) => `Accept-Version: ${v.acceptVersion ?? ''}`,
      (e, endpoint, res, what) => {
        expectStatus(e, res, [400, 404], what);
        if (endpoint.kind === 'token') expectNoToken(e, res, what);
      },
    ),
  );

  // The valid request of every endpoint is sent with Accept-Version: 1: this check judges it.
  check('VERSION-ONE', async (c) => {
    noteMissingTenantEndpoints(c);
    await onEach(c, allEndpoints(c), async (e, endpoint) => {
      const path = await endpoint.path(e);
      if (typeof path !== 'string') return e.skipEndpoint(path.unresolved);
      // At a token endpoint that refused HTTP Basic in a run that goes with client_secret_post,
      // the request that gets a token (TOKEN-ISSUE reports Basic): the version is judged here.
      const res = await workingAnswer(e, endpoint);
      const unproven = notValidByDocument(endpoint, res);
      if (unproven !== undefined) return e.skipEndpoint(unproven);
      if (!succeeded(endpoint, res)) expectSuccess(e, endpoint, res, `${endpoint.label} with Accept-Version: 1`);
    });
  });

  check('VERSION-HEADER-CASE', (c) =>
    onEveryEndpoint(
      c,
      [{ acceptVersion: '1', acceptVersionName: 'ACCEPT-VERSION' }],
      () => 'the header spelled ACCEPT-VERSION: 1',
      (e, endpoint, res, what) => expectSuccess(e, endpoint, res, what),
    ),
  );

  // Two defects at once (src/battery/precedence.ts): either rule's answer passes, and which the
  // target gave is recorded. The token endpoint has no bearer rule: only the resource endpoints.
  check('VERSION-AND-AUTH-MISSING', async (c) => {
    noteMissingTenantEndpoints(c);
    await onEach(c, resourceEndpoints(c), async (e, endpoint) => {
      const res = await probeWhenWorking(e, endpoint, () =>
        endpoint.send(e, { acceptVersion: null, auth: { kind: 'none' } }, VERSION_AND_AUTH.defect),
      );
      if (res) judgePrecedence(e, VERSION_AND_AUTH, res, `${endpoint.label} with ${VERSION_AND_AUTH.defect}`);
    });
  });
});
