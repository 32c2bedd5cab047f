import { findChallenge, parseChallenges, type Challenge } from '../http/challenge.js';
import { describeStatus } from '../carrier/describe.js';

export { describeStatus } from '../carrier/describe.js';
import type { HttpResponse } from '../http/client.js';
import { isJsonMediaType } from '../http/media-type.js';
import { oauthErrorSchema, schemaProblems } from '../carrier/schemas.js';
import type { CheckContext } from './check.js';

/**
 * Soft assertions for checks: each records a finding that says what was expected and what came
 * back, and returns whether the rule held, so that a check can go on and report every problem.
 */

function describeAllowed(allowed: readonly number[]): string {
  return allowed.length === 1 ? String(allowed[0]) : `${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}`;
}

/** `what: expected 401, got 200`. */
export function expectStatus(c: CheckContext, res: HttpResponse, allowed: readonly number[], what: string): boolean {
  if (allowed.includes(res.status)) return true;
  c.fail(`${what}: expected ${describeAllowed(allowed)}, got ${describeStatus(res)}`, res);
  return false;
}

/** A status in a class, e.g. 2xx; `what: expected a 4xx status, got 500`. */
export function expectStatusClass(c: CheckContext, res: HttpResponse, klass: 2 | 4, what: string): boolean {
  if (Math.floor(res.status / 100) === klass) return true;
  c.fail(`${what}: expected a ${klass}xx status, got ${describeStatus(res)}`, res);
  return false;
}

/** A JSON body (Content-Type application/json or +json, and parseable); returns it. */
export function expectJsonBody(c: CheckContext, res: HttpResponse, what: string): unknown {
  const type = res.header('content-type');
  if (!isJsonMediaType(type)) {
    c.fail(
      `${what}: expected a JSON body (Content-Type application/json), got Content-Type ${type === undefined ? '(none)' : JSON.stringify(type)}`,
      res,
    );
    return undefined;
  }
  const parsed = res.json();
  if (!parsed.ok) {
    c.fail(`${what}: ${parsed.error}`, res);
    return undefined;
  }
  return parsed.value;
}

/** Like expectJsonBody, and the JSON is an object (not an array or a scalar). */
export function expectJsonObject(
  c: CheckContext,
  res: HttpResponse,
  what: string,
): Record<string, unknown> | undefined {
  const body = expectJsonBody(c, res, what);
  if (body === undefined) return undefined;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    c.fail(`${what}: expected a JSON object, got ${Array.isArray(body) ? 'an array' : JSON.stringify(body)}`, res);
    return undefined;
  }
  return body as Record<string, unknown>;
}

/**
 * A 401 carries a WWW-Authenticate challenge for `scheme` (RFC 9110 §11.6.1, §15.5.2;
 * RFC 6750 §3 for Bearer). Other statuses need none, unless `always`: RFC 6750 §3 asks the
 * challenge of every refusal of a request without a usable access token, whatever its status.
 * Returns the challenge when found.
 */
export function expectChallenge(
  c: CheckContext,
  res: HttpResponse,
  scheme: string,
  what: string,
  options: { always?: boolean } = {},
): Challenge | undefined {
  const required = res.status === 401 || options.always === true;
  const lines = res.headerLines('www-authenticate');
  if (lines.length === 0) {
    if (required)
      c.fail(
        `${what}: ${res.status === 401 ? 'a 401' : `the refusal (${res.status})`} must carry a WWW-Authenticate challenge (${scheme}), got none`,
        res,
      );
    return undefined;
  }
  const challenge = findChallenge(parseChallenges(lines), scheme);
  if (!challenge) {
    if (required)
      c.fail(
        `${what}: expected a ${scheme} challenge in WWW-Authenticate, got ${JSON.stringify(lines.join(', '))}`,
        res,
      );
    return undefined;
  }
  return challenge;
}

/**
 * The challenge of `scheme` in a response, if any, recording nothing: for a SHOULD check that
 * judges what the challenge says, where its absence is the MUST check's finding.
 */
export function challengeOf(res: HttpResponse, scheme: string): Challenge | undefined {
  const lines = res.headerLines('www-authenticate');
  return lines.length === 0 ? undefined : findChallenge(parseChallenges(lines), scheme);
}

/** A refusal: a 4xx (RFC 9110 §15.5), never data (2xx), a redirect (3xx) or a server error (5xx). */
export function expectRefusal(c: CheckContext, res: HttpResponse, what: string): boolean {
  if (res.status >= 400 && res.status < 500) return true;
  c.fail(`${what}: expected a refusal (a 4xx status), got ${describeStatus(res)}`, res);
  return false;
}

/** Whether a response is a refusal in the sense of expectRefusal. */
export const isRefusal = (res: HttpResponse): boolean => res.status >= 400 && res.status < 500;

/** Whether the response's JSON body carries an access_token, whatever its status and value. */
export function carriesToken(res: HttpResponse): boolean {
  const parsed = res.json();
  const body = parsed.ok ? parsed.value : undefined;
  return body !== null && typeof body === 'object' && 'access_token' in body;
}

/** The response must not issue a token: no access_token in the body. */
export function expectNoToken(c: CheckContext, res: HttpResponse, what: string): boolean {
  if (!carriesToken(res)) return true;
  c.fail(`${what}: expected no token, but the response carries an access_token`, res);
  return false;
}

/** An RFC 6749 §5.2 error response whose `error` is `code` (one of `codes`). */
export function expectOAuthError(c: CheckContext, res: HttpResponse, codes: readonly string[], what: string): boolean {
  const body = expectJsonObject(c, res, what);
  if (!body) return false;
  if (body.error !== undefined && !codes.includes(body.error as string)) {
    c.fail(
      `${what}: expected error ${codes.map((x) => `"${x}"`).join(' or ')}, got ${JSON.stringify(body.error)}`,
      res,
    );
    return false;
  }
  const problems = schemaProblems(oauthErrorSchema, body);
  if (problems.length > 0) {
    c.fail(`${what}: not an RFC 6749 error response: ${problems.join('; ')}`, res);
    return false;
  }
  return true;
}

/** Never a 5xx for a client's request, whatever else the check accepts. */
export function expectNoServerError(c: CheckContext, res: HttpResponse, what: string): boolean {
  if (res.status < 500) return true;
  c.fail(`${what}: expected a client error or success, got ${describeStatus(res)}`, res);
  return false;
}
