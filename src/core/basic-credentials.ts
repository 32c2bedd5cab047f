/**
 * Client credentials in an HTTP Basic header.
 *
 * RFC 6749 §2.3.1: the client id and secret are first encoded with the
 * application/x-www-form-urlencoded algorithm (Appendix B), then used as user-id and password
 * of RFC 7617 §2: `base64(utf8(user-id ":" password))`. Encoding first is what lets any secret
 * survive: a `:` in the id, or `+`, `%`, `&`, spaces and non-ASCII characters in the secret.
 */

/** The application/x-www-form-urlencoded serialisation of one value (space → `+`). */
export function formEncode(value: string): string {
  return new URLSearchParams([['', value]]).toString().slice(1);
}

/**
 * application/x-www-form-urlencoded decoding of one value (RFC 6749 Appendix B), the inverse of
 * `formEncode`: `+` is a space, `%XX` an octet of UTF-8. Strict: a stray `%` or an invalid UTF-8
 * sequence gives null.
 */
export function formUrlDecode(value: string): string | null {
  if (/%(?![0-9A-Fa-f]{2})/.test(value)) return null;
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

/**
 * How the client credentials become the Basic user-id and password: `form` is RFC 6749 §2.3.1;
 * `raw` uses them as they are (plain RFC 7617), which is what a server that does not form-decode
 * them accepts. The harness sends `form` unless the preflight found that only `raw` works.
 */
export type BasicEncoding = 'form' | 'raw';

/** The credentials part of `Authorization: Basic <credentials>`. */
export function encodeBasicCredentials(
  clientId: string,
  clientSecret: string,
  encoding: BasicEncoding = 'form',
): string {
  const [id, secret] =
    encoding === 'form' ? [formEncode(clientId), formEncode(clientSecret)] : [clientId, clientSecret];
  return Buffer.from(`${id}:${secret}`, 'utf8').toString('base64');
}

/** True when the RFC 6749 form-encoding changes the credentials, i.e. a naive `curl -u` would differ. */
export function needsFormEncoding(clientId: string, clientSecret: string): boolean {
  return formEncode(clientId) !== clientId || formEncode(clientSecret) !== clientSecret;
}
