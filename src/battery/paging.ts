import { apiUrl } from '../carrier/paths.js';
import { readPagingHeaders, type PagingValues } from '../carrier/paging-headers.js';
import type { HttpResponse } from '../http/client.js';
import { parseLinkHeader, type LinkParseResult } from '../http/link.js';
import type { CheckContext } from './check.js';
import { extractItems, summariseItems, type PageItems } from '../carrier/list-items.js';
import type { PageFindings } from './resources.js';

/**
 * Paged lists (spec §Pagination): the paging headers, page URLs and what a page of a walk is
 * (the walk itself, shared by every check that reads pages, is src/battery/walk.ts).
 */

export {
  PAGING_HEADERS,
  expectedItemCount,
  expectedTotalPages,
  readPagingHeaders,
  type PagingHeader,
  type PagingValues,
} from '../carrier/paging-headers.js';

/** A URL in a form where equal requests compare equal: query parameters sorted. */
export function normaliseUrl(url: string): string {
  const u = new URL(url);
  const params = [...u.searchParams].sort(([a, av], [b, bv]) => (a === b ? av.localeCompare(bv) : a.localeCompare(b)));
  u.search = new URLSearchParams(params).toString();
  u.hash = '';
  return u.href;
}

/**
 * Why a client cannot follow the link `target` with its credentials, or undefined when it can.
 * `target` is already resolved against the URL of the page that carries it (RFC 8288 §3.1, RFC
 * 3986 §5), so a relative reference (`?page=2`, `/api/…`) leads where the page is; `apiOrigin` is
 * the base URL's origin (RFC 6454 §4). A client must not leak its bearer token to unintended
 * parties (RFC 6750 §5.3), so it sends it to the API's origin alone, as the HTTP client does: a
 * target on another origin or with another scheme (`javascript:`, `data:`) is no page a client
 * can page to. Another path on the API's origin can be followed (behind a gateway it may lead out
 * of the prefix): where it lands, the link checks judge by its answer.
 */
export function unfollowableLink(target: string, apiOrigin: string): string | undefined {
  const cannot = 'a client cannot follow it with its credentials';
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return `cannot be resolved to a URL (RFC 3986 §5): ${cannot}`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `is not an http(s) URL on the API's origin ${apiOrigin}: ${cannot}`;
  return url.origin === apiOrigin ? undefined : `is not on the API's origin ${apiOrigin}: ${cannot}`;
}

/**
 * Why a link `target` on the API's origin leaves the API, or undefined when it does not: the base
 * URL has a path (a gateway's prefix, `/api`) and the target is not under it. Such a link can be
 * followed (unfollowableLink), and where it lands is judged by its answer; this only says why a
 * landing went wrong, as behind Caddy's `handle_path /api/*`, which strips the prefix before the
 * backend writes its links from the path it saw.
 */
export function outsideBasePath(target: string, baseUrl: string): string | undefined {
  let base: URL;
  let url: URL;
  try {
    base = new URL(baseUrl);
    url = new URL(target);
  } catch {
    return undefined;
  }
  const prefix = base.pathname.replace(/\/+$/, '');
  if (prefix === '' || url.origin !== base.origin || url.pathname === prefix || url.pathname.startsWith(`${prefix}/`))
    return undefined;
  return `is not under the base URL's path ${prefix}`;
}

/** A page as the walk reads it: what the checks need of it, without its body. */
export interface WalkPage {
  number: number;
  url: string;
  res: HttpResponse;
  paging: PagingValues;
  /** Keys and shapes of the page's items (the items themselves are not kept). */
  items?: PageItems;
  itemsProblem?: string;
  /** The body holds no array at all (not JSON, a scalar, an object without an array property): nothing shows a list. */
  noArray?: true;
  /** The body is a JSON array: a list's shape whatever the document says (src/battery/walk.ts notShownAList). */
  bareArray?: true;
  /** What the resource checks found in the page's items (src/battery/resources.ts). */
  resources?: PageFindings;
  links: LinkParseResult;
}

/** Hard bound on the pages of one walk: a hostile Total-Pages must not keep the run going. */
export const MAX_WALK_PAGES = 100_000;

/** How a page reads its items: what the checks of this run need, judged as the page arrives. */
export interface PageReader {
  /** Item shapes cost a walk of every item; only the nulls check reads them. */
  withShapes: boolean;
  judge?: ((items: readonly unknown[]) => PageFindings) | undefined;
  /** The wrapper property that holds the items, as the document declares it (EndpointSpec.itemsProperty). */
  itemsProperty?: string | undefined;
}

/**
 * The pages a walk requests: all of them, or with --max-pages n the first, the last and n - 2
 * spread evenly between (the same ones every run, so that reruns compare).
 */
export function pagesToWalk(totalPages: number, maxPages: number | undefined): number[] {
  const all = Math.max(1, totalPages);
  if (maxPages === undefined || all <= maxPages) return Array.from({ length: all }, (_, i) => i + 1);
  const picked = new Set<number>([1, all]);
  const between = maxPages - 2;
  for (let i = 1; i <= between; i += 1) picked.add(1 + Math.round((i * (all - 1)) / (between + 1)));
  return [...picked].sort((a, b) => a - b);
}

