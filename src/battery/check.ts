import { describe, test, type TestContext } from 'vitest';
import { getCheck, type Check, type SuiteName } from '../catalogue/index.js';
import type { Send, Target, ClientCredentials } from '../carrier/requests.js';
import {
  RequestRefusedError,
  Recorder,
  SharedTokenExpiredError,
  TransportError,
  type Evidence,
  type ExchangeRef,
  type RequestAuth,
} from '../http/client.js';
import { checkWatchdogMs } from './watchdog.js';
import { redactor } from '../core/redact.js';
import type { Finding, RecordedExchange, ReviewItem } from '../model/run-report.js';
import { batteryReady, getBattery, type BatteryContext } from './context.js';
import { CheckError, NonConformance, PrerequisiteError } from './errors.js';
import { capFindings, FINDINGS_PER_CHECK, FINDINGS_PER_ENDPOINT, summariseFindings } from './findings-cap.js';
import { mark } from '../core/startup-timing.js';

/**
 * `check(id, body)`: one catalogue entry, one Vitest test. The body reads like the spec and
 * reports what it finds through the CheckContext; the outcome travels to the runner in the
 * test's meta (`task.meta.carrier`), already redacted.
 */

/** What a check leaves in `task.meta` for the runner's collector. */
export interface CheckMeta {
  checkId: string;
  findings: Finding[];
  notes: string[];
  exchanges: RecordedExchange[];
  requests: number;
  /** Token requests this check made to renew the shared token (not to test the token endpoint). */
  sharedTokenRequests: number;
  /** The endpoints the check was applied to, each with its own outcome. */
  endpoints?: EndpointOutcome[];
  /** The check skipped itself, for this reason (Vitest also reports a run it cancelled as skipped). */
  skipReason?: string;
  /** Findings beyond the cap (FINDINGS_PER_ENDPOINT, FINDINGS_PER_CHECK): counted, not listed. */
  notListed?: { failures: number; errors: number };
  /** Review items the check noticed (src/model/run-report.ts reviewItemSchema): never findings, never its outcome. */
  review?: ReviewItem[];
  /** The exchange log's ids of every exchange the check sent or relied on (src/http/exchange-log.ts). */
  exchangeIds?: string[];
  /**
   * The check's own time, in ms: its body's, less the time its requests only waited for a slot
   * behind other checks' (Recorder.slotWaitMs). Every check starts at once, so Vitest's duration
   * of each was close to the whole run's.
   */
  ownMs?: number;
}

declare module 'vitest' {
  interface TaskMeta {
    carrier?: CheckMeta;
  }
}

// Every suite imports this module: they all wait here until the runner sends the run's context.
mark('battery: modules loaded');
await batteryReady();
mark('battery: context received');

/** An endpoint a check was applied to, with its own outcome (`CheckMeta.endpoints`). */
export interface EndpointOutcome {
  /** The endpoint's label, e.g. "GET /tenants/{tenantId}/invoices/{invoiceId}". */
  endpoint: string;
  status: 'passed' | 'failed' | 'error' | 'skipped';
  /** The first finding on it, or why it was skipped. */
  message?: string;
  /** What the target chose here where the spec lets it choose (`CheckContext.observe`), on a pass. */
  observed?: string;
}

/** How one endpoint (or the check itself, key '') fared: every finding counted, listed or not. */
interface Tally {
  failures: number;
  errors: number;
  listed: number;
  firstFailure?: string;
  first?: string;
}

/** What a check records, shared by its context and the endpoint scopes made from it. */
class CheckState {
  /** Only what findings cite is kept, and the last exchanges sent (Recorder.recent). */
  readonly recorder = new Recorder(false);
  readonly findings: Finding[] = [];
  readonly notes: string[] = [];
  readonly review: ReviewItem[] = [];
  readonly tallies = new Map<string, Tally>();
  readonly notListed = { failures: 0, errors: 0 };
  /** Token requests made to renew the shared token for exchanges recorded elsewhere (a walk this check started). */
  sharedTokenRequests = 0;
  skipReason: string | undefined;
  /** Exchanges cited, by their evidence: their index here, so each is copied once. */
  readonly copies = new Map<Evidence | object, number>();
  /** Recorders of shared exchanges this check relied on (a walk, an endpoint's valid answer). */
  readonly used = new Set<Recorder>();
  /** The endpoints the check was applied to, in order, with why an endpoint was skipped. */
  readonly endpoints = new Map<string, { skipped?: string; observed?: { choice: string; words: string } }>();
  /** Endpoints whose judgement (`judgeEndpoint`) has begun and not ended: not judged, if the check ends so. */
  readonly judging = new Set<string>();
  /** Exchanges a finding's message refers to besides the one it cites (`exhibit`), by index here. */
  readonly exhibits: number[] = [];

