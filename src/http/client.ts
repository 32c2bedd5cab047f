import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import { exchange, type Exchange } from './undici.js';
import type * as HeaderOnly from './header-only.js';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { RecordedExchange } from '../model/run-report.js';
import type { Redactor } from '../core/redact.js';
import { encodeBasicCredentials, type BasicEncoding } from '../core/basic-credentials.js';
import { closedBeforeResponseOnReusedConnection, trackConnectionReuse } from './connection-reuse.js';
import { createDispatcher, type TlsSettings } from './dispatcher.js';
import { Deadlines } from './deadlines.js';
import { describeTransportError, transportErrorCode } from './transport-errors.js';
import { AdaptiveConcurrency, InFlightGate, MAX_IN_FLIGHT } from './limit.js';
import { onAbort } from './abort-fanout.js';

/**
 * The HTTP layer: the one place where the harness sends requests. Every request goes through
 * `HttpClient.send`, which
 * - never follows redirects (a 3xx is a finding for the check to judge, spec §Endpoints: the
 *   gateway *rewrites* legacy paths);
 * - applies the per-request timeout and a cap on response bodies;
 * - sends credentials only to the configured origins;
 * - records the exchange, redacted, for the check that sent it;
 * - registers every access token it sees in a response with the redactor, at once.
 */

export type RequestAuth =
  /** No Authorization header. */
  | { kind: 'none' }
  /**
   * Client credentials as HTTP Basic (RFC 7617), form-urlencoded first as RFC 6749 §2.3.1 says
   * (`encoding: 'raw'` skips that, for a server that does not decode them).
   */
  | { kind: 'client-basic'; clientId: string; clientSecret: string; scheme?: string; encoding?: BasicEncoding }
  /** An access token, `Bearer <token>` (RFC 6750 §2.1); `scheme` spells the scheme name differently. */
  | { kind: 'bearer'; token: string; scheme?: string }
  /**
   * The run's shared access token (`HttpClientOptions.sharedTokens`), taken when the request is
   * sent so that it is valid then, and renewed if the server refuses it (see `send`).
   */
  | { kind: 'shared-token'; scheme?: string }
  /** A made-up credential a check probes with (malformed, unknown): not a secret, recorded as sent. */
  | { kind: 'literal'; value: string };

export interface HttpRequest {
  /** GET, POST, …; a write probe's may be any the document declares (QUERY, PURGE): an RFC 9110 §9.1 token. */
  method: string;
  url: string | URL;
  /** Header fields, sent with the names spelled as given. `null` leaves out a default header. */
  headers?: Record<string, string | null>;
  body?: string;
  /**
   * Content announced and never sent (issue 41, src/http/header-only.ts): the request goes out
   * with `Expect: 100-continue`, this Content-Type and Content-Length, and no content; a server
   * that asks for it (100 Continue) gets a closed connection, and the answer has status 100.
   */
  promisedContent?: { type: string; length: number };
  auth?: RequestAuth;
  /** What this request is for, in the words of the check; shown with the recorded exchange. */
  purpose: string;
  /** Aborts this request (the check was cancelled, the run interrupted). */
  signal?: AbortSignal;
  /** `high`: other requests wait for this one (a valid answer, a walk's page); sent first when requests queue. */
  priority?: 'high' | 'normal';
  /**
   * Sent without waiting for a slot of the politeness bound: a renewal of the shared token, which
   * requests that hold a slot wait for (one in flight at a time, `SharedTokenSource`), so it must
   * not wait for a slot itself.
   */
  ungated?: boolean;
}

export interface HttpClientOptions {
  /** Per-request deadline: connect, headers and body (--timeout). */
  timeoutMs: number;
  /** Larger response bodies are an error of the check (a hostile target must not exhaust memory). */
  maxBodyBytes: number;
  /** How many characters of each (redacted) body a recorded exchange keeps. */
  recordBodyChars: number;
  /** Origins (`scheme://host:port`) that may receive credentials: the base and the auth URL. */
  credentialOrigins: readonly string[];
  redactor: Redactor;
  userAgent: string;
  /** Aborts every request in flight, e.g. on Ctrl-C. */
  signal?: AbortSignal;
  /** TLS trust: extra CAs (--ca-file) or none at all (--insecure). */
  tls?: TlsSettings;
  /** How often a 429 or 503 is retried (after Retry-After, RFC 9110 §10.2.3, or a back-off). */
  maxRetries: number;
  /** The longest a retry waits, whatever Retry-After asks for. */
  maxRetryWaitMs: number;
  /** Where `{ kind: 'shared-token' }` requests get their token (the battery's workers). */
  sharedTokens?: SharedTokenSource;
  /**
   * The configured client credentials: a recorded client-basic exchange then says how its Basic
   * credentials relate to them (a wrong secret, an unknown id), so that a reproduction can send
   * the same bytes without the report holding the secret.
   */
  clientCredentials?: { clientId: string; clientSecret: string };
  /** Requests in flight at once, at most (the politeness bound); halved on 429 or 503. Default: no bound. */
  maxInFlight?: number;
  /**
   * Fields sent with every request to `credentialOrigins` (`--header`, a gateway's API key): a
   * request's own field of the same name wins, and they never go to another origin (a Link to a
   * foreign host), since their values are credentials too.
   */
  extraHeaders?: readonly (readonly [string, string])[];
  /**
   * Where every exchange is kept as evidence (src/http/exchange-log.ts): appended as it is made,
   * redacted, its id kept by the recorder it was sent through (Recorder.ids).
   */
  exchangeLog?: { append(record: RecordedExchange): string };
  /**
   * --verbose: told one line when a request is sent (`→ GET <url>`) and one when its answer
   * arrives (`← 200 GET <url> 12 ms`, `← error GET <url> : <reason>`), redacted.
   */
  verbose?: (line: string) => void;
}

