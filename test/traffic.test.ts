/**
 * Issue 43: `carrier-conformance traffic` judges captured exchanges by the passive checks. One API
 * client's session (test/support/client-session.ts) is recorded against the reference server, and
 * against it with each fault and each variant of `serve --faults`: the reference's and every
 * variant's traffic fails nothing, each fault's fails exactly the checks that fault breaks (and
 * never one it does not), and the reference's own full-run HAR passes every passive check,
 * observed. Then the command's reports, exit codes and bad input.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Redactor } from '../src/core/redact.js';
import type { RunReport } from '../src/model/run-report.js';
import { FAULTS, VARIANTS } from '../src/reference/catalogue.js';
import { startReferenceServer } from '../src/reference/index.js';
import { readHar } from '../src/traffic/har.js';
import { TrafficJudge, type PassiveResult } from '../src/traffic/judge.js';
import { documentedPaths, endpointOf } from '../src/traffic/endpoints.js';
import { loadOpenApi } from '../src/openapi/load.js';
import type { Json } from '../src/openapi/pointer.js';
import { passiveRules } from '../src/traffic/rules.js';
import { recordClientSession } from './support/client-session.js';
import { startFront } from './support/front.js';
import { XSD_FILES, loadXsd, validateAgainst } from './fixtures/report/xml.js';
import { BIN, runAgainst, runMain, runShell, tempDir } from './support/harness.js';

const PASSIVE = passiveRules().map((r) => r.id);

/** The session's capture against a reference server with these faults or variants. */
async function session(
  options: { faults?: string[]; variants?: string[]; tokenTtlSeconds?: number } = {},
  reuseTokenAfterMs?: number,
): Promise<string> {
  const server = await startReferenceServer(options);
  const har = join(await tempDir('carrier-traffic-'), 'session.har');
  try {
    await recordClientSession(server, har, reuseTokenAfterMs === undefined ? {} : { reuseTokenAfterMs });
  } finally {
    await server.close();
  }
  return har;
}

/** The reference's own OpenAPI document: the endpoints' templates and schemas, as `traffic --openapi` reads them. */
const reference = await startReferenceServer();
const OPENAPI = reference.openapiFile;
const api = await loadOpenApi(OPENAPI);
await reference.close();
const DOCUMENT = { document: (api.document ?? {}) as Json, paths: documentedPaths(api.endpoints, api.writes ?? []) };

function judged(har: string): PassiveResult[] {
  const redactor = new Redactor();
  const judge = new TrafficJudge(redactor, DOCUMENT);
  for (const exchange of readHar(har, redactor)) judge.add(exchange);
  return judge.results();
}

const failing = (results: readonly PassiveResult[]): string[] =>
  results.filter((r) => r.status === 'failed').map((r) => r.id);

/** Each fault the session's traffic shows, and exactly what it fails there. */
const CAUGHT: Record<string, string[]> = {
  'token-content-type-text': ['TOKEN-ISSUE'],
  'access-token-number': ['TOKEN-ACCESS-TOKEN', 'LEGACY-TOKEN'],
  'token-type-mac': ['TOKEN-TYPE', 'TOKEN-TYPE-CASE', 'LEGACY-TOKEN'],
  'token-type-capitalised': ['TOKEN-TYPE-CASE'],
  'expires-in-string': ['TOKEN-EXPIRES-IN', 'LEGACY-TOKEN'],
  'expires-in-fraction': ['TOKEN-EXPIRES-IN', 'LEGACY-TOKEN'],
  'expires-in-missing': ['TOKEN-EXPIRES-IN', 'LEGACY-TOKEN'],
  'expires-in-decimal-point': ['TOKEN-EXPIRES-IN', 'LEGACY-TOKEN'],
  'expires-in-an-hour-in-milliseconds': ['TOKEN-SHORT-LIVED'],
  'token-cacheable': ['TOKEN-NO-STORE'],
  'no-pragma': ['TOKEN-PRAGMA'],
  'refresh-token-issued': ['TOKEN-NO-REFRESH'],
  'missing-auth-accepted': ['AUTH-MISSING'],
  'resource-401-no-challenge': ['AUTH-MISSING', 'WRITE-AUTH-MISSING'],
  'resource-challenge-basic': ['AUTH-MISSING', 'WRITE-AUTH-MISSING'],
  'version-missing-accepted': ['VERSION-MISSING'],
  'version-missing-accepted-on-users-me': ['VERSION-MISSING'],
  'invalid-version-accepted': ['VERSION-INVALID'],
  'user-email-omitted': ['USER-FIELDS-PRESENT'],
  'user-tenant-name-omitted': ['USER-FIELDS-PRESENT'],
  'user-id-not-uuid': ['USER-SCHEMA'],
  'user-not-json': ['USER-OK'],
  'legacy-redirect': ['LEGACY-NO-REDIRECT'],
  'no-total-pages': ['PAGE-HEADERS'],
  'no-page-size': ['PAGE-HEADERS'],
  'no-page-number': ['PAGE-HEADERS'],
  'no-total-elements': ['PAGE-HEADERS'],
  'paging-header-repeated': ['PAGE-HEADERS'],
  'paging-header-not-integer': ['PAGE-HEADERS'],
  'page-number-always-1': ['PAGE-ECHO', 'LINK-NEXT', 'LINK-PREV'],
  'page-size-not-echoed': ['PAGE-ECHO', 'PAGE-TOTALS'],
  'total-pages-off-by-one': ['PAGE-TOTALS', 'LINK-FIRST-LAST'],
  'total-elements-off-by-one': ['PAGE-ECHO'],
  'default-page-is-last': ['PAGE-DEFAULT'],
  'pages-lose-items': ['PAGE-ECHO'],
  'no-link-header': ['LINK-NEXT'],
  'link-unterminated': ['LINK-SYNTAX'],
  'link-without-rel': ['LINK-SYNTAX'],
  'next-skips-a-page': ['LINK-NEXT'],
  'next-links-disagree': ['LINK-NEXT'],
  'next-on-last-page': ['LINK-NEXT'],
  'prev-points-forward': ['LINK-PREV'],
  'prev-on-first-page': ['LINK-PREV'],
  'last-link-off-by-one': ['LINK-FIRST-LAST'],
  'first-link-page-0': ['LINK-FIRST-LAST'],
  'link-headers-stale-size': ['LINK-NEXT', 'LINK-FIRST-LAST'],
  'item-null-fields-omitted': ['NULLS-SAME-FIELDS', 'RESOURCE-FIELDS-PRESENT'],
  'invoice-amount-as-string': ['RESOURCE-SCHEMA'],
  'single-null-fields-omitted': ['RESOURCE-FIELDS-PRESENT'],
};