  tally(key: string): Tally {
    let t = this.tallies.get(key);
    if (!t) this.tallies.set(key, (t = { failures: 0, errors: 0, listed: 0 }));
    return t;
  }

  get failures(): number {
    let n = 0;
    for (const t of this.tallies.values()) n += t.failures;
    return n;
  }
}

/** What a check context needs of its check: a catalogue entry, or a team's check (src/battery/team.ts). */
export type CheckIdentity = Pick<Check, 'id' | 'title'>;

export class CheckContext {
  readonly #state: CheckState;

  constructor(
    readonly check: CheckIdentity,
    readonly settings: BatteryContext,
    private readonly vitest: TestContext,
    state?: CheckState,
    /** The endpoint this context judges (see `at`); findings carry it. */
    readonly endpoint?: string,
  ) {
    this.#state = state ?? new CheckState();
  }

  /**
   * The same check, applied to one endpoint: findings recorded through the returned context carry
   * the endpoint, and the report lists every endpoint the check was applied to with its own
   * outcome ("VERSION-MISSING: 23 endpoints, 1 failed: GET /tenants/{tenantId}/invoices/{invoiceId}").
   */
  at(endpoint: string): CheckContext {
    if (!this.#state.endpoints.has(endpoint)) this.#state.endpoints.set(endpoint, {});
    return new CheckContext(this.check, this.settings, this.vitest, this.#state, endpoint);
  }

  /** This endpoint (of an `at` context) is not judged, for `reason`: the report says so. */
  skipEndpoint(reason: string): void {
    if (this.endpoint === undefined) throw new Error('skipEndpoint needs an endpoint context (CheckContext.at)');
    this.#state.endpoints.set(this.endpoint, { skipped: redactor.redact(reason) });
  }

  /**
   * What the target chose on this endpoint (of an `at` context) where the spec lets it choose
   * (src/battery/precedence.ts: which of two rules' answers it gave): kept with the endpoint's
   * outcome in report.json, and summed up in a note, `words` saying it.
   */
  observe(choice: string, words: string): void {
    const endpoint = this.endpoint;
    if (endpoint === undefined) throw new Error('observe needs an endpoint context (CheckContext.at)');
    const entry = this.#state.endpoints.get(endpoint) ?? {};
    this.#state.endpoints.set(endpoint, { ...entry, observed: { choice, words } });
  }

  /**
   * Runs `judge` on this endpoint (of an `at` context). What escapes it (a request that could not
   * be made, no token to be had) is this endpoint's error, saying that it was not judged and why;
   * the other endpoints are judged all the same. An endpoint is reported as passed only when its
   * judgement ended without a finding.
   */
  async judgeEndpoint(judge: () => Promise<void>): Promise<void> {
    const endpoint = this.endpoint;
    if (endpoint === undefined) throw new Error('judgeEndpoint needs an endpoint context (CheckContext.at)');
    this.#state.judging.add(endpoint);
    try {
      await judge();
    } catch (err) {
      // A skip of the whole check, or a stopped run, is the check's: check() reports it.
      if (this.isSkipped || getBattery().stopped.aborted || this.vitest.signal.aborted) throw err;
      absorb(this, err, 'not judged: ');
    } finally {
      this.#state.judging.delete(endpoint);
    }
  }

  get recorder(): Recorder {
    return this.#state.recorder;
  }

  get findings(): readonly Finding[] {
    return this.#state.findings;
  }

  get sharedTokenRequests(): number {
    return this.#state.sharedTokenRequests;
  }

  set sharedTokenRequests(n: number) {
    this.#state.sharedTokenRequests = n;
  }

  get target(): Target {
    return this.settings.target;
  }

  get credentials(): ClientCredentials {
    return this.settings.credentials;
  }

  /** Sends a request through the HTTP layer and records it for this check. */
  readonly send: Send = (req) => getBattery().http.send({ ...req, signal: this.vitest.signal }, this.recorder);

  /**
   * The shared access token as a Bearer authorization: the HTTP layer takes a token that is
   * valid when the request is sent, and renews it if the server refuses it (HttpClient.send), so
   * that a token that stopped working is never judged as the rule under test.
   */
  bearer(): RequestAuth {
    return { kind: 'shared-token' };
  }

  /** The target does not conform: `message` says what was expected and what came back. */
  fail(message: string, evidence?: ExchangeRef): void {
    this.#add('failure', message, evidence);
  }

  /** This part of the check could not be carried out. */
  error(message: string, evidence?: ExchangeRef): void {
    this.#add('error', message, evidence);
  }

  /** An informational remark for the report (e.g. "the server caps size at 50"). */
  note(message: string): void {
    this.#state.notes.push(redactor.redact(this.endpoint === undefined ? message : `${this.endpoint}: ${message}`));
  }

  /**
   * A review item (src/model/run-report.ts reviewItemSchema): something to look at that this check
   * cannot judge; it changes neither the check's outcome nor the run's.
   */
  review(item: Omit<ReviewItem, 'check' | 'endpoint'>): void {
    const r = (text: string): string => redactor.redact(text);
    this.#state.review.push({
      ...item,
      check: this.check.id,
      endpoint: r(this.endpoint ?? ''),
      field: r(item.field),
      message: r(item.message),
      advice: r(item.advice),
    });
  }