/** Longest suffix of the configured secret that a recording names (the harness's own "-wrong"). */
const MAX_SECRET_SUFFIX = 32;

/** An access token handed out for requests, and how long the server declared it valid. */
export interface TokenLease {
  readonly token: string;
  /** Epoch ms of `sentAt + expires_in` of the token request: the server cannot have meant less. */
  readonly declaredValidUntil: number;
  /** Epoch ms when its token request was sent: the server issued it after that. */
  readonly requestedAt: number;
}

/**
 * The shared access token, for requests that are not about authentication: valid when the
 * request is sent (renewed ahead of expiry, one renewal in flight at a time), and replaced when
 * the server refuses it. Its errors (no token to be had) reach the caller of `send`.
 */
export interface SharedTokenSource {
  /** A token that is still valid now; `recorder` records a renewal made on the request's behalf. */
  lease(recorder?: Recorder): Promise<TokenLease>;
  /**
   * `refused` got a 401 to a request sent at `sentAt`: a fresh token, issued after that request
   * was sent and not yet due for renewal (one renewal for every request refused with the same one).
   */
  renewAfterRefusal(refused: TokenLease, sentAt: number, recorder?: Recorder): Promise<TokenLease>;
  /** A token issued now for one request alone, handed to no other (a shared one may be used up by others meanwhile). */
  own(recorder?: Recorder): Promise<TokenLease>;
  /**
   * A token was refused (401) and the same request was then answered otherwise with another
   * token: the refusal was about the token, not about what the request asked. Evidence for
   * EXPIRY-VALID-BEFORE when it came while the token's expires_in still vouched for it (issue 30).
   */
  refusedBeforeExpiry?(refusal: TokenRefusal): void;
}

/** A shared token refused (401) where another token then got past authentication (`SharedTokenSource.refusedBeforeExpiry`). */
export interface TokenRefusal {
  /** The request, e.g. "GET /tenants/…/shipments". */
  readonly request: string;
  /** Epoch ms when the refused token was asked for, and `requestedAt + expires_in` (`TokenLease`). */
  readonly requestedAt: number;
  readonly declaredValidUntil: number;
  /** Epoch ms when the refused request was sent and when its 401 had arrived. */
  readonly sentAt: number;
  readonly receivedAt: number;
  /** The answer to the same request with the other token. */
  readonly thenStatus: number;
  /** The refused exchange, as a report shows it (redacted): plain data, to cross to another worker. */
  readonly record?: RecordedExchange;
}

/**
 * A request with the shared token was refused (401) even with a token issued for it alone, but
 * the answer came when that token's expires_in may already have run out (whole seconds, RFC 6749
 * §5.1): the token stopped working, and the request says nothing about the rule it tests.
 */
export class SharedTokenExpiredError extends Error {
  override name = 'SharedTokenExpiredError';
}

/** A response, its body read in full (up to the cap) and decoded. */
export class HttpResponse {
  constructor(
    readonly url: string,
    readonly status: number,
    /** Field lines by lower-cased name, every line kept apart (RFC 9110 §5.3). */
    readonly headers: Readonly<Record<string, readonly string[]>>,
    readonly text: string,
    /** Index of the recorded exchange in `recorder` (-1 when not kept there: see `evidence`). */
    readonly exchange: number,
    readonly recorder?: Recorder,
    /** Epoch ms when the response had arrived: the server handled the request before then. */
    readonly receivedAt: number = Date.now(),
    /** The exchange as a report shows it, built when a finding cites it. */
    readonly evidence?: Evidence,
    /** From sending the request to the end of the body, ms (the last attempt). */
    readonly latencyMs = 0,
    /** 429 or 503 answers retried before this one. */
    readonly throttled = 0,
  ) {}

  /** The same response, noting that `n` answers of 429 or 503 were retried before it. */
  afterThrottling(n: number): HttpResponse {
    return new HttpResponse(
      this.url,
      this.status,
      this.headers,
      this.text,
      this.exchange,
      this.recorder,
      this.receivedAt,
      this.evidence,
      this.latencyMs,
      n,
    );
  }

  /** The field value, lines combined with ", " as RFC 9110 §5.3 defines; undefined when absent. */
  header(name: string): string | undefined {
    const lines = this.headers[name.toLowerCase()];
    return lines && lines.length > 0 ? lines.join(', ') : undefined;
  }

  /** Every line of a field, as received. */
  headerLines(name: string): readonly string[] {
    return this.headers[name.toLowerCase()] ?? [];
  }

  /** The same response without its body text: for keeping many of them (a walk of 1000 pages). */
  withoutBody(): HttpResponse {
    return new HttpResponse(
      this.url,
      this.status,
      this.headers,
      '',
      this.exchange,
      this.recorder,
      this.receivedAt,
      this.evidence,
      this.latencyMs,
      this.throttled,
    );
  }

