/**
 * A team's own checks (--team-checks, issue 42 item 5; docs/team-checks.md): the worked example
 * runs as written; a team check finds what it is about, through the run's HTTP layer, reported as
 * the catalogue's checks are, and is kept apart from the spec's verdict (exit 6, never a changed
 * verdict); a module that cannot be used is one line and exit 2, before the run.
 */
import { readFile, symlink, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../src/model/run-report.js';
import { startReferenceServer, type ReferenceServer } from '../src/reference/index.js';
import { XSD_FILES, loadXsd, validateAgainst } from './fixtures/report/xml.js';
import { lazyBatch } from './support/cli-batch.js';
import { startFront, type Front } from './support/front.js';
import { BIN, runMain, runShell, setEnv, tempDir, WITHOUT_EXPIRY } from './support/harness.js';

const DOC = new URL('../docs/team-checks.md', import.meta.url);

/** The fenced blocks of the page, in order, by language. */
async function blocks(lang: string): Promise<string[]> {
  const text = await readFile(DOC, 'utf8');
  return [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].filter((m) => m[1] === lang).map((m) => m[2] ?? '');
}

let server: ReferenceServer;
let dir: string;
const cleanup: (() => Promise<void>)[] = [];

beforeAll(async () => {
  server = await startReferenceServer({ tokenTtlSeconds: 60 });
  cleanup.push(() => server.close());
  dir = await tempDir('carrier-team-');
  setEnv({ CARRIER_CLIENT_SECRET: server.clientSecret });
});
afterAll(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

/** A module of team checks in the test's folder. */
async function moduleFile(name: string, source: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, source);
  return file;
}

/**
 * The harness in-process against `baseUrl` (the API of `from`, the reference server by default),
 * with `suites` (default: every suite but expiry).
 */
async function run(
  baseUrl: string,
  args: readonly string[],
  options: { from?: ReferenceServer; suites?: readonly string[]; document?: boolean } = {},
): Promise<{ code: number; stdout: string; stderr: string; report: RunReport; junit: string; html: string }> {
  const from = options.from ?? server;
  const reportsDir = await tempDir('carrier-team-reports-');
  const result = await runMain([
    'run',
    '--base-url',
    baseUrl,
    '--client-id',
    from.clientId,
    ...(options.document === false ? [] : ['--openapi', from.openapiFile]),
    ...(options.suites?.flatMap((s) => ['--suite', s]) ?? WITHOUT_EXPIRY),
    '--reports-dir',
    reportsDir,
    ...args,
  ]);
  return {
    ...result,
    report: JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport,
    junit: await readFile(join(reportsDir, 'junit.xml'), 'utf8'),
    html: await readFile(join(reportsDir, 'report.html'), 'utf8'),
  };
}

describe('the worked example of docs/team-checks.md', () => {
  it('runs as written against the embedded server: CONFORMANT, its three checks passed, exit 0', async () => {
    const [module = ''] = await blocks('js');
    const [command = ''] = await blocks('sh');
    const [expected = ''] = await blocks('text');
    const project = await tempDir('carrier-team-project-');
    await mkdir(join(project, 'node_modules', '.bin'), { recursive: true });
    await symlink(BIN, join(project, 'node_modules', '.bin', 'carrier-conformance'));
    await writeFile(join(project, 'team-checks.mjs'), module);
    expect(command.trim()).toBe('npx carrier-conformance run --embedded --team-checks team-checks.mjs');
    const ran = await runShell(command, { cwd: project });
    expect(ran.status, ran.stdout + ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/^CONFORMANT {2}http:\/\/127\.0\.0\.1:\d+$/m);
    expect(ran.stdout).toContain(expected.trim());
    const report = JSON.parse(await readFile(join(project, 'reports', 'report.json'), 'utf8')) as RunReport;
    expect(report.verdict).toBe('conformant');
    expect(report.checks.some((c) => c.id.startsWith('TEAM-'))).toBe(false);
    expect(report.team?.checks.map((c) => [c.id, c.status, c.refs, c.endpoints?.length])).toEqual([
      ['TEAM-DATE', 'passed', ['Platform handbook §4.2 (tracing)'], 6],
      ['TEAM-ERROR-BODY', 'passed', ['Platform handbook §2.1 (errors)'], 6],
      ['TEAM-LIST-IDS-UNIQUE', 'passed', ['Platform handbook §3.4 (lists)'], 2],
    ]);
    const junit = await readFile(join(project, 'reports', 'junit.xml'), 'utf8');
    expect(junit).toMatch(/<testsuite name="carrier-conformance\.team"[^>]* tests="3" failures="0" errors="0"/);
  });
});

describe('a team check against a server that breaks its rule', () => {
  let front: Front;
  beforeAll(async () => {
    // The tenant answers without a Date: nothing the spec says of them, a rule of the team's.
    front = await startFront(server.url, (req, res) => {
      if (!req.url?.startsWith('/tenants/')) return false;
      void (async () => {
        const answer = await fetch(`${server.url}${req.url ?? ''}`, {
          headers: Object.entries(req.headers).flatMap(([k, v]) =>
            typeof v === 'string' && k !== 'host' && k !== 'connection' ? [[k, v] as [string, string]] : [],
          ),
        });
        const headers: Record<string, string> = {};
        answer.headers.forEach((v, k) => {
          if (!['date', 'content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(k))
            headers[k] = v;
        });
        res.sendDate = false;
        res.writeHead(answer.status, headers).end(Buffer.from(await answer.arrayBuffer()));
      })();
      return true;
    });
    cleanup.push(() => front.close());
  });

  it("fails it on each tenant endpoint, citing the exchange; the spec's verdict stays CONFORMANT, and the run exits 6", async () => {
    const [module = ''] = await blocks('js');
    const file = await moduleFile('example.mjs', module);
    const result = await run(front.url, ['--team-checks', file]);
    expect(result.report.verdict, result.stdout).toBe('conformant-subset');
    expect(result.code).toBe(6);
    expect(result.report.exitCode).toBe(6);
    const date = result.report.team?.checks.find((c) => c.id === 'TEAM-DATE');
    expect(date?.status).toBe('failed');
    expect(date?.endpoints?.filter((e) => e.status === 'failed').map((e) => e.endpoint)).toHaveLength(5);
    expect(date?.endpoints?.find((e) => e.endpoint === 'GET /users/me')?.status).toBe('passed');
    expect(date?.findings[0]).toMatchObject({
      kind: 'failure',
      message: 'the answer has no Date header',
      endpoint: expect.stringMatching(/^GET \/tenants\/\{tenantId\}\//) as unknown,
    });
    // The exchange that shows it is cited, as a catalogue check's finding is.
    const cited = date?.exchanges[date.findings[0]?.exchange ?? -1];
    expect(cited?.response?.status).toBe(200);
    expect(cited?.request.url).toMatch(/\/tenants\//);
    expect(result.report.team?.passed).toBe(false);
    expect(result.stdout).toMatch(/^CONFORMANT ON 71 OF 79 CHECKS {2}/m);
    expect(result.stdout).toMatch(
      /^TEAM CHECKS FAILED \(example\.mjs\): 3 checks, 2 passed, 1 failed, 0 warnings, 0 errors, 0 skipped; the team's own rules, apart from the spec's verdict \(exit 6 when the spec found nothing wrong\)$/m,
    );
    expect(result.stdout).toMatch(/^ {2}TEAM-DATE {2}MUST {4}6 endpoints, 5 failed: /m);
    expect(result.junit).toMatch(/<testsuite name="carrier-conformance\.team"[^>]* tests="3" failures="1" errors="0"/);
    expect(result.junit).toContain('Refs: Platform handbook §4.2 (tracing)');
    // report.html shows it as a spec check: its endpoints, the finding, the exchange and its curl command.
    const section = result.html.slice(result.html.indexOf('id="team-title"'));
    expect(section).toMatch(/id="team-check-1"[\s\S]*the answer has no Date header[\s\S]*curl /);
    // The team's testsuite keeps junit.xml valid for Jenkins' schemas, as the spec's suites do.
    for (const xsd of XSD_FILES)
      expect(await validateAgainst(result.junit, await loadXsd(xsd)), xsd).toEqual({ valid: true, errors: [] });
  });
});

describe('team checks beside the verdict', () => {
  it('a check that throws on an endpoint: that endpoint not judged, the check an error, exit 6; a SHOULD failure only warns', async () => {
    const file = await moduleFile(
      'throws.mjs',
      `export const checks = [
  { id: 'TEAM-THROWS', level: 'MUST', title: 'throws on the user endpoint', reference: 'test',
    async check(endpoint) { if (endpoint.kind === 'user') throw new Error('the rule has a bug'); } },
  { id: 'TEAM-SHOULD', level: 'SHOULD', title: 'a SHOULD rule every list breaks', reference: 'test', on: 'lists',
    async check(endpoint, t) { t.fail('not as the team likes it', await t.answer()); } },
];`,
    );
    const result = await run(server.url, ['--team-checks', file]);
    // Without the expiry suite, and without the data USER- and RESOURCE-EXPECTED-VALUES need: a subset.
    expect(result.report.verdict).toBe('conformant-subset');
    const [throws, should] = result.report.team?.checks ?? [];
    expect(throws?.status).toBe('error');
    // The team's code threw: said so, with where in its module, not as the harness's error.
    expect(throws?.endpoints?.find((e) => e.endpoint === 'GET /users/me')).toMatchObject({
      status: 'error',
      message: expect.stringMatching(
        /^not judged: the team check threw Error: the rule has a bug \(throws\.mjs:3:\d+\)$/,
      ) as unknown,
    });
    expect(throws?.endpoints?.filter((e) => e.status === 'passed')).toHaveLength(5);
    expect(should?.status).toBe('warning');
    expect(result.code).toBe(6);

    const warnsOnly = await moduleFile(
      'should.mjs',
      (await readFile(file, 'utf8')).replace(/\{ id: 'TEAM-THROWS'[\s\S]*?\} \},\n/, ''),
    );
    const lenient = await run(server.url, ['--team-checks', warnsOnly]);
    expect(lenient.report.team?.checks.map((c) => c.status)).toEqual(['warning']);
    expect(lenient.code).toBe(0);
    const strict = await run(server.url, ['--team-checks', warnsOnly, '--strict']);
    expect(strict.report.team?.checks.map((c) => c.status)).toEqual(['failed']);
    expect(strict.code).toBe(6);
  });

  it('a check that judged no endpoint is skipped, saying why, never passed: a lists check where the run has no list', async () => {
    const file = await moduleFile(
      'lists.mjs',
      `export default [
  { id: 'TEAM-LISTS', level: 'MUST', title: 'fails every list', reference: 'test', on: 'lists',
    async check(endpoint, t) { t.fail('a list', await t.answer()); } },
  { id: 'TEAM-SKIPS', level: 'MUST', title: 'skips every endpoint', reference: 'test',
    async check(endpoint, t) { t.skip('not for this team'); } },
];`,
    );
    // No document and no --paged-path: /users/me is the only endpoint.
    const result = await run(server.url, ['--team-checks', file], { document: false });
    expect(result.report.team?.checks.map((c) => [c.id, c.status, c.message])).toEqual([
      [
        'TEAM-LISTS',
        'skipped',
        'no list endpoint configured: pass --openapi or --paged-path (e.g. --paged-path shipments)',
      ],
      ['TEAM-SKIPS', 'skipped', 'judged on no endpoint: not for this team'],
    ]);
    expect(result.stdout).toMatch(
      /^TEAM CHECKS PASSED \(lists\.mjs\): 2 checks, 0 passed, 0 failed, 0 warnings, 0 errors, 2 skipped;/m,
    );
  });

  it('a spec failure wins: NON-CONFORMANT exits 1 whatever the team checks say; they run with --suite expiry alone too', async () => {
    const file = await moduleFile(
      'passes.mjs',
      `export default [{ id: 'TEAM-ANSWERS', level: 'MUST', title: 'every endpoint answers', reference: 'test',
  async check(endpoint, t) { const res = await t.answer(); if (res.status >= 500) t.fail('a 5xx', res); } }];`,
    );
    const faulty = await startReferenceServer({ faults: ['token-type-mac'], tokenTtlSeconds: 2 });
    cleanup.push(() => faulty.close());
    setEnv({ CARRIER_CLIENT_SECRET: faulty.clientSecret });
    try {
      const failing = await run(faulty.url, ['--team-checks', file], { from: faulty, suites: ['expiry', 'token'] });
      expect(failing.report.verdict).toBe('non-conformant');
      expect(failing.code).toBe(1);
      expect(failing.report.team?.checks.map((c) => c.status)).toEqual(['passed']);

      const expiryOnly = await run(faulty.url, ['--team-checks', file], { from: faulty, suites: ['expiry'] });
      const expiryReport = expiryOnly.report;
      expect(expiryReport.checks.every((c) => c.suite === 'expiry')).toBe(true);
      expect(expiryReport.team?.checks.map((c) => [c.id, c.status, c.endpoints?.length])).toEqual([
        ['TEAM-ANSWERS', 'passed', 6],
      ]);
      expect(expiryOnly.code, expiryOnly.stdout + expiryOnly.stderr).toBe(0);
    } finally {
      setEnv({ CARRIER_CLIENT_SECRET: server.clientSecret });
    }
  });

  it("a bundle of a run with team checks verifies as the spec's run alone would: its junit.xml agrees with report.json", async () => {
    const [module = ''] = await blocks('js');
    const file = await moduleFile('bundled.mjs', module);
    const bundle = join(await tempDir('carrier-team-bundle-'), 'bundle');
    const ran = await run(server.url, ['--team-checks', file, '--bundle', bundle]);
    expect(ran.report.team?.checks).toHaveLength(3);
    const verified = await runMain(['verify-bundle', bundle]);
    const findings = verified.stdout.split('\n').filter((l) => l.startsWith('  FAIL'));
    expect(findings.filter((l) => /junit|TEAM-/.test(l))).toEqual([]);
  });

  it("what a team check says goes through the run's redaction: the client secret never reaches a report or the console", async () => {
    const file = await moduleFile(
      'leaks.mjs',
      `export default [{ id: 'TEAM-LEAKS', level: 'MUST', title: 'quotes the secret', reference: 'test', on: 'lists',
  async check(endpoint, t) { t.fail('the secret is ' + process.env.CARRIER_CLIENT_SECRET, await t.answer()); } }];`,
    );
    const result = await run(server.url, ['--team-checks', file]);
    expect(result.report.team?.checks[0]?.status).toBe('failed');
    const everything = JSON.stringify(result.report) + result.junit + result.stdout + result.stderr;
    expect(everything).not.toContain(server.clientSecret);
    expect(result.report.team?.checks[0]?.findings[0]?.message).toContain('the secret is [REDACTED');
  });
});

describe('a module that cannot be used: one line, exit 2, before the run', () => {
  const cases: [string, string, string, RegExp][] = [
    [
      'not JavaScript',
      'rules.ts',
      'export default []',
      /: not a JavaScript module \(\.js, \.mjs or \.cjs\); a TypeScript module must be compiled first$/,
    ],
    ['a syntax error', 'broken.mjs', 'export default [', /: cannot load it: SyntaxError: /],
    ['no checks', 'none.mjs', 'export const rules = []', /: exports no checks; export them as an array: /],
    ['an empty list', 'empty.mjs', 'export default []', /: its array of checks is empty$/],
    [
      'a misspelt field',
      'typo.mjs',
      "export default [{ id: 'TEAM-X', level: 'MUST', title: 't', refrence: 'r', check() {} }]",
      /: check 1 \(TEAM-X\): unknown field "refrence" \(did you mean reference\?\); the fields are id, level, title, reference, on, check$/,
    ],
    [
      'no function',
      'nofn.mjs',
      "export default [{ id: 'TEAM-X', level: 'MUST', title: 't', reference: 'r' }]",
      /: check 1 \(TEAM-X\): "check" must be a function: async check\(endpoint, t\) \{ … \}$/,
    ],
    [
      'a level of its own',
      'level.mjs',
      "export default [{ id: 'TEAM-X', level: 'MAY', title: 't', reference: 'r', check() {} }]",
      /: check 1 \(TEAM-X\): "level" must be "MUST" or "SHOULD"$/,
    ],
    [
      "a catalogue's id",
      'taken.mjs',
      "export default [{ id: 'USER-OK', level: 'MUST', title: 't', reference: 'r', check() {} }]",
      /: check 1 \(USER-OK\): USER-OK is a check of the catalogue; a team check needs an id of its own$/,
    ],
    [
      'an id twice',
      'twice.mjs',
      "export default [{ id: 'TEAM-X', level: 'MUST', title: 't', reference: 'r', check() {} }, { id: 'TEAM-X', level: 'MUST', title: 't', reference: 'r', check() {} }]",
      /: check 2 \(TEAM-X\): the id TEAM-X is taken already, in /,
    ],
  ];
  /** A run the module stops before it starts: the reference server's base URL and client id, and the module. */
  const refusedRun = (module: string, extra: readonly string[] = []): string[] => [
    'run',
    '--base-url',
    server.url,
    '--client-id',
    server.clientId,
    ...extra,
    '--team-checks',
    module,
  ];
  // As the built CLI loads them (Node's own loader, not the test's), every case in one child (support/cli-batch.ts).
  const ran = lazyBatch(
    cases,
    async ([, name, source]) => ({
      args: refusedRun(await moduleFile(name, source)),
      env: { CARRIER_CLIENT_SECRET: server.clientSecret },
    }),
    30_000,
  );
  it.each(cases.map((c, i) => [...c, i] as const))('%s', async (_what, name, _source, message, i) => {
    const file = join(dir, name);
    const result = await ran(i);
    expect(result.code).toBe(2);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    expect(lines[0]).toContain(`--team-checks ${file}`);
  });

  it('a module whose loading never ends is stopped by --deadline: exit 3, naming it', async () => {
    const file = await moduleFile('never.mjs', 'await new Promise(() => {});\nexport default [];\n');
    const result = await runMain(refusedRun(file, ['--deadline', '2']));
    expect(result.code).toBe(3);
    expect(result.stderr.trim()).toBe(
      `carrier-conformance: --team-checks ${file}: the run exceeded its --deadline of 2 s, while it was loading`,
    );
  });

  it('a directory is refused as every file the harness opens is', async () => {
    const result = await runMain(refusedRun(dir));
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(`carrier-conformance: --team-checks ${dir}: cannot read it (it is a directory)`);
  });
});
