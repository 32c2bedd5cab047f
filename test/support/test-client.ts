/**
 * The HTTP layer as the tests drive it directly (src/http/client.ts): credentials only to the one
 * loopback origin under test, no retries, and small caps; a test passes what it is about.
 */
import type { Dispatcher } from 'undici';
import { Redactor } from '../../src/core/redact.js';
import { HttpClient, type HttpClientOptions } from '../../src/http/client.js';

export function testClient(
  origin: string,
  options: Partial<HttpClientOptions> = {},
  dispatcher?: Dispatcher,
): HttpClient {
  return new HttpClient(
    {
      timeoutMs: 5_000,
      maxBodyBytes: 10_000,
      recordBodyChars: 100,
      credentialOrigins: [origin],
      redactor: new Redactor(),
      userAgent: 'carrier-conformance-test',
      maxRetries: 0,
      maxRetryWaitMs: 0,
      ...options,
    },
    dispatcher,
  );
}
