import type { RunReport } from '../model/run-report.js';
import { pathOf } from '../report/causes.js';

/**
 * A `--timeout` the target's answers come close to: this run passed, but on a slower day the same
 * answers time out and the checks waiting for them err, and nothing in a green report says why.
 * Said after the run, from the answers its report recorded.
 */

/** An answer that took this share of --timeout or more is close to it. */
export const CLOSE_TO_TIMEOUT = 0.5;

/** An answer and how long it took: "POST /uaa/oauth2/token", 212. */
export interface TimedAnswer {
  request: string;
  ms: number;
}

/** The preflight's answers (the token request, GET /users/me), timed. */
export function timedAnswers(answers: Record<string, { url: string; latencyMs: number } | undefined>): TimedAnswer[] {
  const method: Record<string, string> = { token: 'POST', user: 'GET' };
  return Object.entries(answers).flatMap(([name, res]) =>
    res === undefined ? [] : [{ request: `${method[name] ?? 'GET'} ${pathOf(res.url)}`, ms: res.latencyMs }],
  );
}

/**
 * The note, or undefined when every recorded answer came well within --timeout. The report
 * records the exchanges its findings cite, so `also` brings the answers every run has (the
 * preflight's): a green run's report cites none.
 */
export function timeoutNote(
  report: Pick<RunReport, 'checks'>,
  timeoutMs: number,
  also: readonly TimedAnswer[] = [],
): string | undefined {
  let slowest: TimedAnswer | undefined;
  let timedOut = 0;
  for (const answer of also) if (slowest === undefined || answer.ms > slowest.ms) slowest = answer;
  for (const check of report.checks) {
    for (const exchange of check.exchanges) {
      if (exchange.response === undefined) {
        // A request that hit the timeout is the same warning, already come true.
        if (exchange.error !== undefined && /timed out/i.test(exchange.error)) timedOut += 1;
        continue;
      }
      if (slowest === undefined || exchange.durationMs > slowest.ms)
        slowest = { request: `${exchange.request.method} ${pathOf(exchange.request.url)}`, ms: exchange.durationMs };
    }
  }
  const close = slowest !== undefined && slowest.ms >= timeoutMs * CLOSE_TO_TIMEOUT ? slowest : undefined;
  if (close === undefined && timedOut === 0) return undefined;
  const parts: string[] = [];
  if (close !== undefined)
    parts.push(
      `the slowest recorded answer (${close.request}) took ${Math.round(close.ms)} ms, ${Math.round((close.ms / timeoutMs) * 100)} % of --timeout ${timeoutMs} ms`,
    );
  if (timedOut > 0) parts.push(`${timedOut} recorded request${timedOut === 1 ? '' : 's'} timed out`);
  // Twice the timeout: the slowest answer then takes at most half of it, room for a slower day.
  return `${parts.join('; ')}: answers this slow time out on a slower day, and the checks waiting for them err; consider --timeout ${timeoutMs * 2}`;
}
