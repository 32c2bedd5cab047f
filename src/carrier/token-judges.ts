import { hasDirective } from '../http/directives.js';
import { describeValue } from './describe.js';
import { numberSource } from './json-source.js';

/**
 * The token response's rules as pure judges (spec §Access token response, RFC 6749 §5.1): what is
 * wrong with a successful token response, or undefined. One place for the rule and its words, for
 * the battery's token checks (suites/token.test.ts) and for judging captured traffic (issue 43),
 * which has the response and nothing to send.
 */

/** TOKEN-ACCESS-TOKEN. */
export function accessTokenProblem(body: Record<string, unknown>): string | undefined {
  return typeof body.access_token !== 'string' || body.access_token === ''
    ? `expected access_token to be a non-empty string, got ${describeValue(body.access_token)}`
    : undefined;
}

/** TOKEN-TYPE: "bearer" in any case (RFC 6749 §5.1: the value is case-insensitive). */
export function tokenTypeProblem(body: Record<string, unknown>): string | undefined {
  const type = body.token_type;
  return typeof type !== 'string' || type.toLowerCase() !== 'bearer'
    ? `expected token_type "bearer" (in any case), got ${describeValue(type)}`
    : undefined;
}

/** TOKEN-TYPE-CASE (SHOULD): spelled exactly as the spec writes it. */
export function tokenTypeCaseProblem(body: Record<string, unknown>): string | undefined {
  return body.token_type !== 'bearer'
    ? `expected token_type spelled exactly "bearer", got ${describeValue(body.token_type)}`
    : undefined;
}

/**
 * TOKEN-EXPIRES-IN (spec §Access token response: integer; §Authentication 3): a JSON number,
 * positive, an integer, and written as digits only. The last is read from the body as received
 * (`text`): RFC 6749 §A.14 gives its syntax as `expires-in = 1*DIGIT`, and JSON.parse reads
 * `3600.0` and `3.6e3` as 3600, which typed clients do not (Go's encoding/json will not put either
 * into an int).
 */
export function expiresInProblem(body: Record<string, unknown>, text: string): string | undefined {
  const value = body.expires_in;
  if (typeof value !== 'number') return `expected expires_in to be a JSON number, got ${describeValue(value)}`;
  if (!Number.isInteger(value) || value <= 0) return `expected expires_in to be a positive integer, got ${value}`;
  const written = numberSource(text, 'expires_in');
  if (written !== undefined && !/^[0-9]+$/.test(written)) {
    return `expected expires_in written as an integer, digits only (RFC 6749 §A.14: expires-in = 1*DIGIT), got ${written}: typed clients refuse it (Go's encoding/json will not decode ${written} into an int)`;
  }
  return undefined;
}

/** TOKEN-NO-STORE: RFC 6749 §5.1 asks it of the successful response; `value` is its Cache-Control. */
export function noStoreProblem(value: string | undefined): string | undefined {
  return hasDirective(value, 'no-store')
    ? undefined
    : `expected Cache-Control: no-store on the token response, got ${value === undefined ? 'no Cache-Control' : JSON.stringify(value)}`;
}

/** TOKEN-PRAGMA: the same, for HTTP/1.0 caches; `value` is its Pragma. */
export function pragmaProblem(value: string | undefined): string | undefined {
  return hasDirective(value, 'no-cache')
    ? undefined
    : `expected Pragma: no-cache on the token response, got ${value === undefined ? 'no Pragma' : JSON.stringify(value)}`;
}

/** spec §Access token response: the three fields and their types (RFC 6749 §5.1); `text` is the body as received. */
export function tokenFieldProblems(body: Record<string, unknown>, text: string): string[] {
  const problems: string[] = [];
  if (typeof body.access_token !== 'string' || body.access_token === '')
    problems.push(`access_token must be a non-empty string, got ${describeValue(body.access_token)}`);
  if (typeof body.token_type !== 'string' || body.token_type.toLowerCase() !== 'bearer')
    problems.push(`token_type must be "bearer", got ${describeValue(body.token_type)}`);
  const expiresIn = expiresInProblem(body, text);
  if (expiresIn !== undefined) problems.push(expiresIn);
  return problems;
}
