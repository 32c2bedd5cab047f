// The pure helpers of the page walk (src/battery/paging.ts) and of list bodies (src/battery/list-items.ts).
import { describe, expect, it } from 'vitest';
import { DigestSet } from '../src/battery/digest-set.js';
import {
  extractItems,
  itemKey,
  itemLabel,
  itemLabelAt,
  KEY_ID,
  KEY_JSON,
  keyKindAt,
  sameItems,
  summariseItems,
} from '../src/carrier/list-items.js';
import { mapBounded } from '../src/battery/bounded.js';
import {
  PAGING_HEADERS,
  exactPageNumber,
  expectedItemCount,
  expectedTotalPages,
  normaliseUrl,
  pageUrl,
  pageUrls,
  pagesToWalk,
  readPagingHeaders,
  unfollowableLink,
  walkPageNumber,
} from '../src/battery/paging.js';
import { HttpResponse } from '../src/http/client.js';
import { parseLinkHeader } from '../src/http/link.js';

const LIST = 'https://api.example.test/tenants/t1/shipments';

/** A response with the paging headers given (lower-cased names, every line kept apart). */
function response(headers: Record<string, string[]>, url = LIST): HttpResponse {
  return new HttpResponse(url, 200, headers, '[]', -1);
}

const VALID = { 'total-pages': ['3'], 'page-size': ['10'], 'page-number': ['1'], 'total-elements': ['25'] };

