import { API_VERSION, TOKEN_PATH, apiUrl } from '../carrier/paths.js';
import { formEncode } from '../core/basic-credentials.js';
import type { RecordedExchange, RunReport } from '../model/run-report.js';
import { isUnsafeCode } from '../core/text-safety.js';

/**
 * A POSIX shell command that sends a recorded request again with curl, for a developer of the
 * target to paste into a terminal. Recordings never hold secrets (the redactor replaced them by
 * `[REDACTED:<kind>]` markers), so secrets come back as environment variable references, never
 * values: the names are the ones the harness itself reads its credentials from.
 *
 * Quoting: every recorded value (header, body, URL) is single-quoted, `'` written as `'\''`.
 * Characters a terminal or a report format would not carry as they are (controls, CR, tab,
 * bidirectional overrides, line separators) are produced by `printf` with octal escapes instead,
 * so the command stays one exact argv after a trip through JUnit XML (which normalises CR and
 * cannot carry most controls) or a copy from a browser.
 *
 * Nothing is sent unless everything the request needs is there: each variable is checked first,
 * and so is the token a bearer request obtains (see `guards`). A request the check sent with an
 * old token is sent after as long a wait (see `tokenAge`).
 */

export const ENV_CLIENT_ID = 'CARRIER_CLIENT_ID';
export const ENV_CLIENT_SECRET = 'CARRIER_CLIENT_SECRET';
export const ENV_ACCESS_TOKEN = 'CARRIER_ACCESS_TOKEN';
/** Prefix of the variables standing for values the recording hid without naming them. */
export const ENV_HIDDEN_PREFIX = 'CARRIER_HIDDEN_';

/** Left to curl: its own User-Agent, and `--compressed` instead of the recorded Accept-Encoding. */
const OMITTED_HEADERS = new Set(['user-agent', 'accept-encoding']);

/** `[REDACTED]` or `[REDACTED:<kind>]`, as written by src/core/redact.ts (`redactedMarker`). */
const MARKER = /\[REDACTED(?::([a-z-]+))?\]/g;

/** A shell expansion inside a word: a variable, or a command substitution. */
interface Ref {
  readonly variable?: string;
  readonly command?: string;
}
/** A word of the command: literal text and expansions, concatenated. */
type Piece = string | Ref;

const CLIENT_ID: Ref = { variable: ENV_CLIENT_ID };
const CLIENT_SECRET: Ref = { variable: ENV_CLIENT_SECRET };
const ACCESS_TOKEN: Ref = { variable: ENV_ACCESS_TOKEN };

/**
 * RFC 6749 §2.3.1 (Appendix B) form-encoding in POSIX sh, byte by byte with od and awk: ASCII
 * letters, digits and `*-._` stay, a space becomes `+`, every other byte `%XX`. The same bytes
 * as the harness's own encoding (src/core/basic-credentials.ts formEncode), without jq, Python or bash-isms.
 */
export const FORM_ENCODE_FUNCTION = `carrier_form() { printf '%s' "$1" | od -An -v -tu1 | awk '{for(i=1;i<=NF;i++){c=$i+0; if((c>=48&&c<=57)||(c>=65&&c<=90)||(c>=97&&c<=122)||c==42||c==45||c==46||c==95) printf "%c",c; else if(c==32) printf "+"; else printf "%%%02X",c}}'; }`;

/** Which client credentials went into a Basic header, and how (RecordedExchange['basic']). */
type BasicMaking = NonNullable<RecordedExchange['basic']>;

/** What the command needs besides curl's own arguments; filled while the arguments are built. */
class Needs {
  accessToken = false;
  /** The command expands $CARRIER_CLIENT_ID / $CARRIER_CLIENT_SECRET: each gets a guard (see `guards`). */
  clientId = false;
  clientSecret = false;
  /** The command form-encodes credentials: the carrier_form function must come first. */
  formFunction = false;
  /** The client-basic credentials were not the configured ones, and the recording cannot say how (a report of an earlier version). */
  otherCredentials = false;
  unknownSecrets = 0;