  /** The body parsed as JSON; a parse failure is returned, not thrown, so checks can report it. */
  json(): { ok: true; value: unknown } | { ok: false; error: string } {
    try {
      return { ok: true, value: JSON.parse(this.text) as unknown };
    } catch (err) {
      return { ok: false, error: `the body is not valid JSON (${(err as Error).message})` };
    }
  }
}

/**
 * An exchange as the report shows it (redacted, its body cut), built the first time it is asked
 * for: most exchanges are never cited by a finding, and a walk of 10 000 pages must not keep
 * 10 000 records. Until then it holds what it is built from (the response's text, which the
 * HttpResponse holds anyway); afterwards only the record.
 */
export class Evidence {
  #build: (() => RecordedExchange) | undefined;
  #record: RecordedExchange | undefined;

  constructor(
    build: () => RecordedExchange,
    /** Its id in the run's exchange log (src/http/exchange-log.ts), when it was logged. */
    readonly logId?: string,
  ) {
    this.#build = build;
  }

  /** A record made already (a copy of one recorded elsewhere). */
  static of(record: RecordedExchange, logId?: string): Evidence {
    const e = new Evidence(() => record, logId);
    e.#record = record;
    e.#build = undefined;
    return e;
  }

  get record(): RecordedExchange {
    if (this.#record === undefined) {
      this.#record = (this.#build as () => RecordedExchange)();
      this.#build = undefined;
    }
    return this.#record;
  }
}

/** Where an exchange was recorded: what a finding cites as its evidence. */
export interface ExchangeRef {
  readonly exchange: number;
  readonly recorder?: Recorder | undefined;
  /** The exchange itself, for one not kept in `recorder` (see Recorder's `keepAll`). */
  readonly evidence?: Evidence | undefined;
}

/** The exchange failed below HTTP: refused, reset, timed out, body too large. */
export class TransportError extends Error {
  constructor(
    message: string,
    readonly exchange: number,
    readonly recorder?: Recorder,
    /** No HTTP response began: the target could not be reached (as opposed to a broken response). */
    readonly beforeResponse = false,
    /** A reused keep-alive connection was closed before any byte of the response (RFC 9112 §9.3.1). */
    readonly closedReusedConnection = false,
    /** The underlying error's code (ECONNREFUSED, ERR_SSL_WRONG_VERSION_NUMBER…), for advice on reaching the target. */
    readonly code?: string,
    readonly evidence?: Evidence,
  ) {
    super(message);
    this.name = 'TransportError';
  }
}

/**
 * The target kept answering 429 or 503 after every retry: it is throttling or unavailable, which
 * says nothing about conformance, so the check that needed the answer errs instead of judging it.
 */
export class UnavailableError extends TransportError {
  constructor(
    readonly response: HttpResponse,
    retries: number,
  ) {
    const what = response.status === 429 ? '429 Too Many Requests (rate limited)' : '503 Service Unavailable';
    super(
      `${new URL(response.url).pathname} answered ${what}${retries > 0 ? ` ${retries + 1} times` : ''}; the target is throttling or unavailable, so nothing was judged (lower --concurrency, or raise --max-retries / --max-retry-wait)`,
      response.exchange,
      response.recorder,
      false,
      false,
      undefined,
      response.evidence,
    );
    this.name = 'UnavailableError';
  }
}

/** The harness refused to send a request (e.g. credentials to a foreign origin). */
export class RequestRefusedError extends Error {
  override name = 'RequestRefusedError';
}

/** Exchanges kept as "the last ones sent", for the report of a check that failed. */
const RECENT = 2;

/**
 * The exchanges of one check (or of a walk, or of an endpoint's valid answer). With `keepAll`
 * (the default) every exchange is recorded, in order; without it only those a finding cites are
 * (CheckContext.cite), and the last few sent: a check over 200 endpoints or a walk of 10 000
 * pages keeps what its report shows, not everything it sent.
 */
export class Recorder {
  readonly exchanges: RecordedExchange[] = [];
  /** Requests sent, including those of exchanges not kept. */
  count = 0;
  /** The exchange log's ids of the exchanges sent through it (and of those it was handed): the checks that used it name them. */
  readonly ids: string[] = [];
  /** One line per retried request, for the report: retries must never be silent. */
  readonly retries: string[] = [];
  /** Token requests made to renew the shared token on behalf of these exchanges. */
  tokenRequests = 0;
  /** The last exchanges sent, oldest first. */
  readonly recent: Evidence[] = [];
  /**
   * Milliseconds during which requests of these exchanges waited for a slot (the politeness
   * bound) with none of them in flight: the turn of other checks' requests, not this check's
   * time. A check's reported duration leaves it out (src/battery/check.ts): with every check
   * started at once, each one's wall time was nearly the run's.
   */
  slotWaitMs = 0;
  #waiting = 0;
  #inFlight = 0;
  #blockedSince: number | undefined;

  constructor(readonly keepAll = true) {}

  /** A request starts waiting for its slot (`+1`) or stops waiting (`-1`); see slotWaitMs. */
  waiting(delta: 1 | -1): void {
    this.#waiting += delta;
    this.#settle();
  }

  /** A request holds a slot (`+1`) or has given it back (`-1`); see slotWaitMs. */
  inFlight(delta: 1 | -1): void {
    this.#inFlight += delta;
    this.#settle();
  }

