/**
 * Variants of the reference server: behaviour that is unusual but conformant, as real servers
 * and gateways legitimately differ where the spec and the RFCs allow it. The meta-tests require
 * the harness to pass every one of them with no failure and no warning: a check that fails a
 * conformant server gets switched off by its users.
 */
import {
  bearerToken,
  errorCode,
  formParam,
  header,
  isListRequest,
  isResourceRequest,
  isTokenRequest,
  isUserRequest,
  tenantSegment,
  replyHeader,
  withBody,
  withHeader,
  withItems,
  authoriseWithFreshToken,
  type Alteration,
} from './alterations.js';
import type { ReferenceContext } from './context.js';
import { authenticateBearer } from './bearer-auth.js';
import { apiError, type Reply } from './reply.js';
import type { Req } from './request.js';

export type Variant = Alteration & {
  /**
   * Set on a variant that breaks a rule the harness cannot judge without ground truth: the run
   * passes (the verdict is as for the reference server) and the report shows these review items,
   * each "<endpoint> <field>" (src/model/run-report.ts reviewItemSchema). The reference's own
   * --expectations file knows better, and a run with it fails (test/meta/variants.test.ts).
   */
  readonly review?: readonly string[];
};

const isList = (reply: Reply, req: Req): boolean => isListRequest(req) && reply.status === 200;

/** other-grants-refused-variously: each grant's refusal, status and RFC 6749 §5.2 code. */
const OTHER_GRANT_REFUSALS: ReadonlyMap<string, readonly [number, string]> = new Map([
  ['authorization_code', [400, 'invalid_grant']],
  ['refresh_token', [400, 'invalid_grant']],
  ['password', [400, 'unauthorized_client']],
  ['urn:ietf:params:oauth:grant-type:jwt-bearer', [401, 'invalid_client']],
  ['urn:ietf:params:oauth:grant-type:device_code', [400, 'invalid_request']],
  ['urn:ietf:params:oauth:grant-type:token-exchange', [400, 'invalid_scope']],
]);

