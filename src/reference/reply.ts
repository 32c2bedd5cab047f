/**
 * Handlers return a `Reply` value instead of writing to the socket, so a response can be inspected
 * or altered in one place (server.ts) before it is sent. All bodies are JSON.
 */
import type { ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';

/** Header fields; an array value is sent as several field lines (RFC 9110 §5.3). */
export type Headers = Readonly<Record<string, string | readonly string[]>>;

export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  /** Serialised as JSON, unless `raw` is given. */
  readonly body: unknown;
  /** A body sent as is, with its own Content-Type (absent: no Content-Type at all). */
  readonly raw?: { readonly contentType?: string; readonly text: string };
  /** Overrides the JSON Content-Type (a variant spells it differently). */
  readonly contentType?: string;
}

/** How replies go on the wire: the knobs that alterations (faults, variants) turn. */
export interface WireOptions {
  /** Compress bodies when the client accepts it (RFC 9110 §12.5.3). */
  compress: boolean;
  /** Chunked transfer coding instead of Content-Length. */
  chunked: boolean;
  /** Close the connection after each response instead of keeping it alive. */
  closeConnections: boolean;
  /** Milliseconds to wait before answering. */
  delayMs: number;
  /** How long an idle keep-alive connection is kept open (node's default: 5 s). */
  keepAliveTimeoutMs: number;
}

export const DEFAULT_WIRE: WireOptions = {
  compress: false,
  chunked: false,
  closeConnections: false,
  delayMs: 0,
  keepAliveTimeoutMs: 5000,
};

/** A refusal decided by a module (versioning, auth, paging…) before the endpoint's error style is applied. */
export interface Refusal {
  readonly status: number;
  /** A machine-readable code; the OAuth codes of RFC 6749 §5.2 / RFC 6750 §3.1 where one fits. */
  readonly error: string;
  /**
   * Human-readable text. Kept to the ASCII subset without `"` and `\` that RFC 6749 §5.2 allows
   * for error_description, so it can also go into a challenge's quoted-string unescaped.
   */
  readonly description: string;
  readonly headers?: Headers;
}

export const JSON_CONTENT_TYPE = 'application/json;charset=UTF-8';

export function json(status: number, body: unknown, headers: Headers = {}): Reply {
  return { status, headers, body };
}

/** Error style of the resource endpoints: `{"error": …, "message": …}`; errors are never cached. */
export function apiError(refusal: Refusal): Reply {
  return json(
    refusal.status,
    { error: refusal.error, message: refusal.description },
    { 'Cache-Control': 'no-store', ...refusal.headers },
  );
}

/**
 * Error style of the token endpoint (RFC 6749 §5.2): `{"error": …, "error_description": …}`,
 * with the same no-store/no-cache headers as a success (RFC 6749 §5.1).
 */
export function oauthError(refusal: Refusal): Reply {
  return json(
    refusal.status,
    { error: refusal.error, error_description: refusal.description },
    { 'Cache-Control': 'no-store', Pragma: 'no-cache', ...refusal.headers },
  );
}

export function writeReply(
  res: ServerResponse,
  reply: Reply,
  wire: WireOptions = DEFAULT_WIRE,
  acceptEncoding = '',
): void {
  res.statusCode = reply.status;
  // RFC 9110 §15.3.5, §15.4.5: a 204 or 304 has no content, hence no Content-Type, Content-Length or coding.
  if (reply.status === 204 || reply.status === 304) {
    for (const [name, value] of Object.entries(reply.headers)) res.setHeader(name, value);
    if (wire.closeConnections) res.setHeader('Connection', 'close');
    res.end();
    return;
  }
  let payload = Buffer.from(reply.raw ? reply.raw.text : JSON.stringify(reply.body), 'utf8');
  const contentType = reply.raw ? reply.raw.contentType : (reply.contentType ?? JSON_CONTENT_TYPE);
  if (contentType !== undefined) res.setHeader('Content-Type', contentType);
  for (const [name, value] of Object.entries(reply.headers)) res.setHeader(name, value);
  if (wire.compress && /\bgzip\b/i.test(acceptEncoding)) {
    payload = gzipSync(payload);
    res.setHeader('Content-Encoding', 'gzip');
    res.setHeader('Vary', 'Accept-Encoding');
  }
  if (wire.closeConnections) res.setHeader('Connection', 'close');
  if (wire.chunked) {
    // Two writes without Content-Length: node sends Transfer-Encoding: chunked.
    const half = Math.floor(payload.length / 2);
    res.write(payload.subarray(0, half));
    res.end(payload.subarray(half));
    return;
  }
  res.setHeader('Content-Length', payload.length);
  res.end(payload);
}
