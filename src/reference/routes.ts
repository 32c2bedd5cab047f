/**
 * The resource endpoints behind bearer authentication: GET /users/me (spec §Get the current user)
 * and the tenant-scoped list GET /tenants/{tenantId}/shipments (spec §Tenant-scoped endpoints,
 * §Pagination).
 */
import type { ReferenceContext } from './context.js';
import { shipmentsSlice, type TenantRecord } from './data.js';
import type { RequestTarget } from './gateway.js';
import { isRefusal, pageWindow, pagingHeaders, parsePageRequest } from './paging.js';
import { apiError, json, type Reply } from './reply.js';

export const USER_PATH = '/users/me';
/** Tenant sub-paths that are paged lists, relative to /tenants/{tenantId}/. */
export const PAGED_PATHS: readonly string[] = ['shipments'];

/** RFC 9562 §4 UUID text; hex digits are case-insensitive on input. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TENANT_PATH = /^\/tenants\/([^/]+)(\/.*)$/;

const notFound = (): Reply => apiError({ status: 404, error: 'not_found', description: 'No such resource' });

function methodNotAllowed(allow: string): Reply {
  return apiError({
    status: 405,
    error: 'method_not_allowed',
    description: `Only ${allow} is allowed here`,
    headers: { Allow: allow },
  });
}

export function routeResource(method: string, target: Pick<RequestTarget, 'path' | 'query'>, ctx: ReferenceContext): Reply {
  if (target.path === USER_PATH) {
    if (method !== 'GET') return methodNotAllowed('GET');
    return json(200, ctx.user);
  }

  const m = TENANT_PATH.exec(target.path);
  if (!m?.[1] || m[2] === undefined) return notFound();
  // Tenant first: whether it may be accessed decides before anything about the sub-path is said.
  const tenantSegment = m[1];
  if (!UUID.test(tenantSegment)) {
    return apiError({ status: 400, error: 'invalid_request', description: 'tenantId must be a UUID' });
  }
  const tenant = ctx.tenants.get(tenantSegment.toLowerCase());
  if (!tenant) return apiError({ status: 404, error: 'not_found', description: 'No such tenant' });
  // spec §Authentication 5: calls are made within a tenant the user may access; others are refused.
  if (!tenant.accessible) {
    return apiError({ status: 403, error: 'forbidden', description: 'This client may not access the tenant' });
  }

  if (m[2] === '/shipments') {
    if (method !== 'GET') return methodNotAllowed('GET');
    return listShipments(tenant, target, ctx);
  }
  return notFound();
}

function listShipments(tenant: TenantRecord, target: Pick<RequestTarget, 'path' | 'query'>, ctx: ReferenceContext): Reply {
  const request = parsePageRequest(target.query, ctx.behaviour);
  if (isRefusal(request)) return apiError(request);
  const window = pageWindow(request, tenant.shipmentCount);
  // Past the end: 200 with an empty array and the same totals.
  const items = shipmentsSlice(tenant, window.from, window.to);
  return json(200, items, pagingHeaders(window, `/tenants/${tenant.id}/shipments`));
}