  #settle(): void {
    const blocked = this.#waiting > 0 && this.#inFlight === 0;
    if (blocked && this.#blockedSince === undefined) this.#blockedSince = performance.now();
    else if (!blocked && this.#blockedSince !== undefined) {
      this.slotWaitMs += performance.now() - this.#blockedSince;
      this.#blockedSince = undefined;
    }
  }

  /** Records an exchange; `sent` is false when it is a copy of one recorded elsewhere. */
  add(exchange: RecordedExchange, sent = true): number {
    if (sent) this.count += 1;
    this.exchanges.push(exchange);
    return this.exchanges.length - 1;
  }

  /** An exchange was sent: its index here when every exchange is kept, else -1. */
  sent(evidence: Evidence): number {
    if (evidence.logId !== undefined) this.ids.push(evidence.logId);
    this.recent.push(evidence);
    if (this.recent.length > RECENT) this.recent.shift();
    if (!this.keepAll) {
      this.count += 1;
      return -1;
    }
    return this.add(evidence.record);
  }
}

/**
 * expires_in is whole seconds (RFC 6749 §5.1): a server that computes exp = floor(iat) + ttl ends
 * a token up to this much before sentAt + expires_in.
 */
export const WHOLE_SECOND_MS = 1000;

/** Sent unless the request gives its own (names in lower case). */
const DEFAULT_HEADER_FIELDS: readonly (readonly [string, string])[] = [
  ['accept', 'application/json'],
  // Real clients and gateways compress; a conformant server may (RFC 9110 §12.5.3).
  ['accept-encoding', 'gzip, deflate, br'],
];

/**
 * How often a request is sent again after meeting a reused connection the server had closed
 * (see `send`): each attempt uses up one of the idle connections the server closed at once, and
 * a run keeps at most MAX_IN_FLIGHT open, so the bound is never reached by a real race and no
 * server can keep the loop going.
 */
const MAX_REUSE_RETRIES = MAX_IN_FLIGHT;

export class HttpClient {
  readonly #agent: Dispatcher;
  readonly #options: HttpClientOptions;
  /** The politeness bound on requests in flight, lowered while the target answers 429 or 503. */
  readonly #pace: AdaptiveConcurrency | undefined;
  readonly #gate: InFlightGate | undefined;
  readonly #deadlines: Deadlines;
  /**
   * The run's and a request's signal as one, by the request's signal: a check sends all its
   * requests with its own signal, and AbortSignal.any per request made a signal, and a listener
   * on each source, for every one of them.
   */
  readonly #combined = new WeakMap<AbortSignal, AbortSignal>();
  /** The signal of requests without any: it never aborts. */
  readonly #never = new AbortController().signal;

  constructor(options: HttpClientOptions, dispatcher?: Dispatcher) {
    this.#options = options;
    this.#deadlines = new Deadlines(options.timeoutMs, options.signal);
    // Every request waiting for a slot listens to the run's signal (Ctrl-C must end its wait).
    if (options.signal) setMaxListeners(0, options.signal);
    if (options.maxInFlight !== undefined) {
      const pace = new AdaptiveConcurrency({
        initial: options.maxInFlight,
        ceiling: options.maxInFlight,
        watchLatency: false,
      });
      this.#pace = pace;
      this.#gate = new InFlightGate(() => pace.limit);
    }
    // One keep-alive pool per process: connections are reused across checks.
    this.#agent = dispatcher ?? createDispatcher(options.timeoutMs, options.tls ?? { insecure: false });
    trackConnectionReuse();
  }

  get options(): Readonly<HttpClientOptions> {
    return this.#options;
  }

