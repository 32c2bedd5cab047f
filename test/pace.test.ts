// How many requests are in flight (src/http/limit.ts) and the walk's compact duplicate detection
// (src/battery/digest-set.ts): pure units, no network, no clock.
import { describe, expect, it } from 'vitest';
import { AdaptiveConcurrency, InFlightGate } from '../src/http/limit.js';
import { DigestSet, digest64, MAX_DIGEST_VALUE } from '../src/battery/digest-set.js';
import { MAX_WALK_PAGES } from '../src/battery/paging.js';

/** Feeds `n` answers of `latencyMs` (a window is max(4, limit) answers). */
function feed(pace: AdaptiveConcurrency, n: number, latencyMs: number, throttled = false): void {
  for (let i = 0; i < n; i += 1) pace.observe(latencyMs, throttled);
}

describe('AdaptiveConcurrency', () => {
  it('doubles while the latency stays flat, up to the ceiling and never beyond', () => {
    const pace = new AdaptiveConcurrency({ initial: 4, ceiling: 16, watchLatency: true });
    expect(pace.limit).toBe(4);
    feed(pace, 4, 40);
    expect(pace.limit).toBe(8);
    feed(pace, 8, 41);
    expect(pace.limit).toBe(16);
    feed(pace, 200, 40);
    expect(pace.limit).toBe(16);
    expect(pace.peak).toBe(16);
  });

  it('backs off when the latency rises, down to its floor and not below, then grows one at a time', () => {
    const pace = new AdaptiveConcurrency({ initial: 4, ceiling: 32, watchLatency: true });
    feed(pace, 4, 40);
    feed(pace, 8, 40);
    expect(pace.limit).toBe(16);
    // The server queues: answers take three times as long.
    feed(pace, 16, 120);
    expect(pace.limit).toBe(12);
    const seen: number[] = [];
    for (let i = 0; i < 200; i += 1) {
      feed(pace, 4, 120);
      seen.push(pace.limit);
    }
    expect(Math.min(...seen)).toBe(4);
    expect(pace.stats.backoffs).toBeGreaterThanOrEqual(3);
    // Once the slower latency has become the norm it grows again, by one at a time (no doubling).
    const regrowth = seen.slice(seen.indexOf(4));
    expect(Math.max(...regrowth)).toBeGreaterThan(4);
    for (let i = 1; i < regrowth.length; i += 1)
      expect((regrowth[i] ?? 0) - (regrowth[i - 1] ?? 0)).toBeLessThanOrEqual(1);
  });

  it('does not count a millisecond of jitter on loopback as rising latency', () => {
    const pace = new AdaptiveConcurrency({ initial: 4, ceiling: 16, watchLatency: true });
    feed(pace, 4, 1);
    feed(pace, 8, 3);
    expect(pace.limit).toBe(16);
  });

  it('halves on 429 or 503, below its floor if need be, down to one request at a time', () => {
    const pace = new AdaptiveConcurrency({ initial: 4, ceiling: 16, watchLatency: true });
    pace.observe(10, true);
    expect(pace.limit).toBe(2);
    // The answers to the 4 requests in flight at the back-off, throttled or not, do not halve it again.
    feed(pace, 3, 10, true);
    feed(pace, 1, 10);
    expect(pace.limit).toBe(2);
    pace.observe(10, true);
    expect(pace.limit).toBe(1);
    feed(pace, 2, 10);
    pace.observe(10, true);
    expect(pace.limit).toBe(1);
    expect(pace.stats.throttled).toBe(6);
  });

  it('without watching latency, holds its limit until throttled', () => {
    const pace = new AdaptiveConcurrency({ initial: 32, ceiling: 32, watchLatency: false });
    feed(pace, 100, 500);
    expect(pace.limit).toBe(32);
    pace.observe(5, true);
    expect(pace.limit).toBe(16);
    // Recovers while the answers are not throttled any more.
    feed(pace, 16 + 16 + 20, 5);
    expect(pace.limit).toBeGreaterThan(16);
  });

  it('starts at no more than its ceiling', () => {
    expect(new AdaptiveConcurrency({ initial: 4, ceiling: 1, watchLatency: true }).limit).toBe(1);
  });
});

