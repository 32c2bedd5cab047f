/**
 * The request as the pipeline sees it: read once (body included, within a limit), path rewritten
 * by the gateway, headers in a mutable copy. Alterations (src/reference/alterations.ts) may
 * rewrite it before the handlers run, which is how faults and variants change the server's
 * behaviour without touching the handlers.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { readBody } from './body.js';
import { routeTarget } from './gateway.js';

export interface Req {
  method: string;
  /** The path as received, before the gateway's rewrite. */
  readonly rawPath: string;
  /** The path after the gateway's rewrite of legacy paths. */
  path: string;
  query: URLSearchParams;
  /** Header fields by lower-cased name, as node parses them. */
  headers: IncomingHttpHeaders;
  /** Header field names as spelled on the wire. */
  readonly rawHeaderNames: readonly string[];
  /** The body; null when it exceeded the limit (the rest is left unread), or has not been read (`headOnly`). */
  body: Buffer | null;
  /** Only the header section is read: the client expects 100-continue (RFC 9110 §10.1.1), and the content waits for it. */
  headOnly?: boolean;
  /** The client whose bearer token authenticated the request (set once it did): its tenants are the ones it may access. */
  client?: 'first' | 'second';
}

export async function readRequest(message: IncomingMessage, bodyLimit: number, legacyRewrites: boolean): Promise<Req> {
  return { ...readRequestHead(message, legacyRewrites), headOnly: false, body: await readBody(message, bodyLimit) };
}

/** The request without its content, which is not read (see Req.headOnly). */
export function readRequestHead(message: IncomingMessage, legacyRewrites: boolean): Req {
  const url = message.url ?? '/';
  const q = url.indexOf('?');
  const target = routeTarget(url, legacyRewrites);
  return {
    method: message.method ?? 'GET',
    rawPath: q === -1 ? url : url.slice(0, q),
    path: target.path,
    query: target.query,
    headers: { ...message.headers },
    rawHeaderNames: message.rawHeaders.filter((_, i) => i % 2 === 0),
    body: null,
    headOnly: true,
  };
}
