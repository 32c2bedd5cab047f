// Tests of the embedded reference server (src/reference): it must follow every rule of the spec
// and the RFCs it names, since the harness's battery runs against it when no base URL is given.
import { Agent, request, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeBasicCredentials, formUrlDecode } from '../src/reference/basic-auth.js';
import { routeTarget } from '../src/reference/gateway.js';
import {
  DEFAULT_TOKEN_TTL_SECONDS,
  REFERENCE_CLIENT_ID,
  REFERENCE_CLIENT_SECRET,
  REFERENCE_EMPTY_TENANT_ID,
  startReferenceServer,
  type ReferenceServer,
} from '../src/reference/index.js';

interface Answer {
  status: number;
  headers: Dispatcher.ResponseData['headers'];
  text: string;
  json: unknown;
}

interface CallOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  headers?: Record<string, string>;
  body?: string;
  /** Send no Accept-Version header (it is `1` unless overridden in headers). */
  noVersion?: boolean;
}

const agent = new Agent({ keepAliveTimeout: 1_000 });

async function call(base: string, path: string, options: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = options.noVersion ? {} : { 'Accept-Version': '1' };
  Object.assign(headers, options.headers);
  const res = await request(base + path, {
    method: options.method ?? 'GET',
    headers,
    body: options.body ?? null,
    dispatcher: agent,
  });
  const text = await res.body.text();
  let json: unknown = undefined;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON; the test that cares says so
  }
  return { status: res.statusCode, headers: res.headers, text, json };
}

/** application/x-www-form-urlencoded encoding of one value, as URLSearchParams does it (RFC 6749 App. B). */
const formEncode = (value: string): string => new URLSearchParams([['', value]]).toString().slice(1);

/** RFC 6749 §2.3.1: form-urlencode id and secret, join with ':', then Base64 (RFC 7617 §2). */
const basic = (id: string, secret: string): string =>
  `Basic ${Buffer.from(`${formEncode(id)}:${formEncode(secret)}`, 'utf8').toString('base64')}`;

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };

function tokenRequest(server: ReferenceServer, options: CallOptions & { path?: string } = {}): Promise<Answer> {
  return call(server.url, options.path ?? '/uaa/oauth2/token', {
    method: 'POST',
    body: 'grant_type=client_credentials',
    ...options,
    headers: { Authorization: basic(server.clientId, server.clientSecret), ...FORM, ...options.headers },
  });
}

async function getToken(server: ReferenceServer): Promise<string> {
  const answer = await tokenRequest(server);
  expect(answer.status).toBe(200);
  return (answer.json as { access_token: string }).access_token;
}

function header(answer: Answer, name: string): string | undefined {
  const value = answer.headers[name];
  expect(Array.isArray(value), `${name} is sent once`).toBe(false);
  return value as string | undefined;
}

function expectOAuthError(answer: Answer, status: number, error: string): void {
  expect(answer.status).toBe(status);
  expect(header(answer, 'content-type')).toBe('application/json;charset=UTF-8');
  expect(header(answer, 'cache-control')).toBe('no-store');
  const body = answer.json as Record<string, unknown>;
  expect(body.error).toBe(error);
  expect(typeof body.error_description).toBe('string');
  // RFC 6749 §5.2: error_description is ASCII without '"' and '\'.
  expect(body.error_description).toMatch(/^[\x20\x21\x23-\x5b\x5d-\x7e]*$/);
  expect(body).not.toHaveProperty('access_token');
}

function expectBasicChallenge(answer: Answer): void {
  expect(header(answer, 'www-authenticate')).toBe('Basic realm="carrier-platform", charset="UTF-8"');
}

let server: ReferenceServer;
let token: string;
let shipments: string;

beforeAll(async () => {
  server = await startReferenceServer({ host: '127.0.0.1', port: 0 });
  token = await getToken(server);
  shipments = `/tenants/${server.tenantId}/shipments`;
});

afterAll(async () => {
  await server.close();
  await agent.close();
});

const bearer = (): Record<string, string> => ({ Authorization: `Bearer ${token}` });

