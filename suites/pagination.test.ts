/**
 * pagination: paged lists (spec §Pagination, §Limits): the page/size parameters, the
 * Total-Pages, Page-Size, Page-Number, Total-Elements headers and Web Links (RFC 8288).
 * Every check runs on every list endpoint, over one shared walk of each (src/battery/walk.ts):
 * what a check judges page by page is its page judge (`pageJudge`), fed every page in page
 * order as the walk reads it; the check reports what its judge found, and sends its own probes
 * as soon as the walk's head (page 1) is known.
 */
import type { CheckContext } from '../src/battery/check.js';
import { check, suite } from '../src/battery/check.js';
import { DigestSet } from '../src/battery/digest-set.js';
import { endpointHeaders, listEndpoints, notValidByDocument, onEach, sharedProbe } from '../src/battery/endpoints.js';
import { getBattery } from '../src/battery/context.js';
import { expectNoServerError } from '../src/battery/expect.js';
import { extractItems, itemLabelAt, KEY_ID, keyKindAt, sameItems, type PageItems } from '../src/carrier/list-items.js';
import {
  expectedItemCount,
  expectedTotalPages,
  listUrl,
  normaliseUrl,
  outsideBasePath,
  readPage,
  readPagingHeaders,
  unfollowableLink,
  type WalkPage,
} from '../src/battery/paging.js';
import {
  getWalk,
  getWalkHead,
  notShownAList,
  pageJudge,
  type Landing,
  type WalkFindings,
  type WalkHead,
  type WalkView,
} from '../src/battery/walk.js';
import { getUrl } from '../src/carrier/requests.js';
import type { ExchangeRef, HttpResponse } from '../src/http/client.js';
import { linksWithRel } from '../src/http/link.js';

interface ListCheck {
  /** The check needs the whole list: a walk that cannot cover it is an error of the check. */
  wholeList?: boolean;
  /** Its own requests, sent once the head is known and judged after the pages (in parallel with the walk). */
  probe?: (e: CheckContext, head: WalkHead) => Promise<(e: CheckContext) => void>;
  /** The check has a page judge: its findings are reported. */
  judged?: boolean;
}

/**
 * Applies the check to every list endpoint, each through its own context (`CheckContext.at`), so
 * the report gives every list its own outcome; skips when there is no list.
 */
async function onEveryList(c: CheckContext, how: ListCheck): Promise<void> {
  const lists = listEndpoints(c);
  if (lists.length === 0)
    c.skip('no list endpoint configured: pass --openapi or --paged-path (e.g. --paged-path shipments)');
  const { tenantId, tenantProblem } = c.settings;
  if (tenantId === undefined)
    return c.error(`no tenant under test: ${tenantProblem ?? 'none given'} (pass --tenant-id)`);
  await onEach(c, lists, async (e, endpoint) => {
    const path = await endpoint.path(e);
    if (typeof path !== 'string') return e.skipEndpoint(path.unresolved);
    const head = await getWalkHead(e, endpoint);
    const first = head.first;
    if (first.res.status < 200 || first.res.status > 299) {
      const unproven = notValidByDocument(endpoint, first.res);
      return unproven !== undefined
        ? e.skipEndpoint(unproven)
        : e.error(`cannot check ${head.path}: page 1 answered ${first.res.status} (see TENANT-ACCESS)`, first.res);
    }
    const unshown = notShownAList(endpoint.spec, first);
    if (unshown !== undefined) return e.skipEndpoint(unshown);
    if (how.wholeList !== false && head.problems.length > 0)
      return e.error(`cannot walk ${head.path}: ${head.problems.join('; ')}`, first.res);
    if (head.sample)
      e.note(
        `judged on a sample of ${head.sample.pages} of ${head.sample.of} pages (--max-pages): the first, the last and some between`,
      );
    const probed = how.probe?.(e, head);
    // Awaited below, after the walk: a failed probe must not count as unhandled meanwhile.
    probed?.catch(() => undefined);
    if (how.judged !== false) {
      const walk = await getWalk(e, endpoint);
      walk.findings(e.check.id).report(e);
      if (e.check.id === 'PAGE-WALK') e.note(walkPace(walk));
    }
    (await probed)?.(e);
  });
}

/** How the walk paced itself, for people tuning --concurrency (the endpoint's label precedes it). */
function walkPace(walk: Awaited<ReturnType<typeof getWalk>>): string {
  const { start, peak, ceiling, backoffs, throttled } = walk.pace;
  const adapted =
    backoffs > 0
      ? `, backed off ${backoffs} time${backoffs === 1 ? '' : 's'}${throttled > 0 ? ` (${throttled} answers 429/503)` : ''}`
      : '';
  return `${walk.pagesRead} pages, ${walk.itemsRead} items read at concurrency ${start}${peak > start ? ` to ${peak}` : ''} (at most ${ceiling}${adapted})`;
}

function label(head: WalkHead, page: Pick<WalkPage, 'url'>): string {
  const query = new URL(page.url).search;
  return `GET ${head.path}${query}`;
}

