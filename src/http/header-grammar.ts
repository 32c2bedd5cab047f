/**
 * A small lexer for RFC 9110 field values, shared by the Link (RFC 8288) and WWW-Authenticate
 * (RFC 9110 §11.6.1) parsers in this directory.
 *
 * Why hand-written: the npm header parsers fail on input real servers send (see
 * /work/shared/notes/rfc-checklist-and-link-parsing.md §4): `parse-link-header` returns `null` for
 * values over 2000 characters and lets the last `rel` win, `http-link-header` throws on empty list
 * elements, and none of them report grammar problems. A conformance harness must both survive bad
 * input and say what is wrong with it, so the parsers are built on the cursor helpers below.
 *
 * Every helper is a pure function of `(input, pos)`: it never throws, never reads before `pos`,
 * and returns the index just past what it consumed, so the callers' loops are linear in the input.
 */

/** A lexeme read at a cursor: its (unescaped) value and the index just past it in the input. */
export interface Lexeme {
  readonly value: string;
  readonly end: number;
}

/** A quoted-string; `terminated` is false when the input ended before the closing DQUOTE. */
export interface QuotedLexeme extends Lexeme {
  readonly terminated: boolean;
}

const SP = 0x20;
const HTAB = 0x09;
const DQUOTE = 0x22;
const BACKSLASH = 0x5c;

/** RFC 9110 §5.6.2: tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA */
const TCHAR_PUNCTUATION = "!#$%&'*+-.^_`|~";

/** RFC 9110 §11.2: token68 = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=" */
const TOKEN68_PUNCTUATION = '-._~+/';

