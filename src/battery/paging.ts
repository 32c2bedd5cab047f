import { PAGING_HEADER_NAMES, apiUrl } from '../api/paths.js';
import { getResource, getUrl, type Send } from '../api/requests.js';
import { Recorder, type HttpResponse } from '../http/client.js';
import { parseLinkHeader, type LinkParseResult } from '../http/link.js';
import type { CheckContext } from './check.js';
import { getBattery } from './context.js';
import { mapBounded } from './bounded.js';
import { validAnswer, type Endpoint } from './endpoints.js';
import { extractItems, itemLabel, summariseItems, type PageItems } from './list-items.js';
import { itemJudge, type PageFindings } from './resources.js';

/**
 * Paged lists (spec §Pagination): the paging headers, and a walk over every page that the
 * pagination checks share. The walk is done once per list and worker, with bounded concurrency
 * once Total-Pages is known, and recorded in a recorder of its own; a check that cites one of
 * its responses copies that exchange into its own record (CheckContext.cite).
 */

export const PAGING_HEADERS = PAGING_HEADER_NAMES;
export type PagingHeader = (typeof PAGING_HEADERS)[number];

export interface PagingValues {
  values: Partial<Record<PagingHeader, number>>;
  /** Header problems: missing, repeated, not a non-negative integer. */
  problems: string[];
}

/** Reads the four paging headers: each must be sent once, as decimal digits (RFC 9110 §5.3). */
export function readPagingHeaders(res: HttpResponse): PagingValues {
  const out: PagingValues = { values: {}, problems: [] };
  for (const name of PAGING_HEADERS) {
    const lines = res.headerLines(name);
    if (lines.length === 0) {
      out.problems.push(`${name} is missing`);
      continue;
    }
    if (lines.length > 1) out.problems.push(`${name} is sent ${lines.length} times (${lines.map((l) => JSON.stringify(l)).join(', ')})`);
    // Only SP and HTAB are optional whitespace around a field value (RFC 9110 §5.6.3).
    const raw = (lines[0] ?? '').replace(/^[ \t]+|[ \t]+$/g, '');
    if (!/^\d+$/.test(raw)) {
      out.problems.push(`${name} is ${JSON.stringify(lines[0])}, not a non-negative integer`);
      continue;
    }
    const value = Number(raw);
    if (!Number.isSafeInteger(value)) out.problems.push(`${name} is ${raw}, too large to be a count`);
    else out.values[name] = value;
  }
  return out;
}

/** The expected number of pages: ceil(elements / size); an empty list may say 0 or 1. */
export function expectedTotalPages(totalElements: number, pageSize: number): number[] {
  if (totalElements === 0) return [0, 1];
  if (pageSize <= 0) return [];
  return [Math.ceil(totalElements / pageSize)];
}

/** A URL in a form where equal requests compare equal: query parameters sorted. */
export function normaliseUrl(url: string): string {
  const u = new URL(url);
  const params = [...u.searchParams].sort(([a, av], [b, bv]) => (a === b ? av.localeCompare(bv) : a.localeCompare(b)));
  u.search = new URLSearchParams(params).toString();
  u.hash = '';
  return u.href;
}

export interface WalkPage {
  number: number;
  url: string;
  res: HttpResponse;
  paging: PagingValues;
  /** Keys and shapes of the page's items (the items themselves are not kept). */
  items?: PageItems;
  itemsProblem?: string;
  /** What the resource checks found in the page's items (src/battery/resources.ts). */
  resources?: PageFindings;
  links: LinkParseResult;
}

export interface Walk {
  /** The tenant-relative path, e.g. `shipments`. */
  path: string;
  /** The list endpoint walked. */
  endpoint: Endpoint;
  /** The API path of the list, e.g. `/tenants/{id}/shipments`. */
  apiPath: string;
  /** The size the walk requests on every page. */
  size: number;
  /** The response without page and size parameters. */
  unparameterised: WalkPage;
  pages: WalkPage[];
  totalPages?: number;
  totalElements?: number;
  /** Why the walk could not cover the whole list; checks that need the whole list report these. */
  problems: string[];
  /** Set when --max-pages made the walk a sample: which pages it fetched, out of how many. */
  sample?: { pages: number; of: number };
  /** The recorder of every request of the walk. */
  recorder: Recorder;
  /** The walked pages by normalised URL: link targets are looked up here, once per link. */
  byUrl: Map<string, WalkPage>;
}

/** Hard bound on the pages of one walk: a hostile Total-Pages must not keep the run going. */
export const MAX_WALK_PAGES = 100_000;

const walks = new Map<string, { walk: Promise<Walk>; recorder: Recorder }>();

/** The walk of a list endpoint for the tenant under test, done once per worker (its path is filled). */
export function getWalk(c: CheckContext, endpoint: Endpoint): Promise<Walk> {
  let walk = walks.get(endpoint.label);
  if (!walk) {
    const recorder = new Recorder();
    // The check that starts the walk accounts for the token renewals it needed.
    walk = { walk: walkList(c, endpoint, recorder).finally(() => (c.sharedTokenRequests += recorder.tokenRequests)), recorder };
    walks.set(endpoint.label, walk);
  }
  c.uses(walk.recorder);
  return walk.walk;
}

function pageUrlPath(apiPath: string, page: number, size: number): string {
  return `${apiPath}?${new URLSearchParams({ page: String(page), size: String(size) }).toString()}`;
}

