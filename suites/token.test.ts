/**
 * token: POST {auth_url}/uaa/oauth2/token (spec §Obtain an access token, §Access token response,
 * §Authentication; RFC 6749 §4.4, §5.1, §5.2; RFC 7617).
 */
import { credentialsRefused, oauthErrorCode, readIssuedToken, requestToken } from '../src/carrier/requests.js';
import { oauthErrorSchema, schemaProblems, tokenResponseSchema } from '../src/carrier/schemas.js';
import { check, suite } from '../src/battery/check.js';
import { TOKEN_ENDPOINT, postAnswer, probeWhenWorking, validAnswer } from '../src/battery/endpoints.js';
import {
  carriesToken,
  describeStatus,
  expectJsonObject,
  expectNoToken,
  expectStatus,
  isRefusal,
} from '../src/battery/expect.js';
import { OTHER_GRANTS } from '../src/battery/other-grants.js';
import { lifetimeProblem } from '../src/carrier/token-lifetime.js';
import {
  BAD_TOKEN_REQUESTS,
  UNSUPPORTED_GRANT,
  badTokenRequest,
  credentialsRefusedNow,
  describeValue,
  expectClientRefused,
  expectErrorCode,
  expectFreshTokenWorks,
  expiresInProblem,
  issuedTokenBody,
  requestValidToken,
  workingClientAuth,
} from '../src/battery/token-response.js';
import { TransportError, type HttpResponse } from '../src/http/client.js';
import { needsFormEncoding } from '../src/core/basic-credentials.js';
import { isJsonMediaType } from '../src/http/media-type.js';
import {
  accessTokenProblem,
  noStoreProblem,
  pragmaProblem,
  tokenTypeCaseProblem,
  tokenTypeProblem,
} from '../src/carrier/token-judges.js';

