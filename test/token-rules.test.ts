/**
 * The token rules of issue 38 as units: expires_in judged as written (RFC 6749 §A.14), the
 * lifetime no short-lived token has (spec §What the service does 1), and the grants libraries
 * ship (spec §Obtain an access token). The runs against servers are in test/meta (the reference
 * server's faults and variants) and test/oauth-servers.test.ts (the libraries).
 */
import { describe, expect, it } from 'vitest';
import { numberSource } from '../src/carrier/json-source.js';
import { OTHER_GRANTS } from '../src/battery/other-grants.js';
import { SHORT_LIVED_MAX_SECONDS, describeDuration, lifetimeProblem } from '../src/carrier/token-lifetime.js';
import { expiresInProblem } from '../src/battery/token-response.js';

describe('numberSource: a top-level number as written', () => {
  it.each([
    ['{"access_token":"a","expires_in":3600}', '3600'],
    ['{"expires_in": 3600.0, "token_type":"bearer"}', '3600.0'],
    ['{"expires_in":3.6e3}', '3.6e3'],
    ['{ "expires_in" :\n\t36E+2 }', '36E+2'],
    ['{"expires\\u005fin":3600.0}', '3600.0'],
    // Last one wins, as for JSON.parse.
    ['{"expires_in":1.0,"expires_in":3600}', '3600'],
    // Nested members and look-alikes inside strings are not the top-level member.
    ['{"meta":{"expires_in":1.5},"note":"\\"expires_in\\":2.5","expires_in":60}', '60'],
    ['{"list":[{"expires_in":1.5}],"expires_in":60}', '60'],
  ])('%s → %s', (text, expected) => {
    expect(numberSource(text, 'expires_in')).toBe(expected);
  });

  it.each([
    '{"expires_in":"3600"}',
    '{"expires_in":null}',
    '{"other":1}',
    '{"expires_in":3600.0,"expires_in":"x"}',
    '[{"expires_in":1}]',
  ])('%s → undefined', (text) => {
    expect(numberSource(text, 'expires_in')).toBeUndefined();
  });

  it('reads a long body in one pass', () => {
    const text = `{"pad":"${'x'.repeat(2_000_000)}","items":[${'{"a":[1,2,{"b":"}]"}]},'.repeat(20_000)}0],"expires_in":3600.0}`;
    const started = performance.now();
    expect(numberSource(text, 'expires_in')).toBe('3600.0');
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('expiresInProblem: TOKEN-EXPIRES-IN and LEGACY-TOKEN', () => {
  const judge = (text: string): string | undefined =>
    expiresInProblem(JSON.parse(text) as Record<string, unknown>, text);

  it('passes digits only', () => {
    expect(judge('{"expires_in":3600}')).toBeUndefined();
  });

  it.each([
    ['{"expires_in":3600.0}', '3600.0'],
    ['{"expires_in":3.6e3}', '3.6e3'],
    ['{"expires_in":36e2}', '36e2'],
  ])('fails %s, which JSON.parse reads as 3600, naming the lexical form', (text, written) => {
    expect(judge(text)).toBe(
      `expected expires_in written as an integer, digits only (RFC 6749 §A.14: expires-in = 1*DIGIT), got ${written}: typed clients refuse it (Go's encoding/json will not decode ${written} into an int)`,
    );
  });

  it.each([
    ['{"expires_in":"3600"}', 'expected expires_in to be a JSON number, got the string "3600"'],
    ['{"expires_in":59.5}', 'expected expires_in to be a positive integer, got 59.5'],
    ['{"expires_in":0}', 'expected expires_in to be a positive integer, got 0'],
    ['{}', 'expected expires_in to be a JSON number, got no such field'],
  ])('fails %s by value, as before', (text, message) => {
    expect(judge(text)).toBe(message);
  });
});

describe('lifetimeProblem: TOKEN-SHORT-LIVED', () => {
  it.each([60, 300, 600, 3600, 43_200, SHORT_LIVED_MAX_SECONDS])('%i s is short-lived', (seconds) => {
    expect(lifetimeProblem(seconds)).toBeUndefined();
  });

  it('names milliseconds for a whole number of minutes in milliseconds', () => {
    expect(lifetimeProblem(3_600_000)).toBe(
      'expires_in 3600000 declares a token that lives 41 days 16 h: no short-lived token (spec §What the service does 1) lives longer than a day (86400 s). Read as milliseconds it is 1 h: a lifetime in milliseconds, where spec §Access token response says seconds, is the likely cause',
    );
    expect(lifetimeProblem(300_000)).toMatch(
      /lives 3 days 11 h: .* Read as milliseconds it is 5 min: a lifetime in milliseconds/,
    );
    expect(lifetimeProblem(120_000)).toMatch(/lives 1 day 9 h: .* Read as milliseconds it is 2 min/);
  });

  it('asks, without claiming, for a long lifetime that is no round number of milliseconds', () => {
    expect(lifetimeProblem(2_592_000)).toBe(
      'expires_in 2592000 declares a token that lives 30 days: no short-lived token (spec §What the service does 1) lives longer than a day (86400 s). If it is meant in milliseconds (spec §Access token response says seconds), it is 43 min 12 s',
    );
  });

  it('describes durations as a reader takes them in', () => {
    expect([0, 1, 59, 60, 3600, 3661, 86_400, 90_000, 172_800].map(describeDuration)).toEqual([
      '0 s',
      '1 s',
      '59 s',
      '1 min',
      '1 h',
      '1 h 1 min',
      '1 day',
      '1 day 1 h',
      '2 days',
    ]);
  });
});

describe('OTHER_GRANTS: the probes of TOKEN-GRANT-OTHERS', () => {
  const target = { baseUrl: 'https://api.example', authUrl: 'https://auth.example/base' };

  it('sends the grants libraries ship, each with made-up material that differs per request', () => {
    expect(OTHER_GRANTS.map((g) => g.grantType)).toEqual([
      'password',
      'authorization_code',
      'refresh_token',
      'urn:ietf:params:oauth:grant-type:jwt-bearer',
      'urn:ietf:params:oauth:grant-type:device_code',
      'urn:ietf:params:oauth:grant-type:token-exchange',
    ]);
    for (const grant of OTHER_GRANTS)
      expect(grant.params('client', target)).not.toEqual(grant.params('client', target));
  });

  it('the JWT bearer assertion carries the claims RFC 7523 §3 requires, for this client and token endpoint', () => {
    const assertion =
      OTHER_GRANTS.find((g) => g.grantType.endsWith('jwt-bearer'))?.params('my-client', target).assertion ?? '';
    const [header, payload, signature] = assertion.split('.');
    expect(JSON.parse(Buffer.from(header ?? '', 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()) as Record<string, unknown>;
    expect(claims).toMatchObject({
      iss: 'my-client',
      sub: 'my-client',
      aud: 'https://auth.example/base/uaa/oauth2/token',
    });
    expect(Number(claims.exp)).toBeGreaterThan(Date.now() / 1000);
    expect(signature).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