  /**
   * Sends the request, and repeats it only where the repeat cannot change what is judged, each
   * time noting it in `recorder.retries` (retries are never silent) and recording every attempt:
   * - a reused keep-alive connection closed before any byte of the response (RFC 9112 §9.3.1;
   *   a server or gateway closing an idle connection as the request goes out): again, for as
   *   long as that is the failure, up to MAX_REUSE_RETRIES times. The pool may send the repeat
   *   on another idle connection, and a gateway closes idle connections together, so the repeat
   *   can meet the same race; each time uses up one closed connection. A failure on a fresh
   *   connection is never repeated;
   * - a 401 to a request sent with the shared token (and its standard scheme): with a fresh
   *   token, since the check is not about the token (`SharedTokenSource`): once with the renewed
   *   shared token and, refused again, once with a token issued for this request alone (others
   *   may have used the renewed one up). Only a 401 to that token, while it was surely valid, is
   *   the check's to judge; one that came when it may have run out ends in a
   *   SharedTokenExpiredError (the token stopped working: nothing was judged);
   * - a 429 or 503: up to `maxRetries` times, after Retry-After (RFC 9110 §10.2.3) or a short
   *   back-off; if it persists, an UnavailableError (nothing about conformance was learnt).
   * Any other response, however wrong, is returned for the check to judge.
   */
  async send(req: HttpRequest, recorder?: Recorder): Promise<HttpResponse> {
    const signal = this.#signal(req);
    // Only the notes of a retry name the path: most requests are never retried.
    const path = (): string => `${req.method} ${new URL(req.url).pathname}`;
    const shared = req.auth?.kind === 'shared-token' ? req.auth : undefined;
    // The token is taken once the request has its slot, right before it is written: a token
    // taken before a wait in the queue may run out meanwhile (a 2 s token ending a second early
    // leaves a second to use it), and its 401 would then be the token's, not the rule's.
    let nextToken: (() => Promise<TokenLease>) | undefined = shared ? () => this.#tokens().lease(recorder) : undefined;
    let lease: TokenLease | undefined;
    let sentAt = 0;
    let reuseRetries = 0;
    let tokenRetries = 0;
    let throttled = 0;
    /** The last 401 to the shared token, while surely valid: evidence if another token then gets past it. */
    let refusal: { token: string; seen: Omit<TokenRefusal, 'thenStatus'> } | undefined;
    const tokenAuth = async (): Promise<RequestAuth> => {
      lease = await (nextToken as () => Promise<TokenLease>)();
      sentAt = Date.now();
      return { kind: 'bearer', token: lease.token, ...(shared?.scheme ? { scheme: shared.scheme } : {}) };
    };
    for (;;) {
      const purpose =
        reuseRetries === 0 && tokenRetries === 0 && throttled === 0
          ? req.purpose
          : this.#againPurpose(req.purpose, reuseRetries, tokenRetries > 0, throttled);
      let res: HttpResponse;
      try {
        res = await this.#sendOnce({ ...req, purpose }, signal, recorder, shared ? tokenAuth : undefined);
      } catch (err) {
        if (
          err instanceof TransportError &&
          err.closedReusedConnection &&
          reuseRetries < MAX_REUSE_RETRIES &&
          !signal.aborted
        ) {
          reuseRetries += 1;
          recorder?.retries.push(
            `${path()}: the server closed the reused keep-alive connection before answering (${err.message}); sent again (RFC 9112 §9.3.1)`,
          );
          continue;
        }
        throw err;
      }
      // A 401 with the shared token is the check's to judge only when the token was surely still
      // valid as the server handled it: with the standard scheme the check is not about the
      // token (renewed and sent again at once); with another spelling, when the answer came
      // later than a second (whole-second expires_in) before the token's declared end.
      const maybeExpired = lease !== undefined && res.receivedAt >= lease.declaredValidUntil - WHOLE_SECOND_MS;
      // Another token got past authentication where the last one got 401: that token, refused
      // while its expires_in still vouched for it, stopped working early (spec §Authentication 3
      // makes it invalid only after expires_in). Reported, not judged here: EXPIRY-VALID-BEFORE
      // judges it, with its clock margin. A 429 or 503 says nothing yet: the retry decides.
      if (
        refusal &&
        lease &&
        lease.token !== refusal.token &&
        res.status !== 401 &&
        res.status !== 429 &&
        res.status !== 503
      ) {
        this.#tokens().refusedBeforeExpiry?.({ ...refusal.seen, thenStatus: res.status });
        refusal = undefined;
      }
      if (res.status === 401 && lease && shared?.scheme === undefined && !maybeExpired) {
        const seen = {
          request: path(),
          requestedAt: lease.requestedAt,
          declaredValidUntil: lease.declaredValidUntil,
          sentAt,
          receivedAt: res.receivedAt,
        };
        refusal = { token: lease.token, seen: res.evidence ? { ...seen, record: res.evidence.record } : seen };
      } else if (res.status === 401) refusal = undefined;
      if (res.status === 401 && lease && (shared?.scheme === undefined || maybeExpired) && tokenRetries < 2) {
        const refused = lease;
        const refusedSentAt = sentAt;
        const leftMs = refused.declaredValidUntil - refusedSentAt;
        const declared =
          leftMs > 0
            ? `which its expires_in still declared valid for ${(leftMs / 1000).toFixed(1)} s`
            : 'whose expires_in had run out';
        tokenRetries += 1;
        if (tokenRetries === 1) {
          nextToken = () => this.#tokens().renewAfterRefusal(refused, refusedSentAt, recorder);
          recorder?.retries.push(
            `${path()} was refused (401) with the shared access token, ${declared}; sent again once with a fresh token before judging`,
          );
        } else {
          // The renewed shared token may have stopped working too (used up by other requests,
          // or ended early): "would a freshly issued token get this 401?" is asked with a token
          // no other request uses.
          nextToken = () => this.#tokens().own(recorder);
          recorder?.retries.push(
            `${path()} was refused (401) again with the renewed shared access token, ${declared}; sent again once with a token issued for it alone before judging`,
          );
        }
        continue;
      }
      if (res.status === 401 && lease && tokenRetries > 0 && maybeExpired) {
        throw new SharedTokenExpiredError(
          `${path()} was refused (401) even with a freshly issued access token, but the answer came ${((res.receivedAt - sentAt) / 1000).toFixed(1)} s after it was sent, when the token's expires_in (whole seconds) may already have run out: the token stopped working, so the request was not judged`,
        );
      }
      if (res.status !== 429 && res.status !== 503) return throttled === 0 ? res : res.afterThrottling(throttled);
      if (throttled >= this.#options.maxRetries || signal.aborted) throw new UnavailableError(res, throttled);
      throttled += 1;
      const wait =
        retryDelay(res, this.#options.maxRetryWaitMs) ??
        Math.min(500 * 2 ** (throttled - 1), this.#options.maxRetryWaitMs);
      recorder?.retries.push(
        `${path()} answered ${res.status}${res.header('retry-after') === undefined ? '' : ` with Retry-After: ${res.header('retry-after') ?? ''}`}; retried after ${(wait / 1000).toFixed(1)} s (retry ${throttled} of ${this.#options.maxRetries})`,
      );
      await sleep(wait, undefined, { signal }).catch(() => undefined);
      if (signal.aborted) throw new UnavailableError(res, throttled - 1);
    }
  }

  /** The purpose of a request sent again, saying why. */
  #againPurpose(purpose: string, reuseRetries: number, tokenRetried: boolean, throttled: number): string {
    const again = [
      reuseRetries > 0 ? 'after a closed connection' : '',
      tokenRetried ? 'with a fresh token' : '',
      throttled > 0 ? `retry ${throttled} of ${this.#options.maxRetries}` : '',
    ].filter(Boolean);
    return `${purpose} (${again.join(', ')})`;
  }

  #tokens(): SharedTokenSource {
    const tokens = this.#options.sharedTokens;
    if (!tokens)
      throw new RequestRefusedError(
        'no shared access token source: this HTTP client cannot send shared-token requests',
      );
    return tokens;
  }

  /** The run's and the request's abort signals, as one. */
  #signal(req: HttpRequest): AbortSignal {
    const run = this.#options.signal;
    const own = req.signal;
    if (own === undefined || own === run) return run ?? this.#never;
    if (run === undefined) return own;
    let combined = this.#combined.get(own);
    if (!combined) this.#combined.set(own, (combined = AbortSignal.any([run, own])));
    return combined;
  }

