import { setTimeout as sleep } from 'node:timers/promises';
import { USER_PATH } from '../carrier/paths.js';
import { getResource, readIssuedToken } from '../carrier/requests.js';
import {
  Evidence,
  RequestRefusedError,
  TransportError,
  UnavailableError,
  WHOLE_SECOND_MS,
  type HttpResponse,
} from '../http/client.js';
import type { CheckContext } from './check.js';
import { PrerequisiteError } from './errors.js';
import { requestValidToken } from './token-response.js';
import { judgeOfMissingToken } from './token.js';
import { observedRefusals, recordRefusal, untilEvidence, untilOtherChecksEnd } from './observed-tokens.js';
import { DEFAULT_MAX_EXPIRY_WAIT_SECONDS } from '../core/option-defaults.js';
import type { PassedRefusal } from './wiring.js';
import { getCheck } from '../catalogue/index.js';

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
 * - it cannot have issued it after `receivedAt`, so from `receivedAt + T` on it must be refused,
 *   within a second (whole-second rounding the other way) plus `--expiry-margin` seconds of clock
 *   margin, polled every 100 ms, so the check ends as soon as the server refuses.
 */

export interface Timeline {
  token: string;
  expiresIn: number;
  sentAt: number;
  receivedAt: number;
  /** GET /users/me with the token right after it arrived: the precondition of every expiry check. */
  first: HttpResponse;
  /** Epoch ms when that probe was sent. */
  firstSentAt: number;
  /** The slowest round trip seen so far (the token request, the first probe), in ms. */
  roundTripMs: number;
  /**
   * Set when the suite asked for a token of its own once the runner's may have expired, was
   * handed that very token again, and the API refused it (see reissuedAfterExpiry): seconds since
   * the runner's was issued, and its expires_in.
   */
  reissuedAfterExpiry?: { secondsAfter: number; expiresIn: number };
}

const POLL_MS = 100;
let timeline: Promise<Timeline> | undefined;
let expiry: Promise<ExpiryObservation> | undefined;

/** How late a timer may fire on a busy machine; the lead allows for it. */
export const TIMER_SLACK_MS = 100;

/** How far ahead of `sentAt + T` the "before" probe is sent: 1 s granularity, a round trip, timer slack. */
export function lead(t: Pick<Timeline, 'roundTripMs'>): number {
  return WHOLE_SECOND_MS + t.roundTripMs + TIMER_SLACK_MS;
}

/** When the "shortly before" probe is sent (never before the token arrived). */
export function probeBeforeAt(t: Pick<Timeline, 'sentAt' | 'receivedAt' | 'expiresIn' | 'roundTripMs'>): number {
  return Math.max(t.receivedAt, t.sentAt + t.expiresIn * 1000 - lead(t));
}

/**
 * The first moment the token may be refused for sure, and the last one it may still be accepted:
 * a second more than `receivedAt + expires_in` for whole-second rounding (a server that rounds the
 * time left down, as @node-oauth/oauth2-server does, declares T - 1 for a token that lives T),
 * plus the clock margin of --expiry-margin.
 */
export function mustBeRefusedFrom(
  t: Pick<Timeline, 'receivedAt' | 'expiresIn'>,
  marginSeconds: number,
): { from: number; deadline: number } {
  const from = t.receivedAt + t.expiresIn * 1000;
  return { from, deadline: from + WHOLE_SECOND_MS + marginSeconds * 1000 };
}

/** The token the timeline follows (shared by the expiry checks of this worker). */
export function getTimeline(c: CheckContext): Promise<Timeline> {
  timeline ??= buildTimeline(c);
  return timeline;
}

