import { formEncode } from './basic-credentials.js';
import { LiteralMatcher } from './text-matcher.js';

/**
 * The one place where secrets are removed. Every output (exchanges recorded by the HTTP layer,
 * check messages, console, reports) passes through a Redactor before it leaves memory.
 *
 * It works two ways:
 * - by value: the client secrets, the Basic credentials, every access token the moment it is
 *   issued and every cookie value a target sets are registered, in every spelling of SPELLINGS
 *   (raw, percent-, form- and URL-encoded, JSON-escaped, hex, Base64, HTML references), and
 *   Basic credentials derived from a secret are recognised whole;
 * - by name: values of sensitive header fields and of sensitive JSON / form fields are replaced
 *   whatever they are, so that a secret the harness never learned of (a cookie, a refresh token)
 *   does not leak either.
 */

export type SecretKind = 'client-secret' | 'basic-credentials' | 'access-token' | 'cookie' | 'secret';

const SENSITIVE_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'set-cookie2',
  'x-api-key',
]);
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

// ── the spellings of a secret ────────────────────────────────────────────────────────────

const UTF8 = new TextEncoder();

/** `%XX` for each UTF-8 byte of the code points `encode` selects (a lone surrogate as U+FFFD's bytes, as a UTF-8 encoder writes it). */
function percentEncode(
  value: string,
  encode: (codePoint: number) => boolean,
  hex: 'upper' | 'lower' = 'upper',
): string {
  let out = '';
  for (const char of value) {
    const cp = char.codePointAt(0) ?? 0;
    if (!encode(cp)) {
      out += char;
      continue;
    }
    if (cp < 0x80) {
      const h = cp.toString(16).padStart(2, '0');
      out += `%${hex === 'upper' ? h.toUpperCase() : h}`;
      continue;
    }
    for (const byte of UTF8.encode(char)) {
      const h = byte.toString(16).padStart(2, '0');
      out += `%${hex === 'upper' ? h.toUpperCase() : h}`;
    }
  }
  return out;
}

/** WHATWG URL §1.3 percent-encode sets, as the URL parser applies them to each part of a URL. */
const C0_CONTROL = (c: number): boolean => c < 0x20 || c > 0x7e;
const FRAGMENT_SET = (c: number): boolean =>
  C0_CONTROL(c) || c === 0x20 || c === 0x22 || c === 0x3c || c === 0x3e || c === 0x60;
const QUERY_SET = (c: number): boolean =>
  C0_CONTROL(c) || c === 0x20 || c === 0x22 || c === 0x23 || c === 0x3c || c === 0x3e;
const SPECIAL_QUERY_SET = (c: number): boolean => QUERY_SET(c) || c === 0x27;
/** Without and with `^`, which the standard added to the path set later than some parsers follow. */
const PATH_SET = (c: number): boolean => QUERY_SET(c) || c === 0x3f || c === 0x60 || c === 0x7b || c === 0x7d;
const PATH_SET_CARET = (c: number): boolean => PATH_SET(c) || c === 0x5e;
const USERINFO_SET = (c: number): boolean =>
  PATH_SET_CARET(c) ||
  c === 0x2f ||
  c === 0x3a ||
  c === 0x3b ||
  c === 0x3d ||
  c === 0x40 ||
  (c >= 0x5b && c <= 0x5d) ||
  c === 0x7c;
