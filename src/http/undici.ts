import { createRequire } from 'node:module';
import type { Agent as AgentClass, Dispatcher, EnvHttpProxyAgent as EnvHttpProxyAgentClass } from 'undici';

/**
 * The parts of undici the HTTP layer uses, and only those. undici's entry module loads all of
 * undici (fetch, WebSocket, EventSource, the cache, the mock agents…): ~100 ms on this machine,
 * paid by the CLI's thread and again by every battery worker, where it sits on the start-up's
 * critical path. Its Agent, EnvHttpProxyAgent and API methods load in ~40 ms.
 *
 * These are undici's own modules, the very ones its entry re-exports (test/undici-parts.test.ts
 * holds that for the installed version, so that a reorganised undici fails the tests rather than
 * the users). They are required, not imported: they are CommonJS.
 */
const require = createRequire(import.meta.url);

// What undici's entry does first: every dispatcher gets the API methods (request, connect…); the
// proxy agents use `connect` to open their tunnels.
Object.assign((require('undici/lib/dispatcher/dispatcher') as { prototype: object }).prototype, require('undici/lib/api'));

export const Agent = require('undici/lib/dispatcher/agent') as typeof AgentClass;
export const EnvHttpProxyAgent = require('undici/lib/dispatcher/env-http-proxy-agent') as typeof EnvHttpProxyAgentClass;
const apiRequest = require('undici/lib/api/api-request') as (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;

/** What `request` of undici's entry does with a URL and a dispatcher (its makeDispatcher). */
export function request(url: URL, options: Omit<Dispatcher.RequestOptions, 'origin' | 'path'> & { dispatcher: Dispatcher }): Promise<Dispatcher.ResponseData> {
  const { dispatcher, ...rest } = options;
  return apiRequest.call(dispatcher, { ...rest, origin: url.origin, path: url.search ? `${url.pathname}${url.search}` : url.pathname, method: rest.method ?? 'GET' });
}
