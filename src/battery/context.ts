import { inject } from 'vitest';
import type { ClientCredentials, Target } from '../api/requests.js';
import type { Expectations } from '../config.js';
import { HttpClient } from '../http/client.js';
import { redactor } from '../redact.js';

/**
 * What the runner hands to the battery: everything a check needs to know about the target and
 * the run. It crosses from the CLI process to the Vitest workers with `provide`/`inject`, so it
 * is plain data (structured-cloneable). It holds secrets: it is never written anywhere.
 */
export interface BatteryContext {
  target: Target & { embedded: boolean };
  credentials: ClientCredentials;
  /** The tenant under test; absent when none was given and /users/me listed none. */
  tenantId?: string;
  /** Why there is no tenant under test. */
  tenantProblem?: string;
  /** A tenant this client may not access (given, or a random UUID). */
  foreignTenantId: string;
  pagedPaths: string[];
  expectations?: Expectations;
  /** Ids of the checks to run. */
  selected: string[];
  timeoutMs: number;
  maxBodyBytes: number;
  maxExpiryWaitSeconds: number;
  expiryMarginSeconds: number;
  pageSize?: number;
  concurrency: number;
  userAgent: string;
  /** The token the runner obtained before the battery, shared by every check that needs one. */
  sharedToken?: SharedToken;
  /** Why there is no shared token. */
  sharedTokenProblem?: string;
}

export interface SharedToken {
  accessToken: string;
  expiresIn: number;
  /** Epoch ms when the token request was sent and when its response arrived. */
  sentAt: number;
  receivedAt: number;
}

declare module 'vitest' {
  export interface ProvidedContext {
    carrier: BatteryContext;
  }
}

export const PROVIDE_KEY = 'carrier';

export interface Battery {
  settings: BatteryContext;
  http: HttpClient;
}

let battery: Battery | undefined;

/** The worker's view of the run: settings, and one HTTP client (one keep-alive pool) per worker. */
export function getBattery(): Battery {
  if (battery) return battery;
  const settings = inject(PROVIDE_KEY);
  // Register every secret before the first request can record anything.
  redactor.addClientCredentials(settings.credentials.clientId, settings.credentials.clientSecret);
  redactor.addSecret(settings.sharedToken?.accessToken, 'access-token');
  const http = new HttpClient({
    timeoutMs: settings.timeoutMs,
    maxBodyBytes: settings.maxBodyBytes,
    recordBodyChars: 4096,
    credentialOrigins: [...new Set([new URL(settings.target.baseUrl).origin, new URL(settings.target.authUrl).origin])],
    redactor,
    userAgent: settings.userAgent,
  });
  battery = { settings, http };
  return battery;
}
