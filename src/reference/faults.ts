/**
 * Faults of the reference server: each breaks exactly one rule of the spec (or of an RFC it
 * names), the way real implementations go wrong. `breaks` lists the checks that must catch it
 * (fail, or warn for a SHOULD check); `alsoBreaks` the checks that may fail or err as a
 * consequence. The meta-tests (test/meta/) hold every fault to both lists, and fail when a check
 * of the catalogue has no fault that breaks it.
 */
import { LEGACY_TOKEN_PATH, LEGACY_USER_PATH, USER_PATH } from '../core/carrier-spec.js';
import { forwardedPrefix } from './gateway.js';
import {
  authoriseWithFreshToken,
  basicClientId,
  bearerToken,
  basicOf,
  errorCode,
  formParam,
  header,
  isLegacyRequest,
  isListRequest,
  isResourceRequest,
  isTokenRequest,
  isUserRequest,
  replyHeader,
  tenantSegment,
  validBasic,
  withBody,
  withHeader,
  withItems,
  type Alteration,
} from './alterations.js';
import type { ReferenceContext } from './context.js';
import { MAIN_TENANT_ID, listCount, listSlice, settingsOf, type Collection, type TenantRecord } from './data.js';
import { routeResource } from './routes.js';
import { isRefusal, pageWindow, pagingHeaders, parsePageRequest, type PageWindow } from './paging.js';
import { JSON_CONTENT_TYPE, apiError, json, type Reply } from './reply.js';
import type { Req } from './request.js';

export interface Fault extends Alteration {
  /** Checks that must catch the fault: failed (MUST) or warning (SHOULD). */
  readonly breaks: readonly string[];
  /** Checks that may also fail or err, as a consequence of the fault. */
  readonly alsoBreaks?: readonly string[];
  /**
   * Checks that depend on the broken rule and must report an *error* that points at it, never a
   * failure of their own: one root cause is reported once (e.g. every probe of an endpoint whose
   * valid request already fails).
   */
  readonly errs?: readonly string[];
}

/** The write checks (suites/writes.test.ts): they need a tenant under test, as the tenant checks do. */
const WRITE_CHECKS = [
  'WRITE-VERSION-MISSING',
  'WRITE-VERSION-INVALID',
  'WRITE-AUTH-MISSING',
  'WRITE-AUTH-INVALID',
  'WRITE-TENANT-UNKNOWN',
  'WRITE-TENANT-INVALID-ID',
  'WRITE-VERSION-AND-AUTH-MISSING',
  'WRITE-TENANT-UNKNOWN-NO-AUTH',
];

/** Every check that needs a valid access token errs when no token can be had. */
const NEEDS_TOKEN = [
  'TOKEN-ACCESS-TOKEN',
  'TOKEN-TYPE',
  'TOKEN-TYPE-CASE',
  'TOKEN-EXPIRES-IN',
  'TOKEN-SHORT-LIVED',
  'TOKEN-NO-REFRESH',
  'TOKEN-WORKS',
  'EXPIRY-VALID-BEFORE',
  'EXPIRY-REFUSED-AFTER',
  'EXPIRY-REFUSED-401',
  'EXPIRY-INVALID-TOKEN-ERROR',
  'EXPIRY-RENEW',
  'AUTH-MISSING',
  'AUTH-MISSING-401',
  'AUTH-MISSING-NO-ERROR',
  'AUTH-MALFORMED',
  'AUTH-MALFORMED-STATUS',
  'AUTH-UNKNOWN-TOKEN',
  'AUTH-UNKNOWN-TOKEN-401',
  'AUTH-INVALID-TOKEN-ERROR',
  'AUTH-NOT-BEARER',
  'AUTH-NOT-BEARER-401',
  'AUTH-SCHEME-CASE',
  'VERSION-MISSING',
  'VERSION-INVALID',
  'VERSION-ONE',
  'VERSION-HEADER-CASE',
  'VERSION-AND-AUTH-MISSING',
  'USER-OK',
  'USER-SCHEMA',
  'USER-FIELDS-PRESENT',
  'USER-EXPECTED-VALUES',
  'LEGACY-TOKEN-WORKS',
  'LEGACY-USERINFO',
  'LEGACY-NO-REDIRECT',
  'TENANT-ACCESS',
  'TENANT-FOREIGN',
  'TENANT-UNKNOWN',
  'TENANT-UNKNOWN-NO-AUTH',
  'TENANT-INVALID-ID',
  ...['PAGE-HEADERS', 'PAGE-DEFAULT', 'PAGE-ECHO', 'PAGE-TOTALS', 'PAGE-WALK', 'PAGE-PAST-END', 'PAGE-INVALID-PARAMS'],
  ...['LINK-SYNTAX', 'LINK-NEXT', 'LINK-PREV', 'LINK-FIRST-LAST', 'LINK-FOLLOW', 'NULLS-SAME-FIELDS'],
  ...['RESOURCE-SCHEMA', 'RESOURCE-FIELDS-PRESENT', 'RESOURCE-EXPECTED-VALUES'],
];
/** The checks that vary one thing of a request to an endpoint: they err where its valid request fails. */
const VERSION_PROBES = ['VERSION-MISSING', 'VERSION-INVALID', 'VERSION-HEADER-CASE'];
/** The checks that vary the Authorization of a resource request (the two defects at once: its Accept-Version too). */
const AUTH_PROBES = [
  'VERSION-AND-AUTH-MISSING',
  'AUTH-MISSING',
  'AUTH-MISSING-401',
  'AUTH-MISSING-NO-ERROR',
  'AUTH-MALFORMED',
  'AUTH-MALFORMED-STATUS',
  'AUTH-UNKNOWN-TOKEN',
  'AUTH-UNKNOWN-TOKEN-401',
  'AUTH-INVALID-TOKEN-ERROR',
  'AUTH-NOT-BEARER',
  'AUTH-NOT-BEARER-401',
  'AUTH-SCHEME-CASE',
];
/** The SHOULD checks that judge what a refusal's Bearer challenge says: they err, pointing at the MUST, when it has none. */
const CHALLENGE_SHOULDS = ['AUTH-MISSING-NO-ERROR', 'AUTH-INVALID-TOKEN-ERROR', 'AUTH-NOT-BEARER-401'];
/** The expiry checks after the wait; the timeline's own prerequisite failures make them all fail or err. */
const AFTER_EXPIRY = [
  'EXPIRY-VALID-BEFORE',
  'EXPIRY-REFUSED-AFTER',
  'EXPIRY-REFUSED-401',
  'EXPIRY-INVALID-TOKEN-ERROR',
  'EXPIRY-RENEW',
];
/** The checks that walk or page through the list, which err when the list cannot be read. */
const LIST_CHECKS = [
  'PAGE-HEADERS',
  'PAGE-DEFAULT',
  'PAGE-ECHO',
  'PAGE-TOTALS',
  'PAGE-WALK',
  'PAGE-PAST-END',
  'PAGE-INVALID-PARAMS',
  'LINK-SYNTAX',
  'LINK-NEXT',
  'LINK-PREV',
  'LINK-FIRST-LAST',
  'LINK-FOLLOW',
  'NULLS-SAME-FIELDS',
];

const isSuccessfulToken = (reply: Reply, req: Req): boolean => isTokenRequest(req) && reply.status === 200;
const isTokenError = (reply: Reply, req: Req): boolean => isTokenRequest(req) && reply.status >= 400;
const isResource401 = (reply: Reply, req: Req): boolean => isResourceRequest(req) && reply.status === 401;
const isList = (reply: Reply, req: Req): boolean => isListRequest(req) && reply.status === 200;

/** The page a list request asks for, as the server computes it (without alterations). */
function listWindow(
  req: Req,
  ctx: ReferenceContext,
): (PageWindow & { tenantId: string; collection: Collection }) | undefined {
  const tenantId = tenantSegment(req)?.toLowerCase();
  const tenant = tenantId === undefined ? undefined : ctx.tenants.get(tenantId);
  const collection = /\/(shipments|invoices)$/.exec(req.path)?.[1] as Collection | undefined;
  const request = parsePageRequest(req.query, ctx.behaviour);
  if (!tenant || !collection || isRefusal(request)) return undefined;
  return { ...pageWindow(request, listCount(tenant, collection)), tenantId: tenant.id, collection };
}

/** Replaces the items of a list page by `from`/`to` computed from the window. */
function withSlice(reply: Reply, req: Req, ctx: ReferenceContext, range: (w: PageWindow) => [number, number]): Reply {
  const w = listWindow(req, ctx);
  const tenant = w && ctx.tenants.get(w.tenantId);
  if (!w || !tenant) return reply;
  const [from, to] = range(w);
  return { ...reply, body: listSlice(tenant, w.collection, from, to) };
}

/** Rewrites the Link header of list pages. */
function withLinks(reply: Reply, req: Req, edit: (link: string, req: Req) => string | undefined): Reply {
  if (!isListRequest(req) || reply.status !== 200) return reply;
  const link = replyHeader(reply, 'Link');
  return link === undefined ? reply : withHeader(reply, 'Link', edit(link, req));
}

/** Replaces the target of the link with relation `rel`. */
function retarget(link: string, rel: string, page: (current: number) => number): string {
  return link.replace(
    new RegExp(`<([^>]*)[?&]page=(\\d+)([^>]*)>; rel="${rel}"`),
    (_m, before: string, n: string, after: string) => {
      const sep = before.includes('?') ? '&' : '?';
      return `<${before}${sep}page=${page(Number(n))}${after}>; rel="${rel}"`;
    },
  );
}