  constructor(private readonly report: RunReport) {}

  /** The configured credentials as this run sent them: RFC 6749 §2.3.1 form-encoded unless the token endpoint only took them raw. */
  get configured(): BasicMaking {
    return { encoding: this.report.target.basicEncoding ?? 'form' };
  }

  /**
   * Whether `curl -u "$ID:$SECRET…"` sends exactly these credentials: always when they go raw
   * (curl -u sends the Base64 of `user:password`, RFC 7617 §2), and when form-encoding changes nothing.
   */
  plainU(basic: BasicMaking): boolean {
    if (basic.encoding === 'raw') return true;
    const literal = (text: string | undefined): boolean => text === undefined || formEncode(text) === text;
    return !this.report.target.credentialsFormEncoded && literal(basic.clientId) && literal(basic.secretSuffix);
  }

  /** `-u` for these credentials: the id (configured or literal), a colon, the secret (and a suffix). */
  userWord(basic: BasicMaking): string {
    this.usesCredentials(basic);
    return word([basic.clientId ?? CLIENT_ID, ':', CLIENT_SECRET, basic.secretSuffix ?? '']);
  }

  /** The Base64 of the Basic credentials, made by the shell exactly as the harness made it. */
  basicRef(basic: BasicMaking): Ref {
    this.usesCredentials(basic);
    const id = basic.clientId === undefined ? `"$${ENV_CLIENT_ID}"` : singleQuoted(basic.clientId);
    const secret = `"$${ENV_CLIENT_SECRET}"${basic.secretSuffix ? singleQuoted(basic.secretSuffix) : ''}`;
    // Where form-encoding changes nothing, the shorter raw form sends the same bytes.
    if (this.plainU(basic)) return { command: `printf '%s:%s' ${id} ${secret} | base64 | tr -d '\\n'` };
    this.formFunction = true;
    return { command: `printf '%s:%s' "$(carrier_form ${id})" "$(carrier_form ${secret})" | base64 | tr -d '\\n'` };
  }

  /** The configured secret always; the configured id unless the check sent one of its own. */
  usesCredentials(basic: BasicMaking): void {
    if (basic.clientId === undefined) this.clientId = true;
    this.clientSecret = true;
  }

  /** The expansion that stands for a marker of the given kind. */
  refFor(kind: string | undefined): Ref {
    switch (kind) {
      case 'client-secret':
        this.clientSecret = true;
        return CLIENT_SECRET;
      case 'basic-credentials':
        return this.basicRef(this.configured);
      case 'access-token':
        this.accessToken = true;
        return ACCESS_TOKEN;
      default:
        // `[REDACTED]` (hidden by field name) or `[REDACTED:secret]`: the harness cannot say whose
        // value it was, so each one gets its own variable for the reader to fill in.
        this.unknownSecrets += 1;
        return { variable: `${ENV_HIDDEN_PREFIX}${this.unknownSecrets}` };
    }
  }

  /** `text` with every redaction marker replaced by its expansion. */
  substitute(text: string): Piece[] {
    const pieces: Piece[] = [];
    let last = 0;
    for (const match of text.matchAll(MARKER)) {
      pieces.push(text.slice(last, match.index), this.refFor(match[1]));
      last = match.index + match[0].length;
    }
    pieces.push(text.slice(last));
    return pieces;
  }
}

