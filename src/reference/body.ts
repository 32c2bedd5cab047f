/** Reading a request body with a size limit. */
import type { IncomingMessage } from 'node:http';

/** The whole body, or null when it exceeds `limit` bytes (the rest is then left unread). */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    length += buf.length;
    if (length > limit) return null;
    chunks.push(buf);
  }
  return Buffer.concat(chunks, length);
}

/** The media type essence (RFC 9110 §8.3.1): type/subtype lower-cased, parameters dropped. */
export function mediaTypeEssence(contentType: string | undefined): string {
  return (contentType ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';
}