const tokenFaults: Fault[] = [
  {
    name: 'token-content-type-text',
    description: 'The token response is sent as text/plain instead of application/json (RFC 6749 §5.1)',
    breaks: ['TOKEN-ISSUE'],
    alsoBreaks: ['TOKEN-EXTRA-PARAM', 'TOKEN-BASIC-CASE', 'LEGACY-TOKEN', 'EXPIRY-RENEW'],
    reply: (r, req) => (isSuccessfulToken(r, req) ? { ...r, contentType: 'text/plain;charset=UTF-8' } : r),
  },
  {
    name: 'access-token-number',
    description: 'access_token is a JSON number instead of a string (spec §Access token response)',
    breaks: ['TOKEN-ACCESS-TOKEN', 'LEGACY-TOKEN'],
    alsoBreaks: [...NEEDS_TOKEN, ...WRITE_CHECKS],
    reply: (r, req) => (isSuccessfulToken(r, req) ? withBody(r, (b) => void (b.access_token = 12345678)) : r),
  },
  {
    name: 'token-type-mac',
    description: 'token_type is "mac" instead of "bearer" (spec §Access token response)',
    breaks: ['TOKEN-TYPE', 'TOKEN-TYPE-CASE', 'LEGACY-TOKEN'],
    reply: (r, req) => (isSuccessfulToken(r, req) ? withBody(r, (b) => void (b.token_type = 'mac')) : r),
  },
  {
    name: 'token-type-capitalised',
    description: 'token_type is "Bearer"; RFC 6749 §5.1 allows it, the spec documents "bearer" (a warning)',
    breaks: ['TOKEN-TYPE-CASE'],
    reply: (r, req) => (isSuccessfulToken(r, req) ? withBody(r, (b) => void (b.token_type = 'Bearer')) : r),
  },
  {
    name: 'expires-in-string',
    description: 'expires_in is the string "5" instead of a number (spec §Access token response, RFC 6749 §5.1)',
    breaks: ['TOKEN-EXPIRES-IN', 'LEGACY-TOKEN'],
    // No number: no lifetime to judge (an error pointing at TOKEN-EXPIRES-IN).
    errs: ['TOKEN-SHORT-LIVED'],
    alsoBreaks: AFTER_EXPIRY,
    reply: (r, req) => (isSuccessfulToken(r, req) ? withBody(r, (b) => void (b.expires_in = String(b.expires_in))) : r),
  },
  {
    name: 'expires-in-fraction',
    description: 'expires_in is a fraction (4.5) instead of an integer (RFC 6749 §5.1)',
    breaks: ['TOKEN-EXPIRES-IN', 'LEGACY-TOKEN'],
    alsoBreaks: AFTER_EXPIRY,
    reply: (r, req) =>
      isSuccessfulToken(r, req) ? withBody(r, (b) => void (b.expires_in = Number(b.expires_in) - 0.5)) : r,
  },
  {
    name: 'expires-in-missing',
    description: 'The token response omits expires_in (spec §Access token response)',
    breaks: ['TOKEN-EXPIRES-IN', 'LEGACY-TOKEN'],
    errs: ['TOKEN-SHORT-LIVED'],
    alsoBreaks: AFTER_EXPIRY,
    reply: (r, req) => (isSuccessfulToken(r, req) ? withBody(r, (b) => void delete b.expires_in) : r),
  },
  {
    // Issue 38: `timedelta.total_seconds()` in a JSONResponse. JSON.parse reads 60, typed clients
    // (Go's encoding/json into an int) refuse it.
    name: 'expires-in-decimal-point',
    description:
      "expires_in is written with a decimal point (60.0), as Python's timedelta.total_seconds() gives it (spec §Access token response: integer; RFC 6749 §A.14: 1*DIGIT)",
    breaks: ['TOKEN-EXPIRES-IN', 'LEGACY-TOKEN'],
    reply: (r, req) =>
      isSuccessfulToken(r, req)
        ? {
            ...r,
            raw: {
              contentType: JSON_CONTENT_TYPE,
              text: JSON.stringify(r.body).replace(/"expires_in":([0-9]+)/, '"expires_in":$1.0'),
            },
          }
        : r,
  },
  {
    name: 'expires-in-an-hour-in-milliseconds',
    description:
      'expires_in is 3600000, an hour in milliseconds where the spec says seconds: 41 days, which no short-lived token lives (spec §What the service does 1; a warning)',
    breaks: ['TOKEN-SHORT-LIVED'],
    reply: (r, req) => (isSuccessfulToken(r, req) ? withBody(r, (b) => void (b.expires_in = 3_600_000)) : r),
  },
  {
    name: 'token-cacheable',
    description: 'The token response says Cache-Control: max-age=300 instead of no-store (RFC 6749 §5.1)',
    breaks: ['TOKEN-NO-STORE'],
    reply: (r, req) => (isSuccessfulToken(r, req) ? withHeader(r, 'Cache-Control', 'max-age=300') : r),
  },
  {
    name: 'no-pragma',
    description: 'The token response has no Pragma: no-cache (RFC 6749 §5.1; a warning)',
    breaks: ['TOKEN-PRAGMA'],
    reply: (r, req) => (isSuccessfulToken(r, req) ? withHeader(r, 'Pragma', undefined) : r),
  },
  {
    name: 'refresh-token-issued',
    description: 'A refresh_token is issued for the client credentials grant (RFC 6749 §4.4.3; a warning)',
    breaks: ['TOKEN-NO-REFRESH'],
    reply: (r, req) =>
      isSuccessfulToken(r, req) ? withBody(r, (b) => void (b.refresh_token = 'rt-a9f3c1e07b2d4e6f')) : r,
  },
  {
    name: 'wrong-secret-accepted',
    description: 'The token endpoint accepts any secret for a known client id (spec §Authentication 2)',
    breaks: ['TOKEN-WRONG-SECRET', 'LEGACY-TOKEN-REFUSES'],
    request: (req, ctx) => {
      if (isTokenRequest(req) && basicClientId(req) === ctx.behaviour.clientId)
        req.headers.authorization = validBasic(ctx);
    },
  },
  {
    name: 'unknown-client-accepted',
    description: 'The token endpoint issues tokens to a client id it does not know (spec §Authentication 2)',
    breaks: ['TOKEN-UNKNOWN-CLIENT'],
    request: (req, ctx) => {
      const id = basicClientId(req);
      if (
        isTokenRequest(req) &&
        id !== undefined &&
        id !== ctx.behaviour.clientId &&
        id !== ctx.behaviour.secondClientId
      )
        req.headers.authorization = validBasic(ctx);
    },
  },
  {
    name: 'no-credentials-accepted',
    description: 'The token endpoint issues tokens without client authentication (RFC 6749 §3.2.1, §5.2)',
    breaks: ['TOKEN-NO-CREDENTIALS'],
    request: (req, ctx) => {
      if (isTokenRequest(req) && header(req, 'authorization') === undefined)
        req.headers.authorization = validBasic(ctx);
    },
  },
  {
    name: 'bad-credentials-400',
    description: 'Failed Basic client authentication answers 400 instead of the 401 RFC 6749 §5.2 requires',
    breaks: ['TOKEN-WRONG-SECRET', 'TOKEN-UNKNOWN-CLIENT', 'LEGACY-TOKEN-REFUSES'],
    reply: (r, req) =>
      isTokenError(r, req) && r.status === 401 && header(req, 'authorization') !== undefined
        ? withHeader({ ...r, status: 400 }, 'WWW-Authenticate', undefined)
        : r,
  },
  {
    name: 'token-401-no-challenge',
    description:
      'The token endpoint answers 401 without a WWW-Authenticate challenge (RFC 6749 §5.2, RFC 9110 §15.5.2)',
    breaks: ['TOKEN-WRONG-SECRET', 'TOKEN-UNKNOWN-CLIENT', 'TOKEN-NO-CREDENTIALS', 'LEGACY-TOKEN-REFUSES'],
    reply: (r, req) => (isTokenError(r, req) && r.status === 401 ? withHeader(r, 'WWW-Authenticate', undefined) : r),
  },
  {
    name: 'invalid-client-wrong-code',
    description: 'Failed client authentication says error "unauthorized" instead of "invalid_client" (RFC 6749 §5.2)',
    breaks: ['TOKEN-WRONG-SECRET', 'TOKEN-UNKNOWN-CLIENT', 'TOKEN-NO-CREDENTIALS', 'LEGACY-TOKEN-REFUSES'],
    alsoBreaks: ['TOKEN-ERROR-FORMAT'],
    reply: (r, req) =>
      isTokenError(r, req) && errorCode(r) === 'invalid_client'
        ? withBody(r, (b) => void (b.error = 'unauthorized'))
        : r,
  },
  {
    name: 'grant-type-optional',
    description: 'A token request without grant_type gets a token (RFC 6749 §4.4.2: grant_type is required)',
    breaks: ['TOKEN-GRANT-MISSING'],
    request: (req) => {
      if (isTokenRequest(req) && req.body && !new URLSearchParams(req.body.toString('utf8')).has('grant_type'))
        req.body = Buffer.from(`${req.body.toString('utf8')}&grant_type=client_credentials`);
    },
  },
  {
    name: 'any-grant-type-accepted',
    description: 'Any grant_type gets a token (RFC 6749 §5.2: unsupported_grant_type)',
    breaks: ['TOKEN-GRANT-UNSUPPORTED', 'TOKEN-GRANT-OTHERS'],
    request: (req) => {
      if (!isTokenRequest(req) || !req.body) return;
      const form = new URLSearchParams(req.body.toString('utf8'));
      if (form.get('grant_type')) form.set('grant_type', 'client_credentials');
      req.body = Buffer.from(form.toString());
    },
  },
  {
    name: 'unsupported-grant-wrong-code',
    description:
      'An unsupported grant_type gets error "invalid_grant" instead of "unsupported_grant_type" (RFC 6749 §5.2)',
    breaks: ['TOKEN-GRANT-UNSUPPORTED'],
    reply: (r, req) =>
      isTokenError(r, req) && errorCode(r) === 'unsupported_grant_type'
        ? withBody(r, (b) => void (b.error = 'invalid_grant'))
        : r,
  },
  {
    // Issue 38: Express + @node-oauth/oauth2-server with the password grant enabled, and a model
    // whose getUser returns a user for any pair, as stub models do.
    name: 'password-grant-accepted',
    description:
      'The token endpoint also serves the password grant and issues a token for any username and password (spec §Obtain an access token: grant_type must be client_credentials)',
    breaks: ['TOKEN-GRANT-OTHERS'],
    request: (req) => {
      if (
        !isTokenRequest(req) ||
        formParam(req, 'grant_type') !== 'password' ||
        !formParam(req, 'username') ||
        !formParam(req, 'password') ||
        !req.body
      )
        return;
      const form = new URLSearchParams(req.body.toString('utf8'));
      form.set('grant_type', 'client_credentials');
      form.delete('username');
      form.delete('password');
      req.body = Buffer.from(form.toString());
    },
  },
  {
    // Issue 38: the same library with authorization_code and refresh_token among the client's
    // grants and a model that does not implement them: its InvalidArgumentError is a 500.
    name: 'unserved-grants-server-error',
    description:
      "grant_type authorization_code and refresh_token get 500, as @node-oauth/oauth2-server answers when they are among the client's grants and its model lacks getAuthorizationCode and getRefreshToken (RFC 6749 §5.2: a 400 refusal)",
    breaks: ['TOKEN-GRANT-OTHERS'],
    reply: (r, req) => {
      const grant = formParam(req, 'grant_type');
      if (!isTokenError(r, req) || (grant !== 'authorization_code' && grant !== 'refresh_token')) return r;
      const method = grant === 'authorization_code' ? 'getAuthorizationCode' : 'getRefreshToken';
      return {
        status: 500,
        headers: {},
        body: {
          error: 'invalid_argument',
          error_description: `Invalid argument: model does not implement ${method}()`,
        },
      };
    },
  },
  {
    // Issue 38: FastAPI's OAuth2PasswordRequestForm pattern, client_id and client_secret as Form
    // fields: Basic is never looked at, so the run used to stop with "check --client-id".
    name: 'basic-auth-ignored',
    description:
      'The token endpoint ignores HTTP Basic and reads client_id and client_secret from the form body only (spec §Obtain an access token: HTTP Basic; §Authentication 2)',
    // Once: the run goes on with client_secret_post, and every other rule is judged on it.
    breaks: ['TOKEN-ISSUE'],
    // The checks that vary the HTTP Basic request cannot judge their rule: they point at the cause.
    errs: [
      'TOKEN-WRONG-SECRET',
      'TOKEN-UNKNOWN-CLIENT',
      'TOKEN-NO-CREDENTIALS',
      'TOKEN-BASIC-CASE',
      'TOKEN-CREDENTIALS-ENCODING',
      'LEGACY-TOKEN-REFUSES',
    ],
    request: (req) => {
      if (!isTokenRequest(req) || !req.body) return;
      const form = new URLSearchParams(req.body.toString('utf8'));
      const id = form.get('client_id');
      const secret = form.get('client_secret');
      form.delete('client_id');
      form.delete('client_secret');
      req.body = Buffer.from(form.toString());
      // What the handlers below take for client authentication: the form's credentials, or none.
      if (id !== null && secret !== null) req.headers.authorization = basicOf(id, secret);
      else delete req.headers.authorization;
    },
  },
  {
    name: 'token-errors-text-plain',
    description: 'Token error responses are labelled text/plain instead of application/json (RFC 6749 §5.2)',
    breaks: ['TOKEN-ERROR-FORMAT'],
    reply: (r, req) => (isTokenError(r, req) ? { ...r, contentType: 'text/plain' } : r),
  },
  {
    name: 'token-error-description-quotes',
    description: 'error_description contains `"`, which RFC 6749 §5.2 excludes from its character set',
    breaks: ['TOKEN-ERROR-FORMAT'],
    reply: (r, req) =>
      isTokenError(r, req) ? withBody(r, (b) => void (b.error_description = 'Client "authentication" failed')) : r,
  },
  {
    name: 'extra-param-rejected',
    description: 'An unknown request parameter is refused (RFC 6749 §3.2: it MUST be ignored)',
    breaks: ['TOKEN-EXTRA-PARAM'],
    request: (req) => {
      if (
        isTokenRequest(req) &&
        req.body &&
        [...new URLSearchParams(req.body.toString('utf8')).keys()].some((k) => k !== 'grant_type')
      )
        req.body = Buffer.from('');
    },
  },
  {
    name: 'new-tokens-rejected',
    description:
      'Only the first token issued is accepted; later ones are refused, as after a signing-key rotation the API missed (spec §Authentication 4)',
    breaks: ['TOKEN-WORKS', 'LEGACY-TOKEN-WORKS'],
    alsoBreaks: ['EXPIRY-RENEW'],
    // The first token of each client: a second client's is no "new" token of the first's.
    reply: (r, req, ctx) => {
      const key = `new-tokens-rejected:${basicClientId(req) === ctx.behaviour.secondClientId ? 'second' : 'first'}`;
      if (isSuccessfulToken(r, req) && !ctx.scratch.has(key))
        ctx.scratch.set(key, (r.body as { access_token: string }).access_token);
      return r;
    },
    request: (req, ctx) => {
      const token = bearerToken(req);
      const first = ctx.scratch.get(`new-tokens-rejected:${ctx.tokens.clientOf(token)}`);
      if (
        isResourceRequest(req) &&
        token !== undefined &&
        first !== undefined &&
        token !== first &&
        ctx.tokens.check(token) === 'valid'
      )
        req.headers.authorization = 'Bearer rejected-by-the-api';
    },
  },
  {
    name: 'basic-credentials-not-form-decoded',
    description:
      'The token endpoint takes the Basic user-id and password as they are, without the form-decoding RFC 6749 §2.3.1 requires (a warning); a secret with + % : & = or a space works only unencoded',
    breaks: ['TOKEN-CREDENTIALS-ENCODING'],
    request: (req, ctx) => {
      const m = /^basic +([A-Za-z0-9+/=]+)$/i.exec(header(req, 'authorization') ?? '');
      if (!isTokenRequest(req) || !m?.[1]) return;
      const raw = `Basic ${Buffer.from(`${ctx.behaviour.clientId}:${ctx.behaviour.clientSecret}`, 'utf8').toString('base64')}`;
      // What the server would compare: the credentials exactly as sent.
      if (`Basic ${m[1]}` === raw) req.headers.authorization = validBasic(ctx);
      else if (`Basic ${m[1]}` === validBasic(ctx)) req.headers.authorization = 'Basic bm90OmRlY29kZWQ=';
    },
  },
  {
    name: 'basic-scheme-case-sensitive',
    description: 'The token endpoint accepts only "Basic", not "basic" (RFC 9110 §11.1; a warning)',
    breaks: ['TOKEN-BASIC-CASE'],
    request: (req) => {
      const auth = header(req, 'authorization');
      if (isTokenRequest(req) && auth?.startsWith('basic ')) req.headers.authorization = `X${auth}`;
    },
  },
];

