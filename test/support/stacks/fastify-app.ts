/**
 * The Carrier-Platform API written as a product team writes it with Fastify 5: routes with JSON
 * Schemas for their responses (serialised by fast-json-stringify, which Fastify bundles), a hook
 * for Accept-Version, one for the bearer token, a token endpoint with HTTP Basic client
 * credentials, absolute Link URLs built from the request (`trustProxy`: X-Forwarded-Proto/Host),
 * the legacy paths rewritten by `rewriteUrl` (no gateway in front).
 * The data is the reference server's data set (src/reference/data.ts), served by this code alone:
 * none of the reference server's request handling is used.
 *
 * `variant: 'string-without-null'` is the commonest real mistake: the optional fields declared
 * `type: 'string'` without null, so fast-json-stringify writes `""` where the data has null
 * (spec §Generic rules for optional fields 2: "" is never a substitute for null).
 */
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import {
  buildTenants,
  buildUser,
  indexOfId,
  invoiceAt,
  listCount,
  listSlice,
  settingsOf,
  shipmentAt,
  type Collection,
} from '../../../src/reference/data.js';
import { REFERENCE_OPENAPI_FILE, seededResources } from '../../../src/reference/seeded.js';

export type FastifyVariant = 'conformant' | 'string-without-null';

export interface FastifyAppOptions {
  variant?: FastifyVariant;
  /** `expires_in` of the tokens; default 2 s (the expiry suite waits it out). */
  tokenTtlSeconds?: number;
  /** Shipments of the main tenant; default 23. */
  shipmentCount?: number;
}

export interface FastifyStack {
  url: string;
  clientId: string;
  clientSecret: string;
  tenantId: string;
  foreignTenantId: string;
  /** The API's OpenAPI document: the reference server's, which this app implements. */
  openapiFile: string;
  /** Ground truth for --expectations: the user and the seeded resources of the main tenant. */
  expectations: { user: unknown; resources: Record<string, unknown> };
  close(): Promise<void>;
}

const CLIENT_ID = 'fastify-client';
/** Characters that must be form-urlencoded before Base64 (RFC 6749 §2.3.1). */
const CLIENT_SECRET = 'fastify secret+%:&=/5';
const LEGACY_PATHS: ReadonlyMap<string, string> = new Map([
  ['/uaa/oauth/token', '/uaa/oauth2/token'],
  ['/uaa/userinfo', '/users/me'],
]);
const PAGE_SIZE_DEFAULT = 10;
const PAGE_SIZE_MAX = 50;
const UUID = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

/** The response schemas, as the team declares them: nullable optional fields as `['string', 'null']`. */
function schemas(variant: FastifyVariant) {
  // The mistake: "it is a string" — null then comes out as "".
  const optionalString = variant === 'string-without-null' ? { type: 'string' } : { type: ['string', 'null'] };
  const optionalNumber = { type: ['number', 'null'] };
  const error = {
    type: 'object',
    properties: { error: { type: 'string' }, message: { type: 'string' } },
    required: ['error', 'message'],
  } as const;
  const shipment = {
    type: 'object',
    properties: {
      id: { type: 'string' },
      reference: { type: 'string' },
      carrier: { type: 'string' },
      status: { type: 'string' },
      weightKg: optionalNumber,
      deliveredAt: optionalString,
      createdAt: { type: 'string' },
    },
    required: ['id', 'reference', 'carrier', 'status', 'weightKg', 'deliveredAt', 'createdAt'],
  };
  const invoice = {
    type: 'object',
    properties: {
      id: { type: 'string' },
      number: { type: 'string' },
      amountCents: { type: 'integer' },
      currency: { type: 'string' },
      dueDate: optionalString,
      paidAt: optionalString,
      note: optionalString,
      shipmentId: optionalString,
    },
    required: ['id', 'number', 'amountCents', 'currency', 'dueDate', 'paidAt', 'note', 'shipmentId'],
  };
  const settings = {
    type: 'object',
    properties: {
      tenantId: { type: 'string' },
      timezone: { type: 'string' },
      locale: { type: 'string' },
      defaultCarrier: optionalString,
      invoiceEmail: { type: 'string' },
      webhookUrl: optionalString,
    },
    required: ['tenantId', 'timezone', 'locale', 'defaultCarrier', 'invoiceEmail', 'webhookUrl'],
  };
  const user = {
    type: 'object',
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      email: optionalString,
      tenants: {
        type: 'array',
        items: {
          type: 'object',
          properties: { id: { type: 'string' }, name: { type: 'string' } },
          required: ['id', 'name'],
        },
      },
    },
    required: ['id', 'name', 'email', 'tenants'],
  };
  const token = {
    type: 'object',
    properties: { access_token: { type: 'string' }, token_type: { type: 'string' }, expires_in: { type: 'integer' } },
    required: ['access_token', 'token_type', 'expires_in'],
  };
  const oauthError = {
    type: 'object',
    properties: { error: { type: 'string' }, error_description: { type: 'string' } },
    required: ['error'],
  };
  return { error, shipment, invoice, settings, user, token, oauthError };
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** RFC 6749 §2.3.1 / Appendix B: the Basic user-id and password are form-urlencoded. */
function formDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