/** encodeURIComponent's: everything but ALPHA DIGIT - _ . ! ~ * ' ( ). */
const COMPONENT_SET = (c: number): boolean => !/[A-Za-z0-9\-_.!~*'()]/.test(String.fromCodePoint(c));
/** RFC 6749 Appendix B (application/x-www-form-urlencoded): everything but ALPHA DIGIT * - . _, a space as `+`. */
const FORM_SET = (c: number): boolean => !/[A-Za-z0-9*\-._ ]/.test(String.fromCodePoint(c));

const bothCases = (spell: (hex: 'upper' | 'lower') => string): string[] => [spell('upper'), spell('lower')];

/** One way a target may echo a secret, and the texts it makes of one (each a literal to redact). */
export interface Spelling {
  readonly name: string;
  spell(value: string): string[];
}

/**
 * Every spelling the redactor knows, the one list: each secret (the client secrets, the Basic
 * credentials, every access token, every cookie value) is registered in all of them, the tests
 * echo a secret in each through every report and the console (test/redact-sinks.test.ts), and
 * docs/security.md names them. A spelling added here is redacted everywhere at once.
 */
export const SPELLINGS: readonly Spelling[] = [
  { name: 'as it is', spell: (v) => [v] },
  {
    name: 'percent-encoded (encodeURIComponent)',
    spell: (v) => bothCases((hex) => percentEncode(v, COMPONENT_SET, hex)),
  },
  {
    name: 'form-encoded (RFC 6749 Appendix B)',
    spell: (v) => bothCases((hex) => percentEncode(v, FORM_SET, hex).replace(/ /g, '+')),
  },
  { name: 'every byte percent-encoded', spell: (v) => bothCases((hex) => percentEncode(v, () => true, hex)) },
  {
    // What the URL parser makes of it in each part of a URL: a secret echoed in a Link target is
    // printed so (`S3cr3t+%&=:%20x`), neither raw nor encoded as a whole.
    name: 'URL-normalised (WHATWG URL: path, query, fragment, userinfo)',
    spell: (v) =>
      [PATH_SET, PATH_SET_CARET, QUERY_SET, SPECIAL_QUERY_SET, FRAGMENT_SET, USERINFO_SET].map((set) =>
        percentEncode(v, set),
      ),
  },
  {
    // JSON writers that escape every non-ASCII character (Python's json.dumps), `/` as well (PHP).
    name: 'JSON-escaped',
    spell: (v) => {
      const json = JSON.stringify(v).slice(1, -1);
      const ascii = json.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
      return [json, ascii, json.replace(/\//g, '\\/'), ascii.replace(/\//g, '\\/')];
    },
  },
  {
    name: 'every character \\u-escaped (JSON)',
    spell: (v) => {
      const units = Array.from({ length: v.length }, (_, i) => v.charCodeAt(i).toString(16).padStart(4, '0'));
      return [units.map((h) => `\\u${h}`).join(''), units.map((h) => `\\u${h.toUpperCase()}`).join('')];
    },
  },
  {
    name: 'hex',
    spell: (v) =>
      bothCases((hex) => Buffer.from(v, 'utf8').toString('hex')[hex === 'upper' ? 'toUpperCase' : 'toLowerCase']()),
  },
  {
    name: 'Base64 (standard, unpadded, URL-safe)',
    spell: (v) => {
      const bytes = Buffer.from(v, 'utf8');
      return [bytes.toString('base64'), bytes.toString('base64').replace(/=+$/, ''), bytes.toString('base64url')];
    },
  },
  {
    name: 'HTML character references',
    spell: (v) => {
      const chars = Array.from(v);
      const html = (quote: string, apostrophe: string): string =>
        v.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': quote, "'": apostrophe })[c] ?? c);
      return [
        html('&quot;', '&#39;'),
        html('&#34;', '&#x27;'),
        html('&quot;', '&apos;'),
        chars.map((c) => `&#${c.codePointAt(0) ?? 0};`).join(''),
        chars.map((c) => `&#x${(c.codePointAt(0) ?? 0).toString(16)};`).join(''),
        chars.map((c) => `&#x${(c.codePointAt(0) ?? 0).toString(16).toUpperCase()};`).join(''),
      ];
    },
  },
];

/** Every text `value` is spelt as, by SPELLINGS, long enough to redact. */
export function spellingsOf(value: string): string[] {
  return [...new Set(SPELLINGS.flatMap((s) => s.spell(value)))].filter((v) => v.length >= MIN_SECRET_LENGTH);
}

export class Redactor {
  /** Every spelling of every secret, found in one pass (src/core/text-matcher.ts); `#markers` by pattern index. */
  readonly #matcher = new LiteralMatcher();
  readonly #markers: string[] = [];
  /** Base64 prefixes of the Basic credentials, and the runs of Base64 that begin with them (see addClientCredentials). */
  #stems: { stem: string; run: RegExp }[] = [];

  /** The secrets registered (not their spellings), in order, with their kinds. */
  readonly #known = new Map<string, SecretKind>();
  /**
   * Told each secret the first time it is registered: the battery's workers and the CLI process
   * each have a redactor, and what one learns (a token, a cookie a target set) the others must
   * know before they write (src/battery/context.ts, src/runner/vitest-run.ts).
   */
  onSecret: ((value: string, kind: SecretKind) => void) | undefined;

  /** The secrets registered so far, with their kinds. */
  secrets(): [string, SecretKind][] {
    return [...this.#known];
  }

  /** Registers a secret value in every spelling a target may echo it in (SPELLINGS). */
  addSecret(value: string | undefined, kind: SecretKind = 'secret'): void {
    if (!value || value.length < MIN_SECRET_LENGTH || this.#known.has(value)) return;
    this.#known.set(value, kind);
    this.onSecret?.(value, kind);
    const marker = redactedMarker(kind);
    for (const variant of spellingsOf(value)) {
      // The first registration of a text keeps its kind.
      if (this.#matcher.has(variant)) continue;
      this.#markers[this.#matcher.add(variant)] = marker;
    }
  }

  /** Registers the client credentials: the secret itself and the Basic header value built from them. */
  addClientCredentials(clientId: string, clientSecret: string): void {
    this.addSecret(clientSecret, 'client-secret');
    // A client that skipped the RFC 6749 §2.3.1 form-encoding would send the second spelling.
    for (const [id, secret] of [
      [formEncode(clientId), formEncode(clientSecret)],
      [clientId, clientSecret],
    ] as const) {
      const plain = `${id}:${secret}`;
      const b64 = Buffer.from(plain, 'utf8').toString('base64');
      // The credentials and what they decode to, each in every spelling (a target may echo either).
      this.addSecret(b64, 'basic-credentials');
      this.addSecret(plain, 'basic-credentials');
      // Credentials derived by appending to the secret begin with the Base64 of its whole 3-byte
      // groups: a run of Base64 that begins so is replaced whole (below), with or without `Basic`.
      const stem = b64.slice(0, Math.floor(Buffer.byteLength(plain) / 3) * 4);
      if (stem.length >= 8 && !this.#stems.some((s) => s.stem === stem))
        this.#stems.push({ stem, run: new RegExp(`${stem.replace(/[+/]/g, '\\$&')}[A-Za-z0-9+/_-]*={0,2}`, 'g') });
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
    const derived = (b64: string): string => this.#markerOf(b64) ?? '[REDACTED]';
    if (out.length >= 6 && BASIC_WORD.test(out))
      out = out.replace(BASIC_CREDENTIALS, (whole, scheme: string, b64: string) =>
        this.#holdsSecret(b64) ? `${scheme}${derived(b64)}` : whole,
      );
    for (const { stem, run } of this.#stems) if (out.includes(stem)) out = out.replace(run, derived);
    const found = this.#matcher.find(out);
    if (found.length === 0) return out;
    let result = '';
    let at = 0;
    for (const { start, end, pattern } of found) {
      result += out.slice(at, start) + (this.#markers[pattern] ?? '[REDACTED]');
      at = end;
    }
    return result + out.slice(at);
  }

  /** The marker of a text registered whole, if it is one. */
  #markerOf(text: string): string | undefined {
    const found = this.#matcher.find(text);
    const only = found[0];
    return found.length === 1 && only !== undefined && only.start === 0 && only.end === text.length
      ? this.#markers[only.pattern]
      : undefined;
  }

  /** Whether Base64 (standard or URL-safe) decodes to text that holds a registered secret. */
  #holdsSecret(b64: string): boolean {
    return this.#matcher.find(Buffer.from(b64, 'base64').toString('utf8')).length > 0;
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

  /**
   * Registers the value of every cookie a response sets (RFC 6265 §4.1: `name=value` before the
   * first `;`, quotes around it dropped): a session a target hands out is a credential, whatever
   * else echoes it later (a body, a Link target). The Set-Cookie field itself is redacted by name.
   */
  learnFromResponseHeaders(headers: Readonly<Record<string, readonly string[]>>): void {
    for (const name of ['set-cookie', 'set-cookie2']) {
      for (const line of headers[name] ?? []) {
        const pair = line.split(';')[0] ?? '';
        const eq = pair.indexOf('=');
        if (eq < 0) continue;
        this.addSecret(
          pair
            .slice(eq + 1)
            .trim()
            .replace(/^"(.*)"$/, '$1'),
          'cookie',
        );
      }
    }
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
      if (typeof value === 'string' && SENSITIVE_FIELD.test(key))
        this.addSecret(value, key === 'access_token' ? 'access-token' : 'secret');
    }
  }
}

/**
 * Every string in `value` (a report, recursively) redacted, keys included: the last pass before a
 * report is written, with every secret any thread of the run learned.
 */
export function redactStrings<T>(value: T, r: Redactor = redactor): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return r.redact(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [r.redact(k), walk(x)]));
    return v;
  };
  return walk(value) as T;
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
    // An empty value is no secret, and it is evidence (an empty access_token breaks TOKEN-ACCESS-TOKEN).
    return sensitiveKey && text.charAt(before) === ':' && token !== '""' ? '"[REDACTED]"' : token;
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
