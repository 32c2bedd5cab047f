import { formUrlDecode } from '../core/basic-credentials.js';
import { FILE_LIMITS, readRegularFile, type FileLimit } from '../core/files.js';
import { UsageError } from '../core/errors.js';
import { redactor as sharedRedactor, type Redactor } from '../core/redact.js';
import { z } from '../core/zod.js';

/**
 * Issue 43, first part (work in progress, not wired to a command yet): a HAR 1.2 capture read as
 * untrusted input, redacted as it is read. A capture is written by others: it is read whole within
 * a size limit, its nesting is bounded before it is parsed, its shape is checked, and every secret
 * of the captured clients (Authorization, cookies, tokens a token endpoint issued, client
 * credentials in a form body or a URL) is learnt first, then removed from every field, so that no
 * report made from it can hold one.
 */

/** One exchange of a capture, redacted: what the passive checks judge. */
export interface CapturedExchange {
  /** Its place in the capture, from 0: findings cite it. */
  index: number;
  /** When it started, as the capture says (ISO 8601), if it says. */
  startedAt?: string;
  method: string;
  /** The URL, credentials in it removed. */
  url: string;
  request: { headers: [string, string][]; body?: string };
  /** Absent when the capture holds no answer (an aborted request). */
  response?: { status: number; headers: [string, string][]; body?: string };
}

/** A HAR is JSON: nesting beyond this is no capture (HAR's own is 6 deep, a JSON body's is text). */
const MAX_DEPTH = 64;

const header = z.object({ name: z.string(), value: z.string() });
const entrySchema = z.object({
  startedDateTime: z.string().optional(),
  request: z.object({
    method: z.string(),
    url: z.string(),
    headers: z.array(header).default([]),
    postData: z.object({ text: z.string().optional() }).optional(),
  }),
  response: z
    .object({
      status: z.number().int(),
      headers: z.array(header).default([]),
      content: z.object({ text: z.string().optional(), encoding: z.string().optional() }).optional(),
    })
    .optional(),
});
const harSchema = z.object({ log: z.object({ entries: z.array(z.unknown()) }) });

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

/** Reads `path` as a HAR 1.2 capture: every exchange, redacted; a file that is none is one line (exit 2). */
export function readHar(
  path: string,
  redactor: Redactor = sharedRedactor,
  limit: FileLimit = FILE_LIMITS.capture,
): CapturedExchange[] {
  const text = readRegularFile(path, 'capture', limit).toString('utf8');
  const depth = jsonDepth(text);
  if (depth > MAX_DEPTH) throw new UsageError(`capture ${path}: nested ${depth} deep, more than a HAR can be`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`capture ${path}: not JSON (${(err as Error).message}); a HAR 1.2 file is`);
  }
  const har = harSchema.safeParse(parsed);
  if (!har.success) throw new UsageError(`capture ${path}: not a HAR 1.2 file (no log.entries array)`);
  const entries = har.data.log.entries.map((raw, i) => {
    const entry = entrySchema.safeParse(raw);
    if (!entry.success)
      throw new UsageError(
        `capture ${path}: entry ${i + 1} is not a HAR entry (${entry.error.issues[0]?.message ?? 'invalid'})`,
      );
    return entry.data;
  });
  // First every secret the capture holds, then every field without them: a token issued late in
  // the capture may have been echoed earlier (a log line, a Link), and must go there too.
  for (const entry of entries) learn(entry, redactor);
  return entries.map((entry, index) => redacted(entry, index, redactor));
}

type Entry = z.infer<typeof entrySchema>;

function learn(entry: Entry, redactor: Redactor): void {
  for (const { name, value } of entry.request.headers) {
    const lower = name.toLowerCase();
    if (lower === 'authorization' || lower === 'proxy-authorization') learnCredentials(value, redactor);
    if (lower === 'cookie')
      for (const pair of value.split(';')) redactor.addSecret(pair.slice(pair.indexOf('=') + 1).trim(), 'cookie');
  }
  try {
    const url = new URL(entry.request.url);
    if (url.password !== '') redactor.addSecret(decodeURIComponent(url.password), 'secret');
    for (const [key, value] of url.searchParams)
      if (/token|secret|password|key/i.test(key)) redactor.addSecret(value, 'secret');
  } catch {
    // Not a URL: redacted as text below.
  }
  const form = entry.request.postData?.text;
  if (form !== undefined && /(^|&)client_secret=/.test(form)) {
    const params = new URLSearchParams(form);
    const id = params.get('client_id');
    const secret = params.get('client_secret');
    if (secret !== null) {
      if (id !== null) redactor.addClientCredentials(id, secret);
      else redactor.addSecret(secret, 'client-secret');
    }
  }
  const response = entry.response;
  if (response) {
    const headers: Record<string, string[]> = {};
    for (const { name, value } of response.headers) (headers[name.toLowerCase()] ??= []).push(value);
    redactor.learnFromResponseHeaders(headers);
    const body = bodyText(response.content);
    if (body !== undefined) redactor.learnFromResponseBody(body);
  }
}

/** `Basic <b64>`: the client credentials it decodes to; `Bearer <token>`: the token. */
function learnCredentials(value: string, redactor: Redactor): void {
  const match = /^(\S+)\s+(.+)$/s.exec(value.trim());
  if (!match) return redactor.addSecret(value.trim(), 'secret');
  const [, scheme = '', credentials = ''] = match;
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

function bodyText(
  content: { text?: string | undefined; encoding?: string | undefined } | undefined,
): string | undefined {
  if (content?.text === undefined) return undefined;
  return content.encoding === 'base64' ? Buffer.from(content.text, 'base64').toString('utf8') : content.text;
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

function redacted(entry: Entry, index: number, redactor: Redactor): CapturedExchange {
  const headers = (list: readonly { name: string; value: string }[]): [string, string][] =>
    list.map(({ name, value }) => [redactor.redact(name), redactor.redactHeader(name, value)]);
  const requestBody = entry.request.postData?.text;
  const response = entry.response;
  const responseBody = response ? bodyText(response.content) : undefined;
  return {
    index,
    ...(entry.startedDateTime !== undefined ? { startedAt: redactor.redact(entry.startedDateTime) } : {}),
    method: redactor.redact(entry.request.method),
    url: redactor.redact(withoutUserinfo(entry.request.url)),
    request: {
      headers: headers(entry.request.headers),
      ...(requestBody !== undefined ? { body: redactor.redactBody(requestBody) } : {}),
    },
    ...(response
      ? {
          response: {
            status: response.status,
            headers: headers(response.headers),
            ...(responseBody !== undefined ? { body: redactor.redactBody(responseBody) } : {}),
          },
        }
      : {}),
  };
}
