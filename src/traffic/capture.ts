import { formUrlDecode } from '../core/basic-credentials.js';
import type { Redactor } from '../core/redact.js';

/**
 * One exchange of a capture (issue 43), whatever kind of file it came from (HAR, NDJSON, a
 * gateway's JSON log), and what every reader and the judge do with it: learn the captured clients'
 * secrets from it, hand it out as captured for the rules, and redact what is kept of it. A capture
 * is written by others: nothing of it reaches a report but what `redactCaptured` returns.
 */

/** An exchange as a capture holds it, secrets and all: never kept, never shown. */
export interface RawExchange {
  startedAt?: string | undefined;
  /** From the request's start to the answer's end, as the capture says (HAR `time`), ms. */
  durationMs?: number | undefined;
  method: string;
  url: string;
  requestHeaders: [string, string][];
  /**
   * The request fields the capture records, lower-cased, when it records only some (a gateway's
   * log names the ones it logs): a field it does not record is unknown, never absent. Undefined:
   * every field the request carried is there.
   */
  requestFields?: readonly string[] | undefined;
  requestBody?: string | undefined;
  /** Absent when the capture holds no answer (an aborted request). */
  response?:
    | {
        status: number;
        headers: [string, string][];
        /** As `requestFields`, for the response. */
        fields?: readonly string[] | undefined;
        body?: string | undefined;
        bodyTruncated?: boolean | undefined;
      }
    | undefined;
}

/** One exchange of a capture, redacted: what the passive checks judge. */
export interface CapturedExchange {
  /** Its place in the capture, from 0: findings cite it. */
  index: number;
  /** The capture file it was read from. */
  file?: string;
  /** The line of the file it was read from (NDJSON and logs: one exchange per line). */
  line?: number;
  /** When it started, as the capture says (ISO 8601), if it says. */
  startedAt?: string;
  /** How long it took, as the capture says, ms. */
  durationMs?: number;
  method: string;
  /** The URL, credentials in it removed. */
  url: string;
  request: { headers: [string, string][]; fields?: readonly string[]; body?: string };
  /** Absent when the capture holds no answer (an aborted request). */
  response?: {
    status: number;
    headers: [string, string][];
    /** The fields the capture records, when only some (see RawExchange): the others are unknown. */
    fields?: readonly string[];
    body?: string;
    /** The capture cut the body (a recording limit): no rule reads it as JSON. */
    bodyTruncated?: boolean;
  };
}

/** A message's field lines by lower-cased name, each line kept apart (RFC 9110 §5.3), as HttpResponse holds them. */
export function fieldLines(pairs: readonly [string, string][]): Record<string, string[]> {
  const lines: Record<string, string[]> = {};
  for (const [name, value] of pairs) (lines[name.toLowerCase()] ??= []).push(value);
  return lines;
}

/** A query parameter whose value is a credential (`?access_token=`, RFC 6750 §2.3; `api_key`, `password`). */
const SECRET_PARAMETER = /token|secret|password|key|auth|session|sig/i;

/** Learns every secret `raw` holds: its credentials, cookies, tokens a token endpoint issued in it. */
export function learnExchange(raw: RawExchange, redactor: Redactor): void {
  for (const [name, value] of raw.requestHeaders) {
    const lower = name.toLowerCase();
    if (lower === 'authorization' || lower === 'proxy-authorization') learnCredentials(value, redactor);
    if (lower === 'cookie')
      for (const pair of value.split(';')) redactor.addSecret(pair.slice(pair.indexOf('=') + 1).trim(), 'cookie');
  }
  try {
    const url = new URL(raw.url);
    if (url.password !== '') redactor.addSecret(decodeURIComponent(url.password), 'secret');
    for (const [key, value] of url.searchParams) if (SECRET_PARAMETER.test(key)) redactor.addSecret(value, 'secret');
  } catch {
    // Not a URL: redacted as text.
  }
  const form = raw.requestBody;
  if (form !== undefined && /(^|&)(client_secret|assertion|password|refresh_token|code)=/.test(form)) {
    const params = new URLSearchParams(form);
    const id = params.get('client_id');
    const secret = params.get('client_secret');
    if (secret !== null) {
      if (id !== null) redactor.addClientCredentials(id, secret);
      else redactor.addSecret(secret, 'client-secret');
    }
    for (const key of ['assertion', 'password', 'refresh_token', 'code'])
      redactor.addSecret(params.get(key) ?? undefined, 'secret');
  }
  const response = raw.response;
  if (response) {
    redactor.learnFromResponseHeaders(fieldLines(response.headers));
    if (response.body !== undefined) redactor.learnFromResponseBody(response.body);
  }
}