const expiryFaults: Fault[] = [
  {
    name: 'tokens-never-expire',
    description: 'Tokens are accepted after expires_in has passed (spec §Authentication 3)',
    breaks: ['EXPIRY-REFUSED-AFTER'],
    // No refusal: nothing for the SHOULDs about it to judge.
    errs: ['EXPIRY-REFUSED-401', 'EXPIRY-INVALID-TOKEN-ERROR'],
    request: (req, ctx) => {
      const token = bearerToken(req);
      if (token !== undefined && ctx.tokens.check(token) === 'expired') authoriseWithFreshToken(req, ctx);
    },
  },
  {
    name: 'tokens-expire-early',
    // A quarter: with the meta-tests' 2 s tokens that is 1.5 s early, beyond the 1 s that a
    // whole-second clock (exp = floor(iat) + ttl) may legitimately cut off.
    description: 'Tokens stop working after a quarter of their expires_in (spec §Access token response)',
    breaks: ['EXPIRY-VALID-BEFORE'],
    alsoBreaks: NEEDS_TOKEN,
    request: (req, ctx) => {
      const token = bearerToken(req);
      const left = token === undefined ? undefined : ctx.tokens.millisecondsLeft(token);
      if (left !== undefined && left < (ctx.behaviour.tokenTtlSeconds * 1000 * 3) / 4)
        req.headers.authorization = 'Bearer expired-early';
    },
  },
  {
    // Issue 30: a server declaring expires_in 4000 for a token that dies after 4 s passed as
    // conformant, its expiry checks skipped (4000 > --max-expiry-wait). The run sees the token
    // die all the same: the shared token refused mid-run, the first one refused as the run ends.
    name: 'expires-in-milliseconds',
    description:
      'expires_in is given in milliseconds: a token that lives 2 s declares 2000 (spec §Access token response: seconds)',
    breaks: ['EXPIRY-VALID-BEFORE'],
    // Too long to wait out (2000 s > --max-expiry-wait): skipped with their reason, as before.
    alsoBreaks: ['EXPIRY-REFUSED-AFTER', 'EXPIRY-REFUSED-401', 'EXPIRY-INVALID-TOKEN-ERROR', 'EXPIRY-RENEW'],
    reply: (r, req) =>
      isSuccessfulToken(r, req) ? withBody(r, (b) => void (b.expires_in = Number(b.expires_in) * 1000)) : r,
  },
  {
    name: 'expired-token-403',
    description:
      'An expired token gets 403 without a challenge (RFC 6750 §3: the Bearer challenge is a MUST; §3.1: 401 a SHOULD)',
    breaks: ['EXPIRY-REFUSED-AFTER', 'EXPIRY-REFUSED-401'],
    errs: ['EXPIRY-INVALID-TOKEN-ERROR'],
    reply: (r, req, ctx) => {
      const token = bearerToken(req);
      return r.status === 401 && token !== undefined && ctx.tokens.check(token) === 'expired'
        ? withHeader({ ...r, status: 403 }, 'WWW-Authenticate', undefined)
        : r;
    },
  },
  {
    name: 'expired-token-403-challenged',
    description:
      'An expired token gets 403 with its Bearer challenge, error="invalid_token" (RFC 6750 §3.1 SHOULD respond with 401; a warning)',
    breaks: ['EXPIRY-REFUSED-401'],
    reply: (r, req, ctx) => {
      const token = bearerToken(req);
      return isResource401(r, req) && token !== undefined && ctx.tokens.check(token) === 'expired'
        ? { ...r, status: 403 }
        : r;
    },
  },
  {
    name: 'token-response-cached',
    description: 'The token endpoint hands out the same token again, even once it has expired (spec §Authentication 1)',
    breaks: ['EXPIRY-RENEW'],
    alsoBreaks: NEEDS_TOKEN,
    reply: (r, req, ctx) => {
      if (!isSuccessfulToken(r, req)) return r;
      if (!ctx.scratch.has('token-response-cached')) ctx.scratch.set('token-response-cached', r);
      return ctx.scratch.get('token-response-cached') as Reply;
    },
  },
  {
    name: 'expired-token-no-error-code',
    description: 'The challenge for an expired token has no error="invalid_token" (RFC 6750 §3.1; a warning)',
    breaks: ['EXPIRY-INVALID-TOKEN-ERROR'],
    reply: (r, req, ctx) => {
      const token = bearerToken(req);
      return isResource401(r, req) && token !== undefined && ctx.tokens.check(token) === 'expired'
        ? withHeader(r, 'WWW-Authenticate', 'Bearer realm="carrier-platform"')
        : r;
    },
  },
];

