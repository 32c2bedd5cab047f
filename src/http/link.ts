/**
 * Link header parser (RFC 8288), following the parsing algorithm of RFC 8288 Appendix B.
 *
 * Hand-written on purpose: the npm parsers fail on input real servers send (see
 * /work/shared/notes/rfc-checklist-and-link-parsing.md §4). `parse-link-header` returns `null` for
 * a value over 2000 characters, drops links written `REL=` or `rel = "x"`, lets the last `rel`
 * win (RFC 8288 §3.3 says the first) and is corrupted by `title="a, <b>"`; `http-link-header`
 * throws on an empty list element (allowed by RFC 9110 §5.6.1.2). Neither resolves relative
 * targets nor reports grammar problems, which a conformance harness needs to do.
 *
 * Grammar (RFC 8288 §3, RFC 9110 §5.6):
 *   Link       = #link-value
 *   link-value = "<" URI-Reference ">" *( OWS ";" OWS link-param )
 *   link-param = token BWS [ "=" BWS ( token / quoted-string ) ]
 *
 * Leniency follows Appendix B: an unquoted value runs up to the next ";" or "," (so
 * `type=text/html` keeps its value), but anything the grammar forbids is also reported in
 * `errors`, so the harness can both use the links and flag the server.
 */
import {
  describeAt,
  forEachListElement,
  emptyRecord,
  isToken,
  pushError,
  readQuotedString,
  readToken,
  skipBws,
  skipOws,
  skipToDelimiter,
  toFieldLines,
  trimTrailingOws,
} from './header-grammar.js';
import type { Lexeme } from './header-grammar.js';

export interface WebLink {
  /** The target resolved against the base URL (RFC 8288 §3.1, RFC 3986 §5); `rawTarget` when it cannot be resolved. */
  target: string;
  /** The text between `<` and `>`, as sent. */
  rawTarget: string;
  /** Relation types: lower-cased, split on whitespace, deduplicated, in order (RFC 8288 §3.3, §2.1). */
  rels: string[];
  /** Target attributes and `rel`/`anchor`: lower-cased names, first occurrence wins, values unquoted; `title*` and other ext-values kept raw. */
  params: Record<string, string>;
}

export interface LinkParseResult {
  links: WebLink[];
  /** Grammar problems, e.g. `link 2: missing rel`. Links are numbered by non-empty list element, from 1, across all field lines. */
  errors: string[];
}

type Report = (problem: string) => void;
type RawParam = readonly [name: string, value: string];

interface ParseState {
  readonly baseUrl: string;
  readonly links: WebLink[];
  readonly errors: string[];
  /** Number of non-empty list elements seen so far, across field lines. */
  elementCount: number;
}

/** `<...>` is opaque everywhere in a Link value: a "," or ";" inside it is part of the URI (RFC 8288 §3). */
const OPAQUE_TARGETS = { angleBrackets: true } as const;

/**
 * Parameters that RFC 8288 says must not repeat in one link-value; later occurrences are ignored
 * (§3.3 for rel, §3.4.1 for the target attributes). `hreflang` may repeat; first still wins here.
 */
const SINGLE_USE_PARAMS: Readonly<Record<string, string>> = {
  rel: 'RFC 8288 §3.3',
  media: 'RFC 8288 §3.4.1',
  title: 'RFC 8288 §3.4.1',
  'title*': 'RFC 8288 §3.4.1',
  type: 'RFC 8288 §3.4.1',
};

/** Characters allowed in a URI-Reference: unreserved, reserved and "%" (RFC 3986 §2, §4.1). */
const URI_REFERENCE = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]*$/;

/**
 * Parses every field line of a Link header. Several lines form one comma-separated list
 * (RFC 9110 §5.3, RFC 8288 §3); pass `rawHeaders` lines when you have them, or the joined value.
 * Never throws; work is linear in the input length.
 */
