import { TOKEN_PATH, USER_PATH } from '../carrier/paths.js';
import {
  credentialsRefused,
  getResource,
  oauthErrorCode,
  readIssuedToken,
  requestToken,
  type ClientCredentials,
  type Target,
} from '../carrier/requests.js';
import type { SharedToken } from '../battery/wiring.js';
import { RunAbortedError, UsageError } from '../core/errors.js';
import { needsFormEncoding, type BasicEncoding } from '../core/basic-credentials.js';
import { Recorder, TransportError, type HttpClient, type HttpResponse } from '../http/client.js';
import { reachAdvice } from '../http/transport-errors.js';
import { findChallenge, parseChallenges } from '../http/challenge.js';
import type { Redactor } from '../core/redact.js';
import { oneLine, printable } from '../core/wording.js';

/**
 * Before the battery: make sure the target answers at all (else exit 3 with one clear line
 * instead of fifty errored checks), make sure the configured credentials are accepted (else
 * exit 2: a mistyped secret is a configuration problem, not seven MUST failures), obtain the
 * token every check shares, and find the tenant under test when none was given (spec §Get the
 * current user: the tenants the user may access).
 */

export interface Preflight {
  sharedToken?: SharedToken;
  sharedTokenProblem?: string;
  tenantId?: string;
  tenantProblem?: string;
  /**
   * How the checks send the client credentials: RFC 6749 §2.3.1 form-encoded, unless the token
   * endpoint refused that and accepted them as they are (TOKEN-CREDENTIALS-ENCODING reports it).
   */
  encoding: BasicEncoding;
  /**
   * How the run's own token requests send the client credentials: `post` when --client-auth post
   * says so, or when the token endpoint refused them in HTTP Basic and issued a token for them in
   * the form body (`basicRefused`).
   */
  clientAuth: 'basic' | 'post';
  /**
   * HTTP Basic got no token where client_secret_post got one: Basic's answer (`401
   * invalid_client`). The run goes on with client_secret_post; TOKEN-ISSUE fails.
   */
  basicRefused?: string;
  /**
   * The answers to the valid requests the preflight made (the token request with the credentials
   * as the checks send them, in HTTP Basic; the same in the form body, when the run goes with
   * client_secret_post; GET /users/me with the shared token): the checks judge these instead of
   * asking again.
   */
  answers: { token?: HttpResponse; tokenPost?: HttpResponse; user?: HttpResponse };
  /** Every tenant (with a UUID id) GET /users/me listed, when it was asked. */
  tenants?: string[];
}

/** Whose credentials a preflight tries, and how its messages name them. */
export interface PreflightClient {
  /** What the user is told to check when the credentials are refused. */
  hint: string;
  /** The option that names the client's tenant. */
  tenantFlag: string;
  /** Ask /users/me even when the tenant is known: its list of tenants is wanted too. */
  listTenants?: boolean;
  /** Who it is, in messages: "" for the run's client. */
  name?: string;
}

