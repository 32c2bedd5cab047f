import type { Check } from './types.js';

/**
 * The check catalogue: every check the battery runs, as data.
 *
 * `refs` cite the spec (`../shared/spec/carrier-platform-api.md`, vendored as
 * `docs/spec/carrier-platform-api.md`) by section heading and item number, or an RFC it names.
 * Where the spec is silent the checks accept every reasonable behaviour and flag only what is
 * clearly wrong (a 5xx for a client error, data served without authorization); the `notes`
 * say where a check is deliberately more lenient than a literal reading would be.
 *
 * Ids are stable: reports, baselines and `--check` refer to them. Never reuse an id for another rule.
 */
/** How every write check probes (src/battery/writes.ts, docs/writes.md). */
const WRITE_NOTES =
  "Every write operation of --openapi under the tenant path is probed with one defect at a time, and by default never with content: the request announces its content (Expect: 100-continue, a Content-Length) and the harness closes the connection if the server asks for it (100 Continue), which is then 'not proven'. Path parameters are ids made up for the run; a DELETE without one is not probed. Each probe is compared with its control, the same request with valid headers: an answer the control gets too is not proven (the made-up id's 404); another is the defect's, passed when the rule allows it, failed when not. A success, a redirect, a 5xx, or a 401 without a Bearer challenge fails whatever the control got. --write-probes invalid-content (with --allow-writes) sends the probes the server asked the content of again, with content that is not JSON. docs/writes.md says what each web server and framework does with Expect.";

/** Why the checks of two defects at once accept either rule's answer, and what they record. */
const PRECEDENCE_NOTES =
  "Each rule alone says what the answer is; which a server checks first, the spec does not say. Either rule's answer passes; an answer neither rule allows (a 2xx, a redirect, a 5xx, a 401 without a Bearer challenge, another status) fails. The rule the target answered for is recorded on each endpoint (report.json checks[].endpoints[].observed) and summed up in a note, so that a platform can pin it in its certification profile (precedence).";

