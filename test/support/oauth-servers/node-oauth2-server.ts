import type { IncomingMessage, ServerResponse } from 'node:http';
import OAuth2Server from '@node-oauth/oauth2-server';
import { MAIN_TENANT_ID } from '../../../src/reference/data.js';
import {
  DEFAULT_CLIENT_ID,
  FIXTURE_USER,
  listen,
  readBody,
  sendJson,
  type BearerValidator,
  type OAuthServerFixture,
  type OAuthServerOptions,
} from './resource.js';

/**
 * @node-oauth/oauth2-server (the maintained fork of oauthjs/node-oauth2-server): the
 * client-credentials grant at /uaa/oauth2/token and Bearer authentication of /users/me with its
 * `authenticate`, over an in-memory model. The library is framework-agnostic: it fills a Response
 * (status, headers, body) that this module writes out as JSON, as its express/koa adapters do.
 */

type Headers = Record<string, string>;

/** The node request as the library's Request: lower-case headers, query, parsed form body. */
function libraryRequest(req: IncomingMessage, body: Record<string, string>): OAuth2Server.Request {
  const url = new URL(req.url ?? '/', 'http://fixture');
  const headers: Headers = {};
  for (const [name, value] of Object.entries(req.headers))
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  // The library wants one value per parameter; a repeated one (RFC 6749 §3.2 forbids them) keeps the last.
  return new OAuth2Server.Request({
    method: req.method ?? 'GET',
    headers,
    query: Object.fromEntries(url.searchParams),
    body,
  });
}

/** The error the library threw, as it left it in the Response (status, headers such as WWW-Authenticate). */
function oauthErrorOf(err: unknown): { status: number; body: { error: string; error_description: string } } {
  if (err instanceof OAuth2Server.OAuthError)
    return { status: err.code, body: { error: err.name, error_description: err.message } };
  throw err;
}

/**
 * The client's grants beyond client_credentials, as the library's documentation lists them in a
 * Client (`grants: ['password', 'authorization_code', 'refresh_token']`). The model implements
 * only what the client credentials grant needs and a `getUser` that returns the user for any
 * username and password, as stub models do: the library then issues password-grant tokens to
 * anyone, and answers the other two 500 (InvalidArgumentError: the model lacks
 * getAuthorizationCode and getRefreshToken) (issue 38).
 */
export interface NodeOAuth2ServerOptions extends OAuthServerOptions {
  extraGrants?: readonly ('password' | 'authorization_code' | 'refresh_token')[];
}

export async function startNodeOAuth2Server(options: NodeOAuth2ServerOptions): Promise<OAuthServerFixture> {
  const clientId = options.clientId ?? DEFAULT_CLIENT_ID;
  const client: OAuth2Server.Client = { id: clientId, grants: ['client_credentials', ...(options.extraGrants ?? [])] };
  const tokens = new Map<string, OAuth2Server.Token>();
  const model: OAuth2Server.ClientCredentialsModel & Partial<Pick<OAuth2Server.PasswordModel, 'getUser'>> = {
    ...(options.extraGrants?.includes('password') ? { getUser: () => Promise.resolve({ ...FIXTURE_USER }) } : {}),
    // The secret as the library hands it over: what basic-auth decoded, not form-decoded.
    getClient: (id, secret) => Promise.resolve(id === clientId && secret === options.clientSecret ? client : null),
    getUserFromClient: () => Promise.resolve({ ...FIXTURE_USER }),
    saveToken: (token, c, user) => {
      const saved = { ...token, client: c, user };
      tokens.set(token.accessToken, saved);
      return Promise.resolve(saved);
    },
    getAccessToken: (value) => Promise.resolve(tokens.get(value) ?? null),
  };
  const oauth = new OAuth2Server({ model, accessTokenLifetime: options.tokenTtlSeconds });

  const token = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = Object.fromEntries(new URLSearchParams(await readBody(req)));
    const response = new OAuth2Server.Response();
    try {
      await oauth.token(libraryRequest(req, body), response);
      sendJson(res, response.status ?? 200, response.body, response.headers);
    } catch (err) {
      const { status, body: error } = oauthErrorOf(err);
      sendJson(res, status, error, response.headers);
    }
  };

  const validate: BearerValidator = async (req) => {
    const response = new OAuth2Server.Response();
    try {
      await oauth.authenticate(libraryRequest(req, {}), response);
      return null;
    } catch (err) {
      const { status, body } = oauthErrorOf(err);
      return { status, headers: response.headers as Headers, body };
    }
  };

  const server = await listen();
  server.serve({ token, validate });
  return {
    url: server.url,
    clientId,
    clientSecret: options.clientSecret,
    tenantId: MAIN_TENANT_ID,
    close: () => server.close(),
  };
}
