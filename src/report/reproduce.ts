import { API_VERSION, TOKEN_PATH, apiUrl } from '../api/paths.js';
import { formEncode } from '../http/basic.js';
import type { RecordedExchange, RunReport } from './model.js';

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
 */

export const ENV_CLIENT_ID = 'CARRIER_CLIENT_ID';
export const ENV_CLIENT_SECRET = 'CARRIER_CLIENT_SECRET';
export const ENV_ACCESS_TOKEN = 'CARRIER_ACCESS_TOKEN';
/** Prefix of the variables standing for values the recording hid without naming them. */
export const ENV_HIDDEN_PREFIX = 'CARRIER_HIDDEN_';

/** Left to curl: its own User-Agent, and `--compressed` instead of the recorded Accept-Encoding. */
const OMITTED_HEADERS = new Set(['user-agent', 'accept-encoding']);

/** `[REDACTED]` or `[REDACTED:<kind>]`, as written by src/redact.ts (`redactedMarker`). */
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
 * as the harness's own encoding (src/http/basic.ts formEncode), without jq, Python or bash-isms.
 */
export const FORM_ENCODE_FUNCTION =
  `carrier_form() { printf '%s' "$1" | od -An -v -tu1 | awk '{for(i=1;i<=NF;i++){c=$i+0; if((c>=48&&c<=57)||(c>=65&&c<=90)||(c>=97&&c<=122)||c==42||c==45||c==46||c==95) printf "%c",c; else if(c==32) printf "+"; else printf "%%%02X",c}}'; }`;

/** Which client credentials went into a Basic header, and how (RecordedExchange['basic']). */
type BasicMaking = NonNullable<RecordedExchange['basic']>;

/** What the command needs besides curl's own arguments; filled while the arguments are built. */
class Needs {
  accessToken = false;
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
    return word([basic.clientId ?? CLIENT_ID, ':', CLIENT_SECRET, basic.secretSuffix ?? '']);
  }

  /** The Base64 of the Basic credentials, made by the shell exactly as the harness made it. */
  basicRef(basic: BasicMaking): Ref {
    const id = basic.clientId === undefined ? `"$${ENV_CLIENT_ID}"` : singleQuoted(basic.clientId);
    const secret = `"$${ENV_CLIENT_SECRET}"${basic.secretSuffix ? singleQuoted(basic.secretSuffix) : ''}`;
    // Where form-encoding changes nothing, the shorter raw form sends the same bytes.
    if (this.plainU(basic)) return { command: `printf '%s:%s' ${id} ${secret} | base64 | tr -d '\\n'` };
    this.formFunction = true;
    return { command: `printf '%s:%s' "$(carrier_form ${id})" "$(carrier_form ${secret})" | base64 | tr -d '\\n'` };
  }

  /** The expansion that stands for a marker of the given kind. */
  refFor(kind: string | undefined): Ref {
    switch (kind) {
      case 'client-secret':
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
  else if (method !== 'GET' || request.body !== undefined) args.push('-X', /^[A-Za-z]+$/.test(method) ? method : word([method]));

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

  const token = needs.accessToken ? tokenLine(report, needs) : undefined;
  const lines = [...comments(needs)];
  if (needs.formFunction) lines.push(FORM_ENCODE_FUNCTION);
  if (token !== undefined) lines.push(token);
  lines.push(args.join(' '));
  return lines.join('\n');
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
    out.push(`# The report hides ${needs.unknownSecrets === 1 ? 'a value' : 'values'} it cannot attribute to the configured credentials: set ${names.join(', ')} before running this.`);
  }
  return out;
}

/** Obtains a fresh token with the configured client (spec §Obtain an access token), without jq. */
function tokenLine(report: RunReport, needs: Needs): string {
  const tokenUrl = tokenEndpoint(report.target.authUrl);
  const basic = needs.configured;
  const auth = needs.plainU(basic) ? `-u ${needs.userWord(basic)}` : `-H ${word(['Authorization: Basic ', needs.basicRef(basic)])}`;
  return (
    `${ENV_ACCESS_TOKEN}=$(${['curl', '-sS', ...tlsArgs(report)].join(' ')} ${auth} -H 'Accept-Version: ${API_VERSION}' -d grant_type=client_credentials ${word([tokenUrl])}` +
    ` | sed -n 's/.*"access_token" *: *"\\([^"]*\\)".*/\\1/p')`
  );
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
  if (code < 0x20) return ch === '\n';
  if (code >= 0x7f && code <= 0x9f) return false;
  if ((code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069) || code === 0x200e || code === 0x200f || code === 0x061c) return false;
  if (code === 0x2028 || code === 0x2029 || code === 0xfffe || code === 0xffff) return false;
  return !(code >= 0xd800 && code <= 0xdfff);
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
    if (special !== '') out += `"$(printf '${[...Buffer.from(special, 'utf8')].map((b) => `\\${b.toString(8).padStart(3, '0')}`).join('')}')"`;
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
