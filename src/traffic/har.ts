import { FILE_LIMITS, readRegularFile, type FileLimit } from '../core/files.js';
import { UsageError } from '../core/errors.js';
import { redactor as sharedRedactor, type Redactor } from '../core/redact.js';
import { z } from '../core/zod.js';
import { capturedOf, jsonDepth, learnExchange, type CapturedExchange, type RawExchange } from './capture.js';

export type { CapturedExchange } from './capture.js';

/**
 * A HAR 1.2 capture read as untrusted input (issue 43). A capture is written by others: it is read
 * whole within a size limit, its nesting is bounded before it is parsed, its shape is checked, and
 * every secret of the captured clients (Authorization, cookies, tokens a token endpoint issued,
 * client credentials in a form body or a URL) is learnt from the whole of it before any exchange
 * is handed out. The exchanges are handed out as captured, for the rules to judge; what is kept of
 * them is redacted with everything learnt (`redactCaptured`, src/traffic/judge.ts).
 */

/** A HAR is JSON: nesting beyond this is no capture (HAR's own is 6 deep, a JSON body's is text). */
const MAX_DEPTH = 64;

const header = z.object({ name: z.string(), value: z.string() });
const contentSchema = z.object({
  text: z.string().optional(),
  encoding: z.string().optional(),
  size: z.number().optional(),
  _bodyTruncated: z.boolean().optional(),
});
type Content = z.infer<typeof contentSchema>;
const entrySchema = z.object({
  startedDateTime: z.string().optional(),
  time: z.number().optional(),
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
      content: contentSchema.optional(),
    })
    .optional(),
});
const harSchema = z.object({ log: z.object({ entries: z.array(z.unknown()) }) });

/** Reads `path` as a HAR 1.2 capture: every exchange, its secrets learnt by `redactor`; a file that is none is one line (exit 2). */
export function readHar(
  path: string,
  redactor: Redactor = sharedRedactor,
  limit: FileLimit = FILE_LIMITS.capture,
  onBytes?: (bytes: Buffer) => void,
): CapturedExchange[] {
  const bytes = readRegularFile(path, 'capture', limit);
  onBytes?.(bytes);
  const text = bytes.toString('utf8');
  const depth = jsonDepth(text);
  if (depth > MAX_DEPTH) throw new UsageError(`capture ${path}: nested ${depth} deep, more than a HAR can be`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`capture ${path}: not JSON (${(err as Error).message}), which a HAR 1.2 file is`);
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
  const raws = entries.map(rawOf);
  for (const raw of raws) learnExchange(raw, redactor);
  return raws.map((raw, index) => ({
    ...capturedOf(raw, index),
    file: path,
  }));
}

type Entry = z.infer<typeof entrySchema>;

function rawOf(entry: Entry): RawExchange {
  const response = entry.response;
  return {
    startedAt: entry.startedDateTime,
    durationMs: entry.time,
    method: entry.request.method,
    url: entry.request.url,
    requestHeaders: entry.request.headers.map(({ name, value }) => [name, value]),
    requestBody: entry.request.postData?.text,
    response: response && {
      status: response.status,
      headers: response.headers.map(({ name, value }) => [name, value]),
      body: bodyText(response.content),
      bodyTruncated: cut(response.content),
    },
  };
}

/**
 * Whether the capture cut the body: this harness's own HAR says so (`_bodyTruncated`); any HAR
 * says so when its `size`, the decoded body's length in bytes (HAR 1.2 §content), exceeds the text.
 */
function cut(content: Content | undefined): boolean {
  if (content === undefined) return false;
  if (content._bodyTruncated === true) return true;
  const text = bodyBytes(content);
  return text !== undefined && content.size !== undefined && content.size > text;
}

function bodyBytes(content: Content): number | undefined {
  if (content.text === undefined) return undefined;
  return content.encoding === 'base64' ? Buffer.from(content.text, 'base64').length : Buffer.byteLength(content.text);
}

function bodyText(content: Content | undefined): string | undefined {
  if (content?.text === undefined) return undefined;
  return content.encoding === 'base64' ? Buffer.from(content.text, 'base64').toString('utf8') : content.text;
}
