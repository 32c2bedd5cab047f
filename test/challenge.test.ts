// Unit tests for the WWW-Authenticate parser (RFC 9110 §11.6.1, §11.2; RFC 6750 §3; RFC 7617 §2)
// and for the shared RFC 9110 lexer it is built on.
import { describe, expect, it } from 'vitest';
import { findChallenge, parseChallenges } from '../src/http/challenge.js';
import type { Challenge, ChallengeParseResult } from '../src/http/challenge.js';
import {
  MAX_ERRORS,
  isToken,
  isToken68,
  readQuotedString,
  readToken,
  readToken68,
  skipOws,
  skipToDelimiter,
  toFieldLines,
  trimTrailingOws,
} from '../src/http/header-grammar.js';
import { prng } from './support/prng.js';

/** Plain objects for toEqual, with token68 only when present. */
function plain(result: ChallengeParseResult): Challenge[] {
  return result.challenges.map((c) => ({ ...c, params: { ...c.params } }));
}

describe('header-grammar lexer (RFC 9110 §5.6)', () => {
  it('skips OWS (SP and HTAB only)', () => {
    expect(skipOws(' \t x', 0)).toBe(3);
    expect(skipOws('x', 0)).toBe(0);
    expect(skipOws('  ', 0)).toBe(2);
    expect(skipOws('\r\n', 0)).toBe(0);
  });

  it('reads tokens (tchar set of §5.6.2)', () => {
    expect(readToken("a!#$%&'*+-.^_`|~9Z rest", 0)).toEqual({ value: "a!#$%&'*+-.^_`|~9Z", end: 18 });
    expect(readToken('realm="x"', 0)).toEqual({ value: 'realm', end: 5 });
    for (const notTchar of [
      '"',
      '(',
      ')',
      ',',
      '/',
      ':',
      ';',
      '<',
      '=',
      '>',
      '?',
      '@',
      '[',
      '\\',
      ']',
      '{',
      '}',
      ' ',
      'é',
    ]) {
      expect(readToken(notTchar, 0)).toBeUndefined();
    }
    expect(isToken('application')).toBe(true);
    expect(isToken('text/html')).toBe(false);
    expect(isToken('')).toBe(false);
  });

  it('reads quoted-strings with quoted-pairs (§5.6.4)', () => {
    expect(readQuotedString('"a, b; c" tail', 0)).toEqual({ value: 'a, b; c', end: 9, terminated: true });
    expect(readQuotedString('"Login to \\"apps\\""', 0)).toEqual({
      value: 'Login to "apps"',
      end: 19,
      terminated: true,
    });
    expect(readQuotedString('"a\\\\b\\c"', 0)).toEqual({ value: 'a\\bc', end: 8, terminated: true });
    expect(readQuotedString('""', 0)).toEqual({ value: '', end: 2, terminated: true });
    expect(readQuotedString('x"a"', 1)).toEqual({ value: 'a', end: 4, terminated: true });
    expect(readQuotedString('abc', 0)).toBeUndefined();
  });

  it('reports unterminated quoted-strings, including one ending in a lone backslash', () => {
    expect(readQuotedString('"abc', 0)).toEqual({ value: 'abc', end: 4, terminated: false });
    expect(readQuotedString('"abc\\', 0)).toEqual({ value: 'abc', end: 5, terminated: false });
    expect(readQuotedString('"abc\\"', 0)).toEqual({ value: 'abc"', end: 6, terminated: false });
  });

  it('reads token68 with "=" padding (§11.2)', () => {
    expect(readToken68('YWxhZGRpbjpvcGVuc2VzYW1l==, x', 0)).toEqual({ value: 'YWxhZGRpbjpvcGVuc2VzYW1l==', end: 26 });
    expect(readToken68('a-._~+/b=', 0)).toEqual({ value: 'a-._~+/b=', end: 9 });
    expect(readToken68('==', 0)).toBeUndefined();
    expect(readToken68('a=b', 0)).toEqual({ value: 'a=', end: 2 });
    expect(isToken68('abc==')).toBe(true);
    expect(isToken68('a=b')).toBe(false);
    expect(isToken68('a!b')).toBe(false);
  });

  it('skips to a delimiter outside quoted-strings and, when asked, outside <...>', () => {
    expect(skipToDelimiter('a "b,c" , d', 0, ',')).toBe(8);
    expect(skipToDelimiter('<a,b>, c', 0, ',')).toBe(2);
    expect(skipToDelimiter('<a,b>, c', 0, ',', { angleBrackets: true })).toBe(5);
    expect(skipToDelimiter('"unterminated, x', 0, ',')).toBe(16);
    expect(skipToDelimiter('no delimiter', 0, ',;')).toBe(12);
  });

  it('trims trailing OWS and normalises field lines', () => {
    expect(trimTrailingOws('next \t ')).toBe('next');
    expect(toFieldLines(undefined)).toEqual([]);
    expect(toFieldLines('a')).toEqual(['a']);
    expect(toFieldLines(['a', 'b'])).toEqual(['a', 'b']);
  });
});