describe("one client's traffic, judged: the reference's, each variant's, each fault's", () => {
  it("the reference's traffic: every passive check observed, none failed", async () => {
    const results = judged(await session());
    expect(failing(results)).toEqual([]);
    // An expired token's use takes a wait: the test below.
    expect(results.filter((r) => r.status === 'not-observed').map((r) => r.id)).toEqual(['EXPIRY-REFUSED-AFTER']);
    expect(results.map((r) => r.id)).toEqual(PASSIVE);
  });

  it('each variant (unusual, conformant): nothing fails', async () => {
    const wrongly: string[] = [];
    for (const variant of VARIANTS) {
      const failed = failing(judged(await session({ variants: [variant.name] })));
      if (failed.length > 0) wrongly.push(`${variant.name}: ${failed.join(', ')}`);
    }
    expect(wrongly).toEqual([]);
  }, 120_000);

  it('each fault: exactly the checks it breaks that the traffic shows, and never a check it does not break', async () => {
    const outcomes: Record<string, string[]> = {};
    const outside: string[] = [];
    for (const fault of FAULTS) {
      const failed = failing(judged(await session({ faults: [fault.name] })));
      const allowed = new Set([...fault.breaks, ...(fault.alsoBreaks ?? []), ...(fault.errs ?? [])]);
      const wrong = failed.filter((id) => !allowed.has(id));
      if (wrong.length > 0) outside.push(`${fault.name}: ${wrong.join(', ')}`);
      if (failed.length > 0) outcomes[fault.name] = failed;
    }
    expect(outside).toEqual([]);
    expect(outcomes).toEqual(CAUGHT);
    // Every passive check is shown failing by a fault but three: the writes' version rules (a front,
    // below) and the use of an expired token (it takes a wait, below).
    expect(PASSIVE.filter((id) => !Object.values(CAUGHT).flat().includes(id))).toEqual([
      'WRITE-VERSION-MISSING',
      'WRITE-VERSION-INVALID',
      'EXPIRY-REFUSED-AFTER',
    ]);
  }, 240_000);

  it('a token used after its expires_in: refused by the reference (and with a leeway), accepted by tokens-never-expire', async () => {
    // A 1 s token, used again 3.5 s later: past expires_in, the 5 s a HAR without timings would
    // allow for the issuance aside (these have them), and the run's 2 s allowance.
    const [reference, leeway, never] = await Promise.all([
      session({ tokenTtlSeconds: 1 }, 3500),
      session({ tokenTtlSeconds: 1, variants: ['expiry-leeway'] }, 3500),
      session({ tokenTtlSeconds: 1, faults: ['tokens-never-expire'] }, 3500),
    ]);
    const expiry = (har: string): PassiveResult | undefined => judged(har).find((r) => r.id === 'EXPIRY-REFUSED-AFTER');
    expect(expiry(reference)).toMatchObject({ status: 'passed', judged: 2 });
    expect(expiry(leeway)).toMatchObject({ status: 'passed', judged: 2 });
    const failed = expiry(never);
    expect(failed?.status).toBe('failed');
    expect(failed?.findings[0]?.message).toMatch(
      /^GET \/users\/me with a token whose expires_in \(1 s, issued 20[^)]+\) had run out \d+\.\d s before at the least: expected a refusal with a Bearer challenge, got 200$/,
    );
  }, 30_000);

  it("writes created without a valid Accept-Version (a front before the reference): the writes' version rules fail", async () => {
    const server = await startReferenceServer();
    const front = await startFront(server.url, (req, res) => {
      const version = req.headers['accept-version'];
      if (req.method !== 'POST' || !req.url?.startsWith('/tenants/') || version === '1') return false;
      res.writeHead(201, { 'Content-Type': 'application/json' }).end('{"id":"created"}');
      return true;
    });
    const har = join(await tempDir('carrier-traffic-'), 'session.har');
    try {
      await recordClientSession({ ...server, url: front.url }, har);
    } finally {
      await front.close();
      await server.close();
    }
    const results = judged(har);
    expect(failing(results)).toEqual(['WRITE-VERSION-MISSING', 'WRITE-VERSION-INVALID']);
    const missing = results.find((r) => r.id === 'WRITE-VERSION-MISSING')?.findings[0];
    expect(missing?.message).toMatch(
      /^POST \/tenants\/[^ ]+\/shipments without Accept-Version: expected 400, got 201$/,
    );
    expect(missing?.endpoint).toBe('POST /tenants/{tenantId}/shipments');
  });
});