export function parseLinkHeader(fieldLines: readonly string[] | string | undefined, baseUrl: string): LinkParseResult {
  const state: ParseState = { baseUrl, links: [], errors: [], elementCount: 0 };
  for (const line of toFieldLines(fieldLines)) parseFieldLine(line, state);
  return { links: state.links, errors: state.errors };
}

/** The links having `rel` among their relation types; relation types compare case-insensitively (RFC 8288 §2.1.1, §2.1.2). */
export function linksWithRel(result: LinkParseResult, rel: string): WebLink[] {
  const wanted = rel.toLowerCase();
  return result.links.filter((link) => link.rels.includes(wanted));
}

function parseFieldLine(line: string, state: ParseState): void {
  forEachListElement(line, (pos) => {
    state.elementCount++;
    return parseLinkValue(line, pos, state);
  });
}

/** Parses one link-value starting at `pos`; returns the index of the "," that ends it, or the line's length. */
function parseLinkValue(line: string, pos: number, state: ParseState): number {
  const index = state.elementCount;
  const report: Report = (problem) => pushError(state.errors, `link ${index}: ${problem}`);
  if (line.charAt(pos) !== '<') {
    report(`expected "<" to start a link-value, found ${describeAt(line, pos)}`);
    return skipToDelimiter(line, pos, ',', OPAQUE_TARGETS);
  }
  const close = line.indexOf('>', pos + 1);
  if (close === -1) {
    // Appendix B.2 stops here; nothing after an unclosed "<" can be attributed to a link.
    report('unterminated <...>');
    return line.length;
  }
  const rawTarget = line.slice(pos + 1, close);
  // The form nearly every server sends, `<…>; rel="next"`: read at once, as the grammar below
  // reads it (one quoted rel of lower-case letters leaves nothing to report).
  SIMPLE_REL.lastIndex = close + 1;
  const simple = SIMPLE_REL.exec(line);
  if (simple) {
    const rel = simple[1] as string;
    const params = emptyRecord();
    params.rel = rel;
    state.links.push({ target: checkedTarget(rawTarget, state.baseUrl, report), rawTarget, rels: [rel], params });
    return SIMPLE_REL.lastIndex;
  }
  const { params, end } = parseParams(line, close + 1, report);
  state.links.push(buildLink(rawTarget, params, state.baseUrl, report));
  return end;
}

/** RFC 8288 Appendix B.3: `*( OWS ";" OWS link-param )`, up to the "," ending the link-value. */
function parseParams(line: string, start: number, report: Report): { params: RawParam[]; end: number } {
  const params: RawParam[] = [];
  let pos = start;
  for (;;) {
    pos = skipOws(line, pos);
    if (pos >= line.length || line.charAt(pos) === ',') return { params, end: pos };
    if (line.charAt(pos) === ';') {
      pos = parseParam(line, pos + 1, params, report);
    } else {
      report(`unexpected ${describeAt(line, pos)} where ";" or "," was expected`);
      pos = skipToDelimiter(line, pos, ';,', OPAQUE_TARGETS);
    }
  }
}

/** Parses one link-param after its ";"; appends it to `params` and returns the index after it. */
function parseParam(line: string, start: number, params: RawParam[], report: Report): number {
  const pos = skipOws(line, start);
  const name = readToken(line, pos);
  if (name === undefined) {
    report(`expected a parameter name after ";", found ${describeAt(line, pos)}`);
    return skipToDelimiter(line, pos, ';,', OPAQUE_TARGETS);
  }
  // Parameter names are case-insensitive (RFC 8288 §3, RFC 9110 §5.6.6); BWS may surround "=".
  const lowerName = name.value.toLowerCase();
  const afterName = skipBws(line, name.end);
  if (line.charAt(afterName) !== '=') {
    params.push([lowerName, '']); // a valueless param such as `crossorigin` is valid
    return afterName;
  }
  const value = readParamValue(line, skipBws(line, afterName + 1), lowerName, report);
  params.push([lowerName, value.value]);
  return value.end;
}

