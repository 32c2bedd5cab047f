// Unit tests for the RFC 8288 Link parser, including the pitfalls of the npm parsers listed in
// /work/shared/notes/rfc-checklist-and-link-parsing.md §4 (the reason the parser is hand-written).
import { describe, expect, it } from 'vitest';
import { MAX_ERRORS } from '../src/http/header-grammar.js';
import { linksWithRel, parseLinkHeader } from '../src/http/link.js';
import type { LinkParseResult, WebLink } from '../src/http/link.js';
import { prng } from './support/prng.js';

const BASE = 'https://api.example.com/v1/items?page=1';

/** Targets and rels only, which is what most assertions need. */
function summary(result: LinkParseResult): { target: string; rels: string[] }[] {
  return result.links.map(({ target, rels }) => ({ target, rels }));
}

function only(result: LinkParseResult): WebLink {
  expect(result.links).toHaveLength(1);
  const [link] = result.links;
  if (link === undefined) throw new Error('unreachable');
  return link;
}

/** Deterministic PRNG (mulberry32) so the fuzz cases are reproducible. */

describe('parseLinkHeader: well-formed headers', () => {
  it('parses a GitHub-style pagination header', () => {
    const header =
      '<https://api.github.com/repositories/1300192/issues?page=2>; rel="prev", ' +
      '<https://api.github.com/repositories/1300192/issues?page=4>; rel="next", ' +
      '<https://api.github.com/repositories/1300192/issues?page=515>; rel="last", ' +
      '<https://api.github.com/repositories/1300192/issues?page=1>; rel="first"';
    const result = parseLinkHeader(header, 'https://api.github.com/repositories/1300192/issues?page=3');
    expect(result.errors).toEqual([]);
    expect(summary(result)).toEqual([
      { target: 'https://api.github.com/repositories/1300192/issues?page=2', rels: ['prev'] },
      { target: 'https://api.github.com/repositories/1300192/issues?page=4', rels: ['next'] },
      { target: 'https://api.github.com/repositories/1300192/issues?page=515', rels: ['last'] },
      { target: 'https://api.github.com/repositories/1300192/issues?page=1', rels: ['first'] },
    ]);
    expect(linksWithRel(result, 'next').map((l) => l.target)).toEqual([
      'https://api.github.com/repositories/1300192/issues?page=4',
    ]);
  });

  it('parses a GitHub header with per_page and a comma-free query, page 1 (no prev)', () => {
    const header =
      '<https://api.github.com/user/repos?per_page=100&page=2>; rel="next", <https://api.github.com/user/repos?per_page=100&page=3>; rel="last"';
    const result = parseLinkHeader(header, 'https://api.github.com/user/repos?per_page=100');
    expect(result.errors).toEqual([]);
    expect(linksWithRel(result, 'prev')).toEqual([]);
    expect(linksWithRel(result, 'last')[0]?.target).toBe('https://api.github.com/user/repos?per_page=100&page=3');
  });

  it('parses the RFC 8288 §3.5 examples', () => {
    const result = parseLinkHeader(
      [
        '<http://example.com/TheBook/chapter2>; rel="previous"; title="previous chapter"',
        '</>; rel="http://example.net/foo"',
        '</terms>; rel="copyright"; anchor="#foo"',
        '</TheBook/chapter2>; rel="previous"; title*=UTF-8\'de\'letztes%20Kapitel, </TheBook/chapter4>; rel="next"; title*=UTF-8\'de\'n%c3%a4chstes%20Kapitel',
        '<http://example.org/>; rel="start http://example.net/relation/other"',
        '<https://example.org/>; rel="start", <https://example.org/index>; rel="index"',
      ],
      'http://example.com/TheBook/chapter3',
    );
    expect(result.errors).toEqual([]);
    expect(summary(result)).toEqual([
      { target: 'http://example.com/TheBook/chapter2', rels: ['previous'] },
      { target: 'http://example.com/', rels: ['http://example.net/foo'] },
      { target: 'http://example.com/terms', rels: ['copyright'] },
      { target: 'http://example.com/TheBook/chapter2', rels: ['previous'] },
      { target: 'http://example.com/TheBook/chapter4', rels: ['next'] },
      { target: 'http://example.org/', rels: ['start', 'http://example.net/relation/other'] },
      { target: 'https://example.org/', rels: ['start'] },
      { target: 'https://example.org/index', rels: ['index'] },
    ]);
    expect(result.links[0]?.params.title).toBe('previous chapter');
    expect(result.links[2]?.params.anchor).toBe('#foo');
    // title* (RFC 8187 ext-value) is kept raw, not decoded.
    expect(result.links[4]?.params['title*']).toBe("UTF-8'de'n%c3%a4chstes%20Kapitel");
  });

  it('keeps rawTarget as sent and params with lower-cased names', () => {
    const link = only(parseLinkHeader('<?page=2>; REL="next"; Title="Page 2"; Type="application/json"', BASE));
    expect(link).toEqual({
      target: 'https://api.example.com/v1/items?page=2',
      rawTarget: '?page=2',
      rels: ['next'],
      params: { rel: 'next', title: 'Page 2', type: 'application/json' },
    });
  });

  it('treats undefined, empty and whitespace-only values as no links and no errors', () => {
    for (const value of [undefined, '', '   ', [], ['', ' \t '], ',', ' , ,, ']) {
      expect(parseLinkHeader(value, BASE)).toEqual({ links: [], errors: [] });
    }
  });
});

