import type { Redactor } from '../redact.js';
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
}

/** Characters of each (redacted) body kept in a recorded exchange. */
export const RECORD_BODY_CHARS = 4096;

export function clientOptions(settings: HttpSettings, redactor: Redactor, signal?: AbortSignal): HttpClientOptions {
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
    ...(settings.maxInFlight !== undefined ? { maxInFlight: settings.maxInFlight } : {}),
    ...(signal ? { signal } : {}),
  };
}
