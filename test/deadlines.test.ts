/**
 * The deadlines of requests in flight (src/http/deadlines.ts): one timer and one run listener for
 * all, and still each request aborted when its own --timeout is over or the run stops, and only then.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { Deadlines } from '../src/http/deadlines.js';

describe('request deadlines', () => {
  it('aborts a request when its timeout is over, with a TimeoutError that says so, and not one started later', async () => {
    const deadlines = new Deadlines(60);
    const called: unknown[] = [];
    const first = deadlines.start((reason) => called.push(reason));
    await sleep(40);
    const second = deadlines.start();
    await sleep(40);
    expect((first.reason as DOMException).name).toBe('TimeoutError');
    expect((first.reason as DOMException).message).toBe('no complete response within 60 ms');
    expect(called).toEqual([first.reason]);
    expect(second.reason).toBeUndefined();
    await sleep(60);
    expect(second.reason).toBeDefined();
    expect(deadlines.size).toBe(0);
  });

  it('aborts every request that fell due even when one of their callbacks throws, and re-arms for the rest', async () => {
    const deadlines = new Deadlines(40);
    const called: string[] = [];
    const a = deadlines.start(() => {
      called.push('a');
      throw new Error('a broken abort');
    });
    const b = deadlines.start(() => called.push('b'));
    await sleep(20);
    const c = deadlines.start(() => called.push('c'));
    await sleep(35);
    expect(called).toEqual(['a', 'b']);
    expect([a.reason, b.reason].every((r) => (r as DOMException).name === 'TimeoutError')).toBe(true);
    await sleep(40);
    expect(called).toEqual(['a', 'b', 'c']);
    expect((c.reason as DOMException).name).toBe('TimeoutError');
    expect(deadlines.size).toBe(0);
  });

  it('never aborts a request that ended in time, whichever order requests end in', async () => {
    const deadlines = new Deadlines(50);
    let called = 0;
    const all = Array.from({ length: 5 }, () => deadlines.start(() => (called += 1)));
    deadlines.end(all[2]!);
    deadlines.end(all[0]!);
    deadlines.end(all[4]!);
    deadlines.end(all[4]!); // idempotent
    expect(deadlines.size).toBe(2);
    deadlines.end(all[1]!);
    deadlines.end(all[3]!);
    expect(deadlines.size).toBe(0);
    await sleep(80);
    expect(all.map((d) => d.reason)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(called).toBe(0);
  });

  it("aborts every request in flight with the run's reason when the run stops, and any started after at once", () => {
    const run = new AbortController();
    const deadlines = new Deadlines(60_000, run.signal);
    const called: string[] = [];
    const a = deadlines.start(() => called.push('a'));
    const b = deadlines.start(() => called.push('b'));
    deadlines.end(a);
    run.abort(new Error('Ctrl-C'));
    expect(a.reason).toBeUndefined();
    expect((b.reason as Error).message).toBe('Ctrl-C');
    expect(called).toEqual(['b']);
    // Started after the stop: stopped at once, and its callback is not needed (it was never sent).
    const late = deadlines.start(() => called.push('late'));
    expect((late.reason as Error).message).toBe('Ctrl-C');
    expect(called).toEqual(['b']);
    expect(deadlines.size).toBe(0);
  });

  it('holds no timer and no listener on the run signal while nothing is in flight', () => {
    const run = new AbortController();
    let listeners = 0;
    const add = run.signal.addEventListener.bind(run.signal);
    const remove = run.signal.removeEventListener.bind(run.signal);
    Object.assign(run.signal, {
      addEventListener: (...args: Parameters<typeof add>) => ((listeners += 1), add(...args)),
      removeEventListener: (...args: Parameters<typeof remove>) => ((listeners -= 1), remove(...args)),
    });
    const deadlines = new Deadlines(60_000, run.signal);
    const requests = Array.from({ length: 100 }, () => deadlines.start());
    expect(listeners).toBe(1);
    expect(deadlines.armed).toBe(true);
    for (const d of requests) deadlines.end(d);
    expect(listeners).toBe(0);
    expect(deadlines.armed).toBe(false);
    expect(deadlines.size).toBe(0);
  });
});
