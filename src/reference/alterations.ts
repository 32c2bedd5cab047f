/**
 * Alterations of the reference server: faults (each breaks one rule of the spec or of an RFC it
 * names) and variants (unusual but conformant behaviour). An alteration is data plus small hooks
 * around the pipeline, so the handlers stay a plain, correct implementation of the spec:
 *
 *   request hooks  → rewrite the request before the handlers see it (e.g. drop a header);
 *   handlers       → the conformant answer;
 *   reply hooks    → rewrite the answer (e.g. a field's type, a header, the status);
 *   wire options   → how it goes on the wire (compression, chunking, delays, connections).
 */
import type { ReferenceContext } from './context.js';
import { LEGACY_REWRITES } from './gateway.js';
import { json, type Reply, type WireOptions } from './reply.js';
import type { Req } from './request.js';
import { USER_PATH } from './routes.js';
import { TOKEN_PATH } from './token-endpoint.js';

export interface Alteration {
  /** Stable kebab-case name, as given to `serve --fault` / `--variant`. */
  readonly name: string;
  /** What it does, and for a fault which rule it breaks. */
  readonly description: string;
  readonly wire?: Partial<WireOptions>;
  /** Default and maximum page size, for variants that page differently. */
  readonly paging?: { readonly pageSizeDefault?: number; readonly pageSizeMax?: number };
  request?(req: Req, ctx: ReferenceContext): void;
  reply?(reply: Reply, req: Req, ctx: ReferenceContext): Reply;
}

/** Runs the request hooks, in order. */
export function alterRequest(alterations: readonly Alteration[], req: Req, ctx: ReferenceContext): void {
  for (const a of alterations) a.request?.(req, ctx);
}

/** Runs the reply hooks, in order. */
export function alterReply(alterations: readonly Alteration[], reply: Reply, req: Req, ctx: ReferenceContext): Reply {
  return alterations.reduce((r, a) => (a.reply ? a.reply(r, req, ctx) : r), reply);
}

// ── what a hook asks about the request ─────────────────────────────────────────────────────

export const isTokenRequest = (req: Req): boolean => req.path === TOKEN_PATH;
export const isUserRequest = (req: Req): boolean => req.path === USER_PATH;
export const isListRequest = (req: Req): boolean => /^\/tenants\/[^/]+\/(shipments|invoices)$/.test(req.path);
export const isShipmentsRequest = (req: Req): boolean => /^\/tenants\/[^/]+\/shipments$/.test(req.path);
export const isLegacyRequest = (req: Req): boolean => LEGACY_REWRITES.has(req.rawPath);
/** A resource endpoint: every endpoint but the token endpoint (spec §Endpoints). */
export const isResourceRequest = (req: Req): boolean => !isTokenRequest(req);

export function header(req: Req, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The tenant id segment of a tenant-scoped path. */
export function tenantSegment(req: Req): string | undefined {
  return /^\/tenants\/([^/]+)\//.exec(req.path)?.[1];
}

// ── what a hook does to a reply ────────────────────────────────────────────────────────────

export function replyHeader(reply: Reply, name: string): string | undefined {
  const entry = Object.entries(reply.headers).find(([n]) => n.toLowerCase() === name.toLowerCase());
  if (!entry) return undefined;
  return Array.isArray(entry[1]) ? entry[1].join(', ') : (entry[1] as string);
}

/** Sets (or with `undefined` removes) a header field, whatever the case of its name. */
export function withHeader(reply: Reply, name: string, value: string | readonly string[] | undefined): Reply {
  const headers: Record<string, string | readonly string[]> = {};
  for (const [n, v] of Object.entries(reply.headers)) if (n.toLowerCase() !== name.toLowerCase()) headers[n] = v;
  if (value !== undefined) headers[name] = value;
  return { ...reply, headers };
}

/** Applies `edit` to a copy of a JSON object body. */
export function withBody(reply: Reply, edit: (body: Record<string, unknown>) => void): Reply {
  if (reply.body === null || typeof reply.body !== 'object' || Array.isArray(reply.body)) return reply;
  const body = { ...(reply.body as Record<string, unknown>) };
  edit(body);
  return { ...reply, body };
}

/** Applies `edit` to a copy of every item of a JSON array body. */
export function withItems(reply: Reply, edit: (item: Record<string, unknown>, index: number) => void): Reply {
  if (!Array.isArray(reply.body)) return reply;
  return {
    ...reply,
    body: (reply.body as Record<string, unknown>[]).map((item, i) => {
      const copy = { ...item };
      edit(copy, i);
      return copy;
    }),
  };
}

export function errorCode(reply: Reply): string | undefined {
  const body = reply.body as { error?: unknown } | null;
  return body !== null && typeof body === 'object' && typeof body.error === 'string' ? body.error : undefined;
}

/** A successful token response, as the token endpoint gives it (RFC 6749 §5.1). */
export function issuedToken(ctx: ReferenceContext): Reply {
  const { token, expiresIn } = ctx.tokens.issue();
  return json(
    200,
    { access_token: token, token_type: 'bearer', expires_in: expiresIn },
    { 'Cache-Control': 'no-store', Pragma: 'no-cache' },
  );
}

/** Replaces the request's Authorization with a currently valid bearer token. */
export function authoriseWithFreshToken(req: Req, ctx: ReferenceContext): void {
  req.headers.authorization = `Bearer ${ctx.tokens.issue().token}`;
}

/** The bearer token of the request, if it has one. */
export function bearerToken(req: Req): string | undefined {
  return /^bearer +(\S+)$/i.exec(header(req, 'authorization') ?? '')?.[1];
}

/** Basic credentials for a client id and secret, form-encoded first (RFC 7617, RFC 6749 §2.3.1). */
export function basicOf(clientId: string, clientSecret: string): string {
  const enc = (v: string): string => new URLSearchParams([['', v]]).toString().slice(1);
  return `Basic ${Buffer.from(`${enc(clientId)}:${enc(clientSecret)}`, 'utf8').toString('base64')}`;
}

/** Valid Basic credentials of the configured client (RFC 7617, RFC 6749 §2.3.1). */
export function validBasic(ctx: ReferenceContext): string {
  return basicOf(ctx.behaviour.clientId, ctx.behaviour.clientSecret);
}

/** A parameter of the request's form body (the token request's, RFC 6749 §4.4.2), if it has one. */
export function formParam(req: Req, name: string): string | undefined {
  return req.body ? (new URLSearchParams(req.body.toString('utf8')).get(name) ?? undefined) : undefined;
}

/** The client id of a Basic Authorization header, decoded; undefined when there is none. */
export function basicClientId(req: Req): string | undefined {
  const m = /^basic +([A-Za-z0-9+/=]+)$/i.exec(header(req, 'authorization') ?? '');
  if (!m?.[1]) return undefined;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    return decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}
