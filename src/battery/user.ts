import type { HttpResponse } from '../http/client.js';
import type { CheckContext } from './check.js';
import { USER_ENDPOINT, validAnswer, type Endpoint } from './endpoints.js';

/**
 * The User object of GET /users/me (or its legacy path) with a valid token, shared by the checks
 * that examine it, or undefined after an error pointing at the check that judges that answer.
 */
export async function userBody(
  c: CheckContext,
  endpoint: Endpoint = USER_ENDPOINT,
): Promise<{ res: HttpResponse; user: Record<string, unknown> } | undefined> {
  const res = await validAnswer(c, endpoint);
  const parsed = res.json();
  if (
    res.status !== 200 ||
    !parsed.ok ||
    parsed.value === null ||
    typeof parsed.value !== 'object' ||
    Array.isArray(parsed.value)
  ) {
    c.error(
      `cannot check: ${endpoint.label} answered ${res.status}${parsed.ok ? '' : ' without a JSON body'}, not a User object (see ${endpoint.judgedBy})`,
      res,
    );
    return undefined;
  }
  return { res, user: parsed.value as Record<string, unknown> };
}