export function curlCommand(exchange: RecordedExchange, report: RunReport): string {
  const needs = new Needs(report);
  const { request } = exchange;
  // Methods are case-sensitive (RFC 9110 §9.1): compared and sent exactly as recorded.
  const method = request.method;
  const headers = request.headers;
  const authHeader = headers.find(([name]) => name.toLowerCase() === 'authorization');

  const args: string[] = ['curl', '-i', ...tlsArgs(report)];
  // curl reads `[…]` and `{…}` in a URL as a glob (an IPv6 host, say); the harness sent it as is.
  if (/[[\]{}]/.test(request.url.replace(MARKER, ''))) args.push('-g');
  // `-X HEAD` would make curl wait for a body that never comes; `-I` is its HEAD request.
  if (method === 'HEAD') args.push('-I');
  else if (method !== 'GET' || request.body !== undefined)
    args.push('-X', /^[A-Za-z]+$/.test(method) ? method : word([method]));

  args.push(...authArgs(exchange, authHeader?.[1], needs));

  let compressed = false;
  for (const [name, value] of headers) {
    const lower = name.toLowerCase();
    if (lower === 'accept-encoding') compressed = true;
    if (OMITTED_HEADERS.has(lower) || (lower === 'authorization' && exchange.auth !== 'none')) continue;
    args.push('-H', headerWord(name, needs.substitute(value)));
  }
  // curl adds `Accept: */*`, and a form Content-Type with a body; an empty `-H 'Name:'` stops it,
  // so that a request the harness sent without them (a check probing that) is reproduced.
  const sent = (field: string): boolean => headers.some(([name]) => name.toLowerCase() === field);
  if (!sent('accept')) args.push('-H', word(['Accept:']));
  if (request.body !== undefined && !sent('content-type')) args.push('-H', word(['Content-Type:']));
  if (compressed) args.push('--compressed');
  if (request.body !== undefined) args.push('--data-raw', word(needs.substitute(request.body)));
  args.push(word(needs.substitute(request.url)));

  // A fresh token is what the command uses; a check that used its token late is reproduced by
  // waiting as long (built first: it marks the credentials the guards must ask for).
  const age = needs.accessToken ? tokenAge(exchange) : undefined;
  const token = needs.accessToken ? tokenLines(report, needs, age) : [];
  const lines = [...comments(needs), ...(age === undefined ? [] : [waitComment(age, report)])];
  if (needs.formFunction) lines.push(FORM_ENCODE_FUNCTION);
  // One `&&` list: a failed guard (or token request) stops it before anything is sent, both in
  // `sh -c` (where `${X:?}` exits the shell) and pasted into an interactive shell (where it only
  // fails the command, so the rest must hang on its status).
  lines.push([...guards(needs), ...token, args.join(' ')].join(' &&\n'));
  return lines.join('\n');
}

/**
 * A guard for each variable the command expands, so that a variable left unset or empty stops it
 * with one line naming what to export, before anything is sent: unset, curl would send `Bearer `
 * or the Basic credentials of an empty secret, and get a 400 or 401 that can pass for the
 * behaviour the check judged. `${X:?word}` is POSIX; the word is plain text inside the quotes.
 */
function guards(needs: Needs): string[] {
  const out: string[] = [];
  if (needs.clientId) out.push(guard(ENV_CLIENT_ID, `export ${ENV_CLIENT_ID} (the client id of the run) first`));
  if (needs.clientSecret)
    out.push(guard(ENV_CLIENT_SECRET, `export ${ENV_CLIENT_SECRET} (the client secret of the run) first`));
  for (let i = 1; i <= needs.unknownSecrets; i += 1)
    out.push(
      guard(`${ENV_HIDDEN_PREFIX}${i}`, `export ${ENV_HIDDEN_PREFIX}${i} (a value the report hides, see above) first`),
    );
  return out;
}

function guard(variable: string, message: string): string {
  return `: "\${${variable}:?${message}}"`;
}

/**
 * The TLS trust the run had: --ca-file as `--cacert`, --insecure as `--insecure`. (curl's --cacert
 * replaces its default bundle where the harness adds the file to the system's: the same trust for
 * a target whose certificate that CA issued, the reason --ca-file is given.)
 */
function tlsArgs(report: RunReport): string[] {
  const { caFile, insecure } = report.target;
  return [...(caFile !== undefined ? ['--cacert', word([caFile])] : []), ...(insecure === true ? ['--insecure'] : [])];
}