describe("exchanges matched to the --openapi document's templates", () => {
  it('names the template, most literal first, knows its kind, and marks a path the document lacks', () => {
    const paths = documentedPaths(
      [
        { path: 'shipments', kind: 'list', source: 'openapi', itemsProperty: 'data' },
        { path: 'shipments/{shipmentId}', kind: 'single', source: 'openapi' },
        { path: 'shipments/export', kind: 'single', source: 'openapi' },
      ],
      [{ method: 'POST', path: 'shipments', source: 'openapi' }],
    );
    const at = (method: string, path: string) =>
      endpointOf(method, `https://gw.example.com/api/tenants/0b6f3c1e-2d4a-4c5e-9f10-3a2b1c0d9e8f/${path}`, paths);
    expect(at('GET', 'shipments?page=2')).toMatchObject({ label: 'GET /tenants/{tenantId}/shipments', prefix: '/api' });
    expect(at('GET', 'shipments')?.spec?.itemsProperty).toBe('data');
    expect(at('GET', 'shipments/export')?.label).toBe('GET /tenants/{tenantId}/shipments/export');
    expect(at('GET', 'shipments/42')).toMatchObject({ label: 'GET /tenants/{tenantId}/shipments/{shipmentId}' });
    expect(at('GET', 'shipments/42')?.undocumented).toBeUndefined();
    expect(at('POST', 'shipments')).toMatchObject({ label: 'POST /tenants/{tenantId}/shipments' });
    expect(at('POST', 'shipments')?.spec).toBeUndefined();
    expect(at('DELETE', 'shipments/42')).toMatchObject({ undocumented: true });
    expect(at('GET', 'invoices/12345')).toMatchObject({
      label: 'GET /tenants/{tenantId}/invoices/{id}',
      undocumented: true,
    });
  });
});