/** Reads `token / quoted-string`; an unquoted non-token runs to the next ";" or "," as in Appendix B.3, and is reported. */
function readParamValue(line: string, pos: number, name: string, report: Report): Lexeme {
  const quoted = readQuotedString(line, pos);
  if (quoted !== undefined) {
    if (!quoted.terminated) report(`unterminated quoted-string in the value of "${name}"`);
    return quoted;
  }
  const end = skipToDelimiter(line, pos, ';,', OPAQUE_TARGETS);
  const value = trimTrailingOws(line.slice(pos, end));
  if (value === '') report(`parameter "${name}" has "=" but no value`);
  else if (!isToken(value)) report(unquotedValueProblem(name, value));
  return { value, end };
}

function unquotedValueProblem(name: string, value: string): string {
  if (name === 'rel' && /[ \t]/.test(value) && value.split(/[ \t]+/).every(isToken)) {
    return `unquoted rel value "${value}" contains whitespace; several relation types must be quoted (RFC 8288 §3.3)`;
  }
  return `value of "${name}" must be a token or a quoted-string, got ${JSON.stringify(value)} (RFC 8288 §3)`;
}

/**
 * `; rel="…"` with one relation type of lower-case letters, then the end of the link-value (OWS
 * and a "," or the end of the line), from `lastIndex` (sticky).
 */
const SIMPLE_REL = /[ \t]*;[ \t]*rel[ \t]*=[ \t]*"([a-z]+)"[ \t]*(?=,|$)/y;

/** Applies the link-level rules of RFC 8288 §3.1–§3.4 to one parsed link-value. */
function buildLink(rawTarget: string, rawParams: readonly RawParam[], baseUrl: string, report: Report): WebLink {
  const target = checkedTarget(rawTarget, baseUrl, report);
  const params = collectParams(rawParams, report);
  return { target, rawTarget, rels: relationTypes(params.rel, report), params };
}

/** `rawTarget` resolved against `baseUrl` (RFC 8288 §3.1), its characters checked; itself when it cannot be resolved. */
function checkedTarget(rawTarget: string, baseUrl: string, report: Report): string {
  if (!URI_REFERENCE.test(rawTarget)) {
    report(`target <${rawTarget}> contains characters not allowed in a URI-Reference (RFC 3986 §4.1)`);
  }
  const target = resolveTarget(rawTarget, baseUrl);
  if (target === undefined) report(`cannot resolve target <${rawTarget}> against ${baseUrl}`);
  return target ?? rawTarget;
}

/** First occurrence wins (RFC 8288 §3.3, §3.4.1); repeats of single-use parameters are reported. */
function collectParams(rawParams: readonly RawParam[], report: Report): Record<string, string> {
  const params = emptyRecord();
  for (const [name, value] of rawParams) {
    if (!Object.hasOwn(params, name)) {
      params[name] = value;
      continue;
    }
    const clause = SINGLE_USE_PARAMS[name];
    if (clause !== undefined) report(`"${name}" appears more than once; only the first is used (${clause})`);
  }
  return params;
}

/**
 * A rel value is one or more relation types separated by whitespace (RFC 8288 §3.3); they compare
 * case-insensitively (§2.1.1 registered, §2.1.2 extension), so they are lower-cased here.
 */
function relationTypes(relValue: string | undefined, report: Report): string[] {
  if (relValue === undefined) {
    report('missing rel (RFC 8288 §3.3)');
    return [];
  }
  const rels = [
    ...new Set(
      relValue
        .toLowerCase()
        .split(/[ \t]+/)
        .filter((rel) => rel !== ''),
    ),
  ];
  if (rels.length === 0) report('empty rel (RFC 8288 §3.3)');
  return rels;
}

/** Resolves a URI-Reference against the request URL (RFC 8288 §3.1, RFC 3986 §5.2); undefined when impossible. */
function resolveTarget(rawTarget: string, baseUrl: string): string | undefined {
  try {
    return new URL(rawTarget, baseUrl).href;
  } catch {
    // An unusable base must not hide an absolute target.
    return URL.canParse(rawTarget) ? new URL(rawTarget).href : undefined;
  }
}
