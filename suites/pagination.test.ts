/**
 * pagination: paged lists (spec §Pagination, §Limits): the page/size parameters, the
 * Total-Pages, Page-Size, Page-Number, Total-Elements headers and Web Links (RFC 8288).
 * Every check runs on every list endpoint, over one shared walk of each (src/battery/paging.ts).
 */
import type { CheckContext } from '../src/battery/check.js';
import { check, suite } from '../src/battery/check.js';
import { expectNoServerError } from '../src/battery/expect.js';
import { extractItems, keyLabel } from '../src/battery/list-items.js';
import { listEndpoints, onEach } from '../src/battery/endpoints.js';
import { expectedTotalPages, followLink, getWalk, listUrl, readPagingHeaders, type Walk, type WalkPage } from '../src/battery/paging.js';
import { getUrl } from '../src/api/requests.js';
import { linksWithRel } from '../src/http/link.js';

/**
 * Runs `body` on the walk of every list endpoint, each through its own context (`CheckContext.at`),
 * so the report gives every list its own outcome; skips when there is no list.
 */
async function onEveryList(c: CheckContext, body: (e: CheckContext, walk: Walk) => Promise<void> | void, needsWholeList = true): Promise<void> {
  const lists = listEndpoints(c);
  if (lists.length === 0) c.skip('no list endpoint configured: pass --openapi or --paged-path (e.g. --paged-path shipments)');
  const { tenantId, tenantProblem } = c.settings;
  if (tenantId === undefined) return c.error(`no tenant under test: ${tenantProblem ?? 'none given'} (pass --tenant-id)`);
  await onEach(c, lists, async (e, endpoint) => {
    const path = await endpoint.path(e);
    if (typeof path !== 'string') return e.skipEndpoint(path.unresolved);
    const walk = await getWalk(e, endpoint);
    const first = walk.pages[0];
    if (first && (first.res.status < 200 || first.res.status > 299)) return e.error(`cannot check ${walk.path}: page 1 answered ${first.res.status} (see TENANT-ACCESS)`, first.res);
    if (needsWholeList && walk.problems.length > 0) return e.error(`cannot walk ${walk.path}: ${walk.problems.join('; ')}`, first?.res);
    if (walk.sample) e.note(`judged on a sample of ${walk.sample.pages} of ${walk.sample.of} pages (--max-pages): the first, the last and some between`);
    await body(e, walk);
  });
}

function label(walk: Walk, page: WalkPage): string {
  const query = new URL(page.url).search;
  return `GET ${walk.path}${query}`;
}

/** The single target of `rel` on a page; several different ones are a failure. */
function singleLink(c: CheckContext, walk: Walk, page: WalkPage, rel: string): string | undefined {
  const targets = [...new Set(linksWithRel(page.links, rel).map((l) => l.target))];
  if (targets.length > 1) c.fail(`${label(walk, page)}: ${targets.length} different rel="${rel}" links (${targets.join(', ')})`, page.res);
  return targets[0];
}

/** The link target answers page `expected` of the same size, or a failure is recorded. */
async function expectLinkTo(c: CheckContext, walk: Walk, page: WalkPage, rel: string, target: string, expected: number): Promise<void> {
  const landed = await followLink(c, walk, target);
  const what = `${label(walk, page)}: rel="${rel}" ${target}`;
  if (landed.res.status < 200 || landed.res.status > 299) return c.fail(`${what} answers ${landed.res.status}, expected page ${expected}`, landed.res);
  if (landed.number !== expected) return c.fail(`${what} leads to page ${landed.number < 0 ? '(no Page-Number)' : landed.number}, expected page ${expected}`, landed.res);
  const size = landed.paging.values['Page-Size'];
  const pageSize = page.paging.values['Page-Size'];
  if (size !== undefined && pageSize !== undefined && size !== pageSize) c.fail(`${what} leads to page ${expected} with Page-Size ${size}, not this page's ${pageSize}`, landed.res);
}