describe('parseChallenges: well-formed fields', () => {
  it('parses several challenges on one line with commas inside quoted values', () => {
    const result = parseChallenges(
      'Basic realm="a, b", charset="UTF-8", Bearer realm="api", error="invalid_token", error_description="The token expired"',
    );
    expect(result.errors).toEqual([]);
    expect(plain(result)).toEqual([
      { scheme: 'Basic', params: { realm: 'a, b', charset: 'UTF-8' } },
      { scheme: 'Bearer', params: { realm: 'api', error: 'invalid_token', error_description: 'The token expired' } },
    ]);
  });

  it('parses the RFC 9110 §11.6.1 example', () => {
    const result = parseChallenges('Basic realm="simple", Newauth realm="apps", type=1, title="Login to \\"apps\\""');
    expect(result.errors).toEqual([]);
    expect(plain(result)).toEqual([
      { scheme: 'Basic', params: { realm: 'simple' } },
      { scheme: 'Newauth', params: { realm: 'apps', type: '1', title: 'Login to "apps"' } },
    ]);
  });

  it('parses challenges spread over several field lines', () => {
    const result = parseChallenges([
      'Newauth realm="apps", type=1, title="Login to \\"apps\\""',
      'Basic realm="simple"',
    ]);
    expect(result.errors).toEqual([]);
    expect(result.challenges.map((c) => c.scheme)).toEqual(['Newauth', 'Basic']);
    expect(findChallenge(result, 'newauth')?.params.title).toBe('Login to "apps"');
  });

  it('attaches an auth-param at the start of a line to the last challenge of the previous line (lines are one list)', () => {
    const result = parseChallenges(['Basic realm="x"', 'charset="UTF-8"']);
    expect(plain(result)).toEqual([{ scheme: 'Basic', params: { realm: 'x', charset: 'UTF-8' } }]);
    expect(parseChallenges(['Basic realm="x"', 'charset="UTF-8"'])).toEqual(
      parseChallenges('Basic realm="x", charset="UTF-8"'),
    );
  });

  it('parses the RFC 6750 §3 examples', () => {
    expect(plain(parseChallenges('Bearer realm="example"'))).toEqual([
      { scheme: 'Bearer', params: { realm: 'example' } },
    ]);
    const expired = parseChallenges(
      'Bearer realm="example", error="invalid_token", error_description="The access token expired"',
    );
    expect(expired.errors).toEqual([]);
    expect(findChallenge(expired, 'Bearer')?.params).toEqual({
      realm: 'example',
      error: 'invalid_token',
      error_description: 'The access token expired',
    });
    const scope = parseChallenges('Bearer realm="example", error="insufficient_scope", scope="read:users write:users"');
    expect(findChallenge(scope, 'bearer')?.params.scope).toBe('read:users write:users');
  });

  it('parses the RFC 7617 §2.1 example', () => {
    const result = parseChallenges('Basic realm="foo", charset="UTF-8"');
    expect(plain(result)).toEqual([{ scheme: 'Basic', params: { realm: 'foo', charset: 'UTF-8' } }]);
  });

  it('parses a bare scheme (older Spring Security sends bare Bearer)', () => {
    const result = parseChallenges('Bearer');
    expect(result).toEqual({ challenges: [{ scheme: 'Bearer', params: {} }], errors: [] });
    expect(result.challenges[0]?.token68).toBeUndefined();
    expect(plain(parseChallenges('Bearer, Basic realm="x"'))).toEqual([
      { scheme: 'Bearer', params: {} },
      { scheme: 'Basic', params: { realm: 'x' } },
    ]);
  });

  it('parses an unquoted token value like a quoted one (RFC 9110 §11.2)', () => {
    expect(plain(parseChallenges('Bearer realm=api'))).toEqual(plain(parseChallenges('Bearer realm="api"')));
    expect(parseChallenges('Bearer realm=api').errors).toEqual([]);
  });

  it('parses token68 (RFC 9110 §11.2)', () => {
    expect(plain(parseChallenges('Negotiate abc=='))).toEqual([{ scheme: 'Negotiate', token68: 'abc==', params: {} }]);
    expect(plain(parseChallenges('Negotiate YIIB+/9kA=, NTLM, Basic realm="r"'))).toEqual([
      { scheme: 'Negotiate', token68: 'YIIB+/9kA=', params: {} },
      { scheme: 'NTLM', params: {} },
      { scheme: 'Basic', params: { realm: 'r' } },
    ]);
    expect(plain(parseChallenges('Negotiate abc'))).toEqual([{ scheme: 'Negotiate', token68: 'abc', params: {} }]);
  });

  it('skips empty list elements (RFC 9110 §5.6.1.2)', () => {
    const result = parseChallenges(' , Basic realm="x" ,, , charset="UTF-8" ,Bearer,, ');
    expect(result.errors).toEqual([]);
    expect(plain(result)).toEqual([
      { scheme: 'Basic', params: { realm: 'x', charset: 'UTF-8' } },
      { scheme: 'Bearer', params: {} },
    ]);
    for (const empty of [undefined, '', ' ', ',', [], ['', ', ,']])
      expect(parseChallenges(empty)).toEqual({ challenges: [], errors: [] });
  });

  it('keeps the scheme as sent and lower-cases parameter names', () => {
    const result = parseChallenges('bEaReR Realm="x", ERROR=invalid_token');
    expect(plain(result)).toEqual([{ scheme: 'bEaReR', params: { realm: 'x', error: 'invalid_token' } }]);
  });

  it('accepts BWS around "="', () => {
    const result = parseChallenges('Newauth realm = "apps" , type\t=\t1, Basic realm ="x"');
    expect(result.errors).toEqual([]);
    expect(plain(result)).toEqual([
      { scheme: 'Newauth', params: { realm: 'apps', type: '1' } },
      { scheme: 'Basic', params: { realm: 'x' } },
    ]);
  });

  it('keeps "=", "," and escaped characters inside quoted values', () => {
    const result = parseChallenges('Bearer error_description="a=b, c=\\"d\\", e\\\\f", realm="r"');
    expect(findChallenge(result, 'bearer')?.params).toEqual({ error_description: 'a=b, c="d", e\\f', realm: 'r' });
    expect(result.errors).toEqual([]);
  });

  it('treats parameter names such as __proto__ as plain keys', () => {
    const params = parseChallenges('X __proto__=a, constructor="b"').challenges[0]?.params;
    expect(params === undefined ? [] : Object.entries(params)).toEqual([
      ['__proto__', 'a'],
      ['constructor', 'b'],
    ]);
  });
});

