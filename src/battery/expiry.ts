import { setTimeout as sleep } from 'node:timers/promises';
import { USER_PATH } from '../api/paths.js';
import { getResource, readIssuedToken } from '../api/requests.js';
import type { HttpResponse } from '../http/client.js';
import type { CheckContext } from './check.js';
import { PrerequisiteError } from './errors.js';
import { requestValidToken } from './token-response.js';

/**
 * The expiry timeline (spec §Authentication 3: after expires_in seconds the token is invalid).
 *
 * It is built on the token the runner obtained before Vitest even started, so the wait for
 * expiry runs while every other suite does its work; only when that token is too old for the
 * "shortly before" probe does the suite fetch one of its own.
 *
 * Timing, in epoch ms, with T = expires_in:
 * - the token is first tried right after it arrived: a token the API never accepts cannot show
 *   when it stops being accepted, so every expiry check is then an error, not a pass;
 * - the server cannot have issued the token before `sentAt`, so it is valid until at least
 *   `sentAt + T` — to the second only: expires_in is whole seconds, and servers that compute
 *   `exp = floor(iat) + T` (JWT issuers, RFC 7519 §4.1.4 NumericDate) end a token up to 1 s
 *   early. The "before" probe is therefore sent 1 s plus the observed round trip ahead;
 * - it cannot have issued it after `receivedAt`, so from `receivedAt + T` on it must be refused;
 *   the server gets `--expiry-margin` seconds of clock margin, polled every 100 ms, so the check
 *   ends as soon as the server refuses.
 */

export interface Timeline {
  token: string;
  expiresIn: number;
  sentAt: number;
  receivedAt: number;
  /** GET /users/me with the token right after it arrived: the precondition of every expiry check. */
  first: HttpResponse;
  /** The slowest round trip seen so far (the token request, the first probe), in ms. */
  roundTripMs: number;
}

const POLL_MS = 100;
/** Whole-second expires_in: a conformant server may end a token up to this much early. */
export const CLOCK_GRANULARITY_MS = 1000;
let timeline: Promise<Timeline> | undefined;
let expiry: Promise<ExpiryObservation> | undefined;

/** How late a timer may fire on a busy machine; the lead allows for it. */
export const TIMER_SLACK_MS = 100;

/** How far ahead of `sentAt + T` the "before" probe is sent: 1 s granularity, a round trip, timer slack. */
export function lead(t: Pick<Timeline, 'roundTripMs'>): number {
  return CLOCK_GRANULARITY_MS + t.roundTripMs + TIMER_SLACK_MS;
}

/** When the "shortly before" probe is sent (never before the token arrived). */
export function probeBeforeAt(t: Pick<Timeline, 'sentAt' | 'receivedAt' | 'expiresIn' | 'roundTripMs'>): number {
  return Math.max(t.receivedAt, t.sentAt + t.expiresIn * 1000 - lead(t));
}

/** The first moment the token must be refused, and the last one the margin allows. */
export function mustBeRefusedFrom(t: Pick<Timeline, 'receivedAt' | 'expiresIn'>, marginSeconds: number): { from: number; deadline: number } {
  const from = t.receivedAt + t.expiresIn * 1000;
  return { from, deadline: from + marginSeconds * 1000 };
}

/** The token the timeline follows (shared by the expiry checks of this worker). */
export function getTimeline(c: CheckContext): Promise<Timeline> {
  timeline ??= buildTimeline(c);
  return timeline;
}

async function buildTimeline(c: CheckContext): Promise<Timeline> {
  const shared = c.settings.sharedToken;
  const preflighted = shared && { token: shared.accessToken, expiresIn: shared.expiresIn, sentAt: shared.sentAt, receivedAt: shared.receivedAt, roundTripMs: shared.receivedAt - shared.sentAt };
  // The runner's token, unless it is already too old to probe shortly before its expiry.
  const usable = (t: Omit<Timeline, 'first'>): boolean => Date.now() < probeBeforeAt(t) - POLL_MS;
  for (const candidate of [preflighted && usable(preflighted) ? preflighted : undefined, 'own' as const]) {
    if (candidate === undefined) continue;
    const issued = candidate === 'own' ? await ownToken(c) : candidate;
    const probeSent = Date.now();
    const first = await probe(c, issued.token, 'GET /users/me with the token just issued (does the API accept it at all?)');
    const t = { ...issued, first, roundTripMs: Math.max(issued.roundTripMs, Date.now() - probeSent) };
    // A slow first probe moves the "before" probe earlier: past already, the runner's token is too old.
    if (candidate === 'own' || Date.now() <= probeBeforeAt(t)) return t;
  }
  throw new Error('unreachable: the own token is always returned');
}