  /**
   * One attempt. `authAtSend` gives the request's credentials once it has its slot (the shared
   * token, taken right before the request is written); `req.auth` says where they may go.
   */
  async #sendOnce(
    given: HttpRequest,
    signal: AbortSignal,
    recorder?: Recorder,
    authAtSend?: () => Promise<RequestAuth>,
  ): Promise<HttpResponse> {
    // A URL object is used as given (apiUrl builds a new one per request), not parsed again.
    const url = given.url instanceof URL ? given.url : new URL(given.url);
    // Credentials bound elsewhere are refused before the request waits for anything.
    if (authAtSend) this.#refuseForeignCredentials(given.auth, url);
    let headers = authAtSend ? undefined : this.#buildHeaders(given, url);
    // The politeness bound: wait for a slot; the request's own timeout starts once it has one.
    let gateRelease: (() => void) | undefined;
    recorder?.waiting(1);
    try {
      gateRelease = given.ungated ? undefined : await this.#gate?.acquire(given.priority ?? 'normal', signal);
    } catch {
      recorder?.waiting(-1);
      // Cancelled while the request waited for its slot: it was never sent.
      throw new TransportError('cancelled before it was sent (the run or its check stopped)', -1, recorder, true);
    }
    // In flight before it stops waiting: the hand-over is never counted as a wait.
    recorder?.inFlight(1);
    recorder?.waiting(-1);
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      gateRelease?.();
      recorder?.inFlight(-1);
    };
    let req = given;
    if (authAtSend) {
      try {
        req = { ...given, auth: await authAtSend() };
        headers = this.#buildHeaders(req, url);
      } catch (err) {
        release();
        throw err;
      }
    }
    const sentHeaders = headers as Record<string, string>;
    const startedAt = new Date();
    const t0 = performance.now();
    /** The exchange's evidence, built (and redacted) only when a report needs it. */
    const record = (
      response?: { status: number; headers: Record<string, readonly string[]>; text: string },
      error?: string,
      durationMs = performance.now() - t0,
    ): { index: number; evidence: Evidence } => {
      const build = (): RecordedExchange =>
        this.#toRecord(req, url, sentHeaders, startedAt, durationMs, response, error);
      // Logged now, built apart from the evidence: a walk keeps its pages' evidence, and a record
      // built for the log must not stay in memory with each of them.
      const logId = this.#options.exchangeLog?.append(build());
      const evidence = new Evidence(build, logId);
      return { index: recorder ? recorder.sent(evidence) : -1, evidence };
    };

    // The request's deadline (--timeout) and the run's stop (Deadlines: one timer and one run
    // listener for all requests), and a check's own signal, abort the exchange.
    let sent: Exchange | undefined;
    const deadline = this.#deadlines.start((reason) => sent?.abort(asError(reason)));
    const own = signal === this.#options.signal ? undefined : signal;
    let unlisten: (() => void) | undefined;
    let status: number | undefined;
    let responseHeaders: Record<string, string[]> = {};
    let text: string;
    /** The `→` line was told (--verbose): its `←` line follows, whatever happens. */
    let announced = false;
    try {
      // Stopped before it could be sent: it is not sent.
      if (deadline.reason !== undefined) throw asError(deadline.reason);
      if (own?.aborted) throw asError(signal.reason);
      announced = true;
      this.#verbose(() => `→ ${req.method} ${url.href}`);
      sent = req.promisedContent
        ? (await headerOnly()).headerOnlyExchange(url, {
            method: req.method,
            headers: sentHeaders,
            tls: this.#options.tls ?? { insecure: false },
            headersTimeout: this.#options.timeoutMs,
            maxBodyBytes: this.#options.maxBodyBytes,
            tooLarge: () => new BodyTooLargeError(this.#options.maxBodyBytes),
          })
        : exchange(url, {
            method: req.method,
            headers: sentHeaders,
            body: req.body ?? null,
            dispatcher: this.#agent,
            headersTimeout: this.#options.timeoutMs,
            bodyTimeout: this.#options.timeoutMs,
            maxBodyBytes: this.#options.maxBodyBytes,
            tooLarge: () => new BodyTooLargeError(this.#options.maxBodyBytes),
          });
      if (own) unlisten = onAbort(own, () => sent?.abort(asError(signal.reason)));
      const res = await sent.response;
      status = res.statusCode;
      responseHeaders = normaliseHeaders(res.headers);
      text = decodeBody(res.body, responseHeaders['content-encoding']?.join(','), this.#options.maxBodyBytes);
    } catch (err) {
      // The status and headers of a response whose body then failed.
      if (status === undefined && sent?.head) {
        status = sent.head.statusCode;
        responseHeaders = normaliseHeaders(sent.head.headers);
      }
      const message = describeTransportError(err, {
        timeoutMs: this.#options.timeoutMs,
        maxBodyBytes: this.#options.maxBodyBytes,
        url,
        aborted: signal.aborted,
      });
      // A response that began and then broke is recorded with what came of it.
      const partial = status === undefined ? undefined : { status, headers: responseHeaders, text: '' };
      const reusedClosed = status === undefined && closedBeforeResponseOnReusedConnection(err);
      if (announced) this.#verbose(() => `← error ${req.method} ${url.href} : ${message}`);
      const { index, evidence } = record(partial, message);
      throw new TransportError(
        message,
        index,
        recorder,
        status === undefined,
        reusedClosed,
        transportErrorCode(err),
        evidence,
      );
    } finally {
      this.#deadlines.end(deadline);
      unlisten?.();
      release();
    }
    const latencyMs = performance.now() - t0;
    this.#pace?.observe(latencyMs, status === 429 || status === 503);
    this.#options.redactor.learnFromResponseHeaders(responseHeaders);
    this.#options.redactor.learnFromResponseBody(text);
    this.#verbose(() => `← ${status} ${req.method} ${url.href} ${Math.round(latencyMs)} ms`);
    const { index, evidence } = record({ status, headers: responseHeaders, text }, undefined, latencyMs);
    const receivedAt = Date.now();
    await afterTheWrites();
    return new HttpResponse(url.href, status, responseHeaders, text, index, recorder, receivedAt, evidence, latencyMs);
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }

  /** A --verbose line, redacted (a URL may carry a secret), built only when someone listens. */
  #verbose(line: () => string): void {
    const tell = this.#options.verbose;
    if (tell) tell(this.#options.redactor.redact(line()).replace(/\s*[\r\n]+\s*/g, ' '));
  }

  /** Credentials go to the configured origins only (a made-up literal is no credential). */
  #refuseForeignCredentials(auth: RequestAuth | undefined, url: URL): void {
    if (
      auth === undefined ||
      auth.kind === 'none' ||
      auth.kind === 'literal' ||
      this.#options.credentialOrigins.includes(url.origin)
    )
      return;
    throw new RequestRefusedError(
      `refused to send credentials to ${url.origin}: only ${this.#options.credentialOrigins.join(' and ')} may receive them`,
    );
  }

  #buildHeaders(req: HttpRequest, url: URL): Record<string, string> {
    const own = req.headers === undefined ? [] : Object.entries(req.headers);
    // A caller's field replaces a default whatever the case of its name, and keeps its spelling;
    // of two spellings of one name from the caller, the later one is sent.
    const lastOf = new Map(own.map(([name], i) => [name.toLowerCase(), i]));
    const headers: Record<string, string> = {};
    for (const [name, value] of DEFAULT_HEADER_FIELDS) if (!lastOf.has(name)) headers[name] = value;
    if (!lastOf.has('user-agent')) headers['user-agent'] = this.#options.userAgent;
    if (this.#options.extraHeaders && this.#options.credentialOrigins.includes(url.origin)) {
      for (const [name, value] of this.#options.extraHeaders)
        if (!lastOf.has(name.toLowerCase())) headers[name] = value;
    }
    own.forEach(([name, value], i) => {
      if (value !== null && lastOf.get(name.toLowerCase()) === i) headers[name] = value;
    });
    if (req.promisedContent) {
      // RFC 9110 §10.1.1: the expectation goes only with a request that announces content.
      headers['content-type'] = req.promisedContent.type;
      headers['content-length'] = String(req.promisedContent.length);
      headers.expect = '100-continue';
    }
    const auth = req.auth ?? { kind: 'none' };
    if (auth.kind === 'none') return headers;
    this.#refuseForeignCredentials(auth, url);
    if (auth.kind === 'shared-token')
      throw new RequestRefusedError(
        'a shared-token request reached the wire without its token (HttpClient.send resolves it)',
      );
    headers.authorization =
      auth.kind === 'client-basic'
        ? `${auth.scheme ?? 'Basic'} ${encodeBasicCredentials(auth.clientId, auth.clientSecret, auth.encoding)}`
        : auth.kind === 'bearer'
          ? `${auth.scheme ?? 'Bearer'} ${auth.token}`
          : auth.value;
    return headers;
  }

  /** How the Basic credentials of a request relate to the configured ones; undefined when they cannot be told without a secret. */
  #basicOf(auth: Extract<RequestAuth, { kind: 'client-basic' }>): RecordedExchange['basic'] {
    const configured = this.#options.clientCredentials;
    if (!configured) return undefined;
    const r = this.#options.redactor;
    const basic: NonNullable<RecordedExchange['basic']> = { encoding: auth.encoding ?? 'form' };
    // A client id is not a secret; a made-up one is recorded as it was sent.
    if (auth.clientId !== configured.clientId) {
      if (r.redact(auth.clientId) !== auth.clientId) return undefined;
      basic.clientId = auth.clientId;
    }
    if (auth.clientSecret !== configured.clientSecret) {
      const suffix = auth.clientSecret.startsWith(configured.clientSecret)
        ? auth.clientSecret.slice(configured.clientSecret.length)
        : undefined;
      if (suffix === undefined || suffix.length > MAX_SECRET_SUFFIX || r.redact(suffix) !== suffix) return undefined;
      basic.secretSuffix = suffix;
    }
    return basic;
  }

  #toRecord(
    req: HttpRequest,
    url: URL,
    sentHeaders: Record<string, string>,
    startedAt: Date,
    durationMs: number,
    response: { status: number; headers: Record<string, readonly string[]>; text: string } | undefined,
    error: string | undefined,
  ): RecordedExchange {
    const r = this.#options.redactor;
    const keepCredentials = req.auth?.kind === 'literal';
    const limit = this.#options.recordBodyChars;
    const exchange: RecordedExchange = {
      purpose: r.redact(req.purpose),
      request: {
        method: req.method,
        url: r.redact(url.href),
        headers: Object.entries(sentHeaders).map(([n, v]) => [n, r.redactHeader(n, v, keepCredentials)]),
        ...(req.body === undefined ? {} : { body: r.redactBody(req.body) }),
      },
      startedAt: startedAt.toISOString(),
      durationMs: Math.round(durationMs * 1000) / 1000,
      // send() has replaced a shared token by the bearer token it leased.
      auth: req.auth?.kind === 'shared-token' ? 'bearer' : (req.auth?.kind ?? 'none'),
    };
    if (req.auth?.kind === 'client-basic') {
      const basic = this.#basicOf(req.auth);
      if (basic) exchange.basic = basic;
    }
    if (response) {
      // Redact before cutting, so that a secret is never left half-visible at the cut.
      const body = r.redactBody(response.text);
      exchange.response = {
        status: response.status,
        headers: Object.entries(response.headers).flatMap(([n, lines]) =>
          lines.map((v): [string, string] => [n, r.redactHeader(n, v)]),
        ),
        body: cutAt(body, limit),
        bodyTruncated: body.length > limit,
      };
    }
    if (error !== undefined) exchange.error = r.redact(error);
    return exchange;
  }
}

