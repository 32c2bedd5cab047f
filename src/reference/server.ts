/**
 * The reference server: node:http, one request pipeline, and the handle returned to callers.
 *
 * Pipeline (each step may answer on its own): gateway rewrite → Accept-Version → token endpoint
 * (its own client authentication) or bearer authentication → resource routing.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolveBehaviour, type ReferenceOptions } from './behaviour.js';
import { authenticateBearer } from './bearer-auth.js';
import type { ReferenceContext } from './context.js';
import {
  buildTenants,
  buildUser,
  EMPTY_TENANT_ID,
  FOREIGN_TENANT_ID,
  MAIN_TENANT_ID,
  type ReferenceUser,
} from './data.js';
import { alterReply, alterRequest } from './alterations.js';
import { resolveAlterations } from './catalogue.js';
import { apiError, DEFAULT_WIRE, json, oauthError, writeReply, type Reply, type WireOptions } from './reply.js';
import { readRequest, readRequestHead, type Req } from './request.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { ASK_FOR_CONTENT, PAGED_PATHS, SINGLE_PATHS, routeResource } from './routes.js';
import { REFERENCE_OPENAPI_FILE, seededResources } from './seeded.js';
import { handleTokenRequest, TOKEN_PATH } from './token-endpoint.js';
import { TokenStore } from './tokens.js';
import { checkAcceptVersion } from './versioning.js';

export interface ReferenceServer {
  /** Base URL without a trailing slash, e.g. 'http://127.0.0.1:41234'. */
  readonly url: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** The second client: its own tenant is `foreignTenantId`, which the first may not access, and it may not access the first's. */
  readonly secondClientId: string;
  readonly secondClientSecret: string;
  /** The first tenant listed by /users/me; it has the shipments. */
  readonly tenantId: string;
  /** A tenant that exists but this client may not access (403): the second client's. */
  readonly foreignTenantId: string;
  /** The paged tenant sub-paths. */
  readonly pagedPaths: string[];
  /** The single-resource tenant sub-paths, with their parameters. */
  readonly singlePaths: string[];
  /** The OpenAPI 3.1 document that describes the server's API (docs/openapi.yaml). */
  readonly openapiFile: string;
  /**
   * Data the server serves, for the harness's expectation checks: the user, and seeded resources
   * of the main tenant with null and "" in their optional fields (an --expectations file).
   */
  readonly expectations: { user: ReferenceUser; resources: Record<string, unknown> };
  /** Tokens issued by the token endpoint so far. */
  tokensIssued(): number;
  /** The access tokens issued so far (the first 10 000), to scan outputs for leaks. */
  issuedTokens(): readonly string[];
  /** Every request served, when started with `recordRequests` (otherwise empty). */
  requestLog(): readonly ServedRequest[];
  /** HTTP requests received so far. */
  requestCount(): number;
  /** Requests answered 429 for exceeding `maxInFlight`. */
  throttledCount(): number;
  /** Stops listening and destroys every open connection, keep-alive ones included. */
  close(): Promise<void>;
}

export function respond(req: Req, ctx: ReferenceContext): Reply {
  const isTokenEndpoint = req.path === TOKEN_PATH;

  // spec §Endpoints: "Every endpoint requires the Accept-Version header", before anything else.
  const versionRefusal = checkAcceptVersion(req.headers, ctx.behaviour);
  if (versionRefusal) return isTokenEndpoint ? oauthError(versionRefusal) : apiError(versionRefusal);

  if (isTokenEndpoint) return handleTokenRequest(req, ctx);

  // spec §Endpoints: every endpoint except the token endpoint requires Authorization, unknown
  // paths included, so nothing about the API is revealed without a token.
  const header = req.headers.authorization;
  const authorization = Array.isArray(header) ? header.join(', ') : header;
  const authRefusal = authenticateBearer(authorization, req.query, ctx.behaviour, ctx.tokens);
  if (authRefusal) return apiError(authRefusal);
  // Each client sees its own tenants (spec §Authentication 5): the token says which client it is.
  req.client = ctx.tokens.clientOf(/^\S+\s+(\S+)$/.exec(authorization ?? '')?.[1]);

  return routeResource(req.method, req, ctx);
}

const internalError = (): Reply =>
  json(500, { error: 'server_error', message: 'Internal server error' }, { 'Cache-Control': 'no-store' });

/** A request as the server received it, for replaying it elsewhere. */
export interface ServedRequest {
  method: string;
  /** Path and query as received (before the gateway's rewrite). */
  target: string;
  /** The path after the rewrite: which endpoint served it. */
  endpoint: string;
  headers: [string, string][];
  body: string;
}

