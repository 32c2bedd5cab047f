import { formEncode } from './http/basic.js';

/**
 * The one place where secrets are removed. Every output (exchanges recorded by the HTTP layer,
 * check messages, console, reports) passes through a Redactor before it leaves memory.
 *
 * It works two ways:
 * - by value: the client secret, the Basic credentials and every access token the moment it is
 *   issued are registered, in every spelling they can take on the wire (raw, form- and
 *   percent-encoded, JSON-escaped, inside the Base64 of a Basic header);
 * - by name: values of sensitive header fields and of sensitive JSON / form fields are replaced
 *   whatever they are, so that a secret the harness never learned of (a cookie, a refresh token)
 *   does not leak either.
 */

export type SecretKind = 'client-secret' | 'basic-credentials' | 'access-token' | 'secret';

const SENSITIVE_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key']);
/** JSON or form field names whose values are secrets (`access_token`, `client_secret`, `password`...). */
const SENSITIVE_FIELD = /(?:^|[_-])(?:secret|password|passwd|token|api[_-]?key)$/i;
/** A body without any of these words (in any spelling a field name can take) has no sensitive field. */
const SENSITIVE_WORD = /secret|passw|token|api[_-]?key|\\u00/i;
/** `Basic` and its credentials (RFC 7617 §2: token68), wherever they appear in a text. */
const BASIC_CREDENTIALS = /(\bBasic\s+)([A-Za-z0-9+/_-]{6,}={0,2})/gi;
const BASIC_WORD = /basic/i;
/** Tokens shorter than this are not registered: redacting every "ab" would make reports unreadable. */
const MIN_SECRET_LENGTH = 4;

export function redactedMarker(kind: SecretKind): string {
  return `[REDACTED:${kind}]`;
}

export class Redactor {
  /** value → marker, kept sorted longest first so that a secret inside a longer one is not half-replaced. */
  #secrets = new Map<string, string>();
  #ordered: [string, string][] = [];
  /** Base64 prefixes of the Basic credentials, and the runs of Base64 that begin with them (see addClientCredentials). */
  #stems: { stem: string; run: RegExp }[] = [];

