import { describe, test, type TestContext } from 'vitest';
import { getCheck, type Check, type SuiteName } from '../catalogue/index.js';
import type { Send, Target, ClientCredentials } from '../api/requests.js';
import { RequestRefusedError, Recorder, TransportError, type ExchangeRef, type RequestAuth } from '../http/client.js';
import { redactor } from '../redact.js';
import type { Finding, RecordedExchange } from '../report/model.js';
import { batteryReady, getBattery, type BatteryContext } from './context.js';
import { CheckError, NonConformance, PrerequisiteError } from './errors.js';

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
}

declare module 'vitest' {
  interface TaskMeta {
    carrier?: CheckMeta;
  }
}

// Every suite imports this module: they all wait here until the runner sends the run's context.
await batteryReady();

/** Exchanges kept for a failed check beyond the ones its findings cite. */
const TRAILING_EXCHANGES = 2;

/** An endpoint a check was applied to, with its own outcome (`CheckMeta.endpoints`). */
export interface EndpointOutcome {
  /** The endpoint's label, e.g. "GET /tenants/{tenantId}/invoices/{invoiceId}". */
  endpoint: string;
  status: 'passed' | 'failed' | 'error' | 'skipped';
  /** The first finding on it, or why it was skipped. */
  message?: string;
}

/** What a check records, shared by its context and the endpoint scopes made from it. */
class CheckState {
  readonly recorder = new Recorder();
  readonly findings: Finding[] = [];
  readonly notes: string[] = [];
  /** Token requests made to renew the shared token for exchanges recorded elsewhere (a walk this check started). */
  sharedTokenRequests = 0;
  skipReason: string | undefined;
  /** Exchanges cited from other recorders: their index here, so each is copied once. */
  readonly copies = new Map<Recorder, Map<number, number>>();
  /** Recorders of shared exchanges this check relied on (a walk, an endpoint's valid answer). */
  readonly used = new Set<Recorder>();
  /** The endpoints the check was applied to, in order, with why an endpoint was skipped. */
  readonly endpoints = new Map<string, { skipped?: string }>();
}

export class CheckContext {
  readonly #state: CheckState;

  constructor(
    readonly check: Check,
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
   * valid when the request is sent, and renews it once if the server refuses it (src/battery/token.ts).
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
    return this.#state.findings.some((f) => f.kind === 'failure' && (this.endpoint === undefined || f.endpoint === this.endpoint));
  }

  #add(kind: Finding['kind'], message: string, evidence?: ExchangeRef): void {
    const exchange = evidence === undefined ? undefined : this.cite(evidence);
    this.#state.findings.push({
      kind,
      message: redactor.redact(message),
      ...(exchange !== undefined && exchange >= 0 ? { exchange } : {}),
      ...(this.endpoint !== undefined ? { endpoint: this.endpoint } : {}),
    });
  }

  /** This check relies on exchanges recorded in `recorder`: their retries are noted in its report. */
  uses(recorder: Recorder): void {
    if (recorder !== this.recorder) this.#state.used.add(recorder);
  }

  /**
   * The index, in this check's recorder, of the exchange behind `ref`: one recorded for another
   * purpose (a page walk shared by several checks) is copied in.
   */
  cite(ref: ExchangeRef): number {
    if (ref.exchange < 0 || !ref.recorder || ref.recorder === this.recorder) return ref.exchange;
    let copies = this.#state.copies.get(ref.recorder);
    if (!copies) this.#state.copies.set(ref.recorder, (copies = new Map<number, number>()));
    let index = copies.get(ref.exchange);
    if (index === undefined) {
      const exchange = ref.recorder.exchanges[ref.exchange];
      index = exchange ? this.recorder.add(exchange, false) : -1;
      copies.set(ref.exchange, index);
    }
    return index;
  }

  /** Each endpoint the check was applied to, with its own outcome. */
  #endpointOutcomes(): EndpointOutcome[] {
    return [...this.#state.endpoints].map(([endpoint, { skipped }]) => {
      const mine = this.#state.findings.filter((f) => f.endpoint === endpoint);
      const failure = mine.find((f) => f.kind === 'failure');
      const first = failure ?? mine[0];
      if (first) return { endpoint, status: failure ? 'failed' : 'error', message: first.message };
      return skipped !== undefined ? { endpoint, status: 'skipped', message: skipped } : { endpoint, status: 'passed' };
    });
  }

  /** The meta for the collector: cited exchanges (renumbered) and the last few, nothing for a pass. */
  toMeta(): CheckMeta {
    const { findings, recorder } = this.#state;
    const keep = new Set<number>();
    for (const f of findings) if (f.exchange !== undefined) keep.add(f.exchange);
    if (findings.length > 0) {
      const n = recorder.exchanges.length;
      for (let i = Math.max(0, n - TRAILING_EXCHANGES); i < n; i += 1) keep.add(i);
    }
    const order = [...keep].sort((a, b) => a - b);
    const renumber = new Map(order.map((old, i) => [old, i]));
    const endpoints = this.#endpointOutcomes();
    return {
      checkId: this.check.id,
      findings: findings.map((f) => (f.exchange === undefined ? f : { ...f, exchange: renumber.get(f.exchange) ?? 0 })),
      notes: [...this.#state.notes, ...new Set([recorder, ...this.#state.used].flatMap((r) => r.retries).map((r) => redactor.redact(r)))],
      exchanges: order.map((i) => recorder.exchanges[i]).filter((e): e is RecordedExchange => e !== undefined),
      requests: recorder.count,
      sharedTokenRequests: this.#state.sharedTokenRequests + recorder.tokenRequests,
      ...(endpoints.length > 0 ? { endpoints } : {}),
      ...(this.#state.skipReason !== undefined ? { skipReason: this.#state.skipReason } : {}),
    };
  }
}

function summarise(findings: readonly Finding[]): string {
  const [first] = findings;
  if (!first) return '';
  return findings.length === 1 ? first.message : `${first.message} (and ${findings.length - 1} more)`;
}

/** Turns whatever a check threw into findings: transport trouble and missing prerequisites are errors. */
function absorb(c: CheckContext, err: unknown): void {
  if (err instanceof TransportError) c.error(`the exchange failed: ${err.message}`, err);
  else if (err instanceof PrerequisiteError || err instanceof RequestRefusedError) c.error(err.message);
  else c.error(`harness error: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`);
}

/**
 * Registers the check `id` as a test, if the run selected it. Its title, level and references
 * come from the catalogue (`src/catalogue/checks.ts`).
 */
export function check(id: string, body: (c: CheckContext) => Promise<void>, options: { timeoutMs?: number } = {}): void {
  const def = getCheck(id);
  const { settings } = getBattery();
  if (!settings.selected.includes(id)) return;
  // Checks bound their own requests (--timeout each); this only stops a check that hangs anyway.
  const timeout = options.timeoutMs ?? Math.max(60_000, settings.http.timeoutMs * 20);
  test(`${def.id} ${def.title}`, { timeout }, async (vitest) => {
    const c = new CheckContext(def, settings, vitest);
    try {
      await body(c);
    } catch (err) {
      if (c.isSkipped) throw err;
      absorb(c, err);
    } finally {
      vitest.task.meta.carrier = c.toMeta();
    }
    const failures = c.findings.filter((f) => f.kind === 'failure');
    if (failures.length > 0) throw new NonConformance(summarise(failures));
    if (c.findings.length > 0) throw new CheckError(summarise(c.findings));
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
