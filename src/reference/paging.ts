/**
 * Paging of list endpoints (spec §Pagination): `page`/`size` query parameters, the four paging
 * headers and RFC 8288 Link header.
 */
import type { ReferenceBehaviour } from './behaviour.js';
import type { Refusal } from './reply.js';

export interface PageRequest {
  /** 1-based page number as requested. */
  readonly page: number;
  /** Effective page size, after the default and the cap. */
  readonly size: number;
}

export interface PageWindow extends PageRequest {
  readonly totalElements: number;
  readonly totalPages: number;
  /** Index range [from, to) of the items on this page; empty past the end. */
  readonly from: number;
  readonly to: number;
}

/** A positive integer in plain decimal digits: no sign, no fraction, no exponent, not empty. */
const DIGITS = /^[0-9]+$/;

type Parsed = { value: number | undefined } | { refusal: Refusal };

function positiveInteger(query: URLSearchParams, name: string): Parsed {
  const values = query.getAll(name);
  if (values.length === 0) return { value: undefined };
  const bad = (why: string): Parsed => ({
    refusal: { status: 400, error: 'invalid_request', description: `${name} ${why}` },
  });
  if (values.length > 1) return bad('must be given at most once');
  const raw = values[0] ?? '';
  if (!DIGITS.test(raw)) return bad('must be a positive integer');
  const value = Number(raw);
  if (value < 1) return bad('must be a positive integer');
  // Beyond 2^53 the number is not exact; a size that large is capped anyway, so only page cares.
  return { value: Number.isSafeInteger(value) ? value : Number.POSITIVE_INFINITY };
}

/** Reads `page` (default 1, spec §Limits) and `size` (default and cap from the behaviour). */
export function parsePageRequest(query: URLSearchParams, behaviour: ReferenceBehaviour): PageRequest | Refusal {
  const page = positiveInteger(query, 'page');
  if ('refusal' in page) return page.refusal;
  const size = positiveInteger(query, 'size');
  if ('refusal' in size) return size.refusal;
  if (page.value === Number.POSITIVE_INFINITY) {
    return { status: 400, error: 'invalid_request', description: 'page is too large' };
  }
  return {
    page: page.value ?? 1,
    // A size above the cap is served at the cap, and Page-Size tells the client so.
    size: Math.min(size.value ?? behaviour.pageSizeDefault, behaviour.pageSizeMax),
  };
}

export function isRefusal(value: PageRequest | Refusal): value is Refusal {
  return 'status' in value;
}

export function pageWindow(request: PageRequest, totalElements: number): PageWindow {
  // ceil(total/size): 0 pages for an empty list.
  const totalPages = Math.ceil(totalElements / request.size);
  const inRange = request.page <= totalPages;
  const from = inRange ? (request.page - 1) * request.size : totalElements;
  const to = inRange ? Math.min(from + request.size, totalElements) : totalElements;
  return { ...request, totalElements, totalPages, from, to };
}

/**
 * The paging headers, each sent once as plain digits (spec §Pagination), and one Link field with
 * every link comma-separated (RFC 8288 §3). Targets are relative references resolved against the
 * request URL (RFC 8288 §3.1) and keep the effective size, and the request's other query
 * parameters (`query`).
 */
export function pagingHeaders(window: PageWindow, path: string, query?: URLSearchParams): Record<string, string> {
  const headers: Record<string, string> = {
    'Total-Pages': String(window.totalPages),
    'Page-Size': String(window.size),
    'Page-Number': String(window.page),
    'Total-Elements': String(window.totalElements),
  };
  // The request's other parameters (a filter, a required query parameter) stay: each link is a page of the same list.
  const kept = [...(query ?? [])].filter(([name]) => name !== 'page' && name !== 'size');
  const others = kept.length === 0 ? '' : `${new URLSearchParams(kept).toString()}&`;
  const link = (page: number, rel: string): string =>
    `<${path}?${others}page=${page}&size=${window.size}>; rel="${rel}"`;
  const links: string[] = [];
  if (window.totalPages >= 1) links.push(link(1, 'first'));
  // prev only when the previous page exists: not on page 1, nor far past the end.
  if (window.page > 1 && window.page - 1 <= window.totalPages) links.push(link(window.page - 1, 'prev'));
  if (window.page < window.totalPages) links.push(link(window.page + 1, 'next'));
  if (window.totalPages >= 1) links.push(link(window.totalPages, 'last'));
  if (links.length > 0) headers.Link = links.join(', ');
  return headers;
}
