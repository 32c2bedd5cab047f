/**
 * Issued access tokens and their lifetimes (spec §Authentication 3, §Limits).
 */
import { randomBytes } from 'node:crypto';

export type TokenState = 'valid' | 'expired' | 'unknown';

/** Which of the reference server's clients a token was issued to: each sees its own tenants. */
export type ClientName = 'first' | 'second';

/** How many issues between sweeps of expired tokens, so benchmarks do not grow the map forever. */
const SWEEP_EVERY = 1024;
/** How many issued tokens are remembered for issuedTokens(). */
const MAX_REMEMBERED = 10_000;

export class TokenStore {
  /** token → expiry instant in epoch milliseconds. */
  readonly #expiresAt = new Map<string, number>();
  /** Tokens of the second client (every other token is the first client's). */
  readonly #second = new Set<string>();
  readonly #ttlSeconds: number;
  #issued = 0;
  /** The first tokens issued, for tests that scan outputs for leaked tokens. */
  readonly #recent: string[] = [];

  constructor(ttlSeconds: number) {
    this.#ttlSeconds = ttlSeconds;
  }

  /** A fresh token: 32 random bytes, base64url, which is within RFC 6750 §2.1 b64token. */
  issue(client: ClientName = 'first'): { token: string; expiresIn: number } {
    const token = randomBytes(32).toString('base64url');
    const now = Date.now();
    this.#expiresAt.set(token, now + this.#ttlSeconds * 1000);
    if (client === 'second') this.#second.add(token);
    this.#issued += 1;
    if (this.#recent.length < MAX_REMEMBERED) this.#recent.push(token);
    if (this.#issued % SWEEP_EVERY === 0) this.#sweep(now);
    return { token, expiresIn: this.#ttlSeconds };
  }

  /**
   * Valid while now < issuedAt + ttl exactly, with no leeway: after `expires_in` seconds
   * "the token is invalid" (spec §Authentication 3).
   */
  check(token: string): TokenState {
    const expiresAt = this.#expiresAt.get(token);
    if (expiresAt === undefined) return 'unknown';
    return Date.now() < expiresAt ? 'valid' : 'expired';
  }

  /** The client a token was issued to (a token never issued is the first client's: it is refused anyway). */
  clientOf(token: string | undefined): ClientName {
    return token !== undefined && this.#second.has(token) ? 'second' : 'first';
  }

  /** Milliseconds until the token expires (negative once it has); undefined for an unknown token. */
  millisecondsLeft(token: string): number | undefined {
    const expiresAt = this.#expiresAt.get(token);
    return expiresAt === undefined ? undefined : expiresAt - Date.now();
  }

  /** The tokens issued so far (the first 10 000). */
  get issuedTokens(): readonly string[] {
    return this.#recent;
  }

  get issued(): number {
    return this.#issued;
  }

  #sweep(now: number): void {
    for (const [token, expiresAt] of this.#expiresAt) {
      if (expiresAt > now) continue;
      this.#expiresAt.delete(token);
      this.#second.delete(token);
    }
  }
}