describe('parseChallenges: where one challenge ends and the next begins', () => {
  // Each row: field value, expected [scheme, token68 | undefined, params][].
  const cases: readonly (readonly [
    string,
    readonly (readonly [string, string | undefined, Record<string, string>])[],
  ])[] = [
    ['A', [['A', undefined, {}]]],
    [
      'A, B',
      [
        ['A', undefined, {}],
        ['B', undefined, {}],
      ],
    ],
    ['A b=c', [['A', undefined, { b: 'c' }]]],
    ['A b=c, d=e', [['A', undefined, { b: 'c', d: 'e' }]]],
    [
      'A b=c, D e=f',
      [
        ['A', undefined, { b: 'c' }],
        ['D', undefined, { e: 'f' }],
      ],
    ],
    [
      'A b=c, D, e=f',
      [
        ['A', undefined, { b: 'c' }],
        ['D', undefined, { e: 'f' }],
      ],
    ],
    [
      'A b=c, D tok68==',
      [
        ['A', undefined, { b: 'c' }],
        ['D', 'tok68==', {}],
      ],
    ],
    ['A b="x, C d=e"', [['A', undefined, { b: 'x, C d=e' }]]],
    [
      'A b = c, D e = "f"',
      [
        ['A', undefined, { b: 'c' }],
        ['D', undefined, { e: 'f' }],
      ],
    ],
    ['A b==', [['A', 'b==', {}]]],
    ['A b=', [['A', 'b=', {}]]], // grammatical token68, though it looks like a forgotten value
    ['A b', [['A', 'b', {}]]],
    ['A  b=c', [['A', undefined, { b: 'c' }]]],
  ];

  it.each(cases)('%s', (value, expected) => {
    const result = parseChallenges(value);
    expect(result.errors).toEqual([]);
    expect(plain(result)).toEqual(
      expected.map(([scheme, token68, params]) =>
        token68 === undefined ? { scheme, params } : { scheme, token68, params },
      ),
    );
  });
});