/** The HTTP authentication schemes of IANA's registry (RFC 9110 §11.1): names, not secrets. */
const AUTH_SCHEME =
  /^(basic|bearer|digest|dpop|gnap|hoba|mutual|negotiate|ntlm|oauth|privatetoken|scram-sha-1|scram-sha-256|vapid|concealed|token)$/i;
/** What a capture already redacted (this harness's own HAR): a marker, not a secret. */
const MARKER = /^\[REDACTED[^\]]*\]$/;

/** `Basic <b64>`: the client credentials it decodes to; `Bearer <token>`: the token. */
function learnCredentials(value: string, redactor: Redactor): void {
  const match = /^(\S+)\s+(.+)$/s.exec(value.trim());
  // A scheme alone (`Bearer`: a malformed credential) holds no secret; anything else alone may be one.
  if (!match) return AUTH_SCHEME.test(value.trim()) ? undefined : redactor.addSecret(value.trim(), 'secret');
  const [, scheme = '', credentials = ''] = match;
  if (MARKER.test(credentials.trim())) return;
  if (/^basic$/i.test(scheme)) {
    const decoded = Buffer.from(credentials, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0) {
      // Form-decoded as RFC 6749 §2.3.1 has them encoded; a client that did not encode them sent them as they are.
      const decode = (s: string): string => formUrlDecode(s) ?? s;
      redactor.addClientCredentials(decode(decoded.slice(0, colon)), decode(decoded.slice(colon + 1)));
    }
    redactor.addSecret(credentials, 'basic-credentials');
  } else redactor.addSecret(credentials, /^bearer$/i.test(scheme) ? 'access-token' : 'secret');
}

function withoutUserinfo(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.username === '' && parsed.password === '') return url;
    parsed.username = '';
    parsed.password = '';
    return parsed.href;
  } catch {
    return url;
  }
}

/** `raw` as the rules read it, numbered: secrets and all, never kept past the judging of it. */
export function capturedOf(raw: RawExchange, index: number, line?: number): CapturedExchange {
  const response = raw.response;
  return {
    index,
    ...(line !== undefined ? { line } : {}),
    ...(raw.startedAt !== undefined ? { startedAt: raw.startedAt } : {}),
    ...(raw.durationMs !== undefined && raw.durationMs >= 0 ? { durationMs: raw.durationMs } : {}),
    method: raw.method,
    url: raw.url,
    request: {
      headers: raw.requestHeaders,
      ...(raw.requestFields !== undefined ? { fields: raw.requestFields } : {}),
      ...(raw.requestBody !== undefined ? { body: raw.requestBody } : {}),
    },
    ...(response
      ? {
          response: {
            status: response.status,
            headers: response.headers,
            ...(response.fields !== undefined ? { fields: response.fields } : {}),
            ...(response.body !== undefined ? { body: response.body } : {}),
            ...(response.bodyTruncated === true ? { bodyTruncated: true } : {}),
          },
        }
      : {}),
  };
}

/**
 * `exchange` with every secret the redactor knows removed from every field: what a report may
 * hold of it. The rules judge an exchange as captured (a redaction must not change a verdict: a
 * numeric token redacted out of a JSON body would make it no JSON); what is kept is redacted.
 */
export function redactCaptured(exchange: CapturedExchange, redactor: Redactor): CapturedExchange {
  const headers = (list: readonly [string, string][]): [string, string][] =>
    list.map(([name, value]) => [redactor.redact(name), redactor.redactHeader(name, value)]);
  const { request, response } = exchange;
  return {
    ...exchange,
    ...(exchange.startedAt !== undefined ? { startedAt: redactor.redact(exchange.startedAt) } : {}),
    method: redactor.redact(exchange.method),
    url: redactor.redact(withoutUserinfo(exchange.url)),
    ...(exchange.file !== undefined ? { file: exchange.file } : {}),
    request: {
      ...request,
      headers: headers(request.headers),
      ...(request.body !== undefined ? { body: redactor.redactBody(request.body) } : {}),
    },
    ...(response
      ? {
          response: {
            ...response,
            headers: headers(response.headers),
            ...(response.body !== undefined ? { body: redactor.redactBody(response.body) } : {}),
          },
        }
      : {}),
  };
}

/** The deepest nesting of `[` and `{` outside strings: checked before JSON.parse, which recurses. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i += 1;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x5d || c === 0x7d) depth -= 1;
  }
  return deepest;
}
