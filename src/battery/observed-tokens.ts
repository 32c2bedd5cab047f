import type { TokenRefusal } from '../http/client.js';
import type { ObservedMessage, PassedRefusal } from './wiring.js';

/**
 * What the run observed of its shared access tokens, for EXPIRY-VALID-BEFORE (issue 30): a token
 * whose expires_in is too long to wait out can still be seen to stop working early, by any check.
 *
 * The expiry suite runs in a worker of its own (src/runner/vitest-run.ts), the other suites in
 * another, so what this worker sees is told to the other one over the run's channel
 * (src/battery/context.ts, ObservedMessage):
 * - every shared token refused while its expires_in vouched for it, where another token then got
 *   past authentication (HttpClient.send reports it, SharedTokens forwards it here);
 * - when the other suites have run their last check (`checks-done`), with every refusal again: a
 *   message posted before the expiry worker listened is not lost.
 */

/** Something that carries messages to the other workers (the run's BroadcastChannel). */
interface Poster {
  postMessage(message: unknown): void;
}

let channel: Poster | undefined;
/** Every refusal known here: seen by this worker or told by another. */
const refusals: PassedRefusal[] = [];
/** The refusals this worker saw itself, to tell again with `checks-done`. */
const own: PassedRefusal[] = [];
/** This worker runs the suites other than expiry (suites/battery.test.ts), and `done` once their last check has ended. */
const others = { here: false, done: false };
/** What this worker was told of the other suites' worker. */
const told = { done: false, answeredAt: 0 };
const wakers = new Set<() => void>();

/** The channel to tell the other workers on; undefined once the run has stopped (src/battery/context.ts). */
export function observedChannel(c: Poster | undefined): void {
  channel = c;
}

function post(message: ObservedMessage): void {
  try {
    channel?.postMessage(message);
  } catch {
    // A channel closed meanwhile (the run stopped): there is no one left to tell.
  }
}

function wake(): void {
  for (const w of [...wakers]) w();
}

function add(r: PassedRefusal): void {
  if (refusals.some((k) => k.requestedAt === r.requestedAt && k.sentAt === r.sentAt && k.request === r.request)) return;
  refusals.push(r);
}

/** A message of another worker (src/battery/context.ts hands them over). */
export function receiveObserved(message: ObservedMessage): void {
  switch (message.type) {
    case 'token-refused':
      add(message.refusal);
      break;
    case 'checks-done':
      for (const r of message.refusals) add(r);
      told.done = true;
      told.answeredAt = Date.now();
      break;
    case 'checks-running':
      told.answeredAt = Date.now();
      break;
    case 'checks-status?':
      if (others.here) post(others.done ? { type: 'checks-done', refusals: own } : { type: 'checks-running' });
      return;
  }
  wake();
}

/** A shared token was refused early (SharedTokens.refusedBeforeExpiry): kept, and told to the expiry worker. */
export function recordRefusal(r: TokenRefusal): void {
  const plain: PassedRefusal = {
    request: r.request,
    requestedAt: r.requestedAt,
    declaredValidUntil: r.declaredValidUntil,
    sentAt: r.sentAt,
    receivedAt: r.receivedAt,
    thenStatus: r.thenStatus,
    ...(r.record ? { record: r.record } : {}),
  };
  add(plain);
  own.push(plain);
  post({ type: 'token-refused', refusal: plain });
  wake();
}

/** Every refusal of a shared token seen so far, here or by the other worker. */
export function observedRefusals(): readonly PassedRefusal[] {
  return refusals;
}

/**
 * This worker runs the suites other than expiry (suites/battery.test.ts, once the run's context
 * has come): it says so at once, since the expiry worker may have asked before it was listening,
 * and answers `checks-status?` from then on.
 */
export function runsOtherChecks(): void {
  others.here = true;
  post({ type: 'checks-running' });
}

/** The last of the other suites' checks has ended (suites/battery.test.ts, afterAll). */
export function otherChecksDone(): void {
  others.done = true;
  post({ type: 'checks-done', refusals: own });
}

/**
 * How long the other worker has to answer `checks-status?` before it is taken to be gone: once it
 * has been heard from, ANSWER_MS; before, NEVER_HEARD_MS (it may still be loading the battery's
 * modules on a busy machine). Taken to be gone, it costs the observation only the part of the
 * lifetime after the probe, never a verdict on no evidence.
 */
export const ANSWER_MS = 3000;
export const NEVER_HEARD_MS = 20_000;
/** How often it is asked again while its checks run (a worker that died never says `checks-done`). */
const ASK_EVERY_MS = 5000;

/**
 * Waits until the other suites' checks have ended ('done'), `until` has come ('time'), the
 * run has stopped ('stopped'), `enough()` holds ('enough': evidence in hand), or the other
 * worker did not answer for ANSWER_MS ('gone': ended, its channel closed, or never started).
 */
export async function untilOtherChecksEnd(o: {
  until: number;
  signal: AbortSignal;
  enough: () => boolean;
}): Promise<'done' | 'time' | 'stopped' | 'enough' | 'gone'> {
  let askedAt = 0;
  for (;;) {
    if (o.signal.aborted) return 'stopped';
    if (o.enough()) return 'enough';
    if (told.done || others.done) return 'done';
    const now = Date.now();
    if (now >= o.until) return 'time';
    const grace = told.answeredAt > 0 ? ANSWER_MS : NEVER_HEARD_MS;
    if (askedAt > 0 && told.answeredAt < askedAt && now - askedAt >= grace) return 'gone';
    if (askedAt === 0 || (told.answeredAt >= askedAt && now - askedAt >= ASK_EVERY_MS)) {
      askedAt = now;
      post({ type: 'checks-status?' });
    }
    const answerDue = told.answeredAt < askedAt ? askedAt + grace : askedAt + ASK_EVERY_MS;
    await nextEvent(Math.max(0, Math.min(o.until, answerDue) - Date.now()), o.signal);
  }
}

/** Waits until `until` ('time'), the run stops ('stopped') or `enough()` holds ('enough'). */
export async function untilEvidence(o: {
  until: number;
  signal: AbortSignal;
  enough: () => boolean;
}): Promise<'time' | 'stopped' | 'enough'> {
  for (;;) {
    if (o.signal.aborted) return 'stopped';
    if (o.enough()) return 'enough';
    if (Date.now() >= o.until) return 'time';
    await nextEvent(o.until - Date.now(), o.signal);
  }
}

/** Resolves on the next message or refusal, after `ms`, or when `signal` aborts. */
function nextEvent(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      wakers.delete(done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    wakers.add(done);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** For the harness's own tests: forgets what was observed. */
export function resetObserved(): void {
  refusals.length = 0;
  own.length = 0;
  others.here = false;
  others.done = false;
  told.done = false;
  told.answeredAt = 0;
}