describe('parseChallenges: grammar errors', () => {
  it('reports duplicate parameters and keeps the first (RFC 9110 §11.2, RFC 6750 §3)', () => {
    const result = parseChallenges('Bearer realm="a", error="invalid_token", Realm="b", ERROR=x');
    expect(findChallenge(result, 'bearer')?.params).toEqual({ realm: 'a', error: 'invalid_token' });
    expect(result.errors).toEqual([
      'challenge 1 (Bearer): duplicate parameter "realm"; the first value is kept (RFC 9110 §11.2)',
      'challenge 1 (Bearer): duplicate parameter "error"; the first value is kept (RFC 9110 §11.2)',
    ]);
  });

  it('allows the same parameter in different challenges', () => {
    const result = parseChallenges('Basic realm="a", Bearer realm="b"');
    expect(result.errors).toEqual([]);
    expect(findChallenge(result, 'basic')?.params.realm).toBe('a');
    expect(findChallenge(result, 'bearer')?.params.realm).toBe('b');
  });

  it('reports an auth-param before any scheme', () => {
    const result = parseChallenges('realm="x", Basic');
    expect(plain(result)).toEqual([{ scheme: 'Basic', params: {} }]);
    expect(result.errors).toEqual(['auth-param "realm" appears before any auth-scheme']);
  });

  it('reports an auth-param after a token68', () => {
    const result = parseChallenges('Negotiate abc==, realm="x"');
    expect(plain(result)).toEqual([{ scheme: 'Negotiate', token68: 'abc==', params: {} }]);
    expect(result.errors).toEqual([
      'challenge 1 (Negotiate): auth-param "realm" follows a token68 in the same challenge',
    ]);
  });

  it('reports an auth-param with no value', () => {
    const result = parseChallenges('Bearer realm="x", error=, Basic realm=y');
    expect(plain(result)).toEqual([
      { scheme: 'Bearer', params: { realm: 'x' } },
      { scheme: 'Basic', params: { realm: 'y' } },
    ]);
    expect(result.errors).toEqual(['challenge 1 (Bearer): auth-param "error" has no value (RFC 9110 §11.2)']);
  });

  it('keeps an unquoted non-token value and reports it', () => {
    const result = parseChallenges('Bearer realm=x, error_uri=https://example.com/errors#invalid, error=invalid_token');
    expect(findChallenge(result, 'Bearer')?.params).toEqual({
      realm: 'x',
      error_uri: 'https://example.com/errors#invalid',
      error: 'invalid_token',
    });
    expect(result.errors).toEqual([
      'challenge 1 (Bearer): value of "error_uri" must be a token or a quoted-string, got "https://example.com/errors#invalid" (RFC 9110 §11.2)',
    ]);
  });

  it('reports a missing comma between parameters', () => {
    const result = parseChallenges('Bearer realm="x" error="invalid_token", Basic realm="y"');
    expect(plain(result)).toEqual([
      { scheme: 'Bearer', params: { realm: 'x' } },
      { scheme: 'Basic', params: { realm: 'y' } },
    ]);
    expect(result.errors).toEqual(['challenge 1 (Bearer): unexpected "e" where "," was expected']);
  });

  it('reports an unterminated quoted-string and keeps the next line', () => {
    const result = parseChallenges(['Bearer realm="x, error=invalid_token', 'Basic realm="y"']);
    expect(plain(result)).toEqual([
      { scheme: 'Bearer', params: { realm: 'x, error=invalid_token' } },
      { scheme: 'Basic', params: { realm: 'y' } },
    ]);
    expect(result.errors).toEqual(['challenge 1 (Bearer): unterminated quoted-string in the value of "realm"']);
  });

  it('reports an unbalanced quote that closes early', () => {
    const result = parseChallenges('Bearer realm="x, error="invalid_token", Basic realm="y"');
    // The quoted-string ends at the second DQUOTE; the rest up to the next top-level comma is junk.
    expect(findChallenge(result, 'bearer')?.params).toEqual({ realm: 'x, error=' });
    expect(result.errors[0]).toBe('challenge 1 (Bearer): unexpected "i" where "," was expected');
  });

  it('reports a scheme not followed by a space', () => {
    const result = parseChallenges('Basic"realm", Bearer realm="x"');
    expect(result.challenges.map((c) => c.scheme)).toEqual(['Basic', 'Bearer']);
    expect(result.errors).toEqual(['challenge 1 (Basic): expected a space after the auth-scheme, found "\\""']);
  });

  it('reads but reports HTAB after the scheme (the grammar says 1*SP)', () => {
    const result = parseChallenges('Basic\trealm="x"');
    expect(plain(result)).toEqual([{ scheme: 'Basic', params: { realm: 'x' } }]);
    expect(result.errors).toEqual([
      'challenge 1 (Basic): the auth-scheme must be followed by spaces, not HTAB (RFC 9110 §11.6.1)',
    ]);
  });

  it('reports what is neither a token68 nor an auth-param after the scheme', () => {
    const result = parseChallenges('Negotiate abc== def, Basic realm="r"');
    expect(result.challenges.map((c) => c.scheme)).toEqual(['Negotiate', 'Basic']);
    expect(result.challenges[0]?.token68).toBeUndefined();
    expect(result.errors).toEqual([
      'challenge 1 (Negotiate): expected a token68 or an auth-param after the auth-scheme, found "a"',
    ]);
  });

  it('recovers from garbage at the next comma outside quotes', () => {
    const result = parseChallenges('"junk, more", @@@, Bearer realm="x"');
    expect(plain(result)).toEqual([{ scheme: 'Bearer', params: { realm: 'x' } }]);
    expect(result.errors).toEqual([
      'expected an auth-scheme or auth-param, found "\\""',
      'expected an auth-scheme or auth-param, found "@"',
    ]);
  });

  it('caps the number of errors', () => {
    const result = parseChallenges('@,'.repeat(1000));
    expect(result.errors).toHaveLength(MAX_ERRORS + 1);
  });
});