async function buildTimeline(c: CheckContext): Promise<Timeline> {
  const shared = c.settings.sharedToken;
  const preflighted = shared && {
    token: shared.accessToken,
    expiresIn: shared.expiresIn,
    sentAt: shared.sentAt,
    receivedAt: shared.receivedAt,
    roundTripMs: shared.receivedAt - shared.sentAt,
  };
  // The runner's token, unless it is already too old to probe shortly before its expiry; a slow
  // first probe moves the "before" probe earlier, and past already, the token is too old too. It
  // may also be refused already (a server that ends tokens early): whether the API accepts
  // tokens at all is then asked with one of the suite's own, right after issue.
  let refusedFirst: Timeline | undefined;
  if (preflighted && Date.now() < probeBeforeAt(preflighted) - POLL_MS) {
    const t = await startTimeline(c, preflighted);
    if (t.first.status === 200 && Date.now() <= probeBeforeAt(t)) return t;
    if (t.first.status === 401 || t.first.status === 403) refusedFirst = t;
  }
  const fresh = await freshTimeline(c);
  // The runner's token refused where a new one works: the run's shared token stopped working,
  // evidence for EXPIRY-VALID-BEFORE if its expires_in still vouched for it (judgeRefusal).
  if (refusedFirst && fresh.first.status === 200) {
    const { first, firstSentAt, sentAt, expiresIn } = refusedFirst;
    recordRefusal({
      request: `GET ${USER_PATH}`,
      requestedAt: sentAt,
      declaredValidUntil: sentAt + expiresIn * 1000,
      sentAt: firstSentAt,
      receivedAt: first.receivedAt,
      thenStatus: 200,
      ...(first.evidence ? { record: first.evidence.record } : {}),
    });
  }
  const again = preflighted && reissuedAfterExpiry(preflighted, fresh, c.settings.expiryMarginSeconds);
  if (again) fresh.reissuedAfterExpiry = again;
  return fresh;
}

/**
 * Whether the suite's own token is a failed renewal (EXPIRY-RENEW), whenever the suite happened
 * to start: the token endpoint handed back the runner's token once that token may have expired
 * (from `sentAt + T` less a second of rounding, see Timeline), and either
 * - it was asked for when the runner's token must already be refused (after the deadline), or
 * - the API refused it while the reissued response's own expires_in still vouched for it (its
 *   first probe was answered before `sentAt + expires_in` less a second).
 * A server that hands the same token out again with what is left of its lifetime, and refuses it
 * once that runs out, is neither: RFC 6749 §5.1 does not forbid handing a token out twice.
 */
export function reissuedAfterExpiry(
  preflighted: Pick<Timeline, 'token' | 'expiresIn' | 'sentAt' | 'receivedAt'>,
  fresh: Pick<Timeline, 'token' | 'expiresIn' | 'sentAt'> & { first: Pick<HttpResponse, 'status' | 'receivedAt'> },
  marginSeconds: number,
): Timeline['reissuedAfterExpiry'] {
  if (fresh.token !== preflighted.token || fresh.first.status === 200) return undefined;
  const mayHaveExpired = fresh.sentAt >= preflighted.sentAt + preflighted.expiresIn * 1000 - WHOLE_SECOND_MS;
  const mustBeRefused = fresh.sentAt >= mustBeRefusedFrom(preflighted, marginSeconds).deadline;
  // ownToken has checked that expires_in is a positive integer.
  const refusedWhileVouchedFor = fresh.first.receivedAt < fresh.sentAt + fresh.expiresIn * 1000 - WHOLE_SECOND_MS;
  if (!mayHaveExpired || !(mustBeRefused || refusedWhileVouchedFor)) return undefined;
  return { secondsAfter: Math.floor((fresh.sentAt - preflighted.receivedAt) / 1000), expiresIn: preflighted.expiresIn };
}

/** A timeline on a token of the suite's own, asked for now. */
export async function freshTimeline(c: CheckContext): Promise<Timeline> {
  // A refusal answered when the token may already have ended (a loaded machine or a slow link
  // against a 2 s token) says nothing of whether the API accepts tokens: a new token, a few times.
  let t = await startTimeline(c, await ownToken(c));
  for (let tries = 1; tries < FIRST_USE_TRIES && t.first.status !== 200 && refusedLate(t) && !c.signal.aborted; tries++)
    t = await startTimeline(c, await ownToken(c));
  return t;
}

/** Tokens a timeline may take before a refusal on first use is judged (each refused too late to say). */
const FIRST_USE_TRIES = 3;

/** The first use was answered when a whole-second clock may already have ended the token. */
function refusedLate(t: Timeline): boolean {
  return t.first.receivedAt > t.sentAt + t.expiresIn * 1000 - WHOLE_SECOND_MS;
}