function authArgs(exchange: RecordedExchange, recorded: string | undefined, needs: Needs): string[] {
  const [scheme, credentials] = splitScheme(recorded);
  switch (exchange.auth) {
    case 'none':
      return [];
    case 'client-basic': {
      // The recording says which credentials were sent (the configured ones, a wrong secret, an
      // unknown id) and how they were encoded; a report of an earlier version only hides them.
      const basic = exchange.basic ?? fallbackBasic(credentials, needs);
      // curl -u always spells the scheme `Basic`; any other spelling is what the check tested.
      if ((scheme === undefined || scheme === 'Basic') && needs.plainU(basic)) return ['-u', needs.userWord(basic)];
      return ['-H', word([`Authorization: ${scheme ?? 'Basic'} `, needs.basicRef(basic)])];
    }
    case 'bearer':
      needs.accessToken = true;
      return ['-H', word([`Authorization: ${scheme ?? 'Bearer'} `, ACCESS_TOKEN])];
    case 'literal':
      // A made-up credential, recorded as sent: only a real secret inside it was redacted.
      return ['-H', headerWord('Authorization', needs.substitute(recorded ?? ''))];
  }
}

/**
 * The configured credentials, for a recording that does not say how its Basic credentials were
 * made: the configured ones are redacted by value (`basic-credentials`); anything else (the
 * generic marker) means the check sent other ones on purpose, which a comment then says.
 */
function fallbackBasic(credentials: string | undefined, needs: Needs): BasicMaking {
  if (credentials !== undefined && credentials !== '[REDACTED:basic-credentials]') needs.otherCredentials = true;
  return needs.configured;
}

/** `Basic [REDACTED:basic-credentials]` → [`Basic`, `[REDACTED:basic-credentials]`]. */
function splitScheme(value: string | undefined): [string | undefined, string | undefined] {
  if (value === undefined) return [undefined, undefined];
  const match = /^(\S+)\s+(.*)$/s.exec(value);
  return match ? [match[1], match[2]] : [value, undefined];
}

/** `-H 'Name: value'`; `Name;` for an empty value, since curl reads `Name:` as "remove it". */
function headerWord(name: string, value: Piece[]): string {
  const empty = value.every((p) => p === '');
  return word(empty ? [`${name};`] : [`${name}: `, ...value]);
}

function comments(needs: Needs): string[] {
  const out: string[] = [];
  if (needs.otherCredentials) {
    out.push(
      `# The check sent client credentials other than the configured ones (a wrong secret or an unknown client id; this report does not say which): this command sends $${ENV_CLIENT_ID} and $${ENV_CLIENT_SECRET}, so change them to reproduce the check.`,
    );
  }
  if (needs.unknownSecrets > 0) {
    const names = Array.from({ length: needs.unknownSecrets }, (_, i) => `$${ENV_HIDDEN_PREFIX}${i + 1}`);
    out.push(
      `# The report hides ${needs.unknownSecrets === 1 ? 'a value' : 'values'} it cannot attribute to the configured credentials: set ${names.join(', ')} before running this.`,
    );
  }
  return out;
}

/** The shell variables of an expiry reproduction: lower-case, the command's own, no option of the harness's. */
const TOKEN_RESPONSE = 'carrier_token_response';
const EXPIRES_IN = 'carrier_expires_in';
const ACCESS_TOKEN_SED = `sed -n 's/.*"access_token" *: *"\\([^"]*\\)".*/\\1/p'`;

/**
 * Obtains a fresh token with the configured client (spec §Obtain an access token), without jq,
 * and stops with one line when the response holds none (an error, a refused client, no
 * connection: curl -sS has printed its own line for that). For a check that used its token late,
 * expires_in is read from the same response and waited on (see `waitCommand`).
 */
