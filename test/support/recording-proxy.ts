import { createServer, type IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { forward, serveOnLoopback } from './hostile.js';

/**
 * A loopback front that forwards every request to `upstream` and keeps it as it arrived: method,
 * target, header fields (names lower-cased, as Node gives them) and body. A test compares what a
 * client sent byte for byte, the Authorization header included, with what another client sent.
 */

export interface SeenRequest {
  method: string;
  /** The request target: path and query. */
  target: string;
  headers: Record<string, string>;
  body: string;
}

export interface RecordingProxy {
  url: string;
  seen: SeenRequest[];
  close(): Promise<void>;
}

export async function startRecordingProxy(upstream: string): Promise<RecordingProxy> {
  const seen: SeenRequest[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers))
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      seen.push({ method: req.method ?? '', target: req.url ?? '/', headers, body: body.toString('utf8') });
      // forward() reads the body from the request it is given: hand it the one already read.
      const replay = Object.assign(Readable.from(body.length > 0 ? [body] : []), {
        headers: req.headers,
        url: req.url,
        method: req.method,
      }) as unknown as IncomingMessage;
      await forward(upstream, replay, res);
    })().catch(() => res.destroy());
  });
  return { ...(await serveOnLoopback(server)), seen };
}
