/**
 * Bearer-token authentication of every endpoint but the token endpoint (spec §Authentication 4,
 * RFC 6750). Only the Authorization header method (RFC 6750 §2.1) is supported; the form and
 * query methods are optional (MAY, §2.2–2.3) and not offered.
 */
import type { ReferenceBehaviour } from './behaviour.js';
import { parseAuthorization } from './auth-header.js';
import type { Refusal } from './reply.js';
import type { TokenStore } from './tokens.js';

/** RFC 6750 §2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=" */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

function challenge(realm: string, error?: string, description?: string): Record<string, string> {
  let value = `Bearer realm="${realm}"`;
  if (error !== undefined) value += `, error="${error}"`;
  if (description !== undefined) value += `, error_description="${description}"`;
  return { 'WWW-Authenticate': value };
}

/** Returns null when the request carries a currently valid token, else the refusal to send. */
export function authenticateBearer(
  header: string | undefined,
  query: URLSearchParams,
  behaviour: ReferenceBehaviour,
  tokens: TokenStore,
): Refusal | null {
  const realm = behaviour.realm;
  const parts = parseAuthorization(header);
  if (parts?.scheme !== 'bearer') {
    // RFC 6750 §3.1: a request without authentication information gets no error code.
    // Another scheme (e.g. Basic) is, for this resource, no bearer authentication information.
    return {
      status: 401,
      error: 'unauthorized',
      description: 'A Bearer access token is required',
      headers: challenge(realm),
    };
  }
  const token = parts.credentials;
  if (token === '') {
    // RFC 6750 §3.1: "missing a required parameter" is invalid_request, which SHOULD be 400.
    const description = 'The Bearer scheme carries no access token';
    return {
      status: 400,
      error: 'invalid_request',
      description,
      headers: challenge(realm, 'invalid_request', description),
    };
  }
  if (query.has('access_token')) {
    // RFC 6750 §2 / §3.1: more than one method for including an access token is invalid_request.
    const description = 'The access token must be sent in the Authorization header only';
    return {
      status: 400,
      error: 'invalid_request',
      description,
      headers: challenge(realm, 'invalid_request', description),
    };
  }
  let description: string | null = null;
  if (!B64TOKEN.test(token)) description = 'The access token is malformed';
  else {
    const state = tokens.check(token);
    if (state === 'expired') description = 'The access token expired';
    else if (state === 'unknown') description = 'The access token is unknown';
  }
  if (description !== null) {
    // RFC 6750 §3.1: expired, revoked, malformed or otherwise invalid → 401 invalid_token.
    return {
      status: 401,
      error: 'invalid_token',
      description,
      headers: challenge(realm, 'invalid_token', description),
    };
  }
  return null;
}
