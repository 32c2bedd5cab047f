import { readIssuedToken, requestToken } from '../api/requests.js';
import { redactor } from '../redact.js';
import type { CheckContext } from './check.js';
import { getBattery } from './context.js';
import { PrerequisiteError } from './errors.js';

/**
 * The access token the checks use when they do not test the token endpoint itself: the one the
 * runner obtained before the battery, so that a run sends as few token requests as possible.
 * Only when it is about to expire (short-lived tokens, slow targets) does a worker fetch another,
 * once for all its checks.
 */

interface Usable {
  token: string;
  /** Epoch ms after which the token is not handed out any more. */
  usableUntil: number;
}

let current: Usable | undefined;
let inflight: Promise<Usable> | undefined;

/** Stop using a token this long before it expires: a fifth of its lifetime, at least 1 s. */
export function usableUntil(sentAt: number, expiresInSeconds: number): number {
  const lifetime = expiresInSeconds * 1000;
  return sentAt + lifetime - Math.max(1000, lifetime / 5);
}

export async function sharedAccessToken(c: CheckContext): Promise<string> {
  const { settings } = getBattery();
  if (!current && settings.sharedToken) {
    const t = settings.sharedToken;
    current = { token: t.accessToken, usableUntil: usableUntil(t.sentAt, t.expiresIn) };
  }
  if (current && Date.now() < current.usableUntil) return current.token;
  inflight ??= fetchToken(c).finally(() => {
    inflight = undefined;
  });
  current = await inflight;
  return current.token;
}

async function fetchToken(c: CheckContext): Promise<Usable> {
  const sentAt = Date.now();
  c.sharedTokenRequests += 1;
  const res = await requestToken(c.send, c.target, {
    credentials: c.credentials,
    purpose: 'obtain an access token for the checks (the shared one is missing or about to expire)',
  });
  const issued = readIssuedToken(res);
  if (!issued) {
    const why = getBattery().settings.sharedTokenProblem;
    throw new PrerequisiteError(`no access token to test with: the token endpoint answered ${res.status}${why ? ` (${why})` : ''}`);
  }
  redactor.addSecret(issued.accessToken, 'access-token');
  const expiresIn = Number.isFinite(issued.expiresIn) && issued.expiresIn > 0 ? issued.expiresIn : 60;
  return { token: issued.accessToken, usableUntil: usableUntil(sentAt, expiresIn) };
}