export const CHECKS: readonly Check[] = [
  // ── token: POST {auth_url}/uaa/oauth2/token ─────────────────────────────────────────────
  {
    id: 'TOKEN-ISSUE',
    suite: 'token',
    level: 'MUST',
    title: 'Valid client credentials get 200 and a JSON access token response',
    refs: ['spec §Obtain an access token', 'RFC 6749 §4.4.3', 'RFC 6749 §5.1'],
    notes:
      'The credentials go in HTTP Basic (spec §Obtain an access token: Credentials; §Authentication 2). When Basic gets no token, ' +
      'the run asks once more with the same credentials in the form body (client_secret_post, RFC 6749 §2.3.1); if that gets one, ' +
      'this check fails as "refuses HTTP Basic, accepts client_secret_post" (the FastAPI OAuth2PasswordRequestForm pattern), and the ' +
      'run goes on with client_secret_post, saying so: the token response and the token are judged on that answer, and the checks ' +
      'that vary the Basic request err, pointing here.',
  },
  {
    id: 'TOKEN-ACCESS-TOKEN',
    suite: 'token',
    level: 'MUST',
    title: 'access_token is a non-empty string',
    refs: ['spec §Access token response', 'RFC 6749 §5.1'],
  },
  {
    id: 'TOKEN-TYPE',
    suite: 'token',
    level: 'MUST',
    title: 'token_type is bearer (compared case-insensitively)',
    refs: ['spec §Access token response', 'RFC 6749 §5.1', 'RFC 6749 §7.1'],
  },
  {
    id: 'TOKEN-TYPE-CASE',
    suite: 'token',
    level: 'SHOULD',
    title: 'token_type is spelled exactly "bearer", as the spec documents it',
    refs: ['spec §Access token response', 'spec §Authentication 3'],
    notes: 'RFC 6749 §5.1 makes the value case-insensitive, so another spelling is only a warning.',
  },
  {
    id: 'TOKEN-EXPIRES-IN',
    suite: 'token',
    level: 'MUST',
    title:
      'expires_in is a positive integer written as digits (a JSON number, not a string, a fraction, 3600.0 or 3.6e3)',
    refs: ['spec §Access token response', 'spec §Authentication 3', 'RFC 6749 §5.1', 'RFC 6749 §A.14'],
    notes:
      'RFC 6749 §5.1 makes expires_in only RECOMMENDED; the spec makes it part of every token response ("The response carries token_type of bearer and expires_in in seconds", spec §Authentication 3), hence MUST. ' +
      'The number is judged as written in the body, not as JSON.parse reads it: the spec says integer, RFC 6749 §A.14 gives its syntax as ' +
      "`expires-in = 1*DIGIT`, and `3600.0` (Python's timedelta.total_seconds()) or `3.6e3`, which JSON.parse reads as 3600, " +
      "are refused by typed clients (Go's encoding/json into an int).",
  },
  {
    id: 'TOKEN-SHORT-LIVED',
    suite: 'token',
    level: 'SHOULD',
    title: 'expires_in declares a short-lived token: a day (86400 s) at most',
    refs: ['spec §What the service does 1', 'spec §Access token response', 'RFC 6819 §5.1.5.3'],
    notes:
      'spec §What the service does 1: clients obtain "a short-lived bearer access token"; it gives no number, so the bound is the longest ' +
      'lifetime widely used servers issue by default and most allow at all, a day (Keycloak and Spring Authorization Server 5 min, ' +
      'oidc-provider 10 min, oauth2-server, Okta, Entra ID, Cognito, Google 1 h, UAA 12 h, Auth0 1 day): a SHOULD, a warning only. ' +
      'The usual cause is a lifetime in milliseconds (3600000 for an hour), which the warning names when the value is a whole number of ' +
      'minutes in milliseconds: every such lifetime of 2 min or more lands past a day (a 1 min one, 60000 s, does not). Such a ' +
      'token cannot be waited out, so the EXPIRY-* checks after expiry are skipped.',
  },
  {
    id: 'TOKEN-NO-STORE',
    suite: 'token',
    level: 'MUST',
    title: 'The token response carries Cache-Control: no-store',
    refs: ['RFC 6749 §5.1'],
  },
  {
    id: 'TOKEN-PRAGMA',
    suite: 'token',
    level: 'SHOULD',
    title: 'The token response carries Pragma: no-cache',
    refs: ['RFC 6749 §5.1'],
    notes: 'RFC 6749 says MUST, but RFC 9111 §5.4 has since deprecated Pragma; a warning only.',
  },
  {
    id: 'TOKEN-NO-REFRESH',
    suite: 'token',
    level: 'SHOULD',
    title: 'No refresh_token is issued for the client credentials grant',
    refs: ['RFC 6749 §4.4.3'],
  },
  {
    id: 'TOKEN-WORKS',
    suite: 'token',
    level: 'MUST',
    title: 'The issued token is accepted by GET /users/me',
    refs: ['spec §Authentication 4', 'spec §Get the current user'],
  },
  {
    id: 'TOKEN-WRONG-SECRET',
    suite: 'token',
    level: 'MUST',
    title: 'A wrong client secret is refused with 401 invalid_client, a challenge and no token',
    refs: ['spec §Authentication 2', 'RFC 6749 §5.2'],
    notes:
      'RFC 6749 §5.2, invalid_client ("Client authentication failed"): "If the client attempted to authenticate via the "Authorization" ' +
      'request header field, the authorization server MUST respond with an HTTP 401 (Unauthorized) status code and include the ' +
      '"WWW-Authenticate" response header field matching the authentication scheme used by the client" (Basic, spec §Authentication 2).',
  },
  {
    id: 'TOKEN-UNKNOWN-CLIENT',
    suite: 'token',
    level: 'MUST',
    title: 'An unknown client id is refused with 401 invalid_client, a challenge and no token',
    refs: ['spec §Authentication 2', 'RFC 6749 §5.2'],
    notes:
      'RFC 6749 §5.2 names "unknown client" as an invalid_client case; sent with Basic, it MUST get 401 and a Basic challenge, as TOKEN-WRONG-SECRET.',
  },
  {
    id: 'TOKEN-NO-CREDENTIALS',
    suite: 'token',
    level: 'MUST',
    title:
      'A token request without client credentials is refused with invalid_client (or invalid_request) and no token',
    refs: ['spec §Obtain an access token', 'RFC 6749 §5.2'],
    notes:
      'RFC 6749 §5.2 lets the server answer 400 or 401 when no client authentication was attempted; ' +
      'both pass, and a 401 must carry a WWW-Authenticate challenge (RFC 9110 §11.6.1). The error code may be ' +
      'invalid_client, which §5.2 illustrates with "no client authentication included", or invalid_request, ' +
      'which §5.2 defines for a request missing a required part and which oidc-provider (OpenID Certified) sends; ' +
      '§5.2\'s list is examples ("e.g."), so neither reading can be failed.',
  },
  {
    id: 'TOKEN-GRANT-MISSING',
    suite: 'token',
    level: 'MUST',
    title: 'A token request without grant_type gets 400 invalid_request and no token',
    refs: ['spec §Obtain an access token', 'RFC 6749 §4.4.2', 'RFC 6749 §5.2'],
  },
  {
    id: 'TOKEN-GRANT-UNSUPPORTED',
    suite: 'token',
    level: 'MUST',
    title: 'An unsupported grant_type gets 400 unsupported_grant_type and no token',
    refs: ['spec §Obtain an access token', 'RFC 6749 §5.2'],
    notes:
      "The probe uses a made-up grant type URN, so no server can support it. The grants that servers do ship are TOKEN-GRANT-OTHERS's.",
  },
  {
    id: 'TOKEN-GRANT-OTHERS',
    suite: 'token',
    level: 'MUST',
    title:
      'The grants OAuth libraries ship besides client_credentials (password, authorization_code, refresh_token, JWT bearer, device code, token exchange) get a 4xx and no token',
    refs: ['spec §Obtain an access token', 'spec §Authentication 1', 'RFC 6749 §5.2'],
    notes:
      'spec §Obtain an access token: grant_type "must be `client_credentials`". Each grant is sent with made-up but well-formed material ' +
      '(a random username and password, authorization code with redirect_uri and PKCE verifier, refresh token, JWT assertion signed ' +
      'with a random key, device code, subject token), which no conformant server honours whether or not it supports the grant ' +
      '(RFC 6749 §4.1.3, §4.3.2, §6; RFC 7523 §3; RFC 8628 §3.5; RFC 8693 §2.2.2). It fails on a token, or on an answer that is no ' +
      'refusal (2xx, 3xx, 5xx). Any 4xx passes, whatever its error code: which RFC 6749 §5.2 code is true depends on the order a server ' +
      'validates in, and each can be. unsupported_grant_type (the grant is unknown), unauthorized_client (known, not for this client: ' +
      "the vendors' authorization code flow of spec §Authentication 6 may well be served here), invalid_grant (the material checked " +
      'first: an unknown code, user or assertion), invalid_request (a parameter checked first: redirect_uri, code_verifier), ' +
      'invalid_scope (no scope and no default, RFC 6749 §3.3), invalid_client with 401 (some servers answer a client not allowed the ' +
      "grant so), and RFC 8628 §3.5's codes for the device code. The format of error responses is TOKEN-ERROR-FORMAT's. A 503 that " +
      'persists after the retries is an error, as everywhere (the target unavailable proves nothing).',
  },
  {
    id: 'TOKEN-ERROR-FORMAT',
    suite: 'token',
    level: 'MUST',
    title: 'Token error responses are JSON objects with a string error code',
    refs: ['RFC 6749 §5.2'],
  },
  {
    id: 'TOKEN-EXTRA-PARAM',
    suite: 'token',
    level: 'MUST',
    title: 'An unknown extra request parameter is ignored',
    refs: ['RFC 6749 §3.2'],
  },
  {
    id: 'TOKEN-CREDENTIALS-ENCODING',
    suite: 'token',
    level: 'SHOULD',
    title: 'Client credentials form-urlencoded before Base64 are accepted (a secret with space + % : & = works)',
    refs: ['RFC 6749 §2.3.1', 'RFC 7617 §2'],
    notes:
      'RFC 6749 §2.3.1 has the client form-urlencode client_id and client_secret (Appendix B) before using them as the Basic ' +
      'user-id and password, so a server must decode them; OpenID Certified servers (oidc-provider) do, many others ' +
      '(@node-oauth/oauth2-server) do not. SHOULD, not MUST: the spec itself names only RFC 7617 for the token ' +
      'request, which a server that does not decode follows to the letter, and with secrets of unreserved ' +
      'characters the two readings never differ. When only the unencoded credentials are accepted, the rest ' +
      'of the battery runs with them. Skipped when the credentials contain nothing that form-encoding changes.',
  },
  {
    id: 'TOKEN-BASIC-CASE',
    suite: 'token',
    level: 'SHOULD',
    title: 'The Basic scheme name is accepted in lower case',
    refs: ['RFC 7617 §2', 'RFC 9110 §11.1'],
    notes: 'Authentication scheme names are case-insensitive; clients that send "basic" exist.',
  },

  // ── expiry: tokens stop working after expires_in ────────────────────────────────────────
  {
    id: 'EXPIRY-VALID-BEFORE',
    suite: 'expiry',
    level: 'MUST',
    title: 'A token is still accepted shortly before expires_in runs out',
    refs: ['spec §Access token response', 'spec §Authentication 3'],
    notes:
      'expires_in is whole seconds (RFC 6749 §5.1) and JWT issuers compute exp = floor(iat) + ttl (RFC 7519 NumericDate), ' +
      'so a conformant server may end a token up to a second early: the probe leads sentAt + expires_in by a second plus ' +
      'the observed round trip, and a refusal that arrives later than a second before it is not evidence (the probe is ' +
      'repeated once on a new token, then the check errs). The token must also have been accepted right after issue. ' +
      'An expires_in longer than --max-expiry-wait is judged on the part of the lifetime the run observes: a 401 to the ' +
      'shared token while its expires_in (less a second and --expiry-margin) still vouched for it, where a fresh token ' +
      'then got past, fails it, as does the first token refused when probed again as the other checks end.',
  },
  {
    id: 'EXPIRY-REFUSED-AFTER',
    suite: 'expiry',
    level: 'MUST',
    title: 'A token is refused (a 4xx with a Bearer challenge) once expires_in has passed',
    refs: ['spec §Authentication 3', 'spec §Limits', 'RFC 6750 §3'],
    notes:
      'The MUSTs: spec §Authentication 3, "After that time the token is invalid"; RFC 6750 §3, a request that "does not contain an access ' +
      'token that enables access to the protected resource" MUST get a WWW-Authenticate challenge, and "All challenges defined by this ' +
      'specification MUST use the auth-scheme value "Bearer"" (whatever the status). Which 4xx is a SHOULD (EXPIRY-REFUSED-401): the spec ' +
      'leaves the status for expired tokens "not shown" (spec §Errors). expires_in is whole seconds, so a server that rounds the time left ' +
      'down declares T - 1 for a token that lives T: it gets a second more, plus the clock margin of --expiry-margin (default 1 s).',
  },
  {
    id: 'EXPIRY-REFUSED-401',
    suite: 'expiry',
    level: 'SHOULD',
    title: 'The refusal of an expired token is 401 Unauthorized',
    refs: ['RFC 6750 §3.1'],
    notes:
      'RFC 6750 §3.1, invalid_token ("The access token provided is expired, revoked, malformed, or invalid"): "The resource SHOULD respond with the HTTP 401 (Unauthorized) status code". A SHOULD, so another 4xx with the Bearer challenge only warns.',
  },
  {
    id: 'EXPIRY-INVALID-TOKEN-ERROR',
    suite: 'expiry',
    level: 'SHOULD',
    title: 'The challenge for an expired token carries error="invalid_token"',
    refs: ['RFC 6750 §3', 'RFC 6750 §3.1'],
    notes:
      'RFC 6750 §3: "If the protected resource request included an access token and failed authentication, the resource server SHOULD include the "error" attribute"; §3.1 names invalid_token for an expired one. Judged on any refusal with a Bearer challenge, whatever its status.',
  },
  {
    id: 'EXPIRY-RENEW',
    suite: 'expiry',
    level: 'MUST',
    title: 'After expiry a fresh token can be obtained and is accepted',
    refs: ['spec §What the service does', 'spec §Authentication 1'],
  },

  // ── auth: bearer tokens on every resource endpoint ──────────────────────────────────────
  // RFC 6750 §3 makes the challenge the MUST of every refusal below: "If the protected resource
  // request does not include authentication credentials or does not contain an access token that
  // enables access to the protected resource, the resource server MUST include the HTTP
  // "WWW-Authenticate" response header field", and "All challenges defined by this specification
  // MUST use the auth-scheme value "Bearer"". The status of each refusal is a SHOULD at most
  // (RFC 6750 §3.1 "SHOULD respond with", examples, RFC 9110 §15.5.2's definition of 401), and the
  // spec leaves it "not shown" (spec §Errors): each is a SHOULD check of its own.
  {
    id: 'AUTH-MISSING',
    suite: 'auth',
    level: 'MUST',
    title: 'Without an Authorization header: refused (a 4xx, never data) with a Bearer challenge',
    refs: ['spec §Authentication 4', 'RFC 6750 §3'],
    notes:
      'spec §Authentication 4: every request "must carry the header Authorization: Bearer <ACCESS_TOKEN>"; RFC 6750 §3: the challenge MUST be there, whatever the status. 401 is AUTH-MISSING-401\'s SHOULD.',
  },
  {
    id: 'AUTH-MISSING-401',
    suite: 'auth',
    level: 'SHOULD',
    title: 'Without an Authorization header: the refusal is 401 Unauthorized',
    refs: ['RFC 9110 §15.5.2', 'RFC 6750 §3'],
    notes:
      'RFC 9110 §15.5.2: 401 "indicates that the request has not been applied because it lacks valid authentication credentials", and ' +
      'RFC 6750 §3 answers "a protected resource request without authentication" with 401 in its example. Neither is a MUST, and the ' +
      'spec does not show the status (spec §Errors): another 4xx with the Bearer challenge only warns.',
  },
  {
    id: 'AUTH-MISSING-NO-ERROR',
    suite: 'auth',
    level: 'SHOULD',
    title: 'The challenge to a request without credentials carries no error code',
    refs: ['RFC 6750 §3.1'],
    notes:
      'RFC 6750 §3.1: "If the request lacks any authentication information ..., the resource server SHOULD NOT include an error code or other error information." Judged on any refusal with a Bearer challenge, whatever its status.',
  },
  {
    id: 'AUTH-MALFORMED',
    suite: 'auth',
    level: 'MUST',
    title: 'A malformed Bearer credential: refused (a 4xx, never data) with a Bearer challenge',
    refs: ['spec §Authentication 4', 'RFC 6750 §2.1', 'RFC 6750 §3'],
    notes:
      "No b64token (RFC 6750 §2.1) is no access token that enables access, so RFC 6750 §3 asks the challenge of the refusal, a 400 included. Which status is AUTH-MALFORMED-STATUS's SHOULD.",
  },
  {
    id: 'AUTH-MALFORMED-STATUS',
    suite: 'auth',
    level: 'SHOULD',
    title: 'A malformed Bearer credential: the refusal is 400 or 401',
    refs: ['RFC 6750 §3.1'],
    notes:
      'RFC 6750 §3.1: a request that "is otherwise malformed" is invalid_request, and "The resource server SHOULD respond with the HTTP 400 ' +
      '(Bad Request) status code"; a "malformed" token is invalid_token, and "The resource SHOULD respond with the HTTP 401". Either passes; ' +
      'another 4xx only warns.',
  },
  {
    id: 'AUTH-UNKNOWN-TOKEN',
    suite: 'auth',
    level: 'MUST',
    title: 'An unknown access token: refused (a 4xx, never data) with a Bearer challenge',
    refs: ['spec §Authentication 4', 'RFC 6750 §3'],
    notes: "RFC 6750 §3: the challenge MUST be there, whatever the status. 401 is AUTH-UNKNOWN-TOKEN-401's SHOULD.",
  },
  {
    id: 'AUTH-UNKNOWN-TOKEN-401',
    suite: 'auth',
    level: 'SHOULD',
    title: 'An unknown access token: the refusal is 401 Unauthorized',
    refs: ['RFC 6750 §3.1'],
    notes:
      'RFC 6750 §3.1, invalid_token ("expired, revoked, malformed, or invalid for other reasons"): "The resource SHOULD respond with the HTTP 401 (Unauthorized) status code". Another 4xx only warns.',
  },
  {
    id: 'AUTH-INVALID-TOKEN-ERROR',
    suite: 'auth',
    level: 'SHOULD',
    title: 'The challenge to an unknown token carries error="invalid_token"',
    refs: ['RFC 6750 §3', 'RFC 6750 §3.1'],
    notes:
      'RFC 6750 §3: "If the protected resource request included an access token and failed authentication, the resource server SHOULD include the "error" attribute". Judged on any refusal with a Bearer challenge, whatever its status.',
  },
  {
    id: 'AUTH-NOT-BEARER',
    suite: 'auth',
    level: 'MUST',
    title: 'Another scheme (Basic with the client credentials): refused (a 4xx, never data) with a Bearer challenge',
    refs: ['spec §Authentication 4', 'RFC 6750 §3'],
    notes:
      'Basic credentials carry no access token, so RFC 6750 §3 asks the Bearer challenge of the refusal, whatever its status. 401 without an error code is AUTH-NOT-BEARER-401\'s SHOULD: a 400 with error="invalid_request", as @node-oauth/oauth2-server answers, passes here.',
  },
  {
    id: 'AUTH-NOT-BEARER-401',
    suite: 'auth',
    level: 'SHOULD',
    title: 'Another scheme (Basic with the client credentials): 401, and no error code in the challenge',
    refs: ['RFC 6750 §3.1', 'RFC 9110 §15.5.2'],
    notes:
      'RFC 6750 §3.1: "If the request lacks any authentication information (e.g., the client was unaware that authentication is necessary ' +
      'or attempted using an unsupported authentication method), the resource server SHOULD NOT include an error code or other error ' +
      'information", and its example of that is a 401, the status RFC 9110 §15.5.2 defines for a request that "lacks valid authentication ' +
      'credentials". No sentence makes either a MUST, and the spec does not show the status (spec §Errors): a warning.',
  },
  {
    id: 'AUTH-SCHEME-CASE',
    suite: 'auth',
    level: 'SHOULD',
    title: 'The Bearer scheme name is accepted in lower case',
    refs: ['RFC 6750 §2.1', 'RFC 9110 §11.1'],
    notes:
      'Clients that echo token_type send "bearer <token>". RFC 9110 §11.1 makes scheme names case-insensitive, but RFC 6750 §2.1 spells the credentials "Bearer", and clients that send it so work: deliberately a SHOULD.',
  },

  // ── versioning: Accept-Version on every endpoint ────────────────────────────────────────
  {
    id: 'VERSION-MISSING',
    suite: 'versioning',
    level: 'MUST',
    title: 'Without Accept-Version every endpoint answers exactly 400',
    refs: ['spec §Versioning 1', 'spec §Versioning 2', 'spec §Errors'],
  },
  {
    id: 'VERSION-INVALID',
    suite: 'versioning',
    level: 'MUST',
    title: 'An invalid Accept-Version gets 400 or 404 on every endpoint',
    refs: ['spec §Versioning 2', 'spec §Errors'],
    notes: 'Probes "0", "999999" and "banana"; either status passes, as the spec allows both.',
  },
  {
    id: 'VERSION-ONE',
    suite: 'versioning',
    level: 'MUST',
    title: 'Accept-Version: 1 succeeds on every endpoint',
    refs: ['spec §Versioning 1'],
  },
  {
    id: 'VERSION-HEADER-CASE',
    suite: 'versioning',
    level: 'MUST',
    title: 'The Accept-Version header name is case-insensitive',
    refs: ['spec §Versioning 1', 'RFC 9110 §5.1'],
  },
  {
    id: 'VERSION-AND-AUTH-MISSING',
    suite: 'versioning',
    level: 'MUST',
    title:
      'Without Accept-Version and without Authorization every resource endpoint answers as one of the two rules asks: 400, or a refusal with a Bearer challenge',
    refs: ['spec §Errors', 'spec §Versioning 2', 'spec §Authentication 4', 'RFC 6750 §3'],
    notes: PRECEDENCE_NOTES,
  },

  // ── user: GET /users/me ─────────────────────────────────────────────────────────────────
  {
    id: 'USER-OK',
    suite: 'user',
    level: 'MUST',
    title: 'GET /users/me answers 200 with a JSON body',
    refs: ['spec §Get the current user', 'spec §Errors'],
  },
  {
    id: 'USER-SCHEMA',
    suite: 'user',
    level: 'MUST',
    title: 'The User has the documented types: id a UUID, name and email strings or null, tenants [{id, name}]',
    refs: ['spec §User', 'spec §Tenant identifier'],
    notes: 'Extra fields are allowed (spec §Versioning 3: fields are added).',
  },
  {
    id: 'USER-FIELDS-PRESENT',
    suite: 'user',
    level: 'MUST',
    title: 'No documented User field is omitted; a field without data is null',
    refs: ['spec §User', 'spec §Generic rules for optional fields 1'],
  },
  {
    id: 'USER-EXPECTED-VALUES',
    suite: 'user',
    level: 'MUST',
    title: 'The User matches the known data of the test account exactly (null, "" and absent told apart)',
    refs: ['spec §Generic rules for optional fields 1', 'spec §Generic rules for optional fields 2'],
    notes: 'Needs --expectations; tenants are matched by id.',
  },

  // ── legacy: paths the gateway rewrites ──────────────────────────────────────────────────
  {
    id: 'LEGACY-TOKEN',
    suite: 'legacy',
    level: 'MUST',
    title: 'POST /uaa/oauth/token issues a token like the token endpoint',
    refs: ['spec §Obtain an access token'],
  },
  {
    id: 'LEGACY-TOKEN-WORKS',
    suite: 'legacy',
    level: 'MUST',
    title: 'A token from the legacy token path is accepted by /users/me',
    refs: ['spec §Obtain an access token', 'spec §Authentication 4'],
  },
  {
    id: 'LEGACY-TOKEN-REFUSES',
    suite: 'legacy',
    level: 'MUST',
    title: 'The legacy token path refuses a wrong secret with 401 invalid_client, a challenge and no token',
    refs: ['spec §Obtain an access token', 'RFC 6749 §5.2'],
  },
  {
    id: 'LEGACY-USERINFO',
    suite: 'legacy',
    level: 'MUST',
    title: 'GET /uaa/userinfo returns the same User as /users/me',
    refs: ['spec §Get the current user'],
  },
  {
    id: 'LEGACY-NO-REDIRECT',
    suite: 'legacy',
    level: 'MUST',
    title: 'Legacy paths are rewritten by the gateway, not redirected (no 3xx)',
    refs: ['spec §Obtain an access token', 'spec §Get the current user'],
  },

  // ── tenant: /tenants/{tenantId}/<path> ──────────────────────────────────────────────────
  {
    id: 'TENANT-ACCESS',
    suite: 'tenant',
    level: 'MUST',
    title: 'Every configured tenant endpoint answers 2xx for the tenant under test',
    refs: ['spec §Tenant-scoped endpoints', 'spec §Authentication 5'],
  },
  {
    id: 'TENANT-FOREIGN',
    suite: 'tenant',
    level: 'MUST',
    title: 'A tenant the client may not access gets 403 or 404 and no data',
    refs: ['spec §Tenant-scoped endpoints', 'spec §Authentication 5'],
    notes:
      "Proven with a second client (--second-client-id) whose tenant exists and has data: on every tenant endpoint that tenant's data is read with the second client's token, then asked for with the first client's, and the first tenant's with the second client's. With only --foreign-tenant-id, the first client asks for that tenant. Without either it is skipped: a tenant id made up at random proves only that an unknown tenant is refused (TENANT-UNKNOWN).",
  },
  {
    id: 'TENANT-UNKNOWN',
    suite: 'tenant',
    level: 'MUST',
    title: 'A tenantId that names no tenant gets 403 or 404 and no data',
    refs: ['spec §Tenant-scoped endpoints', 'spec §Authentication 5'],
    notes:
      'The tenant id is a UUID made up at random for the run: it says nothing of isolation between tenants that exist (TENANT-FOREIGN).',
  },
  {
    id: 'TENANT-INVALID-ID',
    suite: 'tenant',
    level: 'MUST',
    title: 'A tenantId that is not a UUID gets a 4xx, never a 5xx or data',
    refs: ['spec §Tenant identifier', 'spec §Tenant-scoped endpoints'],
  },
  {
    id: 'TENANT-UNKNOWN-NO-AUTH',
    suite: 'tenant',
    level: 'MUST',
    title:
      "A tenant that does not exist, asked for without Authorization, gets one of the two rules' answers: 403 or 404, or a refusal with a Bearer challenge",
    refs: ['spec §Tenant-scoped endpoints', 'spec §Authentication 4', 'RFC 6750 §3'],
    notes: PRECEDENCE_NOTES,
  },

  // ── writes: POST, PUT, PATCH and DELETE under /tenants/{tenantId}/, never sent content ───
  {
    id: 'WRITE-VERSION-MISSING',
    suite: 'writes',
    level: 'MUST',
    title: 'A write operation without Accept-Version gets 400, judged without ever sending content',
    refs: ['spec §Endpoints', 'spec §Versioning 2', 'spec §Errors', 'RFC 9110 §10.1.1'],
    notes: WRITE_NOTES,
  },
  {
    id: 'WRITE-VERSION-INVALID',
    suite: 'writes',
    level: 'MUST',
    title: 'A write operation with an invalid Accept-Version gets 400 or 404, judged without ever sending content',
    refs: ['spec §Endpoints', 'spec §Versioning 2', 'spec §Errors', 'RFC 9110 §10.1.1'],
    notes: WRITE_NOTES,
  },
  {
    id: 'WRITE-AUTH-MISSING',
    suite: 'writes',
    level: 'MUST',
    title:
      'A write operation without Authorization is refused with a Bearer challenge, judged without ever sending content',
    refs: ['spec §Endpoints', 'spec §Authentication 4', 'RFC 6750 §3', 'RFC 9110 §10.1.1'],
    notes: WRITE_NOTES,
  },
  {
    id: 'WRITE-AUTH-INVALID',
    suite: 'writes',
    level: 'MUST',
    title:
      'A write operation with a malformed or unknown bearer token is refused with a Bearer challenge, judged without ever sending content',
    refs: ['spec §Authentication 4', 'RFC 6750 §3', 'RFC 6750 §3.1', 'RFC 9110 §10.1.1'],
    notes: WRITE_NOTES,
  },
  {
    id: 'WRITE-TENANT-UNKNOWN',
    suite: 'writes',
    level: 'MUST',
    title: 'A write operation in a tenant that does not exist gets 403 or 404, judged without ever sending content',
    refs: ['spec §Tenant-scoped endpoints', 'spec §Authentication 5', 'RFC 9110 §10.1.1'],
    notes: WRITE_NOTES,
  },
  {
    id: 'WRITE-TENANT-INVALID-ID',
    suite: 'writes',
    level: 'MUST',
    title:
      'A write operation whose tenantId is not a UUID gets a 4xx, never a 5xx or success, judged without ever sending content',
    refs: ['spec §Tenant identifier', 'spec §Tenant-scoped endpoints', 'RFC 9110 §10.1.1'],
    notes: WRITE_NOTES,
  },
  {
    id: 'WRITE-VERSION-AND-AUTH-MISSING',
    suite: 'writes',
    level: 'MUST',
    title:
      'A write operation without Accept-Version and without Authorization gets 400 or a refusal with a Bearer challenge, judged without ever sending content',
    refs: ['spec §Endpoints', 'spec §Errors', 'spec §Authentication 4', 'RFC 6750 §3', 'RFC 9110 §10.1.1'],
    notes: `${PRECEDENCE_NOTES} ${WRITE_NOTES}`,
  },
  {
    id: 'WRITE-TENANT-UNKNOWN-NO-AUTH',
    suite: 'writes',
    level: 'MUST',
    title:
      'A write operation in a tenant that does not exist, without Authorization, gets 403 or 404 or a refusal with a Bearer challenge, judged without ever sending content',
    refs: ['spec §Tenant-scoped endpoints', 'spec §Authentication 4', 'RFC 6750 §3', 'RFC 9110 §10.1.1'],
    notes: `${PRECEDENCE_NOTES} ${WRITE_NOTES}`,
  },

  // ── pagination: page/size and the paging headers ───────────────────────────────────────
  {
    id: 'PAGE-HEADERS',
    suite: 'pagination',
    level: 'MUST',
    title: 'Total-Pages, Page-Size, Page-Number and Total-Elements are present once, as non-negative integers',
    refs: ['spec §Pagination'],
  },
  {
    id: 'PAGE-DEFAULT',
    suite: 'pagination',
    level: 'MUST',
    title: 'Without a page parameter page 1 is returned',
    refs: ['spec §Pagination', 'spec §Limits'],
  },
  {
    id: 'PAGE-ECHO',
    suite: 'pagination',
    level: 'MUST',
    title:
      'Page-Number and Page-Size echo the request (Page-Size may state a cap), and the page holds the items they promise',
    refs: ['spec §Pagination'],
    notes:
      'Page-Size is the number of elements per page, so page n of a probe holds min(Page-Size, Total-Elements − (n − 1) × Page-Size) ' +
      'items: a size capped without Page-Size saying so shows only in that count. Without Page-Size or Total-Elements the count is ' +
      "an error pointing at PAGE-HEADERS. The walk's pages are counted by PAGE-WALK, by the same rule.",
  },
  {
    id: 'PAGE-TOTALS',
    suite: 'pagination',
    level: 'MUST',
    title: 'Total-Pages equals ceil(Total-Elements / Page-Size), the same on every page',
    refs: ['spec §Pagination'],
    notes: 'An empty list may say 0 or 1 pages.',
  },
  {
    id: 'PAGE-WALK',
    suite: 'pagination',
    level: 'MUST',
    title: 'Walking every page yields exactly Total-Elements items, no duplicates, every page full but the last',
    refs: ['spec §Pagination'],
    notes: 'Duplicates are found by item id when items have one, else by their whole JSON.',
  },
  {
    id: 'PAGE-PAST-END',
    suite: 'pagination',
    level: 'MUST',
    title: 'A page past the end gives an empty page or 404, never a 5xx',
    refs: ['spec §Pagination'],
  },
  {
    id: 'PAGE-INVALID-PARAMS',
    suite: 'pagination',
    level: 'MUST',
    title: 'Invalid page and size values get a 4xx or a valid clamped page, never a 5xx',
    refs: ['spec §Pagination', 'spec §Errors'],
    notes: 'The spec does not show the status for invalid paging values, so any 4xx passes.',
  },
  {
    id: 'LINK-SYNTAX',
    suite: 'pagination',
    level: 'MUST',
    title: 'Link header fields are valid RFC 8288 links, each with a rel',
    refs: ['spec §Pagination', 'RFC 8288 §3', 'RFC 8288 §3.3'],
  },
  {
    id: 'LINK-NEXT',
    suite: 'pagination',
    level: 'MUST',
    title: 'Every page but the last links rel="next" to the following page; the last page has no next',
    refs: ['spec §Pagination', 'RFC 8288 §3'],
  },
  {
    id: 'LINK-PREV',
    suite: 'pagination',
    level: 'MUST',
    title: 'A rel="prev" link, where present, points at the previous page; page 1 has none',
    refs: ['spec §Pagination', 'RFC 8288 §3'],
  },
  {
    id: 'LINK-FIRST-LAST',
    suite: 'pagination',
    level: 'MUST',
    title: 'rel="first" and rel="last" links, where present, point at page 1 and the last page',
    refs: ['spec §Pagination', 'RFC 8288 §3'],
  },
  {
    id: 'LINK-FOLLOW',
    suite: 'pagination',
    level: 'MUST',
    title: 'Following next from page 1 visits every page once and yields every item',
    refs: ['spec §Pagination', 'RFC 8288 §3.1'],
  },

  // ── nulls: optional fields without data are null, never omitted ─────────────────────────
  {
    id: 'NULLS-SAME-FIELDS',
    suite: 'nulls',
    level: 'MUST',
    title: 'Every item of every page carries the same set of fields (no field omitted for null)',
    refs: ['spec §Generic rules for optional fields 1'],
  },

  // ── resources: what every tenant endpoint serves, against its schema and known data ───────
  {
    id: 'RESOURCE-SCHEMA',
    suite: 'resources',
    level: 'MUST',
    title: 'Every item and resource of every tenant endpoint has the types and nullability its OpenAPI schema declares',
    refs: ['spec §Tenant-scoped endpoints', 'spec §Generic rules for optional fields 1'],
    notes:
      'Needs --openapi. OpenAPI 3.1 schemas are JSON Schema 2020-12; 3.0 `nullable` is read as a type that also allows null. ' +
      "null is accepted for every optional property, whatever its schema says of null (spec §Generic rules for optional fields 1 over the document; a schema that forbids it is the document's OAS-NULLABLE finding); " +
      'a null for a required property that does not allow it, or a value of the wrong type, is a finding that names the item and the field. ' +
      "Formats are annotations (JSON Schema 2020-12 §7.2) and are not asserted; omitted properties are RESOURCE-FIELDS-PRESENT's.",
  },
  {
    id: 'RESOURCE-FIELDS-PRESENT',
    suite: 'resources',
    level: 'MUST',
    title:
      'Every property the schema declares is present in every item and resource: a field without data is null, never omitted',
    refs: ['spec §Generic rules for optional fields 1'],
    notes:
      'Needs --openapi. Every declared property, required or optional, whatever its schema says of null (spec §Generic rules for optional fields 1 over the document); writeOnly properties are exempt, even when required; properties that only some oneOf/anyOf branches declare are not required unless only one branch admits an object.',
  },
  {
    id: 'RESOURCE-EXPECTED-VALUES',
    suite: 'resources',
    level: 'MUST',
    title: 'Seeded items are served exactly as known, wherever they appear (null, "" and absent told apart)',
    refs: ['spec §Generic rules for optional fields 1', 'spec §Generic rules for optional fields 2'],
    notes:
      'Needs an --expectations file with "resources": known items per endpoint, matched by id in every page of the list and in the single resource under it.',
  },
];
