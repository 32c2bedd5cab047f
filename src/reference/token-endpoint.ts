/**
 * POST /uaa/oauth2/token: the OAuth 2.0 client credentials grant (spec §Obtain an access token,
 * RFC 6749 §4.4). Checked in order: method, client authentication, then the body; Accept-Version
 * has already been checked by the server.
 */
import { identifyClient } from './basic-auth.js';
import { mediaTypeEssence } from './body.js';
import type { ReferenceContext } from './context.js';
import { json, oauthError, type Reply } from './reply.js';
import type { Req } from './request.js';

export { TOKEN_PATH } from '../core/carrier-spec.js';

const invalidRequest = (description: string): Reply =>
  oauthError({ status: 400, error: 'invalid_request', description });

export function handleTokenRequest(req: Req, ctx: ReferenceContext): Reply {
  if (req.method !== 'POST') {
    // RFC 6749 §3.2: the client MUST use POST; RFC 9110 §15.5.6: 405 lists the allowed methods.
    return oauthError({
      status: 405,
      error: 'invalid_request',
      description: 'The token endpoint accepts POST only',
      headers: { Allow: 'POST' },
    });
  }

  const client = identifyClient(req.headers.authorization, ctx.behaviour);
  if ('status' in client) return oauthError(client);

  // RFC 6749 §4.4.2: the parameters come as application/x-www-form-urlencoded (Appendix B).
  if (mediaTypeEssence(req.headers['content-type']) !== 'application/x-www-form-urlencoded') {
    return invalidRequest('The body must be application/x-www-form-urlencoded');
  }
  const body = req.body;
  if (body === null) {
    return oauthError({
      status: 413,
      error: 'invalid_request',
      description: 'The request body is too large',
      headers: { Connection: 'close' },
    });
  }
  const params = new URLSearchParams(body.toString('utf8'));

  // RFC 6749 §2.3: a client MUST NOT use more than one authentication method per request.
  if (params.has('client_secret')) return invalidRequest('Use HTTP Basic or client_secret, not both');

  // RFC 6749 §3.2: parameters sent without a value are treated as omitted; none may repeat.
  const grantTypes = params.getAll('grant_type');
  if (grantTypes.length > 1) return invalidRequest('grant_type must be given once');
  const grantType = grantTypes[0] ?? '';
  if (grantType === '') return invalidRequest('grant_type is required');
  if (grantType !== 'client_credentials') {
    return oauthError({
      status: 400,
      error: 'unsupported_grant_type',
      description: 'Only the client_credentials grant is supported',
    });
  }
  // Other parameters are ignored (RFC 6749 §3.2: unrecognized request parameters MUST be ignored).

  const { token, expiresIn } = ctx.tokens.issue(client.client);
  // RFC 6749 §5.1: JSON body, no-store and no-cache; §4.4.3: no refresh token for this grant.
  return json(
    200,
    { access_token: token, token_type: 'bearer', expires_in: expiresIn },
    { 'Cache-Control': 'no-store', Pragma: 'no-cache' },
  );
}
