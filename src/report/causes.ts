import { oneLine, referencedExchanges } from './format.js';
import type { CheckResult, CheckStatus, Finding, RecordedExchange } from './model.js';

/**
 * The findings of a run grouped by cause: the same endpoint doing the same wrong thing. One
 * fault of a target (a legacy path redirected) breaks many checks in many suites, as failures of
 * the rules it breaks and as errors of the checks that needed that endpoint to work; a reader
 * wants the one cause first, with the checks it breaks, not the same redirect thirteen times.
 *
 * - A finding that cites a response of 300 or more, or an exchange that broke, is grouped by
 *   that answer: method, path and status (and where a redirect points). "Expected 200, got 308"
 *   and "cannot judge: even a valid request gets 308 there" are the same cause.
 * - A finding that cites a 2xx answer is grouped by endpoint and message: the answer is not the
 *   fault, what is wrong in it is, and each check says what it found.
 * - A finding without an exchange (a missing token, a run stopped by its deadline) is grouped by
 *   its message.
 */

export interface Cause {
  /** What went wrong, in one line: "POST /uaa/oauth/token answered 308, a redirect to /uaa/oauth2/token". */
  title: string;
  /** The checks it breaks, in report order, each once, with what each says about it. */
  checks: { check: CheckResult; message: string }[];
  /** A check and one of its exchanges that show the cause, when there is one. */
  evidence?: { check: CheckResult; exchange: number };
}

/** The statuses whose findings are grouped: what needs a reader's attention. */
export const CAUSE_STATUSES: readonly CheckStatus[] = ['failed', 'error', 'warning', 'expected'];

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

/** The cause of one finding: a grouping key and the title a group under it gets. */
function causeOf(finding: Finding, exchanges: readonly RecordedExchange[]): { key: string; title: string } {
  const ex = finding.exchange === undefined ? undefined : exchanges[finding.exchange];
  if (!ex) return { key: `message ${finding.message}`, title: oneLine(finding.message, 300) };
  const endpoint = `${ex.request.method} ${pathOf(ex.request.url)}`;
  const res = ex.response;
  if (!res) {
    const error = ex.error ?? 'no response was recorded';
    return { key: `broken ${endpoint} ${error}`, title: `${endpoint}: ${error}` };
  }
  if (res.status >= 300) {
    const location = res.status < 400 ? res.headers.find(([name]) => name.toLowerCase() === 'location')?.[1] : undefined;
    const title = `${endpoint} answered ${res.status}${location !== undefined ? `, a redirect to ${location}` : ''}`;
    return { key: `status ${endpoint} ${res.status} ${location ?? ''}`, title };
  }
  return { key: `found ${endpoint} ${finding.message}`, title: `${endpoint}: ${oneLine(finding.message, 300)}` };
}

export function groupByCause(checks: readonly CheckResult[]): Cause[] {
  const causes = new Map<string, Cause>();
  for (const check of checks) {
    if (!CAUSE_STATUSES.includes(check.status)) continue;
    // A check without findings (a message only) is its own cause.
    const findings: Finding[] = check.findings.length > 0 ? check.findings : [{ kind: check.status === 'error' ? 'error' : 'failure', message: check.message ?? check.status }];
    for (const finding of findings) {
      const { key, title } = causeOf(finding, check.exchanges);
      let cause = causes.get(key);
      if (!cause) causes.set(key, (cause = { title, checks: [] }));
      if (!cause.checks.some((c) => c.check === check)) cause.checks.push({ check, message: finding.message });
      // Evidence: preferably a failure's exchange, the response a reader must see.
      const evidence = finding.exchange !== undefined && referencedExchanges(check).includes(finding.exchange) ? { check, exchange: finding.exchange } : undefined;
      if (evidence && (!cause.evidence || (cause.evidence.check.status !== 'failed' && check.status === 'failed'))) cause.evidence = evidence;
    }
  }
  // Most checks first: the cause that explains the most of the report leads it.
  return [...causes.values()].sort((a, b) => b.checks.length - a.checks.length);
}
