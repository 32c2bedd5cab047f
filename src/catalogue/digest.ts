import { createHash } from 'node:crypto';
import { CHECKS } from './checks.js';
import type { Check } from './types.js';

/**
 * The catalogue's identity: a SHA-256 over what each check *is* (id, suite, level, title, spec
 * references), in catalogue order. Two reports with the same digest judged the same rules at the
 * same levels, so they can stand side by side in a matrix and a bundle can be held to today's
 * catalogue. `notes` are left out: they explain a check and may be reworded without changing it.
 *
 * Kept apart from `index.ts`: the battery's workers load that, and need no hashing.
 */

/** Bumped if what is hashed changes, so that digests of two schemes never compare equal. */
const DIGEST_SCHEME = 'carrier-conformance-catalogue/1';

export function catalogueDigest(checks: readonly Check[] = CHECKS): string {
  const normative = checks.map((c) => [c.id, c.suite, c.level, c.title, c.refs]);
  return `sha256:${createHash('sha256')
    .update(JSON.stringify([DIGEST_SCHEME, normative]))
    .digest('hex')}`;
}

/** The catalogue of this harness, as report.json records it. */
export function currentCatalogue(): { digest: string; checks: number; must: number } {
  return { digest: catalogueDigest(), checks: CHECKS.length, must: CHECKS.filter((c) => c.level === 'MUST').length };
}