describe('parseLinkHeader: the common form read at once', () => {
  // `<…>; rel="x"` is read without the general grammar: it must give what the grammar gives. An
  // upper-case parameter name takes the general way, and reads the same.
  it.each([
    '<https://a.test/p?page=2>; rel="next"',
    '<https://a.test/p?page=2>;rel="next", <https://a.test/p?page=1> ; rel = "prev" ,<?page=9>;\trel="last"',
    '<../x y>; rel="next", <https://a.test/p>; rel="first"',
    '<https://a.test/p>; rel="next"; type="x", <https://a.test/q>; rel="next" junk',
    '<https://a.test/p>; rel="Next", <https://a.test/q>; rel="next prev"',
  ])('%s', (header) => {
    const general = header.replace(/\brel(?=\s*=)/g, 'REL');
    expect(general).not.toBe(header);
    const base = 'https://a.test/p?page=1';
    expect(parseLinkHeader(header, base)).toEqual(parseLinkHeader(general, base));
  });
});

describe('parseLinkHeader: pitfalls of common parsers (notes §4)', () => {
  // Each row: header, expected [target, rels][], expected error count.
  const cases: readonly (readonly [string, string, readonly (readonly [string, readonly string[]])[], number])[] = [
    [
      'comma in the URL',
      '<https://x.test/p?sort=name,asc&page=2>; rel="next"',
      [['https://x.test/p?sort=name,asc&page=2', ['next']]],
      0,
    ],
    ['semicolon in the URL', '<https://x.test/p;v=1?a=b;c>; rel=next', [['https://x.test/p;v=1?a=b;c', ['next']]], 0],
    ['upper-case REL=NEXT', '<https://x.test/2>; REL=NEXT', [['https://x.test/2', ['next']]], 0],
    ['mixed case Rel="Next"', '<https://x.test/2>; Rel="Next"', [['https://x.test/2', ['next']]], 0],
    ['BWS rel = "next"', '<https://x.test/2> ; rel = "next"', [['https://x.test/2', ['next']]], 0],
    ['BWS with tabs', '<https://x.test/2>\t;\trel\t=\tnext\t', [['https://x.test/2', ['next']]], 0],
    [
      'no OWS at all',
      '<https://x.test/2>;rel=next,<https://x.test/9>;rel=last',
      [
        ['https://x.test/2', ['next']],
        ['https://x.test/9', ['last']],
      ],
      0,
    ],
    [
      'multiple rels in one value',
      '<https://x.test/1>; rel="prev first"',
      [['https://x.test/1', ['prev', 'first']]],
      0,
    ],
    ['repeated rel: first wins', '<https://x.test/2>; rel=next; rel=prev', [['https://x.test/2', ['next']]], 1],
    [
      'quoted title with comma and angle brackets',
      '<https://x.test/2>; title="a, <b>"; rel=next, <https://x.test/1>; rel=prev',
      [
        ['https://x.test/2', ['next']],
        ['https://x.test/1', ['prev']],
      ],
      0,
    ],
    [
      'quoted title with semicolon and equals',
      '<https://x.test/2>; title="x;rel=prev"; rel=next',
      [['https://x.test/2', ['next']]],
      0,
    ],
    [
      'empty list elements',
      ', <https://x.test/2>; rel=next, , ,<https://x.test/1>; rel=prev,',
      [
        ['https://x.test/2', ['next']],
        ['https://x.test/1', ['prev']],
      ],
      0,
    ],
    [
      'rel parameter before other params',
      '<https://x.test/2>; rel="next"; type="text/html"',
      [['https://x.test/2', ['next']]],
      0,
    ],
    [
      'rel after other params',
      '<https://x.test/2>; title="t"; hreflang=de; rel="next"',
      [['https://x.test/2', ['next']]],
      0,
    ],
    [
      'rel relation types deduplicated',
      '<https://x.test/2>; rel="next NEXT Next"',
      [['https://x.test/2', ['next']]],
      0,
    ],
    [
      'rel with extra whitespace',
      '<https://x.test/2>; rel="  next \t last  "',
      [['https://x.test/2', ['next', 'last']]],
      0,
    ],
    [
      'extension relation type lower-cased',
      '<https://x.test/2>; rel="HTTPS://Example.NET/Rel/X"',
      [['https://x.test/2', ['https://example.net/rel/x']]],
      0,
    ],
    [
      'lone unquoted rel with two tokens',
      '<https://x.test/2>; rel=next last',
      [['https://x.test/2', ['next', 'last']]],
      1,
    ],
  ];

  it.each(cases)('%s', (_name, header, expected, errorCount) => {
    const result = parseLinkHeader(header, BASE);
    expect(summary(result)).toEqual(expected.map(([target, rels]) => ({ target, rels })));
    expect(result.errors).toHaveLength(errorCount);
  });

  it('parses a header over 2000 characters (parse-link-header returns null there)', () => {
    const parts = Array.from(
      { length: 60 },
      (_, i) =>
        `<https://api.example.com/v1/items?page=${i + 1}&sort=name,asc&filter=a;b>; rel="item"; title="Item ${i + 1}, <page>"`,
    );
    const header = parts.join(', ') + ', <https://api.example.com/v1/items?page=2>; rel="next"';
    expect(header.length).toBeGreaterThan(2000);
    const result = parseLinkHeader(header, BASE);
    expect(result.errors).toEqual([]);
    expect(result.links).toHaveLength(61);
    expect(linksWithRel(result, 'item')[59]?.params.title).toBe('Item 60, <page>');
    expect(linksWithRel(result, 'NEXT')[0]?.target).toBe('https://api.example.com/v1/items?page=2');
  });

  it('collects every field line as one list (fetch joins them with ", ")', () => {
    const lines = [
      '<https://x.test/?page=1>; rel="first"',
      '<https://x.test/?page=3>; rel="next"',
      '<https://x.test/?page=9>; rel="last"',
    ];
    const fromLines = parseLinkHeader(lines, BASE);
    const fromJoined = parseLinkHeader(lines.join(', '), BASE);
    expect(fromLines).toEqual(fromJoined);
    expect(fromLines.links.flatMap((l) => l.rels)).toEqual(['first', 'next', 'last']);
  });

  it('numbers links across field lines in errors', () => {
    const result = parseLinkHeader(['<https://x.test/1>; rel=first', '<https://x.test/2>; title=no-rel'], BASE);
    expect(result.errors).toEqual(['link 2: missing rel (RFC 8288 §3.3)']);
  });

  it('keeps an unterminated quote or "<" on one line from swallowing the next line', () => {
    const result = parseLinkHeader(
      ['<https://x.test/1>; rel="first', '<https://x.test/2; rel=oops', '<https://x.test/3>; rel=last'],
      BASE,
    );
    expect(summary(result)).toEqual([
      { target: 'https://x.test/1', rels: ['first'] },
      { target: 'https://x.test/3', rels: ['last'] },
    ]);
    expect(result.errors).toEqual([
      'link 1: unterminated quoted-string in the value of "rel"',
      'link 2: unterminated <...>',
    ]);
  });
});