/** A Bearer credential that is not a b64token (RFC 6750 §2.1), or none at all. */
const MALFORMED_BEARER = /^bearer(?:\s*|\s+\S*[^A-Za-z0-9\-._~+/=\s]\S*.*)$/i;
/** RFC 6750 §2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=" */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** What a refusal without a Bearer challenge breaks, wherever it is refused (RFC 6750 §3), and what it leaves unjudgeable. */
const NO_BEARER_CHALLENGE = {
  breaks: [
    'AUTH-MISSING',
    'AUTH-MALFORMED',
    'AUTH-UNKNOWN-TOKEN',
    'AUTH-NOT-BEARER',
    'WRITE-AUTH-MISSING',
    'WRITE-AUTH-INVALID',
    // An unknown tenant without a token: the reference answers for the token, without its challenge.
    'TENANT-UNKNOWN-NO-AUTH',
    'WRITE-TENANT-UNKNOWN-NO-AUTH',
  ],
  errs: CHALLENGE_SHOULDS,
  alsoBreaks: ['EXPIRY-REFUSED-AFTER', 'EXPIRY-INVALID-TOKEN-ERROR'],
} as const;

const authFaults: Fault[] = [
  {
    name: 'missing-auth-accepted',
    description: 'Resources are served without an Authorization header (spec §Authentication 4)',
    breaks: ['AUTH-MISSING'],
    // Served, not refused: the SHOULDs about the refusal have nothing to judge.
    errs: ['AUTH-MISSING-401', 'AUTH-MISSING-NO-ERROR'],
    request: (req, ctx) => {
      if (isResourceRequest(req) && header(req, 'authorization') === undefined) authoriseWithFreshToken(req, ctx);
    },
  },
  {
    name: 'unknown-token-accepted',
    description: 'Resources are served for a bearer token the server never issued (spec §Authentication 4)',
    breaks: ['AUTH-UNKNOWN-TOKEN'],
    errs: ['AUTH-UNKNOWN-TOKEN-401', 'AUTH-INVALID-TOKEN-ERROR'],
    request: (req, ctx) => {
      const token = bearerToken(req);
      if (isResourceRequest(req) && token !== undefined && ctx.tokens.check(token) === 'unknown')
        authoriseWithFreshToken(req, ctx);
    },
  },
  {
    name: 'basic-accepted-on-resources',
    description: "Resources are served for the client's Basic credentials (spec §Authentication 4: Bearer)",
    breaks: ['AUTH-NOT-BEARER'],
    errs: ['AUTH-NOT-BEARER-401'],
    request: (req, ctx) => {
      if (isResourceRequest(req) && header(req, 'authorization') === validBasic(ctx)) authoriseWithFreshToken(req, ctx);
    },
  },
  {
    name: 'malformed-token-500',
    description: 'A malformed Bearer credential crashes the server: 500 (RFC 6750 §3.1)',
    breaks: ['AUTH-MALFORMED', 'WRITE-AUTH-INVALID'],
    errs: ['AUTH-MALFORMED-STATUS'],
    // Only a Bearer credential that is not a b64token (RFC 6750 §2.1), or none at all.
    reply: (r, req) =>
      isResourceRequest(req) && MALFORMED_BEARER.test(header(req, 'authorization') ?? '')
        ? json(500, { error: 'server_error' })
        : r,
  },
  {
    name: 'resource-401-no-challenge',
    description: 'Resources answer 401 without a WWW-Authenticate challenge (RFC 6750 §3, RFC 9110 §15.5.2)',
    // No challenge: what it should say cannot be judged, and the missing challenge is reported once.
    ...NO_BEARER_CHALLENGE,
    reply: (r, req) => (isResource401(r, req) ? withHeader(r, 'WWW-Authenticate', undefined) : r),
  },
  {
    // RFC 6750 §3 asks the challenge of every refusal of a request without a usable token, not
    // only of a 401 (RFC 9110 §11.6.1): a 400 for "Bearer" with no token needs one too.
    name: 'resource-400-no-challenge',
    description:
      "A resource's 400 for a Bearer scheme with no token carries no WWW-Authenticate challenge (RFC 6750 §3: MUST, whatever the status)",
    breaks: ['AUTH-MALFORMED'],
    reply: (r, req) =>
      isResourceRequest(req) && r.status === 400 && replyHeader(r, 'WWW-Authenticate') !== undefined
        ? withHeader(r, 'WWW-Authenticate', undefined)
        : r,
  },
  {
    name: 'resource-challenge-basic',
    description: 'Resources challenge with Basic instead of Bearer (RFC 6750 §3)',
    ...NO_BEARER_CHALLENGE,
    reply: (r, req) =>
      isResourceRequest(req) && replyHeader(r, 'WWW-Authenticate') !== undefined
        ? withHeader(r, 'WWW-Authenticate', 'Basic realm="carrier-platform"')
        : r,
  },
  {
    name: 'missing-auth-error-code',
    description:
      'A request without credentials gets error="invalid_token" in its challenge (RFC 6750 §3.1 SHOULD NOT; a warning)',
    breaks: ['AUTH-MISSING-NO-ERROR'],
    reply: (r, req) =>
      isResource401(r, req) && header(req, 'authorization') === undefined
        ? withHeader(r, 'WWW-Authenticate', 'Bearer realm="carrier-platform", error="invalid_token"')
        : r,
  },
  {
    name: 'unknown-token-no-error-code',
    description: 'The challenge for an unknown token has no error="invalid_token" (RFC 6750 §3.1; a warning)',
    breaks: ['AUTH-INVALID-TOKEN-ERROR'],
    reply: (r, req, ctx) => {
      const token = bearerToken(req);
      return isResource401(r, req) && token !== undefined && ctx.tokens.check(token) === 'unknown'
        ? withHeader(r, 'WWW-Authenticate', 'Bearer realm="carrier-platform"')
        : r;
    },
  },
  // The statuses of refusals are SHOULDs (RFC 6750 §3.1, RFC 9110 §15.5.2): each fault below keeps
  // the Bearer challenge RFC 6750 §3 makes a MUST and changes only the status, so only the SHOULD
  // check warns.
  {
    name: 'not-bearer-400-invalid-request',
    description:
      'Another scheme (Basic) on a resource gets 400 and `Bearer realm="Service",error="invalid_request"`, as @node-oauth/oauth2-server\'s authenticate() answers (RFC 6750 §3.1: 401 without an error code; a warning)',
    breaks: ['AUTH-NOT-BEARER-401'],
    reply: (r, req) => {
      const scheme = /^\s*([^\s]+)/.exec(header(req, 'authorization') ?? '')?.[1]?.toLowerCase();
      if (!isResource401(r, req) || scheme === undefined || scheme === 'bearer') return r;
      const refused = withBody({ ...r, status: 400 }, (b) =>
        Object.assign(b, {
          error: 'invalid_request',
          error_description: 'Invalid request: malformed authorization header',
        }),
      );
      return withHeader(refused, 'WWW-Authenticate', 'Bearer realm="Service",error="invalid_request"');
    },
  },
  {
    name: 'missing-auth-403',
    description:
      'A resource request without an Authorization header gets 403 with the Bearer challenge instead of 401 (RFC 9110 §15.5.2; a warning)',
    breaks: ['AUTH-MISSING-401'],
    reply: (r, req) =>
      isResource401(r, req) && header(req, 'authorization') === undefined ? { ...r, status: 403 } : r,
  },
  {
    name: 'malformed-token-403',
    description:
      'A malformed Bearer credential gets 403 with the Bearer challenge instead of 400 or 401 (RFC 6750 §3.1; a warning)',
    breaks: ['AUTH-MALFORMED-STATUS'],
    reply: (r, req) =>
      isResourceRequest(req) &&
      (r.status === 400 || r.status === 401) &&
      MALFORMED_BEARER.test(header(req, 'authorization') ?? '')
        ? { ...r, status: 403 }
        : r,
  },
  {
    name: 'unknown-token-403',
    description:
      'An unknown access token gets 403 with its Bearer challenge, error="invalid_token", instead of 401 (RFC 6750 §3.1; a warning)',
    breaks: ['AUTH-UNKNOWN-TOKEN-401'],
    reply: (r, req, ctx) => {
      const token = bearerToken(req);
      return isResource401(r, req) &&
        token !== undefined &&
        B64TOKEN.test(token) &&
        ctx.tokens.check(token) === 'unknown'
        ? { ...r, status: 403 }
        : r;
    },
  },
  {
    name: 'bearer-scheme-case-sensitive',
    description: 'Resources accept only "Bearer", not "bearer" (RFC 9110 §11.1; a warning)',
    breaks: ['AUTH-SCHEME-CASE'],
    request: (req) => {
      const auth = header(req, 'authorization');
      if (isResourceRequest(req) && auth?.startsWith('bearer ')) req.headers.authorization = `X${auth}`;
    },
  },
];

