// The reference server's generated collections (src/reference/generated.ts) with `generatedItems`:
// the benchmark's wide API has lists of 45 items, five pages of the default size.
import { afterEach, describe, expect, it } from 'vitest';
import { encodeBasicCredentials } from '../src/core/basic-credentials.js';
import { startReferenceServer, type ReferenceServer } from '../src/reference/index.js';

const servers: ReferenceServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function started(options: Parameters<typeof startReferenceServer>[0]): Promise<{
  s: ReferenceServer;
  get: (path: string) => Promise<{ status: number; body: unknown; headers: Headers }>;
}> {
  const s = await startReferenceServer(options);
  servers.push(s);
  const tokenRes = await fetch(`${s.url}/uaa/oauth2/token`, {
    method: 'POST',
    headers: {
      'accept-version': '1',
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${encodeBasicCredentials(s.clientId, s.clientSecret)}`,
    },
    body: 'grant_type=client_credentials',
    signal: AbortSignal.timeout(5_000),
  });
  const { access_token: token } = (await tokenRes.json()) as { access_token: string };
  const get = async (path: string) => {
    const res = await fetch(`${s.url}/tenants/${s.tenantId}/${path}`, {
      headers: { 'accept-version': '1', authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(5_000),
    });
    return { status: res.status, body: await res.json(), headers: res.headers };
  };
  return { s, get };
}

describe('generated collections', () => {
  it('serve `generatedItems` items in each list, and each of them by id', { timeout: 10_000 }, async () => {
    const { get } = await started({ generatedCollections: 2, generatedItems: 45 });
    const last = await get('c002?page=5&size=10');
    expect(last.status).toBe(200);
    expect((last.body as { id: string }[]).map((i) => i.id)).toEqual([
      'c002-41',
      'c002-42',
      'c002-43',
      'c002-44',
      'c002-45',
    ]);
    expect((await get('c002?page=6&size=10')).body).toEqual([]);
    expect((await get('c001/c001-45')).status).toBe(200);
    expect((await get('c001/c001-46')).status).toBe(404);
  });

  it('serve 12 items by default', { timeout: 10_000 }, async () => {
    const { get } = await started({ generatedCollections: 1 });
    expect((await get('c001?page=2&size=10')).body).toHaveLength(2);
    expect((await get('c001/c001-12')).status).toBe(200);
    expect((await get('c001/c001-13')).status).toBe(404);
  });

  it('refuses a count that is not a whole number of items', async () => {
    await expect(startReferenceServer({ generatedCollections: 1, generatedItems: -1 })).rejects.toThrow(
      'generatedItems must be an integer >= 0',
    );
  });
});
