import { USER_PATH } from '../api/paths.js';
import { getResource } from '../api/requests.js';
import type { HttpResponse } from '../http/client.js';
import type { CheckContext } from './check.js';

/** GET /users/me (or its legacy path) with the shared token. */
export async function requestUser(c: CheckContext, path = USER_PATH): Promise<HttpResponse> {
  return getResource(c.send, c.target, { path, auth: await c.bearer(), purpose: `GET ${path} with a valid token` });
}

/**
 * The User object, or undefined after recording an error: for checks that examine the User and
 * cannot say anything when there is none (USER-OK says why).
 */
export async function userBody(c: CheckContext, path = USER_PATH): Promise<{ res: HttpResponse; user: Record<string, unknown> } | undefined> {
  const res = await requestUser(c, path);
  const parsed = res.json();
  if (res.status !== 200 || !parsed.ok || parsed.value === null || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) {
    c.error(`cannot check: GET ${path} answered ${res.status}${parsed.ok ? '' : ' without a JSON body'}, not a User object (see USER-OK)`, res);
    return undefined;
  }
  return { res, user: parsed.value as Record<string, unknown> };
}