/** How a page reads its items: what the checks of this run need, judged as the page arrives. */
interface PageReader {
  /** Item shapes cost a walk of every item; only the nulls check reads them. */
  withShapes: boolean;
  judge?: ((items: readonly unknown[]) => PageFindings) | undefined;
}

async function walkList(c: CheckContext, endpoint: Endpoint, recorder: Recorder): Promise<Walk> {
  const path = endpoint.spec?.path ?? endpoint.label;
  const apiPath = await endpoint.path(c);
  if (typeof apiPath !== 'string') throw new Error(`${endpoint.label} cannot be walked: ${apiPath.unresolved}`);
  // Taken by the HTTP layer for each page as it is sent: a long walk outlives many tokens.
  const auth = c.bearer();
  const reader: PageReader = {
    withShapes: c.settings.selected.includes('NULLS-SAME-FIELDS'),
    judge: endpoint.spec ? itemJudge(c.settings, endpoint.spec, itemLabel) : undefined,
  };
  const send: Send = (req) => getBattery().http.send(req, recorder);
  const fetchPage = async (number: number, pathAndQuery: string, purpose: string): Promise<WalkPage> => {
    const res = await getResource(send, c.target, { path: pathAndQuery, auth, purpose });
    return readPage(number, res, reader);
  };

  // Without page and size: the endpoint's valid request, which other checks share.
  const unparameterised = readPage(1, await validAnswer(c, endpoint), { withShapes: false });
  const size = c.settings.pageSize ?? unparameterised.paging.values['Page-Size'] ?? 10;
  const first = await fetchPage(1, pageUrlPath(apiPath, 1, size), `GET ${path} page 1 (size ${size})`);
  const walk: Walk = { path, endpoint, apiPath, size, unparameterised, pages: [first], problems: [], recorder, byUrl: new Map() };
  indexPage(walk, first);
  if (first.res.status < 200 || first.res.status > 299) {
    walk.problems.push(`page 1 answered ${first.res.status}`);
    return walk;
  }
  const { values } = first.paging;
  if (values['Total-Elements'] !== undefined) walk.totalElements = values['Total-Elements'];
  const pageSize = values['Page-Size'] ?? size;
  const totalPages = values['Total-Pages'] ?? (walk.totalElements !== undefined ? Math.ceil(walk.totalElements / Math.max(1, pageSize)) : undefined);
  if (totalPages === undefined) {
    walk.problems.push('page 1 gives neither Total-Pages nor Total-Elements, so the number of pages is unknown');
    return walk;
  }
  walk.totalPages = totalPages;
  if (totalPages > MAX_WALK_PAGES) {
    walk.problems.push(`Total-Pages is ${totalPages}, more than the ${MAX_WALK_PAGES} pages a walk may request`);
    return walk;
  }
  const rest = pagesToWalk(totalPages, c.settings.maxPages).slice(1);
  if (rest.length + 1 < totalPages) walk.sample = { pages: rest.length + 1, of: totalPages };
  const fetched = await mapBounded(rest, c.settings.concurrency, (n) => fetchPage(n, pageUrlPath(apiPath, n, size), `GET ${path} page ${n} (size ${size})`));
  walk.pages.push(...fetched);
  for (const page of fetched) indexPage(walk, page);
  return walk;
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

function indexPage(walk: Walk, page: WalkPage): void {
  walk.byUrl.set(normaliseUrl(page.url), page);
}

/** Reads what the checks need of a page; the body itself is dropped (the exchange keeps its start). */
function readPage(number: number, res: HttpResponse, reader: PageReader): WalkPage {
  const page: WalkPage = { number, url: res.url, res: res.withoutBody(), paging: readPagingHeaders(res), links: parseLinkHeader([...res.headerLines('link')], res.url) };
  if (res.status >= 200 && res.status < 300) {
    const parsed = res.json();
    const extracted = parsed.ok ? extractItems(parsed.value) : { problem: parsed.error };
    if ('items' in extracted) {
      page.items = summariseItems(extracted.items, reader.withShapes);
      if (reader.judge) page.resources = reader.judge(extracted.items);
    } else page.itemsProblem = extracted.problem;
  } else {
    page.itemsProblem = `the page answered ${res.status}`;
  }
  return page;
}

/** The page a link target stands for, when it is the very request the walk made for that page. */
export function walkPageAt(walk: Pick<Walk, 'byUrl'>, target: string): WalkPage | undefined {
  return walk.byUrl.get(normaliseUrl(target));
}

const linkTargets = new Map<string, Promise<WalkPage>>();

/**
 * What a link target answers: the walk's own response when the link is the same request,
 * otherwise the target fetched (once per worker) and read as a page.
 */
export async function followLink(c: CheckContext, walk: Walk, target: string): Promise<WalkPage> {
  const known = walkPageAt(walk, target);
  if (known) return known;
  const key = normaliseUrl(target);
  let page = linkTargets.get(key);
  if (!page) {
    page = (async () => {
      const res = await getUrl((req) => getBattery().http.send(req, walk.recorder), target, c.bearer(), `GET a Link target of ${walk.path}: ${target}`);
      return readPage(readPagingHeaders(res).values['Page-Number'] ?? -1, res, { withShapes: false });
    })();
    linkTargets.set(key, page);
  }
  return page;
}

/** The list URL of the tenant under test with these query parameters. */
export function listUrl(c: CheckContext, walk: Walk, params: Record<string, string>): string {
  const query = new URLSearchParams(params).toString();
  return apiUrl(c.target.baseUrl, query ? `${walk.apiPath}?${query}` : walk.apiPath).href;
}