/** How a judgement records a failure: a walk's findings, a check's context, or a list kept for later. */
type Fail = (message: string, evidence?: ExchangeRef) => void;

/** The single target of `rel` on a page; several different ones are a failure. */
function singleLink(fail: Fail, head: WalkHead, page: WalkPage, rel: string): string | undefined {
  const links = linksWithRel(page.links, rel);
  const first = links[0]?.target;
  if (links.some((l) => l.target !== first)) {
    const targets = [...new Set(links.map((l) => l.target))];
    fail(`${label(head, page)}: ${targets.length} different rel="${rel}" links (${targets.join(', ')})`, page.res);
  }
  return first;
}

/**
 * A landing's page number as a finding names it: a landing without Page-Number is -1 inside the
 * walk, a number no reader should see (issue 38 item 9).
 */
const pageName = (n: number): string => (n < 0 ? '(no Page-Number)' : String(n));

/** A chain of page numbers as a reader can take it in, however long. */
function chain(numbers: readonly number[]): string {
  const pages = numbers.map(pageName);
  return pages.length <= 12
    ? pages.join(' → ')
    : `${pages.slice(0, 5).join(' → ')} → … → ${pages.slice(-5).join(' → ')} (${pages.length} pages)`;
}

/** The base URL of the run, whose path a link that lands wrong may have left. */
const baseUrl = (): string => getBattery().settings.target.baseUrl;

/** "<what> is not under the base URL's path /api: it": where a landing went wrong, whether the target left the API's path. */
function leading(what: string, target: string): string {
  const outside = outsideBasePath(target, baseUrl());
  return outside === undefined ? what : `${what} ${outside}: it`;
}

/**
 * Whether a link of `page` (`what()` names it) lands on page `expected` at the page's size; a
 * failure is recorded with `fail`. It cites the page whose Link header is wrong when the link
 * leads to another page or cannot be followed (its curl shows the link), and the page it landed
 * on when that answers an error or another size (its curl shows that); the page with the link
 * when the landing is no longer known.
 */
function judgeLanding(
  fail: Fail,
  what: () => string,
  page: WalkPage,
  target: string,
  landed: Landing,
  expected: number,
): void {
  // Not on the API's origin (spec §Pagination: links to other pages of the API): not requested,
  // so not a page to compare; the link itself is wrong.
  if (landed.unfollowable !== undefined) return fail(`${what()} ${landed.unfollowable}`, page.res);
  const evidence = landed.evidence ?? page.res;
  if (landed.status < 200 || landed.status > 299)
    return fail(`${leading(what(), target)} answers ${landed.status}, expected page ${expected}`, evidence);
  if (landed.number !== expected)
    return fail(
      `${leading(what(), target)} leads to ${landed.number < 0 ? 'a page without Page-Number' : `page ${landed.number}`}, expected page ${expected}`,
      page.res,
    );
  const pageSize = page.paging.values['Page-Size'];
  if (landed.pageSize !== undefined && pageSize !== undefined && landed.pageSize !== pageSize)
    fail(
      `${what()} leads to page ${expected} with Page-Size ${landed.pageSize}, not this page's ${pageSize}`,
      evidence,
    );
}

/**
 * The link target answers page `expected` of the same size, or a failure is recorded. It cites
 * the page whose Link header is wrong when the link leads to another page or cannot be followed
 * (its curl shows the link), and the page it landed on when that answers an error or another
 * size (its curl shows that); the page with the link when the landing is no longer known.
 */
function expectLinkTo(
  out: WalkFindings,
  view: WalkView,
  page: WalkPage,
  rel: string,
  target: string,
  expected: number,
): void | Promise<void> {
  // Written only for a finding: every page's links are judged, and a label parses the page's URL.
  const what = (): string => `${label(view.head, page)}: rel="${rel}" ${target}`;
  const judge = (landed: Landing): void =>
    judgeLanding((m, ev) => out.fail(m, ev), what, page, target, landed, expected);
  const landed = view.land(target);
  return landed instanceof Promise ? landed.then(judge) : judge(landed);
}

/** Runs the judgements of one page that wait for a link target, together. */
function allOf(results: (void | Promise<void>)[]): void | Promise<void> {
  const waiting = results.filter((r): r is Promise<void> => r instanceof Promise);
  return waiting.length > 0 ? Promise.all(waiting).then(() => undefined) : undefined;
}

const inRange = (res: HttpResponse): boolean => res.status >= 200 && res.status <= 299;

/**
 * Why page `page` of `res` does not hold the items its own headers promise (expectedItemCount),
 * or undefined when it does; `{ unknown }` when a header it needs is missing or unreadable, which
 * the caller reports as an error pointing at PAGE-HEADERS (never a pass, never another failure).
 */
function countProblem(res: HttpResponse, page: number, held: number): string | { unknown: string } | undefined {
  const expected = expectedItemCount(readPagingHeaders(res), page);
  if ('unknown' in expected) return expected;
  const { count, size, total } = expected;
  if (held === count) return undefined;
  return `${held} items, but its headers promise ${count} = min(Page-Size ${size}, Total-Elements ${total} − (${page} − 1) × ${size})`;
}