/** Rewrites every link of a list page's Link header; `links` are `[target, rel]` pairs. */
function relink(
  reply: Reply,
  req: Req,
  format: (links: [string, string][], req: Req) => string | readonly string[],
): Reply {
  const link = isList(reply, req) ? replyHeader(reply, 'Link') : undefined;
  if (link === undefined) return reply;
  const links = [...link.matchAll(/<([^>]*)>; rel="([^"]*)"/g)].map((m): [string, string] => [m[1] ?? '', m[2] ?? '']);
  return withHeader(reply, 'Link', format(links, req));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const joined = (parts: string[]): string => parts.join(', ');

/** The refusal of a tenant path for its tenant: a tenantId that is not a UUID (400), a tenant the client may not access (403). */
const isTenantRefusal = (reply: Reply, req: Req): boolean =>
  tenantSegment(req) !== undefined &&
  ((reply.status === 400 && /tenantId/.test(JSON.stringify(reply.body))) || reply.status === 403);

export const VARIANTS: readonly Variant[] = [
  // ── status codes the spec or the RFCs leave open ───────────────────────────────────────
  {
    name: 'invalid-version-400',
    description: 'An invalid Accept-Version gets 400 instead of 404 (spec §Versioning 2: either)',
    reply: (r, req) =>
      r.status === 404 && header(req, 'accept-version') !== undefined && header(req, 'accept-version')?.trim() !== '1'
        ? { ...r, status: 400 }
        : r,
  },
  {
    name: 'no-credentials-400',
    description:
      'A token request without client authentication gets 400 invalid_client without a challenge (RFC 6749 §5.2 allows 400)',
    reply: (r, req) =>
      isTokenRequest(req) && r.status === 401 && header(req, 'authorization') === undefined
        ? withHeader({ ...r, status: 400 }, 'WWW-Authenticate', undefined)
        : r,
  },
  {
    name: 'no-credentials-invalid-request',
    description:
      'A token request without client authentication gets 400 invalid_request, as oidc-provider (OpenID Certified) answers (RFC 6749 §5.2: a request missing a required part)',
    reply: (r, req) =>
      isTokenRequest(req) && r.status === 401 && header(req, 'authorization') === undefined
        ? withHeader(
            withBody({ ...r, status: 400 }, (b) => void (b.error = 'invalid_request')),
            'WWW-Authenticate',
            undefined,
          )
        : r,
  },
  {
    // Issue 38: what real servers answer to the grants they ship, in the order they validate. Any
    // refusal without a token is conformant (TOKEN-GRANT-OTHERS); only the invented grant must
    // get unsupported_grant_type (TOKEN-GRANT-UNSUPPORTED), and it still does.
    name: 'other-grants-refused-variously',
    description:
      "Grants other than client_credentials are refused as real servers do: authorization_code and refresh_token 400 invalid_grant (the vendors' flow of spec §Authentication 6 served here, the material checked first), password 400 unauthorized_client, the JWT bearer grant 401 invalid_client, the device code 400 invalid_request, token exchange 400 invalid_scope (RFC 6749 §5.2)",
    reply: (r, req) => {
      if (!isTokenRequest(req) || errorCode(r) !== 'unsupported_grant_type') return r;
      const refusal = OTHER_GRANT_REFUSALS.get(formParam(req, 'grant_type') ?? '');
      if (!refusal) return r;
      const [status, error] = refusal;
      const refused = withBody(
        { ...r, status },
        (b) => void ((b.error = error), (b.error_description = `Refused: ${error}`)),
      );
      return status === 401
        ? withHeader(refused, 'WWW-Authenticate', 'Basic realm="carrier-platform", charset="UTF-8"')
        : refused;
    },
  },
  {
    name: 'malformed-bearer-401',
    description:
      'An empty Bearer credential gets 401 invalid_token instead of 400 invalid_request (RFC 6750 §3.1: either is reasonable)',
    reply: (r, req) =>
      isResourceRequest(req) && r.status === 400 && /^bearer\s*$/i.test(header(req, 'authorization') ?? '')
        ? withHeader(
            { ...r, status: 401 },
            'WWW-Authenticate',
            'Bearer realm="carrier-platform", error="invalid_token"',
          )
        : r,
  },
  {
    name: 'past-end-404',
    description:
      'A page past the end answers 404 instead of an empty page (spec §Pagination is silent; both are reasonable)',
    reply: (r, req) => {
      const page = Number(req.query.get('page') ?? '1');
      const total = Number(replyHeader(r, 'Total-Pages') ?? 'NaN');
      return isList(r, req) && page > Math.max(total, 1)
        ? {
            status: 404,
            headers: { 'Cache-Control': 'no-store' },
            body: { error: 'not_found', message: 'No such page' },
          }
        : r;
    },
  },
  {
    name: 'paging-clamped',
    description:
      'Invalid page and size values are clamped to page 1 and the default size, and served (a documented clamp)',
    request: (req) => {
      if (!isListRequest(req)) return;
      for (const name of ['page', 'size']) {
        const value = req.query.get(name);
        if (value !== null && !/^[1-9]\d*$/.test(value)) req.query.delete(name);
      }
    },
  },
  {
    name: 'foreign-tenant-404',
    description: 'A tenant the client may not access answers 404, hiding that it exists (spec: 403 or 404)',
    reply: (r) =>
      r.status === 403 ? { ...r, status: 404, body: { error: 'not_found', message: 'No such tenant' } } : r,
  },
  {
    name: 'invalid-tenant-id-404',
    description: 'A tenantId that is not a UUID answers 404 instead of 400 (any 4xx is fine)',
    reply: (r, req) =>
      r.status === 400 && /tenantId/.test(JSON.stringify(r.body)) && req.path.startsWith('/tenants/')
        ? { ...r, status: 404 }
        : r,
  },
  {
    // The reference checks Accept-Version, then the token, then the tenant; the spec orders none
    // of them (src/battery/precedence.ts), and frameworks differ (an auth middleware before routing).
    name: 'checks-in-another-order',
    description:
      'The token is checked before Accept-Version, and the tenant before the token: a request with neither header gets 401 with a Bearer challenge, an unknown tenant without a token 404 (the spec orders neither)',
    reply: (r, req, ctx) => {
      if (isTokenRequest(req) || header(req, 'authorization') !== undefined) return r;
      if (r.status === 400 && header(req, 'accept-version') === undefined) {
        const refusal = authenticateBearer(undefined, req.query, ctx.behaviour, ctx.tokens);
        return refusal ? apiError(refusal) : r;
      }
      const id = tenantSegment(req) ?? '';
      return r.status === 401 && UUID.test(id) && !ctx.tenants.has(id.toLowerCase())
        ? apiError({ status: 404, error: 'not_found', description: 'No such tenant' })
        : r;
    },
  },
  // Error bodies with arrays that hold no data (issue 38 item 2): the spec does not show the error
  // shape, and these are the frameworks' own.
  {
    name: 'error-bodies-fastapi-jsonapi',
    description:
      'A tenantId that is not a UUID gets FastAPI\'s 422 {"detail": [{"loc": ["path", "tenant_id"], "msg": …}]}; a foreign tenant gets a JSON:API 403 {"errors": [{"status": "403", "detail": …}]} (the spec does not show error bodies)',
    reply: (r, req) => {
      if (!isTenantRefusal(r, req)) return r;
      if (r.status === 400)
        return {
          ...r,
          status: 422,
          body: { detail: [{ loc: ['path', 'tenant_id'], msg: 'value is not a valid uuid', type: 'type_error.uuid' }] },
        };
      return r.status === 403
        ? {
            ...r,
            contentType: 'application/vnd.api+json',
            body: { errors: [{ status: '403', title: 'Forbidden', detail: 'No access to this tenant' }] },
          }
        : r;
    },
  },
  {
    name: 'error-bodies-drf-problem',
    description:
      'A tenantId that is not a UUID gets Django REST framework\'s 400 {"tenant_id": ["Must be a valid UUID."]}; a foreign tenant gets an RFC 9457 problem with an "errors" member (the spec does not show error bodies)',
    reply: (r, req) => {
      if (!isTenantRefusal(r, req)) return r;
      if (r.status === 400) return { ...r, body: { tenant_id: ['Must be a valid UUID.'] } };
      if (r.status !== 403) return r;
      const problem = {
        type: 'https://carrier.example/problems/tenant-access',
        title: 'No access to this tenant',
        status: 403,
        errors: [{ detail: 'This client may not access the tenant', pointer: '#/tenantId' }],
      };
      return { ...r, contentType: 'application/problem+json', body: problem };
    },
  },
  {
    name: 'size-maximum-refused',
    description:
      "A size above 20 is refused with FastAPI's 422, as `Query(le=20)` validates it, instead of served at a cap (spec §Limits: the maximum varies with the endpoint)",
    reply: (r, req) => {
      const asked = Number(req.query.get('size'));
      return isList(r, req) && Number.isSafeInteger(asked) && asked > 20
        ? {
            status: 422,
            headers: {},
            body: {
              detail: [
                {
                  loc: ['query', 'size'],
                  msg: 'ensure this value is less than or equal to 20',
                  type: 'value_error.number.not_le',
                  ctx: { limit_value: 20 },
                },
              ],
            },
          }
        : r;
    },
  },
  {
    name: 'small-page-size',
    description: 'The list pages by 4 by default and caps size at 6 (spec §Limits: size varies with endpoint)',
    paging: { pageSizeDefault: 4, pageSizeMax: 6 },
  },
  {
    name: 'expiry-leeway',
    description:
      'Tokens are still accepted for 400 ms after expires_in, a clock leeway within the harness margin (--expiry-margin 1 s)',
    request: (req, ctx: ReferenceContext) => {
      const token = bearerToken(req);
      const left = token === undefined ? undefined : ctx.tokens.millisecondsLeft(token);
      if (left !== undefined && left <= 0 && left > -400) authoriseWithFreshToken(req, ctx);
    },
  },
  {
    name: 'expiry-whole-seconds',
    description:
      'Tokens end 999 ms before iat + expires_in, as with exp = floor(iat) + ttl for an iat at the end of its second (JWT NumericDate, RFC 7519 §2; expires_in is whole seconds)',
    request: (req, ctx: ReferenceContext) => {
      const token = bearerToken(req);
      const left = token === undefined ? undefined : ctx.tokens.millisecondsLeft(token);
      if (left !== undefined && left > 0 && left <= 999) req.headers.authorization = 'Bearer expired-on-the-second';
    },
  },

  // ── payloads: extra fields and other spellings ────────────────────────────────────────
  {
    name: 'extra-fields',
    description: 'Responses carry undocumented extra fields (spec §Versioning 3: fields are added)',
    reply: (r, req) => {
      if (isTokenRequest(req) && r.status === 200) return withBody(r, (b) => void (b.scope = 'api.read api.write'));
      if (isUserRequest(req) && r.status === 200)
        return withBody(r, (b) => {
          b.locale = 'en-GB';
          b.tenants = (b.tenants as Record<string, unknown>[]).map((t) => ({ ...t, role: 'admin' }));
        });
      if (isList(r, req))
        return withItems(
          r,
          (item, i) => void (item.trackingUrl = i % 2 === 0 ? `https://track.example/${String(item.id)}` : null),
        );
      if (r.status >= 400) return withBody(r, (b) => void (b.traceId = '4bf92f3577b34da6a3ce929d0e0e4736'));
      // A tenant resource (by id, or the settings) with fields its schema does not declare: allowed, as
      // schemas do not forbid additional properties and fields are added (spec §Versioning 3).
      if (tenantSegment(req) !== undefined && r.status === 200) return withBody(r, (b) => void (b.etag = 'W/"1"'));
      return r;
    },
  },
  {
    // The commonest way real Fastify apps break the spec's second generic rule: fast-json-stringify
    // writes null as "" for a `type: string` property without null, and a document generated from
    // the same schema says so. Only ground truth can tell this "" from a real empty value.
    name: 'empty-string-for-null',
    description:
      'An unpaid invoice has paidAt "" instead of null (spec §Generic rules for optional fields 2), as fast-json-stringify writes null for a string property; only ground truth shows it',
    review: ['GET /tenants/{tenantId}/invoices paidAt'],
    reply: (r, req) => {
      const unpaid = (item: Record<string, unknown>): void => void (item.paidAt === null && (item.paidAt = ''));
      if (isList(r, req) && /\/invoices$/.test(req.path)) return withItems(r, unpaid);
      return /\/invoices\/[^/]+$/.test(req.path) && r.status === 200 ? withBody(r, unpaid) : r;
    },
  },
  {
    name: 'json-media-type-params',
    description:
      'JSON is labelled `Application/JSON; Charset="UTF-8"` (media types are case-insensitive, RFC 9110 §8.3.1)',
    reply: (r) => ({ ...r, contentType: 'Application/JSON; Charset="UTF-8"' }),
  },
  {
    name: 'problem-json-errors',
    description: 'Resource errors are application/problem+json (RFC 9457); the spec does not show the error shape',
    reply: (r, req) =>
      isResourceRequest(req) && r.status >= 400
        ? {
            ...r,
            contentType: 'application/problem+json',
            body: { type: 'about:blank', title: 'Error', status: r.status, ...(r.body as object) },
          }
        : r,
  },
  {
    name: 'list-wrapper',
    description: 'Lists come wrapped in an object, {"items": [...], "count": n} (the spec does not show the list body)',
    reply: (r, req) =>
      isList(r, req) && Array.isArray(r.body)
        ? { ...r, body: { items: r.body, count: (r.body as unknown[]).length } }
        : r,
  },
  {
    name: 'jwt-like-tokens',
    description: 'Access tokens look like JWTs: long, with dots and dashes (RFC 6750 §2.1 b64token allows it)',
    reply: (r, req) =>
      isTokenRequest(req) && r.status === 200
        ? withBody(r, (b) => void (b.access_token = `eyJhbGciOiJSUzI1NiJ9.${String(b.access_token)}.c2lnbmF0dXJl-_`))
        : r,
    request: (req) => {
      const token = bearerToken(req);
      const m = token === undefined ? undefined : /^eyJhbGciOiJSUzI1NiJ9\.(.+)\.c2lnbmF0dXJl-_$/.exec(token);
      if (m?.[1]) req.headers.authorization = `Bearer ${m[1]}`;
    },
  },
  {
    name: 'cache-control-extra',
    description:
      'The token response says `Cache-Control: no-cache, no-store, max-age=0, must-revalidate` (no-store among others)',
    reply: (r, req) =>
      isTokenRequest(req) && r.status === 200
        ? withHeader(r, 'Cache-Control', 'no-cache, No-Store, max-age=0, must-revalidate')
        : r,
  },
  {
    name: 'challenge-variants',
    description:
      'Challenges spelled otherwise: several challenges, token68-free unquoted realm, lower-case scheme, scope and error_description',
    reply: (r, req) => {
      const challenge = replyHeader(r, 'WWW-Authenticate');
      if (challenge === undefined) return r;
      if (isTokenRequest(req))
        return withHeader(r, 'WWW-Authenticate', [
          'Newauth realm="apps", type=1, title="Login to \\"apps\\""',
          'Basic realm=carrier-platform',
        ]);
      return withHeader(
        r,
        'WWW-Authenticate',
        `Basic realm="carrier-platform", ${challenge.replace(/^Bearer/, 'bearer')}, scope="api.read"`,
      );
    },
  },
  {
    name: 'header-names-lowercase',
    description: 'Paging headers are sent with lower-case names (field names are case-insensitive, RFC 9110 §5.1)',
    reply: (r, req) => {
      if (!isList(r, req)) return r;
      const headers: Record<string, string | readonly string[]> = {};
      for (const [n, v] of Object.entries(r.headers)) headers[n.toLowerCase()] = v;
      return { ...r, headers };
    },
  },

  // ── the many legal spellings of a Link header (RFC 8288 §3, RFC 9110 §5.6) ──────────────
  {
    name: 'link-unquoted-rel',
    description: 'rel values unquoted: `rel=next` (a token is as good as a quoted-string)',
    reply: (r, req) => relink(r, req, (links) => joined(links.map(([t, rel]) => `<${t}>; rel=${rel}`))),
  },
  {
    name: 'link-uppercase',
    description: 'Parameter names and relation types in other cases: `REL="NEXT"` (both are case-insensitive)',
    reply: (r, req) =>
      relink(r, req, (links) =>
        joined(
          links.map(([t, rel], i) =>
            i % 2 === 0
              ? `<${t}>; REL="${rel.toUpperCase()}"`
              : `<${t}>; Rel=${rel[0]?.toUpperCase() ?? ''}${rel.slice(1)}`,
          ),
        ),
      ),
  },
  {
    name: 'link-separate-lines',
    description: 'Each link on its own Link field line (RFC 9110 §5.3: lines combine into one list)',
    reply: (r, req) => relink(r, req, (links) => links.map(([t, rel]) => `<${t}>; rel="${rel}"`)),
  },
  {
    name: 'link-absolute-targets',
    description: 'Link targets are absolute URLs',
    reply: (r, req) => {
      const host = header(req, 'host') ?? 'localhost';
      return relink(r, req, (links) => joined(links.map(([t, rel]) => `<http://${host}${t}>; rel="${rel}"`)));
    },
  },
  {
    name: 'link-query-only-targets',
    description: 'Link targets are query-only relative references, `<?page=2&size=10>` (RFC 3986 §5.2)',
    reply: (r, req) =>
      relink(r, req, (links) => joined(links.map(([t, rel]) => `<${t.slice(t.indexOf('?'))}>; rel="${rel}"`))),
  },
  {
    name: 'link-whitespace',
    description: 'Optional and bad whitespace around delimiters: `<…> ; rel = "next"` (RFC 9110 §5.6.3)',
    reply: (r, req) => relink(r, req, (links) => links.map(([t, rel]) => `<${t}> ;  rel = "${rel}"`).join(' ,  ')),
  },
  {
    name: 'link-combined-rels',
    description: 'Links to the same page share one rel: `rel="next last"` (RFC 8288 §3.3)',
    reply: (r, req) =>
      relink(r, req, (links) => {
        const byTarget = new Map<string, string[]>();
        for (const [t, rel] of links) byTarget.set(t, [...(byTarget.get(t) ?? []), rel]);
        return joined([...byTarget].map(([t, rels]) => `<${t}>; rel="${rels.join(' ')}"`));
      }),
  },
  {
    name: 'link-extra-params',
    description: 'Links with target attributes (title with a comma, type, hreflang) and an unrelated link',
    reply: (r, req) =>
      relink(r, req, (links) =>
        joined([
          '<https://docs.example/paging;v=1?a=1,2>; rel="help"; title="Paging, explained"',
          ...links.map(
            ([t, rel]) =>
              `<${t}>; type="application/json"; rel="${rel}"; title="The ${rel} page, of this list"; hreflang=en`,
          ),
        ]),
      ),
  },
  {
    name: 'link-empty-elements',
    description: 'Empty list elements in Link: `, ,` (RFC 9110 §5.6.1.2: recipients ignore them)',
    reply: (r, req) =>
      relink(r, req, (links) => `, ${links.map(([t, rel]) => `<${t}>; rel="${rel}"`).join(' , , ')} ,`),
  },
  {
    name: 'link-param-order',
    description: 'Link targets list size before page: `?size=10&page=2`',
    reply: (r, req) =>
      relink(r, req, (links) =>
        joined(links.map(([t, rel]) => `<${t.replace(/page=(\d+)&size=(\d+)/, 'size=$2&page=$1')}>; rel="${rel}"`)),
      ),
  },
  {
    name: 'link-repeated',
    description:
      'Every link sent twice, the same target each time (RFC 8288 §3: the field is a list of links, and nothing forbids a repeat; both name the same page)',
    reply: (r, req) =>
      relink(r, req, (links) => joined([...links, ...links].map(([t, rel]) => `<${t}>; rel="${rel}"`))),
  },
  {
    name: 'link-previous-rel',
    description: 'The previous page is linked as rel="previous", the registered synonym of "prev"',
    reply: (r, req) =>
      relink(r, req, (links) => joined(links.map(([t, rel]) => `<${t}>; rel="${rel === 'prev' ? 'previous' : rel}"`))),
  },

  // ── the wire: compression, framing, connections, timing ────────────────────────────────
  {
    name: 'gzip',
    description: 'Bodies are gzip-compressed when the client accepts it (RFC 9110 §8.4)',
    wire: { compress: true },
  },
  {
    name: 'chunked',
    description: 'Bodies are sent with chunked transfer coding, no Content-Length (RFC 9112 §7.1)',
    wire: { chunked: true },
  },
  {
    name: 'connection-close',
    description: 'Every response closes the connection (no keep-alive)',
    wire: { closeConnections: true },
  },
  {
    name: 'short-keep-alive',
    description: 'Idle keep-alive connections are closed after 20 ms',
    wire: { keepAliveTimeoutMs: 20 },
  },
  { name: 'slow-responses', description: 'Every response takes 40 ms longer', wire: { delayMs: 40 } },
];