describe('readPagingHeaders', () => {
  it('reads the four headers', () => {
    expect(readPagingHeaders(response(VALID))).toEqual({
      values: { 'Total-Pages': 3, 'Page-Size': 10, 'Page-Number': 1, 'Total-Elements': 25 },
      problems: [],
    });
  });

  it('reports every missing header', () => {
    expect(readPagingHeaders(response({}))).toEqual({
      values: {},
      problems: PAGING_HEADERS.map((h) => `${h} is missing`),
    });
  });

  it('reports a header sent on several lines, and reads the first', () => {
    const paging = readPagingHeaders(response({ ...VALID, 'total-pages': ['3', '4'] }));
    expect(paging.problems).toEqual(['Total-Pages is sent 2 times ("3", "4")']);
    expect(paging.values['Total-Pages']).toBe(3);
  });

  it.each([
    [' 3 ', 3],
    ['\t3', 3],
    ['0', 0],
    ['007', 7],
    [String(Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER],
  ])('accepts %j as %d (optional whitespace around the value)', (raw, value) => {
    const paging = readPagingHeaders(response({ ...VALID, 'page-size': [raw] }));
    expect(paging.problems).toEqual([]);
    expect(paging.values['Page-Size']).toBe(value);
  });

  it.each(['1.0', '-1', '+3', '3e2', '0x10', '', 'ten', '1 0', '1,2'])(
    'rejects %j as not a non-negative integer',
    (raw) => {
      const paging = readPagingHeaders(response({ ...VALID, 'page-size': [raw] }));
      expect(paging.problems).toEqual([`Page-Size is ${JSON.stringify(raw)}, not a non-negative integer`]);
      expect(paging.values['Page-Size']).toBeUndefined();
      expect(paging.values['Total-Pages']).toBe(3);
    },
  );

  it('rejects a count too large to be exact', () => {
    const paging = readPagingHeaders(response({ ...VALID, 'total-elements': ['99999999999999999999'] }));
    expect(paging.problems).toEqual(['Total-Elements is 99999999999999999999, too large to be a count']);
    expect(paging.values['Total-Elements']).toBeUndefined();
  });
});

describe('expectedTotalPages', () => {
  it.each([
    [0, 10, [0, 1]],
    [0, 0, [0, 1]],
    [20, 10, [2]],
    [21, 10, [3]],
    [5, 10, [1]],
    [1, 1, [1]],
    [7, 0, []],
  ])('%d elements of size %d → %j', (elements, size, expected) => {
    expect(expectedTotalPages(elements, size)).toEqual(expected);
  });
});

describe('expectedItemCount: min(Page-Size, Total-Elements − (n − 1) × Page-Size), by the page asked for', () => {
  const count = (headers: Record<string, string[]>, page: number) =>
    expectedItemCount(readPagingHeaders(response(headers)), page);

  it('is a full page before the last, the rest on the last, none past the end', () => {
    expect(count(VALID, 1)).toEqual({ count: 10, size: 10, total: 25 });
    expect(count(VALID, 3)).toEqual({ count: 5, size: 10, total: 25 });
    expect(count(VALID, 4)).toEqual({ count: 0, size: 10, total: 25 });
    expect(count({ ...VALID, 'total-elements': ['0'] }, 1)).toEqual({ count: 0, size: 10, total: 0 });
  });

  it('holds a Page-Size that echoes a size beyond a silent cap to its word: 1 000 000 a page means all 23', () => {
    expect(count({ ...VALID, 'page-size': ['1000000'], 'total-pages': ['1'], 'total-elements': ['23'] }, 1)).toEqual({
      count: 23,
      size: 1_000_000,
      total: 23,
    });
  });

  it('is told by the page asked for, not by Page-Number (whose echo is another rule)', () => {
    expect(count({ ...VALID, 'page-number': ['1'] }, 3)).toEqual({ count: 5, size: 10, total: 25 });
  });

  it('cannot be told without Page-Size or Total-Elements as integers: it names the cause, never guesses', () => {
    expect(count({ ...VALID, 'page-size': [] }, 1)).toEqual({ unknown: 'Page-Size is missing' });
    expect(count({ 'total-pages': ['3'], 'page-number': ['1'], 'page-size': ['10'] }, 1)).toEqual({
      unknown: 'Total-Elements is missing',
    });
    expect(count({ ...VALID, 'total-elements': ['23.0'] }, 1)).toEqual({
      unknown: 'Total-Elements is "23.0", not a non-negative integer',
    });
    expect(count({ ...VALID, 'page-size': ['0'] }, 1)).toEqual({
      unknown: 'Page-Size is 0, which no page of items has',
    });
  });
});

describe('normaliseUrl', () => {
  it.each([
    ['parameter order', `${LIST}?size=10&page=2`, `${LIST}?page=2&size=10`],
    ['the order of repeated parameters', `${LIST}?tag=b&tag=a`, `${LIST}?tag=a&tag=b`],
    ['a fragment', `${LIST}?page=2#top`, `${LIST}?page=2`],
    ['the spelling of a space', `${LIST}?q=a%20b`, `${LIST}?q=a+b`],
    ['the case of the host', 'https://API.Example.TEST/x?a=1', 'https://api.example.test/x?a=1'],
    ['an empty query', `${LIST}?`, LIST],
  ])('makes URLs that differ only in %s equal', (_what, a, b) => {
    expect(normaliseUrl(a)).toBe(normaliseUrl(b));
  });

  it('sorts the parameters and drops the fragment', () => {
    expect(normaliseUrl(`${LIST}?size=10&page=2#frag`)).toBe(`${LIST}?page=2&size=10`);
  });

  it.each([
    ['another value', `${LIST}?page=2`, `${LIST}?page=3`],
    ['another path', `${LIST}?page=2`, 'https://api.example.test/tenants/t1/orders?page=2'],
    ['a missing parameter', `${LIST}?page=2&size=10`, `${LIST}?page=2`],
  ])('keeps URLs that differ in %s apart', (_what, a, b) => {
    expect(normaliseUrl(a)).not.toBe(normaliseUrl(b));
  });
});

describe('pageUrl', () => {
  it("is the page's URL under the base URL's own path, as every request is", () => {
    expect(pageUrl('https://gw.example/api', '/tenants/t1/shipments', 2, 10).href).toBe(
      'https://gw.example/api/tenants/t1/shipments?page=2&size=10',
    );
    expect(pageUrl('https://gw.example/api/', '/tenants/t1/shipments', 3, 5).href).toBe(
      'https://gw.example/api/tenants/t1/shipments?page=3&size=5',
    );
    expect(pageUrl('http://127.0.0.1:8080', '/tenants/t1/shipments', 1, 100).href).toBe(
      'http://127.0.0.1:8080/tenants/t1/shipments?page=1&size=100',
    );
  });

  it('pageUrls gives the very URLs pageUrl does, spliced into their template or, without one, built one by one', () => {
    const cases: [string, string, number][] = [
      ['https://gw.example/api', '/tenants/t1/shipments', 10],
      ['https://gw.example/api/', '/tenants/t1/shipments', 5],
      ['http://127.0.0.1:8080', '/tenants/a b%2F/shipments', 100],
      ['http://[::1]:8080/x/', '/tenants/é/shipments', 1],
      // The probe's own number in the path: no template, pageUrl page by page.
      ['http://127.0.0.1:8080', '/tenants/1000000007/shipments', 20],
      ['http://127.0.0.1:8080', '/tenants/t1/shipments', 1000000007],
    ];
    for (const [base, path, size] of cases) {
      const urls = pageUrls(base, path, size);
      for (const n of [1, 2, 9, 10, 99, 1000, 99_999, 1_000_000_007])
        expect(urls(n).href).toBe(pageUrl(base, path, n, size).href);
    }
  });
});

describe('walkPageNumber', () => {
  const pageUrl = (n: number): string => `${LIST}?page=${n}&size=10`;
  const inWalk = (n: number): boolean => n >= 1 && n <= 3;

  it('finds the page a link target requests, whatever its parameter order and fragment', () => {
    expect(walkPageNumber(`${LIST}?size=10&page=2#x`, pageUrl, inWalk)).toBe(2);
  });

  it('finds no page for a request the walk did not make', () => {
    expect(walkPageNumber(`${LIST}?page=2&size=20`, pageUrl, inWalk)).toBeUndefined();
    expect(walkPageNumber(`${LIST}?page=4&size=10`, pageUrl, inWalk)).toBeUndefined();
    expect(walkPageNumber(`${LIST}?page=2&size=10&sort=id`, pageUrl, inWalk)).toBeUndefined();
    expect(walkPageNumber('not a URL', pageUrl, inWalk)).toBeUndefined();
  });
});

describe('unfollowableLink', () => {
  // A gateway's base URL with a path prefix: the API's origin is what credentials may go to.
  const page = 'https://gw.example.test/api/tenants/t1/shipments?page=2&size=10';
  const origin = 'https://gw.example.test';
  /** The problem with the target of `<ref>` on `page`, resolved as the walk resolves it (RFC 8288 §3.1, RFC 3986 §5). */
  const problem = (ref: string): string | undefined => {
    const [link] = parseLinkHeader(`<${ref}>; rel="next"`, page).links;
    return unfollowableLink(link?.target ?? '', origin);
  };
  const foreign = `is not on the API's origin ${origin}: a client cannot follow it with its credentials`;

  it('follows relative references, resolved against the page that carries them', () => {
    expect(problem('?page=3&size=10')).toBeUndefined();
    expect(problem('/api/tenants/t1/shipments?page=3&size=10')).toBeUndefined();
    expect(problem('shipments?page=3&size=10')).toBeUndefined();
    expect(problem('../t1/shipments?page=3&size=10')).toBeUndefined();
  });

  it("follows another path on the API's origin (where it lands is judged by its answer)", () => {
    expect(problem('/tenants/t1/shipments?page=3&size=10')).toBeUndefined();
    expect(problem('https://gw.example.test/elsewhere?page=3')).toBeUndefined();
    expect(problem('HTTPS://GW.EXAMPLE.TEST:443/api/tenants/t1/shipments?page=3&size=10')).toBeUndefined();
  });

  it('does not follow a target on another origin: host, scheme or port', () => {
    expect(problem('http://evil.example/api/tenants/t1/shipments?page=3&size=10')).toBe(foreign);
    expect(problem('//evil.example/api/tenants/t1/shipments?page=3&size=10')).toBe(foreign);
    expect(problem('http://gw.example.test/api/tenants/t1/shipments?page=3&size=10')).toBe(foreign);
    expect(problem('https://gw.example.test:8443/api/tenants/t1/shipments?page=3&size=10')).toBe(foreign);
    expect(problem('https://gw.example.test.evil.example/api/tenants/t1/shipments?page=3')).toBe(foreign);
  });

  it('does not follow a target that is not an http(s) URL', () => {
    const scheme = `is not an http(s) URL on the API's origin ${origin}: a client cannot follow it with its credentials`;
    expect(problem('javascript:alert(1)')).toBe(scheme);
    expect(problem('JavaScript:alert(1)')).toBe(scheme);
    expect(problem('data:text/html,x')).toBe(scheme);
    expect(problem('ftp://gw.example.test/api/tenants/t1/shipments?page=3')).toBe(scheme);
    expect(unfollowableLink('not a URL', origin)).toBe(
      'cannot be resolved to a URL (RFC 3986 §5): a client cannot follow it with its credentials',
    );
  });
});

describe('exactPageNumber', () => {
  const pageUrl = (n: number): string => `${LIST}?page=${n}&size=10`;
  const exact = exactPageNumber(pageUrl);

  it("tells the page of a target that is the walk's own URL of it, and agrees with walkPageNumber there", () => {
    for (const n of [1, 2, 37, 10_000]) {
      expect(exact(pageUrl(n))).toBe(n);
      expect(walkPageNumber(pageUrl(n), pageUrl, () => true)).toBe(n);
    }
  });

  it('leaves every other target to walkPageNumber', () => {
    for (const target of [
      `${LIST}?size=10&page=2`,
      `${LIST}?page=02&size=10`,
      `${LIST}?page=0&size=10`,
      `${LIST}?page=2&size=100`,
      `${LIST}?page=&size=10`,
      `${LIST}?page=2x&size=10`,
      `${LIST}?page=2&size=10#x`,
      'http://other.example/shipments?page=2&size=10',
      'not a URL',
    ]) {
      expect(exact(target)).toBeUndefined();
    }
  });

  it('has no fast path when the page number is not simply spliced into the URL', () => {
    const paddedUrl = (n: number): string => `${LIST}?page=${String(n).padStart(12, '0')}&size=10`;
    const padded = exactPageNumber(paddedUrl);
    for (const target of [paddedUrl(2), `${LIST}?page=002&size=10`, `${LIST}?page=2&size=10`])
      expect(padded(target)).toBeUndefined();
  });
});

describe('mapBounded', () => {
  const tick = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

  /** Runs mapBounded over `count` inputs, measuring how many calls were in flight at once. */
  async function measure(
    count: number,
    limit: number,
  ): Promise<{ results: string[]; maxInFlight: number; calls: number }> {
    let inFlight = 0;
    let maxInFlight = 0;
    let calls = 0;
    const inputs = Array.from({ length: count }, (_, i) => i);
    const results = await mapBounded(inputs, limit, async (n) => {
      calls += 1;
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      // Later inputs finish sooner, so completion order differs from input order.
      await tick((count - n) % 4);
      inFlight -= 1;
      return `r${n}`;
    });
    return { results, maxInFlight, calls };
  }

  it.each([
    [10, 3],
    [10, 1],
    [5, 5],
    [3, 8],
  ])(
    'maps %d inputs with limit %d: results in input order, never more than the limit in flight',
    async (count, limit) => {
      const { results, maxInFlight, calls } = await measure(count, limit);
      expect(results).toEqual(Array.from({ length: count }, (_, i) => `r${i}`));
      expect(calls).toBe(count);
      expect(maxInFlight).toBe(Math.min(limit, count));
    },
  );

  it('maps no inputs to no results', async () => {
    expect(await mapBounded([], 4, () => Promise.resolve(1))).toEqual([]);
  });

  it('rejects when a call rejects', async () => {
    await expect(
      mapBounded([1, 2, 3], 2, (n) => (n === 2 ? Promise.reject(new Error('page 2 failed')) : Promise.resolve(n))),
    ).rejects.toThrow('page 2 failed');
  });
});

describe('extractItems', () => {
  it.each([
    ['a JSON array', [{ id: 1 }, { id: 2 }], [{ id: 1 }, { id: 2 }]],
    ['an empty array', [], []],
    ['an object with one array', { items: [{ id: 1 }], total: 1, meta: { next: null } }, [{ id: 1 }]],
    ['an object with one empty array', { content: [], totalElements: 0 }, []],
  ])('reads the items of %s', (_what, body, items) => {
    expect(extractItems(body)).toEqual({ items });
  });

  it.each([
    // Several arrays may be a list whose items cannot be told; no array at all shows no list (noArray).
    [
      'an object with several arrays',
      { items: [], errors: [] },
      'the list body has several arrays (items, errors); cannot tell which holds the items',
      undefined,
    ],
    ['an object without arrays', { total: 0 }, 'the list body is an object without an array of items', true],
    ['null', null, 'the list body is null, not a JSON array of items', true],
    ['a string', 'none', 'the list body is "none", not a JSON array of items', true],
    ['a number', 3, 'the list body is 3, not a JSON array of items', true],
  ])('reports %s', (_what, body, problem, noArray) => {
    expect(extractItems(body)).toEqual({ problem, ...(noArray ? { noArray } : {}) });
  });
});

describe('itemKey and itemLabel', () => {
  it.each([
    [{ id: 'a1', name: 'x' }, { key: 'a1', kind: KEY_ID }, 'id a1'],
    [{ id: 42 }, { key: '42', kind: KEY_ID }, 'id 42'],
    [{ id: null, name: 'x' }, { key: '{"id":null,"name":"x"}', kind: KEY_JSON }, '{"id":null,"name":"x"}'],
    [{ id: { nested: 1 } }, { key: '{"id":{"nested":1}}', kind: KEY_JSON }, '{"id":{"nested":1}}'],
    [{ name: 'no id' }, { key: '{"name":"no id"}', kind: KEY_JSON }, '{"name":"no id"}'],
    ['plain', { key: '"plain"', kind: KEY_JSON }, '"plain"'],
    [7, { key: '7', kind: KEY_JSON }, '7'],
    [null, { key: 'null', kind: KEY_JSON }, 'null'],
  ])('%j → key %j, label %j', (item, key, label) => {
    expect(itemKey(item)).toEqual(key);
    expect(itemLabel(item)).toBe(label);
  });

  it('gives equal items without an id the same key, and different ones different keys', () => {
    expect(itemKey({ a: 1, b: [2] })).toEqual(itemKey({ a: 1, b: [2] }));
    expect(itemKey({ a: 1 })).not.toEqual(itemKey({ a: 2 }));
  });

  it('cuts the label of a long item without an id at 80 characters', () => {
    const item = { description: 'x'.repeat(200) };
    expect(itemLabel(item)).toBe(JSON.stringify(item).slice(0, 80));
  });

  it("keeps a page's keys in order, and tells an id spelled like another item's JSON from that item", () => {
    const items = summariseItems([{ id: 'a' }, { id: 7 }, { name: 'x' }, { id: '{"name":"x"}' }], false);
    expect(items.keys).toEqual(['a', '7', '{"name":"x"}', '{"name":"x"}']);
    expect([0, 1, 2, 3].map((i) => keyKindAt(items, i))).toEqual([KEY_ID, KEY_ID, KEY_JSON, KEY_ID]);
    expect([0, 2, 3].map((i) => itemLabelAt(items, i))).toEqual(['id a', '{"name":"x"}', 'id {"name":"x"}']);
    const seen = new DigestSet();
    expect(items.keys.map((k, i) => seen.addIfAbsent(k, i + 1, keyKindAt(items, i)))).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(seen.addIfAbsent('{"name":"x"}', 9, KEY_JSON)).toBe(3);
    expect(summariseItems([{ id: 'a' }], false).jsonKeyed).toBeUndefined();
  });

  it('compares two pages item by item, kind included', () => {
    const page = (...items: unknown[]): ReturnType<typeof summariseItems> => summariseItems(items, false);
    expect(sameItems(page({ id: 'a' }, { id: 'b' }), page({ id: 'a' }, { id: 'b' }))).toBe(true);
    expect(sameItems(page({ id: 'a' }, { id: 'b' }), page({ id: 'b' }, { id: 'a' }))).toBe(false);
    expect(sameItems(page({ id: 'a' }), page({ id: 'a' }, { id: 'b' }))).toBe(false);
    expect(sameItems(page({ id: '"x"' }), page('x'))).toBe(false);
    // A newline in an id joins nothing: ["a\nb"] is not ["a", "b"].
    expect(sameItems(page({ id: 'a\nb' }), page({ id: 'a' }, { id: 'b' }))).toBe(false);
  });
});

describe('paging helpers, for the cases a review found', () => {
  it('takes only spaces and tabs as optional whitespace around a paging header (RFC 9110 §5.6.3)', () => {
    const res = new HttpResponse(
      'http://x/',
      200,
      { 'total-pages': ['\u00a03'], 'page-size': ['\ufeff10'], 'page-number': ['\t1 '], 'total-elements': ['23'] },
      '[]',
      -1,
    );
    const { values, problems } = readPagingHeaders(res);
    expect(values['Page-Number']).toBe(1);
    expect(values['Total-Pages']).toBeUndefined();
    expect(values['Page-Size']).toBeUndefined();
    expect(problems).toHaveLength(2);
  });

  it('runs at least one task at a time whatever the limit', async () => {
    expect(await mapBounded([1, 2, 3], 0, (n) => Promise.resolve(n * 2))).toEqual([2, 4, 6]);
  });
});

describe('pagesToWalk (--max-pages)', () => {
  it('walks every page when there are no more than the bound', () => {
    expect(pagesToWalk(3, undefined)).toEqual([1, 2, 3]);
    expect(pagesToWalk(3, 5)).toEqual([1, 2, 3]);
    expect(pagesToWalk(0, 5)).toEqual([1]);
  });

  it('samples the first, the last and pages spread evenly between, the same ones every time', () => {
    expect(pagesToWalk(1000, 5)).toEqual([1, 251, 501, 750, 1000]);
    expect(pagesToWalk(1000, 2)).toEqual([1, 1000]);
    expect(pagesToWalk(10, 9)).toHaveLength(9);
    expect(pagesToWalk(1000, 20)).toEqual(pagesToWalk(1000, 20));
  });
});
