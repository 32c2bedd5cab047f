/**
 * The deadlines (--timeout) of a client's requests in flight, kept with one timer and one
 * listener on the run's signal for all of them, not a timer and a listener per request: a walk
 * of 10,000 pages at 16 in flight otherwise arms and clears 10,000 timers and listeners.
 *
 * Every request gets the same timeout, so the order in which they start is the order in which
 * they fall due: a linked list in that order, the timer armed for its oldest request.
 */

export interface Deadline {
  /** Why the request was stopped: it fell due (a TimeoutError) or the run stopped (the run's reason). Undefined while it may run. */
  reason: unknown;
  /** Called once with the reason when it is stopped (a plain callback: no AbortController and listener per request). */
  readonly onAbort: (reason: unknown) => void;
  readonly due: number;
  prev: Deadline | undefined;
  next: Deadline | undefined;
  ended: boolean;
}

/** setTimeout's longest delay (a 32-bit signed count of ms); a longer one would fire at once. */
const MAX_DELAY_MS = 2 ** 31 - 1;

export class Deadlines {
  readonly #timeoutMs: number;
  readonly #runSignal: AbortSignal | undefined;
  #oldest: Deadline | undefined;
  #newest: Deadline | undefined;
  #timer: NodeJS.Timeout | undefined;
  #listening = false;

  constructor(timeoutMs: number, runSignal?: AbortSignal) {
    this.#timeoutMs = timeoutMs;
    this.#runSignal = runSignal;
  }

  /**
   * A request starts: its deadline, which `end` must be given once it has its answer or failed.
   * When the run has already stopped, the deadline comes back stopped (its `reason` set) and
   * `onAbort` is not called.
   */
  start(onAbort: (reason: unknown) => void = () => undefined): Deadline {
    const d: Deadline = {
      reason: undefined,
      onAbort,
      due: performance.now() + this.#timeoutMs,
      prev: this.#newest,
      next: undefined,
      ended: false,
    };
    const run = this.#runSignal;
    if (run?.aborted) {
      d.ended = true;
      d.reason = run.reason;
      return d;
    }
    if (this.#newest) this.#newest.next = d;
    else this.#oldest = d;
    this.#newest = d;
    if (!this.#timer) this.#arm();
    if (run && !this.#listening) {
      this.#listening = true;
      run.addEventListener('abort', this.#onRunAbort, { once: true });
    }
    return d;
  }

  /** The request is over: its deadline no longer runs. Idempotent. */
  end(d: Deadline): void {
    if (d.ended) return;
    d.ended = true;
    if (d.prev) d.prev.next = d.next;
    else this.#oldest = d.next;
    if (d.next) d.next.prev = d.prev;
    else this.#newest = d.prev;
    d.prev = d.next = undefined;
    if (this.#oldest === undefined) this.#idle();
  }

  /** Requests in flight (for tests). */
  get size(): number {
    let n = 0;
    for (let d = this.#oldest; d; d = d.next) n += 1;
    return n;
  }

  /** Whether a timer is armed (for tests: none while nothing is in flight). */
  get armed(): boolean {
    return this.#timer !== undefined;
  }

  #arm(): void {
    const oldest = this.#oldest;
    if (!oldest) return;
    const delay = Math.min(MAX_DELAY_MS, Math.max(0, Math.ceil(oldest.due - performance.now())));
    this.#timer = setTimeout(this.#onTimer, delay);
  }

  /** Nothing in flight: no timer, no listener (the client may stay idle for long). */
  #idle(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#listening) this.#runSignal?.removeEventListener('abort', this.#onRunAbort);
    this.#listening = false;
  }

  readonly #onTimer = (): void => {
    this.#timer = undefined;
    const now = performance.now();
    for (let d = this.#oldest; d && d.due <= now; d = this.#oldest) {
      this.end(d);
      stop(d, new DOMException(`no complete response within ${this.#timeoutMs} ms`, 'TimeoutError'));
    }
    if (this.#oldest && !this.#timer) this.#arm();
  };

  readonly #onRunAbort = (): void => {
    this.#listening = false;
    const reason: unknown = this.#runSignal?.reason;
    for (let d = this.#oldest; d; d = this.#oldest) {
      this.end(d);
      stop(d, reason);
    }
  };
}

function stop(d: Deadline, reason: unknown): void {
  d.reason = reason;
  try {
    d.onAbort(reason);
  } catch {
    // One request's abort must not keep the others from theirs (nor the timer from re-arming):
    // the caller learns of the stop from `reason` all the same.
  }
}
