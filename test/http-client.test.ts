// The HTTP layer (src/http/client.ts) against a node:http server on 127.0.0.1: recording,
// redaction, redirects, content codings, caps, timeouts and the credential origins.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { Agent } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { inTheNextTurn } from '../src/battery/walk.js';
import { encodeBasicCredentials } from '../src/core/basic-credentials.js';
import type { HttpClient } from '../src/http/client.js';
import {
  HttpResponse,
  Recorder,
  RequestRefusedError,
  TransportError,
  type HttpClientOptions,
} from '../src/http/client.js';
import { Redactor } from '../src/core/redact.js';
import { freePort } from './support/harness.js';
import { testClient } from './support/test-client.js';
import { onLoopback, closeServer } from './support/loopback.js';

const CLIENT_ID = 'conformance-client';
const SECRET = 'pa+ss %:&= é-secret';
const TEXT = 'The quick brown fox jumps over the lazy dog. '.repeat(20);

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** What the server saw of each request. */
interface Seen {
  path: string;
  headers: IncomingMessage['headers'];
  rawHeaders: string[];
  body: string;
}

const seen: Seen[] = [];
let issuedToken = '';

const routes: Record<string, Handler> = {
  '/ok': (_req, res) => {
    res.setHeader('content-type', 'text/plain');
    res.end('ok');
  },
  '/token': (_req, res) => {
    issuedToken = `at-${randomBytes(16).toString('hex')}`;
    res.setHeader('content-type', 'application/json');
    res.setHeader('cache-control', 'no-store');
    res.end(JSON.stringify({ access_token: issuedToken, token_type: 'bearer', expires_in: 60 }));
  },
  /** Echoes the Authorization header in a body that is not JSON, so only by-value redaction can hide it. */
  '/echo-auth': (req, res) => {
    res.setHeader('content-type', 'text/plain');
    res.end(`you sent: ${req.headers.authorization ?? 'nothing'}`);
  },
  '/redirect': (_req, res) => {
    res.writeHead(302, { location: '/redirect-target' });
    res.end();
  },
  '/redirect-target': (_req, res) => res.end('followed'),
  '/gzip': (_req, res) => {
    res.writeHead(200, { 'content-encoding': 'gzip' });
    res.end(gzipSync(TEXT));
  },
  '/br': (_req, res) => {
    res.writeHead(200, { 'content-encoding': 'br' });
    res.end(brotliCompressSync(TEXT));
  },
  '/deflate': (_req, res) => {
    res.writeHead(200, { 'content-encoding': 'deflate' });
    res.end(deflateSync(TEXT));
  },
  /** gzip applied first, then br (RFC 9110 §8.4: codings are listed in the order applied). */
  '/gzip-br': (_req, res) => {
    res.writeHead(200, { 'content-encoding': 'gzip, br' });
    res.end(brotliCompressSync(gzipSync(TEXT)));
  },
  '/unknown-coding': (_req, res) => {
    res.writeHead(200, { 'content-encoding': 'compress' });
    res.end('xxxx');
  },
  '/big': (_req, res) => res.end('x'.repeat(2_000)),
  /** Small on the wire, large once decoded. */
  '/gzip-bomb': (_req, res) => {
    res.writeHead(200, { 'content-encoding': 'gzip' });
    res.end(gzipSync(Buffer.alloc(1_000_000)));
  },
  '/hang': () => {
    // Never answers; the socket is destroyed in afterAll.
  },
  '/stall': (_req, res) => {
    res.writeHead(200, { 'content-length': '100' });
    res.write('partial');
  },
  '/cut': (_req, res) => {
    res.writeHead(200, { 'content-length': '100', 'x-kept': 'yes' });
    res.write('partial', () => res.socket?.destroy());
  },
  '/repeated': (_req, res) => {
    res.setHeader('x-multi', ['a', 'b, c']);
    res.setHeader('set-cookie', ['session=s3cr3t-cookie; HttpOnly', 'theme=dark']);
    res.end('repeated');
  },
  /** A body in which the client secret straddles byte 40. */
  '/secret-at-40': (_req, res) => res.end(`${'x'.repeat(35)}${SECRET}${'y'.repeat(20)}`),
};

let server: Server;
let origin: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      seen.push({
        path,
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const handler = routes[path];
      if (handler) handler(req, res);
      else res.writeHead(404).end();
    });
  });
  origin = await onLoopback(server);
});

afterAll(async () => {
  await closeServer(server);
});

let clients: HttpClient[] = [];