suite('token', () => {
  // Judges the endpoint's answer to a valid request, which the other token checks examine too.
  check('TOKEN-ISSUE', async (c) => {
    const res = await validAnswer(c, TOKEN_ENDPOINT);
    // A run that goes with client_secret_post (the preflight found HTTP Basic refused, or
    // --client-auth post) knows whether the same credentials in the form body get a token: that
    // tells a deployment that ignores Basic from credentials that are wrong.
    const post =
      res.status >= 400 && res.status < 500 && c.target.clientAuth === 'post' ? await postAnswer(c) : undefined;
    if (post && readIssuedToken(post)) {
      const code = oauthErrorCode(res);
      c.exhibit(post);
      return c.fail(
        `refuses HTTP Basic, accepts client_secret_post: the token request with the client credentials in HTTP Basic, as spec §Obtain an access token and §Authentication 2 require, answered ${res.status}${code === undefined ? '' : ` ${code}`}, while the same credentials in the form body (client_secret_post, RFC 6749 §2.3.1) got a token; the rest of the run used client_secret_post`,
        res,
      );
    }
    if (!expectStatus(c, res, [200], 'token request with valid client credentials')) return;
    const body = expectJsonObject(c, res, 'token response');
    if (body) for (const problem of schemaProblems(tokenResponseSchema, body)) c.note(`token response: ${problem}`);
  });

  check('TOKEN-ACCESS-TOKEN', async (c) => {
    const issued = await issuedTokenBody(c);
    const problem = issued && accessTokenProblem(issued.body);
    if (issued && problem !== undefined) c.fail(problem, issued.res);
  });

  check('TOKEN-TYPE', async (c) => {
    const issued = await issuedTokenBody(c);
    if (!issued) return;
    const problem = tokenTypeProblem(issued.body);
    if (problem !== undefined) c.fail(problem, issued.res);
  });

  check('TOKEN-TYPE-CASE', async (c) => {
    const issued = await issuedTokenBody(c);
    if (!issued) return;
    const problem = tokenTypeCaseProblem(issued.body);
    if (problem !== undefined) c.fail(problem, issued.res);
  });

  check('TOKEN-EXPIRES-IN', async (c) => {
    const issued = await issuedTokenBody(c);
    if (!issued) return;
    // Judged as written in the body too: `3600.0` parses to 3600 (RFC 6749 §A.14: 1*DIGIT).
    const problem = expiresInProblem(issued.body, issued.res.text);
    if (problem !== undefined) c.fail(problem, issued.res);
  });

  check('TOKEN-SHORT-LIVED', async (c) => {
    const issued = await issuedTokenBody(c);
    if (!issued) return;
    const value = issued.body.expires_in;
    if (typeof value !== 'number' || !(value > 0))
      return c.error(
        `cannot judge the lifetime: expires_in is ${describeValue(value)}, not a positive number (see TOKEN-EXPIRES-IN)`,
        issued.res,
      );
    const problem = lifetimeProblem(value);
    if (problem !== undefined) c.fail(problem, issued.res);
  });

  // Cache headers are judged on a response that issued a token: RFC 6749 §5.1 asks them of the
  // successful response, and an error response proves nothing about it.
  check('TOKEN-NO-STORE', async (c) => {
    const issued = await issuedTokenBody(c);
    if (!issued) return;
    const problem = noStoreProblem(issued.res.header('cache-control'));
    if (problem !== undefined) c.fail(problem, issued.res);
  });

  check('TOKEN-PRAGMA', async (c) => {
    const issued = await issuedTokenBody(c);
    if (!issued) return;
    const problem = pragmaProblem(issued.res.header('pragma'));
    if (problem !== undefined) c.fail(problem, issued.res);
  });

  check('TOKEN-NO-REFRESH', async (c) => {
    const issued = await issuedTokenBody(c);
    if (issued && issued.body.refresh_token !== undefined)
      c.fail('expected no refresh_token for the client credentials grant, got one', issued.res);
  });

  check('TOKEN-WORKS', async (c) => {
    // A token of its own, used at once: the shared answer's token may be old by the time this runs.
    await expectFreshTokenWorks(c, TOKEN_ENDPOINT, 'the token endpoint');
  });

  check('TOKEN-CREDENTIALS-ENCODING', async (c) => {
    const { clientId, clientSecret } = c.credentials;
    if (!needsFormEncoding(clientId, clientSecret)) {
      c.skip(
        'the client credentials have no character that RFC 6749 §2.3.1 form-encoding changes (such as a space, + % : & =), so whether the server decodes them cannot be observed with them',
      );
    }
    const what = 'token request with the client credentials form-urlencoded before Base64 (RFC 6749 §2.3.1)';
    // With form-encoded credentials (what the run uses unless the server refused them), that
    // is the endpoint's valid request, made once for every check.
    const form =
      c.credentials.encoding === 'raw'
        ? await requestToken(c.send, c.target, { credentials: { ...c.credentials, encoding: 'form' }, purpose: what })
        : await validAnswer(c, TOKEN_ENDPOINT);
    if (form.status === 200) return; // accepted: what the token response holds is for the other checks
    if (!credentialsRefused(form))
      return c.error(
        `${what}: answered ${form.status}, which neither accepts nor refuses the credentials (see TOKEN-ISSUE)`,
        form,
      );
    const raw = await requestToken(c.send, c.target, {
      credentials: { ...c.credentials, encoding: 'raw' },
      purpose: 'token request with the client credentials as they are, not form-urlencoded',
    });
    if (raw.status === 200) {
      c.fail(
        `${what}: refused (${form.status}), while the same credentials unencoded get a token: the token endpoint does not form-decode the Basic user-id and password, so clients that follow RFC 6749 cannot use this secret (the rest of the run used the unencoded credentials)`,
        form,
      );
    } else {
      c.error(
        `neither spelling of the client credentials gets a token (form-urlencoded: ${form.status}, unencoded: ${raw.status}); see TOKEN-ISSUE`,
        form,
      );
    }
  });

  // The refusals below are evidence only where the same request with the right credentials is
  // accepted: against a token endpoint that refuses everything they would pass vacuously. Each
  // bad request is sent once and judged by its own check and by TOKEN-ERROR-FORMAT.
  check('TOKEN-WRONG-SECRET', async (c) => {
    const res = await probeWhenWorking(c, TOKEN_ENDPOINT, () => badTokenRequest(c, 'wrong-secret'), 'basic');
    if (res) expectClientRefused(c, res, 'token request with a wrong client secret');
  });

  check('TOKEN-UNKNOWN-CLIENT', async (c) => {
    const res = await probeWhenWorking(c, TOKEN_ENDPOINT, () => badTokenRequest(c, 'unknown-client'), 'basic');
    if (res) expectClientRefused(c, res, 'token request with an unknown client id');
  });

  check('TOKEN-NO-CREDENTIALS', async (c) => {
    const res = await probeWhenWorking(c, TOKEN_ENDPOINT, () => badTokenRequest(c, 'no-credentials'), 'basic');
    if (!res) return;
    const what = 'token request without client credentials';
    // RFC 6749 §5.2: 400, or 401 with a challenge of a scheme the server supports.
    const refused = expectStatus(c, res, [400, 401], what);
    expectNoToken(c, res, what);
    if (!refused) return;
    // RFC 6749 §5.2 gives "no client authentication included" as an example of invalid_client,
    // and defines invalid_request for a request missing a required part: either code passes.
    expectErrorCode(c, res, ['invalid_client', 'invalid_request'], what);
    if (res.status === 401 && res.headerLines('www-authenticate').length === 0)
      c.fail(`${what}: a 401 must carry a WWW-Authenticate challenge, got none`, res);
  });

  check('TOKEN-GRANT-MISSING', async (c) => {
    const res = await probeWhenWorking(c, TOKEN_ENDPOINT, () => badTokenRequest(c, 'no-grant-type'));
    if (!res) return;
    const what = 'token request without grant_type';
    if (await credentialsRefusedNow(c, res, what)) return;
    const refused = expectStatus(c, res, [400], what);
    expectNoToken(c, res, what);
    if (refused) expectErrorCode(c, res, ['invalid_request'], what);
  });

  check('TOKEN-GRANT-UNSUPPORTED', async (c) => {
    const res = await probeWhenWorking(c, TOKEN_ENDPOINT, () => badTokenRequest(c, 'unsupported-grant-type'));
    if (!res) return;
    const what = `token request with grant_type=${UNSUPPORTED_GRANT}`;
    if (await credentialsRefusedNow(c, res, what)) return;
    const refused = expectStatus(c, res, [400], what);
    expectNoToken(c, res, what);
    if (refused) expectErrorCode(c, res, ['unsupported_grant_type'], what);
  });

  // spec §Obtain an access token: grant_type "must be client_credentials". Each grant that
  // libraries ship, with made-up material no conformant server honours: a token, or an answer
  // that is no refusal, fails; any 4xx passes, whatever its code (the catalogue's notes say why).
  check('TOKEN-GRANT-OTHERS', async (c) => {
    const requests = async () => {
      const auth = await workingClientAuth(c);
      return Promise.allSettled(
        OTHER_GRANTS.map((grant) =>
          requestToken(c.send, c.target, {
            credentials: c.credentials,
            ...auth,
            grantType: grant.grantType,
            extraParams: grant.params(c.credentials.clientId, c.target),
            purpose: `token request with grant_type=${grant.grantType} and ${grant.label}`,
          }),
        ),
      );
    };
    const answers = await probeWhenWorking(c, TOKEN_ENDPOINT, requests);
    if (!answers) return;
    // A refusal of the client is evidence only while the configured credentials work: asked once.
    let control: Promise<HttpResponse> | undefined;
    for (const [i, settled] of answers.entries()) {
      const grant = OTHER_GRANTS[i];
      if (!grant) continue;
      const what = `token request with grant_type=${grant.grantType} and ${grant.label}`;
      if (settled.status === 'rejected') {
        // A 503 that persisted, a dropped connection: this grant was not judged, the others are.
        if (settled.reason instanceof TransportError)
          c.error(`${what}: not judged: ${settled.reason.message}`, settled.reason);
        else throw settled.reason;
        continue;
      }
      const res = settled.value;
      if (carriesToken(res)) {
        c.fail(
          `${what}: answered ${res.status} with an access token: grant_type must be client_credentials (spec §Obtain an access token), and no conformant server issues a token for ${grant.label}`,
          res,
        );
        continue;
      }
      if (!isRefusal(res)) {
        c.fail(`${what}: expected a refusal (a 4xx status, RFC 6749 §5.2), got ${describeStatus(res)}`, res);
        continue;
      }
      if (credentialsRefused(res)) {
        const now = await (control ??= requestValidToken(c));
        if (now.status !== 200)
          c.error(
            `${what}: refused (${res.status}), but so is a valid token request now (${now.status}): the configured credentials are refused, so nothing about this rule was learnt (see TOKEN-ISSUE)`,
            res,
          );
      }
    }
  });

  check('TOKEN-ERROR-FORMAT', async (c) => {
    const probes = ['wrong-secret', 'no-credentials', 'no-grant-type', 'unsupported-grant-type'] as const;
    const answers = await probeWhenWorking(c, TOKEN_ENDPOINT, () =>
      Promise.all(probes.map((p) => badTokenRequest(c, p))),
    );
    if (!answers) return;
    let judged = 0;
    probes.forEach((probe, i) => {
      const res = answers[i] as HttpResponse;
      if (res.status < 400) return; // refusing at all is the other checks' business
      judged += 1;
      const what = `error response to a token request with ${BAD_TOKEN_REQUESTS[probe]}`;
      const type = res.header('content-type');
      if (!isJsonMediaType(type))
        return c.fail(
          `${what}: expected Content-Type application/json, got ${type === undefined ? 'none' : JSON.stringify(type)}`,
          res,
        );
      const body = expectJsonObject(c, res, what);
      if (!body) return;
      const problems = schemaProblems(oauthErrorSchema, body);
      if (problems.length > 0) c.fail(`${what}: not an RFC 6749 §5.2 error object: ${problems.join('; ')}`, res);
    });
    if (judged === 0)
      c.error(
        'no error response to judge: the token endpoint refused none of the four bad requests (see TOKEN-WRONG-SECRET, TOKEN-NO-CREDENTIALS, TOKEN-GRANT-MISSING, TOKEN-GRANT-UNSUPPORTED)',
      );
  });

  check('TOKEN-EXTRA-PARAM', async (c) => {
    const what = 'token request with an unknown extra parameter';
    const res = await probeWhenWorking(c, TOKEN_ENDPOINT, async () =>
      requestToken(c.send, c.target, {
        credentials: c.credentials,
        ...(await workingClientAuth(c)),
        extraParams: { carrier_conformance_probe: 'ignore-me' },
        purpose: what,
      }),
    );
    if (!res || (await credentialsRefusedNow(c, res, what))) return;
    if (expectStatus(c, res, [200], what)) expectJsonObject(c, res, what);
  });

  check('TOKEN-BASIC-CASE', async (c) => {
    const what = 'token request with the scheme spelled "basic"';
    const res = await probeWhenWorking(
      c,
      TOKEN_ENDPOINT,
      () => requestToken(c.send, c.target, { credentials: c.credentials, basicScheme: 'basic', purpose: what }),
      'basic',
    );
    if (res) expectStatus(c, res, [200], what);
  });
});
