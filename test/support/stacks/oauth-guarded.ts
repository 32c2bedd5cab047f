/**
 * The whole Carrier-Platform API with its resources guarded by a real OAuth 2.0 library and its
 * token endpoint the library's own (issue 30, the resource side), as a product team puts it
 * together: a front (node:http) that checks Accept-Version on every endpoint, hands token
 * requests (both paths) to the library, asks the library's guard about every other request, and
 * serves what the guard lets through from the reference server's data and routing
 * (src/reference/routes.ts: the answers of the reference server, none of its authentication).
 *
 * - `oauth2-server`: @node-oauth/oauth2-server's token endpoint and `authenticate()` as shipped
 *   (the fixture of test/support/oauth-servers/node-oauth2-server.ts, whose /users/me is nothing
 *   but `authenticate()`): the front asks it with the request's Authorization header and query,
 *   and relays its refusal as is (status, WWW-Authenticate, body).
 * - `oidc-jwt`: panva's oidc-provider issuing RFC 9068 JWT access tokens; the guard is the
 *   product team's: `jose` jwtVerify against the provider's JWKS, issuer, audience and `typ`
 *   checked, and RFC 6750 §3 challenges written by hand.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { request } from 'undici';
import { resolveBehaviour } from '../../../src/reference/behaviour.js';
import type { ReferenceContext } from '../../../src/reference/context.js';
import { buildTenants, buildUser, FOREIGN_TENANT_ID, MAIN_TENANT_ID } from '../../../src/reference/data.js';
import { apiError, oauthError, writeReply, type Reply } from '../../../src/reference/reply.js';
import { readRequest, type Req } from '../../../src/reference/request.js';
import { routeResource } from '../../../src/reference/routes.js';
import { REFERENCE_OPENAPI_FILE, seededResources } from '../../../src/reference/seeded.js';
import { TOKEN_PATH } from '../../../src/reference/token-endpoint.js';
import { TokenStore } from '../../../src/reference/tokens.js';
import { checkAcceptVersion } from '../../../src/reference/versioning.js';
import { startNodeOAuth2Server, startOidcProvider, type OAuthServerFixture } from '../oauth-servers.js';
import { onLoopback } from '../loopback.js';

export type GuardedLibrary = 'oauth2-server' | 'oidc-jwt';

export interface GuardedStack {
  url: string;
  clientId: string;
  clientSecret: string;
  tenantId: string;
  foreignTenantId: string;
  openapiFile: string;
  expectations: { user: unknown; resources: Record<string, unknown> };
  close(): Promise<void>;
}

/** null: let the request through; otherwise the refusal to send. */
type Guard = (req: Req) => Promise<Reply | null>;

/** Hop-by-hop fields (RFC 9110 §7.6.1) and the ones recomputed from the buffered body. */
const NOT_RELAYED = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'host',
  'upgrade',
  'proxy-connection',
  'te',
  'trailer',
]);

function relayedHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined && !NOT_RELAYED.has(name.toLowerCase())) out[name] = value;
  return out;
}

const queryOf = (req: Req): string => (req.query.size > 0 ? `?${req.query.toString()}` : '');

/** The library's token endpoint, as is (the front only rewrote the legacy path). */
async function forwardToken(fixture: OAuthServerFixture, req: Req): Promise<Reply> {
  const res = await request(`${fixture.url}${TOKEN_PATH}${queryOf(req)}`, {
    method: req.method as 'POST',
    headers: relayedHeaders(req.headers),
    body: req.method === 'GET' || req.method === 'HEAD' ? null : (req.body ?? Buffer.alloc(0)),
  });
  const text = await res.body.text();
  const headers = relayedHeaders(res.headers);
  const contentType = headers['content-type'];
  delete headers['content-type'];
  return {
    status: res.statusCode,
    headers,
    body: null,
    raw: { ...(typeof contentType === 'string' ? { contentType } : {}), text },
  };
}

/**
 * @node-oauth/oauth2-server's `authenticate()`, as shipped: the fixture's /users/me runs nothing
 * else (with Accept-Version 1 sent here, already checked by the front). Its refusal is relayed.
 */
function oauth2ServerGuard(fixture: OAuthServerFixture): Guard {
  return async (req) => {
    const authorization = req.headers.authorization;
    const res = await request(`${fixture.url}/users/me${queryOf(req)}`, {
      headers: {
        'accept-version': '1',
        ...(authorization === undefined
          ? {}
          : { authorization: Array.isArray(authorization) ? authorization.join(', ') : authorization }),
      },
    });
    const text = await res.body.text();
    if (res.statusCode === 200) return null;
    const challenge = res.headers['www-authenticate'];
    return {
      status: res.statusCode,
      headers: { 'Cache-Control': 'no-store', ...(challenge === undefined ? {} : { 'WWW-Authenticate': challenge }) },
      body: null,
      raw: { contentType: 'application/json; charset=utf-8', text },
    };
  };
}