// ── a page at another size than the walk's ────────────────────────────────────────────────

/**
 * PAGE-ECHO's probe: a smaller size than the walk's, on page 2 when there is one. Sent once, and
 * shared with the LINK checks, which hold its links to their rules (issue 38 item 3): a server that
 * builds its links without `size` (Starlette's `replace_query_params(page=n)` on `?page=1&size=10`)
 * is right at its default size only, and the walk uses the default.
 */
interface SizeProbe {
  number: number;
  size: number;
  /** The answer, body and all (PAGE-ECHO counts its items). */
  res: HttpResponse;
  page: WalkPage;
}

function smallerSize(head: WalkHead): { number: number; size: number } {
  return { number: (head.totalPages ?? 0) >= 2 ? 2 : 1, size: head.size > 1 ? Math.floor(head.size / 2) : 1 };
}

async function smallerSizePage(e: CheckContext, head: WalkHead): Promise<SizeProbe> {
  const { number, size } = smallerSize(head);
  const url = listUrl(e, head, { page: String(number), size: String(size) });
  const res = await sharedProbe(e, `GET ${normaliseUrl(url)}`, (send) =>
    getUrl(
      send,
      url,
      e.bearer(),
      `GET ${head.path} page ${number} with size ${size}`,
      endpointHeaders(head.endpoint.spec),
    ),
  );
  return {
    number,
    size,
    res,
    page: readPage(number, res, { withShapes: false, itemsProperty: head.endpoint.spec?.itemsProperty }),
  };
}

/** The largest size PAGE-ECHO asks for as a client would, whatever the list's length. */
const REALISTIC_SIZE_MAX = 1000;

/**
 * A size a client would really ask for (issue 38 item 4): the whole list when it is short, else
 * several times the walk's size (at least 100, a common validation maximum), at most
 * REALISTIC_SIZE_MAX. A cap the server does not state shows only at a size above it that it
 * serves: a validating framework refuses 1 000 000 with a 4xx (allowed), and the walk stays under
 * the cap. None when the list fits in one page of the walk, where no cap above it loses an item.
 */
function realisticSize(head: WalkHead): number | undefined {
  const total = head.totalElements;
  if (total === undefined || total <= head.size) return undefined;
  return Math.min(total, Math.max(5 * head.size, 100), REALISTIC_SIZE_MAX);
}

/** Where a link target of the probe page leads: fetched once for every LINK check, never off the API's origin. */
async function landAt(e: CheckContext, head: WalkHead, target: string): Promise<Landing> {
  const unfollowable = unfollowableLink(target, new URL(e.target.baseUrl).origin);
  if (unfollowable !== undefined) return { number: -1, status: 0, unfollowable };
  const res = await sharedProbe(e, `GET ${normaliseUrl(target)}`, (send) =>
    getUrl(
      send,
      target,
      e.bearer(),
      `GET a Link target of ${head.path}: ${target}`,
      endpointHeaders(head.endpoint.spec),
    ),
  );
  const page = readPage(readPagingHeaders(res).values['Page-Number'] ?? -1, res, {
    withShapes: false,
    itemsProperty: head.endpoint.spec?.itemsProperty,
  });
  return {
    number: page.number,
    status: res.status,
    pageSize: page.paging.values['Page-Size'],
    items: page.items?.keys.length,
    next: linksWithRel(page.links, 'next')[0]?.target,
    evidence: page.res,
  };
}

/** The probe page's last page at its own size: its Total-Pages, else from its Total-Elements and Page-Size. */
function lastAtSize(page: WalkPage): number | undefined {
  const { values } = page.paging;
  const pages = values['Total-Pages'];
  if (pages !== undefined) return Math.max(pages, 1);
  const total = values['Total-Elements'];
  const size = values['Page-Size'];
  return total !== undefined && size !== undefined && size > 0 ? Math.max(Math.ceil(total / size), 1) : undefined;
}

/**
 * A LINK check's judgement of the probe page's links: `judge` reads them and follows those it
 * needs (each once, whichever check asks first) while the walk runs, and its failures are reported
 * after the walk's. Nothing is judged when the probe is the walk's own size (its pages are judged
 * already) or was not served (PAGE-ECHO reports it).
 */
function atSmallerSize(
  judge: (
    fail: Fail,
    probe: SizeProbe,
    land: (target: string) => Promise<Landing>,
    last: number | undefined,
    head: WalkHead,
  ) => Promise<void>,
): NonNullable<ListCheck['probe']> {
  return async (e, head) => {
    const probe = await smallerSizePage(e, head);
    if (probe.size === head.size || !inRange(probe.res)) return () => undefined;
    const found: [string, ExchangeRef | undefined][] = [];
    await judge(
      (m, ev) => void found.push([m, ev]),
      probe,
      (target) => landAt(e, head, target),
      lastAtSize(probe.page),
      head,
    );
    return (j) => {
      for (const [message, evidence] of found) j.fail(message, evidence);
    };
  };
}

