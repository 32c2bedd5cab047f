import { FILE_LIMITS, regularFileChunks, type FileLimit } from '../core/files.js';
import type { Redactor } from '../core/redact.js';
import { z } from '../core/zod.js';
import { capturedOf, jsonDepth, learnExchange, type CapturedExchange, type RawExchange } from './capture.js';

/**
 * Captures of one exchange per line (issue 43), streamed: a day of a gateway's traffic is judged a
 * line at a time, in bounded memory, and stopped between chunks by --deadline or a signal. Three
 * kinds, told apart by their first record (docs/traffic.md, Captures):
 * - `ndjson`: this harness's record, `{"startedAt", "request": {method, url, headers, body},
 *   "response": {status, headers, body}}`, headers as an object (a value or a list of values per
 *   name) or a list of [name, value] pairs;
 * - `nginx`: the same record written by nginx's `log_format … escape=json` (docs/traffic.md gives
 *   it), marked `"source": "nginx"`: nginx writes a header the request did not carry as "", so an
 *   empty value is an absent header;
 * - `kong`: Kong's file-log and http-log records (`started_at`, `request.url`, `response.status`),
 *   which hold headers and no bodies.
 * Each line is its own untrusted input: bounded in length and nesting before it is parsed, its
 * shape checked, its secrets learnt and redacted before anything else sees it. A line that is no
 * record is counted and named, never judged.
 */

export type LineFormat = 'ndjson' | 'nginx' | 'kong';

/** The longest line read: a record with a whole body; a longer one is counted as unreadable. */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;
const MAX_DEPTH = 64;

const headerValues = z.union([
  z.record(z.string(), z.union([z.string(), z.array(z.string()), z.number()])),
  z.array(z.tuple([z.string(), z.string()])),
]);
/** A field a writer left `null` is a field it did not fill: absent, as if omitted. */
const orNull = <T extends z.ZodType>(schema: T) => schema.nullish().transform((v) => v ?? undefined);

const recordSchema = z.object({
  startedAt: orNull(z.union([z.string(), z.number()])),
  durationMs: orNull(z.number()),
  source: z.string().optional(),
  /** nginx's `$nginx_version`: before 1.23 it logs only the first line of a repeated field. */
  nginx: z.string().optional(),
  request: z.object({
    method: z.string(),
    url: z.string(),
    headers: orNull(headerValues),
    body: orNull(z.string()),
  }),
  response: orNull(
    z.object({
      status: z.number().int(),
      headers: orNull(headerValues),
      body: orNull(z.string()),
      bodyTruncated: orNull(z.boolean()),
    }),
  ),
});
const kongSchema = z.object({
  started_at: z.number(),
  latencies: z.object({ request: z.number().optional() }).optional(),
  request: z.object({ method: z.string(), url: z.string(), headers: headerValues.default({}) }),
  response: z.object({ status: z.number().int(), headers: headerValues.default({}) }).optional(),
});

/** The pairs of a headers object or list; `emptyIsAbsent`: nginx's "" for a header not sent. */
function pairs(headers: z.infer<typeof headerValues> | undefined, emptyIsAbsent: boolean): [string, string][] {
  const out: [string, string][] = [];
  if (headers === undefined) return out;
  if (Array.isArray(headers)) out.push(...headers.map(([n, v]): [string, string] => [n, v]));
  else
    for (const [name, value] of Object.entries(headers))
      for (const one of Array.isArray(value) ? value : [value]) out.push([name, String(one)]);
  return emptyIsAbsent ? out.filter(([, v]) => v !== '') : out;
}

/**
 * The fields a record's headers say anything about: nginx's record names the ones it logs (and
 * writes "" for those a message did not carry), so the others are unknown; a record of this
 * harness's or Kong's holds every field, or (without `headers`) none.
 */
function fieldsOf(headers: z.infer<typeof headerValues> | undefined, named: boolean): string[] | undefined {
  // A record without headers says nothing of them: none is known absent.
  if (headers === undefined) return [];
  if (!named) return undefined;
  return (Array.isArray(headers) ? headers.map(([n]) => n) : Object.keys(headers)).map((n) => n.toLowerCase());
}

/**
 * Fields whose value a rule reads as a list (a challenge, a directive, a link) and that a server
 * may send on several lines: nginx before 1.23 logs only the first line, so from its log they are
 * not recorded (a Bearer challenge on a second line would look absent).
 */
const REPEATED = new Set(['link', 'www-authenticate', 'cache-control', 'pragma']);

/** Whether the nginx that wrote a record logs every line of a repeated field: 1.23 and later. */
function joinsRepeatedFields(version: string | undefined): boolean {
  const match = /^(\d+)\.(\d+)/.exec(version ?? '');
  if (!match) return false;
  const [major, minor] = [Number(match[1]), Number(match[2])];
  return major > 1 || (major === 1 && minor >= 23);
}

const isoTime = (value: string | number | undefined): string | undefined =>
  typeof value === 'number' ? new Date(value < 1e11 ? value * 1000 : value).toISOString() : value;

/** `request.body: expected string, received number`: the first issue, where it is. */
function issueOf(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid';
  return issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message;
}

