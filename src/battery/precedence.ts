import { CHOICE_WORDS, type PrecedenceChoice } from '../catalogue/precedence.js';
import type { HttpResponse } from '../http/client.js';
import type { CheckContext } from './check.js';
import { challengeOf, describeStatus, expectChallenge } from './expect.js';

/**
 * Two defects in one request (issue 41 item 4): no Accept-Version and no Authorization; a tenant
 * that does not exist and no Authorization. Each rule alone says what the answer is (spec §Errors:
 * a missing Accept-Version gets 400; RFC 6750 §3: a request without a token gets a refusal with a
 * Bearer challenge; spec §Tenant-scoped endpoints: an unknown tenant gets 403 or 404, as
 * TENANT-UNKNOWN judges it). Which one a server checks first, the spec does not say: either
 * rule's answer passes, and the target's choice is recorded for each endpoint (report.json
 * `checks[].endpoints[].observed`), so that a platform can pin it in its certification profile
 * (`precedence`, src/certification/verify.ts). An answer that is neither rule's (a 2xx, a
 * redirect, a 5xx, a 401 without a Bearer challenge, another 4xx) breaks both rules: it fails.
 */

export interface PrecedencePair {
  /** The rule beside authentication's. */
  other: 'version' | 'tenant';
  /** Whether the answer is the other rule's. */
  otherHolds(res: HttpResponse): boolean;
  /** The other rule's answer, in a finding. */
  otherExpected: string;
  /** What the request lacks besides a token, in a finding. */
  defect: string;
}

export const VERSION_AND_AUTH: PrecedencePair = {
  other: 'version',
  otherHolds: (res) => res.status === 400,
  otherExpected: '400 for the missing Accept-Version (spec §Errors)',
  defect: 'no Accept-Version header and no Authorization header',
};

export const TENANT_AND_AUTH: PrecedencePair = {
  other: 'tenant',
  otherHolds: (res) => res.status === 403 || res.status === 404,
  otherExpected: '403 or 404 for the tenant that does not exist (spec §Tenant-scoped endpoints)',
  defect: 'a tenant id that names no tenant and no Authorization header',
};

/** Authentication's answer to a request without a token: a refusal with a Bearer challenge (RFC 6750 §3). */
function authHolds(res: HttpResponse): boolean {
  return res.status >= 400 && res.status < 500 && challengeOf(res, 'Bearer') !== undefined;
}

/** Whose rule `res` follows, or undefined when it follows neither. */
export function choiceOf(pair: PrecedencePair, res: HttpResponse): PrecedenceChoice | undefined {
  const other = pair.otherHolds(res);
  const auth = authHolds(res);
  if (other && auth) return 'both';
  if (other) return pair.other;
  if (auth) return 'auth';
  return undefined;
}

/** Records on `e`'s endpoint whose rule `res` followed, if either's. */
export function observeChoice(e: CheckContext, pair: PrecedencePair, res: HttpResponse): void {
  const choice = choiceOf(pair, res);
  if (choice !== undefined) e.observe(choice, CHOICE_WORDS[choice]);
}

/**
 * Judges the answer to a request with both defects: records the choice, or fails saying that the
 * answer is neither rule's. Returns whether it was either rule's.
 */
export function judgePrecedence(e: CheckContext, pair: PrecedencePair, res: HttpResponse, what: string): boolean {
  if (choiceOf(pair, res) !== undefined) {
    observeChoice(e, pair, res);
    return true;
  }
  // A 401 is authentication's answer, whatever else is wrong: its missing challenge is the finding,
  // in the words of the other checks that see it, so that the report shows it as one cause.
  if (res.status === 401) {
    expectChallenge(e, res, 'Bearer', what, { always: true });
    return false;
  }
  e.fail(
    `${what}: got ${describeStatus(res)}; expected either rule's answer: ${pair.otherExpected}, or a refusal with a Bearer challenge for the missing token (RFC 6750 §3)`,
    res,
  );
  return false;
}