describe('server handle', () => {
  it('describes itself', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.clientId).toBe(REFERENCE_CLIENT_ID);
    expect(server.clientSecret).toBe(REFERENCE_CLIENT_SECRET);
    for (const ch of ['+', '%', ':', '&', '=', ' ']) expect(REFERENCE_CLIENT_SECRET).toContain(ch);
    // RFC 6749 Appendix A.2: client_secret is printable ASCII (VSCHAR).
    expect(REFERENCE_CLIENT_SECRET).toMatch(/^[\x20-\x7e]+$/);
    expect(server.pagedPaths).toEqual(['shipments', 'invoices']);
    expect(server.singlePaths).toEqual(['shipments/{shipmentId}', 'invoices/{invoiceId}', 'settings']);
    expect(server.tenantId).toBe(server.expectations.user.tenants[0]?.id);
    expect(server.expectations.user.tenants.map((t) => t.id)).not.toContain(server.foreignTenantId);
  });

  it('counts requests and issued tokens', async () => {
    const [requests, tokens] = [server.requestCount(), server.tokensIssued()];
    await getToken(server);
    await call(server.url, '/users/me', { headers: bearer() });
    expect(server.requestCount()).toBe(requests + 2);
    expect(server.tokensIssued()).toBe(tokens + 1);
  });

  it('rejects inconsistent options', async () => {
    await expect(startReferenceServer({ pageSizeDefault: 60, pageSizeMax: 50 })).rejects.toThrow(RangeError);
    await expect(startReferenceServer({ tokenTtlSeconds: 0.5 })).rejects.toThrow(RangeError);
  });
});

describe('token endpoint (RFC 6749 §4.4)', () => {
  it('issues a bearer token for the form-urlencoded special-character secret', async () => {
    const answer = await tokenRequest(server);
    expect(answer.status).toBe(200);
    expect(header(answer, 'content-type')).toBe('application/json;charset=UTF-8');
    expect(header(answer, 'cache-control')).toBe('no-store');
    expect(header(answer, 'pragma')).toBe('no-cache');
    const body = answer.json as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
    expect(body.access_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(body.token_type).toBe('bearer');
    expect(body.expires_in).toBe(DEFAULT_TOKEN_TTL_SECONDS);
    expect(answer.text).toMatch(/"expires_in":5[,}]/); // a JSON integer, not "5" or 5.0
  });

  it('issues a different token each time', async () => {
    expect(await getToken(server)).not.toBe(await getToken(server));
  });

  it('accepts the Basic scheme in lower case and media type parameters', async () => {
    const auth = basic(server.clientId, server.clientSecret).replace('Basic', 'basic');
    const answer = await tokenRequest(server, {
      headers: { Authorization: auth, 'Content-Type': 'Application/X-WWW-Form-URLEncoded; charset=UTF-8' },
    });
    expect(answer.status).toBe(200);
  });

  it('ignores unknown extra parameters (RFC 6749 §3.2)', async () => {
    const answer = await tokenRequest(server, { body: 'grant_type=client_credentials&foo=bar&scope=' });
    expect(answer.status).toBe(200);
  });

  it('refuses credentials that were not form-urlencoded before Base64', async () => {
    const raw = `Basic ${Buffer.from(`${server.clientId}:${server.clientSecret}`, 'utf8').toString('base64')}`;
    const answer = await tokenRequest(server, { headers: { Authorization: raw } });
    expectOAuthError(answer, 401, 'invalid_client');
    expectBasicChallenge(answer);
  });

  const refused: [string, (s: ReferenceServer) => Record<string, string>][] = [
    ['a wrong secret', (s) => ({ Authorization: basic(s.clientId, `${s.clientSecret}x`) })],
    ['an unknown client', (s) => ({ Authorization: basic('someone-else', s.clientSecret) })],
    ['no credentials', () => ({})],
    ['another scheme', () => ({ Authorization: 'Bearer abc' })],
    ['invalid Base64', () => ({ Authorization: 'Basic ***' })],
    ['Base64 without a colon', () => ({ Authorization: `Basic ${Buffer.from('nocolon').toString('base64')}` })],
    ['the base64url alphabet instead of Base64', () => ({ Authorization: 'Basic -_8=' })],
  ];
  it.each(refused)('refuses %s with 401 invalid_client and a Basic challenge', async (_, auth) => {
    const answer = await call(server.url, '/uaa/oauth2/token', {
      method: 'POST',
      headers: { ...FORM, ...auth(server) },
      body: 'grant_type=client_credentials',
    });
    expectOAuthError(answer, 401, 'invalid_client');
    expectBasicChallenge(answer);
    expect(header(answer, 'pragma')).toBe('no-cache');
  });

  it('authenticates the client before looking at the body', async () => {
    const answer = await tokenRequest(server, {
      headers: { Authorization: basic(server.clientId, 'wrong'), 'Content-Type': 'text/plain' },
      body: 'grant_type=password',
    });
    expectOAuthError(answer, 401, 'invalid_client');
  });

  it.each([
    ['missing', 'foo=bar'],
    ['empty', 'grant_type='],
    ['repeated', 'grant_type=client_credentials&grant_type=client_credentials'],
  ])('answers 400 invalid_request when grant_type is %s', async (_, body) => {
    expectOAuthError(await tokenRequest(server, { body }), 400, 'invalid_request');
  });

  it('answers 400 unsupported_grant_type for another grant', async () => {
    const body = `grant_type=${encodeURIComponent('urn:example:made-up-grant')}`;
    expectOAuthError(await tokenRequest(server, { body }), 400, 'unsupported_grant_type');
    expectOAuthError(await tokenRequest(server, { body: 'grant_type=password' }), 400, 'unsupported_grant_type');
  });

  it('answers 400 invalid_request for a body that is not form-urlencoded', async () => {
    const answer = await tokenRequest(server, {
      headers: { 'Content-Type': 'application/json' },
      body: '{"grant_type":"client_credentials"}',
    });
    expectOAuthError(answer, 400, 'invalid_request');
  });

  it('answers 400 invalid_request when client_secret is also in the body (RFC 6749 §2.3)', async () => {
    const body = `grant_type=client_credentials&client_secret=${formEncode(server.clientSecret)}`;
    expectOAuthError(await tokenRequest(server, { body }), 400, 'invalid_request');
  });

  it('answers 405 with Allow: POST to other methods', async () => {
    const answer = await call(server.url, '/uaa/oauth2/token', {
      headers: { Authorization: basic(server.clientId, server.clientSecret) },
    });
    expect(answer.status).toBe(405);
    expect(header(answer, 'allow')).toBe('POST');
    expect((answer.json as { error: unknown }).error).toEqual(expect.any(String));
  });
});