function tokenLines(report: RunReport, needs: Needs, age: TokenAge | undefined): string[] {
  const tokenUrl = tokenEndpoint(report.target.authUrl);
  const basic = needs.configured;
  const auth = needs.plainU(basic)
    ? `-u ${needs.userWord(basic)}`
    : `-H ${word(['Authorization: Basic ', needs.basicRef(basic)])}`;
  const request = `${['curl', '-sS', ...tlsArgs(report)].join(' ')} ${auth} -H 'Accept-Version: ${API_VERSION}' -d grant_type=client_credentials ${word([tokenUrl])}`;
  const noToken = guard(ENV_ACCESS_TOKEN, 'no access_token in the token response');
  if (age === undefined) return [`${ENV_ACCESS_TOKEN}=$(${request} | ${ACCESS_TOKEN_SED})`, noToken];
  const response = `printf '%s\\n' "$${TOKEN_RESPONSE}"`;
  return [
    `${TOKEN_RESPONSE}=$(${request})`,
    `${ENV_ACCESS_TOKEN}=$(${response} | ${ACCESS_TOKEN_SED})`,
    noToken,
    // A whole number only: the wait is shell arithmetic, and the harness refuses any other.
    `${EXPIRES_IN}=$(${response} | sed -n 's/.*"expires_in" *: *\\([0-9][0-9]*\\).*/\\1/p')`,
    guard(EXPIRES_IN, 'no whole-number expires_in in the token response: cannot wait for the token to expire'),
    waitCommand(age, report),
  ];
}

/**
 * When the check sent its token, relative to the token's expires_in, where that was not right
 * after issue. The recording says so only in the exchange's purpose, worded by
 * src/battery/expiry.ts (`observeExpiry`, `probeShortlyBefore`): a change there must be made here
 * too (test/reproduction.test.ts runs the expiry suite and reproduces its exchanges).
 */
type TokenAge = { readonly expired: true } | { readonly expired: false; readonly secondsLeft: number };

const EXPIRED_PURPOSE = /\bwhose expires_in has passed\b/;
const SHORTLY_BEFORE_PURPOSE = /\bhas (-?\d+(?:\.\d+)?) s left of its expires_in\b/;

function tokenAge(exchange: RecordedExchange): TokenAge | undefined {
  if (EXPIRED_PURPOSE.test(exchange.purpose)) return { expired: true };
  const left = SHORTLY_BEFORE_PURPOSE.exec(exchange.purpose)?.[1];
  return left === undefined ? undefined : { expired: false, secondsLeft: Number(left) };
}

/** The run's --expiry-margin; 1 s, the default, for a report that does not record it. */
function expiryMargin(report: RunReport): number {
  return report.target.expiryMargin ?? 1;
}

/**
 * The seconds waited after expires_in: the harness required the refusal by then (a second for
 * whole-second expires_in, plus --expiry-margin; src/battery/expiry.ts `mustBeRefusedFrom`), so
 * a target that refused in the run refuses by then too, and one that still accepted the token
 * at that deadline is seen to accept it. Whole seconds: POSIX sleep takes no fractions.
 */
function secondsAfterExpiry(report: RunReport): number {
  return Math.ceil(1 + expiryMargin(report));
}

/**
 * `sleep` until the token is as old as the check's was. Shortly before expiry: with at least the
 * seconds left that the check had (rounded up, so never later than the check: a refusal then is
 * still one the check would have judged).
 */
function waitCommand(age: TokenAge, report: RunReport): string {
  if (age.expired) return `sleep $((${EXPIRES_IN} + ${secondsAfterExpiry(report)}))`;
  const left = Math.max(0, Math.ceil(age.secondsLeft));
  return left === 0 ? `sleep "$${EXPIRES_IN}"` : `sleep $((${EXPIRES_IN} > ${left} ? ${EXPIRES_IN} - ${left} : 0))`;
}

/** Says why the command waits, and what it then shows. */
function waitComment(age: TokenAge, report: RunReport): string {
  if (!age.expired) {
    const left = Math.max(0, Math.ceil(age.secondsLeft));
    return `# The check sent its token with ${age.secondsLeft} s of its expires_in left: this command gets a fresh token and waits expires_in - ${left} s before sending it (whole seconds: POSIX sleep takes no fractions).`;
  }
  const margin =
    report.target.expiryMargin === undefined
      ? '--expiry-margin 1 s, the default: the report does not say which margin the run used'
      : `the run's --expiry-margin of ${expiryMargin(report)} s`;
  return `# The check sent its token after the token's expires_in had passed: this command gets a fresh token and waits expires_in + ${secondsAfterExpiry(report)} s (a second for whole-second expires_in, and ${margin}) before sending it, so expect the answer the check judged, not the 200 of a new token.`;
}