async function ownToken(c: CheckContext): Promise<Omit<Timeline, 'first'>> {
  const sentAt = Date.now();
  const res = await requestValidToken(c);
  const receivedAt = Date.now();
  const issued = readIssuedToken(res);
  if (!issued) throw new PrerequisiteError(`cannot follow a token to its expiry: the token request answered ${res.status} without a usable token (see TOKEN-ISSUE)`);
  if (!Number.isInteger(issued.expiresIn) || issued.expiresIn <= 0) throw new PrerequisiteError(`cannot follow a token to its expiry: expires_in is not a positive integer (see TOKEN-EXPIRES-IN)`);
  return { token: issued.accessToken, expiresIn: issued.expiresIn, sentAt, receivedAt, roundTripMs: receivedAt - sentAt };
}

/**
 * The precondition of every expiry check: the API accepted the token when it was new. Otherwise
 * records an error that names the cause (a refusal before expiry proves nothing about expiry)
 * and returns false.
 */
export function acceptedWhenNew(c: CheckContext, t: Timeline): boolean {
  if (t.first.status === 200) return true;
  c.error(
    `cannot observe expiry: GET /users/me refused the token right after it was issued (${t.first.status}), so it never worked; see TOKEN-WORKS (does the API accept tokens from ${c.target.authUrl === c.target.baseUrl ? 'its token endpoint' : `--auth-url ${c.target.authUrl}`}?)`,
    t.first,
  );
  return false;
}

/** Skips the check when waiting out expires_in would take longer than --max-expiry-wait. */
export function skipUnlessWaitable(c: CheckContext, t: Timeline): void {
  const max = c.settings.maxExpiryWaitSeconds;
  if (t.expiresIn > max) {
    c.skip(`expires_in is ${t.expiresIn} s, longer than --max-expiry-wait ${max} s; pass --max-expiry-wait ${t.expiresIn} to wait it out`);
  }
}

/** Waits until `epochMs`, or until the run is cancelled (then the check's requests fail at once). */
export async function sleepUntil(epochMs: number, signal: AbortSignal): Promise<void> {
  const ms = epochMs - Date.now();
  if (ms > 0) await sleep(ms, undefined, { signal }).catch(() => undefined);
}

/** GET /users/me with the timeline's token (never the shared one: no renewal, no retry). */
export function probe(c: CheckContext, token: string, purpose: string): Promise<HttpResponse> {
  return getResource(c.send, c.target, { path: USER_PATH, auth: { kind: 'bearer', token }, purpose });
}

export interface ExpiryObservation {
  /** The first response that refused the token, if the server did within the margin. */
  refused?: HttpResponse;
  /** The last response that still accepted it. */
  lastAccepted?: HttpResponse;
  /** Seconds after `receivedAt + expires_in` at which the refusal was seen (or the deadline). */
  secondsLate: number;
}

/**
 * Waits for the token to expire and polls until the server refuses it or the margin runs out.
 * Done once per worker; later checks reuse the observation.
 */
export function observeExpiry(c: CheckContext, t: Timeline): Promise<ExpiryObservation> {
  expiry ??= (async () => {
    const { from, deadline } = mustBeRefusedFrom(t, c.settings.expiryMarginSeconds);
    await sleepUntil(from, c.signal);
    let lastAccepted: HttpResponse | undefined;
    for (let attempt = 0; attempt < 1000; attempt += 1) {
      const res = await probe(c, t.token, 'GET /users/me with a token whose expires_in has passed');
      const secondsLate = (Date.now() - from) / 1000;
      if (res.status !== 200) return { refused: res, secondsLate, ...(lastAccepted ? { lastAccepted } : {}) };
      lastAccepted = res;
      if (Date.now() >= deadline) return { lastAccepted, secondsLate };
      await sleepUntil(Date.now() + Math.min(POLL_MS, Math.max(0, deadline - Date.now())), c.signal);
      if (c.signal.aborted) break;
    }
    return { ...(lastAccepted ? { lastAccepted } : {}), secondsLate: (Date.now() - from) / 1000 };
  })();
  return expiry;
}