  /** Registers a secret value and the spellings it takes in URLs, forms and JSON. */
  addSecret(value: string | undefined, kind: SecretKind = 'secret'): void {
    if (!value || value.length < MIN_SECRET_LENGTH) return;
    const marker = redactedMarker(kind);
    const json = JSON.stringify(value).slice(1, -1);
    const asciiJson = json.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    const lowerHex = (encoded: string): string => encoded.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
    const variants = new Set([
      value,
      encodeURIComponent(value),
      lowerHex(encodeURIComponent(value)),
      formEncode(value),
      lowerHex(formEncode(value)),
      json,
      // JSON writers that escape every non-ASCII character (Python's json.dumps), `/` as well (PHP).
      asciiJson,
      json.replace(/\//g, '\\/'),
      asciiJson.replace(/\//g, '\\/'),
    ]);
    let added = false;
    for (const variant of variants) {
      if (variant.length >= MIN_SECRET_LENGTH && !this.#secrets.has(variant)) {
        this.#secrets.set(variant, marker);
        added = true;
      }
    }
    if (added) this.#ordered = [...this.#secrets].sort((a, b) => b[0].length - a[0].length);
  }

  /**
   * Registers the encodings a target might echo a secret in that cost nothing to compute: hex,
   * Base64 (standard and URL-safe, with and without padding) and HTML character references
   * (the usual escapes of `&<>"'`, and every character as a decimal or hex reference).
   */
  addEncodedSecret(value: string | undefined, kind: SecretKind = 'secret'): void {
    if (!value || value.length < MIN_SECRET_LENGTH) return;
    const bytes = Buffer.from(value, 'utf8');
    const hex = bytes.toString('hex');
    const base64 = bytes.toString('base64');
    const base64url = bytes.toString('base64url');
    const chars = Array.from(value);
    const html = (quote: string, apostrophe: string): string =>
      value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': quote, "'": apostrophe })[c] ?? c);
    for (const variant of [
      hex,
      hex.toUpperCase(),
      base64,
      base64.replace(/=+$/, ''),
      base64url,
      html('&quot;', '&#39;'),
      html('&#34;', '&#x27;'),
      html('&quot;', '&apos;'),
      chars.map((c) => `&#${c.codePointAt(0) ?? 0};`).join(''),
      chars.map((c) => `&#x${(c.codePointAt(0) ?? 0).toString(16)};`).join(''),
    ]) {
      this.addSecret(variant, kind);
    }
  }

  /** Registers the client credentials: the secret itself and the Basic header value built from them. */
  addClientCredentials(clientId: string, clientSecret: string): void {
    this.addSecret(clientSecret, 'client-secret');
    this.addEncodedSecret(clientSecret, 'client-secret');
    // A client that skipped the RFC 6749 §2.3.1 form-encoding would send the second spelling.
    for (const [id, secret] of [[formEncode(clientId), formEncode(clientSecret)], [clientId, clientSecret]] as const) {
      const plain = `${id}:${secret}`;
      const b64 = Buffer.from(plain, 'utf8').toString('base64');
      this.addSecret(b64, 'basic-credentials');
      // Credentials derived by appending to the secret begin with the Base64 of its whole 3-byte
      // groups: a run of Base64 that begins so is replaced whole (below), with or without `Basic`.
      const stem = b64.slice(0, Math.floor(Buffer.byteLength(plain) / 3) * 4);
      if (stem.length >= 8 && !this.#stems.some((s) => s.stem === stem)) this.#stems.push({ stem, run: new RegExp(`${stem.replace(/[+/]/g, '\\$&')}[A-Za-z0-9+/_-]*={0,2}`, 'g') });
    }
  }

  /**
   * Every secret value is replaced by its marker. Basic credentials are replaced whole when they
   * decode to text holding a secret: credentials derived from the secret (a wrong secret made by
   * appending to it, echoed back by a target in another field) share no Base64 substring with the
   * secret's own unless the appended part falls on a 3-byte boundary.
   */
  redact(text: string): string {
    let out = text;
    // Derived credentials become an opaque `[REDACTED]`, not the configured credentials' marker:
    // a reproduction (src/report/reproduce.ts) must not send the real ones in their place.
    const derived = (b64: string): string => this.#secrets.get(b64) ?? '[REDACTED]';
    if (out.length >= 6 && BASIC_WORD.test(out)) out = out.replace(BASIC_CREDENTIALS, (whole, scheme: string, b64: string) => (this.#holdsSecret(b64) ? `${scheme}${derived(b64)}` : whole));
    for (const { stem, run } of this.#stems) if (out.includes(stem)) out = out.replace(run, derived);
    for (const [value, marker] of this.#ordered) {
      if (out.includes(value)) out = out.split(value).join(marker);
    }
    return out;
  }

  /** Whether Base64 (standard or URL-safe) decodes to text that holds a registered secret. */
  #holdsSecret(b64: string): boolean {
    const decoded = Buffer.from(b64, 'base64').toString('utf8');
    return this.#ordered.some(([value]) => decoded.includes(value));
  }

  /**
   * Header values: sensitive fields keep only their scheme, and their credentials are replaced
   * whole: by the marker of the secret they are (`Bearer [REDACTED:access-token]`), or by an
   * opaque `[REDACTED]`. Never in part: credentials derived from a secret (a wrong secret made
   * by appending to the real one) can contain its Base64 as a prefix.
   */
  redactHeader(name: string, value: string, keepCredentials = false): string {
    if (!SENSITIVE_HEADERS.has(name.toLowerCase()) || keepCredentials) return this.redact(value);
    const lower = name.toLowerCase();
    if (lower === 'authorization' || lower === 'proxy-authorization') {
      const match = /^(\S+)(\s+)(.*)$/s.exec(value);
      if (match) {
        const [, scheme = '', space = ' ', credentials = ''] = match;
        const redacted = this.redact(credentials);
        return `${scheme}${space}${/^\[REDACTED:[a-z-]+\]$/.test(redacted) ? redacted : '[REDACTED]'}`;
      }
    }
    return '[REDACTED]';
  }

  /**
   * A body: by value, then the values of sensitive JSON string fields and form fields by name.
   * The text is edited in place rather than re-serialised so that a report shows the body as
   * the server sent it.
   */
  redactBody(text: string): string {
    const byValue = this.redact(text);
    // Most bodies (a page of shipments) name no sensitive field at all: nothing to tokenise.
    if (!SENSITIVE_WORD.test(byValue)) return byValue;
    if (/^\s*[[{]/.test(byValue)) return redactJsonFields(byValue);
    return /^[^\s=&]+=/.test(byValue) ? redactFormFields(byValue) : byValue;
  }

  /** Registers every token-like field of a JSON response body as soon as it is seen. */
  learnFromResponseBody(text: string): void {
    if (!text.includes('token')) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return;
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return;
    for (const [key, value] of Object.entries(parsed)) {
      if (typeof value === 'string' && SENSITIVE_FIELD.test(key)) this.addSecret(value, key === 'access_token' ? 'access-token' : 'secret');
    }
  }
}

/**
 * A JSON string token (or an unterminated one at the end of a cut body). In JSON every `"`
 * outside a string opens one, so matching from the start tokenises.
 */
const JSON_STRING = /"(?:[^"\\]|\\.)*(?:"|$)/g;

/**
 * Replaces the string values of sensitive fields, found by walking the string tokens in order:
 * a token followed by `:` is a key, a token preceded by `:` is the value of the last key. Works
 * on truncated JSON too, which a recorded body may be.
 */
function redactJsonFields(text: string): string {
  let sensitiveKey = false;
  return text.replace(JSON_STRING, (token: string, offset: number) => {
    let after = offset + token.length;
    while (after < text.length && /\s/.test(text.charAt(after))) after += 1;
    if (text.charAt(after) === ':') {
      // Decode the key only when it has escapes; most keys are plain.
      sensitiveKey = SENSITIVE_FIELD.test(token.includes('\\') ? jsonStringValue(token) : token.slice(1, -1));
      return token;
    }
    let before = offset - 1;
    while (before >= 0 && /\s/.test(text.charAt(before))) before -= 1;
    return sensitiveKey && text.charAt(before) === ':' ? '"[REDACTED]"' : token;
  });
}

function jsonStringValue(token: string): string {
  try {
    return JSON.parse(token) as string;
  } catch {
    return token.slice(1, -1);
  }
}

/** application/x-www-form-urlencoded: `name=value&...`. */
function redactFormFields(text: string): string {
  return text
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      return SENSITIVE_FIELD.test(safeDecode(pair.slice(0, eq))) ? `${pair.slice(0, eq)}=[REDACTED]` : pair;
    })
    .join('&');
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** The process-wide redactor: the CLI process and each test worker has its own, filled at start-up. */
export const redactor = new Redactor();
