import { pathToFileURL } from 'node:url';
import { describe } from 'vitest';
import { API_VERSION, apiUrl } from '../carrier/paths.js';
import { basename } from 'node:path';
import { RequestRefusedError, SharedTokenExpiredError, TransportError, type HttpResponse } from '../http/client.js';
import { exportedChecks, type TeamCheckInfo } from '../model/team-checks.js';
import { checkAs, type CheckContext } from './check.js';
import { getBattery } from './context.js';
import {
  endpointHeaders,
  listEndpoints,
  noteMissingTenantEndpoints,
  onEach,
  tenantEndpoints,
  USER_ENDPOINT,
  validAnswer,
  type Endpoint,
} from './endpoints.js';

/**
 * The team's own checks (--team-checks, docs/team-checks.md), run in the battery's worker as the
 * catalogue's are: one Vitest test each, applied to every endpoint (or every list) through the
 * check's context, so that their requests go through the same HTTP layer (the run's token,
 * redaction, --timeout, --deadline, the politeness bound), their findings cite the exchanges,
 * and each endpoint gets its own outcome. The runner reports them apart from the spec's checks.
 */

/** An endpoint as a team check sees it. */
export interface TeamEndpoint {
  /** As the reports name it: "GET /users/me", "GET /tenants/{tenantId}/shipments". */
  label: string;
  /** The request path, with the tenant and any ids filled in, relative to the base URL. */
  path: string;
  /** `user`: /users/me; `list`: a tenant list; `resource`: a tenant endpoint that is not a list. */
  kind: 'user' | 'list' | 'resource';
}

/** What a team check is given to judge an endpoint with. */
export interface TeamTools {
  /** The endpoint's answer to a valid request (the run's token, Accept-Version 1), shared with the battery's checks. */
  answer(): Promise<HttpResponse>;
  /**
   * A GET of `path` (from "/", relative to the base URL), with the run's token unless
   * `token: false`, and Accept-Version 1 unless `acceptVersion` says otherwise (`null`: none).
   */
  get(
    path: string,
    options?: { headers?: Record<string, string>; token?: boolean; acceptVersion?: string | null },
  ): Promise<HttpResponse>;
  /** The endpoint breaks the team's rule: `message` says how; `response` is the exchange that shows it. */
  fail(message: string, response?: HttpResponse): void;
  /** A remark for the report. */
  note(message: string): void;
  /** This endpoint is not judged, for `reason` (return after it). */
  skip(reason: string): void;
  /** Aborted when the run stops (Ctrl-C, --deadline) or the check times out. */
  signal: AbortSignal;
}

export type TeamCheckFunction = (endpoint: TeamEndpoint, t: TeamTools) => unknown;

/** Registers every team check of the run (the worker's part of --team-checks). */
export async function registerTeamChecks(): Promise<void> {
  const modules = getBattery().settings.teamChecks ?? [];
  if (modules.length === 0) return;
  // The runner loaded and checked each module (src/config/team-checks.ts); here it is loaded for its functions.
  const loaded = await Promise.all(
    modules.map(async (m) => {
      try {
        const exported = (await import(pathToFileURL(m.file).href)) as Record<string, unknown>;
        const list = exportedChecks(exported);
        return { module: m, list: Array.isArray(list) ? (list as Record<string, unknown>[]) : [] };
      } catch (err) {
        return { module: m, list: [], failure: err instanceof Error ? err.message : String(err) };
      }
    }),
  );
  describe.concurrent('team', () => {
    for (const { module, list, failure } of loaded)
      for (const info of module.checks) {
        const fn = list.find((c) => c.id === info.id)?.check;
        checkAs(info, async (c) => {
          if (typeof fn !== 'function')
            return c.error(
              `${module.file} ${failure !== undefined ? `could not be loaded by the battery's worker: ${failure}` : `no longer exports a check function for ${info.id}`}`,
            );
          await runTeamCheck(c, info, fn as TeamCheckFunction, module.file);
        });
      }
  });
}

