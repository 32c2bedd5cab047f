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
Object.assign(
  (require('undici/lib/dispatcher/dispatcher') as { prototype: object }).prototype,
  require('undici/lib/api'),
);

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
  const sent = new PendingExchange(options);
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
      sent,
    );
  } catch (err) {
    sent.onResponseError(undefined, err as Error);
  }
  return sent;
}

/**
 * One exchange: the dispatcher's handler and what the caller holds, as one instance of a class.
 * Why a class: an object literal with a getter (`get head()`) gets a map of its own, allocated in
 * V8's old generation, and that map, dead or not, kept the exchange's closures and body alive
 * through every young-generation collection until the next full one. A walk then promoted most
 * of what it read and ran a full collection every few pages (31 in a walk of a million items
 * where `request` ran 6; docs/speed.md).
 */
class PendingExchange implements Exchange, Dispatcher.DispatchHandler {
  readonly response: Promise<RawResponse>;
  /** The status and headers once they have arrived, also when the body then fails. */
  head: Omit<RawResponse, 'body'> | undefined = undefined;
  #controller: Dispatcher.DispatchController | undefined = undefined;
  #aborted: { reason: Error } | undefined = undefined;
  #done = false;
  #resolve!: (r: RawResponse) => void;
  #reject!: (err: unknown) => void;
  readonly #chunks: Buffer[] = [];
  #size = 0;
  readonly #options: ExchangeOptions;

  constructor(options: ExchangeOptions) {
    this.#options = options;
    this.response = new Promise<RawResponse>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  abort(reason: Error): void {
    if (this.#aborted || this.#done) return;
    this.#aborted = { reason };
    this.#controller?.abort(reason);
  }

  onRequestStart(c: Dispatcher.DispatchController): void {
    this.#controller = c;
    if (this.#aborted) c.abort(this.#aborted.reason);
  }

  onResponseStart(_c: Dispatcher.DispatchController, status: number, headers: RawResponse['headers']): void {
    // An informational (1xx) response precedes the final one, which brings its own headers.
    if (status < 200) return;
    this.head = { statusCode: status, headers };
  }

  onResponseData(c: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#size += chunk.length;
    if (this.#size > this.#options.maxBodyBytes) {
      c.abort(this.#options.tooLarge());
      return;
    }
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    this.#done = true;
    const chunks = this.#chunks;
    // Most bodies arrive in one chunk: no copy then.
    const body = chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks, this.#size);
    const head = this.head;
    this.#resolve(
      head ? { statusCode: head.statusCode, headers: head.headers, body } : { statusCode: 0, headers: {}, body },
    );
  }

  onResponseError(_c: Dispatcher.DispatchController | undefined, err: Error): void {
    this.#done = true;
    this.#reject(err);
  }
}