/** What the probe page's link of `rel` is, as findings name it. */
const linkWhat = (head: WalkHead, probe: SizeProbe, rel: string, target: string) => (): string =>
  `${label(head, probe.page)}: rel="${rel}" ${target}`;

/**
 * Why the items without page (`a`, of Page-Size `sizeA`) are not page 1's (`b`, of the walk's
 * size), or undefined when they may be. At one Page-Size both pages hold the same items in the
 * same order. Without Page-Size on both, or at two sizes, the sizes are not known to be the same
 * (a body-only paging, DRF's PageNumberPagination, serves its default size to both when it reads
 * no `size`, or another one: issue 38 item 9): page 1 at any size is the start of the list, so
 * the shorter must begin the longer, and neither may be empty when the other is not.
 */
function otherItemsThanPageOne(
  a: PageItems,
  b: PageItems,
  sizeA: number | undefined,
  sizeB: number | undefined,
): string | undefined {
  const labelOf = (items: PageItems, i: number): string => (i < items.keys.length ? itemLabelAt(items, i) : 'none');
  const n = a.keys.length;
  const m = b.keys.length;
  const differs = (length: number): number => {
    for (let i = 0; i < length; i += 1) if (a.keys[i] !== b.keys[i] || keyKindAt(a, i) !== keyKindAt(b, i)) return i;
    return -1;
  };
  if (sizeA !== undefined && sizeA === sizeB) {
    if (sameItems(a, b)) return undefined;
    const at = differs(Math.min(n, m));
    return at >= 0
      ? `item ${at + 1}: ${labelOf(a, at)} vs ${labelOf(b, at)}`
      : `${n} items vs ${m}, at the same Page-Size ${sizeA}`;
  }
  if ((n === 0) !== (m === 0)) return `${n} items vs ${m}: page 1 of a list is empty only when the list is`;
  const at = differs(Math.min(n, m));
  return at < 0
    ? undefined
    : `item ${at + 1}: ${labelOf(a, at)} vs ${labelOf(b, at)}; at any size page 1 starts with the list's first items`;
}

// ── page judges: what each check sees of every page ────────────────────────────────────────

pageJudge({
  check: 'PAGE-HEADERS',
  start(head, out) {
    for (const problem of head.unparameterised.paging.problems)
      out.fail(`${label(head, head.unparameterised)}: ${problem}`, head.unparameterised.res);
  },
  page(_s, page, view, out) {
    for (const problem of page.paging.problems) out.fail(`${label(view.head, page)}: ${problem}`, page.res);
  },
});

pageJudge({
  check: 'PAGE-ECHO',
  start: () => undefined,
  // Every page of the walk echoes its page number and requested size (or states a cap).
  page(_s, page, { head }, out) {
    const { values } = page.paging;
    if (values['Page-Number'] !== undefined && values['Page-Number'] !== page.number)
      out.fail(`${label(head, page)}: expected Page-Number ${page.number}, got ${values['Page-Number']}`, page.res);
    if (values['Page-Size'] !== undefined && values['Page-Size'] > head.size)
      out.fail(
        `${label(head, page)}: expected Page-Size ${head.size} (or a cap below it), got ${values['Page-Size']}`,
        page.res,
      );
  },
});

pageJudge({
  check: 'PAGE-TOTALS',
  start: () => ({ judged: 0 }),
  page(state, page, { head }, out) {
    const { values } = page.paging;
    const total = values['Total-Elements'];
    const pages = values['Total-Pages'];
    const size = values['Page-Size'];
    if (total === undefined || pages === undefined || size === undefined) return; // PAGE-HEADERS reports it
    state.judged += 1;
    const expected = expectedTotalPages(total, size);
    if (!expected.includes(pages))
      out.fail(
        `${label(head, page)}: Total-Pages is ${pages}, expected ${expected.join(' or ')} = ceil(Total-Elements ${total} / Page-Size ${size})`,
        page.res,
      );
    const firstTotal = head.first.paging.values['Total-Elements'];
    if (page.number !== 1 && firstTotal !== undefined && firstTotal !== total)
      out.fail(`${label(head, page)}: Total-Elements is ${total}, but page 1 said ${firstTotal}`, page.res);
  },
  end(state, { head }, out) {
    if (state.judged === 0)
      out.error(
        `cannot check the totals of ${head.path}: no page carries Total-Elements, Total-Pages and Page-Size as integers (see PAGE-HEADERS)`,
        head.first.res,
      );
  },
});

/** Items held at most before the table is sized up: a hostile Total-Elements must not allocate gigabytes. */
const PRESIZE_LIMIT = 4_000_000;