/** A client of the test server; closed after each test. */
function makeClient(options: Partial<HttpClientOptions> = {}, dispatcher?: Agent): HttpClient {
  const client = testClient(
    origin,
    { timeoutMs: 2_000, maxBodyBytes: 1_000_000, recordBodyChars: 4_096, ...options },
    dispatcher,
  );
  clients.push(client);
  return client;
}

beforeEach(() => {
  seen.length = 0;
});

afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
});

/** The TransportError a request fails with. */
async function transportError(promise: Promise<unknown>): Promise<TransportError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TransportError);
  return err as TransportError;
}

function headerOf(headers: readonly (readonly [string, string])[] | undefined, name: string): string[] {
  return (headers ?? []).filter(([n]) => n.toLowerCase() === name).map(([, v]) => v);
}

describe('HttpClient', { timeout: 10_000 }, () => {
  describe('recording and redaction', () => {
    it('records a client-basic exchange without the secret in any spelling', async () => {
      const redactor = new Redactor();
      redactor.addClientCredentials(CLIENT_ID, SECRET);
      const recorder = new Recorder();
      const client = makeClient({ redactor });

      const res = await client.send(
        {
          method: 'POST',
          url: `${origin}/echo-auth`,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `grant_type=client_credentials&client_secret=${encodeURIComponent(SECRET)}`,
          auth: { kind: 'client-basic', clientId: CLIENT_ID, clientSecret: SECRET },
          purpose: `token request for ${CLIENT_ID} with ${SECRET}`,
        },
        recorder,
      );

      const basic = encodeBasicCredentials(CLIENT_ID, SECRET);
      expect(seen[0]?.headers.authorization).toBe(`Basic ${basic}`);
      expect(res.status).toBe(200);
      expect(res.exchange).toBe(0);
      expect(recorder.count).toBe(1);
      const exchange = recorder.exchanges[0];
      expect(exchange?.auth).toBe('client-basic');
      expect(headerOf(exchange?.request.headers, 'authorization')).toEqual(['Basic [REDACTED:basic-credentials]']);
      expect(exchange?.request.body).toBe('grant_type=client_credentials&client_secret=[REDACTED]');
      expect(exchange?.response?.body).toBe('you sent: Basic [REDACTED:basic-credentials]');
      expect(exchange?.purpose).toBe(`token request for ${CLIENT_ID} with [REDACTED:client-secret]`);
      const recorded = JSON.stringify(exchange);
      for (const spelling of [SECRET, encodeURIComponent(SECRET), basic]) expect(recorded).not.toContain(spelling);
    });

    it('redacts Basic credentials it was never told about by the header name', async () => {
      const recorder = new Recorder();
      await makeClient().send(
        {
          method: 'GET',
          url: `${origin}/ok`,
          auth: { kind: 'client-basic', clientId: 'other', clientSecret: 'unregistered-secret' },
          purpose: 'p',
        },
        recorder,
      );
      expect(headerOf(recorder.exchanges[0]?.request.headers, 'authorization')).toEqual(['Basic [REDACTED]']);
    });

    it('learns the access token of a token response and redacts it from later recordings', async () => {
      const redactor = new Redactor();
      const client = makeClient({ redactor });
      const recorder = new Recorder();

      const tokenRes = await client.send(
        { method: 'POST', url: `${origin}/token`, body: 'grant_type=client_credentials', purpose: 'get a token' },
        recorder,
      );
      const token = (tokenRes.json() as { ok: true; value: { access_token: string } }).value.access_token;
      expect(token).toBe(issuedToken);
      await client.send(
        {
          method: 'GET',
          url: `${origin}/echo-auth?access_token=${token}`,
          auth: { kind: 'bearer', token },
          purpose: `use ${token}`,
        },
        recorder,
      );

      const [tokenExchange, useExchange] = recorder.exchanges;
      expect(tokenExchange?.response?.body).toContain('"access_token":"[REDACTED');
      expect(tokenExchange?.response?.body).toContain('"token_type":"bearer"');
      expect(headerOf(useExchange?.request.headers, 'authorization')).toEqual(['Bearer [REDACTED:access-token]']);
      expect(useExchange?.request.url).toBe(`${origin}/echo-auth?access_token=[REDACTED:access-token]`);
      expect(useExchange?.response?.body).toBe('you sent: Bearer [REDACTED:access-token]');
      expect(useExchange?.purpose).toBe('use [REDACTED:access-token]');
      expect(JSON.stringify(recorder.exchanges)).not.toContain(token);
      expect(redactor.redact(`later ${token}`)).toBe('later [REDACTED:access-token]');
    });

    it('records a literal credential as sent', async () => {
      const recorder = new Recorder();
      await makeClient().send(
        { method: 'GET', url: `${origin}/ok`, auth: { kind: 'literal', value: 'Bearer %not a token%' }, purpose: 'p' },
        recorder,
      );
      expect(seen[0]?.headers.authorization).toBe('Bearer %not a token%');
      expect(headerOf(recorder.exchanges[0]?.request.headers, 'authorization')).toEqual(['Bearer %not a token%']);
      expect(recorder.exchanges[0]?.auth).toBe('literal');
    });

    it('truncates a recorded body at recordBodyChars after redaction, never showing part of a secret', async () => {
      const redactor = new Redactor();
      redactor.addClientCredentials(CLIENT_ID, SECRET);
      const recorder = new Recorder();

      const res = await makeClient({ redactor, recordBodyChars: 40 }).send(
        { method: 'GET', url: `${origin}/secret-at-40`, purpose: 'p' },
        recorder,
      );

      expect(res.text).toContain(SECRET); // the check itself sees the real body
      const response = recorder.exchanges[0]?.response;
      expect(response?.body).toBe(`${'x'.repeat(35)}[REDA`);
      expect(response?.bodyTruncated).toBe(true);
      expect(response?.body).not.toContain(SECRET.slice(0, 5));
    });

    it('does not mark a short body as truncated', async () => {
      const recorder = new Recorder();
      await makeClient({ recordBodyChars: 40 }).send({ method: 'GET', url: `${origin}/ok`, purpose: 'p' }, recorder);
      expect(recorder.exchanges[0]?.response).toMatchObject({ status: 200, body: 'ok', bodyTruncated: false });
    });

    it('returns exchange -1 when no recorder is given', async () => {
      const res = await makeClient().send({ method: 'GET', url: `${origin}/ok`, purpose: 'p' });
      expect(res.exchange).toBe(-1);
      expect(res.text).toBe('ok');
    });
  });

  describe('request headers', () => {
    it('sends the defaults and the user agent', async () => {
      await makeClient().send({ method: 'GET', url: `${origin}/ok`, purpose: 'p' });
      expect(seen[0]?.headers).toMatchObject({
        accept: 'application/json',
        'accept-encoding': 'gzip, deflate, br',
        'user-agent': 'carrier-conformance-test',
      });
    });

    it("replaces a default whatever the case of its name, keeps the caller's spelling, and leaves out a null one", async () => {
      await makeClient().send({
        method: 'GET',
        url: `${origin}/ok`,
        headers: { ACCEPT: 'text/plain', 'Accept-Encoding': null },
        purpose: 'p',
      });
      const raw = seen[0]?.rawHeaders ?? [];
      const names = raw.filter((_, i) => i % 2 === 0);
      expect(names).toContain('ACCEPT');
      expect(names.filter((n) => n.toLowerCase() === 'accept')).toEqual(['ACCEPT']);
      expect(seen[0]?.headers.accept).toBe('text/plain');
      expect(seen[0]?.headers['accept-encoding']).toBeUndefined();
    });

    it('sends the later of two spellings of one name the caller gives, where it stands, and neither when the later is null', async () => {
      await makeClient().send({
        method: 'GET',
        url: `${origin}/ok`,
        headers: { 'X-Twice': 'first', 'accept-version': '1', 'x-twice': 'second', 'X-Gone': 'a', 'x-gone': null },
        purpose: 'p',
      });
      const raw = seen[0]?.rawHeaders ?? [];
      const names = raw.filter((_, i) => i % 2 === 0);
      expect(names.filter((n) => n.toLowerCase() === 'x-twice')).toEqual(['x-twice']);
      expect(names.indexOf('x-twice')).toBeGreaterThan(names.indexOf('accept-version'));
      expect(seen[0]?.headers['x-twice']).toBe('second');
      expect(names.filter((n) => n.toLowerCase() === 'x-gone')).toEqual([]);
    });
  });

  describe('responses', () => {
    it('returns a 3xx without following it', async () => {
      const res = await makeClient().send({ method: 'GET', url: `${origin}/redirect`, purpose: 'p' });
      expect(res.status).toBe(302);
      expect(res.header('Location')).toBe('/redirect-target');
      expect(seen.map((s) => s.path)).toEqual(['/redirect']);
    });

    it.each(['/gzip', '/br', '/deflate', '/gzip-br'])('decodes the body of %s', async (path) => {
      const res = await makeClient().send({ method: 'GET', url: `${origin}${path}`, purpose: 'p' });
      expect(res.text).toBe(TEXT);
    });

    it('fails on an unsupported content coding', async () => {
      const err = await transportError(
        makeClient().send({ method: 'GET', url: `${origin}/unknown-coding`, purpose: 'p' }),
      );
      expect(err.message).toMatch(/cannot decode the compress body/);
    });

    it('keeps repeated header lines apart and joins them with ", "', async () => {
      const recorder = new Recorder();
      const res = await makeClient().send({ method: 'GET', url: `${origin}/repeated`, purpose: 'p' }, recorder);
      expect(res.headerLines('X-Multi')).toEqual(['a', 'b, c']);
      expect(res.header('x-multi')).toBe('a, b, c');
      expect(res.headerLines('set-cookie')).toHaveLength(2);
      expect(res.header('x-absent')).toBeUndefined();
      expect(res.headerLines('x-absent')).toEqual([]);
      // Each line is recorded on its own, sensitive ones redacted.
      expect(headerOf(recorder.exchanges[0]?.response?.headers, 'x-multi')).toEqual(['a', 'b, c']);
      expect(headerOf(recorder.exchanges[0]?.response?.headers, 'set-cookie')).toEqual(['[REDACTED]', '[REDACTED]']);
    });
  });

  describe('transport errors', () => {
    it('fails a body over maxBodyBytes, naming the cap, and records the error', async () => {
      const recorder = new Recorder();
      const err = await transportError(
        makeClient({ maxBodyBytes: 1_000 }).send({ method: 'GET', url: `${origin}/big`, purpose: 'p' }, recorder),
      );
      expect(err.message).toBe('the response body is larger than the 1000-byte cap (--max-body-bytes)');
      expect(err.exchange).toBe(0);
      expect(err.recorder).toBe(recorder);
      expect(recorder.exchanges[0]?.error).toBe(err.message);
      // The response began: its status and headers are kept, the body is not.
      expect(recorder.exchanges[0]?.response?.status).toBe(200);
      expect(recorder.exchanges[0]?.response?.body).toBe('');
    });

    it('applies the cap to the decoded body too', async () => {
      const err = await transportError(
        makeClient({ maxBodyBytes: 1_000 }).send({ method: 'GET', url: `${origin}/gzip-bomb`, purpose: 'p' }),
      );
      expect(err.message).toMatch(/1000-byte cap/);
    });

    it('gives up on a server that never answers within about timeoutMs', async () => {
      const t0 = performance.now();
      const err = await transportError(
        makeClient({ timeoutMs: 300 }).send({ method: 'GET', url: `${origin}/hang`, purpose: 'p' }),
      );
      const elapsed = performance.now() - t0;
      expect(err.message).toMatch(/within 300 ms \(--timeout\)/);
      expect(elapsed).toBeGreaterThanOrEqual(250);
      expect(elapsed).toBeLessThan(2_000);
    });

    it('gives up on a body that stalls, and records the status and headers that came', async () => {
      const t0 = performance.now();
      const recorder = new Recorder();
      const err = await transportError(
        makeClient({ timeoutMs: 300 }).send({ method: 'GET', url: `${origin}/stall`, purpose: 'p' }, recorder),
      );
      expect(err.message).toMatch(/300 ms \(--timeout\)/);
      expect(performance.now() - t0).toBeLessThan(2_000);
      expect(recorder.exchanges[0]?.response?.status).toBe(200);
      expect(recorder.exchanges[0]?.error).toBe(err.message);
    });

    it('records the status and headers of a response whose connection closes mid-body', async () => {
      const recorder = new Recorder();
      const err = await transportError(
        makeClient().send({ method: 'GET', url: `${origin}/cut`, purpose: 'p' }, recorder),
      );
      expect(recorder.exchanges[0]?.error).toBe(err.message);
      expect(recorder.exchanges[0]?.response?.status).toBe(200);
      expect(headerOf(recorder.exchanges[0]?.response?.headers, 'x-kept')).toEqual(['yes']);
      expect(recorder.exchanges[0]?.response?.body).toBe('');
    });

    it('reports a refused connection', async () => {
      const port = await freePort();

      const recorder = new Recorder();
      const err = await transportError(
        makeClient({ credentialOrigins: [] }).send(
          { method: 'GET', url: `http://127.0.0.1:${port}/`, purpose: 'p' },
          recorder,
        ),
      );
      expect(err.message).toBe(`connection refused by 127.0.0.1:${port}`);
      expect(recorder.exchanges[0]?.error).toBe(err.message);
    });
  });

  describe('credential origins', () => {
    /** A client that may send credentials only to another origin than the test server's. */
    const elsewhere = (): HttpClient => makeClient({ credentialOrigins: ['https://api.example.test'] });

    it.each([
      ['client-basic', { kind: 'client-basic', clientId: CLIENT_ID, clientSecret: SECRET }],
      ['bearer', { kind: 'bearer', token: 'some-access-token' }],
    ] as const)('refuses to send %s credentials to an origin not listed, and sends nothing', async (_kind, auth) => {
      const client = elsewhere();
      const recorder = new Recorder();

      const err = await client.send({ method: 'GET', url: `${origin}/ok`, auth, purpose: 'p' }, recorder).then(
        () => undefined,
        (e: unknown) => e,
      );

      expect(err).toBeInstanceOf(RequestRefusedError);
      expect((err as Error).message).toBe(
        `refused to send credentials to ${origin}: only https://api.example.test may receive them`,
      );
      expect(seen).toEqual([]);
      expect(recorder.exchanges).toEqual([]);
    });

    it.each([
      ['no', { kind: 'none' }],
      ['a literal', { kind: 'literal', value: 'Bearer made-up' }],
    ] as const)('sends a request with %s credential to an origin not listed', async (_what, auth) => {
      const res = await elsewhere().send({ method: 'GET', url: `${origin}/ok`, auth, purpose: 'p' });
      expect(res.status).toBe(200);
      expect(seen).toHaveLength(1);
    });
  });
});

