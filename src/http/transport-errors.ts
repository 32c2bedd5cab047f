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
  ECONNREFUSED: (c) => `connection refused by ${c.url.host} (is the target running?)`,
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
  DEPTH_ZERO_SELF_SIGNED_CERT: (c) => `TLS: ${c.url.host} presented a self-signed certificate (use --ca-file)`,
  SELF_SIGNED_CERT_IN_CHAIN: (c) => `TLS: ${c.url.host} presented a certificate chain with an untrusted root (use --ca-file)`,
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: (c) => `TLS: cannot verify the certificate of ${c.url.host} (use --ca-file)`,
  CERT_HAS_EXPIRED: (c) => `TLS: the certificate of ${c.url.host} has expired`,
  ERR_TLS_CERT_ALTNAME_INVALID: (c) => `TLS: the certificate of ${c.url.host} does not match its host name`,
};

export function describeTransportError(err: unknown, context: Context): string {
  const e = err as { name?: string; code?: string; message?: string; cause?: unknown };
  if (e?.name === 'BodyTooLargeError') return `the response body is larger than the ${context.maxBodyBytes}-byte cap (--max-body-bytes)`;
  if (e?.name === 'TimeoutError') return `no complete response within ${context.timeoutMs} ms (--timeout)`;
  if (e?.name === 'AbortError' || e?.code === 'UND_ERR_ABORTED') {
    return context.aborted ? 'the run was aborted while the request was in flight' : `no complete response within ${context.timeoutMs} ms (--timeout)`;
  }
  for (const candidate of [e, e?.cause as typeof e]) {
    const code = candidate?.code;
    if (code && BY_CODE[code]) return BY_CODE[code](context);
  }
  const cause = e?.cause as { message?: string } | undefined;
  const detail = [e?.message, cause?.message].filter(Boolean).join(': ');
  return detail || String(err);
}
