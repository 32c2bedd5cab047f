import { USER_PATH } from '../carrier/paths.js';
import { pointerTo } from '../report/causes.js';
import type { CheckResult, RecordedExchange, RunCause } from '../model/run-report.js';

/**
 * One root cause, one finding (issue 30, item 5). When GET /users/me fails in the preflight
 * (a 500, say), about forty checks cannot be carried out: the tenant checks have no tenant, the
 * user checks no User, the auth checks no valid answer to compare with. Each says so in its own
 * words, and the console listed them all. The preflight already knows the cause: it is reported
 * once (report.causes), and each check that could not run because of it is an error whose message
 * points at it; the reports fold those into one line.
 */

/** What the preflight learnt about GET /users/me that the runner keeps for the report. */
export interface PreflightUser {
  /** The answer, when there was one: its URL, status and recorded exchange. */
  answer?: { url: string; status: number; record?: RecordedExchange };
  /** Why no tenant could be found from it (Preflight.tenantProblem), when one was looked for. */
  tenantProblem?: string;
}

/** The cause, and how to recognise what a check says because of it. */
export interface FoundCause {
  cause: Omit<RunCause, 'checks'>;
  /** Text a check's error quotes when it is about this cause (the preflight's own words). */
  quotes: string[];
  /** The method and path, and status, of an exchange that shows this cause when a check cites it. */
  shows?: { method: string; path: string; status: number };
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return USER_PATH;
  }
}

/**
 * The cause the preflight found about GET /users/me, if any: it did not answer 200, it could not
 * be asked (transport failure), or it named no tenant while none was given.
 */
export function userCause(user: PreflightUser): FoundCause | undefined {
  const { answer, tenantProblem } = user;
  const quotes = tenantProblem !== undefined ? [tenantProblem] : [];
  if (answer && answer.status !== 200) {
    const path = pathOf(answer.url);
    const endpoint = `GET ${path}`;
    return {
      cause: {
        source: 'preflight',
        title: `${endpoint} answered ${answer.status}`,
        ...(tenantProblem !== undefined ? { detail: tenantProblem } : {}),
        endpoint,
        status: answer.status,
        ...(answer.record ? { exchange: answer.record } : {}),
      },
      quotes,
      shows: { method: 'GET', path, status: answer.status },
    };
  }
  if (tenantProblem === undefined) return undefined;
  // Only a problem of /users/me itself: a run without a token has its own warning and checks.
  const failed = /GET \/users\/me failed: (.*)$/.exec(tenantProblem);
  if (failed)
    return {
      cause: {
        source: 'preflight',
        title: `GET ${USER_PATH} failed: ${failed[1] ?? ''}`,
        detail: tenantProblem,
        endpoint: `GET ${USER_PATH}`,
      },
      quotes,
    };
  if (answer) {
    const endpoint = `GET ${pathOf(answer.url)}`;
    return {
      cause: {
        source: 'preflight',
        title: `${endpoint} lists no tenant with a UUID id`,
        detail: tenantProblem,
        endpoint,
        ...(answer.record ? { exchange: answer.record } : {}),
      },
      quotes,
    };
  }
  return undefined;
}

/** A finding, or a check's message, that is about the cause. */
function isAbout(found: FoundCause, check: CheckResult, message: string, exchange: number | undefined): boolean {
  if (found.quotes.some((q) => q !== '' && message.includes(q))) return true;
  const ex = exchange === undefined ? undefined : check.exchanges[exchange];
  const shows = found.shows;
  if (!ex?.response || !shows) return false;
  return (
    ex.request.method === shows.method && pathOf(ex.request.url) === shows.path && ex.response.status === shows.status
  );
}

/**
 * The checks that could not run because of the cause: errors each of whose findings (or whose
 * message, when it has none) is about it. A check that found something else too keeps what it
 * found; a failure judged the answer and stays a failure.
 */
export function foldIntoCause(
  results: readonly CheckResult[],
  found: FoundCause,
): { results: CheckResult[]; cause?: RunCause } {
  const pointer = pointerTo(found.cause);
  const ids: string[] = [];
  const out = results.map((check) => {
    if (check.status !== 'error') return check;
    const about =
      check.findings.length > 0
        ? check.findings.every((f) => f.kind === 'error' && isAbout(found, check, f.message, f.exchange))
        : check.message !== undefined && isAbout(found, check, check.message, undefined);
    if (!about) return check;
    ids.push(check.id);
    const cited = found.cause.endpoint;
    return {
      ...check,
      message: pointer,
      findings: [{ kind: 'error' as const, message: pointer, ...(cited !== undefined ? { endpoint: cited } : {}) }],
    };
  });
  if (ids.length === 0) return { results: out };
  return { results: out, cause: { ...found.cause, checks: ids } };
}