const versionFaults: Fault[] = [
  {
    name: 'version-missing-accepted',
    description: 'A request without Accept-Version is served (spec §Versioning 2: 400)',
    breaks: ['VERSION-MISSING'],
    request: (req) => {
      if (header(req, 'accept-version') === undefined) req.headers['accept-version'] = '1';
    },
  },
  {
    name: 'version-missing-404',
    description: 'A missing Accept-Version gives 404 instead of 400 (spec §Versioning 2)',
    // Without a token too, 404 is neither rule's answer.
    breaks: ['VERSION-MISSING', 'WRITE-VERSION-MISSING', 'VERSION-AND-AUTH-MISSING', 'WRITE-VERSION-AND-AUTH-MISSING'],
    reply: (r, req) => (header(req, 'accept-version') === undefined && r.status === 400 ? { ...r, status: 404 } : r),
  },
  {
    name: 'version-missing-accepted-on-users-me',
    description: 'GET /users/me alone serves requests without Accept-Version (spec §Versioning 1: every endpoint)',
    breaks: ['VERSION-MISSING'],
    request: (req) => {
      if (req.rawPath === USER_PATH && header(req, 'accept-version') === undefined) req.headers['accept-version'] = '1';
    },
  },
  {
    name: 'invalid-version-accepted',
    description: 'Any Accept-Version value is served as version 1 (spec §Versioning 2)',
    breaks: ['VERSION-INVALID'],
    request: (req) => {
      if (header(req, 'accept-version') !== undefined) req.headers['accept-version'] = '1';
    },
  },
  {
    name: 'invalid-version-500-on-shipments',
    description: 'The list endpoint alone crashes on an invalid Accept-Version: 500 (spec §Versioning 2: 400 or 404)',
    breaks: ['VERSION-INVALID'],
    reply: (r, req) =>
      req.method === 'GET' && isListRequest(req) && r.status === 404 && header(req, 'accept-version') !== '1'
        ? json(500, { error: 'server_error' })
        : r,
  },
  {
    name: 'version-header-case-sensitive',
    description: 'The Accept-Version header is only recognised when spelled exactly so (RFC 9110 §5.1)',
    breaks: ['VERSION-HEADER-CASE'],
    request: (req) => {
      if (req.rawHeaderNames.includes('ACCEPT-VERSION')) delete req.headers['accept-version'];
    },
  },
];

const userFaults: Fault[] = [
  {
    name: 'user-email-omitted',
    description: 'The User omits email instead of sending null (spec §Generic rules for optional fields 1)',
    breaks: ['USER-FIELDS-PRESENT', 'USER-EXPECTED-VALUES'],
    reply: (r, req) => (isUserRequest(req) && r.status === 200 ? withBody(r, (b) => void delete b.email) : r),
  },
  {
    name: 'user-email-empty-string',
    description: 'The User sends "" for an email it does not have (spec §Generic rules for optional fields 2)',
    breaks: ['USER-EXPECTED-VALUES'],
    reply: (r, req) => (isUserRequest(req) && r.status === 200 ? withBody(r, (b) => void (b.email = '')) : r),
  },
  {
    name: 'user-id-not-uuid',
    description: 'The User id is not a UUID (spec §User)',
    breaks: ['USER-SCHEMA', 'USER-EXPECTED-VALUES'],
    reply: (r, req) => (isUserRequest(req) && r.status === 200 ? withBody(r, (b) => void (b.id = 'user-42')) : r),
  },
  {
    name: 'user-tenant-name-omitted',
    description: "The User's tenants omit name when it is empty (spec §User, §Generic rules for optional fields)",
    breaks: ['USER-FIELDS-PRESENT', 'USER-EXPECTED-VALUES'],
    reply: (r, req) =>
      isUserRequest(req) && r.status === 200
        ? withBody(
            r,
            (b) =>
              void (b.tenants = (b.tenants as { id: string; name: string }[]).map((t) =>
                t.name === '' ? { id: t.id } : t,
              )),
          )
        : r,
  },
  {
    name: 'user-not-json',
    description: 'GET /users/me answers with Content-Type text/html (spec §Get the current user: the User object)',
    breaks: ['USER-OK'],
    reply: (r, req) => (isUserRequest(req) && r.status === 200 ? { ...r, contentType: 'text/html' } : r),
  },
];

const legacyFaults: Fault[] = [
  {
    name: 'legacy-token-gone',
    description: 'POST /uaa/oauth/token is no longer rewritten: 404 (spec §Obtain an access token, legacy path)',
    breaks: ['LEGACY-TOKEN', 'VERSION-ONE'],
    errs: ['LEGACY-TOKEN-REFUSES', 'LEGACY-TOKEN-WORKS', ...VERSION_PROBES],
    reply: (r, req) =>
      req.rawPath === LEGACY_TOKEN_PATH ? json(404, { error: 'not_found', message: 'No such resource' }) : r,
  },
  {
    name: 'legacy-tokens-rejected',
    description:
      'Tokens from the legacy token path are not accepted by the API (spec §Obtain an access token: the legacy path is the token endpoint)',
    breaks: ['LEGACY-TOKEN-WORKS'],
    reply: (r, req, ctx) => {
      if (isSuccessfulToken(r, req) && isLegacyRequest(req)) {
        const legacy = (ctx.scratch.get('legacy-tokens-rejected') as Set<string> | undefined) ?? new Set<string>();
        legacy.add((r.body as { access_token: string }).access_token);
        ctx.scratch.set('legacy-tokens-rejected', legacy);
      }
      return r;
    },
    request: (req, ctx) => {
      const token = bearerToken(req);
      const legacy = ctx.scratch.get('legacy-tokens-rejected') as Set<string> | undefined;
      if (token !== undefined && legacy?.has(token)) req.headers.authorization = 'Bearer rejected-by-the-api';
    },
  },
  {
    name: 'legacy-token-refuses-version-1',
    description:
      'The legacy token path answers 404 to Accept-Version: 1, as an old service that knows only its own versions (spec §Versioning 1: every endpoint)',
    breaks: ['VERSION-ONE', 'LEGACY-TOKEN'],
    errs: ['LEGACY-TOKEN-WORKS', 'LEGACY-TOKEN-REFUSES', ...VERSION_PROBES],
    reply: (r, req) =>
      req.rawPath === LEGACY_TOKEN_PATH && header(req, 'accept-version')?.trim() === '1'
        ? json(404, { error: 'unsupported_version', error_description: 'Unknown version' })
        : r,
  },
  {
    name: 'legacy-userinfo-gone',
    description: 'GET /uaa/userinfo is no longer rewritten: 404 (spec §Get the current user, legacy path)',
    breaks: ['LEGACY-USERINFO', 'VERSION-ONE'],
    errs: [...VERSION_PROBES, ...AUTH_PROBES],
    reply: (r, req) =>
      req.rawPath === LEGACY_USER_PATH ? json(404, { error: 'not_found', message: 'No such resource' }) : r,
  },
  {
    name: 'legacy-redirect',
    description:
      'The legacy paths answer 308 redirects instead of being rewritten by the gateway (spec: "the gateway rewrites it")',
    breaks: ['LEGACY-NO-REDIRECT', 'LEGACY-TOKEN', 'LEGACY-USERINFO', 'VERSION-ONE'],
    errs: ['LEGACY-TOKEN-REFUSES', 'LEGACY-TOKEN-WORKS', ...VERSION_PROBES, ...AUTH_PROBES],
    reply: (r, req) => (isLegacyRequest(req) ? json(308, {}, { Location: req.path }) : r),
  },
  {
    name: 'legacy-userinfo-differs',
    description: 'GET /uaa/userinfo returns a different User than /users/me (an old shape without tenants)',
    breaks: ['LEGACY-USERINFO'],
    reply: (r, req) =>
      isLegacyRequest(req) && isUserRequest(req) && r.status === 200 ? withBody(r, (b) => void delete b.tenants) : r,
  },
  {
    name: 'legacy-token-accepts-wrong-secret',
    description: 'The legacy token path accepts a wrong secret (spec §Authentication 2)',
    breaks: ['LEGACY-TOKEN-REFUSES'],
    request: (req, ctx) => {
      if (req.rawPath === LEGACY_TOKEN_PATH && basicClientId(req) === ctx.behaviour.clientId)
        req.headers.authorization = validBasic(ctx);
    },
  },
];

/**
 * The answer a client that may access the request's tenant would get: what a server that forgets
 * to check the tenant against the token serves (its data, to another tenant's client).
 */
function asTenantOwner(r: Reply, req: Req, ctx: ReferenceContext): Reply {
  const tenant = ctx.tenants.get(tenantSegment(req)?.toLowerCase() ?? '');
  if (r.status !== 403 || tenant === undefined) return r;
  return routeResource(req.method, { ...req, client: tenant.accessible ? 'first' : 'second' }, ctx);
}

