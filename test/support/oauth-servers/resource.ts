import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { MAIN_TENANT_ID, USER_ID } from '../../../src/reference/data.js';
import { onLoopback } from '../loopback.js';
import { LEGACY_TOKEN_PATH, TOKEN_PATH } from '../../../src/core/carrier-spec.js';

/**
 * What the OAuth server fixtures share: one node:http server on 127.0.0.1 whose token endpoint is
 * a real OAuth 2.0 library's, and a minimal resource server for `GET /users/me` that validates
 * the Bearer token with the same library (spec §Get the current user, §Versioning).
 */

export interface OAuthServerOptions {
  clientId?: string;
  clientSecret: string;
  /** Access token lifetime in seconds. */
  tokenTtlSeconds: number;
}

export interface OAuthServerFixture {
  url: string;
  clientId: string;
  clientSecret: string;
  tenantId: string;
  close(): Promise<void>;
}

export const DEFAULT_CLIENT_ID = 'conformance-client';
export { LEGACY_TOKEN_PATH, TOKEN_PATH };
const USER_PATHS = new Set(['/users/me', '/uaa/userinfo']);

/** The one User every valid token belongs to (spec §User; the reference server's shape). */
export const FIXTURE_USER = {
  id: USER_ID,
  name: 'Ada Fixture',
  email: 'ada@example.com',
  tenants: [{ id: MAIN_TENANT_ID, name: 'Acme Freight' }],
} as const;

/** A resource request's refusal: status, headers (the Bearer challenge) and a JSON body. */
export interface Refusal {
  status: number;
  headers?: Record<string, string>;
  body: { error: string; error_description?: string };
}

/** Validates the request's Bearer token with the library: null when it is valid. */
export type BearerValidator = (req: IncomingMessage) => Promise<Refusal | null>;

/** Hands a request to the library (its token endpoint, its JWKS). */
export type Handler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/** RFC 6750 §2.1: credentials = "Bearer" 1*SP b64token; the scheme is case-insensitive (RFC 9110 §11.1). */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/** The token of an `Authorization: Bearer` header, `null` without one, `undefined` when malformed. */
export function bearerToken(req: IncomingMessage): string | null | undefined {
  const header = req.headers.authorization;
  if (header === undefined) return null;
  return BEARER.exec(header)?.[1];
}

/** An RFC 6750 §3 challenge; a request without any token gets no error code (§3.1). */
export function bearerRefusal(realm: string, error?: 'invalid_token', description?: string): Refusal {
  const params = [
    `realm="${realm}"`,
    ...(error ? [`error="${error}"`] : []),
    ...(description ? [`error_description="${description}"`] : []),
  ];
  return {
    status: 401,
    headers: { 'WWW-Authenticate': `Bearer ${params.join(', ')}` },
    body: { error: error ?? 'unauthorized', ...(description ? { error_description: description } : {}) },
  };
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** spec §Versioning 1–2: Accept-Version is required (400 without it); only `1` exists (404 otherwise). */
function versionRefusal(req: IncomingMessage): Refusal | null {
  const value = req.headers['accept-version'];
  if (value === undefined)
    return { status: 400, body: { error: 'invalid_request', error_description: 'Accept-Version is required' } };
  // Repeated lines join with commas (RFC 9110 §5.3), which is then no valid version.
  if ((Array.isArray(value) ? value.join(', ') : value).trim() !== '1')
    return { status: 404, body: { error: 'unsupported_version', error_description: 'Accept-Version must be 1' } };
  return null;
}

async function serveUser(req: IncomingMessage, res: ServerResponse, validate: BearerValidator): Promise<void> {
  if (req.method !== 'GET') return sendJson(res, 405, { error: 'method_not_allowed' }, { Allow: 'GET' });
  const refusal = versionRefusal(req) ?? (await validate(req));
  if (refusal) return sendJson(res, refusal.status, refusal.body, refusal.headers);
  sendJson(res, 200, FIXTURE_USER);
}

export interface Routes {
  token: Handler;
  validate: BearerValidator;
  /** Everything else (e.g. oidc-provider's JWKS); default 404. */
  other?: Handler;
}

export interface Listening {
  url: string;
  /** Routes requests from now on (an issuer needs its URL before it exists: listen first). */
  serve(routes: Routes): void;
  close(): Promise<void>;
}

/** A loopback server: both token paths to the library, the user paths to the resource server. */
export async function listen(): Promise<Listening> {
  const sockets = new Set<Socket>();
  let routes: Routes | undefined;
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    let handled: void | Promise<void>;
    if (!routes) handled = sendJson(res, 503, { error: 'temporarily_unavailable' });
    else if (path === TOKEN_PATH || path === LEGACY_TOKEN_PATH) {
      // The gateway's rewrite: the library sees only the current path.
      req.url = TOKEN_PATH + (req.url ?? '').slice(path.length);
      handled = routes.token(req, res);
    } else if (USER_PATHS.has(path)) handled = serveUser(req, res, routes.validate);
    else if (routes.other) handled = routes.other(req, res);
    else handled = sendJson(res, 404, { error: 'not_found' });
    Promise.resolve(handled).catch((err: unknown) => {
      if (!res.headersSent)
        sendJson(res, 500, {
          error: 'server_error',
          error_description: err instanceof Error ? err.message : String(err),
        });
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const url = await onLoopback(server);
  return {
    url,
    serve: (r) => void (routes = r),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The whole request body, as a string (token requests are small forms). */
export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