describe('client credential decoding (RFC 7617 §2, RFC 6749 §2.3.1)', () => {
  it('form-decodes each part after splitting at the first colon', () => {
    const header = `Basic ${Buffer.from('a%3Ab:c+d%25%3A%26%3D%C3%A9:e').toString('base64')}`;
    expect(decodeBasicCredentials(header)).toEqual({ clientId: 'a:b', clientSecret: 'c d%:&=é:e' });
  });

  it('rejects malformed input', () => {
    expect(formUrlDecode('50%off')).toBeNull();
    expect(formUrlDecode('%C3')).toBeNull();
    expect(formUrlDecode('a+b%20c')).toBe('a b c');
    expect(decodeBasicCredentials(undefined)).toBeNull();
    expect(decodeBasicCredentials('Basic')).toBeNull();
    expect(decodeBasicCredentials('Basic YQ')).toBeNull(); // missing padding
    expect(decodeBasicCredentials('Basic YR==')).toBeNull(); // non-canonical pad bits
    expect(decodeBasicCredentials(`Basic ${Buffer.from([0x61, 0x3a, 0xff]).toString('base64')}`)).toBeNull(); // not UTF-8
    expect(decodeBasicCredentials(`Basic ${Buffer.from('a:b\tc').toString('base64')}`)).toBeNull(); // CTL
  });
});