pageJudge({
  check: 'PAGE-WALK',
  // Item keys as 64-bit digests, with the page each was first seen on; whether a page could not
  // be counted (said once a walk).
  start: (head) => ({
    seen: new DigestSet(Math.min(head.totalElements ?? 0, head.numbers.length * head.size, PRESIZE_LIMIT)),
    count: 0,
    lastRes: head.first.res,
    uncounted: false,
    repeatsNoted: false,
  }),
  page(state, page, { head }, out) {
    state.lastRes = page.res;
    if (!page.items) return out.fail(`${label(head, page)}: ${page.itemsProblem ?? 'no items'}`, page.res);
    const { items } = page;
    const { keys } = items;
    state.count += keys.length;
    for (let i = 0; i < keys.length; i += 1) {
      const kind = keyKindAt(items, i);
      const where = state.seen.addIfAbsent(keys[i] as string, page.number, kind);
      if (where === undefined) continue;
      // The same id twice is the same element twice. Items without an id are told apart only by
      // their content, and two elements may have the same ({"PaymentMethod": null} twice): a
      // repeat is no evidence, said once (the walk's counts and PAGE-ECHO still judge the pages).
      if (kind === KEY_ID)
        out.fail(`${label(head, page)}: item ${itemLabelAt(items, i)} was already on page ${where}`, page.res);
      else if (!state.repeatsNoted) {
        state.repeatsNoted = true;
        out.note(
          `${head.path}: items without an id are told apart by their content only, and some repeat (${itemLabelAt(items, i)}, page ${page.number}, first on page ${where}): two elements may be alike, so repeats are not judged`,
        );
      }
    }
    // Every page holds min(Page-Size, Total-Elements − (n − 1) × Page-Size) items by its own
    // headers (spec §Pagination): full before the last, the rest on the last. Without those
    // headers the count cannot be told: an error that points at PAGE-HEADERS, never a guess.
    const expected = expectedItemCount(page.paging, page.number);
    if ('unknown' in expected) {
      if (!state.uncounted)
        out.error(
          `${label(head, page)}: cannot tell how many items the page must hold: ${expected.unknown} (see PAGE-HEADERS)`,
          page.res,
        );
      state.uncounted = true;
      return;
    }
    const { count, size, total } = expected;
    if (keys.length === count) return;
    if (count === size)
      out.fail(
        `${label(head, page)}: a page before the last must be full: expected ${size} items (Page-Size), got ${keys.length}`,
        page.res,
      );
    else
      out.fail(
        `${label(head, page)}: page ${page.number} should hold the remaining ${count} of ${total} items (Total-Elements ${total} − ${page.number - 1} × Page-Size ${size}), got ${keys.length}`,
        page.res,
      );
  },
  end(state, { head, lastNumber }, out) {
    // A sample cannot be counted against Total-Elements; the pages it holds were checked above.
    const total = head.totalElements;
    if (!head.sample && total !== undefined && state.count !== total)
      out.fail(
        `walking all ${lastNumber} pages of ${head.path} yields ${state.count} items, but Total-Elements is ${total}`,
        state.lastRes,
      );
  },
});

pageJudge({
  check: 'LINK-SYNTAX',
  start(head, out) {
    for (const error of head.unparameterised.links.errors)
      out.fail(`${label(head, head.unparameterised)}: Link: ${error}`, head.unparameterised.res);
  },
  page(_s, page, { head }, out) {
    for (const error of page.links.errors) out.fail(`${label(head, page)}: Link: ${error}`, page.res);
  },
});

pageJudge({
  check: 'LINK-NEXT',
  start: () => undefined,
  page(_s, page, view, out) {
    const next = singleLink((m, ev) => out.fail(m, ev), view.head, page, 'next');
    if (page.number < view.lastNumber) {
      if (next === undefined)
        return out.fail(
          `${label(view.head, page)}: page ${page.number} of ${view.lastNumber} has no rel="next" link`,
          page.res,
        );
      return expectLinkTo(out, view, page, 'next', next, page.number + 1);
    }
    if (next !== undefined)
      out.fail(`${label(view.head, page)}: the last page has a rel="next" link (${next})`, page.res);
  },
});

pageJudge({
  check: 'LINK-PREV',
  start: () => undefined,
  page(_s, page, view, out) {
    const prev =
      singleLink((m, ev) => out.fail(m, ev), view.head, page, 'prev') ??
      singleLink((m, ev) => out.fail(m, ev), view.head, page, 'previous');
    if (prev === undefined) return;
    if (page.number === 1)
      return out.fail(`${label(view.head, page)}: page 1 has a rel="prev" link (${prev})`, page.res);
    return expectLinkTo(out, view, page, 'prev', prev, page.number - 1);
  },
});

pageJudge({
  check: 'LINK-FIRST-LAST',
  start: () => undefined,
  page(_s, page, view, out) {
    const lastPage = Math.max(view.head.totalPages ?? 1, 1);
    const first = singleLink((m, ev) => out.fail(m, ev), view.head, page, 'first');
    const last = singleLink((m, ev) => out.fail(m, ev), view.head, page, 'last');
    return allOf([
      first === undefined ? undefined : expectLinkTo(out, view, page, 'first', first, 1),
      last === undefined ? undefined : expectLinkTo(out, view, page, 'last', last, lastPage),
    ]);
  },
});

