/**
 * WWW-Authenticate / Proxy-Authenticate parser (RFC 9110 §11.6.1, §11.2).
 *
 * Hand-written on purpose, like the Link parser: the npm header parsers fail on input real servers
 * send (see /work/shared/notes/rfc-checklist-and-link-parsing.md §4) and do not report grammar
 * problems; the harness must do both (checks T14, T15, T17, R1–R6 in those notes).
 *
 * Grammar (RFC 9110 §11.2, §11.6.1):
 *   WWW-Authenticate = #challenge
 *   challenge        = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
 *   auth-param       = token BWS "=" BWS ( token / quoted-string )
 *   token68          = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
 *
 * Both the challenge list and a challenge's auth-params are separated by ",", so the field is read
 * as one list and each element is classified (§11.6.1 discusses this ambiguity):
 *   - `token BWS "=" …`            → an auth-param of the current challenge;
 *   - `token` alone                → a new challenge without parameters;
 *   - `token 1*SP auth-param`      → a new challenge and its first auth-param;
 *   - `token 1*SP token68`         → a new challenge with a token68.
 * After the scheme, `x=…` is an auth-param only when "=" is followed (after BWS) by a token or
 * a quoted-string; otherwise the run is a token68, so `Negotiate abc==` is a token68.
 */
import {
  describeAt,
  forEachListElement,
  emptyRecord,
  isTchar,
  pushError,
  readQuotedString,
  readToken,
  readToken68,
  skipBws,
  skipOws,
  skipToDelimiter,
  toFieldLines,
  trimTrailingOws,
} from './header-grammar.js';
import type { Lexeme } from './header-grammar.js';

export interface Challenge {
  /** The auth-scheme as sent; compare it case-insensitively (RFC 9110 §11.1). */
  scheme: string;
  token68?: string;
  /** Lower-cased names (RFC 9110 §11.2), unquoted values; a repeated name keeps the first value and is reported. */
  params: Record<string, string>;
}

export interface ChallengeParseResult {
  challenges: Challenge[];
  /** Grammar problems, e.g. `challenge 2 (Bearer): duplicate parameter "error"`. */
  errors: string[];
}

interface ParseState {
  readonly challenges: Challenge[];
  readonly errors: string[];
  /** The challenge that a following auth-param element belongs to; it carries over to the next field line. */
  current: Challenge | undefined;
}

const EQUALS = '=';
const DQUOTE = '"';

/**
 * Parses every field line of WWW-Authenticate (or Proxy-Authenticate). Several lines form one
 * comma-separated list (RFC 9110 §5.3), so an auth-param at the start of a line belongs to the
 * last challenge of the previous line. An absent or empty field gives no challenges and no
 * error; whether at least one challenge is required (§11.6.1) is the caller's check.
 * Never throws; work is linear in the input length.
 */
export function parseChallenges(fieldLines: readonly string[] | string | undefined): ChallengeParseResult {
  const state: ParseState = { challenges: [], errors: [], current: undefined };
  for (const line of toFieldLines(fieldLines)) parseFieldLine(line, state);
  return { challenges: state.challenges, errors: state.errors };
}

/** The first challenge with this auth-scheme, compared case-insensitively (RFC 9110 §11.1). */
export function findChallenge(result: ChallengeParseResult, scheme: string): Challenge | undefined {
  const wanted = scheme.toLowerCase();
  return result.challenges.find((challenge) => challenge.scheme.toLowerCase() === wanted);
}

function parseFieldLine(line: string, state: ParseState): void {
  forEachListElement(line, (pos) => expectElementEnd(line, parseElement(line, pos, state), state));
}

/** After an element only OWS and then "," or the end may follow; anything else is reported and skipped. */
function expectElementEnd(line: string, pos: number, state: ParseState): number {
  const next = skipOws(line, pos);
  if (next >= line.length || line.charAt(next) === ',') return next;
  report(state, `unexpected ${describeAt(line, next)} where "," was expected`);
  return skipToDelimiter(line, next, ',');
}

/** Classifies one list element as an auth-param of the current challenge or the start of a new challenge. */
function parseElement(line: string, pos: number, state: ParseState): number {
  const name = readToken(line, pos);
  if (name === undefined) {
    report(state, `expected an auth-scheme or auth-param, found ${describeAt(line, pos)}`);
    return skipToDelimiter(line, pos, ',');
  }
  if (line.charAt(skipBws(line, name.end)) === EQUALS) return parseAuthParam(line, name, state);
  return parseChallengeStart(line, name, state);
}

