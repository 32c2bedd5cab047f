import { inject } from 'vitest';
import type { ClientCredentials, Target } from '../api/requests.js';
import type { Expectations } from '../config.js';
import { HttpClient } from '../http/client.js';
import { clientOptions, type HttpSettings } from '../http/settings.js';
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
  http: HttpSettings;
  maxExpiryWaitSeconds: number;
  expiryMarginSeconds: number;
  pageSize?: number;
  concurrency: number;
  /** The token the runner obtained before the battery, shared by every check that needs one. */
  sharedToken?: SharedToken;
  /** Why there is no shared token. */
  sharedTokenProblem?: string;
  /** The BroadcastChannel on which the runner announces that the run stops (see abortChannelName). */
  abortChannel: string;
}

/**
 * The channel that stops a run's workers. The battery runs in worker threads of the harness's
 * process, and a BroadcastChannel reaches every thread of a process: the runner posts the
 * reason on it (Ctrl-C, --deadline) and every worker aborts its requests and waits at once.
 * (Vitest's own cancellation waits for the running tests to end, which a hung request never does.)
 */
export function abortChannelName(runId: string): string {
  return `carrier-conformance:abort:${runId}`;
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
  /** Aborted when the runner stops the run. */
  stopped: AbortSignal;
}

let battery: Battery | undefined;

/** The worker's view of the run: settings, and one HTTP client (one keep-alive pool) per worker. */
export function getBattery(): Battery {
  if (battery) return battery;
  const settings = inject(PROVIDE_KEY);
  // Register every secret before the first request can record anything.
  redactor.addClientCredentials(settings.credentials.clientId, settings.credentials.clientSecret);
  redactor.addSecret(settings.sharedToken?.accessToken, 'access-token');
  const stop = new AbortController();
  const channel = new BroadcastChannel(settings.abortChannel);
  channel.onmessage = (event: MessageEvent) => {
    stop.abort(typeof event.data === 'string' ? event.data : 'the run was stopped');
    channel.close();
  };
  // The channel must not keep a worker alive once its tests are done.
  (channel as unknown as { unref(): void }).unref();
  const http = new HttpClient(clientOptions(settings.http, redactor, stop.signal));
  battery = { settings, http, stopped: stop.signal };
  return battery;
}
