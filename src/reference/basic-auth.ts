/**
 * Client authentication for the token endpoint: HTTP Basic (RFC 7617) carrying form-urlencoded
 * client credentials (RFC 6749 §2.3.1).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { ReferenceBehaviour } from './behaviour.js';
import { formUrlDecode } from '../core/basic-credentials.js';
import { parseAuthorization } from './auth-header.js';
import type { Refusal } from './reply.js';

export interface ClientCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
}

/** Standard Base64 alphabet with padding (RFC 7617 §2 → RFC 4648 §4), not base64url. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** CTL characters, which user-id and password MUST NOT contain (RFC 7617 §2). */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

// The strict decoding of one value lives beside its encoding (src/core/basic-credentials.ts).
export { formUrlDecode };

/**
 * Decodes `Authorization: Basic …` into client credentials. Returns null when the header is
 * absent, another scheme, or not decodable; the caller answers all of those with invalid_client.
 */
export function decodeBasicCredentials(header: string | undefined): ClientCredentials | null {
  const parts = parseAuthorization(header);
  if (parts?.scheme !== 'basic') return null;
  const b64 = parts.credentials;
  if (b64 === '' || !BASE64.test(b64)) return null;
  const bytes = Buffer.from(b64, 'base64');
  // Reject non-canonical encodings (non-zero pad bits), which node would silently accept.
  if (bytes.toString('base64') !== b64) return null;
  let userPass: string;
  try {
    userPass = utf8.decode(bytes); // RFC 7617 §2.1: the server announces charset="UTF-8".
  } catch {
    return null;
  }
  if (CONTROL.test(userPass)) return null;
  // RFC 7617 §2: the user-id cannot contain a colon, so the first colon separates.
  const colon = userPass.indexOf(':');
  if (colon === -1) return null;
  const clientId = formUrlDecode(userPass.slice(0, colon));
  const clientSecret = formUrlDecode(userPass.slice(colon + 1));
  if (clientId === null || clientSecret === null) return null;
  return { clientId, clientSecret };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** Constant-time comparison: equal-length digests for timingSafeEqual, whatever the input lengths. */
function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

/**
 * Authenticates the client. On failure: 401 invalid_client with a Basic challenge, which RFC 6749
 * §5.2 requires when the client used the Authorization header and allows (MAY) otherwise.
 */
export function authenticateClient(header: string | undefined, behaviour: ReferenceBehaviour): Refusal | null {
  const client = identifyClient(header, behaviour);
  return 'status' in client ? client : null;
}

/** The client the Basic credentials authenticate (the first or the second), or the refusal. */
export function identifyClient(
  header: string | undefined,
  behaviour: ReferenceBehaviour,
): Refusal | { client: 'first' | 'second' } {
  const challenge = { 'WWW-Authenticate': `Basic realm="${behaviour.realm}", charset="UTF-8"` };
  const presented = decodeBasicCredentials(header);
  if (presented === null) {
    return {
      status: 401,
      error: 'invalid_client',
      description: 'Client authentication with HTTP Basic is required',
      headers: challenge,
    };
  }
  // Every comparison always runs, so timing does not reveal which part was wrong.
  const checks = [
    sameSecret(presented.clientId, behaviour.clientId),
    sameSecret(presented.clientSecret, behaviour.clientSecret),
    sameSecret(presented.clientId, behaviour.secondClientId),
    sameSecret(presented.clientSecret, behaviour.secondClientSecret),
  ];
  if (checks[0] && checks[1]) return { client: 'first' };
  if (checks[2] && checks[3]) return { client: 'second' };
  return { status: 401, error: 'invalid_client', description: 'Client authentication failed', headers: challenge };
}