async function startTimeline(c: CheckContext, issued: Omit<Timeline, 'first' | 'firstSentAt'>): Promise<Timeline> {
  const probeSent = Date.now();
  const first = await probe(
    c,
    issued.token,
    'GET /users/me with the token just issued (does the API accept it at all?)',
  );
  return {
    ...issued,
    first,
    firstSentAt: probeSent,
    roundTripMs: Math.max(issued.roundTripMs, Date.now() - probeSent),
  };
}

/**
 * The "shortly before" probe of a timeline: 'accepted', 'judged' (refused while the token was
 * surely valid: a failure recorded), or 'inconclusive' (the probe could not be sent in time, or
 * its refusal arrived when a whole-second clock may already have ended the token).
 */
export async function probeShortlyBefore(
  c: CheckContext,
  t: Timeline,
): Promise<'accepted' | 'judged' | 'inconclusive'> {
  const at = probeBeforeAt(t);
  if (at > t.receivedAt && Date.now() > at + TIMER_SLACK_MS) {
    c.note(
      `the probe before expiry could not be sent in time (${((Date.now() - at) / 1000).toFixed(1)} s late): a busy moment`,
    );
    return 'inconclusive';
  }
  if (at === t.receivedAt)
    c.note(
      `expires_in (${t.expiresIn} s) is too short to probe closer to its end than right after issue: the probe must lead by a second of clock granularity plus the ${t.roundTripMs} ms round trip`,
    );
  await sleepUntil(at, c.signal);
  const secondsLeft = (t.sentAt + t.expiresIn * 1000 - Date.now()) / 1000;
  const what = `GET /users/me ${secondsLeft.toFixed(1)} s before the token's expires_in (${t.expiresIn} s) runs out`;
  const res = await probe(
    c,
    t.token,
    `GET /users/me with a token that has ${secondsLeft.toFixed(1)} s left of its expires_in`,
  );
  if (res.status === 200) return 'accepted';
  if (res.receivedAt > t.sentAt + t.expiresIn * 1000 - WHOLE_SECOND_MS) {
    c.note(
      `${what}: refused, but the answer came ${((res.receivedAt - at) / 1000).toFixed(1)} s after the probe was sent, when a whole-second clock may already have ended the token: not evidence either way`,
    );
    return 'inconclusive';
  }
  c.fail(`${what}: expected 200, got ${res.status}`, res);
  return 'judged';
}

async function ownToken(c: CheckContext): Promise<Omit<Timeline, 'first' | 'firstSentAt'>> {
  const sentAt = Date.now();
  const res = await requestValidToken(c);
  const receivedAt = Date.now();
  const issued = readIssuedToken(res);
  if (!issued)
    throw new PrerequisiteError(
      `cannot follow a token to its expiry: the token request answered ${res.status} without a usable token (see ${judgeOfMissingToken(res)})`,
    );
  if (!Number.isInteger(issued.expiresIn) || issued.expiresIn <= 0)
    throw new PrerequisiteError(
      `cannot follow a token to its expiry: expires_in is not a positive integer (see TOKEN-EXPIRES-IN)`,
    );
  return {
    token: issued.accessToken,
    expiresIn: issued.expiresIn,
    sentAt,
    receivedAt,
    roundTripMs: receivedAt - sentAt,
  };
}

/**
 * The precondition of every expiry check: the API accepted the token when it was new. Otherwise
 * records an error that names the cause (a refusal before expiry proves nothing about expiry)
 * and returns false.
 */
export function acceptedWhenNew(c: CheckContext, t: Timeline): boolean {
  if (t.first.status === 200) return true;
  if (refusedLate(t)) {
    c.error(
      `cannot observe expiry: GET /users/me with a token just issued was refused (${t.first.status}) ${((t.first.receivedAt - t.sentAt) / 1000).toFixed(1)} s after the token was requested, when its ${t.expiresIn} s may already have ended (${FIRST_USE_TRIES} tokens tried): the round trips are too slow to observe so short a lifetime; not evidence that the API refuses its tokens`,
      t.first,
    );
    return false;
  }
  c.error(
    `cannot observe expiry: GET /users/me refused the token right after it was issued (${t.first.status}), so it never worked; see TOKEN-WORKS (does the API accept tokens from ${c.target.authUrl === c.target.baseUrl ? 'its token endpoint' : `--auth-url ${c.target.authUrl}`}?)`,
    t.first,
  );
  return false;
}