/** `auth-scheme [ 1*SP ( token68 / auth-param ) ]`: opens a new challenge. */
function parseChallengeStart(line: string, scheme: Lexeme, state: ParseState): number {
  const challenge: Challenge = { scheme: scheme.value, params: emptyRecord() };
  state.challenges.push(challenge);
  state.current = challenge;
  const next = skipOws(line, scheme.end);
  if (next >= line.length || line.charAt(next) === ',') return next;
  if (next === scheme.end) {
    // RFC 9110 §11.6.1 requires 1*SP between the scheme and what follows it.
    report(state, `expected a space after the auth-scheme, found ${describeAt(line, scheme.end)}`);
    return skipToDelimiter(line, next, ',');
  }
  if (line.slice(scheme.end, next).includes('\t')) {
    // Still readable, so parse on; but the grammar says 1*SP, and HTAB is not SP.
    report(state, 'the auth-scheme must be followed by spaces, not HTAB (RFC 9110 §11.6.1)');
  }
  if (startsAuthParam(line, next)) {
    const name = readToken(line, next);
    if (name !== undefined) return parseAuthParam(line, name, state);
  }
  const token68 = readToken68(line, next);
  const afterToken68 = token68 === undefined ? next : skipOws(line, token68.end);
  if (token68 !== undefined && (afterToken68 >= line.length || line.charAt(afterToken68) === ',')) {
    challenge.token68 = token68.value;
    return token68.end;
  }
  report(state, `expected a token68 or an auth-param after the auth-scheme, found ${describeAt(line, next)}`);
  return skipToDelimiter(line, next, ',');
}

/**
 * Whether `token BWS "=" BWS ( token / quoted-string )` starts at `pos`. This is what separates an
 * auth-param from a token68 with "=" padding (`abc==`, `abc=` at the end of the element).
 */
function startsAuthParam(line: string, pos: number): boolean {
  const name = readToken(line, pos);
  if (name === undefined) return false;
  const equals = skipBws(line, name.end);
  if (line.charAt(equals) !== EQUALS) return false;
  const value = skipBws(line, equals + 1);
  return line.charAt(value) === DQUOTE || isTchar(line.charCodeAt(value));
}

/** `auth-param = token BWS "=" BWS ( token / quoted-string )`, added to the current challenge. */
function parseAuthParam(line: string, name: Lexeme, state: ParseState): number {
  const equals = skipBws(line, name.end);
  const lowerName = name.value.toLowerCase(); // auth-param names are case-insensitive (RFC 9110 §11.2)
  const value = readAuthParamValue(line, skipBws(line, equals + 1), lowerName, state);
  if (value !== undefined) addParam(lowerName, value.value, state);
  return value?.end ?? equals + 1;
}

/** Reads `token / quoted-string`; an unquoted non-token (e.g. an unquoted URL) runs to the next "," and is reported. */
function readAuthParamValue(line: string, pos: number, name: string, state: ParseState): Lexeme | undefined {
  const quoted = readQuotedString(line, pos);
  if (quoted !== undefined) {
    if (!quoted.terminated) report(state, `unterminated quoted-string in the value of "${name}"`);
    return quoted;
  }
  const token = readToken(line, pos);
  const afterToken = token === undefined ? pos : skipOws(line, token.end);
  if (token !== undefined && (afterToken >= line.length || line.charAt(afterToken) === ',')) return token;
  const end = skipToDelimiter(line, pos, ',');
  const value = trimTrailingOws(line.slice(pos, end));
  if (value === '') {
    report(state, `auth-param "${name}" has no value (RFC 9110 §11.2)`);
    return undefined;
  }
  report(state, `value of "${name}" must be a token or a quoted-string, got ${JSON.stringify(value)} (RFC 9110 §11.2)`);
  return { value, end };
}

/** Adds a parameter to the current challenge, enforcing "each parameter name MUST only occur once" (RFC 9110 §11.2). */
function addParam(name: string, value: string, state: ParseState): void {
  const challenge = state.current;
  if (challenge === undefined) {
    report(state, `auth-param "${name}" appears before any auth-scheme`);
  } else if (challenge.token68 !== undefined) {
    // challenge = auth-scheme [ 1*SP ( token68 / #auth-param ) ]: never both.
    report(state, `auth-param "${name}" follows a token68 in the same challenge`);
  } else if (Object.hasOwn(challenge.params, name)) {
    report(state, `duplicate parameter "${name}"; the first value is kept (RFC 9110 §11.2)`);
  } else {
    challenge.params[name] = value;
  }
}

/** Records an error, prefixed with the challenge it concerns (numbered from 1) when there is one. */
function report(state: ParseState, problem: string): void {
  const challenge = state.current;
  const prefix = challenge === undefined ? '' : `challenge ${state.challenges.length} (${challenge.scheme}): `;
  pushError(state.errors, prefix + problem);
}

/** Characters of a server's header quoted in a finding, at most. */
const QUOTED_CHALLENGE_MAX = 120;

/**
 * The WWW-Authenticate field of a refusal that challenges no `scheme` (compared
 * case-insensitively, RFC 9110 §11.1), quoted as the server sent it, for a finding: Django REST
 * framework's TokenAuthentication answers a Bearer token with `WWW-Authenticate: Token` (its
 * `keyword`), a gateway's basic authentication with `Basic realm=…`; either names the cause of a
 * 401 better than the status does (issue 38 item 9). Undefined when there is no field, or when it
 * challenges `scheme`. The server's bytes are neutralised: printable ASCII only, bounded.
 */
export function challengeWithout(fieldLines: readonly string[], scheme: string): string | undefined {
  if (fieldLines.length === 0 || findChallenge(parseChallenges(fieldLines), scheme) !== undefined) return undefined;
  const text = fieldLines.join(', ').replace(/[^\x20-\x7e]/g, '?');
  return `WWW-Authenticate: ${text.length > QUOTED_CHALLENGE_MAX ? `${text.slice(0, QUOTED_CHALLENGE_MAX)}…` : text}`;
}