/** The hint for the second client's credentials (--second-client-id). */
export const SECOND_CLIENT: PreflightClient = {
  hint: "check --second-client-id (CARRIER_SECOND_CLIENT_ID) and the second client's secret (CARRIER_SECOND_CLIENT_SECRET or --second-client-secret-file)",
  tenantFlag: '--second-tenant-id',
  listTenants: true,
  name: 'the second client: ',
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What the user is told to check when the token endpoint refuses the configured credentials. */
export const CREDENTIALS_HINT =
  'check --client-id (CARRIER_CLIENT_ID) and the client secret (CARRIER_CLIENT_SECRET or --client-secret-file)';
const FIRST_CLIENT: PreflightClient = { hint: CREDENTIALS_HINT, tenantFlag: '--tenant-id' };

export async function preflight(
  http: HttpClient,
  target: Target,
  credentials: ClientCredentials,
  redactor: Redactor,
  tenantId: string | undefined,
  who: PreflightClient = FIRST_CLIENT,
): Promise<Preflight> {
  const flag = who.tenantFlag;
  const name = who.name ?? '';
  // Recorded (only what is cited is kept) so that the checks that judge these answers can cite them.
  const recorder = new Recorder(false);
  const send = (req: Parameters<HttpClient['send']>[0]) => http.send({ ...req, priority: 'high' }, recorder);
  /** Origins that have answered at least one request: those are reachable, whatever comes next. */
  const answered = new Set<string>();
  const reach = async (
    what: string,
    url: string,
    request: () => Promise<HttpResponse>,
  ): Promise<HttpResponse | TransportError> => {
    try {
      const res = await request();
      answered.add(new URL(url).origin);
      return res;
    } catch (err) {
      if (!(err instanceof TransportError)) throw err;
      // A target that answered something is there and misbehaving: the battery reports it check
      // by check. One that never answered cannot be tested at all.
      if (err.beforeResponse && !answered.has(new URL(url).origin)) {
        const advice = reachAdvice(err.code, new URL(url));
        throw new RunAbortedError(
          `cannot reach the ${what} at ${url}: ${err.message}${advice === undefined ? '' : `: ${advice}`}`,
        );
      }
      return err;
    }
  };
  const obtain = (encoding: BasicEncoding, clientAuth: 'basic' | 'post') => {
    const sentAt = Date.now();
    return reach('token endpoint', target.authUrl, () =>
      requestToken(send, target, {
        credentials: { ...credentials, encoding },
        ...(clientAuth === 'post' ? { clientAuth: 'post' as const } : {}),
        purpose: `POST ${TOKEN_PATH}: a valid request${name === '' ? '' : ' of the second client'}${clientAuth === 'post' ? ' with the client credentials in the form body (client_secret_post)' : ''} (${name === '' ? 'it gives the run its shared access token' : 'it proves tenant isolation, TENANT-FOREIGN'})`,
      }),
    ).then((res) => ({ res, sentAt, receivedAt: Date.now() }));
  };

  let encoding: BasicEncoding = 'form';
  let clientAuth: 'basic' | 'post' = target.clientAuth === 'post' ? 'post' : 'basic';
  let token = await obtain(encoding, clientAuth);
  if (
    !(token.res instanceof TransportError) &&
    credentialsRefused(token.res) &&
    clientAuth === 'basic' &&
    needsFormEncoding(credentials.clientId, credentials.clientSecret)
  ) {
    // RFC 6749 §2.3.1 says to form-encode; many servers do not decode. Try the credentials as they are.
    const raw = await obtain('raw', 'basic');
    if (!(raw.res instanceof TransportError) && readIssuedToken(raw.res)) {
      encoding = 'raw';
      token = raw;
    }
  }
  let basic: HttpResponse | undefined;
  if (!(token.res instanceof TransportError) && clientAuth === 'basic' && refusedBasic(token.res)) {
    // A token endpoint that reads the credentials from the form only (FastAPI's
    // OAuth2PasswordRequestForm pattern) refuses Basic as if the secret were wrong. One more
    // request tells the two apart: the same credentials as client_secret_post (RFC 6749 §2.3.1).
    // If that gets a token, TOKEN-ISSUE fails for Basic and the run goes on with it.
    const post = await obtain(encoding, 'post');
    if (!(post.res instanceof TransportError) && readIssuedToken(post.res)) {
      basic = token.res;
      clientAuth = 'post';
      token = post;
    }
  }
  // The server's words, bounded (an RFC 6749 §5.2 code is a short token) and redacted for the console.
  const basicCode = basic ? oauthErrorCode(basic)?.slice(0, 64) : undefined;
  const out: Preflight = {
    encoding,
    clientAuth,
    ...(basic
      ? { basicRefused: redactor.redact(`${basic.status}${basicCode === undefined ? '' : ` ${basicCode}`}`) }
      : {}),
    answers: {},
  };
  const { res: tokenRes, sentAt, receivedAt } = token;
  // answers.token is the spec's request, HTTP Basic; with --client-auth post none was made.
  if (basic) out.answers.token = basic;
  if (!(tokenRes instanceof TransportError)) out.answers[clientAuth === 'post' ? 'tokenPost' : 'token'] = tokenRes;
  if (tokenRes instanceof TransportError) {
    out.sharedTokenProblem = `the token request failed: ${tokenRes.message}`;
    out.tenantProblem = `no tenant was given (${flag}) and there is no token to ask /users/me with`;
    if (tenantId !== undefined) out.tenantId = tenantId;
    return out;
  }
  if (tokenRes.status === 400 && /plain HTTP request was sent to HTTPS port/i.test(tokenRes.text)) {
    // nginx's answer to plain HTTP on a TLS port: a gateway, but not spoken to in its protocol.
    const url = new URL(tokenRes.url);
    url.protocol = 'https:';
    throw new RunAbortedError(
      `cannot reach the token endpoint at ${target.authUrl}: it answered 400 "The plain HTTP request was sent to HTTPS port": use ${url.origin} (https://)`,
    );
  }
  const { origin, pathname } = new URL(tokenRes.url);
  const endpoint = `${origin}${pathname}`;
  if (credentialsRefused(tokenRes)) {
    const code = oauthErrorCode(tokenRes);
    // A code no token endpoint gives (a resource server's "unauthorized" behind a wrong prefix)
    // says no more than none: the challenge decides where the answer came from (issue 42 item 4).
    const tokenCode = code !== undefined && TOKEN_ERROR_CODES.has(code) ? code : undefined;
    const foreign = tokenCode === undefined && target.clientAuth !== 'post' ? foreignChallenge(tokenRes) : undefined;
    // Not the token endpoint refusing the credentials (it would challenge Basic, RFC 6749 §5.2):
    // something else answers at that path, so a new secret would not help.
    if (foreign !== undefined) {
      throw new UsageError(
        `${name}the token endpoint ${endpoint} answered 401 with a ${foreign} challenge, not the Basic one of a token endpoint refusing client credentials (RFC 6749 §5.2): something else answers there, such as a gateway for another API: check the path of --base-url (a gateway's prefix missing or extra) or --auth-url, or the credentials the gateway itself wants (--header)`,
      );
    }
    // A token endpoint gives every refusal an error code (RFC 6749 §5.2). A 401 without one may
    // come from in front of it (a gateway wanting its own key: Azure API Management's "missing
    // subscription key"), or from a server that answers 401 to every path (a wrong prefix).
    if (code === undefined)
      throw new UsageError(
        `${name}the token endpoint ${endpoint} answered 401 without the error code a token endpoint gives every refusal (RFC 6749 §5.2), ${said(tokenRes, redactor)}: if the client credentials are right (${who.hint}), something in front of it or in its place answers: check the credentials a gateway itself wants (--header) and the path of --base-url (a gateway's prefix missing or extra) or --auth-url`,
      );
    throw new UsageError(
      `${name}the token endpoint ${endpoint} refused the configured client credentials (${tokenRes.status} ${code}): ${who.hint}`,
    );
  }
  // Nothing at the token endpoint's path: almost always a base URL without the gateway's path
  // prefix. Every check needs a token, so the run would be ~60 errors saying less than this line.
  if (tokenRes.status === 404) {
    throw new UsageError(
      `nothing answers at the token endpoint ${endpoint} (404): check --base-url (a gateway's path prefix, such as /api, belongs in it) or --auth-url; or the deployment serves no token endpoint at ${TOKEN_PATH} (spec §Obtain an access token)`,
    );
  }
  // 403 without a token or an error code: no token endpoint's answer (it refuses with 400 or 401
  // and an error code, RFC 6749 §5.2). AWS API Gateway answers a path it does not route so
  // ({"message":"Missing Authentication Token"}); every check would be an error saying less.
  if (tokenRes.status === 403 && oauthErrorCode(tokenRes) === undefined && !readIssuedToken(tokenRes)) {
    throw new UsageError(
      `${name}the token endpoint ${endpoint} answered 403 without a token or the error code a token endpoint gives every refusal (RFC 6749 §5.2), ${said(tokenRes, redactor)}: a gateway answers so for a path it does not route, or without the credentials it wants itself: check the path of --base-url (a gateway's path prefix, such as /api, belongs in it) or --auth-url, and --header`,
    );
  }
  // A gateway that cannot reach its backend (RFC 9110 §15.6.3, §15.6.5): the API is not there to test.
  if (tokenRes.status === 502 || tokenRes.status === 504) {
    throw new RunAbortedError(
      `cannot reach the token endpoint at ${endpoint}: it answered ${tokenRes.status} ${tokenRes.status === 502 ? 'Bad Gateway' : 'Gateway Timeout'} (a gateway without its backend): nothing can be checked until the API answers`,
    );
  }
  const issued = readIssuedToken(tokenRes);
  if (issued) {
    redactor.addSecret(issued.accessToken, 'access-token');
    const expiresIn = Number.isInteger(issued.expiresIn) && issued.expiresIn > 0 ? issued.expiresIn : 60;
    out.sharedToken = { accessToken: issued.accessToken, expiresIn, sentAt, receivedAt };
  } else {
    const code = oauthErrorCode(tokenRes);
    out.sharedTokenProblem = `the token request with the configured credentials answered ${tokenRes.status}${code ? ` ${code}` : ''}`;
  }

  if (tenantId !== undefined) out.tenantId = tenantId;
  if (tenantId !== undefined && !who.listTenants) return out;
  if (!out.sharedToken) {
    if (tenantId === undefined)
      out.tenantProblem = `no tenant was given (${flag}) and /users/me cannot be asked without a token (${out.sharedTokenProblem ?? 'no token'})`;
    return out;
  }
  const bearer = out.sharedToken.accessToken;
  const userRes = await reach('API', target.baseUrl, () =>
    getResource(send, target, {
      path: USER_PATH,
      auth: { kind: 'bearer', token: bearer },
      purpose: `GET ${USER_PATH}: a valid request ${name === '' ? '(it names the tenant under test)' : 'of the second client (it names its tenants)'}`,
    }),
  );
  if (userRes instanceof TransportError) {
    if (tenantId === undefined)
      out.tenantProblem = `no tenant was given (${flag}) and GET /users/me failed: ${userRes.message}`;
    return out;
  }
  out.answers.user = userRes;
  const parsed = userRes.json();
  const tenants =
    parsed.ok && parsed.value !== null && typeof parsed.value === 'object'
      ? (parsed.value as { tenants?: unknown }).tenants
      : undefined;
  const first = Array.isArray(tenants) ? (tenants[0] as { id?: unknown } | undefined) : undefined;
  if (userRes.status === 200 && Array.isArray(tenants))
    out.tenants = tenants
      .map((t) => (t as { id?: unknown } | null)?.id)
      .filter((id): id is string => typeof id === 'string' && UUID.test(id))
      .map((id) => id.toLowerCase());
  if (tenantId !== undefined) return out;
  if (userRes.status === 200 && typeof first?.id === 'string' && UUID.test(first.id)) out.tenantId = first.id;
  else if (userRes.status === 404) {
    // The token endpoint works, the API does not answer where --base-url says it is: the path is
    // wrong (a gateway's prefix missing or extra), not the credentials.
    out.tenantProblem = `no tenant was given (${flag}) and GET /users/me answered 404 although the token endpoint issued a token: the path of --base-url may be wrong (a gateway's prefix missing or extra: ${target.baseUrl}/users/me is not there)`;
  } else
    out.tenantProblem = `no tenant was given (${flag}) and GET /users/me (${userRes.status}) lists no tenant with a UUID id`;
  return out;
}

/**
 * What an answer that is not a token endpoint's said, for the operator: its body on one line, cut,
 * printable and redacted (a stranger's words, on the console).
 */
function said(res: HttpResponse, redactor: Redactor): string {
  const text = oneLine(printable(res.text), 160);
  return text === '' ? 'with an empty body' : `saying "${redactor.redact(text)}"`;
}

/**
 * The token endpoint refused a valid request with HTTP Basic for what a client can change: a
 * 4xx other than 404 (nothing there) and without a token. 401 invalid_client is the usual
 * answer of an endpoint that ignores Basic; one that requires client_id in the form may say 400
 * or 422 (a validation error) instead.
 */
function refusedBasic(res: HttpResponse): boolean {
  return res.status >= 400 && res.status < 500 && res.status !== 404 && !readIssuedToken(res);
}

/**
 * The schemes a 401 challenges with, when none is Basic: what a gateway protecting another API
 * (Bearer, an API key scheme) answers, where a token endpoint refusing Basic client credentials
 * challenges Basic. Undefined when there is no challenge to judge by.
 */
/**
 * The error codes a token endpoint answers with: RFC 6749 §5.2's, and those the OAuth Extensions
 * Error Registry adds for the token endpoint (RFC 8628 §3.5, RFC 8707 §2, RFC 9396 §5, RFC 9449 §7).
 */
const TOKEN_ERROR_CODES = new Set([
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'authorization_pending',
  'slow_down',
  'access_denied',
  'expired_token',
  'invalid_target',
  'invalid_authorization_details',
  'invalid_dpop_proof',
  'use_dpop_nonce',
]);

function foreignChallenge(res: HttpResponse): string | undefined {
  if (res.status !== 401) return undefined;
  const lines = res.headerLines('www-authenticate');
  if (lines.length === 0) return undefined;
  const schemes = parseChallenges(lines).challenges.map((c) => c.scheme);
  if (schemes.length === 0 || findChallenge(parseChallenges(lines), 'Basic') !== undefined) return undefined;
  // The schemes are the server's words: tokens by the grammar, bounded here in number and length.
  return [...new Set(schemes.map((s) => s.replace(/[^\x21-\x7e]/g, '').slice(0, 40)))].slice(0, 3).join(', ');
}
