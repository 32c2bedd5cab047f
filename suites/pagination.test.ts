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
import { endpointHeaders, listEndpoints, notValidByDocument, onEach } from '../src/battery/endpoints.js';
import { expectNoServerError } from '../src/battery/expect.js';
import { extractItems, itemLabelAt, keyKindAt, sameItems } from '../src/battery/list-items.js';
import { expectedItemCount, expectedTotalPages, listUrl, readPagingHeaders, type WalkPage } from '../src/battery/paging.js';
import { getWalk, getWalkHead, pageJudge, type Landing, type WalkFindings, type WalkHead, type WalkView } from '../src/battery/walk.js';
import { getUrl } from '../src/api/requests.js';
import type { HttpResponse } from '../src/http/client.js';
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
  if (lists.length === 0) c.skip('no list endpoint configured: pass --openapi or --paged-path (e.g. --paged-path shipments)');
  const { tenantId, tenantProblem } = c.settings;
  if (tenantId === undefined) return c.error(`no tenant under test: ${tenantProblem ?? 'none given'} (pass --tenant-id)`);
  await onEach(c, lists, async (e, endpoint) => {
    const path = await endpoint.path(e);
    if (typeof path !== 'string') return e.skipEndpoint(path.unresolved);
    const head = await getWalkHead(e, endpoint);
    const first = head.first;
    if (first.res.status < 200 || first.res.status > 299) {
      const unproven = notValidByDocument(endpoint, first.res);
      return unproven !== undefined ? e.skipEndpoint(unproven) : e.error(`cannot check ${head.path}: page 1 answered ${first.res.status} (see TENANT-ACCESS)`, first.res);
    }
    if (how.wholeList !== false && head.problems.length > 0) return e.error(`cannot walk ${head.path}: ${head.problems.join('; ')}`, first.res);
    if (head.sample) e.note(`judged on a sample of ${head.sample.pages} of ${head.sample.of} pages (--max-pages): the first, the last and some between`);
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
  const adapted = backoffs > 0 ? `, backed off ${backoffs} time${backoffs === 1 ? '' : 's'}${throttled > 0 ? ` (${throttled} answers 429/503)` : ''}` : '';
  return `${walk.pagesRead} pages, ${walk.itemsRead} items read at concurrency ${start}${peak > start ? ` to ${peak}` : ''} (at most ${ceiling}${adapted})`;
}

function label(head: WalkHead, page: Pick<WalkPage, 'url'>): string {
  const query = new URL(page.url).search;
  return `GET ${head.path}${query}`;
}

/** The single target of `rel` on a page; several different ones are a failure. */
function singleLink(out: WalkFindings, head: WalkHead, page: WalkPage, rel: string): string | undefined {
  const links = linksWithRel(page.links, rel);
  const first = links[0]?.target;
  if (links.some((l) => l.target !== first)) {
    const targets = [...new Set(links.map((l) => l.target))];
    out.fail(`${label(head, page)}: ${targets.length} different rel="${rel}" links (${targets.join(', ')})`, page.res);
  }
  return first;
}

/** A landing's page number as a finding names it: -1 is a page without Page-Number. */
const pageName = (n: number): string => (n < 0 ? '(no Page-Number)' : String(n));

/** A chain of page numbers as a reader can take it in, however long. */
function chain(pages: readonly number[]): string {
  return pages.length <= 12 ? pages.join(' → ') : `${pages.slice(0, 5).join(' → ')} → … → ${pages.slice(-5).join(' → ')} (${pages.length} pages)`;
}

/**
 * The link target answers page `expected` of the same size, or a failure is recorded. It cites
 * the page whose Link header is wrong when the link leads to another page or cannot be followed
 * (its curl shows the link), and the page it landed on when that answers an error or another
 * size (its curl shows that); the page with the link when the landing is no longer known.
 */
function expectLinkTo(out: WalkFindings, view: WalkView, page: WalkPage, rel: string, target: string, expected: number): void | Promise<void> {
  // Written only for a finding: every page's links are judged, and a label parses the page's URL.
  const what = (): string => `${label(view.head, page)}: rel="${rel}" ${target}`;
  const pageSize = page.paging.values['Page-Size'];
  const judge = (landed: Landing): void => {
    // Not on the API's origin (spec §Pagination: links to other pages of the API): not requested,
    // so not a page to compare; the link itself is wrong.
    if (landed.unfollowable !== undefined) return out.fail(`${what()} ${landed.unfollowable}`, page.res);
    const evidence = landed.evidence ?? page.res;
    if (landed.status < 200 || landed.status > 299) return out.fail(`${what()} answers ${landed.status}, expected page ${expected}`, evidence);
    if (landed.number !== expected) return out.fail(`${what()} leads to page ${landed.number < 0 ? '(no Page-Number)' : landed.number}, expected page ${expected}`, page.res);
    if (landed.pageSize !== undefined && pageSize !== undefined && landed.pageSize !== pageSize) out.fail(`${what()} leads to page ${expected} with Page-Size ${landed.pageSize}, not this page's ${pageSize}`, evidence);
  };
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

// ── page judges: what each check sees of every page ────────────────────────────────────────

pageJudge({
  check: 'PAGE-HEADERS',
  start(head, out) {
    for (const problem of head.unparameterised.paging.problems) out.fail(`${label(head, head.unparameterised)}: ${problem}`, head.unparameterised.res);
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
    if (values['Page-Number'] !== undefined && values['Page-Number'] !== page.number) out.fail(`${label(head, page)}: expected Page-Number ${page.number}, got ${values['Page-Number']}`, page.res);
    if (values['Page-Size'] !== undefined && values['Page-Size'] > head.size) out.fail(`${label(head, page)}: expected Page-Size ${head.size} (or a cap below it), got ${values['Page-Size']}`, page.res);
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
    if (!expected.includes(pages)) out.fail(`${label(head, page)}: Total-Pages is ${pages}, expected ${expected.join(' or ')} = ceil(Total-Elements ${total} / Page-Size ${size})`, page.res);
    const firstTotal = head.first.paging.values['Total-Elements'];
    if (page.number !== 1 && firstTotal !== undefined && firstTotal !== total) out.fail(`${label(head, page)}: Total-Elements is ${total}, but page 1 said ${firstTotal}`, page.res);
  },
  end(state, { head }, out) {
    if (state.judged === 0) out.error(`cannot check the totals of ${head.path}: no page carries Total-Elements, Total-Pages and Page-Size as integers (see PAGE-HEADERS)`, head.first.res);
  },
});

/** Items held at most before the table is sized up: a hostile Total-Elements must not allocate gigabytes. */
const PRESIZE_LIMIT = 4_000_000;

pageJudge({
  check: 'PAGE-WALK',
  // Item keys as 64-bit digests, with the page each was first seen on; whether a page could not
  // be counted (said once a walk).
  start: (head) => ({ seen: new DigestSet(Math.min(head.totalElements ?? 0, head.numbers.length * head.size, PRESIZE_LIMIT)), count: 0, lastRes: head.first.res, uncounted: false }),
  page(state, page, { head }, out) {
    state.lastRes = page.res;
    if (!page.items) return out.fail(`${label(head, page)}: ${page.itemsProblem ?? 'no items'}`, page.res);
    const { items } = page;
    const { keys } = items;
    state.count += keys.length;
    for (let i = 0; i < keys.length; i += 1) {
      const where = state.seen.addIfAbsent(keys[i] as string, page.number, keyKindAt(items, i));
      if (where !== undefined) out.fail(`${label(head, page)}: item ${itemLabelAt(items, i)} was already on page ${where}`, page.res);
    }
    // Every page holds min(Page-Size, Total-Elements − (n − 1) × Page-Size) items by its own
    // headers (spec §Pagination): full before the last, the rest on the last. Without those
    // headers the count cannot be told: an error that points at PAGE-HEADERS, never a guess.
    const expected = expectedItemCount(page.paging, page.number);
    if ('unknown' in expected) {
      if (!state.uncounted) out.error(`${label(head, page)}: cannot tell how many items the page must hold: ${expected.unknown} (see PAGE-HEADERS)`, page.res);
      state.uncounted = true;
      return;
    }
    const { count, size, total } = expected;
    if (keys.length === count) return;
    if (count === size) out.fail(`${label(head, page)}: a page before the last must be full: expected ${size} items (Page-Size), got ${keys.length}`, page.res);
    else out.fail(`${label(head, page)}: page ${page.number} should hold the remaining ${count} of ${total} items (Total-Elements ${total} − ${page.number - 1} × Page-Size ${size}), got ${keys.length}`, page.res);
  },
  end(state, { head, lastNumber }, out) {
    // A sample cannot be counted against Total-Elements; the pages it holds were checked above.
    const total = head.totalElements;
    if (!head.sample && total !== undefined && state.count !== total) out.fail(`walking all ${lastNumber} pages of ${head.path} yields ${state.count} items, but Total-Elements is ${total}`, state.lastRes);
  },
});

pageJudge({
  check: 'LINK-SYNTAX',
  start(head, out) {
    for (const error of head.unparameterised.links.errors) out.fail(`${label(head, head.unparameterised)}: Link: ${error}`, head.unparameterised.res);
  },
  page(_s, page, { head }, out) {
    for (const error of page.links.errors) out.fail(`${label(head, page)}: Link: ${error}`, page.res);
  },
});

pageJudge({
  check: 'LINK-NEXT',
  start: () => undefined,
  page(_s, page, view, out) {
    const next = singleLink(out, view.head, page, 'next');
    if (page.number < view.lastNumber) {
      if (next === undefined) return out.fail(`${label(view.head, page)}: page ${page.number} of ${view.lastNumber} has no rel="next" link`, page.res);
      return expectLinkTo(out, view, page, 'next', next, page.number + 1);
    }
    if (next !== undefined) out.fail(`${label(view.head, page)}: the last page has a rel="next" link (${next})`, page.res);
  },
});

pageJudge({
  check: 'LINK-PREV',
  start: () => undefined,
  page(_s, page, view, out) {
    const prev = singleLink(out, view.head, page, 'prev') ?? singleLink(out, view.head, page, 'previous');
    if (prev === undefined) return;
    if (page.number === 1) return out.fail(`${label(view.head, page)}: page 1 has a rel="prev" link (${prev})`, page.res);
    return expectLinkTo(out, view, page, 'prev', prev, page.number - 1);
  },
});

pageJudge({
  check: 'LINK-FIRST-LAST',
  start: () => undefined,
  page(_s, page, view, out) {
    const lastPage = Math.max(view.head.totalPages ?? 1, 1);
    const first = singleLink(out, view.head, page, 'first');
    const last = singleLink(out, view.head, page, 'last');
    return allOf([first === undefined ? undefined : expectLinkTo(out, view, page, 'first', first, 1), last === undefined ? undefined : expectLinkTo(out, view, page, 'last', last, lastPage)]);
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
      if (seen.has(page.number)) return out.fail(`following rel="next" from page 1 of ${head.path} comes back to page ${page.number} after ${chain(visited)}`, previous?.evidence ?? page.evidence);
      visited.push(page.number);
      seen.add(page.number);
      if (wrongStep === undefined && previous !== undefined && page.number !== visited.length) wrongStep = { from: previous, to: page.number, expected: visited.length };
      items += page.items ?? 0;
      if (page.next === undefined || visited.length >= limit) break;
      previous = page;
      const next = page.next;
      page = await view.land(next);
      // The chain ends where a client cannot follow it: the page with that link is cited.
      if (page.unfollowable !== undefined) return out.fail(`following rel="next" from page 1 of ${head.path}: page ${pageName(previous.number)}'s rel="next" ${next} ${page.unfollowable} (visits ${chain(visited)})`, previous.evidence);
      if (page.status < 200 || page.status > 299) return out.fail(`following rel="next" from page ${visited.at(-1)} of ${head.path} leads to a ${page.status}`, page.evidence);
    }
    const inOrder = visited.length === expectedPages && visited.every((n, i) => n === i + 1);
    const along = `following rel="next" from page 1 of ${head.path}`;
    const wanted = `expected 1 → … → ${expectedPages}`;
    if (!inOrder && wrongStep) out.fail(`${along}: page ${wrongStep.from.number}'s rel="next" leads to page ${wrongStep.to < 0 ? '(no Page-Number)' : wrongStep.to}, expected page ${wrongStep.expected} (visits ${chain(visited)}, ${wanted})`, wrongStep.from.evidence ?? page.evidence);
    else if (!inOrder && visited.length < expectedPages) out.fail(`${along} stops at page ${visited.at(-1)}, which has no rel="next" (visits ${chain(visited)}, ${wanted})`, page.evidence);
    else if (!inOrder) out.fail(`${along} goes on past the last page, ${expectedPages}: its rel="next" leads to page ${page.number} (visits ${chain(visited)})`, previous?.evidence ?? page.evidence);
    else if (!head.sample && head.totalElements !== undefined && items !== head.totalElements) out.fail(`following rel="next" through ${head.path} yields ${items} items, but Total-Elements is ${head.totalElements}`, page.evidence);
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
          if (number !== undefined && number !== 1) e.fail(`GET ${head.path} without page: expected Page-Number 1, got ${number}`, page.res);
          const first = head.first;
          // The items can be compared only when both requests use the same page size.
          const comparable = first.items && page.items && page.paging.values['Page-Size'] === first.paging.values['Page-Size'];
          if (comparable && first.items && page.items) {
            const [a, b] = [page.items, first.items];
            const firstOf = (items: typeof a): string => (items.keys.length === 0 ? 'none' : itemLabelAt(items, 0));
            if (!sameItems(a, b)) e.fail(`GET ${head.path} without page returns other items than page=1 (first: ${firstOf(a)} vs ${firstOf(b)})`, page.res);
          } else if (number === undefined) {
            e.error(`cannot tell which page GET ${head.path} without page returns: no Page-Number, and its items cannot be compared with page=1's (see PAGE-HEADERS)`, page.res);
          }
        }),
    }),
  );

  check('PAGE-ECHO', (c) =>
    onEveryList(c, {
      // A smaller size than the walk's, on page 2 when there is one; and a size far beyond any
      // cap, which must be refused (4xx) or served with Page-Size stating the cap.
      probe: async (e, head) => {
        const size = head.size > 1 ? Math.floor(head.size / 2) : 1;
        const pageNumber = (head.totalPages ?? 0) >= 2 ? 2 : 1;
        const huge = 1_000_000;
        const [res, big] = await Promise.all([
          getUrl(e.send, listUrl(e, head, { page: String(pageNumber), size: String(size) }), e.bearer(), `GET ${head.path} page ${pageNumber} with size ${size}`, endpointHeaders(head.endpoint.spec)),
          getUrl(e.send, listUrl(e, head, { page: '1', size: String(huge) }), e.bearer(), `GET ${head.path} with size ${huge}`, endpointHeaders(head.endpoint.spec)),
        ]);
        return (j) => {
          const what = `GET ${head.path}?page=${pageNumber}&size=${size}`;
          if (!inRange(res)) return j.fail(`${what}: expected a 2xx page, got ${res.status}`, res);
          const { values } = readPagingHeaders(res);
          if (values['Page-Number'] !== pageNumber) j.fail(`${what}: expected Page-Number ${pageNumber}, got ${values['Page-Number'] ?? 'none'}`, res);
          if (values['Page-Size'] === undefined || values['Page-Size'] > size || values['Page-Size'] < 1) j.fail(`${what}: expected Page-Size ${size}, got ${values['Page-Size'] ?? 'none'}`, res);
          else if (values['Page-Size'] < size) j.note(`${head.path}: the server caps size at ${values['Page-Size']}`);
          // A Page-Size that echoes the request (or states a cap) is true only if the page holds
          // what it promises: a cap it does not state shows only in the count (spec §Pagination:
          // Page-Size is the number of elements per page).
          const counted = (r: HttpResponse, page: number, label: string, pageSize: number | undefined): void => {
            if (pageSize === undefined || pageSize < 1) return; // the echo above failed already
            const parsed = r.json();
            const extracted = parsed.ok ? extractItems(parsed.value, head.endpoint.spec?.itemsProperty) : { problem: parsed.error };
            if (!('items' in extracted)) return j.error(`${label}: cannot count the page's items: ${extracted.problem}`, r);
            const problem = countProblem(r, page, extracted.items.length);
            if (typeof problem === 'object') j.error(`${label}: cannot tell how many items the page must hold: ${problem.unknown} (see PAGE-HEADERS)`, r);
            else if (problem !== undefined) j.fail(`${label}: ${problem}`, r);
          };
          if (values['Page-Size'] !== undefined && values['Page-Size'] <= size) counted(res, pageNumber, what, values['Page-Size']);
          const bigWhat = `GET ${head.path}?page=1&size=${huge}`;
          if (!expectNoServerError(j, big, bigWhat) || !inRange(big)) return;
          const bigSize = readPagingHeaders(big).values['Page-Size'];
          if (bigSize === undefined || bigSize > huge || bigSize < 1) return j.fail(`${bigWhat}: expected Page-Size ${huge} or the server's cap, got ${bigSize ?? 'none'}`, big);
          if (bigSize < huge) j.note(`${head.path}: the server caps size at ${bigSize}`);
          counted(big, 1, bigWhat, bigSize);
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
        const res = await getUrl(e.send, listUrl(e, head, { page: String(beyond), size: String(head.size) }), e.bearer(), what, endpointHeaders(head.endpoint.spec));
        return (j) => {
          if (res.status === 404) return;
          if (!inRange(res)) return j.fail(`${what}: expected an empty page or 404, got ${res.status}`, res);
          const parsed = res.json();
          const extracted = parsed.ok ? extractItems(parsed.value, head.endpoint.spec?.itemsProperty) : { problem: parsed.error };
          if (!('items' in extracted)) j.fail(`${what}: ${extracted.problem}`, res);
          else if (extracted.items.length > 0) j.fail(`${what}: expected an empty page or 404, got ${extracted.items.length} items`, res);
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
            const params = probe.param === 'page' ? { page: probe.value, size: String(head.size) } : { page: '1', size: probe.value };
            return getUrl(e.send, listUrl(e, head, params), e.bearer(), `GET ${head.path} with ${probe.param}=${JSON.stringify(probe.value)}`, endpointHeaders(head.endpoint.spec));
          }),
        );
        return (j) =>
          probes.forEach((probe, i) => {
            const res = answers[i] as HttpResponse;
            const what = `GET ${head.path} with ${probe.param}=${JSON.stringify(probe.value)}`;
            if (res.status >= 400 && res.status < 500) return;
            if (!inRange(res)) return j.fail(`${what}: expected a 4xx (or a page with the value clamped), got ${res.status}${res.status >= 500 ? ' (a server error for a client mistake)' : ''}`, res);
            // Served anyway: only acceptable as a clamp to a valid value the headers state.
            const header = probe.param === 'page' ? 'Page-Number' : 'Page-Size';
            const value = readPagingHeaders(res).values[header];
            if (value === undefined || value < 1) j.fail(`${what}: served with ${header} ${value ?? 'missing'}; expected a 4xx or a clamp to a valid ${probe.param}`, res);
          });
      },
    }),
  );

  check('LINK-SYNTAX', (c) => onEveryList(c, { wholeList: false }));

  check('LINK-NEXT', (c) => onEveryList(c, {}));

  check('LINK-PREV', (c) => onEveryList(c, {}));

  check('LINK-FIRST-LAST', (c) => onEveryList(c, {}));

  check('LINK-FOLLOW', (c) => onEveryList(c, {}));
});