describe('a request sent as an answer arrives', () => {
  // A walk sends its next page request as a page's answer arrives and reads the page in the
  // next turn of the event loop (walk.ts), so that the target works on the request meanwhile.
  // undici writes a request on a reused keep-alive connection in the check phase (its idle-socket
  // validation): reading the page in this turn's check phase would come before that write.
  it('is written to the connection before work queued inTheNextTurn runs', async () => {
    const events: string[] = [];
    const agent = new Agent({
      connect: (_opts, callback) => {
        const { port } = server.address() as AddressInfo;
        const socket: Socket = connect({ host: '127.0.0.1', port });
        const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
        socket.write = (...args: unknown[]) => {
          events.push('request written');
          return write(...args);
        };
        socket.once('connect', () => callback(null, socket));
        socket.once('error', (err) => callback(err, null));
      },
    });
    const client = makeClient({}, agent);
    const send = (): Promise<HttpResponse> => client.send({ method: 'GET', url: `${origin}/ok`, purpose: 'p' });
    // The first request opens the connection; the second reuses it once the first's answer is in.
    let second: Promise<HttpResponse> | undefined;
    await new Promise<void>((resolve, reject) => {
      send().then(() => {
        events.length = 0;
        second = send();
        inTheNextTurn(() => {
          events.push('page read');
          resolve();
        });
      }, reject);
    });
    expect((await second)?.status).toBe(200);
    expect(events).toEqual(['request written', 'page read']);
    expect(seen.map((s) => s.path)).toEqual(['/ok', '/ok']);
  });
});

describe('HttpResponse', () => {
  const res = new HttpResponse(
    'https://x.test/',
    200,
    { link: ['<a>; rel="next"', '<b>; rel="prev"'], 'content-type': ['application/json'] },
    '{"a":1}',
    -1,
  );

  it('joins repeated lines with ", " and finds fields whatever the case of the name', () => {
    expect(res.header('Link')).toBe('<a>; rel="next", <b>; rel="prev"');
    expect(res.headerLines('LINK')).toEqual(['<a>; rel="next"', '<b>; rel="prev"']);
    expect(res.header('Content-Type')).toBe('application/json');
  });

  it('treats a field without lines as absent', () => {
    expect(new HttpResponse('https://x.test/', 200, { x: [] }, '', -1).header('x')).toBeUndefined();
  });

  it('parses JSON, and returns a parse failure instead of throwing', () => {
    expect(res.json()).toEqual({ ok: true, value: { a: 1 } });
    const broken = new HttpResponse('https://x.test/', 200, {}, '{"a":', -1).json();
    expect(broken.ok).toBe(false);
    expect(!broken.ok && broken.error).toMatch(/^the body is not valid JSON \(/);
  });
});