/** The audience oidc-provider's fixture gives its JWT access tokens (RFC 8707 resource indicator). */
const JWT_AUDIENCE = 'urn:carrier-platform:api';
const REALM = 'carrier-platform';

/**
 * The product team's guard for RFC 9068 JWT access tokens: the token from `Authorization:
 * Bearer` (RFC 6750 §2.1; scheme case-insensitive, RFC 9110 §11.1), jose's jwtVerify against
 * the provider's JWKS with issuer, audience and typ checked, no clock tolerance; RFC 6750 §3
 * challenges: no error code without credentials or with another scheme, 400 invalid_request for
 * a malformed Bearer credential, 401 invalid_token for a token that does not verify.
 */
function joseGuard(fixture: OAuthServerFixture): Guard {
  const jwks = createRemoteJWKSet(new URL('/jwks', fixture.url));
  const refuse = (status: number, error: string | undefined, description: string): Reply =>
    apiError({
      status,
      error: error ?? 'unauthorized',
      description,
      headers: {
        'WWW-Authenticate': `Bearer realm="${REALM}"${error ? `, error="${error}", error_description="${description}"` : ''}`,
      },
    });
  return async (req) => {
    const header = req.headers.authorization;
    if (header === undefined) return refuse(401, undefined, 'A Bearer access token is required');
    const [scheme, ...rest] = header.trim().split(/ +/);
    if (scheme?.toLowerCase() !== 'bearer') return refuse(401, undefined, 'A Bearer access token is required');
    const token = rest.length === 1 ? rest[0] : undefined;
    if (!token || !/^[A-Za-z0-9\-._~+/]+=*$/.test(token))
      return refuse(400, 'invalid_request', 'The Authorization header is malformed');
    try {
      await jwtVerify(token, jwks, { issuer: fixture.url, audience: JWT_AUDIENCE, typ: 'at+jwt' });
      return null;
    } catch {
      return refuse(401, 'invalid_token', 'The access token is invalid or expired');
    }
  };
}

export async function startGuardedStack(options: {
  library: GuardedLibrary;
  clientSecret: string;
  tokenTtlSeconds: number;
}): Promise<GuardedStack> {
  const { clientSecret, tokenTtlSeconds } = options;
  const fixture =
    options.library === 'oauth2-server'
      ? await startNodeOAuth2Server({ clientSecret, tokenTtlSeconds })
      : await startOidcProvider({ format: 'jwt', clientSecret, tokenTtlSeconds });
  const guard = options.library === 'oauth2-server' ? oauth2ServerGuard(fixture) : joseGuard(fixture);
  const behaviour = resolveBehaviour({ tokenTtlSeconds, clientId: fixture.clientId });
  const tenants = buildTenants(behaviour.shipmentCount);
  // The token store stays empty: the reference's authentication is not used, only its routing.
  const ctx: ReferenceContext = {
    behaviour,
    tokens: new TokenStore(tokenTtlSeconds),
    tenants,
    user: buildUser(tenants),
    scratch: new Map(),
  };

  const answer = async (message: IncomingMessage): Promise<Reply> => {
    const req = await readRequest(message, behaviour.maxTokenBodyBytes, true);
    const isToken = req.path === TOKEN_PATH;
    // spec §Versioning: every endpoint, before anything else.
    const version = checkAcceptVersion(req.headers, behaviour);
    if (version) return isToken ? oauthError(version) : apiError(version);
    if (isToken) return forwardToken(fixture, req);
    return (await guard(req)) ?? routeResource(req.method, req, ctx);
  };

  const sockets = new Set<Socket>();
  const server = createServer((message: IncomingMessage, res: ServerResponse) => {
    answer(message)
      .catch((err: unknown) =>
        apiError({ status: 500, error: 'server_error', description: err instanceof Error ? err.message : 'error' }),
      )
      .then((reply) => writeReply(res, reply))
      .catch(() => res.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const url = await onLoopback(server);
  return {
    url,
    clientId: fixture.clientId,
    clientSecret,
    tenantId: MAIN_TENANT_ID,
    foreignTenantId: FOREIGN_TENANT_ID,
    openapiFile: REFERENCE_OPENAPI_FILE,
    expectations: { user: buildUser(tenants), resources: seededResources(tenants) },
    close: async () => {
      await new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      });
      await fixture.close();
    },
  };
}