/** `{auth_url}/uaa/oauth2/token`; a report is data, so an auth URL that does not parse is joined as text. */
function tokenEndpoint(authUrl: string): string {
  try {
    return apiUrl(authUrl, TOKEN_PATH).href;
  } catch {
    return `${authUrl.replace(/\/+$/, '')}${TOKEN_PATH}`;
  }
}

/**
 * True for characters written as they are inside quotes. The others are produced by printf:
 * C0 controls but LF (tab too: pasted into a shell it triggers completion), DEL and C1 controls,
 * the bidirectional controls (text that reads differently from what runs), U+2028/U+2029 and the
 * noncharacters U+FFFE/U+FFFF and lone surrogates (which XML cannot carry).
 */
function isPlain(ch: string): boolean {
  const code = ch.codePointAt(0) ?? 0;
  return code < 0x20 ? ch === '\n' : !isUnsafeCode(code);
}

/** Characters that keep their meaning inside double quotes (`!`: bash history expansion). */
function isDoubleQuoteSafe(text: string): boolean {
  return !/[$`"\\!]/.test(text) && Array.from(text).every(isPlain);
}

/**
 * One shell word. Literal only: single-quoted. With expansions: one double-quoted string when the
 * literal text allows (`"Authorization: Bearer $CARRIER_ACCESS_TOKEN"`, easy to read), otherwise
 * single-quoted literals and double-quoted expansions side by side, which is always exact.
 */
function word(pieces: readonly Piece[]): string {
  const merged: Piece[] = [];
  for (const piece of pieces) {
    const previous = merged.at(-1);
    if (typeof piece === 'string' && typeof previous === 'string') merged[merged.length - 1] = previous + piece;
    else if (piece !== '') merged.push(piece);
  }
  if (merged.every((p) => typeof p === 'string')) return singleQuoted(merged.join(''));

  if (merged.every((p) => typeof p !== 'string' || isDoubleQuoteSafe(p))) {
    const inner = merged.map((p, i) => (typeof p === 'string' ? p : expansion(p, merged[i + 1]))).join('');
    return `"${inner}"`;
  }
  return merged.map((p, i) => (typeof p === 'string' ? singleQuoted(p) : `"${expansion(p, merged[i + 1])}"`)).join('');
}

function expansion(ref: Ref, next: Piece | undefined): string {
  if (ref.command !== undefined) return `$(${ref.command})`;
  const name = ref.variable ?? '';
  // `$NAME_x` would read a longer name: braces when a name character follows.
  return typeof next === 'string' && /^[A-Za-z0-9_]/.test(next) ? `\${${name}}` : `$${name}`;
}

/** One shell word for a literal: as it is when the shell would not change it, else quoted exactly. */
export function shellWord(text: string): string {
  return /^[A-Za-z0-9_\-.,:/@%+=]+$/.test(text) ? text : singleQuoted(text);
}

/** `'text'`, with `'` as `'\''` and the characters `isPlain` rejects as `"$(printf '\ooo')"`. */
function singleQuoted(text: string): string {
  if (text === '') return "''";
  let out = '';
  let plain = '';
  let special = '';
  const flushPlain = (): void => {
    if (plain !== '') out += `'${plain.replace(/'/g, `'\\''`)}'`;
    plain = '';
  };
  const flushSpecial = (): void => {
    // UTF-8 bytes in octal: the one escape every POSIX printf knows. A lone surrogate becomes
    // U+FFFD here, which is also what went on the wire (undici encodes the body as UTF-8).
    if (special !== '')
      out += `"$(printf '${[...Buffer.from(special, 'utf8')].map((b) => `\\${b.toString(8).padStart(3, '0')}`).join('')}')"`;
    special = '';
  };
  for (const ch of text) {
    if (isPlain(ch)) {
      flushSpecial();
      plain += ch;
    } else {
      flushPlain();
      special += ch;
    }
  }
  flushPlain();
  flushSpecial();
  return out;
}
