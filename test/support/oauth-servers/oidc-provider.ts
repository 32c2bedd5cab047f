import { randomUUID } from 'node:crypto';
import { createRemoteJWKSet, exportJWK, generateKeyPair, jwtVerify } from 'jose';
import Provider, { type AdapterFactory, type AdapterPayload, type Configuration } from 'oidc-provider';
import { MAIN_TENANT_ID } from '../../../src/reference/data.js';
import {
  DEFAULT_CLIENT_ID,
  TOKEN_PATH,
  bearerRefusal,
  bearerToken,
  listen,
  type BearerValidator,
  type OAuthServerFixture,
  type OAuthServerOptions,
} from './resource.js';

/**
 * panva's oidc-provider (OpenID Certified) issuing client-credentials tokens (RFC 6749 §4.4) at
 * /uaa/oauth2/token, client authentication client_secret_basic only. Two token formats:
 * - `opaque`: the resource server looks the token up in the provider (`ClientCredentials.find`)
 *   and asks the model whether it is still valid, as the provider's own introspection does;
 * - `jwt`: RFC 9068 JWT access tokens for one resource server (RFC 8707 resource indicators with
 *   a default resource), which the resource server verifies against the provider's JWKS.
 */

export type OidcTokenFormat = 'opaque' | 'jwt';

/** The audience of JWT access tokens (RFC 8707 resource indicator). */
const RESOURCE = 'urn:carrier-platform:api';
const REALM = 'carrier-fixture';

async function signingJwks(): Promise<{ keys: Record<string, unknown>[] }> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { keys: [{ ...(await exportJWK(privateKey)), kid: 'fixture-rs256', alg: 'RS256', use: 'sig' }] };
}

/**
 * The provider's storage, one Map for all models: what a deployment plugs in (the built-in one is
 * announced as development-only on every start). Records are kept past their expiry, so validity
 * is decided by the provider's own exp check, which is what the expiry suite observes.
 */
function mapAdapter(): AdapterFactory {
  const store = new Map<string, AdapterPayload>();
  return (model) => ({
    upsert: (id, payload) => Promise.resolve(void store.set(`${model}:${id}`, payload)),
    find: (id) => Promise.resolve(store.get(`${model}:${id}`)),
    findByUserCode: () => Promise.resolve(undefined),
    findByUid: () => Promise.resolve(undefined),
    consume: (id) => {
      const payload = store.get(`${model}:${id}`);
      if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      return Promise.resolve();
    },
    destroy: (id) => Promise.resolve(void store.delete(`${model}:${id}`)),
    revokeByGrantId: () => Promise.resolve(),
  });
}

function configuration(
  options: OAuthServerOptions & { format: OidcTokenFormat },
  jwks: { keys: Record<string, unknown>[] },
): Configuration {
  const ttl = options.tokenTtlSeconds;
  return {
    adapter: mapAdapter(),
    clients: [
      {
        client_id: options.clientId ?? DEFAULT_CLIENT_ID,
        client_secret: options.clientSecret,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    clientAuthMethods: ['client_secret_basic'],
    routes: { token: TOKEN_PATH },
    ttl: { ClientCredentials: ttl },
    jwks,
    cookies: { keys: [randomUUID()] },
    features: {
      clientCredentials: { enabled: true },
      devInteractions: { enabled: false },
      resourceIndicators:
        options.format === 'jwt'
          ? {
              enabled: true,
              // The client sends no `resource` parameter (the spec has none): the API is the default.
              defaultResource: () => RESOURCE,
              getResourceServerInfo: () => ({
                scope: 'api',
                audience: RESOURCE,
                accessTokenTTL: ttl,
                accessTokenFormat: 'jwt',
                jwt: { sign: { alg: 'RS256' } },
              }),
              useGrantedResource: () => true,
            }
          : { enabled: false },
    },
  };
}

/** Opaque tokens: the provider's record of the token, and its own validity rule (exp > now). */
function opaqueValidator(provider: Provider): BearerValidator {
  return async (req) => {
    const value = bearerToken(req);
    if (value === null) return bearerRefusal(REALM);
    // `find` alone accepts a token up to `clockTolerance` (default 15 s) past exp; `isValid`
    // does not, and is what the provider's introspection endpoint answers `active` from.
    const token = value === undefined ? undefined : await provider.ClientCredentials.find(value);
    if (!token?.isValid) return bearerRefusal(REALM, 'invalid_token', 'The access token is invalid or expired');
    return null;
  };
}

/** JWT tokens: signature against the provider's JWKS, issuer, audience, type and exp (jose, no clock tolerance). */
function jwtValidator(issuer: string): BearerValidator {
  const jwks = createRemoteJWKSet(new URL('/jwks', issuer));
  return async (req) => {
    const value = bearerToken(req);
    if (value === null) return bearerRefusal(REALM);
    try {
      if (value === undefined) throw new Error('malformed');
      await jwtVerify(value, jwks, { issuer, audience: RESOURCE, typ: 'at+jwt' });
      return null;
    } catch {
      return bearerRefusal(REALM, 'invalid_token', 'The access token is invalid or expired');
    }
  };
}

export async function startOidcProvider(
  options: OAuthServerOptions & { format: OidcTokenFormat },
): Promise<OAuthServerFixture> {
  const server = await listen();
  const provider = new Provider(server.url, configuration(options, await signingJwks()));
  const callback = provider.callback();
  server.serve({
    token: (req, res) => callback(req, res),
    validate: options.format === 'jwt' ? jwtValidator(server.url) : opaqueValidator(provider),
    other: (req, res) => callback(req, res),
  });
  return {
    url: server.url,
    clientId: options.clientId ?? DEFAULT_CLIENT_ID,
    clientSecret: options.clientSecret,
    tenantId: MAIN_TENANT_ID,
    close: () => server.close(),
  };
}