describe('Accept-Version (spec §Versioning)', () => {
  const endpoints: [string, (s: ReferenceServer) => CallOptions & { path: string }][] = [
    [
      'token',
      (s) => ({
        path: '/uaa/oauth2/token',
        method: 'POST',
        body: 'grant_type=client_credentials',
        headers: { Authorization: basic(s.clientId, s.clientSecret), ...FORM },
      }),
    ],
    [
      'legacy token',
      (s) => ({
        path: '/uaa/oauth/token',
        method: 'POST',
        body: 'grant_type=client_credentials',
        headers: { Authorization: basic(s.clientId, s.clientSecret), ...FORM },
      }),
    ],
    ['users/me', () => ({ path: '/users/me', headers: bearer() })],
    ['legacy userinfo', () => ({ path: '/uaa/userinfo', headers: bearer() })],
    ['shipments', () => ({ path: shipments, headers: bearer() })],
  ];

  describe.each(endpoints)('%s', (_, make) => {
    it('answers 400 without the header', async () => {
      const { path, ...options } = make(server);
      const answer = await call(server.url, path, { ...options, noVersion: true });
      expect(answer.status).toBe(400);
      expect((answer.json as { error: unknown }).error).toEqual(expect.any(String));
    });

    it.each(['0', '2', '999999', 'banana', '1.0', ''])('answers 404 to version %j', async (version) => {
      const { path, ...options } = make(server);
      const answer = await call(server.url, path, {
        ...options,
        headers: { ...options.headers, 'Accept-Version': version },
      });
      expect(answer.status).toBe(404);
    });

    it.each([
      ['Accept-Version', '1'],
      ['accept-version', '1'],
      ['ACCEPT-VERSION', ' 1\t'],
    ])('accepts %s: %j', async (name, version) => {
      const { path, ...options } = make(server);
      const answer = await call(server.url, path, {
        ...options,
        noVersion: true,
        headers: { ...options.headers, [name]: version },
      });
      expect(answer.status).toBe(200);
    });
  });

  it('is checked before authentication', async () => {
    expect((await call(server.url, '/users/me', { noVersion: true })).status).toBe(400);
    expect((await call(server.url, '/uaa/oauth2/token', { method: 'POST', noVersion: true })).status).toBe(400);
    expect((await call(server.url, '/users/me', { headers: { 'Accept-Version': '2' } })).status).toBe(404);
  });
});

describe('legacy paths (gateway rewrite)', () => {
  it('issues a working token on POST /uaa/oauth/token without redirecting', async () => {
    const answer = await tokenRequest(server, { path: '/uaa/oauth/token' });
    expect(answer.status).toBe(200);
    expect(answer.headers.location).toBeUndefined();
    const legacyToken = (answer.json as { access_token: string }).access_token;
    expect((await call(server.url, '/users/me', { headers: { Authorization: `Bearer ${legacyToken}` } })).status).toBe(
      200,
    );
  });

  it('refuses a wrong secret on the legacy token path', async () => {
    const answer = await tokenRequest(server, {
      path: '/uaa/oauth/token',
      headers: { Authorization: basic(server.clientId, 'nope') },
    });
    expectOAuthError(answer, 401, 'invalid_client');
    expectBasicChallenge(answer);
  });

  it('serves GET /uaa/userinfo as /users/me without redirecting', async () => {
    const legacy = await call(server.url, '/uaa/userinfo?x=1', { headers: bearer() });
    const current = await call(server.url, '/users/me', { headers: bearer() });
    expect(legacy.status).toBe(200);
    expect(legacy.headers.location).toBeUndefined();
    expect(legacy.json).toEqual(current.json);
  });

  it('rewrites the path and keeps the query string', () => {
    const target = routeTarget('/uaa/userinfo?a=1&b=%20');
    expect(target.path).toBe('/users/me');
    expect(target.rawQuery).toBe('a=1&b=%20');
    expect(target.query.get('b')).toBe(' ');
    expect(routeTarget('/uaa/oauth/token').path).toBe('/uaa/oauth2/token');
    expect(routeTarget('//uaa/userinfo').path).toBe('//uaa/userinfo');
  });

  it('leaves the legacy paths unknown with legacyRewrites off (a real gateway in front rewrites them)', async () => {
    const backend = await startReferenceServer({ legacyRewrites: false });
    try {
      const backendToken = await getToken(backend);
      const unknownPath = '/no/such/path';
      // What an unknown path gets, for a request of each legacy path's method, with and without a token.
      const probes: [string, CallOptions][] = [
        ['with a token', { headers: { Authorization: `Bearer ${backendToken}` } }],
        ['without a token', {}],
      ];
      for (const [how, options] of probes) {
        for (const [method, path] of [
          ['POST', '/uaa/oauth/token'],
          ['GET', '/uaa/userinfo?x=1'],
        ] as const) {
          const unknown = await call(backend.url, unknownPath, { ...options, method });
          const legacy = await call(backend.url, path, { ...options, method });
          expect(unknown.status, `${method} ${unknownPath} ${how}`).toBe(how === 'with a token' ? 404 : 401);
          expect(
            { status: legacy.status, body: legacy.json, challenge: legacy.headers['www-authenticate'] },
            `${method} ${path} ${how}`,
          ).toEqual({
            status: unknown.status,
            body: unknown.json,
            challenge: unknown.headers['www-authenticate'],
          });
        }
      }
      // The client credentials get no token there either: the token endpoint is not reached.
      const legacyToken = await tokenRequest(backend, { path: '/uaa/oauth/token' });
      expect(legacyToken.status).toBe(401);
      expect(legacyToken.json).not.toHaveProperty('access_token');
      expect(backend.tokensIssued()).toBe(1);
    } finally {
      await backend.close();
    }
  });
});

