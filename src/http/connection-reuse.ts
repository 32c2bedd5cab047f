import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';

/**
 * Tells a request that died on a *reused* keep-alive connection before any byte of its response
 * arrived from every other transport failure, so that the HTTP layer can retry exactly that one.
 *
 * The race: a server (or a gateway such as nginx with `keepalive_timeout 0.5s`) closes an idle
 * connection at the moment the client writes the next request onto it. RFC 9112 §9.3.1 lets a
 * client retry then, because the server cannot have acted on a request it never answered and
 * the request is safe to repeat (every request this harness sends is free of side effects that
 * matter: reads, and token requests that only mint another token). A failure on a fresh
 * connection, or after response bytes arrived, is the target's behaviour and is never retried.
 *
 * undici does not say which connection a request went out on, but it publishes that on its
 * documented diagnostics channels: `undici:client:sendHeaders` ({request, socket}) when a request
 * is written, and `undici:request:error` ({request, error}) synchronously before the error
 * reaches the caller. The error object is tagged there and read back in the HTTP layer.
 */

interface SentOn {
  socket: Socket;
  /** An earlier request was written to this socket: the connection is being reused. */
  reused: boolean;
  /** Response (plaintext, for TLS) bytes the socket had read when this request was written. */
  bytesReadAtSend: number;
}

interface ReuseTag {
  reused: boolean;
  /** Bytes of a response that arrived for this request before the connection failed. */
  responseBytes: number;
}

const REUSE_TAG = Symbol('carrier-conformance.connection-reuse');
/** Errors of a connection closed or reset by the other side, as undici reports them. */
const CLOSED_BY_PEER = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

const requestsWritten = new WeakMap<Socket, number>();
const sentOn = new WeakMap<object, SentOn>();
let subscribed = false;

/** Starts following which connection each request goes out on (once per thread). */
export function trackConnectionReuse(): void {
  if (subscribed) return;
  subscribed = true;
  subscribe('undici:client:sendHeaders', (message) => {
    const { request, socket } = message as { request: object; socket: Socket };
    const before = requestsWritten.get(socket) ?? 0;
    requestsWritten.set(socket, before + 1);
    sentOn.set(request, { socket, reused: before > 0, bytesReadAtSend: socket.bytesRead });
  });
  subscribe('undici:request:error', (message) => {
    const { request, error } = message as { request: object; error: unknown };
    const sent = sentOn.get(request);
    if (!sent || error === null || typeof error !== 'object') return;
    const tag: ReuseTag = { reused: sent.reused, responseBytes: sent.socket.bytesRead - sent.bytesReadAtSend };
    Object.defineProperty(error, REUSE_TAG, { value: tag, configurable: true });
  });
}

/**
 * True when `err` is a reused connection closed by the other side before any byte of the
 * response: the one transport failure that is retried (once).
 */
export function closedBeforeResponseOnReusedConnection(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } } & Partial<Record<typeof REUSE_TAG, ReuseTag>>;
  const tag = e?.[REUSE_TAG];
  if (!tag?.reused || tag.responseBytes !== 0) return false;
  return CLOSED_BY_PEER.has(e.code ?? '') || CLOSED_BY_PEER.has(e.cause?.code ?? '');
}
