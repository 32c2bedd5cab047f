import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Server as HttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { request } from 'undici';
import { onLoopback, closeServer } from './loopback.js';

/**
 * A hostile front for tests: a loopback server that forwards every request to a reference server,
 * except those whose path matches, which get a transport-level misbehaviour instead. It also
 * counts what it saw, so tests can assert that nothing (credentials above all) went astray.
 */

export type Misbehaviour =
  /** Accepts the request and never answers. */
  | 'silent'
  /** Sends the response one byte a second. */
  | 'drip'
  /** Answers 200 with a JSON body of `hugeBytes` (default 300 MB), streamed. */
  | 'huge'
  /** Answers 200 application/json with a body cut in the middle of a value. */
  | 'invalid-json'
  /** Announces a longer body (Content-Length) than it sends, then closes. */
  | 'truncated'
  /** Resets the connection (TCP RST) as soon as the request arrives. */
  | 'reset'
  /** Forwards, but drops the Content-Type of the answer. */
  | 'no-content-type'
  /** Answers 302 to the same path on this origin. */
  | 'redirect-same'
  /** Answers 302 to `redirectTo` (another origin). */
  | 'redirect-cross'
  /** Answers 429 with Retry-After: 1 the first `times` times, then forwards. */
  | 'rate-limit'
  /** Forwards, with the answer's header fields and body changed by `rewrite`. */
  | 'rewrite'
  /** Answers 500 with a JSON error body: a backend that crashes on the path. */
  | 'server-error';

export interface HostileOptions {
  upstream: string;
  misbehaviour: Misbehaviour;
  /** Which requests misbehave, by path (before any rewrite). */
  match: (path: string) => boolean;
  hugeBytes?: number;
  redirectTo?: string;
  /** For rate-limit: how many times a matching request is refused before it is forwarded. */
  times?: number;
  /** For rewrite: the answer's new body, from its body; it may change the header fields in place. */
  rewrite?: (body: string, headers: ForwardedHeaders) => string;
}

export interface Hostile {
  url: string;
  /** Requests that matched and misbehaved. */
  misbehaved: number;
  close(): Promise<void>;
}

/** The answer's header fields as they go back to the client, for a front to change. */
export type ForwardedHeaders = Record<string, string | string[]>;

/**
 * Forwards a request to `upstream` and its answer back (hop-by-hop headers dropped); `edit`
 * changes the answer's header fields on the way (a gateway's rewrite, an echo, a dropped field).
 */
export async function forward(
  upstream: string,
  req: IncomingMessage,
  res: ServerResponse,
  edit?: (headers: ForwardedHeaders) => void,
  editBody?: (body: string, headers: ForwardedHeaders) => string,
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers))
    if (value !== undefined && name !== 'host' && name !== 'connection')
      headers[name] = Array.isArray(value) ? value.join(', ') : value;
  const answer = await request(`${upstream}${req.url ?? '/'}`, {
    method: req.method as 'GET',
    headers,
    body: chunks.length ? Buffer.concat(chunks) : null,
  });
  let body = Buffer.from(await answer.body.arrayBuffer());
  const out: ForwardedHeaders = {};
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value === undefined || ['connection', 'keep-alive', 'transfer-encoding', 'content-length'].includes(name))
      continue;
    out[name] = value;
  }
  edit?.(out);
  if (editBody) body = Buffer.from(editBody(body.toString('utf8'), out), 'utf8');
  res.writeHead(answer.statusCode, out);
  res.end(body);
}

