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
  /** With more pages than this, a walk samples them (first, last, evenly between). */
  maxPages?: number;
  concurrency: number;
  /** The token the runner obtained before the battery, shared by every check that needs one. */
  sharedToken?: SharedToken;
  /** Why there is no shared token. */
  sharedTokenProblem?: string;
}

/**
 * A run's channel, between the runner and the battery's workers. The battery runs in worker
 * threads of the harness's process, and a BroadcastChannel reaches every thread of a process:
 * - Vitest starts the workers as soon as the options are known, so that their start-up overlaps
 *   the runner's own (loading, preflight); each worker says `ready` and waits for the `context`;
 * - `stop` (Ctrl-C, --deadline, a failed preflight) makes every worker abort its requests and
 *   waits at once. (Vitest's own cancellation waits for running tests, which a hung request
 *   never ends.)
 */
export type RunMessage = { type: 'ready' } | { type: 'context'; context: BatteryContext } | { type: 'stop'; reason: string };

export function runChannelName(runId: string): string {
  return `carrier-conformance:run:${runId}`;
}

/** What Vitest provides to the workers before the run: only the channel to ask for the rest on. */
export interface BatteryWiring {
  channel: string;
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
    carrier: BatteryWiring;
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
let ready: Promise<Battery> | undefined;

/** The worker's view of the run once the runner has sent it (src/battery/check.ts awaits this). */
export function batteryReady(): Promise<Battery> {
  ready ??= new Promise<Battery>((resolve, reject) => {
    const stop = new AbortController();
    const channel = new BroadcastChannel(inject(PROVIDE_KEY).channel);
    channel.onmessage = (event: MessageEvent) => {
      const message = event.data as RunMessage;
      if (message.type === 'context' && !battery) {
        battery = openBattery(message.context, stop.signal);
        resolve(battery);
      } else if (message.type === 'stop') {
        stop.abort(message.reason);
        channel.close();
        if (!battery) reject(new Error(message.reason));
      }
    };
    // The channel must not keep a worker alive once its tests are done.
    (channel as unknown as { unref(): void }).unref();
    channel.postMessage({ type: 'ready' } satisfies RunMessage);
  });
  return ready;
}

/** The battery, once ready: settings, and one HTTP client (one keep-alive pool) per worker. */
export function getBattery(): Battery {
  if (!battery) throw new Error('the battery is not ready: src/battery/check.ts awaits batteryReady() first');
  return battery;
}

function openBattery(settings: BatteryContext, stopped: AbortSignal): Battery {
  // Register every secret before the first request can record anything.
  redactor.addClientCredentials(settings.credentials.clientId, settings.credentials.clientSecret);
  redactor.addSecret(settings.sharedToken?.accessToken, 'access-token');
  return { settings, http: new HttpClient(clientOptions(settings.http, redactor, stopped)), stopped };
}