describe('bearer authentication (RFC 6750)', () => {
  const noErrorChallenge = 'Bearer realm="carrier-platform"';

  const withoutBearer: [string, () => Record<string, string>][] = [
    ['no Authorization header', () => ({})],
    [
      'the Basic scheme with the client credentials',
      () => ({ Authorization: basic(server.clientId, server.clientSecret) }),
    ],
    ['an unknown scheme', () => ({ Authorization: 'Token abc' })],
    ['an empty Authorization header', () => ({ Authorization: '' })],
  ];
  it.each(withoutBearer)('answers 401 with a bare Bearer challenge to %s', async (_, headers) => {
    for (const path of ['/users/me', shipments, '/no/such/path']) {
      const answer = await call(server.url, path, { headers: headers() });
      expect(answer.status).toBe(401);
      expect(header(answer, 'www-authenticate')).toBe(noErrorChallenge);
      expect((answer.json as { error: unknown }).error).toEqual(expect.any(String));
    }
  });

  it.each([
    ['an unknown token', 'Bearer AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['a malformed token', 'Bearer abc@def'],
    ['a token with inner space', 'Bearer abc def'],
  ])('answers 401 invalid_token to %s', async (_, authorization) => {
    const answer = await call(server.url, '/users/me', { headers: { Authorization: authorization } });
    expect(answer.status).toBe(401);
    expect(header(answer, 'www-authenticate')).toMatch(
      /^Bearer realm="carrier-platform", error="invalid_token", error_description="[^"\\]+"$/,
    );
    expect(answer.json).toEqual({ error: 'invalid_token', message: expect.any(String) as string });
  });

  it('answers 400 invalid_request to the Bearer scheme without a token (RFC 6750 §3.1)', async () => {
    const answer = await call(server.url, '/users/me', { headers: { Authorization: 'Bearer' } });
    expect(answer.status).toBe(400);
    expect(header(answer, 'www-authenticate')).toMatch(/^Bearer realm="carrier-platform", error="invalid_request"/);
  });

  it('answers 400 invalid_request to a token in both header and query (RFC 6750 §2)', async () => {
    const answer = await call(server.url, `/users/me?access_token=${token}`, { headers: bearer() });
    expect(answer.status).toBe(400);
    expect((answer.json as { error: unknown }).error).toBe('invalid_request');
  });

  it('accepts the scheme in lower case', async () => {
    expect((await call(server.url, '/users/me', { headers: { Authorization: `bearer ${token}` } })).status).toBe(200);
    expect((await call(server.url, '/users/me', { headers: { Authorization: `BEARER  ${token}` } })).status).toBe(200);
  });
});

