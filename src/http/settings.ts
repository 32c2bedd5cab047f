import type { Redactor } from '../core/redact.js';
import type { HttpClientOptions } from './client.js';
import type { TlsSettings } from './dispatcher.js';

/** How the harness talks HTTP, as the run options set it; the same in the CLI process and the workers. */
export interface HttpSettings {
  timeoutMs: number;
  maxBodyBytes: number;
  maxRetries: number;
  maxRetryWaitMs: number;
  tls: TlsSettings;
  userAgent: string;
  /** The base and auth URLs: only their origins may receive credentials. */
  baseUrl: string;
  authUrl: string;
  /** Requests in flight at once, at most (src/http/limit.ts MAX_IN_FLIGHT). */
  maxInFlight?: number;
  /** `--header` fields, sent with every request to the base and auth URLs (src/http/extra-headers.ts). */
  headers?: readonly (readonly [string, string])[];
  /** --verbose: each request and its answer, one line each, to the CLI's stderr. */
  verbose?: boolean;
}

/** Characters of each (redacted) body kept in a recorded exchange. */
export const RECORD_BODY_CHARS = 4096;

export function clientOptions(settings: HttpSettings, redactor: Redactor, signal?: AbortSignal): HttpClientOptions {
  // A gateway key is a credential: registered here, in the CLI process and in every worker,
  // before the first request that carries it can be recorded.
  for (const [, value] of settings.headers ?? []) {
    redactor.addSecret(value, 'secret');
  }
  return {
    timeoutMs: settings.timeoutMs,
    maxBodyBytes: settings.maxBodyBytes,
    maxRetries: settings.maxRetries,
    maxRetryWaitMs: settings.maxRetryWaitMs,
    tls: settings.tls,
    recordBodyChars: RECORD_BODY_CHARS,
    credentialOrigins: [...new Set([new URL(settings.baseUrl).origin, new URL(settings.authUrl).origin])],
    redactor,
    userAgent: settings.userAgent,
    ...(settings.headers && settings.headers.length > 0 ? { extraHeaders: settings.headers } : {}),
    ...(settings.maxInFlight !== undefined ? { maxInFlight: settings.maxInFlight } : {}),
    ...(signal ? { signal } : {}),
  };
}
