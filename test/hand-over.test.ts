// HttpClient hands an answer to its caller only after the requests that the answer's slot let
// through were written (src/http/client.ts, afterTheWrites): a judgement's CPU work then overlaps
// the next round trip instead of holding it back.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testClient } from './support/test-client.js';
import { onLoopback, closeServer } from './support/loopback.js';

describe('HttpClient: the next request before the answer', () => {
  let server: Server;
  let origin = '';

  beforeAll(async () => {
    server = createServer((req, res) => res.end(`answer to ${req.url ?? ''}`));
    origin = await onLoopback(server);
  });
  afterAll(async () => {
    await closeServer(server);
  });

  it('writes the request waiting for a slot before the freed slot’s answer reaches its caller', {
    timeout: 10_000,
  }, async () => {
    const http = testClient(origin, { maxInFlight: 1 });
    const events: string[] = [];
    const written = (message: unknown): void => {
      const { request } = message as { request: { path: string } };
      events.push(`written ${request.path}`);
    };
    subscribe('undici:client:sendHeaders', written);
    try {
      // A warm-up exchange: the next ones reuse its keep-alive connection, as a run's do.
      await http.send({ method: 'GET', url: `${origin}/warm-up`, purpose: 'a probe' });
      events.length = 0;
      const sends = ['/a', '/b', '/c'].map((path) =>
        http.send({ method: 'GET', url: `${origin}${path}`, purpose: 'a probe' }).then((res) => {
          events.push(`judged ${path}`);
          return res;
        }),
      );
      const answers = await Promise.all(sends);
      expect(answers.map((r) => r.text)).toEqual(['answer to /a', 'answer to /b', 'answer to /c']);
      // One in flight at a time: /b goes out on /a's slot before /a is judged, /c before /b is.
      expect(events).toEqual(['written /a', 'written /b', 'judged /a', 'written /c', 'judged /b', 'judged /c']);
    } finally {
      unsubscribe('undici:client:sendHeaders', written);
      await http.close();
    }
  });

  it('dates an answer when it arrived, not when its caller gets it', { timeout: 10_000 }, async () => {
    const http = testClient(origin);
    const before = Date.now();
    const res = await http.send({ method: 'GET', url: `${origin}/dated`, purpose: 'a probe' });
    expect(res.receivedAt).toBeGreaterThanOrEqual(before);
    expect(res.receivedAt).toBeLessThanOrEqual(Date.now());
    await http.close();
  });
});
