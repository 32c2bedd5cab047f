// One abort listener per signal for all the requests that carry it (src/http/abort-fanout.ts):
// a check's requests waiting for the politeness bound, and in flight, each listened on its signal.
import { getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onAbort, waitersOn } from '../src/http/abort-fanout.js';
import { TransportError } from '../src/http/client.js';
import { InFlightGate } from '../src/http/limit.js';
import { testClient } from './support/test-client.js';
import { onLoopback, closeServer } from './support/loopback.js';

describe('onAbort', () => {
  it('calls each waiter once, in order, when the signal aborts; not one that was removed', () => {
    const stop = new AbortController();
    const calls: string[] = [];
    onAbort(stop.signal, () => calls.push('a'));
    const removeB = onAbort(stop.signal, () => calls.push('b'));
    onAbort(stop.signal, () => calls.push('c'));
    removeB();
    removeB();
    expect(waitersOn(stop.signal)).toBe(2);
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(1);
    stop.abort();
    stop.abort();
    expect(calls).toEqual(['a', 'c']);
    expect(waitersOn(stop.signal)).toBe(0);
  });

  it('never calls a waiter on a signal that had already aborted, as addEventListener would not', () => {
    const calls: string[] = [];
    onAbort(AbortSignal.abort(), () => calls.push('late'));
    expect(calls).toEqual([]);
  });

  it('keeps two registrations of the same function apart', () => {
    const stop = new AbortController();
    let n = 0;
    const fn = (): void => {
      n += 1;
    };
    const first = onAbort(stop.signal, fn);
    onAbort(stop.signal, fn);
    first();
    stop.abort();
    expect(n).toBe(1);
  });
});

describe('InFlightGate with many waiters on one signal', () => {
  it('listens once on the signal however many wait, and cancels every one of them', async () => {
    const gate = new InFlightGate(() => 1);
    const held = gate.acquire('normal') as () => void;
    const stop = new AbortController();
    const waiting = Array.from({ length: 100 }, () => Promise.resolve(gate.acquire('normal', stop.signal)));
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(1);
    expect(waitersOn(stop.signal)).toBe(100);
    stop.abort(new Error('the check was cancelled'));
    const settled = await Promise.allSettled(waiting);
    expect(
      settled.every((s) => s.status === 'rejected' && (s.reason as Error).message === 'the check was cancelled'),
    ).toBe(true);
    held();
    expect(gate.inFlight).toBe(0);
  });

  it('forgets a waiter once it has its slot', async () => {
    const gate = new InFlightGate(() => 1);
    const held = gate.acquire('normal') as () => void;
    const stop = new AbortController();
    const next = gate.acquire('normal', stop.signal);
    expect(waitersOn(stop.signal)).toBe(1);
    held();
    (await next)();
    expect(waitersOn(stop.signal)).toBe(0);
  });
});

describe('HttpClient: a check signal on many requests', () => {
  let server: Server;
  let origin = '';
  const pending: (() => void)[] = [];

  beforeAll(async () => {
    // Answers only when told to: the requests stay in flight, the rest wait for a slot.
    server = createServer((_req, res) => pending.push(() => res.end('ok')));
    origin = await onLoopback(server);
  });
  afterAll(async () => {
    await closeServer(server);
  });

  it('adds one abort listener to the signal for 40 requests, and an abort still stops every one', {
    timeout: 10_000,
  }, async () => {
    const http = testClient(origin, { maxInFlight: 4 });
    const check = new AbortController();
    const sends = Array.from({ length: 40 }, (_, i) =>
      http.send({ method: 'GET', url: `${origin}/r${i}`, purpose: 'a probe', signal: check.signal }),
    );
    for (const s of sends) s.catch(() => undefined);
    while (pending.length < 4) await new Promise((r) => setTimeout(r, 5));
    expect(getEventListeners(check.signal, 'abort')).toHaveLength(1);
    // 4 in flight and 36 waiting for a slot, all on that one listener.
    expect(waitersOn(check.signal)).toBe(40);
    check.abort(new Error('the check was cancelled'));
    const settled = await Promise.allSettled(sends);
    expect(settled.every((s) => s.status === 'rejected' && s.reason instanceof TransportError)).toBe(true);
    expect(waitersOn(check.signal)).toBe(0);
    pending.length = 0;
    await http.close();
  });

  it('answers as before when nothing aborts, and leaves no waiter behind', { timeout: 10_000 }, async () => {
    const http = testClient(origin, { maxInFlight: 2 });
    const check = new AbortController();
    const sends = Array.from({ length: 6 }, (_, i) =>
      http.send({ method: 'GET', url: `${origin}/s${i}`, purpose: 'a probe', signal: check.signal }),
    );
    let answered = 0;
    while (answered < 6) {
      const next = pending.shift();
      if (next) {
        next();
        answered += 1;
      } else await new Promise((r) => setTimeout(r, 5));
    }
    const responses = await Promise.all(sends);
    expect(responses.map((r) => `${r.status} ${r.text}`)).toEqual(Array.from({ length: 6 }, () => '200 ok'));
    expect(waitersOn(check.signal)).toBe(0);
    await http.close();
  });
});
