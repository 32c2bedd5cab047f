import { readIssuedToken, requestToken, type ClientCredentials, type Send, type Target } from '../carrier/requests.js';
import {
  WHOLE_SECOND_MS,
  type HttpResponse,
  type Recorder,
  type SharedTokenSource,
  type TokenLease,
  type TokenRefusal,
} from '../http/client.js';
import { redactor } from '../core/redact.js';
import type { SharedToken } from './wiring.js';
import { PrerequisiteError } from './errors.js';
import { recordRefusal } from './observed-tokens.js';

/**
 * The access token the checks use when they do not test the token endpoint itself: at first the
 * one the runner obtained before the battery, so that a run sends as few token requests as
 * possible, then renewed ahead of its expiry for as long as the run lasts (a walk of thousands
 * of pages may outlast many tokens). The HTTP layer takes a lease when it sends each request
 * (`{ kind: 'shared-token' }`), so every request carries a token that is valid when it leaves.
 */

/**
 * The check that judges why a valid token request gave no usable token, for an error to point
 * at: TOKEN-ISSUE judges the status and the JSON object; at 200 with a JSON object, the token
 * itself is TOKEN-ACCESS-TOKEN's business (TOKEN-ISSUE passed then, and must not be blamed).
 */
export function judgeOfMissingToken(res: HttpResponse): string {
  const parsed = res.json();
  const object = parsed.ok && parsed.value !== null && typeof parsed.value === 'object' && !Array.isArray(parsed.value);
  return res.status === 200 && object ? 'TOKEN-ACCESS-TOKEN' : 'TOKEN-ISSUE';
}

/** A token as issued, with when it was asked for and when it arrived (epoch ms). */
interface Issued {
  token: string;
  expiresIn: number;
  sentAt: number;
  receivedAt: number;
}

/**
 * When to stop handing a token out: its lifetime counted from `sentAt` (the server cannot have
 * issued it earlier), less a lead of a fifth of the lifetime, at least 1 s (`expires_in` is whole
 * seconds and servers that compute `exp = floor(iat) + ttl` end a token up to 1 s early) and at
 * least two round trips (the request still has to reach the server), but never more than half
 * the lifetime. A token just received is always handed out to the requests that waited for it.
 */
export function renewAt(t: Issued): number {
  const lifetime = t.expiresIn * 1000;
  const roundTrip = Math.max(0, t.receivedAt - t.sentAt);
  const lead = Math.min(lifetime / 2, Math.max(WHOLE_SECOND_MS, lifetime / 5, 2 * roundTrip));
  return t.sentAt + lifetime - lead;
}

/** A token without a usable expires_in is used for this long before it is renewed. */
const FALLBACK_EXPIRES_IN = 60;

export class SharedTokens implements SharedTokenSource {
  #current: (TokenLease & { renewAt: number }) | undefined;
  #renewal: Promise<TokenLease & { renewAt: number }> | undefined;

  constructor(
    private readonly send: (recorder: Recorder | undefined) => Send,
    private readonly target: Target,
    private readonly credentials: ClientCredentials,
    initial: SharedToken | undefined,
    /** Why the runner has no shared token, for the error of every check that needs one. */
    private readonly problem: string | undefined,
  ) {
    if (initial)
      this.#current = leaseOf({
        token: initial.accessToken,
        expiresIn: initial.expiresIn,
        sentAt: initial.sentAt,
        receivedAt: initial.receivedAt,
      });
  }

  async lease(recorder?: Recorder): Promise<TokenLease> {
    const current = this.#current;
    if (current && Date.now() < current.renewAt) return current;
    return this.#renew(recorder);
  }

  async renewAfterRefusal(refused: TokenLease, sentAt: number, recorder?: Recorder): Promise<TokenLease> {
    // Another request refused with the same token may have renewed it already: that token is
    // fresh only if it was asked for after the refused request went out (one current before
    // then may have stopped working in the same way) and is not yet due for renewal.
    const current = this.#current;
    if (current && current.token !== refused.token && current.requestedAt >= sentAt && Date.now() < current.renewAt)
      return current;
    if (current !== undefined) this.#current = undefined;
    return this.#renew(recorder);
  }

  async own(recorder?: Recorder): Promise<TokenLease> {
    // Not made current: others could use it up before the request it is for is answered.
    return this.#fetch(
      recorder,
      'obtain an access token for one request alone (refused with the renewed shared one too)',
    );
  }

  /** Evidence for EXPIRY-VALID-BEFORE, whichever worker its check runs in (src/battery/observed-tokens.ts). */
  refusedBeforeExpiry(refusal: TokenRefusal): void {
    recordRefusal(refusal);
  }

  /** One renewal in flight at a time: every request that needs a token meanwhile waits for it. */
  #renew(recorder: Recorder | undefined): Promise<TokenLease & { renewAt: number }> {
    this.#renewal ??= this.#fetch(recorder)
      .then((lease) => (this.#current = lease))
      .finally(() => {
        this.#renewal = undefined;
      });
    return this.#renewal;
  }

  async #fetch(
    recorder: Recorder | undefined,
    purpose = 'obtain an access token for the checks (the shared one is missing or about to expire)',
  ): Promise<TokenLease & { renewAt: number }> {
    const sentAt = Date.now();
    if (recorder) recorder.tokenRequests += 1;
    const send = this.send(recorder);
    // Requests holding a slot of the politeness bound wait for this one: it takes none (HttpRequest.ungated).
    const res = await requestToken((req) => send({ ...req, ungated: true }), this.target, {
      credentials: this.credentials,
      // client_secret_post when the deployment takes only that (--client-auth post): the shared token is the run's, not a check's.
      ...(this.target.clientAuth === 'post' ? { clientAuth: 'post' as const } : {}),
      purpose,
    });
    const issued = readIssuedToken(res);
    if (!issued) {
      throw new PrerequisiteError(
        `no access token to test with: the token endpoint answered ${res.status}${this.problem ? ` (${this.problem})` : ''} (see ${judgeOfMissingToken(res)})`,
      );
    }
    redactor.addSecret(issued.accessToken, 'access-token');
    const expiresIn =
      Number.isFinite(issued.expiresIn) && issued.expiresIn > 0 ? issued.expiresIn : FALLBACK_EXPIRES_IN;
    return leaseOf({ token: issued.accessToken, expiresIn, sentAt, receivedAt: Date.now() });
  }
}

function leaseOf(t: Issued): TokenLease & { renewAt: number } {
  return {
    token: t.token,
    declaredValidUntil: t.sentAt + t.expiresIn * 1000,
    requestedAt: t.sentAt,
    renewAt: Math.max(renewAt(t), t.receivedAt),
  };
}
