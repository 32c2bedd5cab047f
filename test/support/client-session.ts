import { writeFile } from 'node:fs/promises';
import { request } from 'undici';
import type { ReferenceServer } from '../../src/reference/index.js';

/**
 * Issue 43: the traffic of one API client, recorded as a HAR 1.2 file with whole bodies, the same
 * requests whatever server answers them: so that a server with a fault (`serve --fault`) gives
 * "the same capture" with the fault in it, and a server with a conformant variant the same
 * capture with nothing wrong. The client does what a client does: takes a token (and one by the
 * legacy path), reads the user (and by the legacy path), walks the first pages of each list, and
 * makes the mistakes clients make (no Accept-Version, a wrong one, no Authorization), on reads
 * and on a write. Bounded: each request has a timeout; loopback only.
 */

const TIMEOUT_MS = 10_000;
const form = (s: string): string => encodeURIComponent(s).replace(/%20/g, '+');

interface Entry {
  startedDateTime: string;
  time: number;
  request: Record<string, unknown>;
  response: Record<string, unknown>;
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
}

/** The id of the first item of a list body (an array, or the one array of a wrapper). */
function firstId(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as unknown;
    const items = Array.isArray(body)
      ? body
      : body !== null && typeof body === 'object'
        ? Object.values(body).find((v): v is unknown[] => Array.isArray(v))
        : undefined;
    const id = (items?.[0] as { id?: unknown } | undefined)?.id;
    return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
  } catch {
    return undefined;
  }
}

export interface SessionOptions {
  /** Lists to walk (tenant sub-paths); the server's own by default. */
  lists?: readonly string[];
  /** The page size the client asks for. */
  size?: number;
  /** Wait this long after the session, then use its token once more (a client that kept it too long). */
  reuseTokenAfterMs?: number;
}

export async function recordClientSession(
  server: ReferenceServer,
  harPath: string,
  options: SessionOptions = {},
): Promise<void> {
  const entries: Entry[] = [];
  const send = async (
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: string,
  ): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> => {
    const url = `${server.url}${path}`;
    const started = new Date();
    const res = await request(url, {
      method: method as 'GET',
      headers,
      ...(body !== undefined ? { body } : {}),
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
    });
    const text = await res.body.text();
    const responseHeaders: { name: string; value: string }[] = [];
    for (const [name, value] of Object.entries(res.headers))
      for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value])
        responseHeaders.push({ name, value: one });
    const time = Date.now() - started.getTime();
    entries.push({
      startedDateTime: started.toISOString(),
      time,
      request: {
        method,
        url,
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: Object.entries(headers).map(([name, value]) => ({ name, value })),
        queryString: [...new URL(url).searchParams].map(([name, value]) => ({ name, value })),
        ...(body !== undefined ? { postData: { mimeType: headers['Content-Type'] ?? '', text: body } } : {}),
        headersSize: -1,
        bodySize: body === undefined ? 0 : Buffer.byteLength(body),
      },
      response: {
        status: res.statusCode,
        statusText: '',
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: responseHeaders,
        content: { size: Buffer.byteLength(text), mimeType: String(res.headers['content-type'] ?? ''), text },
        redirectURL: String(res.headers.location ?? ''),
        headersSize: -1,
        bodySize: Buffer.byteLength(text),
      },
      cache: {},
      timings: { send: 0, wait: time, receive: 0 },
    });
    return { status: res.statusCode, headers: res.headers, text };
  };

  const basic = `Basic ${Buffer.from(`${form(server.clientId)}:${form(server.clientSecret)}`).toString('base64')}`;
  const tokenRequest = {
    Authorization: basic,
    'Accept-Version': '1',
    'Content-Type': 'application/x-www-form-urlencoded',
  };
  const issued = await send('POST', '/uaa/oauth2/token', tokenRequest, 'grant_type=client_credentials');
  await send('POST', '/uaa/oauth/token', tokenRequest, 'grant_type=client_credentials');
  let token: string;
  try {
    const body = JSON.parse(issued.text) as { access_token?: unknown };
    token = typeof body.access_token === 'string' ? body.access_token : String(body.access_token);
  } catch {
    token = 'no-token-issued';
  }
  const bearer = `Bearer ${token}`;
  const v1 = { Authorization: bearer, 'Accept-Version': '1' };
  await send('GET', '/users/me', v1);
  await send('GET', '/uaa/userinfo', v1);
  await send('GET', '/users/me', { Authorization: bearer });
  await send('GET', '/users/me', { Authorization: bearer, 'Accept-Version': 'banana' });
  await send('GET', '/users/me', { 'Accept-Version': '1' });

  const tenant = `/tenants/${server.tenantId}`;
  const size = options.size ?? 5;
  for (const list of options.lists ?? server.pagedPaths) {
    const first = await send('GET', `${tenant}/${list}?size=${size}`, v1);
    const header = (name: string): number | undefined => {
      const value = first.headers[name];
      const n = Number(Array.isArray(value) ? value[0] : value);
      return Number.isSafeInteger(n) && n > 0 ? n : undefined;
    };
    const total = header('total-elements');
    const last = Math.min(header('total-pages') ?? (total === undefined ? 3 : Math.ceil(total / size)), 50);
    for (const page of [...new Set([2, last])].filter((p) => p >= 2))
      await send('GET', `${tenant}/${list}?page=${page}&size=${size}`, v1);
    // One item by its id, as a client opens what a list showed it.
    const id = firstId(first.text);
    if (id !== undefined) await send('GET', `${tenant}/${list}/${encodeURIComponent(id)}`, v1);
  }
  const list = options.lists?.[0] ?? server.pagedPaths[0] ?? 'shipments';
  await send('GET', `${tenant}/${list}`, { Authorization: bearer });
  await send('GET', `${tenant}/${list}`, { Authorization: bearer, 'Accept-Version': '0' });
  await send('GET', `${tenant}/${list}`, { 'Accept-Version': '1' });
  const json = { 'Content-Type': 'application/json' };
  await send('POST', `${tenant}/${list}`, { ...json, Authorization: bearer }, '{}');
  await send('POST', `${tenant}/${list}`, { ...json, Authorization: bearer, 'Accept-Version': '0' }, '{}');
  await send('POST', `${tenant}/${list}`, { ...json, 'Accept-Version': '1' }, '{}');

  if (options.reuseTokenAfterMs !== undefined) {
    await new Promise((done) => setTimeout(done, options.reuseTokenAfterMs));
    await send('GET', '/users/me', v1);
    await send('GET', `${tenant}/${list}?size=${size}`, v1);
  }

  const har = { log: { version: '1.2', creator: { name: 'client-session', version: '1' }, entries } };
  await writeFile(harPath, `${JSON.stringify(har, null, 2)}\n`);
}