/**
 * EXPIRY-RENEW's finding when the token endpoint handed back an expired token (see Timeline) and
 * the API refused it: no wait needed, the renewal has already been seen to fail. Returns whether
 * it was recorded.
 */
export function failedRenewalBeforeWait(c: CheckContext, t: Timeline): boolean {
  const again = t.reissuedAfterExpiry;
  if (!again) return false;
  c.fail(
    `a token request ${again.secondsAfter} s after the runner's token was issued (expires_in ${again.expiresIn} s) was answered with that same token, and GET /users/me refused it (${t.first.status}): after expiry the token endpoint must hand out a token that works`,
    t.first,
  );
  return true;
}

/** Whether expires_in is short enough to be waited out (--max-expiry-wait). */
export function waitable(c: CheckContext, t: Pick<Timeline, 'expiresIn'>): boolean {
  return t.expiresIn <= c.settings.maxExpiryWaitSeconds;
}

/** Why the refusal after expiry is not waited for, and how to have it waited for. */
function notWaitedFor(expiresIn: number, max: number): string {
  // --max-expiry-wait 0 is the main job of a two-job proof: not waiting is the design, the expiry job waits (issue 39 item 5).
  const job = `run --suite expiry --max-expiry-wait ${expiresIn}`;
  if (max === 0)
    return `expires_in is ${expiresIn} s and --max-expiry-wait is 0: not waited out in this run; the expiry job proves it (${job}, then combine-bundles)`;
  return `expires_in is ${expiresIn} s, longer than --max-expiry-wait ${max} s; pass --max-expiry-wait ${expiresIn} to wait it out, or prove it in a job of its own (${job})`;
}