describe('parseLinkHeader: target resolution (RFC 8288 §3.1, RFC 3986 §5)', () => {
  const cases: readonly (readonly [string, string])[] = [
    ['https://other.test/a?b=c', 'https://other.test/a?b=c'],
    ['?page=2', 'https://api.example.com/v1/items?page=2'],
    ['?page=2&per_page=50', 'https://api.example.com/v1/items?page=2&per_page=50'],
    ['../x', 'https://api.example.com/x'],
    ['./y', 'https://api.example.com/v1/y'],
    ['z', 'https://api.example.com/v1/z'],
    ['/v2/items', 'https://api.example.com/v2/items'],
    ['//cdn.example.net/p', 'https://cdn.example.net/p'],
    ['#frag', 'https://api.example.com/v1/items?page=1#frag'],
    ['', 'https://api.example.com/v1/items?page=1'],
  ];

  it.each(cases)('<%s> resolves to %s', (ref, expected) => {
    const link = only(parseLinkHeader(`<${ref}>; rel=next`, BASE));
    expect(link.target).toBe(expected);
    expect(link.rawTarget).toBe(ref);
  });

  it('falls back to rawTarget and reports when a relative target has no usable base', () => {
    const result = parseLinkHeader('<?page=2>; rel=next, <https://x.test/3>; rel=last', 'not a url');
    expect(summary(result)).toEqual([
      { target: '?page=2', rels: ['next'] },
      { target: 'https://x.test/3', rels: ['last'] },
    ]);
    expect(result.errors).toEqual(['link 1: cannot resolve target <?page=2> against not a url']);
  });

  it('reports characters a URI-Reference cannot contain, but still resolves the target', () => {
    const result = parseLinkHeader('<https://x.test/a b>; rel=next, <https://x.test/ä>; rel=last', BASE);
    expect(summary(result)).toEqual([
      { target: 'https://x.test/a%20b', rels: ['next'] },
      { target: 'https://x.test/%C3%A4', rels: ['last'] },
    ]);
    expect(result.errors).toHaveLength(2);
    expect(result.errors[0]).toMatch(/^link 1: target <https:\/\/x\.test\/a b> contains characters not allowed/);
  });
});