const sameSecret = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

export async function startFastifyApp(options: FastifyAppOptions = {}): Promise<FastifyStack> {
  const variant = options.variant ?? 'conformant';
  const ttl = options.tokenTtlSeconds ?? 2;
  const tenants = buildTenants(options.shipmentCount ?? 23);
  const user = buildUser(tenants);
  const tokens = new Map<string, number>();
  const s = schemas(variant);

  // trustProxy: protocol and host come from X-Forwarded-Proto / X-Forwarded-Host behind a gateway.
  // No gateway in front here: the app rewrites the legacy paths itself (spec §Obtain an access
  // token, §Get the current user), before routing, keeping the query string; not a redirect.
  const app = Fastify({
    trustProxy: true,
    logger: false,
    rewriteUrl: (req) => {
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const current = LEGACY_PATHS.get(q === -1 ? url : url.slice(0, q));
      return current === undefined ? url : `${current}${q === -1 ? '' : url.slice(q)}`;
    },
  });

  // The token request's body (RFC 6749 §4.4.2: application/x-www-form-urlencoded).
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) =>
    done(null, new URLSearchParams(body as string)),
  );

  app.setErrorHandler((err: Error & { statusCode?: number; validation?: unknown }, _req, reply) => {
    if (err instanceof ApiError)
      return reply
        .code(err.status)
        .headers({ 'cache-control': 'no-store', ...err.headers })
        .send({ error: err.code, message: err.message });
    // Validation of the query (page, size) and the body parser's refusals.
    const status = err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    return reply
      .code(status)
      .header('cache-control', 'no-store')
      .send({ error: status === 500 ? 'server_error' : 'invalid_request', message: err.message });
  });
  app.setNotFoundHandler((_req, reply) => reply.code(404).send({ error: 'not_found', message: 'No such resource' }));

  // spec §Versioning 1–2, §Errors: every endpoint; missing 400, another version 404.
  app.addHook('onRequest', (req, _reply, done) => {
    const value = req.headers['accept-version'];
    if (value === undefined) return done(new ApiError(400, 'invalid_request', 'The Accept-Version header is required'));
    if ((Array.isArray(value) ? value.join(', ') : value).trim() !== '1')
      return done(new ApiError(404, 'unsupported_version', 'Accept-Version must be 1'));
    done();
  });

  // RFC 6750 §2.1, §3: every endpoint but the token endpoint.
  const bearer = (req: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void => {
    const challenge = 'Bearer realm="carrier-platform"';
    const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(req.headers.authorization ?? '');
    if (!match?.[1])
      return done(
        new ApiError(401, 'unauthorized', 'A Bearer access token is required', { 'www-authenticate': challenge }),
      );
    const expires = tokens.get(match[1]);
    if (expires === undefined || expires <= Date.now()) {
      return done(
        new ApiError(401, 'invalid_token', 'The access token is invalid or expired', {
          'www-authenticate': `${challenge}, error="invalid_token", error_description="The access token is invalid or expired"`,
        }),
      );
    }
    done();
  };

  const oauthError = (
    reply: FastifyReply,
    status: number,
    error: string,
    description: string,
    headers: Record<string, string> = {},
  ) =>
    reply
      .code(status)
      .headers({ 'cache-control': 'no-store', pragma: 'no-cache', ...headers })
      .send({ error, error_description: description });

  app.post('/uaa/oauth2/token', { schema: { response: { 200: s.token, '4xx': s.oauthError } } }, async (req, reply) => {
    // RFC 6749 §2.3.1: HTTP Basic, the id and secret form-urlencoded; 401 invalid_client with a challenge.
    const basic = /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(req.headers.authorization ?? '');
    const decoded = basic?.[1] ? Buffer.from(basic[1], 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    const id = colon === -1 ? undefined : formDecode(decoded.slice(0, colon));
    const secret = colon === -1 ? undefined : formDecode(decoded.slice(colon + 1));
    if (id !== CLIENT_ID || secret === undefined || !sameSecret(secret, CLIENT_SECRET)) {
      return oauthError(reply, 401, 'invalid_client', 'Client authentication failed', {
        'www-authenticate': 'Basic realm="carrier-platform", charset="UTF-8"',
      });
    }
    if (!(req.body instanceof URLSearchParams))
      return oauthError(reply, 400, 'invalid_request', 'The body must be application/x-www-form-urlencoded');
    const grants = req.body.getAll('grant_type');
    if (grants.length !== 1 || grants[0] === '')
      return oauthError(reply, 400, 'invalid_request', 'grant_type is required once');
    if (grants[0] !== 'client_credentials')
      return oauthError(reply, 400, 'unsupported_grant_type', 'Only client_credentials is supported');
    const token = randomBytes(32).toString('base64url');
    tokens.set(token, Date.now() + ttl * 1000);
    return reply
      .headers({ 'cache-control': 'no-store', pragma: 'no-cache' })
      .send({ access_token: token, token_type: 'bearer', expires_in: ttl });
  });
  // RFC 6749 §3.2: POST only; RFC 9110 §15.5.6: 405 with Allow.
  app.get('/uaa/oauth2/token', (_req, reply) =>
    oauthError(reply, 405, 'invalid_request', 'POST only', { allow: 'POST' }),
  );

  app.get('/users/me', { onRequest: bearer, schema: { response: { 200: s.user } } }, (_req, reply) => reply.send(user));

  const tenantParams = { type: 'object', properties: { tenantId: { type: 'string' } }, required: ['tenantId'] };
  /** spec §Authentication 5: the tenant must be one the user may access. */
  const tenantOf = (tenantId: string) => {
    if (!new RegExp(UUID).test(tenantId)) throw new ApiError(400, 'invalid_request', 'tenantId must be a UUID');
    const tenant = tenants.get(tenantId.toLowerCase());
    if (!tenant) throw new ApiError(404, 'not_found', 'No such tenant');
    if (!tenant.accessible) throw new ApiError(403, 'forbidden', 'This client may not access the tenant');
    return tenant;
  };

  const paged = (collection: Collection, item: object) => {
    app.get<{ Params: { tenantId: string }; Querystring: { page?: number; size?: number } }>(
      `/tenants/:tenantId/${collection}`,
      {
        onRequest: bearer,
        schema: {
          params: tenantParams,
          querystring: {
            type: 'object',
            properties: {
              page: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
              size: { type: 'integer', minimum: 1 },
            },
          },
          response: { 200: { type: 'array', items: item } },
        },
      },
      async (req, reply) => {
        const tenant = tenantOf(req.params.tenantId);
        const page = req.query.page ?? 1;
        const size = Math.min(req.query.size ?? PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX);
        const total = listCount(tenant, collection);
        const totalPages = Math.ceil(total / size);
        const from = page <= totalPages ? (page - 1) * size : total;
        const to = Math.min(from + size, total);
        // Absolute URLs on the origin the client used (RFC 8288 §3.1 allows relative ones too).
        const base = `${req.protocol}://${req.host}/tenants/${tenant.id}/${collection}`;
        const link = (p: number, rel: string) => `<${base}?page=${p}&size=${size}>; rel="${rel}"`;
        const links = [
          ...(totalPages >= 1 ? [link(1, 'first')] : []),
          ...(page > 1 && page - 1 <= totalPages ? [link(page - 1, 'prev')] : []),
          ...(page < totalPages ? [link(page + 1, 'next')] : []),
          ...(totalPages >= 1 ? [link(totalPages, 'last')] : []),
        ];
        reply.headers({
          'total-pages': String(totalPages),
          'page-size': String(size),
          'page-number': String(page),
          'total-elements': String(total),
        });
        if (links.length > 0) reply.header('link', links.join(', '));
        return listSlice(tenant, collection, from, to);
      },
    );
  };
  paged('shipments', s.shipment);
  paged('invoices', s.invoice);

  for (const [collection, kind, item] of [
    ['shipments', 'shipment', s.shipment],
    ['invoices', 'invoice', s.invoice],
  ] as const) {
    app.get<{ Params: { tenantId: string; id: string } }>(
      `/tenants/:tenantId/${collection}/:id`,
      { onRequest: bearer, schema: { response: { 200: item } } },
      (req, reply) => {
        const tenant = tenantOf(req.params.tenantId);
        const index = indexOfId(tenant.id, kind, req.params.id, listCount(tenant, collection));
        if (index === undefined) throw new ApiError(404, 'not_found', `No such ${kind}`);
        return reply.send(
          kind === 'shipment' ? shipmentAt(tenant.id, index) : invoiceAt(tenant.id, index, tenant.shipmentCount),
        );
      },
    );
  }

  // The write operations of the reference's document, as Fastify writes them: the bearer guard in
  // onRequest (before the body is parsed), a body schema; answered, never kept.
  app.post<{ Params: { tenantId: string }; Body: { reference?: string; carrier: string; weightKg?: number | null } }>(
    '/tenants/:tenantId/shipments',
    {
      onRequest: bearer,
      schema: {
        body: {
          type: 'object',
          required: ['carrier'],
          additionalProperties: false,
          properties: {
            reference: { type: 'string' },
            carrier: { type: 'string', minLength: 1 },
            weightKg: { type: ['number', 'null'], minimum: 0 },
          },
        },
        response: { 201: s.shipment },
      },
    },
    (req, reply) => {
      tenantOf(req.params.tenantId);
      return reply.code(201).send({
        id: randomUUID(),
        reference: req.body.reference ?? '',
        carrier: req.body.carrier,
        status: 'created',
        weightKg: req.body.weightKg ?? null,
        deliveredAt: null,
        createdAt: new Date().toISOString(),
      });
    },
  );
  app.delete<{ Params: { tenantId: string; id: string } }>(
    '/tenants/:tenantId/shipments/:id',
    { onRequest: bearer },
    (req, reply) => {
      const tenant = tenantOf(req.params.tenantId);
      if (indexOfId(tenant.id, 'shipment', req.params.id, listCount(tenant, 'shipments')) === undefined)
        throw new ApiError(404, 'not_found', 'No such shipment');
      return reply.code(204).send();
    },
  );

  app.get<{ Params: { tenantId: string } }>(
    '/tenants/:tenantId/settings',
    { onRequest: bearer, schema: { response: { 200: s.settings } } },
    (req, reply) => reply.send(settingsOf(tenantOf(req.params.tenantId))),
  );

  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  const main = [...tenants.values()][0];
  return {
    url: `http://127.0.0.1:${port}`,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    tenantId: main?.id ?? '',
    foreignTenantId: [...tenants.values()].find((t) => !t.accessible)?.id ?? '',
    openapiFile: REFERENCE_OPENAPI_FILE,
    expectations: { user, resources: seededResources(tenants) },
    close: async () => {
      await app.close();
    },
  };
}
