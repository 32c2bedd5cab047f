/**
 * The resource endpoints behind bearer authentication: GET /users/me (spec §Get the current user)
 * and a small tenant-scoped API (spec §Tenant-scoped endpoints: any endpoint path under the
 * tenant; the spec shows none beyond the pattern, so the reference invents no rule): two paged
 * lists (spec §Pagination), a single resource by id under each, and the tenant's settings, a
 * resource that is not a list. docs/openapi.yaml describes them.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { mediaTypeEssence } from './body.js';
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
  /** A write's content; null when it exceeded the limit. */
  readonly body?: Buffer | null;
  /** Only the header section has arrived (Expect: 100-continue): the content is not asked for unless the request is otherwise acceptable. */
  readonly headOnly?: boolean;
};

/**
 * The reply that asks for the content (100 Continue, RFC 9110 §10.1.1): everything the method, the
 * target and the header fields decide has been decided, and only the content is left to judge.
 */
export const ASK_FOR_CONTENT: Reply = json(100, null);

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
  const [, collection, id] = sub;
  if (collection === 'shipments' && method !== 'GET') return shipmentWrite(method, tenant, id, target);
  if (method !== 'GET') return methodNotAllowed('GET');
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

/**
 * The write operations of docs/openapi.yaml: create, change and delete a shipment. What the header
 * section decides (the version, the token, the tenant, the method) is answered before the content
 * is asked for (ASK_FOR_CONTENT). A write is answered and never kept: the seeded data stays as it
 * is, so that every run sees the same lists.
 */
function shipmentWrite(method: string, tenant: TenantRecord, id: string | undefined, target: ListTarget): Reply {
  let current: ReturnType<typeof shipmentAt> | undefined;
  if (id === undefined) {
    if (method !== 'POST') return methodNotAllowed('GET, POST');
  } else {
    if (method !== 'PATCH' && method !== 'DELETE') return methodNotAllowed('GET, PATCH, DELETE');
    // DELETE is idempotent (RFC 9110 §9.2.2): a shipment that is not there is gone all the same.
    if (method === 'DELETE')
      return { status: 204, headers: { 'Cache-Control': 'no-store' }, body: null, raw: { text: '' } };
    // A change is looked up once its content has come, as many servers do: the header section
    // decides nothing about the shipment.
    if (target.headOnly) return ASK_FOR_CONTENT;
    const index = indexOfId(tenant.id, 'shipment', decodeURIComponent(id), listCount(tenant, 'shipments'));
    if (index === undefined) return apiError({ status: 404, error: 'not_found', description: 'No such shipment' });
    current = shipmentAt(tenant.id, index);
  }
  if (target.headOnly) return ASK_FOR_CONTENT;
  const type = mediaTypeEssence(header(target.headers, 'content-type'));
  const accepted = method === 'PATCH' ? ['application/merge-patch+json', 'application/json'] : ['application/json'];
  if (!accepted.includes(type))
    return apiError({
      status: 415,
      error: 'unsupported_media_type',
      description: `The content must be ${accepted.join(' or ')}`,
    });
  const draft = shipmentDraft(target.body);
  if (typeof draft === 'string') return apiError({ status: 400, error: 'invalid_request', description: draft });
  if (current) return json(200, { ...current, ...draft });
  if (draft.carrier === undefined)
    return apiError({ status: 400, error: 'invalid_request', description: 'carrier is required' });
  return json(
    201,
    {
      id: randomUUID(),
      reference: draft.reference ?? '',
      carrier: draft.carrier,
      status: 'created',
      weightKg: draft.weightKg ?? null,
      deliveredAt: null,
      createdAt: new Date().toISOString(),
    },
    { 'Cache-Control': 'no-store' },
  );
}

/** The ShipmentDraft of docs/openapi.yaml in a request's content, or what is wrong with it. */
function shipmentDraft(
  body: Buffer | null | undefined,
): { reference?: string; carrier?: string; weightKg?: number | null } | string {
  if (body === null || body === undefined) return 'The content is missing or too large';
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    return 'The content is not JSON';
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'The content must be a JSON object';
  const draft = value as Record<string, unknown>;
  for (const key of Object.keys(draft))
    if (!['reference', 'carrier', 'weightKg'].includes(key)) return `Unknown field ${key.slice(0, 40)}`;
  if (draft.reference !== undefined && typeof draft.reference !== 'string') return 'reference must be a string';
  if (draft.carrier !== undefined && (typeof draft.carrier !== 'string' || draft.carrier === ''))
    return 'carrier must be a non-empty string';
  if (
    draft.weightKg !== undefined &&
    draft.weightKg !== null &&
    !(typeof draft.weightKg === 'number' && draft.weightKg >= 0)
  )
    return 'weightKg must be a number of at least 0, or null';
  return draft;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
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