describe('parseLinkHeader: parameters', () => {
  it('lets the first occurrence of a parameter win', () => {
    const result = parseLinkHeader('<a>; rel=next; title="one"; TITLE="two"; hreflang=de; hreflang=en', BASE);
    expect(only(result).params).toEqual({ rel: 'next', title: 'one', hreflang: 'de' });
    // title must not repeat (RFC 8288 §3.4.1); hreflang may.
    expect(result.errors).toEqual(['link 1: "title" appears more than once; only the first is used (RFC 8288 §3.4.1)']);
  });

  it('unescapes quoted-pairs in quoted values (RFC 9110 §5.6.4)', () => {
    const link = only(parseLinkHeader('<a>; rel=next; title="say \\"hi\\", a\\\\b \\x"', BASE));
    expect(link.params.title).toBe('say "hi", a\\b x');
  });

  it('accepts quoted and unquoted values alike', () => {
    const quoted = only(parseLinkHeader('<a>; rel="next"; hreflang="de"', BASE));
    const unquoted = only(parseLinkHeader('<a>; rel=next; hreflang=de', BASE));
    expect(quoted.params).toEqual(unquoted.params);
  });

  it('keeps parameters without a value as empty strings', () => {
    const result = parseLinkHeader('<a>; rel=preload; crossorigin; nopush', BASE);
    expect(only(result).params).toEqual({ rel: 'preload', crossorigin: '', nopush: '' });
    expect(result.errors).toEqual([]);
  });

  it('keeps an empty quoted value', () => {
    expect(only(parseLinkHeader('<a>; rel=next; title=""', BASE)).params.title).toBe('');
  });

  it('keeps title* and other ext-values raw (RFC 8187 not decoded)', () => {
    const link = only(
      parseLinkHeader("<a>; rel=next; title*=UTF-8'en'%E2%82%AC%20rates; x-ext*=iso-8859-1''caf%E9", BASE),
    );
    expect(link.params['title*']).toBe("UTF-8'en'%E2%82%AC%20rates");
    expect(link.params['x-ext*']).toBe("iso-8859-1''caf%E9");
  });

  it('keeps an unquoted non-token value (Appendix B) and reports it', () => {
    const result = parseLinkHeader('<a>; rel=next; type=text/html; media=screen', BASE);
    expect(only(result).params).toEqual({ rel: 'next', type: 'text/html', media: 'screen' });
    expect(result.errors).toEqual([
      'link 1: value of "type" must be a token or a quoted-string, got "text/html" (RFC 8288 §3)',
    ]);
  });

  it('treats parameter names such as __proto__ and constructor as plain keys', () => {
    const link = only(parseLinkHeader('<a>; __proto__=x; constructor=y; toString=z; rel=next', BASE));
    expect(Object.keys(link.params)).toEqual(['__proto__', 'constructor', 'tostring', 'rel']);
    expect(link.params.constructor).toBe('y');
    expect(link.rels).toEqual(['next']);
  });
});

