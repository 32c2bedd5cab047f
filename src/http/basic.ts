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

/** The credentials part of `Authorization: Basic <credentials>`. */
export function encodeBasicCredentials(clientId: string, clientSecret: string): string {
  return Buffer.from(`${formEncode(clientId)}:${formEncode(clientSecret)}`, 'utf8').toString('base64');
}

/** True when the RFC 6749 form-encoding changes the credentials, i.e. a naive `curl -u` would differ. */
export function needsFormEncoding(clientId: string, clientSecret: string): boolean {
  return formEncode(clientId) !== clientId || formEncode(clientSecret) !== clientSecret;
}