export async function startReferenceServer(options: ReferenceOptions = {}): Promise<ReferenceServer> {
  const log: ServedRequest[] = [];
  const alterations = resolveAlterations(options.faults ?? [], options.variants ?? []);
  const paging = Object.assign({}, ...alterations.map((a) => a.paging ?? {})) as Pick<
    ReferenceOptions,
    'pageSizeDefault' | 'pageSizeMax'
  >;
  const behaviour = resolveBehaviour({ ...paging, ...options });
  const wire: WireOptions = Object.assign({ ...DEFAULT_WIRE }, ...alterations.map((a) => a.wire ?? {})) as WireOptions;
  const tenants = buildTenants(behaviour.shipmentCount);
  const ctx: ReferenceContext = {
    behaviour,
    tokens: new TokenStore(behaviour.tokenTtlSeconds),
    tenants,
    user: buildUser(tenants),
    secondUser: buildUser(tenants, 'second'),
    scratch: new Map(),
  };
  let requests = 0;
  let inFlight = 0;
  let throttled = 0;

  /**
   * Answers one request. `expectsContinue`: the client sent Expect: 100-continue (RFC 9110
   * §10.1.1), so its header section is judged first, by the same pipeline, and the content is
   * asked for (100 Continue) only if nothing but the content is left to judge; a final answer
   * otherwise goes out at once, and the unsent content is never waited for.
   */
  const handle = (message: IncomingMessage, res: ServerResponse, expectsContinue: boolean): void => {
    requests += 1;
    inFlight += 1;
    res.once('close', () => (inFlight -= 1));
    if (options.maxInFlight !== undefined && inFlight > options.maxInFlight) {
      throttled += 1;
      writeReply(
        res,
        json(
          429,
          { error: 'too_many_requests', message: 'Too many requests in flight' },
          { 'Retry-After': '1', 'Cache-Control': 'no-store' },
        ),
        wire,
        '',
      );
      return;
    }
    /** The pipeline: the alterations' request hooks, the handlers, the alterations' reply hooks. */
    const pipeline = (req: Req): Reply => {
      alterRequest(alterations, req, ctx);
      let reply: Reply;
      try {
        reply = respond(req, ctx);
      } catch {
        reply = internalError();
      }
      return alterReply(alterations, reply, req, ctx);
    };
    const head = (): Reply | undefined => {
      if (!expectsContinue) return undefined;
      const reply = pipeline(readRequestHead(message, behaviour.legacyRewrites));
      if (reply.status === ASK_FOR_CONTENT.status) {
        res.writeContinue();
        return undefined;
      }
      // The content announced is never read: the connection cannot carry another request.
      return { ...reply, headers: { ...reply.headers, Connection: 'close' } };
    };
    const answer = async (): Promise<Reply> => {
      const early = head();
      if (early) {
        if (wire.delayMs > 0) await sleep(wire.delayMs);
        return early;
      }
      const req = await readRequest(message, behaviour.maxTokenBodyBytes, behaviour.legacyRewrites);
      if (options.recordRequests) {
        const headers: [string, string][] = [];
        for (let i = 0; i + 1 < message.rawHeaders.length; i += 2)
          headers.push([message.rawHeaders[i] ?? '', message.rawHeaders[i + 1] ?? '']);
        log.push({
          method: req.method,
          target: message.url ?? '/',
          endpoint: req.path,
          headers,
          body: req.body?.toString('utf8') ?? '',
        });
      }
      const reply = pipeline(req);
      if (wire.delayMs > 0) await sleep(wire.delayMs);
      return reply;
    };
    answer()
      .catch(() => internalError())
      .then((reply) => writeReply(res, reply, wire, String(message.headers['accept-encoding'] ?? '')))
      .catch(() => {
        // Writing itself failed (e.g. headers already sent): drop the connection, keep the server.
        res.destroy();
      });
  };
  const server = createServer((message, res) => handle(message, res, false));
  if (options.expectContinue !== 'auto')
    server.on('checkContinue', (message: IncomingMessage, res: ServerResponse) => handle(message, res, true));

  server.keepAliveTimeout = wire.keepAliveTimeoutMs;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(behaviour.port, behaviour.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  // A separate copy, so a caller that mutates its expectations cannot change what is served.
  const user = buildUser(tenants);
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${address.port}`,
    clientId: behaviour.clientId,
    clientSecret: behaviour.clientSecret,
    secondClientId: behaviour.secondClientId,
    secondClientSecret: behaviour.secondClientSecret,
    tenantId: user.tenants[0]?.id ?? MAIN_TENANT_ID,
    foreignTenantId: FOREIGN_TENANT_ID,
    pagedPaths: [...PAGED_PATHS],
    singlePaths: [...SINGLE_PATHS],
    openapiFile: REFERENCE_OPENAPI_FILE,
    expectations: { user, resources: seededResources(tenants) },
    tokensIssued: () => ctx.tokens.issued,
    issuedTokens: () => [...ctx.tokens.issuedTokens],
    requestLog: () => log,
    requestCount: () => requests,
    throttledCount: () => throttled,
    close: () => {
      // Idempotent: a second close() gets the first one's promise instead of ERR_SERVER_NOT_RUNNING.
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // server.close only stops accepting; idle keep-alive sockets would hold it open.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** The tenant with no shipments, for tests of the empty list. */
export const REFERENCE_EMPTY_TENANT_ID = EMPTY_TENANT_ID;