describe('parseLinkHeader: grammar errors and recovery', () => {
  it('keeps a link without rel, with rels [], and reports it', () => {
    const result = parseLinkHeader('<https://x.test/1>; rel=first, <https://x.test/2>; title="t"', BASE);
    expect(result.links[1]).toEqual({
      target: 'https://x.test/2',
      rawTarget: 'https://x.test/2',
      rels: [],
      params: { title: 't' },
    });
    expect(result.errors).toEqual(['link 2: missing rel (RFC 8288 §3.3)']);
  });

  it('reports an empty rel', () => {
    for (const header of ['<a>; rel=""', '<a>; rel="  "']) {
      const result = parseLinkHeader(header, BASE);
      expect(only(result).rels).toEqual([]);
      expect(result.errors).toEqual(['link 1: empty rel (RFC 8288 §3.3)']);
    }
  });

  it('reports "rel=" with no value', () => {
    const result = parseLinkHeader('<a>; rel=, <b>; rel=next', BASE);
    expect(summary(result)).toEqual([
      { target: 'https://api.example.com/v1/a', rels: [] },
      { target: 'https://api.example.com/v1/b', rels: ['next'] },
    ]);
    expect(result.errors).toEqual([
      'link 1: parameter "rel" has "=" but no value',
      'link 1: empty rel (RFC 8288 §3.3)',
    ]);
  });

  it('recovers at the next top-level comma after garbage', () => {
    const result = parseLinkHeader(
      'garbage "with, comma", <https://x.test/2>; rel=next, ;;, <https://x.test/3>; rel=last',
      BASE,
    );
    expect(summary(result)).toEqual([
      { target: 'https://x.test/2', rels: ['next'] },
      { target: 'https://x.test/3', rels: ['last'] },
    ]);
    expect(result.errors).toEqual([
      'link 1: expected "<" to start a link-value, found "g"',
      'link 3: expected "<" to start a link-value, found ";"',
    ]);
  });

  it('reports a bare URL without angle brackets', () => {
    const result = parseLinkHeader('https://x.test/2; rel=next', BASE);
    expect(result.links).toEqual([]);
    expect(result.errors).toEqual(['link 1: expected "<" to start a link-value, found "h"']);
  });

  it('reports an unterminated <...> and stops that line', () => {
    const result = parseLinkHeader('<https://x.test/1>; rel=first, <https://x.test/2; rel=next, x', BASE);
    expect(summary(result)).toEqual([{ target: 'https://x.test/1', rels: ['first'] }]);
    expect(result.errors).toEqual(['link 2: unterminated <...>']);
  });

  it('reports an unterminated quoted-string', () => {
    const result = parseLinkHeader('<a>; rel=next; title="never closed, <b>; rel=prev', BASE);
    expect(only(result).params).toEqual({ rel: 'next', title: 'never closed, <b>; rel=prev' });
    expect(result.errors).toEqual(['link 1: unterminated quoted-string in the value of "title"']);
  });

  it('reports a trailing or doubled ";"', () => {
    const result = parseLinkHeader('<a>; rel=next ;, <b>;; rel=prev', BASE);
    expect(summary(result).map((l) => l.rels)).toEqual([['next'], ['prev']]);
    expect(result.errors).toEqual([
      'link 1: expected a parameter name after ";", found ","',
      'link 2: expected a parameter name after ";", found ";"',
    ]);
  });

  it('reports junk after a quoted value or after the target, and keeps later params', () => {
    const result = parseLinkHeader('<a> junk; rel=next; title="t"x; hreflang=de', BASE);
    expect(only(result).params).toEqual({ rel: 'next', title: 't', hreflang: 'de' });
    expect(result.errors).toEqual([
      'link 1: unexpected "j" where ";" or "," was expected',
      'link 1: unexpected "x" where ";" or "," was expected',
    ]);
  });

  it('does not crash on a lone unquoted rel with a second token, and says why it is wrong', () => {
    const result = parseLinkHeader('<https://x.test/2>; rel=next prev', BASE);
    expect(only(result).rels).toEqual(['next', 'prev']);
    expect(result.errors).toEqual([
      'link 1: unquoted rel value "next prev" contains whitespace; several relation types must be quoted (RFC 8288 §3.3)',
    ]);
  });

  it('reports a missing comma between links', () => {
    const result = parseLinkHeader('<https://x.test/2>; rel="next" <https://x.test/3>; rel="last"', BASE);
    expect(result.links[0]?.rels).toEqual(['next']);
    expect(result.errors[0]).toBe('link 1: unexpected "<" where ";" or "," was expected');
  });

  it('caps the number of errors', () => {
    const result = parseLinkHeader('x,'.repeat(1000), BASE);
    expect(result.errors).toHaveLength(MAX_ERRORS + 1);
    expect(result.errors.at(-1)).toMatch(/^more than \d+ errors/);
  });
});

