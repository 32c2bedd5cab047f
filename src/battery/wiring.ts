import type { PrecompiledValidators } from '../carrier/standalone.js';
import type { EndpointSpec, WriteOperationSpec } from '../carrier/endpoint-specs.js';
import type { ClientCredentials, Target } from '../carrier/requests.js';
import type { Expectations } from '../config/options.js';
import type { HttpSettings } from '../http/settings.js';
import type { RecordedExchange } from '../model/run-report.js';
import type { SecretKind } from '../core/redact.js';
import type { TeamModule } from '../model/team-checks.js';

/**
 * What passes between the runner and the battery's workers. Plain data and names only: the
 * runner loads this before it starts Vitest, so it must cost nothing to load (the worker side,
 * with its HTTP client and Vitest's runtime, is src/battery/context.ts).
 */

/**
 * What the runner hands to the battery: everything a check needs to know about the target and
 * the run. It crosses from the CLI process to the Vitest workers with `provide`/`inject`, so it
 * is plain data (structured-cloneable). It holds secrets: it is never written anywhere.
 */
export interface BatteryContext {
  target: Target & { embedded: boolean };
  credentials: ClientCredentials;
  /** The tenant under test; absent when none was given and /users/me listed none. */
  tenantId?: string;
  /** Why there is no tenant under test. */
  tenantProblem?: string;
  /** How TENANT-FOREIGN proves tenant isolation (src/battery/isolation.ts); neither: it is skipped. */
  isolation: Isolation;
  /** A tenant id made up for the run, which names no tenant (TENANT-UNKNOWN). */
  unknownTenantId: string;
  /** The tenant endpoints under test: lists and single resources (src/carrier/endpoint-specs.ts). */
  endpoints: EndpointSpec[];
  /** The write operations under the tenant path (--openapi, unless --write-probes none), judged by src/battery/writes.ts. */
  writes: WriteOperationSpec[];
  /** How the write operations are probed (--write-probes): `invalid-content` adds content that is not JSON where headers alone prove nothing. */
  writeProbes?: 'headers' | 'invalid-content';
  /** The OpenAPI document the endpoints' schemas point into (--openapi). */
  openapi?: Record<string, unknown>;
  /** Validators of those schemas, compiled where the document was read (src/openapi/document-ajv.ts). */
  openapiValidators?: PrecompiledValidators;
  /** Path parameter values the user gave (--parameter, `parameters` in a config file). */
  parameters: Record<string, string>;
  expectations?: Expectations;
  /** Ids of the checks to run. */
  selected: string[];
  /** The team's own checks (--team-checks, src/battery/team.ts): run beside the catalogue's, reported apart. */
  teamChecks?: TeamModule[];
  http: HttpSettings;
  maxExpiryWaitSeconds: number;
  /**
   * Whether the user gave --max-expiry-wait (command line, environment or config file) rather
   * than leaving it at its default: a token too long-lived to wait out is then probed again that
   * long after issue, however soon the other checks end (EXPIRY-VALID-BEFORE, issue 30). Absent,
   * a value other than DEFAULT_MAX_EXPIRY_WAIT_SECONDS counts as given.
   */
  maxExpiryWaitGiven?: boolean;
  expiryMarginSeconds: number;
  pageSize?: number;
  /** With more pages than this, a walk samples them (first, last, evenly between). */
  maxPages?: number;
  /** The most page requests a walk has in flight (--concurrency); absent: adaptive up to WALK_CONCURRENCY_BOUND. */
  concurrency?: number;
  /** The token the runner obtained before the battery, shared by every check that needs one. */
  sharedToken?: SharedToken;
  /** Why there is no shared token. */
  sharedTokenProblem?: string;
  /** The run's exchange log directory (src/http/exchange-log.ts): each worker appends every exchange it makes to a file there. */
  exchangeLogDir?: string;
  /** The secrets the runner's redactor knows (tokens, cookies the preflight saw): the workers redact them too. */
  secrets?: [string, SecretKind][];
  /**
   * The preflight's answers to the valid requests of the token endpoint and /users/me, which the
   * checks share: `token` with HTTP Basic (the spec's request), `tokenPost` with the credentials
   * in the form body (client_secret_post), when the run goes with that (Target.clientAuth).
   */
  preflight?: { token?: PassedResponse; tokenPost?: PassedResponse; user?: PassedResponse };
}

