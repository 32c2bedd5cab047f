/**
 * One readable line for an exchange that failed below HTTP, for the person reading the report:
 * what happened, in terms of the target, not of undici's internals.
 */

interface Context {
  timeoutMs: number;
  maxBodyBytes: number;
  url: URL;
  /** The run's own abort signal fired (Ctrl-C, deadline). */
  aborted: boolean;
}

const BY_CODE: Record<string, (c: Context) => string> = {
  ECONNREFUSED: (c) => `connection refused by ${c.url.host}`,
  ECONNRESET: (c) => `connection reset by ${c.url.host} before a complete response`,
  EPIPE: (c) => `connection closed by ${c.url.host} while sending the request`,
  ENOTFOUND: (c) => `host ${c.url.hostname} not found (DNS)`,
  EAI_AGAIN: (c) => `host ${c.url.hostname} could not be resolved (DNS, temporary)`,
  EHOSTUNREACH: (c) => `host ${c.url.hostname} unreachable`,
  ENETUNREACH: (c) => `network unreachable for ${c.url.hostname}`,
  ETIMEDOUT: (c) => `connecting to ${c.url.host} timed out`,
  UND_ERR_CONNECT_TIMEOUT: (c) => `connecting to ${c.url.host} timed out after ${c.timeoutMs} ms (--timeout)`,
  UND_ERR_HEADERS_TIMEOUT: (c) => `no response headers within ${c.timeoutMs} ms (--timeout)`,
  UND_ERR_BODY_TIMEOUT: (c) => `the response body stalled for ${c.timeoutMs} ms (--timeout)`,
  UND_ERR_SOCKET: (c) => `connection to ${c.url.host} closed unexpectedly (other side closed)`,
  UND_ERR_CLOSED: () => 'the HTTP client was closed while the request was in flight',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: () => 'the response body does not match its Content-Length (truncated response)',
  UND_ERR_REQ_CONTENT_LENGTH_MISMATCH: () => 'the request body does not match its Content-Length',
  HPE_INVALID_CONSTANT: () => 'the response is not valid HTTP',
  HPE_INVALID_HEADER_TOKEN: () => 'the response has an invalid header field',
  HPE_INVALID_CHUNK_SIZE: () => 'the response has an invalid chunked encoding',
  // OpenSSL read an HTTP answer where a TLS record should be: the port speaks plain HTTP.
  ERR_SSL_WRONG_VERSION_NUMBER: (c) => `TLS: ${c.url.host} answered in plain HTTP, not TLS`,
  DEPTH_ZERO_SELF_SIGNED_CERT: (c) => `TLS: ${c.url.host} presented a self-signed certificate`,
  SELF_SIGNED_CERT_IN_CHAIN: (c) => `TLS: ${c.url.host} presented a certificate chain with an untrusted root`,
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: (c) => `TLS: cannot verify the certificate of ${c.url.host}`,
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: (c) => `TLS: ${c.url.host} presented a certificate whose issuer is not trusted`,
  CERT_HAS_EXPIRED: (c) => `TLS: the certificate of ${c.url.host} has expired`,
  ERR_TLS_CERT_ALTNAME_INVALID: (c) => `TLS: the certificate of ${c.url.host} does not match its host name`,
};

/** The error code of a failed exchange (the error's, or its cause's), when Node or undici gave one. */
export function transportErrorCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code = e?.code ?? e?.cause?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Ends an "http(s)://…" origin in the other scheme: what to use instead. */
function otherScheme(url: URL, scheme: 'http:' | 'https:'): string {
  const other = new URL(url.href);
  other.protocol = scheme;
  return other.origin;
}

/**
 * What to do about a target that could not be reached at all, by the error's code: the second
 * half of the one line a run that ends before the battery prints (the first half says what
 * happened). Undefined when there is nothing better to say than the error itself.
 */
export function reachAdvice(code: string | undefined, url: URL): string | undefined {
  const https = url.protocol === 'https:';
  switch (code) {
    case 'ERR_SSL_WRONG_VERSION_NUMBER':
      return `use ${otherScheme(url, 'http:')} (http://, not https://)`;
    case 'UND_ERR_SOCKET':
    case 'ECONNRESET':
    case 'HPE_INVALID_CONSTANT':
      // A TLS port closes (or sends a TLS alert to) a client that speaks plain HTTP to it.
      return https
        ? 'is this an HTTP(S) server, and is the port right?'
        : `if that port serves TLS, use ${otherScheme(url, 'https:')} (https://)`;
    case 'ECONNREFUSED':
      return 'is the target running, and are the host and port right?';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'check the host name in --base-url (or --auth-url)';
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
    case 'UND_ERR_HEADERS_TIMEOUT':
      return 'check the address, and a firewall or proxy (HTTPS_PROXY, NO_PROXY) on the way; or raise --timeout';
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'trust its CA with --ca-file (or --insecure, for a test target only)';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return 'use the host name the certificate is issued for';
    default:
      return undefined;
  }
}

export function describeTransportError(err: unknown, context: Context): string {
  const e = err as { name?: string; code?: string; message?: string; cause?: unknown };
  if (e?.name === 'BodyTooLargeError')
    return `the response body is larger than the ${context.maxBodyBytes}-byte cap (--max-body-bytes)`;
  if (e?.name === 'TimeoutError') return `no complete response within ${context.timeoutMs} ms (--timeout)`;
  if (e?.name === 'AbortError' || e?.code === 'UND_ERR_ABORTED') {
    return context.aborted
      ? 'the run was aborted while the request was in flight'
      : `no complete response within ${context.timeoutMs} ms (--timeout)`;
  }
  for (const candidate of [e, e?.cause as typeof e]) {
    const code = candidate?.code;
    if (code && BY_CODE[code]) return BY_CODE[code](context);
  }
  const cause = e?.cause as { message?: string } | undefined;
  const detail = [e?.message, cause?.message].filter(Boolean).join(': ');
  return detail || String(err);
}