describe('linksWithRel', () => {
  const result = parseLinkHeader(
    '<https://x.test/1>; rel="First Prev", <https://x.test/5>; rel=LAST, <https://x.test/0>; title=none',
    BASE,
  );

  it('matches case-insensitively and by any of several relation types', () => {
    expect(linksWithRel(result, 'prev').map((l) => l.target)).toEqual(['https://x.test/1']);
    expect(linksWithRel(result, 'FIRST').map((l) => l.target)).toEqual(['https://x.test/1']);
    expect(linksWithRel(result, 'Last').map((l) => l.target)).toEqual(['https://x.test/5']);
  });

  it('returns nothing for an absent relation type, and never matches links without rel', () => {
    expect(linksWithRel(result, 'next')).toEqual([]);
    expect(linksWithRel(result, '')).toEqual([]);
  });
});

describe('parseLinkHeader: robustness', () => {
  const alphabet = [
    '<',
    '>',
    ';',
    ',',
    '"',
    '\\',
    '=',
    ' ',
    '\t',
    'rel',
    'REL',
    'next',
    'title*',
    '?',
    '/',
    '..',
    'a',
    'é',
    '\u0000',
    "'",
    '%',
  ];

  it('never throws on random input and keeps its invariants', () => {
    const random = prng(8288);
    for (let round = 0; round < 3000; round++) {
      const length = Math.floor(random() * 40);
      let header = '';
      for (let i = 0; i < length; i++) header += alphabet[Math.floor(random() * alphabet.length)] ?? '';
      const result = parseLinkHeader(random() < 0.5 ? header : header.split(','), BASE);
      expect(result.errors.length).toBeLessThanOrEqual(MAX_ERRORS + 1);
      for (const link of result.links) {
        expect(typeof link.target).toBe('string');
        expect(new Set(link.rels).size).toBe(link.rels.length);
        expect(link.rels.every((rel) => rel !== '' && rel === rel.toLowerCase())).toBe(true);
      }
    }
  });

  it('does bounded work on large pathological input', () => {
    const size = 300_000;
    const inputs = [
      '<'.repeat(size),
      '"'.repeat(size),
      `<a>${'; x'.repeat(size / 3)}`,
      `<a>; title="${'\\"'.repeat(size / 2)}`,
      `<a>; rel=${'next '.repeat(size / 5)}`,
      ',<a>;rel=next'.repeat(size / 13),
      ' '.repeat(size),
      `<a>${'>'.repeat(size)}`,
    ];
    const started = performance.now();
    for (const input of inputs) expect(() => parseLinkHeader(input, BASE)).not.toThrow();
    // Quadratic behaviour on 300k characters would take minutes; linear work takes milliseconds.
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});