/** What TENANT-FOREIGN proves isolation with: a second client of another tenant, a named foreign tenant, or both. */
export interface Isolation {
  /** A tenant this client may not access, named by the user (--foreign-tenant-id) or the embedded server. */
  foreignTenantId?: string;
  secondClient?: {
    credentials: ClientCredentials;
    /** Its tenant: --second-tenant-id, else the first its /users/me lists that is not the tenant under test. */
    tenantId?: string;
    /** Why its tenant is not known. */
    tenantProblem?: string;
    /** The tenants its /users/me listed, when it was asked. */
    tenants?: string[];
    /** The token its preflight obtained. */
    token?: SharedToken;
  };
}

/** A response as plain data, to cross to the workers; `record` is the exchange, redacted. */
export interface PassedResponse {
  url: string;
  status: number;
  headers: Record<string, string[]>;
  text: string;
  receivedAt: number;
  record: RecordedExchange;
  /** Its id in the run's exchange log. */
  logId?: string;
}

/**
 * A run's channel, between the runner and the battery's workers. The battery runs in worker
 * threads of the harness's process, and a BroadcastChannel reaches every thread of a process:
 * - Vitest starts the workers as soon as the options are known, so that their start-up overlaps
 *   the runner's own (loading, preflight); each worker says `ready` and waits for the `context`;
 * - `stop` (Ctrl-C, --deadline, a failed preflight) makes every worker abort its requests and
 *   waits at once. (Vitest's own cancellation waits for running tests, which a hung request
 *   never ends.)
 * - `verbose` (--verbose): a worker's line about a request it sent or its answer, for the runner
 *   to print.
 */
export type RunMessage =
  | { type: 'ready' }
  | { type: 'context'; context: BatteryContext }
  | { type: 'stop'; reason: string }
  | VerboseMessage
  | ObservedMessage
  | SecretMessage;

/**
 * The runner's memory of the other suites' `checks-done`, for the expiry worker that asks
 * `checks-status?`: a BroadcastChannel delivers only to the channels open when a message is
 * posted, and the worker that posted it may have ended (its thread stopped) before the expiry
 * worker's channel opened. Returns, for each message the runner hears, what it posts in answer.
 */
export function otherChecksDoneRelay(): (message: RunMessage) => RunMessage | undefined {
  let done: RunMessage | undefined;
  return (message) => {
    if (message.type === 'checks-done') done = message;
    return message.type === 'checks-status?' ? done : undefined;
  };
}

/**
 * A secret one thread's redactor learned (an access token, a cookie a target set): every other
 * thread registers it too, so that each redacts what another saw (src/core/redact.ts onSecret). It
 * crosses between the threads of the harness's own process, never out of it.
 */
export interface SecretMessage {
  type: 'secret';
  value: string;
  kind: SecretKind;
}

/** --verbose: a worker's request or answer, one line, redacted; the runner prints it to stderr. */
export interface VerboseMessage {
  type: 'verbose';
  line: string;
}

/**
 * What the workers tell each other of the shared token (src/battery/observed-tokens.ts): the
 * expiry suite, in its own worker, judges EXPIRY-VALID-BEFORE on what the other checks saw.
 * - `token-refused`: a shared token was refused while its expires_in vouched for it, and another
 *   token then got past authentication (TokenRefusal, src/http/client.ts);
 * - `checks-done`: the worker of the other suites has run its last check (with every refusal it
 *   saw, for a listener that missed one); `checks-status?` asks for it again, `checks-running`
 *   answers while they run.
 */
export type ObservedMessage =
  | { type: 'token-refused'; refusal: PassedRefusal }
  | { type: 'checks-done'; refusals: PassedRefusal[] }
  | { type: 'checks-status?' }
  | { type: 'checks-running' };

/** A TokenRefusal as plain data (src/http/client.ts; the exchange redacted). */
export interface PassedRefusal {
  request: string;
  requestedAt: number;
  declaredValidUntil: number;
  sentAt: number;
  receivedAt: number;
  thenStatus: number;
  record?: RecordedExchange;
}

export function runChannelName(runId: string): string {
  return `carrier-conformance:run:${runId}`;
}

/** What Vitest provides to the workers before the run: only the channel to ask for the rest on. */
export interface BatteryWiring {
  channel: string;
}

export interface SharedToken {
  accessToken: string;
  expiresIn: number;
  /** Epoch ms when the token request was sent and when its response arrived. */
  sentAt: number;
  receivedAt: number;
}

declare module 'vitest' {
  export interface ProvidedContext {
    carrier: BatteryWiring;
  }
}

export const PROVIDE_KEY = 'carrier';