/**
 * Resolves once the requests that this turn's answers let through have been written: the caller
 * (a check's judgement: parsing, validating, recording) runs after them, not before. undici
 * writes a request on a reused keep-alive connection only in the event loop's check phase
 * (setImmediate, after the poll that brought the answers: it looks for a close or stray bytes
 * from the server first), so every judgement of the answers that came in one poll ran before any
 * request that their slots freed was written, and the politeness bound stood partly empty for
 * that CPU time on every round (issue 29, item 8: the CPU work did not overlap the waits). One
 * setImmediate would land among undici's; the second runs after all of them. Only when the
 * answer reaches its caller changes, never what it is: no verdict depends on timing.
 */
/**
 * src/http/header-only.ts, loaded with the first write probe: node:http and node:https cost every
 * worker and every CLI start ~25 ms (measured), and most runs send no write probe.
 */
let headerOnlyModule: Promise<typeof HeaderOnly> | undefined;
const headerOnly = (): Promise<typeof HeaderOnly> => (headerOnlyModule ??= import('./header-only.js'));

function afterTheWrites(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

/** An abort reason as undici takes it (an Error; the run's and the deadline's reasons are). */
function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}

/** The first `limit` characters, without splitting a surrogate pair at the cut. */
function cutAt(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const last = text.charCodeAt(limit - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? limit - 1 : limit);
}