describe('docs/traffic.md', () => {
  it('its example runs as written: a run of the embedded server writes its HAR, traffic judges it, exit 0', async () => {
    const doc = await readFile(new URL('../docs/traffic.md', import.meta.url), 'utf8');
    const command = /```sh\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
    const project = await tempDir('carrier-traffic-project-');
    await mkdir(join(project, 'node_modules', '.bin'), { recursive: true });
    await symlink(BIN, join(project, 'node_modules', '.bin', 'carrier-conformance'));
    const ran = await runShell(command, { cwd: project });
    expect(ran.status, ran.stdout + ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/^CONFORMANT ON 29 OF 79 CHECKS {2}http:\/\/127\.0\.0\.1:\d+$/m);
    expect(ran.stdout).toContain('Traffic: report.har (har, ');
    for (const file of ['junit.xml', 'report.json', 'report.html', 'traffic.sarif'])
      expect(existsSync(join(project, 'reports', file)), file).toBe(true);
  }, 120_000);
});

describe('carrier-conformance traffic: reports and exit codes', () => {
  let referenceHar: string;
  beforeAll(async () => {
    // The reference server's own traffic: a full run, every exchange in its HAR.
    const run = await runAgainst({}, ['--reporter', '+har']);
    expect(run.code).toBe(0);
    referenceHar = join(run.reportsDir, 'report.har');
  }, 120_000);

  it("a full run's HAR of the reference: every passive check observed and passed (but the expired token's), exit 0, valid JUnit", async () => {
    const dir = await tempDir();
    const result = await runMain(['traffic', referenceHar, '--openapi', OPENAPI, '--reports-dir', dir]);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as RunReport;
    expect(report.verdict).toBe('conformant-subset');
    // Its tokens are redacted (every one reads [REDACTED:access-token]): a use cannot be tied to its issuance.
    expect(report.checks.map((c) => [c.id, c.status])).toEqual(
      PASSIVE.map((id) => [id, id === 'EXPIRY-REFUSED-AFTER' ? 'skipped' : 'passed']),
    );
    expect(report.traffic?.captures[0]).toMatchObject({ format: 'har', file: referenceHar });
    expect(report.traffic?.matched).toBeGreaterThan(100);
    expect(result.stdout).toContain(`CONFORMANT ON ${PASSIVE.length - 1} OF 79 CHECKS`);
    expect(result.stdout).toContain('no request was sent');
    const junit = await readFile(join(dir, 'junit.xml'), 'utf8');
    for (const xsd of XSD_FILES)
      expect(await validateAgainst(junit, await loadXsd(xsd)), xsd).toEqual({ valid: true, errors: [] });
  });

  it("a faulty server's traffic: exit 1, the finding cites the exchange, SARIF locates it, --strict fails a SHOULD", async () => {
    const har = await session({ faults: ['version-missing-accepted'] });
    const dir = await tempDir();
    const result = await runMain(['traffic', har, '--reports-dir', dir]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /VERSION-MISSING +MUST +GET \/users\/me without Accept-Version: expected 400, got 200 \(session\.har entry \d+, 20\d\d-/,
    );
    const sarif = JSON.parse(await readFile(join(dir, 'traffic.sarif'), 'utf8')) as {
      runs: {
        results: {
          ruleId: string;
          level: string;
          locations: { logicalLocations: { fullyQualifiedName: string }[] }[];
        }[];
        invocations: { toolExecutionNotifications: { message: { text: string } }[] }[];
      }[];
    };
    // What was not proven is said there too, in the words of the reports.
    expect(sarif.runs[0]?.invocations[0]?.toolExecutionNotifications.map((n) => n.message.text)).toContain(
      'RESOURCE-SCHEMA not judged: no --openapi document was given, whose schemas would judge the bodies',
    );
    const [first] = sarif.runs[0]?.results ?? [];
    expect(first).toMatchObject({ ruleId: 'VERSION-MISSING', level: 'error' });
    expect(first?.locations[0]?.logicalLocations[0]?.fullyQualifiedName).toMatch(/^log\.entries\[\d+\]$/);

    const capitalised = await session({ faults: ['token-type-capitalised'] });
    expect((await runMain(['traffic', capitalised, '--reports-dir', dir])).code).toBe(0);
    expect((await runMain(['traffic', capitalised, '--reports-dir', dir, '--strict'])).code).toBe(1);
  }, 60_000);

  it('what cannot be read is one line and exit 2; a capture with nothing to judge is exit 3', async () => {
    const dir = await tempDir();
    const cases: [string, string | Buffer][] = [
      ['not-json.har', 'this is no capture'],
      ['no-entries.har', '{"log": {}}'],
      ['deep.har', `${'['.repeat(100)}${']'.repeat(100)}`],
      ['no-records.ndjson', 'one\ntwo\n'],
    ];
    for (const [name, text] of cases) {
      const file = join(dir, name);
      await writeFile(file, text);
      const result = await runMain(['traffic', file, '--reports-dir', join(dir, 'reports')]);
      expect(result.code, name).toBe(2);
      expect(result.stderr.trim().split('\n'), name).toHaveLength(1);
      expect(result.stderr, name).toContain(file);
    }
    const fifo = join(dir, 'fifo.har');
    execFileSync('mkfifo', [fifo]);
    const piped = await runMain(['traffic', fifo, '--reports-dir', join(dir, 'reports')]);
    expect(piped.code).toBe(2);
    expect(piped.stderr).toContain('it is a FIFO');
    expect((await runMain(['traffic', join(dir, 'absent.har')])).stderr).toContain('no such file');

    const elsewhere = join(dir, 'elsewhere.ndjson');
    await writeFile(
      elsewhere,
      `${JSON.stringify({ request: { method: 'GET', url: 'https://example.com/health', headers: {} }, response: { status: 200, headers: {} } })}\n`,
    );
    const nothing = await runMain(['traffic', elsewhere, '--reports-dir', join(dir, 'reports')]);
    expect(nothing.code).toBe(3);
    expect(nothing.stderr).toContain('none of its 1 exchange went to an endpoint of the spec');
  });
});
