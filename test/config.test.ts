// Run options (src/config/options.ts): defaults, one-line usage errors, --config and --expectations files.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CHECKS } from '../src/catalogue/index.js';
import { flagName, loadConfigFile, loadExpectations, parseRunOptions, reportersOf } from '../src/config/options.js';
import { UsageError } from '../src/core/errors.js';
import { ExitCode } from '../src/core/exit-codes.js';

const TENANT = '0b6f3c1e-2d4a-4c5e-9f10-3a2b1c0d9e8f';

/** The UsageError `fn` throws; fails the test when it throws nothing or something else. */
function usageError(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return err as UsageError;
  }
  throw new Error('expected a UsageError, nothing was thrown');
}

const dir = mkdtempSync(join(tmpdir(), 'carrier-conformance-config-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
/** Writes `content` to a new file in the temp directory and returns its path. */
function tempFile(content: string): string {
  files += 1;
  const path = join(dir, `file-${files}.json`);
  writeFileSync(path, content);
  return path;
}

describe('parseRunOptions', () => {
  it('fills in the defaults', () => {
    expect(parseRunOptions({})).toEqual({
      allowWrites: false,
      pagedPath: [],
      endpoint: [],
      parameter: [],
      parameters: {},
      teamChecks: [],
      suite: [],
      check: [],
      maxExpiryWait: 60,
      expiryMargin: 1,
      timeout: 10_000,
      maxBodyBytes: 8 * 1024 * 1024,
      reportsDir: 'reports',
      reporter: [],
      strict: false,
      strictBaseline: false,
      requireComplete: false,
      embedded: false,
      deadline: 600,
      maxRetries: 2,
      maxRetryWait: 10,
      insecure: false,
      verbose: false,
      writeProbes: 'headers',
      header: [],
      tokenParam: [],
      clientAuth: 'basic',
    });
  });

  it('accepts a complete, valid set of options', () => {
    const options = parseRunOptions({
      baseUrl: 'https://api.example.test/prefix',
      authUrl: 'http://127.0.0.1:8080',
      clientId: 'client',
      clientSecret: 'secret',
      tenantId: TENANT,
      foreignTenantId: TENANT.toUpperCase(),
      pagedPath: ['/shipments', 'orders'],
      suite: ['token', 'pagination'],
      check: ['TOKEN-ISSUE'],
      timeout: 500,
      strict: true,
    });
    expect(options).toMatchObject({
      baseUrl: 'https://api.example.test/prefix',
      tenantId: TENANT,
      pagedPath: ['shipments', 'orders'],
      suite: ['token', 'pagination'],
      check: ['TOKEN-ISSUE'],
      timeout: 500,
      strict: true,
    });
  });

  it('takes a single value where a list is expected', () => {
    expect(parseRunOptions({ suite: 'token', pagedPath: 'shipments', check: 'PAGE-WALK' })).toMatchObject({
      suite: ['token'],
      pagedPath: ['shipments'],
      check: ['PAGE-WALK'],
    });
  });

  it('upper-cases check ids given in any case', () => {
    expect(parseRunOptions({ check: ['token-issue', 'Page-Walk', 'LINK-NEXT'] }).check).toEqual([
      'TOKEN-ISSUE',
      'PAGE-WALK',
      'LINK-NEXT',
    ]);
  });

  const invalid: readonly (readonly [string, Record<string, unknown>, string, RegExp])[] = [
    [
      'a base URL that is not a URL',
      { baseUrl: 'api.example.test' },
      '--base-url',
      /give e\.g\. https:\/\/api\.example\.com/,
    ],
    ['a base URL with another scheme', { baseUrl: 'ftp://api.example.test' }, '--base-url', /give e\.g\./],
    [
      'a base URL with a query',
      { baseUrl: 'https://api.example.test/?x=1' },
      '--base-url',
      /without spaces, credentials, query or fragment/,
    ],
    [
      'a base URL with a fragment',
      { baseUrl: 'https://api.example.test/#x' },
      '--base-url',
      /without spaces, credentials, query or fragment/,
    ],
    ['an auth URL that is not a URL', { authUrl: 'nope' }, '--auth-url', /give e\.g\./],
    [
      'a tenant id that is not a UUID',
      { tenantId: 'tenant-1' },
      '--tenant-id',
      /"tenant-1" is not a UUID; give e\.g\. [0-9a-f-]{36}/,
    ],
    [
      'a foreign tenant id that is not a UUID',
      { foreignTenantId: '1234' },
      '--foreign-tenant-id',
      /not a UUID; give e\.g\./,
    ],
    ['a timeout that is not a number', { timeout: Number('abc') }, '--timeout', /must be a number \(milliseconds\)/],
    ['a timeout of 0', { timeout: 0 }, '--timeout', /must be greater than 0 \(milliseconds\)/],
    ['a fractional timeout', { timeout: 1.5 }, '--timeout', /must be a whole number \(milliseconds\)/],
    ['a negative timeout', { timeout: -1 }, '--timeout', /must be greater than 0/],
    [
      'an unknown suite',
      { suite: ['tokens'] },
      '--suite',
      /unknown suite "tokens"; the suites are token, expiry, auth/,
    ],
    [
      'an unknown check id',
      { check: ['TOKEN-NOPE'] },
      '--check',
      /unknown check id "TOKEN-NOPE"; `carrier-conformance list` prints the \d+ ids/,
    ],
    [
      'a paged path with a query',
      { pagedPath: ['shipments?page=1'] },
      '--paged-path',
      /is not a tenant-relative path; give e\.g\. shipments/,
    ],
    ['a paged path with a fragment', { pagedPath: ['shipments#x'] }, '--paged-path', /give e\.g\. shipments/],
    [
      'a paged path that is a URL',
      { pagedPath: ['https://api.example.test/shipments'] },
      '--paged-path',
      /give e\.g\. shipments/,
    ],
    ['an empty paged path', { pagedPath: [''] }, '--paged-path', /give e\.g\. shipments/],
    ['a concurrency above 64', { concurrency: 65 }, '--concurrency', /must be at most 64/],
    ['an expiry margin above 30 s', { expiryMargin: 31 }, '--expiry-margin', /must be at most 30 seconds/],
    ['a negative max expiry wait', { maxExpiryWait: -1 }, '--max-expiry-wait', /must not be negative \(seconds\)/],
    ['an empty client secret', { clientSecret: '' }, '--client-secret', /must not be empty/],
    // Issue 39 item 11: on a pull request from a fork, CI passes the unset secret as "".
    [
      'an empty client secret, saying why CI gives one',
      { clientSecret: '' },
      '--client-secret',
      /must not be empty: an unset CI secret is passed as an empty string \(GitHub Actions and GitLab give none to pull requests from forks\); give the secret/,
    ],
    ['an empty second client secret', { secondClientSecret: '' }, '--second-client-secret', /pull requests from forks/],
    [
      'an unknown option',
      { baseUrl: 'https://api.example.test', colour: true },
      '--colour',
      /unknown option --colour; `carrier-conformance run --help` lists them/,
    ],
  ];

  it.each(invalid)('rejects %s with one line naming %s and a hint', (_what, raw, flag, hint) => {
    const err = usageError(() => parseRunOptions(raw));
    expect(err.exitCode).toBe(ExitCode.Usage);
    expect(err.message).not.toMatch(/[\r\n]/);
    expect(err.message).toContain(flag);
    expect(err.message).toMatch(hint);
  });

  it('names the flag of an invalid list element, not its index', () => {
    expect(usageError(() => parseRunOptions({ suite: ['token', 'bogus'] })).message).toMatch(/^--suite: /);
  });

  it('keeps an input with a line break on one line', () => {
    expect(usageError(() => parseRunOptions({ tenantId: 'a\nb' })).message).not.toMatch(/\n/);
  });

  it('--openapi with a URL (the Schemathesis habit): says it takes a file and how to get one, not a refused $ref', () => {
    expect(usageError(() => parseRunOptions({ openapi: 'https://api.example.com/openapi.json' })).message).toBe(
      '--openapi: "https://api.example.com/openapi.json" is a URL; --openapi takes a file: download the document first (curl -fsSL -o openapi.yaml URL) and give its path',
    );
    expect(parseRunOptions({ openapi: 'specs/https-api.yaml' }).openapi).toBe('specs/https-api.yaml');
  });

  it('--reporter: NAME writes only the ones named, +NAME adds one to the default ones, all writes every one', () => {
    const reporters = (...given: string[]) => reportersOf(parseRunOptions({ reporter: given }).reporter).reporters;
    expect(reporters()).toEqual(['junit', 'json', 'html', 'github-summary']);
    expect(reporters('har')).toEqual(['har']);
    expect(reporters('+har')).toEqual(['junit', 'json', 'html', 'github-summary', 'har']);
    expect(reporters('json', '+har')).toEqual(['json', 'har']);
    expect(reporters('all')).toEqual(['junit', 'json', 'html', 'github-summary', 'har']);
    expect(reportersOf(parseRunOptions({ reporter: ['all'] }).reporter).named).toEqual([]);
    expect(reportersOf(parseRunOptions({ reporter: ['+github-summary'] }).reporter).named).toEqual(['github-summary']);
    expect(usageError(() => parseRunOptions({ reporter: ['xml'] })).message).toBe(
      '--reporter: unknown reporter "xml"; the reporters are junit, json, html, github-summary, har (+NAME adds one to the default ones; all writes every one)',
    );
  });

  it('counts the catalogue in the --check hint', () => {
    expect(usageError(() => parseRunOptions({ check: 'X-Y' })).message).toContain(`prints the ${CHECKS.length} ids`);
  });

  it.each([
    ['baseUrl', '--base-url'],
    ['maxBodyBytes', '--max-body-bytes'],
    ['strict', '--strict'],
  ] as const)('flagName(%j) is %j', (key, flag) => {
    expect(flagName(key)).toBe(flag);
  });
});

describe('loadConfigFile', () => {
  it('reads camelCase keys', () => {
    const path = tempFile(
      JSON.stringify({ baseUrl: 'https://api.example.test', tenantId: TENANT, timeout: 250, suite: ['token'] }),
    );
    expect(loadConfigFile(path)).toEqual({
      baseUrl: 'https://api.example.test',
      tenantId: TENANT,
      timeout: 250,
      suite: ['token'],
    });
  });

  it('reads kebab-case keys as their camelCase option', () => {
    const path = tempFile(
      JSON.stringify({
        'base-url': 'https://api.example.test',
        'max-body-bytes': 1024,
        'paged-path': ['shipments'],
        strict: true,
      }),
    );
    expect(loadConfigFile(path)).toEqual({
      baseUrl: 'https://api.example.test',
      maxBodyBytes: 1024,
      pagedPath: ['shipments'],
      strict: true,
    });
  });

  it('returns options that parseRunOptions accepts', () => {
    const path = tempFile(JSON.stringify({ 'base-url': 'https://api.example.test', check: ['token-issue'] }));
    expect(parseRunOptions(loadConfigFile(path))).toMatchObject({
      baseUrl: 'https://api.example.test',
      check: ['TOKEN-ISSUE'],
    });
  });

  const broken: readonly (readonly [string, string, RegExp])[] = [
    ['a JSON array', '[1, 2]', /must be a JSON object of options, e\.g\. \{"baseUrl"/],
    ['JSON null', 'null', /must be a JSON object of options/],
    ['a JSON string', '"https://api.example.test"', /must be a JSON object of options/],
    ['invalid JSON', '{"baseUrl": ', /not valid JSON \(/],
    ['a wrong-typed field', '{"timeout": "soon"}', /: "timeout": must be a number \(milliseconds\)/],
    ['an invalid field value', '{"tenantId": "t1"}', /: "tenantId": "t1" is not a UUID/],
    ['an unknown key', '{"colour": true}', /: unknown option "colour"; /],
  ];

  it.each(broken)('rejects %s with one line naming the file', (_what, content, expected) => {
    const path = tempFile(content);
    const err = usageError(() => loadConfigFile(path));
    expect(err.message).toMatch(new RegExp(`^config file ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
    expect(err.message).toMatch(expected);
    expect(err.message).not.toMatch(/[\r\n]/);
  });

  // Issue 32: the same "did you mean" as the command line, and plain words instead of the validator's.
  it.each([
    ['{"clientID": "x"}', 'unknown option "clientID" (did you mean "clientId"?); '],
    ['{"pagedPaths": ["shipments"]}', 'unknown option "pagedPaths" (did you mean "pagedPath"?); '],
    ['{"base-ulr": "https://api.example.test"}', 'unknown option "base-ulr" (did you mean "base-url"?); '],
    ['{"colour": true}', 'unknown option "colour"; '],
    [
      '[{"baseUrl": "https://api.example.test"}]',
      'must be a JSON object of options, e.g. {"baseUrl": "https://api.example.com"}, not an array',
    ],
    [
      '"https://api.example.test"',
      'must be a JSON object of options, e.g. {"baseUrl": "https://api.example.com"}, not a string',
    ],
  ])('names what %s should be', (content, expected) => {
    const path = tempFile(content);
    const prefix = `config file ${path}: ${expected}`;
    expect(usageError(() => loadConfigFile(path)).message.slice(0, prefix.length)).toBe(prefix);
  });

  it.each([
    [
      '{\n  "baseUrl": "https://api.example.test"\n  "timeout": 250\n}',
      "line 3, column 3: expected ',' or '}' after property value",
    ],
    ['{\n  "timeout": x\n}', "line 2, column 14: unexpected token 'x'"],
    ['{"timeout": 250,}', 'line 1, column 17: expected double-quoted property name'],
    ['{"baseUrl": ', 'line 1, column 13: the text ends too early'],
    ['{"a": "b\u0007 \u001b[31m"}', 'line 1, column 9: bad control character in string literal'],
  ])('says where JSON %j breaks, by line and column, in one line', (content, expected) => {
    const path = tempFile(content);
    expect(usageError(() => loadConfigFile(path)).message).toBe(`config file ${path}: not valid JSON (${expected})`);
  });

  it('rejects a missing file', () => {
    const path = join(dir, 'does-not-exist.json');
    expect(usageError(() => loadConfigFile(path)).message).toBe(`config file ${path}: cannot read it (no such file)`);
  });

  it('rejects a directory', () => {
    expect(usageError(() => loadConfigFile(dir)).message).toBe(
      `config file ${dir}: cannot read it (it is a directory)`,
    );
  });
});

describe('loadExpectations', () => {
  it('reads a partial User, keeping fields it does not know', () => {
    const expectations = { user: { email: 'test@example.test', tenants: [{ id: TENANT, name: 'Test tenant' }] } };
    expect(loadExpectations(tempFile(JSON.stringify(expectations)))).toEqual(expectations);
  });

  it('reads an empty object', () => {
    expect(loadExpectations(tempFile('{}'))).toEqual({});
  });

  const broken: readonly (readonly [string, string, string])[] = [
    [
      'an unknown top-level key',
      '{"user": {}, "tenants": []}',
      'the file: unknown key tenants; "user" and "resources" are known',
    ],
    [
      'a tenant without an id',
      '{"user": {"tenants": [{"name": "x"}]}}',
      'user.tenants.0.id: each expected tenant needs an "id" string',
    ],
    [
      'a tenant with a numeric id',
      '{"user": {"tenants": [{"id": 7}]}}',
      'user.tenants.0.id: each expected tenant needs an "id" string',
    ],
  ];

  it.each(broken)('rejects %s, naming where', (_what, content, expected) => {
    const path = tempFile(content);
    expect(usageError(() => loadExpectations(path)).message).toBe(`expectations file ${path}: ${expected}`);
  });

  it('rejects invalid JSON and a missing file', () => {
    expect(usageError(() => loadExpectations(tempFile('{user:'))).message).toMatch(
      /^expectations file .*: not valid JSON \(/,
    );
    const missing = join(dir, 'missing-expectations.json');
    expect(usageError(() => loadExpectations(missing)).message).toBe(
      `expectations file ${missing}: cannot read it (no such file)`,
    );
  });
});

describe('what the fixes of review findings hold', () => {
  it('refuses a base URL that URL parsing would silently repair, and returns the normalised URL', () => {
    expect(() => parseRunOptions({ baseUrl: 'http://exa\nmple.com' })).toThrow(
      /is not an http\(s\) URL without spaces/,
    );
    expect(() => parseRunOptions({ baseUrl: ' https://api.example.com' })).toThrow(/is not an http\(s\) URL/);
    expect(() => parseRunOptions({ baseUrl: 'https://user:pw@api.example.com' })).toThrow(/credentials/);
    expect(parseRunOptions({ baseUrl: 'HTTPS://API.Example.com/gw/' }).baseUrl).toBe('https://api.example.com/gw');
  });

  it('quotes a bad --paged-path as the user typed it', () => {
    expect(() => parseRunOptions({ pagedPath: ['/'] })).toThrow(/^--paged-path: "\/" is not a tenant-relative path/);
    expect(() => parseRunOptions({ pagedPath: ['/?x'] })).toThrow(/^--paged-path: "\/\?x" is not/);
    expect(parseRunOptions({ pagedPath: ['/shipments'] }).pagedPath).toEqual(['shipments']);
  });

  it('names a config-file field as it is written in the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'carrier-config-'));
    const path = join(dir, 'c.json');
    writeFileSync(path, JSON.stringify({ 'max-body-bytes': 'x' }));
    expect(() => loadConfigFile(path)).toThrow(/: "max-body-bytes": must be a number/);
    rmSync(dir, { recursive: true });
  });
});