describe('token expiry (spec §Authentication 3)', () => {
  it('accepts a token before expires_in and refuses it with invalid_token after', async () => {
    const short = await startReferenceServer({ tokenTtlSeconds: 1 });
    try {
      const answer = await tokenRequest(short);
      expect((answer.json as { expires_in: number }).expires_in).toBe(1);
      const t = (answer.json as { access_token: string }).access_token;
      expect((await call(short.url, '/users/me', { headers: { Authorization: `Bearer ${t}` } })).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const after = await call(short.url, '/users/me', { headers: { Authorization: `Bearer ${t}` } });
      expect(after.status).toBe(401);
      expect(header(after, 'www-authenticate')).toContain('error="invalid_token"');
      // A fresh token works again.
      const fresh = await getToken(short);
      expect((await call(short.url, '/users/me', { headers: { Authorization: `Bearer ${fresh}` } })).status).toBe(200);
    } finally {
      await short.close();
    }
  });

  it('does not accept a token of another server instance', async () => {
    const other = await startReferenceServer();
    try {
      expect((await call(other.url, '/users/me', { headers: bearer() })).status).toBe(401);
    } finally {
      await other.close();
    }
  });
});

describe('GET /users/me', () => {
  it('returns exactly the expected User, with null and "" kept apart', async () => {
    const answer = await call(server.url, '/users/me', { headers: bearer() });
    expect(answer.status).toBe(200);
    expect(header(answer, 'content-type')).toBe('application/json;charset=UTF-8');
    expect(answer.json).toStrictEqual({
      id: 'a3e1c9d2-5b7f-4e08-9c6a-2d4f8b1e7a30',
      name: 'Ada Reference',
      email: null,
      tenants: [
        { id: '5e0c3b8a-1f2d-4a6b-8c9d-0e1f2a3b4c5d', name: 'Acme Freight' },
        { id: '9b2d4f6a-8c0e-4a1b-b3c5-d7e9f1a3b5c7', name: '' },
      ],
    });
    expect(answer.text).toContain('"email":null');
    expect(answer.json).toStrictEqual(server.expectations.user);
    const v4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    const user = server.expectations.user;
    for (const id of [user.id, server.foreignTenantId, ...user.tenants.map((t) => t.id)]) expect(id).toMatch(v4);
  });

  it('answers 405 to other methods', async () => {
    const answer = await call(server.url, '/users/me', { method: 'POST', headers: bearer() });
    expect(answer.status).toBe(405);
    expect(header(answer, 'allow')).toBe('GET');
  });
});

describe('tenants (spec §Tenant-scoped endpoints)', () => {
  it('refuses the foreign tenant with 403 and no items', async () => {
    const answer = await call(server.url, `/tenants/${server.foreignTenantId}/shipments`, { headers: bearer() });
    expect(answer.status).toBe(403);
    expect(Array.isArray(answer.json)).toBe(false);
    expect(answer.headers['total-elements']).toBeUndefined();
    expect(answer.json).toEqual({ error: 'forbidden', message: expect.any(String) as string });
  });

  it('answers 404 to an unknown tenant UUID and 400 to a tenantId that is not a UUID', async () => {
    const unknown = await call(server.url, '/tenants/00000000-0000-4000-8000-000000000000/shipments', {
      headers: bearer(),
    });
    expect(unknown.status).toBe(404);
    for (const bad of ['not-a-uuid', '12345', '5e0c3b8a1f2d4a6b8c9d0e1f2a3b4c5d', '%7Bid%7D']) {
      const answer = await call(server.url, `/tenants/${bad}/shipments`, { headers: bearer() });
      expect(answer.status, bad).toBe(400);
      expect((answer.json as { error: unknown }).error).toEqual(expect.any(String));
    }
  });

  it('matches the tenant UUID case-insensitively', async () => {
    const answer = await call(server.url, `/tenants/${server.tenantId.toUpperCase()}/shipments`, { headers: bearer() });
    expect(answer.status).toBe(200);
  });

  it('answers 404 to unknown paths and 405 to other methods', async () => {
    for (const path of [
      `/tenants/${server.tenantId}/nothing`,
      `/tenants/${server.tenantId}`,
      `${shipments}/`,
      '/users/me/',
      '/',
    ]) {
      const answer = await call(server.url, path, { headers: bearer() });
      expect(answer.status, path).toBe(404);
      expect(header(answer, 'content-type')).toBe('application/json;charset=UTF-8');
    }
    const post = await call(server.url, shipments.replace('/shipments', '/invoices'), {
      method: 'POST',
      headers: bearer(),
    });
    expect(post.status).toBe(405);
    expect(header(post, 'allow')).toBe('GET');
    // The shipments take writes (docs/openapi.yaml): PUT is not one of them.
    const put = await call(server.url, shipments, { method: 'PUT', headers: bearer() });
    expect(put.status).toBe(405);
    expect(header(put, 'allow')).toBe('GET, POST');
  });
});

describe('pagination (spec §Pagination, RFC 8288)', () => {
  const link = (page: number, size: number, rel: string): string =>
    `<${shipments}?page=${page}&size=${size}>; rel="${rel}"`;

  function expectPaging(answer: Answer, totalPages: number, size: number, page: number, totalElements: number): void {
    expect(answer.status).toBe(200);
    expect(header(answer, 'total-pages')).toBe(String(totalPages));
    expect(header(answer, 'page-size')).toBe(String(size));
    expect(header(answer, 'page-number')).toBe(String(page));
    expect(header(answer, 'total-elements')).toBe(String(totalElements));
  }

  it('serves page 1 by default with first, next and last links in one Link field', async () => {
    const answer = await call(server.url, shipments, { headers: bearer() });
    expectPaging(answer, 3, 10, 1, 23);
    expect(answer.json).toHaveLength(10);
    expect(header(answer, 'link')).toBe([link(1, 10, 'first'), link(2, 10, 'next'), link(3, 10, 'last')].join(', '));
  });

  it('links a middle page to prev and next', async () => {
    const answer = await call(server.url, `${shipments}?page=2&size=10`, { headers: bearer() });
    expectPaging(answer, 3, 10, 2, 23);
    expect(answer.json).toHaveLength(10);
    expect(header(answer, 'link')).toBe(
      [link(1, 10, 'first'), link(1, 10, 'prev'), link(3, 10, 'next'), link(3, 10, 'last')].join(', '),
    );
  });

  it('serves the remainder on the last page, with no next link', async () => {
    const answer = await call(server.url, `${shipments}?page=3`, { headers: bearer() });
    expectPaging(answer, 3, 10, 3, 23);
    expect(answer.json).toHaveLength(3);
    expect(header(answer, 'link')).toBe([link(1, 10, 'first'), link(2, 10, 'prev'), link(3, 10, 'last')].join(', '));
  });

  it('writes its links under the path a gateway declares in X-Forwarded-Prefix, and ignores a value that is not a plain path', async () => {
    const under = await call(server.url, `${shipments}?page=3`, {
      headers: { ...bearer(), 'X-Forwarded-Prefix': '/api/v2/' },
    });
    expect(header(under, 'link')).toBe(
      [link(1, 10, 'first'), link(2, 10, 'prev'), link(3, 10, 'last')]
        .map((l) => l.replace('<', '</api/v2'))
        .join(', '),
    );
    for (const value of ['api', 'http://evil.example', '/api;x=1', '/a b', '/api/../x']) {
      const ignored = await call(server.url, `${shipments}?page=3`, {
        headers: { ...bearer(), 'X-Forwarded-Prefix': value },
      });
      expect(header(ignored, 'link'), value).toBe(
        [link(1, 10, 'first'), link(2, 10, 'prev'), link(3, 10, 'last')].join(', '),
      );
    }
  });

  it('caps the size and says so in Page-Size and the links', async () => {
    const answer = await call(server.url, `${shipments}?size=1000`, { headers: bearer() });
    expectPaging(answer, 1, 50, 1, 23);
    expect(answer.json).toHaveLength(23);
    expect(header(answer, 'link')).toBe([link(1, 50, 'first'), link(1, 50, 'last')].join(', '));
  });

  it('answers a page past the end with an empty array and the same totals', async () => {
    const next = await call(server.url, `${shipments}?page=4`, { headers: bearer() });
    expectPaging(next, 3, 10, 4, 23);
    expect(next.json).toEqual([]);
    expect(header(next, 'link')).toBe([link(1, 10, 'first'), link(3, 10, 'prev'), link(3, 10, 'last')].join(', '));
    const far = await call(server.url, `${shipments}?page=99`, { headers: bearer() });
    expectPaging(far, 3, 10, 99, 23);
    expect(far.json).toEqual([]);
    expect(header(far, 'link')).not.toContain('rel="next"');
    expect(header(far, 'link')).not.toContain('rel="prev"');
  });

  it.each([
    'page=0',
    'page=-1',
    'page=abc',
    'page=1.5',
    'page=',
    'page=1e2',
    'page=+1',
    'page=1&page=2',
    'size=0',
    'size=-5',
    'size=abc',
    'size=2.5',
    'size=',
    'page=99999999999999999999',
  ])('answers 400 to %s', async (query) => {
    const answer = await call(server.url, `${shipments}?${query}`, { headers: bearer() });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: 'invalid_request', message: expect.any(String) as string });
  });

  it('serves the empty tenant as an empty list with zero totals', async () => {
    expect(server.expectations.user.tenants[1]?.id).toBe(REFERENCE_EMPTY_TENANT_ID);
    const answer = await call(server.url, `/tenants/${REFERENCE_EMPTY_TENANT_ID}/shipments`, { headers: bearer() });
    expect(answer.status).toBe(200);
    expect(header(answer, 'total-pages')).toBe('0');
    expect(header(answer, 'total-elements')).toBe('0');
    expect(header(answer, 'page-number')).toBe('1');
    expect(answer.json).toEqual([]);
    expect(answer.headers.link).toBeUndefined();
  });

  it('walks every item once, following next, with stable complete items', async () => {
    const seen: Record<string, unknown>[] = [];
    let path: string | undefined = `${shipments}?size=4`;
    let pages = 0;
    while (path !== undefined && pages < 20) {
      const answer = await call(server.url, path, { headers: bearer() });
      expect(answer.status).toBe(200);
      pages += 1;
      seen.push(...(answer.json as Record<string, unknown>[]));
      const next = /<([^>]*)>; rel="next"/.exec(header(answer, 'link') ?? '');
      // RFC 8288 §3.1: the target is a relative reference, resolved against the request URL.
      const target: URL | undefined = next?.[1] === undefined ? undefined : new URL(next[1], server.url + path);
      path = target && target.pathname + target.search;
    }
    expect(pages).toBe(6);
    expect(seen).toHaveLength(23);
    expect(new Set(seen.map((s) => s.id)).size).toBe(23);
    const fields = ['carrier', 'createdAt', 'deliveredAt', 'id', 'reference', 'status', 'weightKg'];
    seen.forEach((item, i) => {
      expect(Object.keys(item).sort()).toEqual(fields);
      if ((i + 1) % 5 === 0) expect(item.reference).toBe('');
      else expect(item.reference).toMatch(/^SHP-\d{6}$/);
      expect(item.weightKg === null).toBe((i + 1) % 4 === 0);
      expect(['created', 'in_transit', 'delivered']).toContain(item.status);
      expect(item.deliveredAt === null).toBe(item.status !== 'delivered');
    });
    expect(seen.some((s) => s.reference === '')).toBe(true);
    const again = await call(server.url, `${shipments}?size=4`, { headers: bearer() });
    expect(again.json).toEqual(seen.slice(0, 4));
  });

  it('serves page 500 of 100 000 items quickly', async () => {
    const big = await startReferenceServer({ shipmentCount: 100_000, pageSizeMax: 100 });
    try {
      const t = await getToken(big);
      const started = performance.now();
      const answer = await call(big.url, `/tenants/${big.tenantId}/shipments?page=500&size=100`, {
        headers: { Authorization: `Bearer ${t}` },
      });
      const elapsed = performance.now() - started;
      expectPaging(answer, 1000, 100, 500, 100_000);
      const items = answer.json as { id: string; reference: string }[];
      expect(items).toHaveLength(100);
      expect(items[0]?.reference).toBe('SHP-049901');
      expect(new Set(items.map((i) => i.id)).size).toBe(100);
      expect(header(answer, 'link')).toContain(`</tenants/${big.tenantId}/shipments?page=1000&size=100>; rel="last"`);
      expect(elapsed).toBeLessThan(500);
    } finally {
      await big.close();
    }
  });
});

describe('connections', () => {
  it('closes promptly with an open keep-alive connection', async () => {
    const s = await startReferenceServer();
    const keepAlive = new Agent({ keepAliveTimeout: 60_000 });
    try {
      const res = await request(`${s.url}/users/me`, { headers: { 'Accept-Version': '1' }, dispatcher: keepAlive });
      await res.body.text();
      expect(res.statusCode).toBe(401);
      const started = performance.now();
      await s.close();
      expect(performance.now() - started).toBeLessThan(1_000);
      await s.close(); // a second close is harmless
    } finally {
      await keepAlive.destroy();
    }
  });
});
