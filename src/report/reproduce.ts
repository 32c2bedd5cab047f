import { API_VERSION, TOKEN_PATH, apiUrl } from '../api/paths.js';
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
/** The raw Base64 of `id:secret`, as `curl -u` would send it (no jq, no bash-isms). */
const BASIC_CREDENTIALS: Ref = {
  command: `printf '%s:%s' "$${ENV_CLIENT_ID}" "$${ENV_CLIENT_SECRET}" | base64 | tr -d '\\n'`,
};

/** What the command needs besides curl's own arguments; filled while the arguments are built. */
class Needs {
  clientCredentials = false;
  accessToken = false;
  /** The client-basic credentials were not the configured ones (a wrong secret, an unknown id). */
  otherCredentials = false;
  unknownSecrets = 0;

  /** The expansion that stands for a marker of the given kind. */
  refFor(kind: string | undefined): Ref {
    switch (kind) {
      case 'client-secret':
        this.clientCredentials = true;
        return CLIENT_SECRET;
      case 'basic-credentials':
        this.clientCredentials = true;
        return BASIC_CREDENTIALS;
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
  const needs = new Needs();
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

  args.push(...authArgs(exchange.auth, authHeader?.[1], needs));

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

  const lines = [...comments(needs, report)];
  if (needs.accessToken) lines.push(tokenLine(report));
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

function authArgs(auth: RecordedExchange['auth'], recorded: string | undefined, needs: Needs): string[] {
  const [scheme, credentials] = splitScheme(recorded);
  switch (auth) {
    case 'none':
      return [];
    case 'client-basic': {
      needs.clientCredentials = true;
      // The configured credentials are redacted by value, as `basic-credentials`; anything else
      // (the generic marker) means the check sent other ones on purpose.
      if (credentials !== undefined && credentials !== '[REDACTED:basic-credentials]') needs.otherCredentials = true;
      // curl -u always spells the scheme `Basic`; any other spelling is what the check tested.
      if (scheme === undefined || scheme === 'Basic') return ['-u', word([CLIENT_ID, ':', CLIENT_SECRET])];
      return ['-H', word([`Authorization: ${scheme} `, BASIC_CREDENTIALS])];
    }
    case 'bearer':
      needs.accessToken = true;
      return ['-H', word([`Authorization: ${scheme ?? 'Bearer'} `, ACCESS_TOKEN])];
    case 'literal':
      // A made-up credential, recorded as sent: only a real secret inside it was redacted.
      return ['-H', headerWord('Authorization', needs.substitute(recorded ?? ''))];
  }
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

function comments(needs: Needs, report: RunReport): string[] {
  const out: string[] = [];
  if (needs.otherCredentials) {
    out.push(
      `# The check sent client credentials other than the configured ones (a wrong secret or an unknown client id; the report hides them): this command sends $${ENV_CLIENT_ID} and $${ENV_CLIENT_SECRET}, so change them to reproduce the check.`,
    );
  }
  if ((needs.clientCredentials || needs.accessToken) && report.target.credentialsFormEncoded) {
    out.push(
      `# The client credentials contain characters that RFC 6749 §2.3.1 form-encodes before Base64: for this to send what the harness sent, set $${ENV_CLIENT_ID} and $${ENV_CLIENT_SECRET} to their form-encoded values (space as +, + as %2B, : as %3A, …).`,
    );
  }
  if (needs.unknownSecrets > 0) {
    const names = Array.from({ length: needs.unknownSecrets }, (_, i) => `$${ENV_HIDDEN_PREFIX}${i + 1}`);
    out.push(`# The report hides ${needs.unknownSecrets === 1 ? 'a value' : 'values'} it cannot attribute to the configured credentials: set ${names.join(', ')} before running this.`);
  }
  return out;
}

/** Obtains a fresh token with the configured client (spec §Obtain an access token), without jq. */
function tokenLine(report: RunReport): string {
  const tokenUrl = tokenEndpoint(report.target.authUrl);
  return (
    `${ENV_ACCESS_TOKEN}=$(${['curl', '-sS', ...tlsArgs(report)].join(' ')} -u "$${ENV_CLIENT_ID}:$${ENV_CLIENT_SECRET}" -H 'Accept-Version: ${API_VERSION}' -d grant_type=client_credentials ${word([tokenUrl])}` +
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
