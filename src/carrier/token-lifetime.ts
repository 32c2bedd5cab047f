/**
 * How long a "short-lived" access token may live (spec §What the service does 1: "Clients obtain a
 * short-lived bearer access token"), for TOKEN-SHORT-LIVED, a SHOULD check.
 *
 * The spec gives no number, so the bound is the longest lifetime that widely used authorization
 * servers issue by default, and the longest most of them allow at all: a day. Keycloak and Spring
 * Authorization Server issue 5 minutes, oidc-provider 10 minutes for client credentials,
 * @node-oauth/oauth2-server, Okta, Entra ID, Cognito and Google an hour (Okta and Cognito allow a
 * day at most), Cloud Foundry UAA 12 hours, Auth0 a day by default for an API. Past a day the
 * token is no longer short-lived by any of their measures, and no run can wait it out (EXPIRY-*
 * are skipped).
 *
 * The usual cause of such a value is a lifetime in milliseconds where the spec says seconds
 * (spec §Access token response): every lifetime of two minutes or more, written in
 * milliseconds, lands past a day (120000 s is 33 hours); a one-minute one (60000 s, 16.7 hours)
 * stays under the bound and is not caught here. A value that is a whole number of minutes in
 * milliseconds (3600000, 300000, 86400000) is named as that.
 */
export const SHORT_LIVED_MAX_SECONDS = 86_400;

/** `2 days 4 h`, `1 h`, `43 min 12 s`: a duration as a reader takes it in. */
export function describeDuration(seconds: number): string {
  const parts: string[] = [];
  let left = Math.round(seconds);
  for (const [unit, size] of [
    ['day', 86_400],
    ['h', 3600],
    ['min', 60],
    ['s', 1],
  ] as const) {
    const n = Math.floor(left / size);
    left -= n * size;
    if (n > 0) parts.push(unit === 'day' ? `${n} day${n === 1 ? '' : 's'}` : `${n} ${unit}`);
    if (parts.length === 2) break;
  }
  return parts.length > 0 ? parts.join(' ') : '0 s';
}

/**
 * Why `expiresIn` (seconds, as declared) is no short-lived token's lifetime, or undefined when it
 * is one.
 */
export function lifetimeProblem(expiresIn: number): string | undefined {
  if (expiresIn <= SHORT_LIVED_MAX_SECONDS) return undefined;
  const asSeconds = `expires_in ${expiresIn} declares a token that lives ${describeDuration(expiresIn)}: no short-lived token (spec §What the service does 1) lives longer than a day (${SHORT_LIVED_MAX_SECONDS} s)`;
  const asMilliseconds = describeDuration(expiresIn / 1000);
  // A whole number of minutes in milliseconds: almost surely a lifetime configured in ms.
  if (expiresIn % 60_000 === 0)
    return `${asSeconds}. Read as milliseconds it is ${asMilliseconds}: a lifetime in milliseconds, where spec §Access token response says seconds, is the likely cause`;
  return `${asSeconds}. If it is meant in milliseconds (spec §Access token response says seconds), it is ${asMilliseconds}`;
}