pageJudge({
  check: 'LINK-FOLLOW',
  start: () => undefined,
  // From page 1 along rel="next": every page once, in order, and nothing after the last.
  async end(_s, view, out) {
    const { head } = view;
    const lastPage = view.lastNumber;
    // Every page, and one more to catch a chain that runs on; with a --max-pages sample, as
    // many pages as the sample holds (the rest of the chain is not followed).
    const expectedPages = head.sample ? Math.min(head.sample.pages, lastPage) : head.numbers.length;
    const limit = head.sample ? expectedPages : expectedPages + 1;
    let page: Landing = await view.land(1);
    let previous: Landing | undefined;
    const visited: number[] = [];
    const seen = new Set<number>();
    let items = 0;
    /** The first step of the chain to a page out of order: the page whose rel="next" is wrong. */
    let wrongStep: { from: Landing; to: number; expected: number } | undefined;
    for (;;) {
      if (seen.has(page.number))
        return out.fail(
          `following rel="next" from page 1 of ${head.path} comes back to page ${pageName(page.number)} after ${chain(visited)}`,
          previous?.evidence ?? page.evidence,
        );
      visited.push(page.number);
      seen.add(page.number);
      if (wrongStep === undefined && previous !== undefined && page.number !== visited.length)
        wrongStep = { from: previous, to: page.number, expected: visited.length };
      items += page.items ?? 0;
      // A page without Page-Number is no place in the chain to go on from.
      if (page.number < 0 || page.next === undefined || visited.length >= limit) break;
      previous = page;
      const next = page.next;
      page = await view.land(next);
      // The chain ends where a client cannot follow it: the page with that link is cited.
      if (page.unfollowable !== undefined)
        return out.fail(
          `following rel="next" from page 1 of ${head.path}: page ${pageName(previous.number)}'s rel="next" ${next} ${page.unfollowable} (visits ${chain(visited)})`,
          previous.evidence,
        );
      if (page.status < 200 || page.status > 299) {
        const outside = typeof next === 'string' ? outsideBasePath(next, baseUrl()) : undefined;
        return out.fail(
          `following rel="next" from page ${pageName(visited.at(-1) ?? 1)} of ${head.path} leads to a ${page.status}${outside === undefined ? '' : ` (its target ${next} ${outside})`}`,
          page.evidence,
        );
      }
    }
    const inOrder = visited.length === expectedPages && visited.every((n, i) => n === i + 1);
    const along = `following rel="next" from page 1 of ${head.path}`;
    const wanted = `expected 1 → … → ${expectedPages}`;
    if (!inOrder && wrongStep) {
      const { from, to, expected } = wrongStep;
      const outside = typeof from.next === 'string' ? outsideBasePath(from.next, baseUrl()) : undefined;
      const leads = to < 0 ? 'a page without Page-Number' : `page ${to}`;
      out.fail(
        `${along}: page ${pageName(from.number)}'s rel="next" ${outside === undefined ? '' : `${from.next as string} ${outside}: it `}leads to ${leads}, expected page ${expected} (visits ${chain(visited)}, ${wanted})`,
        from.evidence ?? page.evidence,
      );
    } else if (!inOrder && visited.length < expectedPages)
      out.fail(
        `${along} stops at page ${pageName(visited.at(-1) ?? 1)}, which has no rel="next" (visits ${chain(visited)}, ${wanted})`,
        page.evidence,
      );
    else if (!inOrder)
      out.fail(
        `${along} goes on past the last page, ${expectedPages}: its rel="next" leads to page ${pageName(page.number)} (visits ${chain(visited)})`,
        previous?.evidence ?? page.evidence,
      );
    else if (!head.sample && head.totalElements !== undefined && items !== head.totalElements)
      out.fail(
        `following rel="next" through ${head.path} yields ${items} items, but Total-Elements is ${head.totalElements}`,
        page.evidence,
      );
  },
});