/** Reads what the checks need of a page; the body itself is dropped (the exchange keeps its start). */
export function readPage(number: number, res: HttpResponse, reader: PageReader): WalkPage {
  const page: WalkPage = {
    number,
    url: res.url,
    res: res.withoutBody(),
    paging: readPagingHeaders(res),
    links: parseLinkHeader([...res.headerLines('link')], res.url),
  };
  if (res.status >= 200 && res.status < 300) {
    const parsed = res.json();
    const extracted = parsed.ok
      ? extractItems(parsed.value, reader.itemsProperty)
      : { problem: parsed.error, noArray: true as const };
    if (parsed.ok && Array.isArray(parsed.value)) page.bareArray = true;
    if ('items' in extracted) {
      page.items = summariseItems(extracted.items, reader.withShapes);
      if (reader.judge) page.resources = reader.judge(extracted.items);
    } else {
      page.itemsProblem = extracted.problem;
      if (extracted.noArray) page.noArray = true;
    }
  } else {
    page.itemsProblem = `the page answered ${res.status}`;
  }
  return page;
}

/**
 * The URL of page `page` of a list at `size`, as the walk requests it and as its links are
 * matched: under the base URL's own path (a gateway's prefix such as `/api`), like every request.
 */
export function pageUrl(baseUrl: string, apiPath: string, page: number, size: number): URL {
  return apiUrl(baseUrl, withQuery(apiPath, { page: String(page), size: String(size) }));
}

/**
 * An API path with these query parameters set, after those it carries (an endpoint's required
 * query parameters, src/openapi/endpoint-model.ts), which keep their order; a name given in both
 * takes the new value.
 */
export function withQuery(apiPath: string, params: Record<string, string>): string {
  const q = apiPath.indexOf('?');
  const query = new URLSearchParams(q < 0 ? '' : apiPath.slice(q + 1));
  for (const [name, value] of Object.entries(params)) query.set(name, value);
  const text = query.toString();
  const path = q < 0 ? apiPath : apiPath.slice(0, q);
  return text === '' ? path : `${path}?${text}`;
}

/**
 * The number of the walk's page that a link `target` is the very request of (the same URL once
 * normalised), or undefined: `pageUrl(n)` is the walk's URL of page n, `inWalk(n)` whether the
 * walk reads page n.
 */
export function walkPageNumber(
  target: string,
  pageUrl: (n: number) => string,
  inWalk: (n: number) => boolean,
): number | undefined {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return undefined;
  }
  const n = Number(url.searchParams.get('page'));
  if (!Number.isSafeInteger(n) || !inWalk(n)) return undefined;
  return normaliseUrl(target) === normaliseUrl(pageUrl(n)) ? n : undefined;
}

/**
 * Where the page number sits in a list's page URLs (`pageUrl(n)`, as text): the text before and
 * after it, when every page's URL is that text with its number written between in decimal and
 * nothing else moves; undefined otherwise.
 */
function pageTemplate(pageUrl: (n: number) => string): { before: string; after: string } | undefined {
  // A page number no URL holds by chance shows where the number goes; two more, that it is
  // written there in decimal and nothing else moves.
  const a = pageUrl(1_000_000_007);
  const at = a.indexOf('1000000007');
  const before = a.slice(0, at);
  const after = a.slice(at + 10);
  const spliced = (n: number): boolean => pageUrl(n) === `${before}${n}${after}`;
  if (at < 0 || a.indexOf('1000000007', at + 1) >= 0 || !spliced(7) || !spliced(2_000_000_011)) return undefined;
  return { before, after };
}

/**
 * The URLs of a list's pages at one size, as `pageUrl` builds them: each page's spliced into the
 * template they share and parsed once (pageUrl parses four times: the base, its path, its query
 * and the parameters), or pageUrl's own when they share none. A walk builds one per page.
 */
export function pageUrls(baseUrl: string, apiPath: string, size: number): (page: number) => URL {
  const own = (n: number): URL => pageUrl(baseUrl, apiPath, n, size);
  const template = pageTemplate((n) => own(n).href);
  return template ? (n) => new URL(`${template.before}${n}${template.after}`) : own;
}

/**
 * Which page of the walk a link target is, told without parsing when the target is, character
 * for character, the walk's own URL of a page (as a server that builds its links from the request
 * writes them): `pageUrl(n)` is that URL. Undefined for anything else, which walkPageNumber then
 * reads; an identical string is the same request, so both tell the same page.
 */
export function exactPageNumber(pageUrl: (n: number) => string): (target: string) => number | undefined {
  const template = pageTemplate(pageUrl);
  if (!template) return () => undefined;
  const { before, after } = template;
  return (target) => {
    if (target.length <= before.length + after.length || !target.startsWith(before) || !target.endsWith(after))
      return undefined;
    const number = target.slice(before.length, target.length - after.length);
    return /^[1-9]\d{0,8}$/.test(number) ? Number(number) : undefined;
  };
}

/** The list URL of the tenant under test with these query parameters. */
export function listUrl(c: CheckContext, walk: { apiPath: string }, params: Record<string, string>): string {
  return apiUrl(c.target.baseUrl, withQuery(walk.apiPath, params)).href;
}