function endpointsOf(c: CheckContext, info: TeamCheckInfo): Endpoint[] {
  return info.on === 'lists' ? listEndpoints(c) : [USER_ENDPOINT, ...tenantEndpoints(c)];
}

/** Errors of the harness's own (a request that failed, a run that stopped): reported as the catalogue's are. */
const HARNESS_ERRORS = [TransportError, RequestRefusedError, SharedTokenExpiredError];

async function runTeamCheck(c: CheckContext, info: TeamCheckInfo, fn: TeamCheckFunction, file: string): Promise<void> {
  noteMissingTenantEndpoints(c);
  const endpoints = endpointsOf(c, info);
  // `endpoints` always has /users/me: only `lists` can find nothing to judge.
  if (endpoints.length === 0)
    return c.skip('no list endpoint configured: pass --openapi or --paged-path (e.g. --paged-path shipments)');
  let judged = 0;
  const skipped: string[] = [];
  await onEach(c, endpoints, async (e, endpoint) => {
    const path = await endpoint.path(e);
    if (typeof path !== 'string') {
      skipped.push(path.unresolved);
      return e.skipEndpoint(path.unresolved);
    }
    const kind = endpoint === USER_ENDPOINT ? 'user' : endpoint.spec?.kind === 'list' ? 'list' : 'resource';
    let skippedHere = false;
    const tools = toolsFor(e, endpoint, (reason) => {
      skippedHere = true;
      skipped.push(reason);
    });
    try {
      await fn({ label: endpoint.label, path, kind }, tools);
    } catch (err) {
      if (HARNESS_ERRORS.some((type) => err instanceof type) || e.signal.aborted) throw err;
      // The team's code threw: its error, where in the module, not the harness's.
      e.error(`not judged: the team check threw ${thrown(err, file)}`);
      return;
    }
    if (!skippedHere) judged += 1;
  });
  // A check that judged nothing proved nothing: skipped with why, never a pass.
  const { failures, errors } = c.counts;
  if (judged === 0 && failures === 0 && errors === 0)
    c.skip(
      `judged on no endpoint: ${skipped[0] ?? 'every endpoint was skipped'}${skipped.length > 1 ? ` (and ${skipped.length - 1} more)` : ''}`,
    );
}

/** "TypeError: x is undefined (team-checks.mjs:12:7)": the error and the first place in the module it came from. */
function thrown(err: unknown, file: string): string {
  const what = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  const stack = err instanceof Error ? (err.stack ?? '') : '';
  const place = new RegExp(`${escapeRegExp(file)}:(\\d+):(\\d+)`);
  const at = stack
    .split('\n')
    .map((line) => place.exec(line))
    .find((m) => m !== null);
  return at ? `${what} (${basename(file)}:${at[1]}:${at[2]})` : what;
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function toolsFor(e: CheckContext, endpoint: Endpoint, skipped: (reason: string) => void): TeamTools {
  return {
    answer: () => validAnswer(e, endpoint),
    get: (path, options = {}) => {
      // Only the API's own origin: a team check's request carries the run's token.
      if (!path.startsWith('/') || path.startsWith('//'))
        throw new Error(`t.get(${JSON.stringify(path)}): a path from "/" under the base URL, not a URL`);
      const version = options.acceptVersion === undefined ? API_VERSION : options.acceptVersion;
      return e.send({
        method: 'GET',
        url: apiUrl(e.target.baseUrl, path),
        headers: {
          ...endpointHeaders(endpoint.spec),
          ...options.headers,
          ...(version === null ? {} : { 'Accept-Version': version }),
        },
        auth: options.token === false ? { kind: 'none' } : e.bearer(),
        purpose: `the team check's request (${endpoint.label})`,
      });
    },
    fail: (message, response) => e.fail(String(message), response),
    note: (message) => e.note(String(message)),
    skip: (reason) => {
      skipped(String(reason));
      e.skipEndpoint(String(reason));
    },
    signal: e.signal,
  };
}
