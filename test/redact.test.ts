// The redactor (src/core/redact.ts) and the RFC 6749 §2.3.1 Basic credentials (src/core/basic-credentials.ts).
import { describe, expect, it } from 'vitest';
import { encodeBasicCredentials, formEncode, needsFormEncoding } from '../src/core/basic-credentials.js';
import { Redactor, redactedMarker } from '../src/core/redact.js';

const CLIENT_ID = 'conformance:client';
/** Every character that is spelled differently in a form, a URL, JSON or Base64. */
const SECRET = 's3cr+t%2F:&=x y é-K9';

function withClient(): Redactor {
  const r = new Redactor();
  r.addClientCredentials(CLIENT_ID, SECRET);
  return r;
}

describe('Redactor: the client credentials', () => {
  const spellings: readonly (readonly [string, string, string])[] = [
    ['raw', SECRET, '[REDACTED:client-secret]'],
    ['percent-encoded', encodeURIComponent(SECRET), '[REDACTED:client-secret]'],
    ['form-encoded', formEncode(SECRET), '[REDACTED:client-secret]'],
    ['JSON-escaped', JSON.stringify(SECRET).slice(1, -1), '[REDACTED:client-secret]'],
    ['Basic credentials (RFC 6749 §2.3.1)', encodeBasicCredentials(CLIENT_ID, SECRET), '[REDACTED:basic-credentials]'],
    [
      'naive Basic credentials',
      Buffer.from(`${CLIENT_ID}:${SECRET}`, 'utf8').toString('base64'),
      '[REDACTED:basic-credentials]',
    ],
  ];

  it('the spellings differ from one another (the cases below test something)', () => {
    expect(new Set(spellings.map(([, s]) => s)).size).toBe(spellings.length - 1); // raw and JSON-escaped coincide for this secret
    expect(formEncode(SECRET)).not.toBe(encodeURIComponent(SECRET));
    expect(encodeBasicCredentials(CLIENT_ID, SECRET)).not.toBe(
      Buffer.from(`${CLIENT_ID}:${SECRET}`).toString('base64'),
    );
  });

  it.each(spellings)('redacts the %s spelling anywhere in a text', (_what, spelling, marker) => {
    const text = `before ${spelling} middle ${spelling}after`;
    expect(withClient().redact(text)).toBe(`before ${marker} middle ${marker}after`);
  });

  it('redacts the JSON-escaped spelling of a secret with quotes and backslashes', () => {
    const r = new Redactor();
    const secret = 'a"b\\c/d';
    r.addSecret(secret, 'client-secret');
    const body = JSON.stringify({ echo: secret });
    expect(body).toContain('a\\"b\\\\c');
    expect(r.redact(body)).toBe('{"echo":"[REDACTED:client-secret]"}');
  });

  it('leaves text without secrets alone', () => {
    expect(withClient().redact('grant_type=client_credentials&scope=read')).toBe(
      'grant_type=client_credentials&scope=read',
    );
  });
});