  /** Skips the check with the reason shown in every report. */
  skip(reason: string): never {
    this.#state.skipReason = reason;
    return this.vitest.skip(reason);
  }

  /** Aborted when the run is stopped (Ctrl-C, --deadline) or the check times out: waits end then. */
  get signal(): AbortSignal {
    return AbortSignal.any([this.vitest.signal, getBattery().stopped]);
  }

  get isSkipped(): boolean {
    return this.#state.skipReason !== undefined;
  }

  /** Failures so far (of this endpoint, in an `at` context); lets a check stop early when going on would only repeat them. */
  get failed(): boolean {
    return this.endpoint === undefined
      ? this.#state.failures > 0
      : (this.#state.tallies.get(this.endpoint)?.failures ?? 0) > 0;
  }

  /** Every finding so far, listed or not. */
  get counts(): { failures: number; errors: number } {
    let errors = 0;
    for (const t of this.#state.tallies.values()) errors += t.errors;
    return { failures: this.#state.failures, errors };
  }

  /** Findings made elsewhere (a walk's page judge) beyond its cap: counted for this endpoint, not listed. */
  countNotListed(counts: { failures: number; errors: number }): void {
    const tally = this.#state.tally(this.endpoint ?? '');
    tally.failures += counts.failures;
    tally.errors += counts.errors;
    this.#state.notListed.failures += counts.failures;
    this.#state.notListed.errors += counts.errors;
  }

  #add(kind: Finding['kind'], message: string, evidence?: ExchangeRef): void {
    const state = this.#state;
    const tally = state.tally(this.endpoint ?? '');
    // An endpoint's first failure is always listed: it is reported as failed, not as an error.
    const firstFailureHere = kind === 'failure' && tally.failures === 0;
    if (kind === 'failure') tally.failures += 1;
    else tally.errors += 1;
    // The cap per check is applied in toMeta, once the findings are in the order of the endpoints.
    if (tally.listed >= FINDINGS_PER_ENDPOINT && !firstFailureHere) {
      // Counted, not listed: its message still names the endpoint's outcome if it is the first.
      if (kind === 'failure') {
        state.notListed.failures += 1;
        tally.firstFailure ??= redactor.redact(message);
      } else state.notListed.errors += 1;
      tally.first ??= redactor.redact(message);
      return;
    }
    const redacted = redactor.redact(message);
    tally.listed += 1;
    tally.first ??= redacted;
    if (kind === 'failure') tally.firstFailure ??= redacted;
    const exchange = evidence === undefined ? undefined : this.cite(evidence);
    state.findings.push({
      kind,
      message: redacted,
      ...(exchange !== undefined && exchange >= 0 ? { exchange } : {}),
      ...(this.endpoint !== undefined ? { endpoint: this.endpoint } : {}),
    });
  }

  /**
   * This check's verdict rests on `ref` (an exchange another check made and shared): its entry in
   * the exchange log names this check too, so that a pass shows what it judged (issue 39).
   */
  restsOn(ref: ExchangeRef | undefined): void {
    if (ref === undefined) return;
    if (ref.evidence?.logId !== undefined) this.recorder.ids.push(ref.evidence.logId);
    else if (ref.recorder !== undefined) this.uses(ref.recorder);
  }

  /**
   * An exchange a finding's message refers to besides the one it cites (TOKEN-ISSUE's refusal of
   * HTTP Basic, and the client_secret_post request that got a token): kept in the report with
   * the findings, so that both can be read and reproduced.
   */
  exhibit(ref: ExchangeRef): void {
    const index = this.cite(ref);
    if (index >= 0) this.#state.exhibits.push(index);
  }

  /** This check relies on exchanges recorded in `recorder`: their retries are noted in its report. */
  uses(recorder: Recorder): void {
    if (recorder !== this.recorder) this.#state.used.add(recorder);
  }

  /**
   * The index, in this check's recorder, of the exchange behind `ref`: one recorded for another
   * purpose (a page walk shared by several checks), or not kept until now, is copied in, once.
   */
  cite(ref: ExchangeRef): number {
    if (ref.recorder === this.recorder && ref.exchange >= 0) return ref.exchange;
    const kept = ref.recorder && ref.exchange >= 0 ? ref.recorder.exchanges[ref.exchange] : undefined;
    const key = ref.evidence ?? kept;
    // The exchange is this check's evidence: its log entry names the check.
    if (ref.recorder !== undefined) this.uses(ref.recorder);
    if (ref.evidence?.logId !== undefined && ref.recorder === undefined) this.recorder.ids.push(ref.evidence.logId);
    if (key === undefined) return -1;
    let index = this.#state.copies.get(key);
    if (index === undefined) {
      index = this.recorder.add(ref.evidence ? ref.evidence.record : (kept as RecordedExchange), false);
      this.#state.copies.set(key, index);
    }
    return index;
  }

  /** Each endpoint the check was applied to, with its own outcome. */
  #endpointOutcomes(): EndpointOutcome[] {
    // Why a judgement that never ended did not: what ended the check, if it said.
    const cause = this.#state.tallies.get('')?.first ?? 'its judgement did not end';
    return [...this.#state.endpoints].map(([endpoint, { skipped, observed }]) => {
      const tally = this.#state.tallies.get(endpoint);
      if (tally && tally.failures > 0) return { endpoint, status: 'failed', message: tally.firstFailure ?? '' };
      if (tally && tally.errors > 0) return { endpoint, status: 'error', message: tally.first ?? '' };
      if (skipped !== undefined) return { endpoint, status: 'skipped', message: skipped };
      // Begun and never ended: not a pass, whatever else the report says of the check.
      return this.#state.judging.has(endpoint)
        ? { endpoint, status: 'error', message: `not judged: ${cause}` }
        : { endpoint, status: 'passed', ...(observed !== undefined ? { observed: observed.choice } : {}) };
    });
  }