describe('InFlightGate', () => {
  it('lets through at most the limit, high priority first, then in order', async () => {
    let limit = 2;
    const gate = new InFlightGate(() => limit);
    const order: string[] = [];
    const releases: (() => void)[] = [];
    const take = (name: string, priority: 'high' | 'normal') =>
      Promise.resolve(gate.acquire(priority)).then((release) => {
        order.push(name);
        releases.push(release);
      });
    const all = [take('a', 'normal'), take('b', 'normal'), take('c', 'normal'), take('d', 'high'), take('e', 'normal')];
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual(['a', 'b']);
    expect(gate.inFlight).toBe(2);
    releases[0]?.();
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual(['a', 'b', 'd']);
    // A raised limit lets the next ones through at the next request.
    limit = 4;
    const late = take('f', 'normal');
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual(['a', 'b', 'd', 'c', 'e']);
    for (const release of releases) release();
    await Promise.all([...all, late]);
    expect(order).toEqual(['a', 'b', 'd', 'c', 'e', 'f']);
  });

  it('gives a free slot at once when nobody waits, without listening to the signal; else queues', async () => {
    const gate = new InFlightGate(() => 1);
    const run = new AbortController();
    let listeners = 0;
    const add = run.signal.addEventListener.bind(run.signal);
    Object.assign(run.signal, {
      addEventListener: (...args: Parameters<typeof add>) => ((listeners += 1), add(...args)),
    });
    const first = gate.acquire('high', run.signal);
    expect(typeof first).toBe('function');
    expect(listeners).toBe(0);
    const second = gate.acquire('high', run.signal);
    expect(second).toBeInstanceOf(Promise);
    expect(listeners).toBe(1);
    (first as () => void)();
    (await second)();
    expect(gate.inFlight).toBe(0);
  });

  it('gives up waiting when the signal aborts', async () => {
    const gate = new InFlightGate(() => 1);
    const first = await gate.acquire('normal');
    const stop = new AbortController();
    const waiting = gate.acquire('normal', stop.signal);
    stop.abort(new Error('the run was stopped'));
    await expect(waiting).rejects.toThrow('the run was stopped');
    first();
    expect(gate.inFlight).toBe(0);
  });
});

describe('DigestSet', () => {
  it('tells a key seen before, with the value it was first added with', () => {
    const set = new DigestSet();
    expect(set.addIfAbsent('id:1', 1)).toBeUndefined();
    expect(set.addIfAbsent('id:2', 1)).toBeUndefined();
    expect(set.addIfAbsent('id:1', 7)).toBe(1);
    expect(set.size).toBe(2);
  });

  it('grows past its expected size and keeps every key apart (no false duplicates among 300 000 ids)', () => {
    const set = new DigestSet(1000);
    const small = set.bytes;
    for (let i = 0; i < 300_000; i += 1)
      expect(set.addIfAbsent(`id:9319db14-b2dc-48bc-b478-${String(i).padStart(12, '0')}`, i >> 7)).toBeUndefined();
    expect(set.size).toBe(300_000);
    expect(set.bytes).toBeGreaterThan(small);
    // 10.1 bytes a slot at most 80 % full, doubled at most once too far: well under 40 bytes a key.
    expect(set.bytes / set.size).toBeLessThan(40);
    expect(set.addIfAbsent('id:9319db14-b2dc-48bc-b478-000000123456', 0)).toBe(123456 >> 7);
  });

  it('sizes its table once from the expected count', () => {
    const set = new DigestSet(1_000_000);
    const bytes = set.bytes;
    for (let i = 0; i < 1_000_000; i += 1) set.addIfAbsent(`json:{"n":${i}}`, 1);
    expect(set.bytes).toBe(bytes);
    expect(bytes).toBeLessThan(13 * 2 ** 20);
  });

  it('keeps values up to MAX_DIGEST_VALUE (page numbers up to MAX_WALK_PAGES) across growth, and refuses larger ones', () => {
    expect(MAX_DIGEST_VALUE).toBeGreaterThanOrEqual(MAX_WALK_PAGES);
    const set = new DigestSet();
    const valueOf = (i: number): number => (i * 7919) % (MAX_DIGEST_VALUE + 1);
    for (let i = 0; i < 5000; i += 1) set.addIfAbsent(`id:${i}`, valueOf(i));
    for (let i = 0; i < 5000; i += 1) expect(set.addIfAbsent(`id:${i}`, 0)).toBe(valueOf(i));
    expect(set.addIfAbsent('id:last', MAX_DIGEST_VALUE)).toBeUndefined();
    expect(set.addIfAbsent('id:last', 1)).toBe(MAX_DIGEST_VALUE);
    expect(() => set.addIfAbsent('id:x', MAX_DIGEST_VALUE + 1)).toThrow(RangeError);
    expect(() => set.addIfAbsent('id:x', -1)).toThrow(RangeError);
  });

  it('spreads keys that differ in one character', () => {
    const [a1, a2] = digest64('id:a');
    const [b1, b2] = digest64('id:b');
    expect(a1).not.toBe(b1);
    expect(a2).not.toBe(b2);
  });
});
