import { inject } from 'vitest';
import { threadId } from 'node:worker_threads';
import { HttpClient } from '../http/client.js';
import { ExchangeLog } from '../http/exchange-log.js';
import { clientOptions } from '../http/settings.js';
import { usePrecompiled } from '../openapi/document-ajv.js';
import { redactor } from '../core/redact.js';
import { SharedTokens } from './token.js';
import { observedChannel, receiveObserved } from './observed-tokens.js';
import { PROVIDE_KEY, type BatteryContext, type RunMessage } from './wiring.js';

export type { BatteryContext, SharedToken } from './wiring.js';

/** The worker side of a run: the settings the runner sent, and what the checks share. */
export interface Battery {
  settings: BatteryContext;
  http: HttpClient;
  /** Aborted when the runner stops the run. */
  stopped: AbortSignal;
  /** Where this worker keeps every exchange it makes (src/http/exchange-log.ts); flushed after each check. */
  log?: ExchangeLog;
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
        battery = openBattery(message.context, stop.signal, channel);
        resolve(battery);
      } else if (message.type === 'stop') {
        stop.abort(message.reason);
        observedChannel(undefined);
        channel.close();
        if (!battery) reject(new Error(message.reason));
      } else if (message.type === 'secret') {
        redactor.addSecret(message.value, message.kind);
      } else if (message.type !== 'ready' && message.type !== 'context' && message.type !== 'verbose') {
        // What another worker observed of the shared tokens (src/battery/observed-tokens.ts).
        receiveObserved(message);
      }
    };
    observedChannel(channel);
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

function openBattery(
  settings: BatteryContext,
  stopped: AbortSignal,
  channel: { postMessage(message: unknown): void },
): Battery {
  // Register every secret before the first request can record anything: the runner's first.
  for (const [value, kind] of settings.secrets ?? []) redactor.addSecret(value, kind);
  // What this worker learns, the runner and the other workers learn too (a closed channel: the run is over).
  redactor.onSecret = (value, kind) => {
    try {
      channel.postMessage({ type: 'secret', value, kind } satisfies RunMessage);
    } catch {
      // Nobody is left to tell.
    }
  };
  redactor.addClientCredentials(settings.credentials.clientId, settings.credentials.clientSecret);
  redactor.addSecret(settings.sharedToken?.accessToken, 'access-token');
  const second = settings.isolation.secondClient;
  if (second) {
    redactor.addClientCredentials(second.credentials.clientId, second.credentials.clientSecret);
    redactor.addSecret(second.token?.accessToken, 'access-token');
  }
  if (settings.openapi && settings.openapiValidators) usePrecompiled(settings.openapi, settings.openapiValidators);
  // The shared token renews itself through the same client: its requests are recorded with the
  // exchange that needed the token.
  const sharedTokens = new SharedTokens(
    (recorder) => (req) => http.send(req, recorder),
    settings.target,
    settings.credentials,
    settings.sharedToken,
    settings.sharedTokenProblem,
  );
  // --verbose: each line goes to the runner, which prints it (a closed channel: the run is over).
  const verbose = settings.http.verbose
    ? (line: string): void => {
        try {
          channel.postMessage({ type: 'verbose', line } satisfies RunMessage);
        } catch {
          // The run has stopped: no one is left to print it.
        }
      }
    : undefined;
  const log =
    settings.exchangeLogDir === undefined
      ? undefined
      : new ExchangeLog(settings.exchangeLogDir, `worker${threadId}-${process.pid}`);
  const http: HttpClient = new HttpClient({
    ...clientOptions(settings.http, redactor, stopped),
    sharedTokens,
    clientCredentials: settings.credentials,
    ...(verbose ? { verbose } : {}),
    ...(log ? { exchangeLog: log } : {}),
  });
  return { settings, http, stopped, ...(log ? { log } : {}) };
}
