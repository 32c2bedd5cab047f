import { createHmac, randomBytes } from 'node:crypto';
import { TOKEN_PATH, apiUrl } from '../carrier/paths.js';
import type { Target } from '../carrier/requests.js';

/**
 * The grants OAuth 2.0 libraries ship besides client_credentials, for TOKEN-GRANT-OTHERS (spec
 * §Obtain an access token: grant_type "must be `client_credentials`"). Each is sent with the
 * parameters its request carries, well-formed and made up: no conformant server honours them,
 * whether or not it supports the grant, so a token is a failure and a refusal tells nothing more
 * than that (which error code is a server's choice: the catalogue's notes).
 *
 * The values are random per run: a server that really knows users or codes never sees one of its
 * own, and no account is locked out by repeated tries of the same name.
 */
export interface OtherGrant {
  grantType: string;
  /** What the request carries, in the words of the report. */
  label: string;
  params(clientId: string, target: Target): Record<string, string>;
}

const made = (bytes: number): string => randomBytes(bytes).toString('base64url');

/** A JWT (RFC 7519) whose claims are those RFC 7523 §3 requires, HMAC-signed with a key no server has. */
function madeUpAssertion(clientId: string, target: Target): string {
  const now = Math.floor(Date.now() / 1000);
  const part = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ iss: clientId, sub: clientId, aud: apiUrl(target.authUrl, TOKEN_PATH).href, iat: now, exp: now + 300, jti: made(12) })}`;
  return `${unsigned}.${createHmac('sha256', randomBytes(32)).update(unsigned).digest('base64url')}`;
}

export const OTHER_GRANTS: readonly OtherGrant[] = [
  {
    // RFC 6749 §4.3.2; @node-oauth/oauth2-server, Spring Security OAuth, Django OAuth Toolkit, FastAPI's OAuth2PasswordRequestForm.
    grantType: 'password',
    label: 'a made-up username and password',
    params: () => ({ username: `carrier-conformance-${made(6)}`, password: made(18) }),
  },
  {
    // RFC 6749 §4.1.3 with RFC 7636 §4.5: the vendors' flow of spec §Authentication 6 may be served here.
    grantType: 'authorization_code',
    label: 'a made-up authorization code',
    params: () => ({ code: made(24), redirect_uri: 'https://client.example/callback', code_verifier: made(48) }),
  },
  {
    // RFC 6749 §6.
    grantType: 'refresh_token',
    label: 'a made-up refresh token',
    params: () => ({ refresh_token: made(32) }),
  },
  {
    // RFC 7523 §2.1: the client's own assertion, signed with a key the server does not know.
    grantType: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
    label: 'a JWT assertion signed with a made-up key',
    params: (clientId, target) => ({ assertion: madeUpAssertion(clientId, target) }),
  },
  {
    // RFC 8628 §3.4.
    grantType: 'urn:ietf:params:oauth:grant-type:device_code',
    label: 'a made-up device code',
    params: () => ({ device_code: made(32) }),
  },
  {
    // RFC 8693 §2.1 (Keycloak, Spring Authorization Server, Okta).
    grantType: 'urn:ietf:params:oauth:grant-type:token-exchange',
    label: 'a made-up subject token',
    params: () => ({ subject_token: made(32), subject_token_type: 'urn:ietf:params:oauth:token-type:access_token' }),
  },
];
