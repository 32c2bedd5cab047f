/**
 * Splits an Authorization field value into scheme and credentials (RFC 9110 §11.4, §11.6.2):
 * `credentials = auth-scheme [ 1*SP ( token68 / #auth-param ) ]`.
 */

export interface AuthorizationParts {
  /** The scheme, lower-cased: scheme names are case-insensitive (RFC 9110 §11.1). */
  readonly scheme: string;
  /** Everything after the separating spaces, without trailing whitespace; '' when absent. */
  readonly credentials: string;
}

/** RFC 9110 §5.6.2 token, which is what an auth-scheme is. */
const SCHEME = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?: +(.*))?$/s;

/** Returns null when the header is absent, empty or has no valid scheme. */
export function parseAuthorization(value: string | undefined): AuthorizationParts | null {
  if (value === undefined) return null;
  const m = SCHEME.exec(value.replace(/^[ \t]+|[ \t]+$/g, ''));
  if (!m?.[1]) return null;
  return { scheme: m[1].toLowerCase(), credentials: (m[2] ?? '').replace(/[ \t]+$/, '') };
}
