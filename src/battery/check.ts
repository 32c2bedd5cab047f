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

export class CheckContext {
  readonly recorder = new Recorder();
  readonly findings: Finding[] = [];
  readonly notes: string[] = [];
  /** Token requests made to renew the shared token for exchanges recorded elsewhere (a walk this check started). */
  sharedTokenRequests = 0;
  #skipped = false;
  /** Exchanges cited from other recorders: their index here, so each is copied once. */
  #copies = new Map<Recorder, Map<number, number>>();
  /** Recorders of shared exchanges this check relied on (a walk, an endpoint's valid answer). */
  #used = new Set<Recorder>();

  constructor(
    readonly check: Check,
    readonly settings: BatteryContext,
    private readonly vitest: TestContext,
  ) {}

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
    this.notes.push(redactor.redact(message));
  }

  /** Skips the check with the reason shown in every report. */
  skip(reason: string): never {
    this.#skipped = true;
    return this.vitest.skip(reason);
  }

  /** Aborted when the run is stopped (Ctrl-C, --deadline) or the check times out: waits end then. */
  get signal(): AbortSignal {
    return AbortSignal.any([this.vitest.signal, getBattery().stopped]);
  }

  get isSkipped(): boolean {
    return this.#skipped;
  }

  /** Failures so far; lets a check stop early when going on would only repeat them. */
  get failed(): boolean {
    return this.findings.some((f) => f.kind === 'failure');
  }

  #add(kind: Finding['kind'], message: string, evidence?: ExchangeRef): void {
    const exchange = evidence === undefined ? undefined : this.cite(evidence);
    this.findings.push({ kind, message: redactor.redact(message), ...(exchange !== undefined && exchange >= 0 ? { exchange } : {}) });
  }

  /** This check relies on exchanges recorded in `recorder`: their retries are noted in its report. */
  uses(recorder: Recorder): void {
    if (recorder !== this.recorder) this.#used.add(recorder);
  }

  /**
   * The index, in this check's recorder, of the exchange behind `ref`: one recorded for another
   * purpose (a page walk shared by several checks) is copied in.
   */
  cite(ref: ExchangeRef): number {
    if (ref.exchange < 0 || !ref.recorder || ref.recorder === this.recorder) return ref.exchange;
    let copies = this.#copies.get(ref.recorder);
    if (!copies) this.#copies.set(ref.recorder, (copies = new Map<number, number>()));
    let index = copies.get(ref.exchange);
    if (index === undefined) {
      const exchange = ref.recorder.exchanges[ref.exchange];
      index = exchange ? this.recorder.add(exchange, false) : -1;
      copies.set(ref.exchange, index);
    }
    return index;
  }

  /** The meta for the collector: cited exchanges (renumbered) and the last few, nothing for a pass. */
  toMeta(): CheckMeta {
    const keep = new Set<number>();
    for (const f of this.findings) if (f.exchange !== undefined) keep.add(f.exchange);
    if (this.findings.length > 0) {
      const n = this.recorder.exchanges.length;
      for (let i = Math.max(0, n - TRAILING_EXCHANGES); i < n; i += 1) keep.add(i);
    }
    const order = [...keep].sort((a, b) => a - b);
    const renumber = new Map(order.map((old, i) => [old, i]));
    return {
      checkId: this.check.id,
      findings: this.findings.map((f) => (f.exchange === undefined ? f : { ...f, exchange: renumber.get(f.exchange) ?? 0 })),
      notes: [...this.notes, ...new Set([this.recorder, ...this.#used].flatMap((r) => r.retries).map((r) => redactor.redact(r)))],
      exchanges: order.map((i) => this.recorder.exchanges[i]).filter((e): e is RecordedExchange => e !== undefined),
      requests: this.recorder.count,
      sharedTokenRequests: this.sharedTokenRequests + this.recorder.tokenRequests,
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
