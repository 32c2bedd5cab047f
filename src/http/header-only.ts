import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { rootCertificates } from 'node:tls';
import type { TlsSettings } from './dispatcher.js';
import { proxyFor } from './proxy.js';
import type { Exchange, RawResponse } from './undici.js';

/**
 * A request that promises content and never sends it (issue 41, tier 1): its header section goes
 * out with `Expect: 100-continue` and a `Content-Length`, and not one byte of content follows.
 * RFC 9110 §10.1.1: an origin server that receives it MUST answer at once, either with a final
 * status "if that status can be determined by examining just the method, target URI, and header
 * fields", or with 100 (Continue). A final status is the answer a check judges; a 100 resolves as
 * a response of status 100, and the connection is closed there, the content unsent (RFC 9112
 * §9.6: a client that will not send the content it announced closes the connection).
 *
 * undici refuses an `Expect` field on HTTP/1.1 (`NotSupportedError: expect header not supported`),
 * so this one kind of request goes through node:http(s), on a connection of its own (no pool:
 * the connection cannot be reused once its request is cut short). Its caller
 * (src/http/client.ts) records and redacts it as every other exchange.
 */

export interface HeaderOnlyOptions {
  method: string;
  /** The header section as sent, `Expect` and `Content-Length` included (the client adds them). */
  headers: Record<string, string>;
  tls: TlsSettings;
  /** How long the answer (final or 100) may take to begin; the run's own deadlines abort it too. */
  headersTimeout: number;
  maxBodyBytes: number;
  tooLarge: () => Error;
}

/** Thrown when a proxy is configured for the target: the probe goes to the target itself or not at all. */
export class HeaderOnlyThroughProxyError extends Error {
  override name = 'HeaderOnlyThroughProxyError';
}

export function headerOnlyExchange(url: URL, options: HeaderOnlyOptions): Exchange {
  const proxy = proxyFor(url.href);
  if (proxy !== undefined) {
    const refused = Promise.reject(
      new HeaderOnlyThroughProxyError(
        `not sent: a proxy is configured for ${url.origin} (${proxy}), and a request that promises content it never sends is sent to the target directly or not at all (set NO_PROXY to reach it directly)`,
      ),
    );
    return { response: refused, head: undefined, abort: () => undefined };
  }
  let head: Omit<RawResponse, 'body'> | undefined;
  let settle: { resolve(r: RawResponse): void; reject(e: Error): void } | undefined;
  const response = new Promise<RawResponse>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const secure = url.protocol === 'https:';
  const tls = options.tls;
  const client = tls.clientCertificate;
  const send = secure ? httpsRequest : httpRequest;
  const request: ClientRequest = send({
    protocol: url.protocol,
    hostname: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port === '' ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    method: options.method,
    headers: options.headers,
    agent: false,
    ...(secure
      ? {
          rejectUnauthorized: !tls.insecure,
          ...(tls.caPem ? { ca: [...rootCertificates, tls.caPem] } : {}),
          ...(client
            ? {
                cert: client.certPem,
                key: client.keyPem,
                ...(client.passphrase !== undefined ? { passphrase: client.passphrase } : {}),
              }
            : {}),
        }
      : {}),
  });
  const finish = (outcome: RawResponse | Error): void => {
    const s = settle;
    settle = undefined;
    // The content is never sent: the connection ends with the exchange, whatever its outcome.
    request.destroy();
    if (!s) return;
    if (outcome instanceof Error) s.reject(outcome);
    else s.resolve(outcome);
  };
  request.setTimeout(options.headersTimeout, () => {
    if (head === undefined)
      finish(
        Object.assign(new Error('Headers Timeout Error'), {
          code: 'UND_ERR_HEADERS_TIMEOUT',
        }),
      );
  });
  request.on('error', (err) => finish(err));
  // The server asks for the content: what the probe learns is that it did, and nothing is sent.
  request.on('continue', () => finish({ statusCode: 100, headers: {}, body: Buffer.alloc(0) }));
  request.on('response', (res: IncomingMessage) => {
    head = { statusCode: res.statusCode ?? 0, headers: res.headers };
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > options.maxBodyBytes) return finish(options.tooLarge());
      chunks.push(chunk);
    });
    res.on('end', () => finish({ ...(head as Omit<RawResponse, 'body'>), body: Buffer.concat(chunks) }));
    res.on('error', (err) => finish(err));
  });
  // The header section alone: end() is never called, so no content byte can follow it.
  request.flushHeaders();
  return {
    response,
    get head() {
      return head;
    },
    abort: (reason: Error) => finish(reason),
  };
}