function misbehave(
  options: HostileOptions,
  req: IncomingMessage,
  res: ServerResponse,
  state: { refused: Map<string, number> },
  sockets: Set<Socket>,
): void {
  const socket = res.socket;
  switch (options.misbehaviour) {
    case 'silent':
      return; // the socket stays open; close() destroys it
    case 'drip': {
      const text = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}';
      let i = 0;
      const timer = setInterval(() => {
        if (!socket || socket.destroyed || i >= text.length) return clearInterval(timer);
        socket.write(text.charAt(i));
        i += 1;
      }, 1000);
      socket?.once('close', () => clearInterval(timer));
      return;
    }
    case 'huge': {
      const total = options.hugeBytes ?? 300 * 1024 * 1024;
      const chunk = Buffer.alloc(64 * 1024, 'a');
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(total + 2) });
      res.write('"');
      let sent = 0;
      const pump = (): void => {
        while (sent < total && !res.destroyed) {
          const piece = total - sent >= chunk.length ? chunk : chunk.subarray(0, total - sent);
          sent += piece.length;
          if (!res.write(piece)) return void res.once('drain', pump);
        }
        if (!res.destroyed) res.end('"');
      };
      pump();
      return;
    }
    case 'invalid-json':
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end('{"id": "a3e1c9d2-5b7f-4e08-9c6a-2d4f8b1e7a30", "name": "Ada Ref');
    case 'truncated':
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      // Closed once the partial body is on its way: on a busy machine a timer could let the
      // client's --timeout strike first, which is another finding.
      return void res.write('{"id": "a3e1c9d2', () => socket?.destroy());
    case 'reset':
      if (socket) sockets.delete(socket);
      return void socket?.resetAndDestroy();
    case 'no-content-type':
      return void forward(options.upstream, req, res, (headers) => delete headers['content-type']).catch(() =>
        res.destroy(),
      );
    case 'redirect-same':
      res.writeHead(302, {
        location: `${req.url ?? '/'}${(req.url ?? '').includes('?') ? '&' : '?'}moved=1`,
        'content-length': '0',
      });
      return void res.end();
    case 'redirect-cross':
      res.writeHead(302, {
        location: `${options.redirectTo ?? 'http://127.0.0.1:9'}${req.url ?? '/'}`,
        'content-length': '0',
      });
      return void res.end();
    case 'rate-limit': {
      const key = `${req.method ?? ''} ${req.url ?? ''}`;
      const refused = state.refused.get(key) ?? 0;
      if (refused < (options.times ?? 1)) {
        state.refused.set(key, refused + 1);
        res.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' });
        return void res.end('{"error":"rate_limited"}');
      }
      return void forward(options.upstream, req, res).catch(() => res.destroy());
    }
    case 'rewrite':
      return void forward(options.upstream, req, res, undefined, options.rewrite).catch(() => res.destroy());
    case 'server-error':
      res.writeHead(500, { 'content-type': 'application/json' });
      return void res.end('{"error":"server_error"}');
  }
}

export async function startHostile(options: HostileOptions): Promise<Hostile> {
  const sockets = new Set<Socket>();
  const state = { refused: new Map<string, number>() };
  const hostile: Hostile = { url: '', misbehaved: 0, close: () => Promise.resolve() };
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (options.match(path)) {
      hostile.misbehaved += 1;
      misbehave(options, req, res, state, sockets);
    } else {
      forward(options.upstream, req, res).catch(() => res.destroy());
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await onLoopback(server);
  hostile.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  hostile.close = async () => {
    for (const socket of sockets) socket.destroy();
    await closeServer(server);
  };
  return hostile;
}

/**
 * Listens on a free loopback port: the URL to reach `server` at (with `path` appended), and a
 * close that drops every connection, keep-alive ones included, and waits for the listener to end.
 */
export async function serveOnLoopback(
  server: Server | HttpsServer,
  path = '',
): Promise<{ url: string; close(): Promise<void> }> {
  await onLoopback(server);
  return {
    url: `${server instanceof HttpsServer ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    close: () => {
      server.closeAllConnections();
      return closeServer(server);
    },
  };
}

/** A loopback server that records every request it gets (e.g. the other origin of a redirect). */
export async function startRecorder(): Promise<{
  url: string;
  requests: { url: string; authorization?: string }[];
  close(): Promise<void>;
}> {
  const requests: { url: string; authorization?: string }[] = [];
  const server = createServer((req, res) => {
    requests.push({
      url: req.url ?? '/',
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
    });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  return { ...(await serveOnLoopback(server)), requests };
}