/** The record of one line in the given format, or why it is none. */
export function rawOfLine(value: unknown, format: LineFormat): RawExchange | string {
  if (format === 'kong') {
    const parsed = kongSchema.safeParse(value);
    if (!parsed.success) return `not a Kong log record (${issueOf(parsed.error)})`;
    const { request, response } = parsed.data;
    return {
      startedAt: isoTime(parsed.data.started_at),
      durationMs: parsed.data.latencies?.request,
      method: request.method,
      url: request.url,
      requestHeaders: pairs(request.headers, false),
      response: response && { status: response.status, headers: pairs(response.headers, false) },
    };
  }
  const parsed = recordSchema.safeParse(value);
  if (!parsed.success) return `not an exchange record (${issueOf(parsed.error)})`;
  const { request, response } = parsed.data;
  const emptyIsAbsent = format === 'nginx';
  const partial = emptyIsAbsent && !joinsRepeatedFields(parsed.data.nginx);
  return {
    startedAt: isoTime(parsed.data.startedAt),
    durationMs: parsed.data.durationMs,
    method: request.method,
    url: request.url,
    requestHeaders: pairs(request.headers, emptyIsAbsent),
    requestFields: fieldsOf(request.headers, emptyIsAbsent),
    requestBody: request.body === '' && emptyIsAbsent ? undefined : request.body,
    response: response && {
      status: response.status,
      headers: pairs(response.headers, emptyIsAbsent).filter(([n]) => !(partial && REPEATED.has(n.toLowerCase()))),
      fields: fieldsOf(response.headers, emptyIsAbsent)?.filter((n) => !(partial && REPEATED.has(n))),
      body: response.body === '' && emptyIsAbsent ? undefined : response.body,
      bodyTruncated: response.bodyTruncated,
    },
  };
}

/** The format a first record is in, or undefined when it is in none. */
export function formatOfRecord(value: unknown): LineFormat | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const record = value as Record<string, unknown>;
  if ('started_at' in record && kongSchema.safeParse(value).success) return 'kong';
  if (!recordSchema.safeParse(value).success) return undefined;
  return record.source === 'nginx' ? 'nginx' : 'ndjson';
}

/** Lines that were no record: how many, and the first few, named. */
export interface Unreadable {
  count: number;
  first: string[];
}

/** Parses one line within the bounds, or says why it is no JSON value. */
export function parseLine(text: string): { value: unknown } | { problem: string } {
  const depth = jsonDepth(text);
  if (depth > MAX_DEPTH) return { problem: `nested ${depth} deep` };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (err) {
    return { problem: `not JSON (${(err as Error).message})` };
  }
}

/**
 * Every exchange of an NDJSON capture, a line at a time, its secrets learnt by `redactor` before
 * it is handed out unredacted: the judge keeps nothing of it but redacted evidence, redacted at
 * the end with every secret of the whole capture (src/traffic/judge.ts). `format`: the kind, or
 * undefined to take it from the first record.
 */
export async function* readLines(
  path: string,
  redactor: Redactor,
  format: LineFormat | undefined,
  unreadable: Unreadable,
  limit: FileLimit = FILE_LIMITS.log,
  onChunk?: (bytes: Buffer) => void,
): AsyncGenerator<CapturedExchange> {
  let kind = format;
  let index = 0;
  let lineNumber = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let tooLong = false;
  const note = (why: string): void => {
    unreadable.count += 1;
    if (unreadable.first.length < 3) unreadable.first.push(`line ${lineNumber}: ${why}`);
  };
  function* take(line: Buffer): Generator<CapturedExchange> {
    lineNumber += 1;
    const text = line.toString('utf8').replace(/\r$/, '');
    if (text.trim() === '') return;
    const parsed = parseLine(text);
    if ('problem' in parsed) return note(parsed.problem);
    const { value } = parsed;
    kind ??= formatOfRecord(value);
    if (kind === undefined) return note('not an exchange record (docs/traffic.md, Captures)');
    const raw = rawOfLine(value, kind);
    if (typeof raw === 'string') return note(raw);
    learnExchange(raw, redactor);
    // As captured: the judge redacts what it keeps, once every secret of the capture is learnt.
    yield { ...capturedOf(raw, index, lineNumber), file: path };
    index += 1;
  }
  for await (const chunk of regularFileChunks(path, 'capture', limit)) {
    onChunk?.(chunk);
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline < 0 ? chunk.length : newline;
      if (!tooLong) {
        pendingBytes += end - start;
        if (pendingBytes > MAX_LINE_BYTES) {
          tooLong = true;
          pending = [];
        } else pending.push(chunk.subarray(start, end));
      }
      if (newline < 0) break;
      if (tooLong) {
        lineNumber += 1;
        note(`longer than ${MAX_LINE_BYTES} bytes`);
      } else yield* take(Buffer.concat(pending));
      pending = [];
      pendingBytes = 0;
      tooLong = false;
      start = newline + 1;
    }
  }
  if (tooLong) {
    lineNumber += 1;
    note(`longer than ${MAX_LINE_BYTES} bytes`);
  } else if (pendingBytes > 0) yield* take(Buffer.concat(pending));
}
