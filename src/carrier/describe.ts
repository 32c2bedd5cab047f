import { challengeWithout } from '../http/challenge.js';
import type { HttpResponse } from '../http/client.js';
/**
 * A value as a message shows it: a leaf, so that what reads reports (the bundle's evidence,
 * src/bundle/evidence.ts) can use the resource judge without the battery's runtime (Vitest).
 */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'no such field';
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  return JSON.stringify(value);
}

/** A status as a finding shows it: `302 (a redirect to …)`, `500 (a server error)`, `400`. */
export function describeStatus(res: HttpResponse): string {
  const s = res.status;
  if (s >= 300 && s < 400) return `${s} (a redirect to ${res.header('location') ?? 'nowhere'})`;
  if (s >= 500) return `${s} (a server error)`;
  // A 401 that challenges another scheme than Bearer says why the token was refused (DRF's `Token`).
  const challenge = s === 401 ? challengeWithout(res.headerLines('www-authenticate'), 'Bearer') : undefined;
  return challenge === undefined ? String(s) : `${s} (${challenge})`;
}