const UUID_SEGMENT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What a tenant path asks for, of `tenant`: the first items of its list (of a single item's list too), or its settings. */
function tenantData(req: Req, tenant: TenantRecord): unknown {
  const collection = /^\/tenants\/[^/]+\/(shipments|invoices)(?:\/|$)/.exec(req.path)?.[1] as Collection | undefined;
  return collection ? listSlice(tenant, collection, 0, 3) : settingsOf(tenant);
}

const tenantFaults: Fault[] = [
  {
    name: 'cross-tenant-data',
    description:
      "A tenant the client may not access is served, another client's tenant data included (spec §Authentication 5, tenant isolation)",
    breaks: ['TENANT-FOREIGN'],
    reply: asTenantOwner,
  },
  {
    name: 'unknown-tenant-served',
    description:
      'A tenantId that names no tenant gets 200 and an empty list instead of 403 or 404 (spec §Tenant-scoped endpoints, §Authentication 5)',
    breaks: ['TENANT-UNKNOWN', 'WRITE-TENANT-UNKNOWN'],
    reply: (r, req, ctx) => {
      const id = tenantSegment(req) ?? '';
      const request = parsePageRequest(req.query, ctx.behaviour);
      if (
        r.status !== 404 ||
        !isListRequest(req) ||
        !UUID_SEGMENT.test(id) ||
        ctx.tenants.has(id.toLowerCase()) ||
        isRefusal(request)
      )
        return r;
      return json(200, [], pagingHeaders(pageWindow(request, 0), req.path));
    },
  },
  {
    name: 'foreign-refusal-with-data',
    description:
      'The 403 for a foreign tenant carries the data asked for anyway: its items, its settings (spec §Authentication 5)',
    breaks: ['TENANT-FOREIGN'],
    reply: (r, req, ctx) => {
      const tenant = ctx.tenants.get(tenantSegment(req)?.toLowerCase() ?? '');
      return r.status === 403 && tenant ? { ...r, body: tenantData(req, tenant) } : r;
    },
  },
  {
    // An array in an error body is no evidence of data (issue 38 item 2): these are the tenant's
    // own items, known by their ids.
    name: 'invalid-id-refusal-with-data',
    description:
      'The 400 for a tenantId that is not a UUID falls back to the client\'s own tenant and carries its data beside the error, {"error": …, "data": [...]} (spec §Tenant identifier)',
    breaks: ['TENANT-INVALID-ID'],
    reply: (r, req, ctx) => {
      const own = ctx.tenants.get(MAIN_TENANT_ID);
      return tenantSegment(req) !== undefined && r.status === 400 && /tenantId/.test(JSON.stringify(r.body)) && own
        ? { ...r, body: { ...(r.body as object), data: tenantData(req, own) } }
        : r;
    },
  },
  {
    name: 'invalid-tenant-id-500',
    description: 'A tenantId that is not a UUID crashes the server: 500 (spec §Tenant identifier)',
    breaks: ['TENANT-INVALID-ID', 'WRITE-TENANT-INVALID-ID'],
    reply: (r, req) =>
      tenantSegment(req) !== undefined && r.status === 400 && /tenantId/.test(JSON.stringify(r.body))
        ? json(500, { error: 'server_error' })
        : r,
  },
  {
    name: 'tenant-access-denied',
    description: 'The tenant the user may access answers 403 (spec §Tenant-scoped endpoints)',
    breaks: ['TENANT-ACCESS', 'VERSION-ONE'],
    errs: [
      ...LIST_CHECKS,
      ...VERSION_PROBES,
      ...AUTH_PROBES,
      'TENANT-FOREIGN',
      'TENANT-UNKNOWN',
      'TENANT-UNKNOWN-NO-AUTH',
      'TENANT-INVALID-ID',
      'RESOURCE-SCHEMA',
      'RESOURCE-FIELDS-PRESENT',
      'RESOURCE-EXPECTED-VALUES',
    ],
    reply: (r, req) =>
      tenantSegment(req)?.toLowerCase() === MAIN_TENANT_ID && r.status === 200
        ? apiError({ status: 403, error: 'forbidden', description: 'Denied' })
        : r,
  },
];

/** A request to create a shipment (POST /tenants/{tenantId}/shipments): the write the faults below break. */
const isCreate = (req: Req): boolean => req.method === 'POST' && /^\/tenants\/[^/]+\/shipments$/.test(req.path);
const crash = (): Reply => json(500, { error: 'server_error', message: 'Internal server error' });

/**
 * Faults of a write operation (issue 41): each answers one defect of a create request, from its
 * header section, as real stacks get it wrong; the probes never send content
 * (src/battery/writes.ts), and the control (valid headers) is asked for its content.
 */
const writeFaults: Fault[] = [
  {
    name: 'write-version-404',
    description:
      'A create request without Accept-Version is routed as an unknown version: 404 where the spec asks 400 (spec §Versioning 2), on the write operation only',
    // Without a token too, 404 is neither rule's answer.
    breaks: ['WRITE-VERSION-MISSING', 'WRITE-VERSION-AND-AUTH-MISSING'],
    reply: (r, req) =>
      isCreate(req) && header(req, 'accept-version') === undefined
        ? apiError({ status: 404, error: 'not_found', description: 'No route for this version' })
        : r,
  },
  {
    name: 'write-version-500',
    description:
      'A create request with an Accept-Version that names no version crashes the server: 500 (spec §Versioning 2), on the write operation only',
    breaks: ['WRITE-VERSION-INVALID'],
    reply: (r, req) => {
      const version = header(req, 'accept-version');
      return isCreate(req) && version !== undefined && version.trim() !== '1' ? crash() : r;
    },
  },
  {
    name: 'write-anonymous-403',
    description:
      'A create request without Authorization is taken as an anonymous client and refused 403 without a Bearer challenge (RFC 6750 §3), on the write operation only',
    breaks: ['WRITE-AUTH-MISSING'],
    reply: (r, req) =>
      isCreate(req) && header(req, 'authorization') === undefined && r.status === 401
        ? apiError({ status: 403, error: 'forbidden', description: 'Access denied' })
        : r,
  },
  {
    name: 'write-token-403',
    description:
      'A create request with a malformed or unknown bearer token is refused 403 without a Bearer challenge (RFC 6750 §3), on the write operation only',
    breaks: ['WRITE-AUTH-INVALID'],
    reply: (r, req) =>
      isCreate(req) &&
      header(req, 'authorization') !== undefined &&
      (r.status === 401 || r.status === 400) &&
      replyHeader(r, 'www-authenticate') !== undefined
        ? apiError({ status: 403, error: 'forbidden', description: 'Access denied' })
        : r,
  },
  {
    name: 'write-tenant-500',
    description:
      'A create request in a tenant that does not exist crashes the server: 500 (spec §Tenant-scoped endpoints), on the write operation only',
    breaks: ['WRITE-TENANT-UNKNOWN'],
    reply: (r, req) => (isCreate(req) && r.status === 404 && errorCode(r) === 'not_found' ? crash() : r),
  },
  {
    name: 'write-tenant-id-500',
    description:
      'A create request whose tenantId is not a UUID crashes the server: 500 (spec §Tenant identifier), on the write operation only',
    breaks: ['WRITE-TENANT-INVALID-ID'],
    reply: (r, req) =>
      isCreate(req) &&
      r.status === 400 &&
      errorCode(r) === 'invalid_request' &&
      !/^[0-9a-f-]{36}$/i.test(tenantSegment(req) ?? '')
        ? crash()
        : r,
  },
];

/**
 * Two defects at once (src/battery/precedence.ts): each rule alone is kept, and the request that
 * breaks both gets neither rule's answer, the way a server goes wrong when one check leans on what
 * the other has not established yet.
 */
const precedenceFaults: Fault[] = [
  {
    name: 'no-version-no-token-500',
    description:
      "A request with neither Accept-Version nor Authorization crashes the server: 500, where either rule's answer (400, or 401 with a Bearer challenge) is due (its version negotiation reads the client's plan from the token it does not have); reads and writes",
    breaks: ['VERSION-AND-AUTH-MISSING', 'WRITE-VERSION-AND-AUTH-MISSING'],
    reply: (r, req) =>
      !isTokenRequest(req) && header(req, 'accept-version') === undefined && header(req, 'authorization') === undefined
        ? crash()
        : r,
  },
  {
    name: 'unknown-tenant-no-token-500',
    description:
      "A tenant that does not exist, asked for without Authorization, crashes the server: 500, where either rule's answer (403 or 404, or 401 with a Bearer challenge) is due (its tenant lookup reads the caller's tenants before authentication); reads and writes",
    breaks: ['TENANT-UNKNOWN-NO-AUTH', 'WRITE-TENANT-UNKNOWN-NO-AUTH'],
    reply: (r, req, ctx) => {
      const id = tenantSegment(req) ?? '';
      return header(req, 'authorization') === undefined && UUID_SEGMENT.test(id) && !ctx.tenants.has(id.toLowerCase())
        ? crash()
        : r;
    },
  },
];

const pagingHeaderFault = (
  name: string,
  headerName: string,
  alsoBreaks: readonly string[],
  errs: readonly string[] = [],
): Fault => ({
  name,
  description: `List pages omit the ${headerName} header (spec §Pagination)`,
  breaks: ['PAGE-HEADERS'],
  alsoBreaks,
  errs,
  reply: (r, req) => (isList(r, req) ? withHeader(r, headerName, undefined) : r),
});

/** size-capped-silently: the most items a page holds, whatever Page-Size says. */
const SILENT_SIZE_CAP = 12;
/** size-capped-silently: the largest size served at all; larger ones get a 422. */
const SIZE_VALIDATION_MAX = 100;

const paginationFaults: Fault[] = [
  // Without one of the three numbers PAGE-TOTALS has nothing to compare: it errs, pointing at PAGE-HEADERS.
  // Without Page-Size or Total-Elements no page can be counted (min(Page-Size, Total-Elements −
  // (n − 1) × Page-Size) items): PAGE-WALK errs, and so does PAGE-ECHO where its own rule holds.
  pagingHeaderFault('no-total-pages', 'Total-Pages', [], ['PAGE-TOTALS']),
  pagingHeaderFault('no-page-size', 'Page-Size', ['PAGE-ECHO'], ['PAGE-TOTALS', 'PAGE-WALK']),
  pagingHeaderFault('no-page-number', 'Page-Number', [
    'PAGE-ECHO',
    'LINK-NEXT',
    'LINK-PREV',
    'LINK-FIRST-LAST',
    'LINK-FOLLOW',
  ]),
  pagingHeaderFault('no-total-elements', 'Total-Elements', [], ['PAGE-TOTALS', 'PAGE-ECHO', 'PAGE-WALK']),
  {
    name: 'paging-header-repeated',
    description: 'Total-Elements is sent on two field lines (spec §Pagination: one number)',
    breaks: ['PAGE-HEADERS'],
    reply: (r, req) =>
      isList(r, req)
        ? withHeader(r, 'Total-Elements', [
            replyHeader(r, 'Total-Elements') ?? '0',
            replyHeader(r, 'Total-Elements') ?? '0',
          ])
        : r,
  },
  {
    name: 'paging-header-not-integer',
    description: 'Total-Elements is "23.0", not an integer (spec §Pagination)',
    breaks: ['PAGE-HEADERS'],
    errs: ['PAGE-TOTALS', 'PAGE-ECHO', 'PAGE-WALK'],
    reply: (r, req) =>
      isList(r, req) ? withHeader(r, 'Total-Elements', `${replyHeader(r, 'Total-Elements') ?? '0'}.0`) : r,
  },
  {
    name: 'page-number-always-1',
    description: 'Page-Number says 1 whatever page was asked for (spec §Pagination)',
    breaks: ['PAGE-ECHO'],
    alsoBreaks: ['LINK-NEXT', 'LINK-PREV', 'LINK-FIRST-LAST', 'LINK-FOLLOW'],
    reply: (r, req) => (isList(r, req) ? withHeader(r, 'Page-Number', '1') : r),
  },
  {
    name: 'page-size-not-echoed',
    description: 'Page-Size states the default size, not the size asked for (spec §Pagination)',
    breaks: ['PAGE-ECHO'],
    alsoBreaks: ['PAGE-TOTALS', 'PAGE-WALK', 'LINK-NEXT', 'LINK-PREV', 'LINK-FIRST-LAST'],
    reply: (r, req, ctx) =>
      isList(r, req) && req.query.has('size')
        ? withHeader(r, 'Page-Size', String(ctx.behaviour.pageSizeDefault * 2))
        : r,
  },
  {
    name: 'total-pages-off-by-one',
    description: 'Total-Pages is one more than ceil(Total-Elements / Page-Size) (spec §Pagination)',
    breaks: ['PAGE-TOTALS'],
    alsoBreaks: ['PAGE-WALK', 'PAGE-PAST-END', 'LINK-NEXT', 'LINK-FIRST-LAST', 'LINK-FOLLOW', 'LINK-PREV'],
    reply: (r, req) =>
      isList(r, req) ? withHeader(r, 'Total-Pages', String(Number(replyHeader(r, 'Total-Pages') ?? '0') + 1)) : r,
  },
  {
    name: 'total-elements-off-by-one',
    description: 'Total-Elements is one more than the items the pages hold (spec §Pagination)',
    breaks: ['PAGE-WALK', 'LINK-FOLLOW'],
    // PAGE-ECHO's probes count their pages by the same headers.
    alsoBreaks: ['PAGE-ECHO'],
    reply: (r, req) =>
      isList(r, req) ? withHeader(r, 'Total-Elements', String(Number(replyHeader(r, 'Total-Elements') ?? '0') + 1)) : r,
  },
  {
    name: 'default-page-is-last',
    description: 'Without a page parameter the last page is returned (spec §Pagination: default 1)',
    breaks: ['PAGE-DEFAULT'],
    request: (req, ctx) => {
      const w = isListRequest(req) && !req.query.has('page') ? listWindow(req, ctx) : undefined;
      if (w && w.totalPages > 1) req.query.set('page', String(w.totalPages));
    },
  },
  {
    name: 'pages-overlap',
    description:
      "Every page after the first starts one item early, repeating the previous page's last item (spec §Pagination)",
    breaks: ['PAGE-WALK'],
    alsoBreaks: ['LINK-FOLLOW'],
    reply: (r, req, ctx) =>
      isList(r, req)
        ? withSlice(r, req, ctx, (w) => (w.page > 1 && w.from < w.to ? [w.from - 1, w.to - 1] : [w.from, w.to]))
        : r,
  },
  {
    name: 'pages-lose-items',
    description: 'Every page after the first skips its first item (spec §Pagination)',
    breaks: ['PAGE-WALK', 'LINK-FOLLOW'],
    // PAGE-ECHO's probe of page 2 counts one item short too.
    alsoBreaks: ['PAGE-ECHO'],
    reply: (r, req, ctx) =>
      isList(r, req) ? withSlice(r, req, ctx, (w) => (w.page > 1 ? [w.from + 1, w.to] : [w.from, w.to])) : r,
  },
  {
    name: 'page-past-end-500',
    description: 'A page past the end crashes the server: 500 (spec §Pagination)',
    breaks: ['PAGE-PAST-END'],
    reply: (r, req, ctx) => {
      const w = isList(r, req) ? listWindow(req, ctx) : undefined;
      return w && w.page > Math.max(w.totalPages, 1) ? json(500, { error: 'server_error' }) : r;
    },
  },
  {
    name: 'page-past-end-repeats-last',
    description: "A page past the end repeats the last page's items (spec §Pagination)",
    breaks: ['PAGE-PAST-END'],
    reply: (r, req, ctx) =>
      isList(r, req)
        ? withSlice(r, req, ctx, (w) =>
            w.page > w.totalPages && w.totalPages > 0 ? [(w.totalPages - 1) * w.size, w.totalElements] : [w.from, w.to],
          )
        : r,
  },
  {
    name: 'invalid-page-500',
    description: 'A page parameter that is not a number crashes the server: 500 (spec §Pagination)',
    breaks: ['PAGE-INVALID-PARAMS'],
    reply: (r, req) =>
      isListRequest(req) &&
      r.status === 400 &&
      /page/.test(JSON.stringify(r.body)) &&
      !/^\d*$/.test(req.query.get('page') ?? '')
        ? json(500, { error: 'server_error' })
        : r,
  },
  {
    name: 'size-zero-served',
    description: 'size=0 is served as an empty page with Page-Size 0 (spec §Pagination: a page has elements)',
    breaks: ['PAGE-INVALID-PARAMS'],
    reply: (r, req, ctx) => {
      if (!isListRequest(req) || req.query.get('size') !== '0') return r;
      const tenant = ctx.tenants.get(tenantSegment(req)?.toLowerCase() ?? '');
      return json(200, [], {
        'Total-Pages': '0',
        'Page-Size': '0',
        'Page-Number': req.query.get('page') ?? '1',
        'Total-Elements': String(tenant?.shipmentCount ?? 0),
      });
    },
  },
  {
    // The cap is above the size the walk and the half-size probe ask for (10 and 5 by default) and
    // below the length of both lists (23 and 14); and the validation maximum refuses a size far
    // beyond any cap with a 4xx, as FastAPI's `Query(le=100)` does (issue 38 item 4): only a size
    // a client would ask for, between the two, meets the cap.
    name: 'size-capped-silently',
    description: `A size above ${SILENT_SIZE_CAP} is served ${SILENT_SIZE_CAP} items a page, while Page-Size echoes the size asked for and Total-Pages is computed from it (spec §Pagination: Page-Size is the number of elements per page); a size above ${SIZE_VALIDATION_MAX} is refused with FastAPI's 422`,
    breaks: ['PAGE-ECHO'],
    reply: (r, req, ctx) => {
      const asked = Number(req.query.get('size'));
      if (isList(r, req) && Number.isSafeInteger(asked) && asked > SIZE_VALIDATION_MAX)
        return json(422, {
          detail: [
            {
              loc: ['query', 'size'],
              msg: `ensure this value is less than or equal to ${SIZE_VALIDATION_MAX}`,
              type: 'value_error.number.not_le',
              ctx: { limit_value: SIZE_VALIDATION_MAX },
            },
          ],
        });
      const w = isList(r, req) ? listWindow(req, ctx) : undefined;
      const tenant = w && ctx.tenants.get(w.tenantId);
      if (!w || !tenant || !Number.isSafeInteger(asked) || asked <= SILENT_SIZE_CAP) return r;
      const echoed = pageWindow({ page: w.page, size: asked }, w.totalElements);
      const headers = pagingHeaders(echoed, `${forwardedPrefix(req.headers)}${req.path}`);
      let reply: Reply = {
        ...r,
        body: listSlice(tenant, w.collection, echoed.from, Math.min(echoed.to, echoed.from + SILENT_SIZE_CAP)),
      };
      for (const [name, value] of Object.entries(headers)) reply = withHeader(reply, name, value);
      return reply;
    },
  },
  {
    name: 'no-link-header',
    description: 'List pages carry no Link header (spec §Pagination: links to other pages)',
    breaks: ['LINK-NEXT', 'LINK-FOLLOW'],
    reply: (r, req) => (isList(r, req) ? withHeader(r, 'Link', undefined) : r),
  },
  {
    name: 'link-unterminated',
    description: 'The Link header has an unterminated <target (RFC 8288 §3)',
    breaks: ['LINK-SYNTAX'],
    alsoBreaks: ['LINK-NEXT', 'LINK-PREV', 'LINK-FIRST-LAST', 'LINK-FOLLOW'],
    reply: (r, req) => withLinks(r, req, (link) => link.replace(/>; rel="last"/, '; rel="last"')),
  },
  {
    name: 'link-without-rel',
    description: 'A link of the Link header has no rel parameter (RFC 8288 §3.3: rel MUST be present)',
    breaks: ['LINK-SYNTAX'],
    alsoBreaks: ['LINK-FIRST-LAST'],
    reply: (r, req) => withLinks(r, req, (link) => link.replace(/; rel="first"/, '; title="first"')),
  },
  {
    name: 'next-skips-a-page',
    description: 'rel="next" points two pages ahead (spec §Pagination)',
    breaks: ['LINK-NEXT', 'LINK-FOLLOW'],
    reply: (r, req) => withLinks(r, req, (link) => retarget(link, 'next', (n) => n + 1)),
  },
  {
    name: 'next-links-disagree',
    description:
      'Pages before the last carry a second rel="next", two pages ahead, after the right one (spec §Pagination: one next page)',
    breaks: ['LINK-NEXT'],
    reply: (r, req, ctx) => {
      const w = isList(r, req) ? listWindow(req, ctx) : undefined;
      if (!w || w.page >= w.totalPages) return r;
      return withLinks(
        r,
        req,
        (link) => `${link}, <${forwardedPrefix(req.headers)}${req.path}?page=${w.page + 2}&size=${w.size}>; rel="next"`,
      );
    },
  },
  {
    name: 'next-on-last-page',
    description: 'The last page links rel="next" past the end (spec §Pagination)',
    breaks: ['LINK-NEXT', 'LINK-FOLLOW'],
    reply: (r, req, ctx) => {
      const w = isList(r, req) ? listWindow(req, ctx) : undefined;
      if (!w || w.page !== w.totalPages) return r;
      return withLinks(r, req, (link) => `${link}, <${req.path}?page=${w.page + 1}&size=${w.size}>; rel="next"`);
    },
  },
  {
    name: 'prev-points-forward',
    description: 'rel="prev" points at the next page instead of the previous one (spec §Pagination)',
    breaks: ['LINK-PREV'],
    reply: (r, req) => withLinks(r, req, (link) => retarget(link, 'prev', (n) => n + 2)),
  },
  {
    name: 'prev-on-first-page',
    description: 'Page 1 links rel="prev" to a page 0 (spec §Pagination)',
    breaks: ['LINK-PREV'],
    reply: (r, req, ctx) => {
      const w = isList(r, req) ? listWindow(req, ctx) : undefined;
      return w?.page === 1
        ? withLinks(r, req, (link) => `${link}, <${req.path}?page=0&size=${w.size}>; rel="prev"`)
        : r;
    },
  },
  {
    name: 'last-link-off-by-one',
    description: 'rel="last" points at the page before the last (spec §Pagination)',
    breaks: ['LINK-FIRST-LAST'],
    reply: (r, req) => withLinks(r, req, (link) => retarget(link, 'last', (n) => n - 1)),
  },
  {
    name: 'first-link-page-0',
    description: 'rel="first" points at page 0 (spec §Pagination: pages count from 1)',
    breaks: ['LINK-FIRST-LAST'],
    reply: (r, req) => withLinks(r, req, (link) => retarget(link, 'first', () => 0)),
  },
  {
    // Issue 38 item 3: the walk pages at the default size, where `?page=2` is the same page as
    // `?page=2&size=10`; only a page read at another size shows the links lose the client's size.
    name: 'links-drop-size',
    description:
      "Link targets keep only the page, `?page=3`, dropping the size asked for, as Starlette's `request.url.replace_query_params(page=n)` builds them (spec §Pagination: links to the other pages of the same list)",
    breaks: ['LINK-NEXT', 'LINK-PREV', 'LINK-FIRST-LAST', 'LINK-FOLLOW'],
    reply: (r, req) => withLinks(r, req, (link) => link.replace(/([?&]page=\d+)&size=\d+/g, '$1')),
  },
  {
    name: 'link-headers-stale-size',
    description: 'The links of a page ignore the size asked for and use the default (spec §Pagination)',
    breaks: ['LINK-NEXT', 'LINK-PREV', 'LINK-FIRST-LAST'],
    alsoBreaks: ['LINK-FOLLOW'],
    reply: (r, req, ctx) => {
      const w = isList(r, req) ? listWindow(req, ctx) : undefined;
      if (!w) return r;
      const stale = pagingHeaders(
        { ...pageWindow({ page: w.page, size: ctx.behaviour.pageSizeDefault + 1 }, w.totalElements) },
        `${forwardedPrefix(req.headers)}${req.path}`,
      ).Link;
      return withHeader(r, 'Link', stale);
    },
  },
  // A client follows a link with its token only on the API's own origin (RFC 6750 §5.3: bearer
  // tokens must not leak to unintended parties), so these links lead nowhere: the link checks
  // fail, and the checks that page by number (the walk's own requests) keep their verdict.
  {
    name: 'link-javascript',
    description:
      'rel="next" targets are javascript: URIs, not pages of the API (spec §Pagination: links to other pages)',
    breaks: ['LINK-NEXT', 'LINK-FOLLOW'],
    reply: (r, req) =>
      withLinks(r, req, (link) =>
        link.replace(/<[^>]*>; rel="next"/, '<javascript:alert(document.domain)>; rel="next"'),
      ),
  },
  {
    name: 'link-foreign-origin',
    description:
      'Link targets are the right paths on another origin, http://evil.example (spec §Pagination: links to other pages of the API)',
    breaks: ['LINK-NEXT', 'LINK-PREV', 'LINK-FIRST-LAST', 'LINK-FOLLOW'],
    reply: (r, req) => withLinks(r, req, (link) => link.replace(/<\//g, '<http://evil.example/')),
  },
];

/** GET /tenants/{tenantId}/<list>/{id}: a single resource under a list. */
const isSingleItemRequest = (req: Req): boolean => /^\/tenants\/[^/]+\/(shipments|invoices)\/[^/]+$/.test(req.path);
const isInvoicesPath = (req: Req): boolean => /^\/tenants\/[^/]+\/invoices(\/[^/]+)?$/.test(req.path);
const isInvoiceList = (reply: Reply, req: Req): boolean => isList(reply, req) && /\/invoices$/.test(req.path);

/** Edits the object of a successful single-resource reply. */
function withResource(reply: Reply, edit: (resource: Record<string, unknown>) => void): Reply {
  if (reply.status !== 200 || reply.body === null || typeof reply.body !== 'object' || Array.isArray(reply.body))
    return reply;
  const copy = { ...(reply.body as Record<string, unknown>) };
  edit(copy);
  return { ...reply, body: copy };
}

const resourceFaults: Fault[] = [
  {
    name: 'invoice-amount-as-string',
    description:
      'Invoices carry amountCents as a string ("12345"): a wrong type that only the declared schema reveals (every item still has every field)',
    breaks: ['RESOURCE-SCHEMA'],
    // The seeded invoices' amounts are numbers: the ground truth sees the string too.
    alsoBreaks: ['RESOURCE-EXPECTED-VALUES'],
    reply: (r, req) => {
      if (!isInvoicesPath(req) || r.status !== 200) return r;
      const edit = (item: Record<string, unknown>): void => void (item.amountCents = String(item.amountCents));
      return Array.isArray(r.body) ? withItems(r, edit) : withResource(r, edit);
    },
  },
  {
    name: 'single-null-fields-omitted',
    description:
      'A shipment or invoice fetched by id omits its fields without data instead of sending null (spec §Generic rules for optional fields 1); the lists are right',
    breaks: ['RESOURCE-FIELDS-PRESENT'],
    // The first shipment is seeded with deliveredAt null: the ground truth sees it missing too.
    alsoBreaks: ['RESOURCE-EXPECTED-VALUES'],
    reply: (r, req) =>
      isSingleItemRequest(req)
        ? withResource(r, (item) => Object.keys(item).forEach((k) => item[k] === null && delete item[k]))
        : r,
  },
  {
    name: 'seeded-null-as-empty-string',
    description:
      'Invoice list items send "" where the note is null (spec §Generic rules for optional fields 2): allowed by the schema, wrong against the seeded data',
    breaks: ['RESOURCE-EXPECTED-VALUES'],
    reply: (r, req) =>
      isInvoiceList(r, req) ? withItems(r, (item) => void (item.note === null && (item.note = ''))) : r,
  },
  {
    name: 'seeded-empty-string-as-null',
    description:
      'Invoice list items send null where the note is "" (spec §Generic rules for optional fields 2): "" is a value, not a stand-in for null',
    breaks: ['RESOURCE-EXPECTED-VALUES'],
    reply: (r, req) =>
      isInvoiceList(r, req) ? withItems(r, (item) => void (item.note === '' && (item.note = null))) : r,
  },
  {
    name: 'version-ignored-on-single-invoice',
    description:
      'GET /tenants/{tenantId}/invoices/{invoiceId} alone serves requests without or with an invalid Accept-Version (spec §Versioning 1: every endpoint)',
    breaks: ['VERSION-MISSING', 'VERSION-INVALID'],
    request: (req) => {
      if (/^\/tenants\/[^/]+\/invoices\/[^/]+$/.test(req.path)) req.headers['accept-version'] = '1';
    },
  },
  {
    name: 'single-resource-cross-tenant',
    description:
      'A shipment or invoice by id is served to a client that may not access its tenant (spec §Authentication 5); the lists are isolated',
    breaks: ['TENANT-FOREIGN'],
    reply: (r, req, ctx) => (isSingleItemRequest(req) ? asTenantOwner(r, req, ctx) : r),
  },
];

const nullFaults: Fault[] = [
  {
    name: 'item-null-fields-omitted',
    description:
      'List items omit fields without data instead of sending null (spec §Generic rules for optional fields 1)',
    breaks: ['NULLS-SAME-FIELDS'],
    // The same omission, against the declared properties and against the seeded items.
    alsoBreaks: ['RESOURCE-FIELDS-PRESENT', 'RESOURCE-EXPECTED-VALUES'],
    reply: (r, req) =>
      isList(r, req)
        ? withItems(r, (item) => {
            for (const [k, v] of Object.entries(item)) if (v === null) delete item[k];
          })
        : r,
  },
];

export const FAULTS: readonly Fault[] = [
  ...tokenFaults,
  ...expiryFaults,
  ...authFaults,
  ...versionFaults,
  ...userFaults,
  ...legacyFaults,
  ...tenantFaults,
  ...writeFaults,
  ...precedenceFaults,
  ...paginationFaults,
  ...nullFaults,
  ...resourceFaults,
];
