// src/http/undici.ts loads undici's own modules instead of its entry (start-up time): they must
// be the very classes the entry exports, and its `exchange` must send what undici's `request`
// sends, and read the same answer, for the undici that is installed.
import { createRequire } from 'node:module';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import * as undici from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, EnvHttpProxyAgent, exchange } from '../src/http/undici.js';
import { onLoopback } from './support/loopback.js';

interface Seen {
  method: string | undefined;
  url: string | undefined;
  headers: string[];
  body: string;
}

let server: Server;
let base: URL;
const seen: Seen[] = [];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.rawHeaders, body });
      res.setHeader('x-echo', `${req.method} ${req.url}`);
      res.end(JSON.stringify({ method: req.method, url: req.url, body }));
    });
  });
  base = new URL(await onLoopback(server));
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe("undici's parts (src/http/undici.ts)", () => {
  it("are the classes undici's entry exports", () => {
    expect(Agent).toBe(undici.Agent);
    expect(EnvHttpProxyAgent).toBe(undici.EnvHttpProxyAgent);
    // The API methods (the proxy agents' `connect`) are the ones undici puts on every dispatcher.
    const { request: dispatcherRequest } = Object.getOwnPropertyDescriptors(undici.Dispatcher.prototype);
    expect(createRequire(import.meta.url)('undici/lib/api/api-request')).toBe(dispatcherRequest?.value);
  });

  it("send what undici's request sends: method, path and query, headers and body", async () => {
    const agent = new Agent({ keepAliveTimeout: 1000 });
    try {
      const requests = [
        {
          url: new URL('/a/b?x=1&y=%20z', base),
          method: 'GET' as const,
          headers: { 'accept-version': '1' },
          body: null,
        },
        {
          url: new URL('/token', base),
          method: 'POST' as const,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=client_credentials',
        },
        { url: new URL('/plain', base), method: 'GET' as const, headers: {}, body: null },
      ];
      for (const r of requests) {
        const ours = await exchange(r.url, {
          method: r.method,
          headers: r.headers,
          body: r.body,
          dispatcher: agent,
          headersTimeout: 5000,
          bodyTimeout: 5000,
          maxBodyBytes: 1e6,
          tooLarge: () => new Error('too large'),
        }).response;
        const theirs = await undici.request(r.url, {
          method: r.method,
          headers: r.headers,
          body: r.body,
          dispatcher: agent,
        });
        expect(ours.statusCode).toBe(theirs.statusCode);
        // The same fields, as undici parses them (Date may have ticked between the two).
        expect({ ...ours.headers, date: '' }).toEqual({ ...theirs.headers, date: '' });
        expect(ours.body.toString()).toBe(await theirs.body.text());
        const [a, b] = seen.splice(-2);
        expect(a).toEqual(b);
        expect(a?.url).toBe(`${r.url.pathname}${r.url.search}`);
      }
    } finally {
      await agent.close();
    }
  });
});