function isAlphaNum(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

function buildTable(punctuation: string): readonly boolean[] {
  const table: boolean[] = [];
  for (let code = 0; code < 128; code++)
    table.push(isAlphaNum(code) || punctuation.includes(String.fromCharCode(code)));
  return table;
}

const TCHAR = buildTable(TCHAR_PUNCTUATION);
const TOKEN68_CHAR = buildTable(TOKEN68_PUNCTUATION);

/** True when the UTF-16 code unit is a tchar (RFC 9110 §5.6.2). Non-ASCII is never a tchar. */
export function isTchar(code: number): boolean {
  return TCHAR[code] === true;
}

/** True when `text` is exactly one token (RFC 9110 §5.6.2: token = 1*tchar). */
export function isToken(text: string): boolean {
  return text.length > 0 && readToken(text, 0)?.end === text.length;
}

/** True when `text` is exactly one token68 (RFC 9110 §11.2). */
export function isToken68(text: string): boolean {
  return text.length > 0 && readToken68(text, 0)?.end === text.length;
}

/** Index of the first character at or after `pos` that is not OWS (RFC 9110 §5.6.3: OWS = *( SP / HTAB )). */
export function skipOws(input: string, pos: number): number {
  let i = pos;
  while (i < input.length) {
    const code = input.charCodeAt(i);
    if (code !== SP && code !== HTAB) break;
    i++;
  }
  return i;
}

/** BWS is OWS that senders must not generate but recipients must accept (RFC 9110 §5.6.3). */
export const skipBws = skipOws;

/** Reads `token` (RFC 9110 §5.6.2) at `pos`, or returns undefined when `pos` is not a tchar. */
export function readToken(input: string, pos: number): Lexeme | undefined {
  let i = pos;
  while (i < input.length && isTchar(input.charCodeAt(i))) i++;
  return i === pos ? undefined : { value: input.slice(pos, i), end: i };
}

/**
 * Reads `token68` (RFC 9110 §11.2) at `pos`: the character run plus any trailing "=" padding.
 * It does not check what follows; callers decide whether the token68 ends the list element.
 */
export function readToken68(input: string, pos: number): Lexeme | undefined {
  let i = pos;
  while (i < input.length && TOKEN68_CHAR[input.charCodeAt(i)] === true) i++;
  if (i === pos) return undefined;
  while (i < input.length && input.charCodeAt(i) === 0x3d) i++;
  return { value: input.slice(pos, i), end: i };
}

/**
 * Reads `quoted-string` (RFC 9110 §5.6.4) at `pos`, which must hold DQUOTE; returns undefined
 * otherwise. quoted-pair (`\x`) is unescaped to `x`. An unterminated string consumes the rest of
 * the input and is reported through `terminated: false` so callers can record the error.
 * Characters outside qdtext (controls) are kept rather than rejected: the value is still useful
 * to a report, and the callers report structural problems, not every octet.
 */
export function readQuotedString(input: string, pos: number): QuotedLexeme | undefined {
  if (input.charCodeAt(pos) !== DQUOTE) return undefined;
  const parts: string[] = [];
  let segmentStart = pos + 1;
  let i = segmentStart;
  while (i < input.length) {
    const code = input.charCodeAt(i);
    if (code === DQUOTE) {
      parts.push(input.slice(segmentStart, i));
      return { value: parts.join(''), end: i + 1, terminated: true };
    }
    if (code === BACKSLASH) {
      if (i + 1 >= input.length) break; // a lone "\" at the end: quoted-pair needs a character
      parts.push(input.slice(segmentStart, i), input.charAt(i + 1));
      i += 2;
      segmentStart = i;
      continue;
    }
    i++;
  }
  parts.push(input.slice(segmentStart, i));
  return { value: parts.join(''), end: input.length, terminated: false };
}

/** Which bracketed constructs `skipToDelimiter` treats as opaque besides quoted-strings. */
export interface SkipOptions {
  /** Treat `<...>` as opaque (Link targets, RFC 8288 §3). */
  readonly angleBrackets?: boolean;
}

/**
 * Index of the first character at or after `pos` that is one of `delimiters` and sits outside a
 * quoted-string (and outside `<...>` when asked), or `input.length`. Used for error recovery:
 * after a grammar error the parsers resume at the next list (",") or parameter (";") delimiter,
 * and a delimiter inside a quoted value must not be mistaken for one (RFC 9110 §5.6.1, §5.6.4).
 */
export function skipToDelimiter(input: string, pos: number, delimiters: string, options: SkipOptions = {}): number {
  let i = pos;
  while (i < input.length) {
    const ch = input.charAt(i);
    if (delimiters.includes(ch)) return i;
    if (ch === '"') {
      i = readQuotedString(input, i)?.end ?? input.length;
    } else if (ch === '<' && options.angleBrackets === true) {
      const close = input.indexOf('>', i + 1);
      i = close === -1 ? input.length : close + 1;
    } else {
      i++;
    }
  }
  return input.length;
}

/** Removes trailing OWS, e.g. from a leniently read unquoted value (RFC 9110 §5.5 trims field values). */
export function trimTrailingOws(text: string): string {
  let end = text.length;
  while (end > 0) {
    const code = text.charCodeAt(end - 1);
    if (code !== SP && code !== HTAB) break;
    end--;
  }
  return text.slice(0, end);
}

/**
 * Normalises what callers hold for a field into its field lines. Several lines of one field are
 * one comma-separated list (RFC 9110 §5.3); the parsers walk the lines one after the other rather
 * than joining them, so an unterminated `"` or `<` on one line cannot swallow the next line.
 */
export function toFieldLines(fieldLines: readonly string[] | string | undefined): readonly string[] {
  if (fieldLines === undefined) return [];
  return typeof fieldLines === 'string' ? [fieldLines] : fieldLines;
}

/** Describes the character at `pos` for an error message: `"x"`, or `end of value`. */
export function describeAt(input: string, pos: number): string {
  return pos < input.length ? JSON.stringify(input.charAt(pos)) : 'end of value';
}

/** Cap on errors per parse: garbage such as `a,a,a,…` must not produce a report as big as the header. */
export const MAX_ERRORS = 50;

/** Appends an error unless the cap is reached; the message at the cap says that more were dropped. */
export function pushError(errors: string[], message: string): void {
  if (errors.length < MAX_ERRORS) errors.push(message);
  else if (errors.length === MAX_ERRORS) errors.push(`more than ${MAX_ERRORS} errors; the rest are not reported`);
}

/** Object with no prototype, so that parameter names such as `__proto__` or `constructor` are plain keys. */
export function emptyRecord(): Record<string, string> {
  return Object.create(null) as Record<string, string>;
}

/**
 * Walks one field line's comma-separated list (RFC 9110 §5.6.1), skipping OWS and empty elements
 * (`, ,`) as recipients must (§5.6.1.2). `element` parses one element starting at `pos` and
 * returns where it ended; the walk always advances, so no input can make it loop.
 */
export function forEachListElement(line: string, element: (pos: number) => number): void {
  let pos = 0;
  for (;;) {
    pos = skipOws(line, pos);
    if (pos >= line.length) return;
    if (line.charAt(pos) === ',') {
      pos++;
      continue;
    }
    const end = element(pos);
    pos = end > pos ? end : pos + 1;
  }
}