describe('Redactor: the client secret echoed in an encoding (hostile targets)', () => {
  const html = (text: string): string =>
    text
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&#39;');
  const secret = `${SECRET}<'">`;
  const encodings: readonly (readonly [string, string])[] = [
    ['hex', Buffer.from(secret).toString('hex')],
    ['upper-case hex', Buffer.from(secret).toString('hex').toUpperCase()],
    ['Base64', Buffer.from(secret).toString('base64')],
    ['URL-safe Base64', Buffer.from(secret).toString('base64url')],
    ['HTML escapes', html(secret)],
    [
      'HTML escapes, numeric',
      secret
        .replace(/"/g, '&#34;')
        .replace(/'/g, '&#x27;')
        .replace(/&(?!#)/g, '&amp;')
        .replace(/</g, '&lt;')
        .replace(/>/g, '&gt;'),
    ],
    [
      'decimal character references',
      Array.from(secret)
        .map((c) => `&#${c.codePointAt(0) ?? 0};`)
        .join(''),
    ],
    [
      'hex character references',
      Array.from(secret)
        .map((c) => `&#x${(c.codePointAt(0) ?? 0).toString(16)};`)
        .join(''),
    ],
  ];

  it.each(encodings)('%s of the bare secret is redacted', (_what, encoded) => {
    const r = new Redactor();
    r.addClientCredentials(CLIENT_ID, secret);
    expect(encoded).not.toContain(secret);
    const out = r.redact(`{"echo":"${encoded}"}`);
    expect(out).toContain('[REDACTED:client-secret]');
    expect(out).not.toContain(encoded.slice(0, 12));
  });
});

describe('Redactor: registration', () => {
  it('replaces the longest secret first, so a secret inside a longer one is not half-replaced', () => {
    const r = new Redactor();
    r.addSecret('abcd', 'secret');
    r.addSecret('abcdefgh-token', 'access-token');
    expect(r.redact('x abcdefgh-token y abcd z')).toBe('x [REDACTED:access-token] y [REDACTED:secret] z');
  });

  it('orders by length whatever the registration order', () => {
    const r = new Redactor();
    r.addSecret('long-secret-value', 'access-token');
    r.addSecret('secret', 'client-secret');
    expect(r.redact('long-secret-value secret')).toBe('[REDACTED:access-token] [REDACTED:client-secret]');
  });

  it.each(['', 'a', 'ab', 'abc'])('does not register %j (shorter than 4 characters)', (value) => {
    const r = new Redactor();
    r.addSecret(value);
    expect(r.redact(`x${value}y abc ab a`)).toBe(`x${value}y abc ab a`);
  });

  it('registers a secret of exactly 4 characters', () => {
    const r = new Redactor();
    r.addSecret('abcd');
    expect(r.redact('xabcdx')).toBe(`x${redactedMarker('secret')}x`);
  });

  it('ignores undefined', () => {
    const r = new Redactor();
    r.addSecret(undefined);
    expect(r.redact('undefined')).toBe('undefined');
  });

  it('keeps the kind of the first registration of a value', () => {
    const r = new Redactor();
    r.addSecret('same-value', 'client-secret');
    r.addSecret('same-value', 'access-token');
    expect(r.redact('same-value')).toBe('[REDACTED:client-secret]');
  });
});

describe('Redactor.redactHeader', () => {
  it.each([
    ['Authorization', 'Bearer an-unknown-token', 'Bearer [REDACTED]'],
    ['authorization', 'Basic dW5rbm93bjpjcmVkZW50aWFscw==', 'Basic [REDACTED]'],
    ['AUTHORIZATION', 'Bearer\tx-y-z-token', 'Bearer\t[REDACTED]'],
    ['Proxy-Authorization', 'Basic Zm9vOmJhcg==', 'Basic [REDACTED]'],
    ['Authorization', 'Bearer', '[REDACTED]'],
    ['Cookie', 'session=abc123; theme=dark', '[REDACTED]'],
    ['Set-Cookie', 'session=abc123; HttpOnly', '[REDACTED]'],
    ['X-Api-Key', 'k-123456', '[REDACTED]'],
    ['Content-Type', 'application/json', 'application/json'],
  ])('%s: %j → %j', (name, value, expected) => {
    expect(new Redactor().redactHeader(name, value)).toBe(expected);
  });

  it('keeps the scheme and shows the kind of a known credential', () => {
    const r = withClient();
    expect(r.redactHeader('Authorization', `Basic ${encodeBasicCredentials(CLIENT_ID, SECRET)}`)).toBe(
      'Basic [REDACTED:basic-credentials]',
    );
    r.addSecret('issued-access-token-1234', 'access-token');
    expect(r.redactHeader('Authorization', 'bearer issued-access-token-1234')).toBe('bearer [REDACTED:access-token]');
  });

  it('leaves a literal credential (keepCredentials) as sent', () => {
    expect(new Redactor().redactHeader('Authorization', 'Bearer %not a token%', true)).toBe('Bearer %not a token%');
  });

  it('still redacts known secrets inside a literal credential', () => {
    const r = withClient();
    expect(r.redactHeader('Authorization', `Bearer ${SECRET}`, true)).toBe('Bearer [REDACTED:client-secret]');
  });

  it('redacts known secrets in other header fields by value', () => {
    expect(withClient().redactHeader('Location', `https://x.test/cb?secret=${encodeURIComponent(SECRET)}`)).toBe(
      'https://x.test/cb?secret=[REDACTED:client-secret]',
    );
  });
});

describe('Redactor: credentials derived from the secret', () => {
  // The wrong secret of TOKEN-WRONG-SECRET is the real one with a suffix: its Basic value shares
  // the Base64 of the real one only up to the last whole 3-byte group, whatever the lengths.
  it.each(['ref secret+%:&=/2026', 'ref secret+%:&=/20267', 'ref secret+%:&=/202678', SECRET])(
    '%j: a Basic value built from it plus a suffix is redacted whole, wherever it appears',
    (secret) => {
      const r = new Redactor();
      r.addClientCredentials('conformance-client', secret);
      for (const suffix of ['-wrong', 'x', 'xy', 'xyz']) {
        const derived = encodeBasicCredentials('conformance-client', `${secret}${suffix}`).replace(/^Basic /, '');
        const naive = Buffer.from(`conformance-client:${secret}${suffix}`, 'utf8').toString('base64');
        for (const credentials of [derived, naive]) {
          const echoed = r.redact(`x-echo-authorization: Basic ${credentials}\n{"seen":"basic ${credentials}"}`);
          // Opaque: not the configured credentials' marker, which a reproduction would fill with them.
          expect(echoed, `${secret} + ${suffix}`).toBe(
            `x-echo-authorization: Basic [REDACTED]\n{"seen":"basic [REDACTED]"}`,
          );
        }
      }
    },
  );

  it('redacts them whole without the word Basic too (a target echoing only the credentials)', () => {
    for (const secret of ['ref secret+%:&=/2026', 'ref secret+%:&=/20267', 'ref secret+%:&=/202678']) {
      const r = new Redactor();
      r.addClientCredentials('conformance-client', secret);
      for (const suffix of ['-wrong', 'x', 'xy']) {
        const derived = encodeBasicCredentials('conformance-client', `${secret}${suffix}`);
        expect(r.redact(`{"echo":"${derived}"}`), `${secret} + ${suffix}`).toBe('{"echo":"[REDACTED]"}');
        expect(r.redact(`{"echo":"${encodeBasicCredentials('conformance-client', secret)}"}`)).toBe(
          '{"echo":"[REDACTED:basic-credentials]"}',
        );
      }
    }
  });

  it('leaves Basic credentials that hold no secret as they are', () => {
    const other = Buffer.from('someone:else').toString('base64');
    expect(withClient().redact(`Authorization: Basic ${other}`)).toBe(`Authorization: Basic ${other}`);
  });
});

describe('Redactor.redactBody', () => {
  it.each(['access_token', 'refresh_token', 'client_secret', 'password', 'token', 'id_token', 'api_key'])(
    'redacts the JSON field %s whatever its value',
    (field) => {
      const body = `{"${field}": "value-never-seen-1", "other": "kept"}`;
      expect(new Redactor().redactBody(body)).toBe(`{"${field}": "[REDACTED]", "other": "kept"}`);
    },
  );

  it('keeps token_type, expires_in and other fields', () => {
    const body = '{"access_token":"a-b-c-d-e","token_type":"bearer","expires_in":3600,"scope":"read"}';
    expect(new Redactor().redactBody(body)).toBe(
      '{"access_token":"[REDACTED]","token_type":"bearer","expires_in":3600,"scope":"read"}',
    );
  });

  it('redacts nested and escaped JSON values without disturbing the rest', () => {
    const body = '{\n  "data": {"password" : "p\\"w\\\\d"},\n  "note": "a \\"quoted\\" text"\n}';
    expect(new Redactor().redactBody(body)).toBe(
      '{\n  "data": {"password" : "[REDACTED]"},\n  "note": "a \\"quoted\\" text"\n}',
    );
  });

  it('redacts form fields by name, also a percent-encoded name', () => {
    const body = 'grant_type=client_credentials&client_secret=abc%2Bdef&client%5Fsecret=xyz&scope=read';
    expect(new Redactor().redactBody(body)).toBe(
      'grant_type=client_credentials&client_secret=[REDACTED]&client%5Fsecret=[REDACTED]&scope=read',
    );
  });

  it('redacts known secrets in a body by value, too', () => {
    expect(withClient().redactBody(`error: the secret ${SECRET} is wrong`)).toBe(
      'error: the secret [REDACTED:client-secret] is wrong',
    );
  });

  it('leaves a body without secrets unchanged', () => {
    for (const body of ['{"id":"u1","tenants":[]}', 'grant_type=client_credentials', 'plain text = fine', '']) {
      expect(new Redactor().redactBody(body)).toBe(body);
    }
  });
});

describe('Redactor.learnFromResponseBody', () => {
  it('registers access_token values, so that later text is redacted', () => {
    const r = new Redactor();
    r.learnFromResponseBody('{"access_token":"eyJhbGciOi.payload.sig","token_type":"bearer","expires_in":60}');
    expect(r.redact('Authorization: Bearer eyJhbGciOi.payload.sig')).toBe(
      'Authorization: Bearer [REDACTED:access-token]',
    );
    expect(r.redactHeader('Authorization', 'Bearer eyJhbGciOi.payload.sig')).toBe('Bearer [REDACTED:access-token]');
  });

  it('registers other token-like fields as secrets, but not token_type', () => {
    const r = new Redactor();
    r.learnFromResponseBody('{"access_token":"at-12345","refresh_token":"rt-67890","token_type":"bearer"}');
    expect(r.redact('at-12345 rt-67890 bearer')).toBe('[REDACTED:access-token] [REDACTED:secret] bearer');
  });

  it.each([
    ['not JSON', 'access_token=at-12345'],
    ['a JSON array', '["access_token", "at-12345"]'],
    ['a token that is not a string', '{"access_token": 1234567}'],
    ['a token shorter than 4 characters', '{"access_token": "at1"}'],
  ])('learns nothing from %s', (_what, body) => {
    const r = new Redactor();
    r.learnFromResponseBody(body);
    expect(r.redact('at-12345 1234567 at1')).toBe('at-12345 1234567 at1');
  });
});

describe('formEncode and encodeBasicCredentials (RFC 6749 §2.3.1, Appendix B)', () => {
  it.each([
    ['space', 'a b', 'a+b'],
    ['plus', 'a+b', 'a%2Bb'],
    ['colon', 'a:b', 'a%3Ab'],
    ['percent', '100%', '100%25'],
    ['ampersand and equals', 'a&b=c', 'a%26b%3Dc'],
    ['non-ASCII as UTF-8', 'é', '%C3%A9'],
    ['unreserved', 'AZaz09-._', 'AZaz09-._'],
    ['the Appendix B example', ' %&+£€', '+%25%26%2B%C2%A3%E2%82%AC'],
  ])('%s: formEncode(%j) is %j', (_what, value, expected) => {
    expect(formEncode(value)).toBe(expected);
  });

  it('form-encodes id and secret before joining them with ":" and Base64', () => {
    const credentials = encodeBasicCredentials('my:client', 'p a+ss');
    expect(Buffer.from(credentials, 'base64').toString('utf8')).toBe('my%3Aclient:p+a%2Bss');
  });

  it('leaves exactly one ":" in the decoded credentials, so the id splits off unambiguously', () => {
    const decoded = Buffer.from(encodeBasicCredentials(CLIENT_ID, SECRET), 'base64').toString('utf8');
    expect(decoded.split(':')).toHaveLength(2);
    const [id = '', secret = ''] = decoded.split(':');
    const formDecode = (s: string): string => decodeURIComponent(s.replace(/\+/g, ' '));
    expect([formDecode(id), formDecode(secret)]).toEqual([CLIENT_ID, SECRET]);
  });

  it('is the plain RFC 7617 encoding when nothing needs form-encoding', () => {
    expect(encodeBasicCredentials('client', 'secret')).toBe(Buffer.from('client:secret').toString('base64'));
  });

  it.each([
    ['client', 'secret', false],
    ['client-1.a_b', 'Secret_09.-', false],
    ['my:client', 'secret', true],
    ['client', 'with space', true],
    ['client', 'a+b', true],
    ['client', 'p%41ss', true],
    ['client', 'é', true],
  ] as const)('needsFormEncoding(%j, %j) is %s', (id, secret, expected) => {
    expect(needsFormEncoding(id, secret)).toBe(expected);
  });
});

describe('redaction, for the cases a review found', () => {
  it('finds a sensitive field after an array holding the string ":" (the tokenizer cannot lose sync)', () => {
    const r = new Redactor();
    expect(r.redactBody('{"a":[":"],"password":"hunter22"}')).toBe('{"a":[":"],"password":"[REDACTED]"}');
    expect(r.redactBody('{"a":"\\":\\"","client_secret":"s3cr3t"}')).toBe(
      '{"a":"\\":\\"","client_secret":"[REDACTED]"}',
    );
  });

  it('redacts the value of a sensitive field in a body cut short by the recording limit', () => {
    expect(new Redactor().redactBody('{"ok":true,"access_token":"eyJhbGciOi')).toBe(
      '{"ok":true,"access_token":"[REDACTED]"',
    );
  });

  it('redacts the spellings other JSON writers and encoders use', () => {
    const r = new Redactor();
    r.addSecret('abc/déf+ghi', 'client-secret');
    for (const spelling of [
      'abc\\/déf+ghi',
      'abc/d\\u00e9f+ghi',
      'abc\\/d\\u00e9f+ghi',
      'abc%2fd%c3%a9f%2bghi',
      'abc%2Fd%C3%A9f%2Bghi',
    ]) {
      expect(r.redact(`x ${spelling} y`), spelling).toBe('x [REDACTED:client-secret] y');
    }
  });
});

describe('sensitive headers are never redacted in part', () => {
  it('replaces credentials that merely contain a known secret (a wrong secret made from the real one) whole', () => {
    const r = new Redactor();
    // 18 bytes of "id:secret": its Base64 has no padding, so it is a prefix of the Base64 of "id:secret-wrong".
    r.addClientCredentials('client', 'abcdefghijk');
    const wrong = encodeBasicCredentials('client', 'abcdefghijk-wrong');
    expect(wrong.startsWith(encodeBasicCredentials('client', 'abcdefghijk'))).toBe(true);
    expect(r.redactHeader('Authorization', `Basic ${wrong}`)).toBe('Basic [REDACTED]');
    expect(r.redactHeader('Authorization', `Basic ${encodeBasicCredentials('client', 'abcdefghijk')}`)).toBe(
      'Basic [REDACTED:basic-credentials]',
    );
  });
});