/**
 * How long to wait before retrying, or undefined when the response is not one to retry: a 429
 * or 503 with a Retry-After of delta-seconds or an HTTP-date (RFC 9110 §10.2.3), capped.
 */
export function retryDelay(res: HttpResponse, maxWaitMs: number): number | undefined {
  if (res.status !== 429 && res.status !== 503) return undefined;
  const value = res.header('retry-after')?.trim();
  if (value === undefined) return undefined;
  const ms = /^\d+$/.test(value) ? Number(value) * 1000 : Date.parse(value) - Date.now();
  if (Number.isNaN(ms)) return undefined;
  return Math.min(Math.max(0, ms), maxWaitMs);
}

function normaliseHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value : [value];
  }
  return out;
}

export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`response body larger than ${limit} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

function decodeBody(raw: Buffer, contentEncoding: string | undefined, max: number): string {
  if (contentEncoding === undefined) return UTF8.decode(raw);
  const codings = contentEncoding
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  let data = raw;
  // Codings are listed in the order they were applied (RFC 9110 §8.4): undo them from the last.
  for (const coding of codings.reverse()) {
    const opts = { maxOutputLength: max };
    try {
      if (coding === 'gzip' || coding === 'x-gzip') data = gunzipSync(data, opts);
      else if (coding === 'deflate') data = inflateSync(data, opts);
      else if (coding === 'br') data = brotliDecompressSync(data, opts);
      else throw new Error(`unsupported content coding "${coding}"`);
    } catch (err) {
      if (err instanceof RangeError) throw new BodyTooLargeError(max);
      throw new Error(`cannot decode the ${coding} body: ${(err as Error).message}`, { cause: err });
    }
  }
  return UTF8.decode(data);
}

/** Stateless between calls (no `stream` option): one for every body. */
const UTF8 = new TextDecoder('utf-8');
