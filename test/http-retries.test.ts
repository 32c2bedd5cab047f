// What the HTTP layer repeats, and what it never does: a request on a reused keep-alive connection
// that the server closed before answering (RFC 9112 §9.3.1), a request refused with the shared
// token (renewed once), and 429/503 answers (which end in an error, never in a verdict). Each
// server here is a raw node:net server on 127.0.0.1, so that the test decides exactly when a
// connection closes.
import { createServer as createNetServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SharedTokens, renewAt } from '../src/battery/token.js';
import type { HttpClient } from '../src/http/client.js';
import {
  Recorder,
  SharedTokenExpiredError,
  TransportError,
  UnavailableError,
  type HttpClientOptions,
} from '../src/http/client.js';
import { testClient } from './support/test-client.js';
import { onLoopback, closeServer } from './support/loopback.js';

/** What the raw server does with the n-th request (1-based) on a connection. */
type Behaviour = (request: { n: number; connection: number; head: string }, socket: Socket) => void;

interface RawServer {
  origin: string;
  /** Requests received, per connection in order of arrival. */
  requests: string[][];
  close(): Promise<void>;
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

function ok(socket: Socket, body = 'ok', headers = ''): void {
  socket.write(
    `HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${headers}\r\n${body}`,
  );
}

/** A minimal HTTP/1.1 server: reads request heads (no bodies larger than one read), lets `behaviour` answer. */
async function rawServer(behaviour: Behaviour): Promise<RawServer> {
  const requests: string[][] = [];
  const sockets = new Set<Socket>();
  const server: Server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    const connection = requests.push([]) - 1;
    let buffer = '';
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('latin1');
      for (let end = buffer.indexOf('\r\n\r\n'); end >= 0; end = buffer.indexOf('\r\n\r\n')) {
        const head = buffer.slice(0, end);
        const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffer.length < end + 4 + length) return;
        buffer = buffer.slice(end + 4 + length);
        const list = requests[connection] ?? [];
        list.push(head.split('\r\n')[0] ?? '');
        behaviour({ n: list.length, connection, head }, socket);
      }
    });
  });
  await onLoopback(server);
  const handle = {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => {
      for (const s of sockets) s.destroy();
      return closeServer(server);
    },
  };
  cleanup.push(handle.close);
  return handle;
}

function client(origin: string, options: Partial<HttpClientOptions> = {}): HttpClient {
  const c = testClient(origin, { timeoutMs: 2_000, maxBodyBytes: 100_000, recordBodyChars: 1_000, ...options });
  cleanup.push(() => c.close());
  return c;
}

