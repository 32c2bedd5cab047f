/**
 * The resource endpoints behind bearer authentication: GET /users/me (spec §Get the current user)
 * and a small tenant-scoped API (spec §Tenant-scoped endpoints: any endpoint path under the
 * tenant; the spec shows none beyond the pattern, so the reference invents no rule): two paged
 * lists (spec §Pagination), a single resource by id under each, and the tenant's settings, a
 * resource that is not a list. docs/openapi.yaml describes them.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { DocumentAnswer } from './behaviour.js';
import type { ReferenceContext } from './context.js';
import {
  indexOfId,
  invoiceAt,
  listCount,
  listSlice,
  mayAccess,
  settingsOf,
  shipmentAt,
  type Collection,
  type TenantRecord,
} from './data.js';
import { forwardedPrefix, type RequestTarget } from './gateway.js';
import { generatedItem } from './generated.js';
import { isRefusal, pageWindow, pagingHeaders, parsePageRequest } from './paging.js';
import { apiError, json, type Reply } from './reply.js';

export { USER_PATH } from '../core/carrier-spec.js';
import { USER_PATH } from '../core/carrier-spec.js';
/** Tenant sub-paths that are paged lists, relative to /tenants/{tenantId}/. */
export const PAGED_PATHS: readonly string[] = ['shipments', 'invoices'];
/** Tenant sub-paths that are single resources, with their parameters. */
export const SINGLE_PATHS: readonly string[] = ['shipments/{shipmentId}', 'invoices/{invoiceId}', 'settings'];

/** RFC 9562 §4 UUID text; hex digits are case-insensitive on input. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TENANT_PATH = /^\/tenants\/([^/]+)(\/.*)$/;

/** What a list's answer reads of the request: its query, and the gateway's X-Forwarded-Prefix for its links. */
type ListTarget = Pick<RequestTarget, 'query'> & {
  readonly headers: IncomingHttpHeaders;
  readonly client?: 'first' | 'second';
};

const notFound = (): Reply => apiError({ status: 404, error: 'not_found', description: 'No such resource' });

function methodNotAllowed(allow: string): Reply {
  return apiError({
    status: 405,
    error: 'method_not_allowed',
    description: `Only ${allow} is allowed here`,
    headers: { Allow: allow },
  });
}

export function routeResource(
  method: string,
  target: ListTarget & Pick<RequestTarget, 'path'>,
  ctx: ReferenceContext,
): Reply {
  if (target.path === USER_PATH) {
    if (method !== 'GET') return methodNotAllowed('GET');
    return json(200, target.client === 'second' ? (ctx.secondUser ?? ctx.user) : ctx.user);
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
  if (!mayAccess(tenant, target.client ?? 'first')) {
    return apiError({ status: 403, error: 'forbidden', description: 'This client may not access the tenant' });
  }

  const documented = ctx.behaviour.documentRoutes?.answer(
    m[2].slice(1),
    target.query,
    { id: tenant.id, empty: tenant.shipmentCount === 0 },
    target.headers,
  );
  if (documented !== undefined)
    return method === 'GET'
      ? documentReply(documented, target, ctx, `${forwardedPrefix(target.headers)}/tenants/${tenant.id}${m[2]}`)
      : methodNotAllowed('GET');
  const generated = /^\/c(\d{3})(?:\/([^/]+))?$/.exec(m[2]);
  if (generated?.[1] && Number(generated[1]) >= 1 && Number(generated[1]) <= ctx.behaviour.generatedCollections) {
    if (method !== 'GET') return methodNotAllowed('GET');
    return generatedResource(tenant, target, ctx, `c${generated[1]}`, generated[2]);
  }
  const sub = /^\/(shipments|invoices|settings)(?:\/([^/]+))?$/.exec(m[2]);
  if (!sub?.[1]) return notFound();
  if (method !== 'GET') return methodNotAllowed('GET');
  const [, collection, id] = sub;
  if (collection === 'settings') return id === undefined ? json(200, settingsOf(tenant)) : notFound();
  const list = collection === 'shipments' ? 'shipments' : 'invoices';
  const kind = list === 'shipments' ? 'shipment' : 'invoice';
  const count = listCount(tenant, list);
  if (id === undefined) return page(tenant, target, ctx, list);
  const index = indexOfId(tenant.id, kind, decodeURIComponent(id), count);
  if (index === undefined) return apiError({ status: 404, error: 'not_found', description: `No such ${kind}` });
  return json(
    200,
    kind === 'shipment' ? shipmentAt(tenant.id, index) : invoiceAt(tenant.id, index, tenant.shipmentCount),
  );
}

function page(tenant: TenantRecord, target: ListTarget, ctx: ReferenceContext, collection: Collection): Reply {
  const request = parsePageRequest(target.query, ctx.behaviour);
  if (isRefusal(request)) return apiError(request);
  const window = pageWindow(request, listCount(tenant, collection));
  // Past the end: 200 with an empty array and the same totals.
  return json(
    200,
    listSlice(tenant, collection, window.from, window.to),
    pagingHeaders(window, `${forwardedPrefix(target.headers)}/tenants/${tenant.id}/${collection}`),
  );
}

/** A generated collection (src/reference/generated.ts): a tenant's list, or one of its items; the empty tenant has none. */
function generatedResource(
  tenant: TenantRecord,
  target: ListTarget,
  ctx: ReferenceContext,
  collection: string,
  id: string | undefined,
): Reply {
  const count = tenant.shipmentCount > 0 ? ctx.behaviour.generatedItems : 0;
  if (id !== undefined) {
    const decoded = decodeURIComponent(id);
    const index = Number(/^c\d{3}-(\d+)$/.exec(decoded)?.[1] ?? 0) - 1;
    return decoded.startsWith(`${collection}-`) && index >= 0 && index < count
      ? json(200, generatedItem(collection, index))
      : apiError({ status: 404, error: 'not_found', description: 'No such item' });
  }
  const request = parsePageRequest(target.query, ctx.behaviour);
  if (isRefusal(request)) return apiError(request);
  const window = pageWindow(request, count);
  const items = Array.from({ length: Math.max(0, window.to - window.from) }, (_, i) =>
    generatedItem(collection, window.from + i),
  );
  return json(
    200,
    items,
    pagingHeaders(window, `${forwardedPrefix(target.headers)}/tenants/${tenant.id}/${collection}`, target.query),
  );
}

/** A described API's answer (behaviour.ts documentRoutes); a list is paged like the fixed ones (spec §Pagination). */
function documentReply(answer: DocumentAnswer, target: ListTarget, ctx: ReferenceContext, path: string): Reply {
  if ('refusal' in answer) return apiError(answer.refusal);
  const typed = (reply: Reply): Reply =>
    answer.contentType === undefined ? reply : { ...reply, contentType: answer.contentType };
  if ('body' in answer) return typed(json(answer.status ?? 200, answer.body));
  const request = parsePageRequest(target.query, ctx.behaviour);
  if (isRefusal(request)) return apiError(request);
  const { list } = answer;
  const window = pageWindow(request, list.count);
  const items = Array.from({ length: Math.max(0, window.to - window.from) }, (_, i) => list.item(window.from + i));
  // The links keep the request's other query parameters (a required `from`): pages of the same list.
  return typed(json(200, list.wrap ? list.wrap(items, window) : items, pagingHeaders(window, path, target.query)));
}