describe('findChallenge', () => {
  const result = parseChallenges('Basic realm="a", bearer realm="b", Bearer realm="c"');

  it('matches the scheme case-insensitively and returns the first match (RFC 9110 §11.1)', () => {
    expect(findChallenge(result, 'BEARER')?.params.realm).toBe('b');
    expect(findChallenge(result, 'basic')?.scheme).toBe('Basic');
  });

  it('returns undefined when there is no such scheme', () => {
    expect(findChallenge(result, 'Digest')).toBeUndefined();
    expect(findChallenge(parseChallenges(undefined), 'Basic')).toBeUndefined();
  });
});

describe('parseChallenges: robustness', () => {
  const alphabet = [
    'Basic',
    'Bearer',
    ' ',
    '\t',
    ',',
    '=',
    '==',
    '"',
    '\\',
    'realm',
    'abc',
    '/',
    '+',
    '@',
    'é',
    '\u0000',
  ];

  it('never throws on random input and keeps its invariants', () => {
    const random = prng(9110);
    for (let round = 0; round < 3000; round++) {
      const length = Math.floor(random() * 30);
      let value = '';
      for (let i = 0; i < length; i++) value += alphabet[Math.floor(random() * alphabet.length)] ?? '';
      const result = parseChallenges(random() < 0.5 ? value : value.split(','));
      expect(result.errors.length).toBeLessThanOrEqual(MAX_ERRORS + 1);
      for (const challenge of result.challenges) {
        expect(isToken(challenge.scheme)).toBe(true);
        if (challenge.token68 !== undefined) {
          expect(isToken68(challenge.token68)).toBe(true);
          expect(Object.keys(challenge.params)).toEqual([]);
        }
      }
    }
  });

  it('does bounded work on large pathological input', () => {
    const size = 300_000;
    const inputs = [
      'Basic '.repeat(size / 6),
      `Basic ${'a=b, '.repeat(size / 5)}`,
      `Basic ${Array.from({ length: size / 8 }, (_, i) => `k${i}=v`).join(', ')}`,
      '"'.repeat(size),
      '='.repeat(size),
      `Negotiate ${'a'.repeat(size)}${'='.repeat(size)}`,
      `Bearer realm="${'\\"'.repeat(size / 2)}`,
    ];
    const started = performance.now();
    for (const input of inputs) expect(() => parseChallenges(input)).not.toThrow();
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});
