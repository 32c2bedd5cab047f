import { createRequire } from 'node:module';
import type { Agent as AgentClass, Dispatcher, EnvHttpProxyAgent as EnvHttpProxyAgentClass } from 'undici';

/**
 * The parts of undici the HTTP layer uses, and only those. undici's entry module loads all of
 * undici (fetch, WebSocket, EventSource, the cache, the mock agents…): ~100 ms on this machine,
 * paid by the CLI's thread and again by every battery worker, where it sits on the start-up's
 * critical path. Its Agent, EnvHttpProxyAgent and API methods load in ~40 ms. Requests are sent
 * with `exchange` (below), on the dispatcher's handler interface.
 *
 * These are undici's own modules, the very ones its entry re-exports (test/undici-parts.test.ts
 * holds that for the installed version, so that a reorganised undici fails the tests rather than
 * the users). They are required, not imported: they are CommonJS.
 */
const require = createRequire(import.meta.url);

// What undici's entry does first: every dispatcher gets the API methods (request, connect…); the
// proxy agents use `connect` to open their tunnels.
Object.assign((require('undici/lib/dispatcher/dispatcher') as { prototype: object }).prototype, require('undici/lib/api'));

export const Agent = require('undici/lib/dispatcher/agent') as typeof AgentClass;
export const EnvHttpProxyAgent = require('undici/lib/dispatcher/env-http-proxy-agent') as typeof EnvHttpProxyAgentClass;

/** An exchange's response: status, headers as undici parses them, and the whole body. */
export interface RawResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface ExchangeOptions {
  method: Dispatcher.HttpMethod;
  headers: Record<string, string>;
  body: string | null;
  dispatcher: Dispatcher;
  headersTimeout: number;
  bodyTimeout: number;
  /** The most body bytes taken: past that, the exchange is aborted with `tooLarge()`. */
  maxBodyBytes: number;
  tooLarge: () => Error;
}

/** A started exchange: its response, and how to abort it (the deadline, the run's stop). */
export interface Exchange {
  response: Promise<RawResponse>;
  /** The status and headers once they have arrived, also when the body then fails. */
  readonly head: Omit<RawResponse, 'body'> | undefined;
  abort(reason: Error): void;
}

/**
 * Sends a request and collects its whole response, through the dispatcher's handler interface
 * rather than `request`: the harness reads every body whole (up to a cap), so `request`'s body
 * stream, its async iteration and its abort-signal listener were work for nothing on every page
 * of a walk. The errors are undici's own, as `request` rejects with them: a transport error, a
 * timeout (headersTimeout, bodyTimeout), or the reason given to `abort`.
 */
export function exchange(url: URL, options: ExchangeOptions): Exchange {
  let controller: Dispatcher.DispatchController | undefined;
  let aborted: { reason: Error } | undefined;
  let done = false;
  let settle!: { resolve: (r: RawResponse) => void; reject: (err: unknown) => void };
  const response = new Promise<RawResponse>((resolve, reject) => (settle = { resolve, reject }));
  let head: Omit<RawResponse, 'body'> | undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  const handler: Dispatcher.DispatchHandler = {
    onRequestStart(c) {
      controller = c;
      if (aborted) c.abort(aborted.reason);
    },
    onResponseStart(_c, status, h) {
      // An informational (1xx) response precedes the final one, which brings its own headers.
      if (status < 200) return;
      head = { statusCode: status, headers: h };
    },
    onResponseData(c, chunk) {
      size += chunk.length;
      if (size > options.maxBodyBytes) {
        c.abort(options.tooLarge());
        return;
      }
      chunks.push(chunk);
    },
    onResponseEnd() {
      done = true;
      // Most bodies arrive in one chunk: no copy then.
      const body = chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks, size);
      settle.resolve(head ? { statusCode: head.statusCode, headers: head.headers, body } : { statusCode: 0, headers: {}, body });
    },
    onResponseError(_c, err) {
      done = true;
      settle.reject(err);
    },
  };
  try {
    options.dispatcher.dispatch(
      {
        origin: url.origin,
        path: url.search ? `${url.pathname}${url.search}` : url.pathname,
        method: options.method,
        headers: options.headers,
        body: options.body,
        headersTimeout: options.headersTimeout,
        bodyTimeout: options.bodyTimeout,
      },
      handler,
    );
  } catch (err) {
    settle.reject(err);
  }
  return {
    response,
    get head() {
      return head;
    },
    abort(reason) {
      if (aborted || done) return;
      aborted = { reason };
      controller?.abort(reason);
    },
  };
}
