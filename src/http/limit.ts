import { onAbort } from './abort-fanout.js';

/**
 * How many requests the harness has in flight to the target, and how that number adapts.
 *
 * Staging environments are shared: the run must not flood them, and it must notice when it is
 * too much for them. `AdaptiveConcurrency` is an AIMD controller (as TCP's congestion control):
 * it starts at `initial`, doubles while the latency stays flat (slow start), then grows by one
 * per window of answers; it steps back to `floor` when the latency rises (the server queues) and
 * halves on 429 or 503 (the server says so, RFC 6585 §4, RFC 9110 §15.6.4), down to one request
 * at a time. It never exceeds `ceiling`. Concurrency changes only the pace, never a verdict.
 */

/**
 * The politeness bound: the most requests a run has in flight to the target at once (each
 * worker's HTTP client; --concurrency above it raises it). A conformance run is a few hundred
 * requests, not a load test: this keeps it at the scale of a busy browser session.
 */
export const MAX_IN_FLIGHT = 32;

export interface AdaptiveOptions {
  /** The limit to start at. */
  initial: number;
  /** Never more than this (the politeness bound, or --concurrency). */
  ceiling: number;
  /** Rising latency backs off to this; only 429/503 go below it (default: `initial`). */
  floor?: number;
  /** Watch the latency (a walk's pages, alike); otherwise only 429/503 back off. */
  watchLatency: boolean;
}

/** Latency within this factor of the best window's (plus LATENCY_SLACK_MS) counts as flat. */
const FLAT = 1.25;
/** Latency beyond this factor of the best window's (plus LATENCY_SLACK_MS) counts as rising. */
const RISING = 2;
/** Absolute slack: on loopback a millisecond of jitter is not a server queueing up. */
const LATENCY_SLACK_MS = 5;
/** The best window median is forgotten slowly (per window), so a lasting change of route is learnt. */
const BASELINE_DRIFT = 1.02;

export class AdaptiveConcurrency {
  #limit: number;
  #peak: number;
  readonly #ceiling: number;
  readonly #floor: number;
  readonly #watchLatency: boolean;
  #slowStart = true;
  #window: number[] = [];
  #baseline = Infinity;
  /** Answers still to come from requests sent before the last back-off: they say nothing new. */
  #cooldown = 0;
  #throttled = 0;
  #backoffs = 0;

  constructor(options: AdaptiveOptions) {
    this.#ceiling = Math.max(1, Math.floor(options.ceiling));
    this.#limit = Math.min(this.#ceiling, Math.max(1, Math.floor(options.initial)));
    this.#floor = Math.min(this.#limit, Math.max(1, Math.floor(options.floor ?? this.#limit)));
    this.#watchLatency = options.watchLatency;
    this.#peak = this.#limit;
  }

  get limit(): number {
    return this.#limit;
  }

  /** The highest limit reached so far. */
  get peak(): number {
    return this.#peak;
  }

  get ceiling(): number {
    return this.#ceiling;
  }

  /** Answers that were 429 or 503, and how often the limit was lowered. */
  get stats(): { throttled: number; backoffs: number } {
    return { throttled: this.#throttled, backoffs: this.#backoffs };
  }

  /** An answer arrived `latencyMs` after its request was sent; `throttled`: it was a 429 or 503. */
  observe(latencyMs: number, throttled = false): void {
    if (throttled) this.#throttled += 1;
    // Answers to requests sent before the last back-off were caused by the old limit.
    if (this.#cooldown > 0) {
      this.#cooldown -= 1;
      return;
    }
    if (throttled) {
      this.#lower(Math.max(1, Math.floor(this.#limit / 2)));
      return;
    }
    this.#window.push(latencyMs);
    // A window is as many answers as requests in flight: one round of the pipeline.
    if (this.#window.length < Math.max(4, this.#limit)) return;
    const median = medianOf(this.#window);
    this.#window = [];
    this.#baseline = Math.min(median, this.#baseline * BASELINE_DRIFT);
    if (this.#watchLatency && median > this.#baseline * RISING + LATENCY_SLACK_MS) {
      if (this.#limit > this.#floor) this.#lower(Math.max(this.#floor, Math.floor(this.#limit * 0.75)));
      return;
    }
    if (this.#watchLatency && median > this.#baseline * FLAT + LATENCY_SLACK_MS) return;
    const next = Math.min(this.#ceiling, this.#slowStart ? this.#limit * 2 : this.#limit + 1);
    this.#limit = next;
    this.#peak = Math.max(this.#peak, next);
  }

  #lower(to: number): void {
    this.#backoffs += 1;
    this.#slowStart = false;
    this.#cooldown = this.#limit;
    this.#window = [];
    this.#limit = to;
  }
}

function medianOf(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/**
 * A gate of `limit()` slots: a request waits for a slot before it is sent, and frees it when its
 * answer is in. `high` requests (ones that others wait for: the valid answers, a walk's pages)
 * are let through before `normal` ones. The limit may change between calls.
 */
export class InFlightGate {
  #inFlight = 0;
  readonly #waiting: { high: (() => void)[]; normal: (() => void)[] } = { high: [], normal: [] };

  constructor(private readonly limit: () => number) {}

  get inFlight(): number {
    return this.#inFlight;
  }

  /**
   * The function that frees the slot (call it exactly once): at once when a slot is free and
   * nobody waits (no promise, no listener: most requests of a walk), else once one is.
   */
  acquire(priority: 'high' | 'normal', signal?: AbortSignal): (() => void) | Promise<() => void> {
    if (
      !signal?.aborted &&
      this.#inFlight < this.limit() &&
      this.#waiting.high.length === 0 &&
      this.#waiting.normal.length === 0
    ) {
      this.#inFlight += 1;
      return this.#release();
    }
    return this.#wait(priority, signal);
  }

  async #wait(priority: 'high' | 'normal', signal?: AbortSignal): Promise<() => void> {
    await new Promise<void>((resolve, reject) => {
      const queue = this.#waiting[priority];
      const cancel = (): void => {
        const at = queue.indexOf(go);
        if (at >= 0) queue.splice(at, 1);
        reject(signal?.reason instanceof Error ? signal.reason : new Error(String(signal?.reason ?? 'aborted')));
      };
      // One listener on the signal for all its waiters (abort-fanout.ts), not one each.
      let unlisten: (() => void) | undefined;
      const go = (): void => {
        unlisten?.();
        resolve();
      };
      if (signal?.aborted) return cancel();
      if (signal) unlisten = onAbort(signal, cancel);
      queue.push(go);
      // The limit may have grown since the last answer: let through whoever fits now.
      this.#pump();
    });
    return this.#release();
  }

  #release(): () => void {
    let freed = false;
    return () => {
      if (freed) return;
      freed = true;
      this.#inFlight -= 1;
      this.#pump();
    };
  }

  #pump(): void {
    while (this.#inFlight < this.limit()) {
      const next = this.#waiting.high.shift() ?? this.#waiting.normal.shift();
      if (!next) return;
      this.#inFlight += 1;
      next();
    }
  }
}
