import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onLoopback } from './loopback.js';

/**
 * An HTTP front on loopback before an upstream server: each request is first offered to
 * `intercept`, which may answer it itself (and return true); the rest are passed on as they are,
 * bodies decoded. For tests that need a target to misbehave in one precise way.
 */
export interface Front {
  /** 'http://127.0.0.1:port': the base URL to give the harness instead of the upstream's. */
  readonly url: string;
  close(): Promise<void>;
}

export async function startFront(
  upstream: string,
  intercept: (req: IncomingMessage, res: ServerResponse) => boolean,
): Promise<Front> {
  const server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      if (intercept(req, res)) return;
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (
          value === undefined ||
          ['host', 'connection', 'content-length', 'accept-encoding', 'transfer-encoding'].includes(name)
        )
          continue;
        for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
      }
      const answer = await fetch(`${upstream}${req.url ?? '/'}`, {
        method: req.method ?? 'GET',
        headers,
        ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
        redirect: 'manual',
      });
      const out: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive'].includes(name))
          out[name] = value;
      });
      res.writeHead(answer.status, out);
      res.end(Buffer.from(await answer.arrayBuffer()));
    })().catch(() => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
  });
  await onLoopback(server);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
