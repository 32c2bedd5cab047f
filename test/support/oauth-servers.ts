/**
 * Independent, widely used OAuth 2.0 servers from npm as targets for the harness: their token
 * endpoint is the real library's, their /users/me a minimal resource server that validates the
 * Bearer token with the same library. See the modules under oauth-servers/.
 */
export { startNodeOAuth2Server } from './oauth-servers/node-oauth2-server.js';
export { startOidcProvider, type OidcTokenFormat } from './oauth-servers/oidc-provider.js';
export { FIXTURE_USER, type OAuthServerFixture, type OAuthServerOptions } from './oauth-servers/resource.js';

/** RFC 6749 Appendix A.2: a client secret is VSCHAR (%x20-7E). */
export const SECRETS = {
  /** Encodes to itself with application/x-www-form-urlencoded: no RFC 6749 §2.3.1 question arises. */
  plain: 'Fixture0Secret0Alphanumeric2026',
  /** Every character that application/x-www-form-urlencoded changes: `+ % : & =` and a space. */
  special: 'fixture secret+%:&=/2026',
} as const;

export type SecretKind = keyof typeof SECRETS;
