/**
 * The Carrier-Platform API as a product team writes it in Express 5 (issue 41: what Express does
 * with a write's `Expect: 100-continue`): middleware in the order the spec's rules read (the
 * version, the token endpoint, the bearer guard, the tenant guard), then the routes. The answers
 * are the reference server's (its token endpoint, bearer check, data and routing), so that what
 * is measured is Express and node:http, not another implementation of the API.
 *
 * - `listen` (what `app.listen()` does): node:http answers `100 Continue` itself to a request that
 *   expects it, before Express sees the request, unless the server listens for `checkContinue`.
 * - `check-continue`: the server hands such a request to the app (`server.on('checkContinue',
 *   app)`), and a middleware after the guards sends `100 Continue` (`res.writeContinue()`) before
 *   the content is read: a refusal by a guard is a final answer to the header section (RFC 9110
 *   §10.1.1), and the content of an accepted request still comes.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { LEGACY_TOKEN_PATH } from '../../../src/core/carrier-spec.js';
import { resolveBehaviour } from '../../../src/reference/behaviour.js';
import { authenticateBearer } from '../../../src/reference/bearer-auth.js';
import type { ReferenceContext } from '../../../src/reference/context.js';
import { buildTenants, buildUser, FOREIGN_TENANT_ID, MAIN_TENANT_ID, mayAccess } from '../../../src/reference/data.js';
import { apiError, oauthError, writeReply, type Reply } from '../../../src/reference/reply.js';
import { readRequest } from '../../../src/reference/request.js';
import { routeResource } from '../../../src/reference/routes.js';
import { REFERENCE_OPENAPI_FILE, seededResources } from '../../../src/reference/seeded.js';
import { handleTokenRequest, TOKEN_PATH } from '../../../src/reference/token-endpoint.js';
import { TokenStore } from '../../../src/reference/tokens.js';
import { checkAcceptVersion } from '../../../src/reference/versioning.js';
import { onLoopback } from '../loopback.js';

export type ExpressMode = 'listen' | 'check-continue';

export interface ExpressStack {
  url: string;
  clientId: string;
  clientSecret: string;
  tenantId: string;
  foreignTenantId: string;
  openapiFile: string;
  expectations: { user: unknown; resources: Record<string, unknown> };
  close(): Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function startExpressApp(options: { mode: ExpressMode; tokenTtlSeconds: number }): Promise<ExpressStack> {
  const behaviour = resolveBehaviour({ tokenTtlSeconds: options.tokenTtlSeconds });
  const tenants = buildTenants(behaviour.shipmentCount);
  const ctx: ReferenceContext = {
    behaviour,
    tokens: new TokenStore(options.tokenTtlSeconds),
    tenants,
    user: buildUser(tenants),
    secondUser: buildUser(tenants, 'second'),
    scratch: new Map(),
  };
  const send = (res: Response, reply: Reply): void => writeReply(res, reply);
  /** The reference's request, read whole (its content included) from the one Express hands on. */
  const whole = (req: Request) => readRequest(req, behaviour.maxTokenBodyBytes, true);

  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');

  // spec §Versioning: every endpoint, the token endpoint's included, before anything else.
  app.use((req: Request, res: Response, next: NextFunction) => {
    const refusal = checkAcceptVersion(req.headers, behaviour);
    if (!refusal) return next();
    const isToken = req.path === TOKEN_PATH || req.path === LEGACY_TOKEN_PATH;
    send(res, isToken ? oauthError(refusal) : apiError(refusal));
  });

  app.post([TOKEN_PATH, LEGACY_TOKEN_PATH], (req: Request, res: Response, next: NextFunction) => {
    if (req.headers.expect !== undefined) res.writeContinue();
    whole(req)
      .then((r) => send(res, handleTokenRequest(r, ctx)))
      .catch(next);
  });

  // spec §Authentication 4: every other request carries a bearer token (RFC 6750).
  app.use((req: Request, res: Response, next: NextFunction) => {
    const query = new URLSearchParams(req.originalUrl.split('?')[1] ?? '');
    const refusal = authenticateBearer(req.headers.authorization, query, behaviour, ctx.tokens);
    if (refusal) return send(res, apiError(refusal));
    res.locals.client = ctx.tokens.clientOf(/^\S+\s+(\S+)$/.exec(req.headers.authorization ?? '')?.[1]);
    next();
  });

  // spec §Tenant-scoped endpoints, §Authentication 5: a tenant the client may access, by its UUID.
  app.use('/tenants/:tenantId', (req: Request, res: Response, next: NextFunction) => {
    const id = String(req.params.tenantId);
    if (!UUID.test(id))
      return send(res, apiError({ status: 400, error: 'invalid_request', description: 'tenantId must be a UUID' }));
    const tenant = tenants.get(id.toLowerCase());
    if (!tenant) return send(res, apiError({ status: 404, error: 'not_found', description: 'No such tenant' }));
    if (!mayAccess(tenant, res.locals.client as 'first' | 'second'))
      return send(
        res,
        apiError({ status: 403, error: 'forbidden', description: 'This client may not access the tenant' }),
      );
    next();
  });

  if (options.mode === 'check-continue')
    // The guards have passed: now the content may come.
    app.use((req: Request, res: Response, next: NextFunction) => {
      if (req.headers.expect?.toLowerCase() === '100-continue') res.writeContinue();
      next();
    });

  app.use((req: Request, res: Response, next: NextFunction) => {
    whole(req)
      .then((r) => send(res, routeResource(r.method, { ...r, client: res.locals.client as 'first' | 'second' }, ctx)))
      .catch(next);
  });

  const sockets = new Set<Socket>();
  const server: Server = createServer(app);
  if (options.mode === 'check-continue')
    server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
      app(req, res);
    });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const url = await onLoopback(server);
  return {
    url,
    clientId: behaviour.clientId,
    clientSecret: behaviour.clientSecret,
    tenantId: MAIN_TENANT_ID,
    foreignTenantId: FOREIGN_TENANT_ID,
    openapiFile: REFERENCE_OPENAPI_FILE,
    expectations: { user: buildUser(tenants), resources: seededResources(tenants) },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