suite('pagination', () => {
  check('PAGE-HEADERS', (c) => onEveryList(c, { wholeList: false }));

  check('PAGE-DEFAULT', (c) =>
    onEveryList(c, {
      wholeList: false,
      judged: false,
      probe: (_e, head) =>
        Promise.resolve((e) => {
          const page = head.unparameterised;
          const number = page.paging.values['Page-Number'];
          if (number !== undefined && number !== 1)
            e.fail(`GET ${head.path} without page: expected Page-Number 1, got ${number}`, page.res);
          const first = head.first;
          const [a, b] = [page.items, first.items];
          if (a && b) {
            const problem = otherItemsThanPageOne(
              a,
              b,
              page.paging.values['Page-Size'],
              first.paging.values['Page-Size'],
            );
            if (problem !== undefined)
              e.fail(`GET ${head.path} without page returns other items than page=1 (${problem})`, page.res);
          } else if (number === undefined) {
            e.error(
              `cannot tell which page GET ${head.path} without page returns: no Page-Number, and its items cannot be compared with page=1's (see PAGE-HEADERS)`,
              page.res,
            );
          }
        }),
    }),
  );

  check('PAGE-ECHO', (c) =>
    onEveryList(c, {
      // A smaller size than the walk's, on page 2 when there is one (shared with the LINK checks);
      // a size a client asks for (realisticSize); and a size far beyond any cap. The larger two
      // must be refused (4xx: a validation maximum) or served with Page-Size stating a cap.
      probe: async (e, head) => {
        const huge = 1_000_000;
        const realistic = realisticSize(head);
        const ask = (size: number, why: string): Promise<HttpResponse> =>
          getUrl(
            e.send,
            listUrl(e, head, { page: '1', size: String(size) }),
            e.bearer(),
            `GET ${head.path} with size ${size}${why}`,
            endpointHeaders(head.endpoint.spec),
          );
        const [small, big, real] = await Promise.all([
          smallerSizePage(e, head),
          ask(huge, ''),
          realistic === undefined ? undefined : ask(realistic, ' (a size a client asks for)'),
        ]);
        return (j) => {
          // A Page-Size that echoes the request (or states a cap) is true only if the page holds
          // what it promises: a cap it does not state shows only in the count (spec §Pagination:
          // Page-Size is the number of elements per page).
          const counted = (r: HttpResponse, page: number, label: string): void => {
            const parsed = r.json();
            const extracted = parsed.ok
              ? extractItems(parsed.value, head.endpoint.spec?.itemsProperty)
              : { problem: parsed.error };
            if (!('items' in extracted))
              return j.error(`${label}: cannot count the page's items: ${extracted.problem}`, r);
            const problem = countProblem(r, page, extracted.items.length);
            if (typeof problem === 'object')
              j.error(
                `${label}: cannot tell how many items the page must hold: ${problem.unknown} (see PAGE-HEADERS)`,
                r,
              );
            else if (problem !== undefined) j.fail(`${label}: ${problem}`, r);
          };
          const { number, size, res } = small;
          const what = `GET ${head.path}?page=${number}&size=${size}`;
          if (!inRange(res)) j.fail(`${what}: expected a 2xx page, got ${res.status}`, res);
          else {
            const { values } = readPagingHeaders(res);
            if (values['Page-Number'] !== number)
              j.fail(`${what}: expected Page-Number ${number}, got ${values['Page-Number'] ?? 'none'}`, res);
            const pageSize = values['Page-Size'];
            if (pageSize === undefined || pageSize > size || pageSize < 1)
              j.fail(`${what}: expected Page-Size ${size}, got ${pageSize ?? 'none'}`, res);
            else {
              if (pageSize < size) j.note(`${head.path}: the server caps size at ${pageSize}`);
              counted(res, number, what);
            }
          }
          // Refused (a validation maximum) or served, with Page-Size the size asked for or the cap, and as many items.
          const large = (r: HttpResponse, asked: number): void => {
            const largeWhat = `GET ${head.path}?page=1&size=${asked}`;
            if (!expectNoServerError(j, r, largeWhat)) return;
            if (!inRange(r)) {
              if (asked !== huge)
                j.note(
                  `${largeWhat}: refused with ${r.status} (a size maximum below ${asked}): a silent cap under it cannot be seen`,
                );
              return;
            }
            const pageSize = readPagingHeaders(r).values['Page-Size'];
            if (pageSize === undefined || pageSize > asked || pageSize < 1)
              return j.fail(
                `${largeWhat}: expected Page-Size ${asked} or the server's cap, got ${pageSize ?? 'none'}`,
                r,
              );
            if (pageSize < asked) j.note(`${head.path}: the server caps size at ${pageSize}`);
            counted(r, 1, largeWhat);
          };
          if (real && realistic !== undefined) large(real, realistic);
          large(big, huge);
        };
      },
    }),
  );

  check('PAGE-TOTALS', (c) => onEveryList(c, {}));

  check('PAGE-WALK', (c) => onEveryList(c, {}));

  check('PAGE-PAST-END', (c) =>
    onEveryList(c, {
      judged: false,
      probe: async (e, head) => {
        const beyond = Math.max(head.totalPages ?? 0, 1) + 1;
        const what = `GET ${head.path}?page=${beyond}&size=${head.size} (past the last page)`;
        const res = await getUrl(
          e.send,
          listUrl(e, head, { page: String(beyond), size: String(head.size) }),
          e.bearer(),
          what,
          endpointHeaders(head.endpoint.spec),
        );
        return (j) => {
          if (res.status === 404) return;
          if (!inRange(res)) return j.fail(`${what}: expected an empty page or 404, got ${res.status}`, res);
          const parsed = res.json();
          const extracted = parsed.ok
            ? extractItems(parsed.value, head.endpoint.spec?.itemsProperty)
            : { problem: parsed.error };
          if (!('items' in extracted)) j.fail(`${what}: ${extracted.problem}`, res);
          else if (extracted.items.length > 0)
            j.fail(`${what}: expected an empty page or 404, got ${extracted.items.length} items`, res);
        };
      },
    }),
  );

  check('PAGE-INVALID-PARAMS', (c) =>
    onEveryList(c, {
      wholeList: false,
      judged: false,
      probe: async (e, head) => {
        const probes: { param: 'page' | 'size'; value: string }[] = [
          ...['0', '-1', 'abc', '1.5', ''].map((value) => ({ param: 'page' as const, value })),
          ...['0', '-1', 'abc', '1.5', ''].map((value) => ({ param: 'size' as const, value })),
        ];
        // Sent together, judged in order.
        const answers = await Promise.all(
          probes.map((probe) => {
            const params =
              probe.param === 'page'
                ? { page: probe.value, size: String(head.size) }
                : { page: '1', size: probe.value };
            return getUrl(
              e.send,
              listUrl(e, head, params),
              e.bearer(),
              `GET ${head.path} with ${probe.param}=${JSON.stringify(probe.value)}`,
              endpointHeaders(head.endpoint.spec),
            );
          }),
        );
        return (j) =>
          probes.forEach((probe, i) => {
            const res = answers[i] as HttpResponse;
            const what = `GET ${head.path} with ${probe.param}=${JSON.stringify(probe.value)}`;
            if (res.status >= 400 && res.status < 500) return;
            if (!inRange(res))
              return j.fail(
                `${what}: expected a 4xx (or a page with the value clamped), got ${res.status}${res.status >= 500 ? ' (a server error for a client mistake)' : ''}`,
                res,
              );
            // Served anyway: only acceptable as a clamp to a valid value the headers state.
            const header = probe.param === 'page' ? 'Page-Number' : 'Page-Size';
            const value = readPagingHeaders(res).values[header];
            // Without the header on the list's own pages (PAGE-HEADERS' failure), a clamp cannot be told from acceptance: not this rule's evidence.
            if (value === undefined && head.first.paging.values[header] === undefined)
              return j.error(
                `${what}: served, and whether the value was clamped cannot be told: the list's pages carry no ${header} (see PAGE-HEADERS)`,
                res,
              );
            if (value === undefined || value < 1)
              j.fail(
                `${what}: served with ${header} ${value ?? 'missing'}; expected a 4xx or a clamp to a valid ${probe.param}`,
                res,
              );
          });
      },
    }),
  );

  check('LINK-SYNTAX', (c) => onEveryList(c, { wholeList: false }));

  check('LINK-NEXT', (c) =>
    onEveryList(c, {
      probe: atSmallerSize(async (fail, probe, land, last, head) => {
        const next = singleLink(fail, head, probe.page, 'next');
        if (last !== undefined && probe.number >= last) {
          if (next !== undefined)
            fail(`${label(head, probe.page)}: the last page has a rel="next" link (${next})`, probe.page.res);
          return;
        }
        if (next === undefined) {
          if (last !== undefined)
            fail(`${label(head, probe.page)}: page ${probe.number} of ${last} has no rel="next" link`, probe.page.res);
          return;
        }
        judgeLanding(fail, linkWhat(head, probe, 'next', next), probe.page, next, await land(next), probe.number + 1);
      }),
    }),
  );

  check('LINK-PREV', (c) =>
    onEveryList(c, {
      probe: atSmallerSize(async (fail, probe, land, _last, head) => {
        const prev = singleLink(fail, head, probe.page, 'prev') ?? singleLink(fail, head, probe.page, 'previous');
        if (prev === undefined) return;
        if (probe.number === 1)
          return fail(`${label(head, probe.page)}: page 1 has a rel="prev" link (${prev})`, probe.page.res);
        judgeLanding(fail, linkWhat(head, probe, 'prev', prev), probe.page, prev, await land(prev), probe.number - 1);
      }),
    }),
  );

  check('LINK-FIRST-LAST', (c) =>
    onEveryList(c, {
      probe: atSmallerSize(async (fail, probe, land, last, head) => {
        const first = singleLink(fail, head, probe.page, 'first');
        const lastLink = singleLink(fail, head, probe.page, 'last');
        const [toFirst, toLast] = await Promise.all([
          first === undefined ? undefined : land(first),
          lastLink === undefined || last === undefined ? undefined : land(lastLink),
        ]);
        if (first !== undefined && toFirst)
          judgeLanding(fail, linkWhat(head, probe, 'first', first), probe.page, first, toFirst, 1);
        if (lastLink !== undefined && last !== undefined && toLast)
          judgeLanding(fail, linkWhat(head, probe, 'last', lastLink), probe.page, lastLink, toLast, last);
      }),
    }),
  );

  check('LINK-FOLLOW', (c) =>
    onEveryList(c, {
      // From the probe page, its rel="next" followed once: the next page at the same size.
      probe: atSmallerSize(async (fail, probe, land, last, head) => {
        const next = linksWithRel(probe.page.links, 'next')[0]?.target;
        if (next === undefined || (last !== undefined && probe.number >= last)) return;
        const what = (): string => `following rel="next" from ${label(head, probe.page)}: ${next}`;
        judgeLanding(fail, what, probe.page, next, await land(next), probe.number + 1);
      }),
    }),
  );
});