  /** The choices `observe` recorded on the endpoints that passed, summed up: "chose X on 3 endpoints (…); Y on 1 (…)". */
  #observationNote(endpoints: readonly EndpointOutcome[]): string[] {
    const byWords = new Map<string, string[]>();
    for (const { endpoint, status } of endpoints) {
      const words = this.#state.endpoints.get(endpoint)?.observed?.words;
      if (status === 'passed' && words !== undefined) byWords.set(words, [...(byWords.get(words) ?? []), endpoint]);
    }
    if (byWords.size === 0) return [];
    const parts = [...byWords].map(
      ([words, on]) =>
        `${words} on ${on.length} endpoint${on.length === 1 ? '' : 's'} (${on.slice(0, 5).join(', ')}${on.length > 5 ? `, and ${on.length - 5} more` : ''})`,
    );
    return [`the target chose ${parts.join('; ')}${byWords.size > 1 ? ': not the same choice everywhere' : ''}`];
  }

  /**
   * The meta for the collector: the findings (in the order of the endpoints, so that reports do
   * not depend on which answer came first), the exchanges they cite and, for a check that did not
   * pass, the last ones it sent; nothing for a pass.
   */
  toMeta(): CheckMeta {
    const { findings, recorder } = this.#state;
    const recent = findings.length > 0 ? recorder.recent.map((evidence) => this.cite({ exchange: -1, evidence })) : [];
    const order = new Map([...this.#state.endpoints.keys()].map((e, i) => [e, i]));
    const rank = (f: Finding): number => (f.endpoint === undefined ? -1 : (order.get(f.endpoint) ?? -1));
    const sorted = findings
      .map((f, i) => ({ f, i, r: rank(f) }))
      .sort((a, b) => a.r - b.r || a.i - b.i)
      .map(({ f }) => f);
    const { listed, rest } = capFindings(sorted, FINDINGS_PER_CHECK);
    const notListed = {
      failures: this.#state.notListed.failures + rest.failures,
      errors: this.#state.notListed.errors + rest.errors,
    };
    // The exchanges the listed findings cite, numbered in the order of the findings (not of the
    // answers' arrival), then the last ones sent.
    const exhibits = findings.length > 0 ? this.#state.exhibits : [];
    const keep = [
      ...new Set([
        ...listed.flatMap((f) => (f.exchange === undefined ? [] : [f.exchange])),
        ...exhibits,
        ...recent.filter((i) => i >= 0),
      ]),
    ];
    const renumber = new Map(keep.map((old, i) => [old, i]));
    const endpoints = this.#endpointOutcomes();
    const dropped = notListed.failures + notListed.errors;
    return {
      checkId: this.check.id,
      findings: listed.map((f) => (f.exchange === undefined ? f : { ...f, exchange: renumber.get(f.exchange) ?? 0 })),
      notes: [
        ...this.#observationNote(endpoints),
        ...this.#state.notes,
        ...new Set([recorder, ...this.#state.used].flatMap((r) => r.retries).map((r) => redactor.redact(r))),
        ...(dropped > 0
          ? [
              `${dropped} more finding${dropped === 1 ? '' : 's'} not listed (${notListed.failures} failures, ${notListed.errors} errors): at most ${FINDINGS_PER_ENDPOINT} per endpoint and ${FINDINGS_PER_CHECK} per check are`,
            ]
          : []),
      ],
      exchanges: keep.map((i) => recorder.exchanges[i]).filter((e): e is RecordedExchange => e !== undefined),
      requests: recorder.count,
      exchangeIds: [...new Set([recorder, ...this.#state.used].flatMap((r) => r.ids))],
      sharedTokenRequests: this.#state.sharedTokenRequests + recorder.tokenRequests,
      ...(endpoints.length > 0 ? { endpoints } : {}),
      ...(this.#state.skipReason !== undefined ? { skipReason: this.#state.skipReason } : {}),
      ...(dropped > 0 ? { notListed: { ...notListed } } : {}),
      ...(this.#state.review.length > 0 ? { review: [...this.#state.review] } : {}),
    };
  }
}

/**
 * Turns whatever a check threw into findings: transport trouble, missing prerequisites and a
 * shared token that stopped working are errors; `prefix` says what they left undone.
 */
function absorb(c: CheckContext, err: unknown, prefix = ''): void {
  if (err instanceof TransportError) c.error(`${prefix}the exchange failed: ${err.message}`, err);
  else if (
    err instanceof PrerequisiteError ||
    err instanceof RequestRefusedError ||
    err instanceof SharedTokenExpiredError
  )
    c.error(`${prefix}${err.message}`);
  else c.error(`${prefix}harness error: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`);
}

/**
 * Registers the check `id` as a test, if the run selected it. Its title, level and references
 * come from the catalogue (`src/catalogue/checks.ts`).
 */
export function check(
  id: string,
  body: (c: CheckContext) => Promise<void>,
  options: { timeoutMs?: number } = {},
): void {
  if (!getBattery().settings.selected.includes(id)) return;
  checkAs(getCheck(id), body, options);
}

/**
 * One check, one Vitest test named `<ID> <title>`, whatever its origin: the catalogue's (`check`)
 * or a team's (src/battery/team.ts). The runner's collector finds it by its id.
 */
export function checkAs(
  def: CheckIdentity,
  body: (c: CheckContext) => Promise<void>,
  options: { timeoutMs?: number } = {},
): void {
  const { settings } = getBattery();
  const timeout = options.timeoutMs ?? checkWatchdogMs(settings.http.timeoutMs, settings.endpoints.length);
  test(`${def.id} ${def.title}`, { timeout }, async (vitest) => {
    const c = new CheckContext(def, settings, vitest);
    const started = performance.now();
    try {
      await body(c);
    } catch (err) {
      if (c.isSkipped) throw err;
      // Stopped by the run (Ctrl-C, --deadline) mid-way, with no failure found: not run, not an
      // error of the target's (the report says "not run: <why the run stopped>").
      if (getBattery().stopped.aborted && c.counts.failures === 0) vitest.skip();
      absorb(c, err);
    } finally {
      vitest.task.meta.carrier = {
        ...c.toMeta(),
        ownMs: Math.max(0, performance.now() - started - c.recorder.slotWaitMs),
      };
      // The check's exchanges are on disk before the runner reads the log.
      getBattery().log?.flush();
    }
    const { failures, errors } = c.counts;
    const listedFailures = c.findings.filter((f) => f.kind === 'failure');
    if (failures > 0)
      throw new NonConformance(summariseFindings(listedFailures, failures - listedFailures.length) ?? '');
    if (errors > 0) throw new CheckError(summariseFindings(c.findings, errors - c.findings.length) ?? '');
  });
}

/**
 * The checks of one suite. They run concurrently (each is independent and waits mostly on the
 * network) unless the suite is a timeline, like expiry.
 */
export function suite(name: SuiteName, body: () => void, options: { sequential?: boolean } = {}): void {
  if (options.sequential) describe(name, body);
  else describe.concurrent(name, body);
}