/** Skips the check when waiting out expires_in would take longer than --max-expiry-wait. */
export function skipUnlessWaitable(c: CheckContext, t: Timeline): void {
  if (!waitable(c, t)) c.skip(notWaitedFor(t.expiresIn, c.settings.maxExpiryWaitSeconds));
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

// ── a token too long-lived to wait out: judged on the part of its lifetime the run saw ──────

/**
 * The refusal, among the run's, that proves a token stopped working before its expires_in ran
 * out (spec §Access token response, §Authentication 3: invalid only "after that time"): answered
 * before `requestedAt + expires_in` less a second of whole-second rounding (RFC 6749 §5.1; a JWT
 * issuer's exp = floor(iat) + ttl, RFC 7519 §4.1.4) and the --expiry-margin of clock margin, the
 * same allowance HttpClient.send makes before it calls a 401 the token's. The one refused
 * earliest in its lifetime, if several.
 */
export function conclusiveRefusal(
  refusals: readonly PassedRefusal[],
  marginSeconds: number,
): PassedRefusal | undefined {
  const surely = refusals.filter((r) => r.receivedAt < r.declaredValidUntil - WHOLE_SECOND_MS - marginSeconds * 1000);
  return surely.sort((a, b) => share(a.receivedAt - a.requestedAt, a) - share(b.receivedAt - b.requestedAt, b))[0];
}

function share(ageMs: number, r: Pick<PassedRefusal, 'requestedAt' | 'declaredValidUntil'>): number {
  return ageMs / (r.declaredValidUntil - r.requestedAt);
}

/** "0.2 %": how much of a declared lifetime `ageMs` is. */
export function percentOf(ageMs: number, expiresIn: number): string {
  const pct = (100 * ageMs) / (expiresIn * 1000);
  return pct > 0 && pct < 0.1 ? '< 0.1 %' : `${pct.toFixed(1)} %`;
}

/** What EXPIRY-VALID-BEFORE found on the observed part of a lifetime. */
export type ObservedOutcome =
  | { kind: 'passed'; note: string }
  | { kind: 'failed'; message: string; refusal?: PassedRefusal }
  | { kind: 'error'; message: string }
  | { kind: 'skipped'; reason: string };

/** The probe of the timeline's token as the run ends: its answer, or why there is none. */
export type ObservedProbe =
  | { status: number; sentAt: number; receivedAt: number }
  | { stopped: string }
  | { failed: string };

/**
 * The verdict on the observed part of a lifetime too long to wait out (issue 30): a refusal the
 * run saw while expires_in vouched for the token fails the check; else the token probed again as
 * the run ends must still be accepted, and the pass says how much of the lifetime that covers.
 * Without an answer there is no evidence: an error naming the cause, or a skip when the run was
 * stopped; never a pass.
 */
export function judgeObserved(o: {
  t: Pick<Timeline, 'sentAt' | 'receivedAt' | 'expiresIn'>;
  maxWaitSeconds: number;
  marginSeconds: number;
  refusals: readonly PassedRefusal[];
  probe: ObservedProbe;
  /** Why the probe came when it did, e.g. "as the other checks ended". */
  when: string;
}): ObservedOutcome {
  const { t } = o;
  const notWaited = `the refusal after expiry was not waited for: ${t.expiresIn} s > --max-expiry-wait ${o.maxWaitSeconds}`;
  const refusal = conclusiveRefusal(o.refusals, o.marginSeconds);
  if (refusal) {
    const declared = Math.round((refusal.declaredValidUntil - refusal.requestedAt) / 1000);
    const ageMs = refusal.receivedAt - refusal.requestedAt;
    return {
      kind: 'failed',
      refusal,
      message:
        `${refusal.request} was refused (401) with the run's shared access token ${(ageMs / 1000).toFixed(1)} s after it was requested, of the ${declared} s its expires_in declared (${percentOf(ageMs, declared)}); ` +
        `the same request with a fresh token then got ${refusal.thenStatus}: the token had stopped working long before expires_in (seconds, spec §Access token response) ran out`,
    };
  }
  const probe = o.probe;
  if ('stopped' in probe)
    return { kind: 'skipped', reason: `the token was not probed again: ${probe.stopped}; ${notWaited}` };
  // The token was issued by `receivedAt`: an answer to a probe sent later covers at least this much of its life.
  const ageMs = 'failed' in probe ? Date.now() - t.receivedAt : probe.sentAt - t.receivedAt;
  const age = `${(Math.max(0, ageMs) / 1000).toFixed(1)} s after issue (${o.when})`;
  if ('failed' in probe)
    return {
      kind: 'error',
      message: `cannot judge the observed part of the token's lifetime: GET /users/me with it, ${age}, failed: ${probe.failed}`,
    };
  if (probe.status === 200)
    return {
      kind: 'passed',
      note: `GET /users/me with the token: accepted ${age}, of the ${t.expiresIn} s declared (${percentOf(ageMs, t.expiresIn)}); ${notWaited}`,
    };
  const surelyValid = probe.receivedAt < t.sentAt + t.expiresIn * 1000 - WHOLE_SECOND_MS - o.marginSeconds * 1000;
  if (!surelyValid)
    return {
      kind: 'error',
      message: `cannot judge: GET /users/me with the token, ${age}, got ${probe.status}, but the answer came when its expires_in (${t.expiresIn} s, whole seconds) may have run out`,
    };
  return {
    kind: 'failed',
    message: `GET /users/me with the token ${age}: expected 200, got ${probe.status}, when ${percentOf(ageMs, t.expiresIn)} of the ${t.expiresIn} s its expires_in declared had passed: the token stopped working long before expires_in (seconds, spec §Access token response) ran out`,
  };
}

/** Whether the run has checks of other suites, whose end the probe waits for. */
function othersSelected(selected: readonly string[]): boolean {
  return selected.some((id) => getCheck(id).suite !== 'expiry');
}

/**
 * EXPIRY-VALID-BEFORE for a token whose expires_in is longer than --max-expiry-wait: the other
 * expiry checks are skipped, this one is judged on what the run observes anyway (issue 30: a
 * server declaring expires_in 4000 for a token that dies after 4 s passed unseen).
 *
 * When the token is probed again: as the other suites' last check ends (and, when the user gave
 * --max-expiry-wait, no sooner than that long after issue), never later than the "shortly
 * before" moment (probeBeforeAt: then the whole lifetime is judged as usual) nor than `budgetEnd`
 * (this check's own time). Why then, and not in step with the last checks: the run ends when its
 * last check does, and which one that is is known only once it has ended; so the probe costs the
 * run one round trip after it, and only here, for tokens too long-lived to wait out. A default
 * run (tokens waited out) never comes here, and the expiry suite, running alone, does not wait.
 * Waiting ends early on evidence: a refusal of a shared token the run saw while expires_in
 * vouched for it (HttpClient.send reports those, src/battery/observed-tokens.ts).
 */
export async function judgeObservedPart(c: CheckContext, t: Timeline, budgetEnd: number): Promise<void> {
  const { settings } = c;
  const margin = settings.expiryMarginSeconds;
  const enough = (): boolean => conclusiveRefusal(observedRefusals(), margin) !== undefined;
  const fullAt = probeBeforeAt(t);
  const latest = Math.min(fullAt, budgetEnd);
  let when = 'the expiry suite ran alone';
  if (othersSelected(settings.selected)) {
    const ended = await untilOtherChecksEnd({ until: latest, signal: c.signal, enough });
    when =
      ended === 'time'
        ? latest === fullAt
          ? 'shortly before expiry'
          : "when this check's time ran out, the other checks still running"
        : ended === 'gone'
          ? 'the other checks no longer answered'
          : 'as the other checks ended';
  }
  // The runner does not say yet whether --max-expiry-wait was given (src/runner/run.ts): until
  // it does, a value other than the default is taken as the user's.
  if (settings.maxExpiryWaitGiven ?? settings.maxExpiryWaitSeconds !== DEFAULT_MAX_EXPIRY_WAIT_SECONDS) {
    const asked = Math.min(t.receivedAt + settings.maxExpiryWaitSeconds * 1000, latest);
    if (asked > Date.now() && (await untilEvidence({ until: asked, signal: c.signal, enough })) === 'time')
      when = `--max-expiry-wait ${settings.maxExpiryWaitSeconds} s after issue`;
  }
  let seen: ObservedProbe;
  let refused: HttpResponse | undefined;
  if (enough()) seen = { stopped: 'not needed' };
  else if (c.signal.aborted) seen = { stopped: 'the run was stopped first' };
  else if (Date.now() >= fullAt - POLL_MS) {
    // Waited to the "shortly before" moment: the whole lifetime is judged as usual.
    const before = await probeShortlyBefore(c, t);
    if (before === 'accepted')
      c.note(
        `the token was accepted shortly before its expires_in ran out (${when}); the refusal after expiry was not waited for: ${t.expiresIn} s > --max-expiry-wait ${settings.maxExpiryWaitSeconds}`,
      );
    if (before === 'inconclusive')
      c.error('cannot judge: the probe shortly before expiry could not be sent or answered in time');
    return;
  } else {
    const sentAt = Date.now();
    try {
      const res = await probe(
        c,
        t.token,
        `GET /users/me with the token again, ${((sentAt - t.receivedAt) / 1000).toFixed(1)} s after issue, ${when} (its expires_in, ${t.expiresIn} s, is too long to wait out)`,
      );
      seen = { status: res.status, sentAt, receivedAt: res.receivedAt };
      if (res.status !== 200) refused = res;
    } catch (err) {
      // No answer, no evidence: the cause, as an error (or a skip when the run was stopped).
      if (c.signal.aborted) seen = { stopped: 'the run was stopped while it was sent' };
      else if (err instanceof TransportError || err instanceof UnavailableError || err instanceof RequestRefusedError)
        seen = { failed: err.message };
      else throw err;
    }
  }
  const outcome = judgeObserved({
    t,
    maxWaitSeconds: settings.maxExpiryWaitSeconds,
    marginSeconds: margin,
    refusals: observedRefusals(),
    probe: seen,
    when,
  });
  if (outcome.kind === 'passed') c.note(outcome.note);
  else if (outcome.kind === 'error') c.error(outcome.message);
  else if (outcome.kind === 'skipped') c.skip(outcome.reason);
  else
    c.fail(
      outcome.message,
      outcome.refusal?.record ? { exchange: -1, evidence: Evidence.of(outcome.refusal.record) } : refused,
    );
}