/** Lets the client finish with a connection so that the next request reuses it (undici checks an idle socket before reuse). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 30));

const get = (http: HttpClient, origin: string, recorder?: Recorder, path = '/x') =>
  http.send({ method: 'GET', url: `${origin}${path}`, purpose: `GET ${path}` }, recorder);

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe('a reused keep-alive connection closed by the server', { timeout: 10_000 }, () => {
  it('is sent again when nothing of the response arrived, and the report says so', async () => {
    // The second request of every connection is met with a close, as a gateway whose idle
    // timeout fires just as the request arrives.
    const server = await rawServer(({ n }, socket) => (n === 1 ? ok(socket) : socket.end()));
    const http = client(server.origin);
    expect((await get(http, server.origin)).status).toBe(200);
    await settle();

    const recorder = new Recorder();
    const res = await get(http, server.origin, recorder);

    expect(res.status).toBe(200);
    expect(server.requests.map((r) => r.length)).toEqual([2, 1]);
    expect(recorder.exchanges.map((e) => e.error ?? e.response?.status)).toEqual([
      expect.stringMatching(/closed/),
      200,
    ]);
    expect(recorder.retries).toEqual([
      expect.stringMatching(
        /^GET \/x: the server closed the reused keep-alive connection before answering .*; sent again \(RFC 9112 §9\.3\.1\)$/,
      ),
    ]);
  });

  it('is sent again after a reset (RST) as well', async () => {
    const server = await rawServer(({ n }, socket) => (n === 1 ? ok(socket) : socket.resetAndDestroy()));
    const http = client(server.origin);
    await get(http, server.origin);
    await settle();
    expect((await get(http, server.origin)).status).toBe(200);
    expect(server.requests).toHaveLength(2);
  });

  it('is never sent again when the connection was fresh', async () => {
    const server = await rawServer((_r, socket) => socket.end());
    const recorder = new Recorder();
    const err = await failure(get(client(server.origin), server.origin, recorder));
    expect(err).toBeInstanceOf(TransportError);
    expect(server.requests.flat()).toHaveLength(1);
    expect(recorder.retries).toEqual([]);
  });

  it('is never sent again once bytes of the response arrived', async () => {
    const server = await rawServer(({ n }, socket) =>
      n === 1 ? ok(socket) : socket.end('HTTP/1.1 200 OK\r\nContent-Le'),
    );
    const http = client(server.origin);
    await get(http, server.origin);
    await settle();
    const err = await failure(get(http, server.origin));
    expect(err).toBeInstanceOf(TransportError);
    expect(server.requests.flat()).toHaveLength(2);
  });

  it('is not sent again when the repeat fails on a fresh connection: that close is the target’s answer', async () => {
    // Every request but the very first one is met with a close, fresh connections included.
    let served = 0;
    const server = await rawServer((_r, socket) => (served++ === 0 ? ok(socket) : socket.end()));
    const http = client(server.origin);
    await get(http, server.origin);
    await settle();
    const err = await failure(get(http, server.origin));
    expect(err).toBeInstanceOf(TransportError);
    expect(server.requests.flat()).toHaveLength(3);
  });

  it('is closed by the client before the server does when the server says when (Keep-Alive: timeout)', async () => {
    // The server closes idle connections after 1.2 s and says so; the client must not reuse one
    // that the server is about to close: RFC 9112 §9.3 and the Keep-Alive header's timeout hint.
    const server = await rawServer((_r, socket) => {
      ok(socket, 'ok', 'Keep-Alive: timeout=1\r\n');
      socket.setTimeout(1_200, () => socket.end());
    });
    const http = client(server.origin);
    await get(http, server.origin);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const recorder = new Recorder();
    expect((await get(http, server.origin, recorder)).status).toBe(200);
    expect(recorder.retries).toEqual([]);
    expect(server.requests).toHaveLength(2);
  });
});

describe('the shared access token', { timeout: 15_000 }, () => {
  /** A token server and API in one: tokens live `ttlMs`; `refuse` decides which valid tokens the API refuses anyway. */
  async function tokenServer(
    ttlMs: number,
    expiresIn: number,
    refuse: (token: string, age: number) => boolean = () => false,
  ) {
    const issued = new Map<string, number>();
    const server = await rawServer(({ head }, socket) => {
      if (head.startsWith('POST /token')) {
        const token = `t${issued.size + 1}`;
        issued.set(token, Date.now());
        const body = JSON.stringify({ access_token: token, token_type: 'bearer', expires_in: expiresIn });
        socket.write(
          `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
        );
        return;
      }
      const token = /authorization: Bearer (\S+)/i.exec(head)?.[1] ?? '';
      const at = issued.get(token);
      const age = at === undefined ? Infinity : Date.now() - at;
      if (age < ttlMs && !refuse(token, age)) ok(socket, token);
      else
        socket.write(
          'HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer error="invalid_token"\r\nContent-Length: 0\r\n\r\n',
        );
    });
    return { server, issued };
  }

  function tokensFor(origin: string, http: () => HttpClient): SharedTokens {
    return new SharedTokens(
      (recorder) => (req) => http().send({ ...req, url: `${origin}/token` }, recorder),
      { baseUrl: origin, authUrl: origin },
      { clientId: 'id', clientSecret: 'secret' },
      undefined,
      undefined,
    );
  }

  it('is renewed ahead of its expiry, one renewal for many concurrent requests, so a long run never sends an expired one', async () => {
    const { server, issued } = await tokenServer(1_000, 1);
    const http: HttpClient = client(server.origin, { sharedTokens: tokensFor(server.origin, () => http) });
    const recorder = new Recorder();
    const answers: number[] = [];
    // 2.5 s of requests, 8 at a time, with 1 s tokens.
    const until = Date.now() + 2_500;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (Date.now() < until) {
          answers.push(
            (
              await http.send(
                { method: 'GET', url: `${server.origin}/data`, auth: { kind: 'shared-token' }, purpose: 'p' },
                recorder,
              )
            ).status,
          );
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }),
    );
    expect(new Set(answers)).toEqual(new Set([200]));
    expect(recorder.retries).toEqual([]);
    // Renewed about every half second (a 1 s token is renewed at half its life), never in a burst.
    expect(issued.size).toBeGreaterThanOrEqual(4);
    expect(issued.size).toBeLessThanOrEqual(8);
    expect(recorder.tokenRequests).toBe(issued.size);
  });

  it('refused although still valid, is renewed once and the request sent again, and the report says so', async () => {
    // The API refuses the first token it sees (a key rotation, a revocation).
    const { server } = await tokenServer(60_000, 60, (token) => token === 't1');
    const http: HttpClient = client(server.origin, { sharedTokens: tokensFor(server.origin, () => http) });
    const recorder = new Recorder();
    const res = await http.send(
      { method: 'GET', url: `${server.origin}/data`, auth: { kind: 'shared-token' }, purpose: 'p' },
      recorder,
    );

    expect(res.status).toBe(200);
    expect(res.text).toBe('t2');
    expect(recorder.retries).toEqual([
      expect.stringMatching(
        /^GET \/data was refused \(401\) with the shared access token, which its expires_in still declared valid for \d+\.\d s; sent again once with a fresh token before judging$/,
      ),
    ]);
  });

  it('refused again with the renewed token, is sent once more with a token of its own, which others cannot have used up', async () => {
    // The first two tokens stop working before their time (a shared one used up by other requests).
    const { server, issued } = await tokenServer(60_000, 60, (token) => token === 't1' || token === 't2');
    const http: HttpClient = client(server.origin, { sharedTokens: tokensFor(server.origin, () => http) });
    const recorder = new Recorder();
    const res = await http.send(
      { method: 'GET', url: `${server.origin}/data`, auth: { kind: 'shared-token' }, purpose: 'p' },
      recorder,
    );

    expect(res.status).toBe(200);
    expect(res.text).toBe('t3');
    expect(issued.size).toBe(3);
    expect(recorder.retries).toEqual([
      expect.stringMatching(
        /^GET \/data was refused \(401\) with the shared access token, which its expires_in still declared valid for \d+\.\d s; sent again once with a fresh token before judging$/,
      ),
      expect.stringMatching(
        /^GET \/data was refused \(401\) again with the renewed shared access token, which its expires_in still declared valid for \d+\.\d s; sent again once with a token issued for it alone before judging$/,
      ),
    ]);
  });

  it('refused even with a token of its own that was surely valid, gives the 401 to the check to judge', async () => {
    const { server, issued } = await tokenServer(60_000, 60, () => true);
    const http: HttpClient = client(server.origin, { sharedTokens: tokensFor(server.origin, () => http) });
    const res = await http.send({
      method: 'GET',
      url: `${server.origin}/data`,
      auth: { kind: 'shared-token' },
      purpose: 'p',
    });
    expect(res.status).toBe(401);
    expect(issued.size).toBe(3);
  });

  it('refused even with a token of its own, but when that may have run out (whole seconds), is not judged: an error says the token stopped working', async () => {
    // expires_in 1: a whole-second clock may end such a token at once, so no 401 to it is evidence.
    const { server } = await tokenServer(60_000, 1, () => true);
    const http: HttpClient = client(server.origin, { sharedTokens: tokensFor(server.origin, () => http) });
    const err = await failure(
      http.send({ method: 'GET', url: `${server.origin}/data`, auth: { kind: 'shared-token' }, purpose: 'p' }),
    );
    expect(err).toBeInstanceOf(SharedTokenExpiredError);
    expect((err as Error).message).toMatch(
      /^GET \/data was refused \(401\) even with a freshly issued access token, but the answer came \d+\.\d s after it was sent, when the token's expires_in \(whole seconds\) may already have run out: the token stopped working, so the request was not judged$/,
    );
  });

  it('waiting for a slot of the politeness bound, takes its token when it leaves, not when it queued: it never goes with one that ran out meanwhile', async () => {
    // 1 s tokens (renewed at half their life); a slow request holds the only slot for 1.2 s.
    const { server, issued } = await tokenServer(1_000, 1);
    const slow = await rawServer((_r, socket) => void setTimeout(() => ok(socket), 1_200));
    const http: HttpClient = client(server.origin, {
      sharedTokens: tokensFor(server.origin, () => http),
      maxInFlight: 1,
      credentialOrigins: [server.origin, slow.origin],
    });
    const recorder = new Recorder();
    // t1, issued now, is used at once; then the slot is held while it runs out.
    expect(
      (
        await http.send({
          method: 'GET',
          url: `${server.origin}/data`,
          auth: { kind: 'shared-token' },
          purpose: 'first',
        })
      ).text,
    ).toBe('t1');
    const held = http.send({ method: 'GET', url: `${slow.origin}/slow`, purpose: 'slow' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const res = await http.send(
      { method: 'GET', url: `${server.origin}/data`, auth: { kind: 'shared-token' }, purpose: 'p' },
      recorder,
    );
    await held;

    expect(res.status).toBe(200);
    // Renewed when it left (t2), never sent with the token that expired while it waited.
    expect(res.text).toBe('t2');
    expect(issued.size).toBe(2);
    expect(recorder.retries).toEqual([]);
    expect(recorder.exchanges.map((e) => e.response?.status)).toEqual([200, 200]);
    expect(server.requests.flat().filter((line) => line.startsWith('GET /data'))).toHaveLength(2);
  });

  it('with another spelling of the scheme is never renewed: the spelling is what such a request tests', async () => {
    const { server, issued } = await tokenServer(60_000, 60, () => true);
    const http: HttpClient = client(server.origin, { sharedTokens: tokensFor(server.origin, () => http) });
    const res = await http.send({
      method: 'GET',
      url: `${server.origin}/data`,
      auth: { kind: 'shared-token', scheme: 'bearer' },
      purpose: 'p',
    });
    expect(res.status).toBe(401);
    expect(issued.size).toBe(1);
  });

  it('is renewed a second or more before expires_in runs out: whole-second clocks end tokens early', () => {
    // RFC 6749 §5.1: expires_in is whole seconds; a server with exp = floor(iat) + ttl may end one 1 s early.
    expect(renewAt({ token: 't', expiresIn: 2, sentAt: 0, receivedAt: 10 })).toBe(1_000);
    expect(renewAt({ token: 't', expiresIn: 60, sentAt: 0, receivedAt: 10 })).toBe(48_000);
    // A slow link: two round trips ahead, but never less than half the lifetime left to use.
    expect(renewAt({ token: 't', expiresIn: 5, sentAt: 0, receivedAt: 1_000 })).toBe(3_000);
    expect(renewAt({ token: 't', expiresIn: 5, sentAt: 0, receivedAt: 4_000 })).toBe(2_500);
  });
});

describe('429 and 503', { timeout: 10_000 }, () => {
  it('are retried with a back-off even without Retry-After, and noted', async () => {
    let n = 0;
    const server = await rawServer((_r, socket) =>
      n++ < 2 ? socket.write('HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n') : ok(socket),
    );
    const recorder = new Recorder();
    const res = await get(client(server.origin, { maxRetries: 2, maxRetryWaitMs: 5_000 }), server.origin, recorder);
    expect(res.status).toBe(200);
    expect(recorder.retries).toEqual([
      'GET /x answered 503; retried after 0.5 s (retry 1 of 2)',
      'GET /x answered 503; retried after 1.0 s (retry 2 of 2)',
    ]);
  });

  it('that persist end in an error that says nothing was judged', async () => {
    const server = await rawServer((_r, socket) =>
      socket.write('HTTP/1.1 429 Too Many Requests\r\nRetry-After: 0\r\nContent-Length: 0\r\n\r\n'),
    );
    const recorder = new Recorder();
    const err = await failure(
      get(client(server.origin, { maxRetries: 1, maxRetryWaitMs: 100 }), server.origin, recorder),
    );
    expect(err).toBeInstanceOf(UnavailableError);
    expect((err as Error).message).toBe(
      '/x answered 429 Too Many Requests (rate limited) 2 times; the target is throttling or unavailable, so nothing was judged (lower --concurrency, or raise --max-retries / --max-retry-wait)',
    );
    expect(recorder.exchanges).toHaveLength(2);
  });
});