suite('pagination', () => {
  check('PAGE-HEADERS', (c) =>
    onEveryList(
      c,
      (e, walk) => {
        for (const page of [walk.unparameterised, ...walk.pages]) for (const problem of page.paging.problems) e.fail(`${label(walk, page)}: ${problem}`, page.res);
      },
      false,
    ),
  );

  check('PAGE-DEFAULT', (c) =>
    onEveryList(
      c,
      (e, walk) => {
        const page = walk.unparameterised;
        const number = page.paging.values['Page-Number'];
        if (number !== undefined && number !== 1) e.fail(`GET ${walk.path} without page: expected Page-Number 1, got ${number}`, page.res);
        const first = walk.pages[0];
        // The items can be compared only when both requests use the same page size.
        const comparable = first?.items && page.items && page.paging.values['Page-Size'] === first.paging.values['Page-Size'];
        if (comparable && first.items && page.items) {
          const [a, b] = [page.items.keys, first.items.keys];
          if (a.join('\n') !== b.join('\n')) e.fail(`GET ${walk.path} without page returns other items than page=1 (first: ${a[0] === undefined ? 'none' : keyLabel(a[0])} vs ${b[0] === undefined ? 'none' : keyLabel(b[0])})`, page.res);
        } else if (number === undefined) {
          e.error(`cannot tell which page GET ${walk.path} without page returns: no Page-Number, and its items cannot be compared with page=1's (see PAGE-HEADERS)`, page.res);
        }
      },
      false,
    ),
  );

  check('PAGE-ECHO', (c) =>
    onEveryList(c, async (e, walk) => {
      // Every page of the walk echoes its page number and requested size (or states a cap).
      for (const page of walk.pages) {
        const { values } = page.paging;
        if (values['Page-Number'] !== undefined && values['Page-Number'] !== page.number) e.fail(`${label(walk, page)}: expected Page-Number ${page.number}, got ${values['Page-Number']}`, page.res);
        if (values['Page-Size'] !== undefined && values['Page-Size'] > walk.size) e.fail(`${label(walk, page)}: expected Page-Size ${walk.size} (or a cap below it), got ${values['Page-Size']}`, page.res);
      }
      // A smaller size than the walk's, on page 2 when there is one.
      const size = walk.size > 1 ? Math.floor(walk.size / 2) : 1;
      const pageNumber = (walk.totalPages ?? 0) >= 2 ? 2 : 1;
      const res = await getUrl(e.send, listUrl(e, walk, { page: String(pageNumber), size: String(size) }), e.bearer(), `GET ${walk.path} page ${pageNumber} with size ${size}`);
      const what = `GET ${walk.path}?page=${pageNumber}&size=${size}`;
      if (res.status < 200 || res.status > 299) return e.fail(`${what}: expected a 2xx page, got ${res.status}`, res);
      const { values } = readPagingHeaders(res);
      if (values['Page-Number'] !== pageNumber) e.fail(`${what}: expected Page-Number ${pageNumber}, got ${values['Page-Number'] ?? 'none'}`, res);
      if (values['Page-Size'] === undefined || values['Page-Size'] > size || values['Page-Size'] < 1) e.fail(`${what}: expected Page-Size ${size}, got ${values['Page-Size'] ?? 'none'}`, res);
      else if (values['Page-Size'] < size) e.note(`${walk.path}: the server caps size at ${values['Page-Size']}`);
      const parsed = res.json();
      const extracted = parsed.ok ? extractItems(parsed.value) : undefined;
      if (extracted && 'items' in extracted && values['Page-Size'] !== undefined && extracted.items.length > values['Page-Size']) {
        e.fail(`${what}: ${extracted.items.length} items on a page of Page-Size ${values['Page-Size']}`, res);
      }
      // A size far beyond any cap: refused (4xx), or served with Page-Size stating the cap.
      const huge = 1_000_000;
      const big = await getUrl(e.send, listUrl(e, walk, { page: '1', size: String(huge) }), e.bearer(), `GET ${walk.path} with size ${huge}`);
      const bigWhat = `GET ${walk.path}?page=1&size=${huge}`;
      if (!expectNoServerError(e, big, bigWhat) || big.status < 200 || big.status > 299) return;
      const bigSize = readPagingHeaders(big).values['Page-Size'];
      if (bigSize === undefined || bigSize > huge || bigSize < 1) e.fail(`${bigWhat}: expected Page-Size ${huge} or the server's cap, got ${bigSize ?? 'none'}`, big);
      else if (bigSize < huge) e.note(`${walk.path}: the server caps size at ${bigSize}`);
    }),
  );

  check('PAGE-TOTALS', (c) =>
    onEveryList(c, (e, walk) => {
      const first = walk.pages[0];
      let judged = 0;
      for (const page of walk.pages) {
        const { values } = page.paging;
        const total = values['Total-Elements'];
        const pages = values['Total-Pages'];
        const size = values['Page-Size'];
        if (total === undefined || pages === undefined || size === undefined) continue; // PAGE-HEADERS reports it
        judged += 1;
        const expected = expectedTotalPages(total, size);
        if (!expected.includes(pages)) e.fail(`${label(walk, page)}: Total-Pages is ${pages}, expected ${expected.join(' or ')} = ceil(Total-Elements ${total} / Page-Size ${size})`, page.res);
        if (page !== first && first) {
          const firstTotal = first.paging.values['Total-Elements'];
          if (firstTotal !== undefined && firstTotal !== total) e.fail(`${label(walk, page)}: Total-Elements is ${total}, but page 1 said ${firstTotal}`, page.res);
        }
      }
      if (judged === 0) e.error(`cannot check the totals of ${walk.path}: no page carries Total-Elements, Total-Pages and Page-Size as integers (see PAGE-HEADERS)`, first?.res);
    }),
  );

  check('PAGE-WALK', (c) =>
    onEveryList(c, (e, walk) => {
      const total = walk.totalElements;
      // The number of the last page walked (the pages may be a --max-pages sample).
      const pageCount = walk.pages.at(-1)?.number ?? 0;
      const seen = new Map<string, number>();
      let count = 0;
      for (const page of walk.pages) {
        if (!page.items) {
          e.fail(`${label(walk, page)}: ${page.itemsProblem ?? 'no items'}`, page.res);
          continue;
        }
        const { keys } = page.items;
        count += keys.length;
        for (const key of keys) {
          const where = seen.get(key);
          if (where !== undefined) e.fail(`${label(walk, page)}: item ${keyLabel(key)} was already on page ${where}`, page.res);
          else seen.set(key, page.number);
        }
        const size = page.paging.values['Page-Size'] ?? walk.size;
        const isLast = page.number === pageCount;
        if (!isLast && keys.length !== size) e.fail(`${label(walk, page)}: a page before the last must be full: expected ${size} items, got ${keys.length}`, page.res);
        if (isLast && total !== undefined && total > 0) {
          const expected = total - size * (pageCount - 1);
          if (keys.length !== expected) e.fail(`${label(walk, page)}: the last page should hold the remaining ${expected} of ${total} items, got ${keys.length}`, page.res);
        }
      }
      // A sample cannot be counted against Total-Elements; the pages it holds were checked above.
      if (!walk.sample && total !== undefined && count !== total) e.fail(`walking all ${pageCount} pages of ${walk.path} yields ${count} items, but Total-Elements is ${total}`, walk.pages.at(-1)?.res);
    }),
  );

  check('PAGE-PAST-END', (c) =>
    onEveryList(c, async (e, walk) => {
      const beyond = Math.max(walk.totalPages ?? 0, 1) + 1;
      const what = `GET ${walk.path}?page=${beyond}&size=${walk.size} (past the last page)`;
      const res = await getUrl(e.send, listUrl(e, walk, { page: String(beyond), size: String(walk.size) }), e.bearer(), what);
      if (res.status === 404) return;
      if (res.status < 200 || res.status > 299) return e.fail(`${what}: expected an empty page or 404, got ${res.status}`, res);
      const parsed = res.json();
      const extracted = parsed.ok ? extractItems(parsed.value) : { problem: parsed.error };
      if (!('items' in extracted)) e.fail(`${what}: ${extracted.problem}`, res);
      else if (extracted.items.length > 0) e.fail(`${what}: expected an empty page or 404, got ${extracted.items.length} items`, res);
    }),
  );

  check('PAGE-INVALID-PARAMS', (c) =>
    onEveryList(
      c,
      async (e, walk) => {
        const probes: { param: 'page' | 'size'; value: string }[] = [
          ...['0', '-1', 'abc', '1.5', ''].map((value) => ({ param: 'page' as const, value })),
          ...['0', '-1', 'abc', '1.5', ''].map((value) => ({ param: 'size' as const, value })),
        ];
        for (const probe of probes) {
          const params = probe.param === 'page' ? { page: probe.value, size: String(walk.size) } : { page: '1', size: probe.value };
          const what = `GET ${walk.path} with ${probe.param}=${JSON.stringify(probe.value)}`;
          const res = await getUrl(e.send, listUrl(e, walk, params), e.bearer(), what);
          if (res.status >= 400 && res.status < 500) continue;
          if (res.status < 200 || res.status > 299) {
            e.fail(`${what}: expected a 4xx (or a page with the value clamped), got ${res.status}${res.status >= 500 ? ' (a server error for a client mistake)' : ''}`, res);
            continue;
          }
          // Served anyway: only acceptable as a clamp to a valid value the headers state.
          const header = probe.param === 'page' ? 'Page-Number' : 'Page-Size';
          const value = readPagingHeaders(res).values[header];
          if (value === undefined || value < 1) e.fail(`${what}: served with ${header} ${value ?? 'missing'}; expected a 4xx or a clamp to a valid ${probe.param}`, res);
        }
      },
      false,
    ),
  );

  check('LINK-SYNTAX', (c) =>
    onEveryList(
      c,
      (e, walk) => {
        for (const page of [walk.unparameterised, ...walk.pages]) for (const error of page.links.errors) e.fail(`${label(walk, page)}: Link: ${error}`, page.res);
      },
      false,
    ),
  );

  check('LINK-NEXT', (c) =>
    onEveryList(c, async (e, walk) => {
      const last = walk.pages.at(-1)?.number ?? 0;
      for (const page of walk.pages) {
        const next = singleLink(e, walk, page, 'next');
        if (page.number < last) {
          if (next === undefined) e.fail(`${label(walk, page)}: page ${page.number} of ${last} has no rel="next" link`, page.res);
          else await expectLinkTo(e, walk, page, 'next', next, page.number + 1);
        } else if (next !== undefined) {
          e.fail(`${label(walk, page)}: the last page has a rel="next" link (${next})`, page.res);
        }
      }
    }),
  );

  check('LINK-PREV', (c) =>
    onEveryList(c, async (e, walk) => {
      for (const page of walk.pages) {
        const prev = singleLink(e, walk, page, 'prev') ?? singleLink(e, walk, page, 'previous');
        if (prev === undefined) continue;
        if (page.number === 1) e.fail(`${label(walk, page)}: page 1 has a rel="prev" link (${prev})`, page.res);
        else await expectLinkTo(e, walk, page, 'prev', prev, page.number - 1);
      }
    }),
  );

  check('LINK-FIRST-LAST', (c) =>
    onEveryList(c, async (e, walk) => {
      const lastPage = Math.max(walk.totalPages ?? 1, 1);
      for (const page of walk.pages) {
        const first = singleLink(e, walk, page, 'first');
        if (first !== undefined) await expectLinkTo(e, walk, page, 'first', first, 1);
        const last = singleLink(e, walk, page, 'last');
        if (last !== undefined) await expectLinkTo(e, walk, page, 'last', last, lastPage);
      }
    }),
  );

  check('LINK-FOLLOW', (c) =>
    onEveryList(c, async (e, walk) => {
      const lastPage = walk.pages.at(-1)?.number ?? 1;
      // Every page, and one more to catch a chain that runs on; with a --max-pages sample, as
      // many pages as the sample holds (the rest of the chain is not followed).
      const expectedPages = walk.sample ? Math.min(walk.sample.pages, lastPage) : walk.pages.length;
      const limit = walk.sample ? expectedPages : expectedPages + 1;
      let page = walk.pages[0];
      const visited: number[] = [];
      let items = 0;
      while (page) {
        if (visited.includes(page.number)) return e.fail(`following rel="next" from page 1 of ${walk.path} comes back to page ${page.number} after ${visited.join(' → ')}`, page.res);
        visited.push(page.number);
        items += page.items?.keys.length ?? 0;
        const next = linksWithRel(page.links, 'next')[0];
        if (!next || visited.length >= limit) break;
        page = await followLink(e, walk, next.target);
        if (page.res.status < 200 || page.res.status > 299) return e.fail(`following rel="next" from page ${visited.at(-1)} of ${walk.path} leads to a ${page.res.status}`, page.res);
      }
      const expected = Array.from({ length: expectedPages }, (_, i) => i + 1);
      if (visited.join(',') !== expected.join(',')) e.fail(`following rel="next" from page 1 of ${walk.path} visits pages ${visited.join(' → ')}, expected 1 → … → ${expectedPages}`, page?.res);
      else if (!walk.sample && walk.totalElements !== undefined && items !== walk.totalElements) e.fail(`following rel="next" through ${walk.path} yields ${items} items, but Total-Elements is ${walk.totalElements}`, page?.res);
    }),
  );
});
