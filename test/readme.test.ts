/**
 * The README runs as written. Every fenced block is known to this test and executed, in a
 * workspace set up as a user's would be (the package installed in `node_modules`, so that
 * `npx carrier-conformance` is this harness), against reference servers on loopback. Only what
 * cannot be on loopback is substituted, each substitution listed in SUBSTITUTIONS; commands that
 * cannot run inside the test suite are listed in NOT_RUN with the reason. A README block or
 * command this file does not know fails the test: add it here when you add it there.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../src/model/run-report.js';
import { startReferenceServer, type ReferenceServer } from '../src/reference/index.js';
import { FAULTS } from '../src/reference/faults.js';
import { VARIANTS } from '../src/reference/variants.js';
import { CHECKS } from '../src/catalogue/checks.js';
import { BIN, freePort, runMain, runShell, tempDir } from './support/harness.js';
import { readUserDocs } from './support/user-docs.js';

const PACKAGE_ROOT = new URL('..', import.meta.url).pathname;

interface Block {
  lang: string;
  text: string;
  line: number;
  /** The page it is in (test/support/user-docs.ts). */
  file: string;
}

function fencedBlocks(markdown: string, file = 'README.md'): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const open = /^```(\w*)$/.exec(lines[i] ?? '');
    if (!open) continue;
    const end = lines.indexOf('```', i + 1);
    blocks.push({ lang: open[1] ?? '', text: lines.slice(i + 1, end).join('\n'), line: i + 1, file });
    i = end;
  }
  return blocks;
}

/** The placeholder values of the README and what stands for them here: hosts that do not exist. */
const SUBSTITUTIONS = {
  /** The example deployment: a reference server on loopback. */
  deployment: 'https://api.staging.example.com',
  /** The example secrets: the reference server's, the first client's then the second's. */
  secret: "'…'",
  /** A fixed port other tests or programs may hold: a free one. */
  port: '8080',
  /** The third parties of the certification examples: reference servers with their client id. */
  acme: 'https://api.acme.example',
  globex: 'https://carrier.globex.example',
  /** A certification profile's refusal of loopback: allowed here, where every target is a reference server on loopback. */
  profileTargets: '"allowTargets": []',
  /** The two-job expiry proof's hour-long wait, and the profile's minimum: scaled down to the reference server's 2 s tokens. */
  expiryJobWait: '--max-expiry-wait 3600 --deadline 4000',
  minExpiryWait: '"minMaxExpiryWait": 3600',
  /** Where a project that installed the package has its OpenAPI document; serve prints that path. */
  packageOpenapi: 'node_modules/carrier-conformance/docs/openapi.yaml',
} as const;

/** Commands the test suite does not run, and why. */
const NOT_RUN: Record<string, string> = {
  'npm ci': 'installs the tree this suite runs in, from the network',
  'npm test': 'is this suite',
  'npm run build':
    '`npm test` runs it before this suite; run again, it would rewrite dist/ under the tests that read it',
  'npm run bench': 'takes minutes; its own results are in the README',
  'npm run build && npx vitest run --config test/vitest.config.ts test/meta': 'the meta-tests are part of this suite',
  "The last release's report":
    "asks GitHub's API for the last release's artifact (gh run download); the test puts a report in last-release/ instead",
};

let workspace: string;
let deployment: ReferenceServer;
/** The certification examples' third parties: client id `conformance`, as the README's commands give. */
let acme: ReferenceServer;
let globex: ReferenceServer;
let readme: string;
let blocks: Block[];
const cleanup: (() => Promise<void>)[] = [];

beforeAll(async () => {
  // The README and the docs pages it links to: one text for what they say, their blocks each with its page.
  const pages = await readUserDocs();
  readme = pages.map((p) => p.text).join('\n');
  blocks = pages.flatMap((p) => fencedBlocks(p.text, p.file));
  // A user's project with the package installed: node_modules/.bin/carrier-conformance.
  workspace = await tempDir('carrier-readme-');
  await mkdir(join(workspace, 'node_modules', '.bin'), { recursive: true });
  await symlink(BIN, join(workspace, 'node_modules', '.bin', 'carrier-conformance'));
  await writeFile(join(workspace, 'package.json'), JSON.stringify({ name: 'a-platform-team', private: true }));
  deployment = await startReferenceServer({
    clientId: 'my-client',
    clientSecret: 'a deployment secret: +%&=/',
    secondClientId: 'my-other-client',
    secondClientSecret: 'another tenant: +%&=/',
    tokenTtlSeconds: 2,
  });
  cleanup.push(() => deployment.close());
  acme = await startReferenceServer({
    clientId: 'conformance',
    clientSecret: 'acme: s3cret+&=',
    secondClientId: 'conformance-2',
    secondClientSecret: 'acme 2: s3cret+&=',
    tokenTtlSeconds: 2,
  });
  cleanup.push(() => acme.close());
  globex = await startReferenceServer({
    clientId: 'conformance',
    clientSecret: 'globex secret/%',
    secondClientId: 'conformance-2',
    secondClientSecret: 'globex 2 secret/%',
    tokenTtlSeconds: 2,
  });
  cleanup.push(() => globex.close());
  // The API's OpenAPI document as the certification examples name it: the reference server's.
  await writeFile(join(workspace, 'carrier-api.yaml'), await readFile(deployment.openapiFile, 'utf8'));
});
afterAll(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

const sh = (script: string, options: { env?: Record<string, string>; cwd?: string } = {}) =>
  runShell(script, { cwd: options.cwd ?? workspace, ...(options.env ? { env: options.env } : {}) });

function blockWith(start: string): Block {
  const block = blocks.find((b) => b.text.trimStart().startsWith(start));
  if (!block)
    throw new Error(`the README and its docs pages have no code block starting with ${JSON.stringify(start)}`);
  return block;
}

/** A directory of its own in the user's project for one example's relative paths (npx finds the package above it). */
async function project(name: string): Promise<string> {
  const dir = join(workspace, name);
  await mkdir(dir, { recursive: true });
  return dir;
}

/** The deployment's settings as a CI job's environment gives them. */
const deploymentEnv = (): Record<string, string> => ({
  CARRIER_BASE_URL: deployment.url,
  CARRIER_CLIENT_ID: deployment.clientId,
  CARRIER_CLIENT_SECRET: deployment.clientSecret,
  CI: 'true',
});

interface Step {
  name?: string;
  env: Record<string, string>;
  /** The step's `run`, as the runner's shell gets it: a literal block kept, a folded one joined. */
  run?: string;
}

/** The steps of a GitHub Actions step list (`- ` at `indent` spaces): name, env and run. */
function stepsOf(yaml: string, indent: number): Step[] {
  const pad = ' '.repeat(indent);
  return yaml
    .split(new RegExp(`^${pad}- `, 'm'))
    .slice(1)
    .map((chunk) => {
      const lines = `${pad}  ${chunk}`.split('\n');
      const step: Step = { env: {} };
      for (let i = 0; i < lines.length; i += 1) {
        const line = lines[i] ?? '';
        const key = new RegExp(`^${pad}  (name|run): ?(.*)$`).exec(line);
        const variable = new RegExp(`^${pad}    ([A-Z][A-Z_]*): (.+)$`).exec(line);
        if (variable) step.env[variable[1] ?? ''] = variable[2] ?? '';
        if (key?.[1] === 'name') step.name = key[2] ?? '';
        if (key?.[1] !== 'run') continue;
        if (key[2] !== '|' && key[2] !== '>-') {
          step.run = key[2] ?? '';
          continue;
        }
        const body: string[] = [];
        while (i + 1 < lines.length && (lines[i + 1]?.startsWith(`${pad}    `) ?? false))
          body.push((lines[(i += 1)] ?? '').slice(indent + 4));
        step.run = key[2] === '|' ? body.join('\n') : body.join(' ');
      }
      return step;
    });
}

/** Fills in GitHub's `${{ … }}` expressions; one this test does not know fails it. */
function fill(text: string, values: Record<string, string>): string {
  return text.replace(/\$\{\{ ([^}]+?) \}\}/g, (_m, expression: string) => {
    const value = values[expression];
    if (value === undefined)
      throw new Error(`the README's workflow uses \${{ ${expression} }}, which the test does not fill in`);
    return value;
  });
}

const readReport = async (file: string): Promise<RunReport> => JSON.parse(await readFile(file, 'utf8')) as RunReport;

/** The commands of a shell block, a line ending in `\` joined with the next, comments cut. */
function commandsOf(block: Block): string[] {
  return block.text
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((l) => l.replace(/(?:^|\s+)#.*$/, '').trim())
    .filter((l) => l !== '');
}

/** The baseline the README's CI examples name (ci/known-failures.json), with the README's own example entry. */
async function writeKnownFailures(): Promise<void> {
  const example = /`(\{"failures": \[\{"check": "TOKEN-PRAGMA".*?\}\]\})`/.exec(readme)?.[1];
  expect(example, 'the README shows a baseline file').toBeDefined();
  await mkdir(join(workspace, 'ci'), { recursive: true });
  await writeFile(join(workspace, 'ci', 'known-failures.json'), example ?? '');
}

// Each example runs the CLI several times over (comparing runs: two runs, a diff, a gate): 37 s
// on a quiet 2-core machine, over 60 s beside two other test files and a build. The timeout is a
// guard against a hang, not a measure.
describe('the README, run as written', { timeout: 180_000 }, () => {
  it('knows every code block of the README', () => {
    // The Install block (npm install ./carrier-conformance-<version>.tgz) is run by test/install.test.ts.
    const known = [
      'npm ci && npm start',
      'npm install --save-dev ./carrier-conformance-',
      'export CARRIER_CLIENT_SECRET=',
      '{ "user":',
      'FAILED (2)',
      'jobs:\n  conformance:\n    runs-on',
      'conformance:',
      'npx carrier-conformance diff',
      "- name: The last release's report",
      'npx carrier-conformance matrix',
      'jobs:\n  conformance:\n    name: conformance (${{ matrix',
      'openssl genpkey',
      'npx carrier-conformance verify-bundle',
      '{\n  "format": "carrier-conformance-profile/1"',
      'npx carrier-conformance run --profile',
      '# job "main"',
      '# in one terminal',
      'npm test            #',
      'npx carrier-conformance lint openapi.yaml',
      '- name: Lint the OpenAPI document',
    ];
    for (const block of blocks)
      expect(
        known.some((k) => block.text.trimStart().startsWith(k)),
        `${block.file}:${block.line} (${block.lang}) is run by no test`,
      ).toBe(true);
    expect(blocks).toHaveLength(known.length);
  });

  it('the first commands: npm start runs the whole battery against the embedded server and exits 0 (npm ci and npm test: see NOT_RUN)', async () => {
    const commands = commandsOf(blockWith('npm ci && npm start'));
    expect(commands).toEqual(['npm ci && npm start', 'npm test']);
    for (const skipped of ['npm ci', 'npm test']) expect(NOT_RUN[skipped]).toBeDefined();
    // In CI too (CI=true in this suite's environment): `npm start` asks for --embedded itself.
    const result = await sh('npm start', {
      cwd: PACKAGE_ROOT,
      env: { CI: 'true', CARRIER_REPORTS_DIR: join(workspace, 'start-reports') },
    });
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^CONFORMANT {2}http:\/\/127\.0\.0\.1:\d+$/m);
  });

  it('against your deployment, with the expectations example: every check carried out, CONFORMANT', async () => {
    const json = blockWith('{ "user":');
    await writeFile(join(workspace, 'expectations.json'), json.text);
    // The deployment's own OpenAPI document (openapi.yaml in the example): the reference server's.
    await writeFile(join(workspace, 'openapi.yaml'), await readFile(deployment.openapiFile, 'utf8'));
    const script = blockWith('export CARRIER_CLIENT_SECRET=')
      .text.replace(SUBSTITUTIONS.deployment, deployment.url)
      .replace(SUBSTITUTIONS.secret, `'${deployment.clientSecret}'`)
      .replace(SUBSTITUTIONS.secret, `'${deployment.secondClientSecret}'`);
    const result = await sh(script, { env: { CARRIER_REPORTS_DIR: join(workspace, 'deployment-reports') } });
    expect(result.status, result.stdout + result.stderr).toBe(0);
    const report = JSON.parse(
      await readFile(join(workspace, 'deployment-reports', 'report.json'), 'utf8'),
    ) as RunReport;
    expect(
      report.checks.filter((c) => c.status !== 'passed').map((c) => `${c.id}: ${c.status} ${c.message ?? ''}`),
    ).toEqual([]);
    expect(report.scope?.coverage).toBe('full');
    // Tenant isolation proven with the second client, both ways (issue 39).
    expect(report.target.isolation?.method).toBe('second-client');
    // The expectations example is the reference server's test account: it passes, field by field.
    expect(report.checks.find((c) => c.id === 'USER-EXPECTED-VALUES')?.status).toBe('passed');
    expect(report.checks.find((c) => c.id === 'RESOURCE-EXPECTED-VALUES')?.status).toBe('passed');
  });

  it('the multi-endpoint console example is what a run against such a fault prints', async () => {
    const shown = blockWith('FAILED (2)')
      .text.split('\n')
      .map((l) => l.replace(/ +/g, ' ').trim());
    const faulty = await startReferenceServer({ faults: ['version-ignored-on-single-invoice'] });
    cleanup.push(() => faulty.close());
    process.env.CARRIER_CLIENT_SECRET = faulty.clientSecret;
    const result = await runMain([
      'run',
      '--base-url',
      faulty.url,
      '--client-id',
      faulty.clientId,
      '--openapi',
      faulty.openapiFile,
      '--suite',
      'versioning',
      '--reports-dir',
      join(workspace, 'fault-reports'),
    ]).finally(() => delete process.env.CARRIER_CLIENT_SECRET);
    const printed = result.stdout.split('\n').map((l) => l.replace(/ +/g, ' ').trim());
    for (const line of shown) expect(printed, line).toContain(line);
  });

  it('the expectations example passes against the embedded server as well', async () => {
    const result = await runMain([
      'run',
      '--embedded',
      '--check',
      'USER-EXPECTED-VALUES',
      '--expectations',
      join(workspace, 'expectations.json'),
      '--reports-dir',
      join(workspace, 'embedded-reports'),
    ]);
    expect(result.code, result.stdout).toBe(0);
  });

  it('the GitHub Actions job: its step, with the environment GitHub gives it, gates on the deployment', async () => {
    const yaml = blockWith('jobs:\n  conformance:\n    runs-on').text;
    // mikepenz/action-junit-report creates a check run: a repository's read-only default token cannot (issue 42).
    const job = (load(yaml) as { jobs: { conformance: { permissions?: unknown } } }).jobs.conformance;
    expect(job.permissions).toEqual({ contents: 'read', checks: 'write' });
    await writeKnownFailures();
    const env = Object.fromEntries(
      [...yaml.matchAll(/^ {10}(CARRIER_[A-Z_]+): (.+)$/gm)].map((m) => [m[1] ?? '', m[2] ?? '']),
    );
    expect(Object.keys(env)).toEqual([
      'CARRIER_BASE_URL',
      'CARRIER_CLIENT_ID',
      'CARRIER_CLIENT_SECRET',
      'CARRIER_SECOND_CLIENT_ID',
      'CARRIER_SECOND_CLIENT_SECRET',
    ]);
    // GitHub fills in ${{ vars.* }} and ${{ secrets.* }}, and sets CI and GITHUB_STEP_SUMMARY.
    const summary = join(workspace, 'github-step-summary.md');
    const filled = {
      CARRIER_BASE_URL: (env.CARRIER_BASE_URL ?? '').replace(SUBSTITUTIONS.deployment, deployment.url),
      CARRIER_CLIENT_ID: deployment.clientId,
      CARRIER_CLIENT_SECRET: deployment.clientSecret,
      CARRIER_SECOND_CLIENT_ID: deployment.secondClientId,
      CARRIER_SECOND_CLIENT_SECRET: deployment.secondClientSecret,
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_STEP_SUMMARY: summary,
    };
    const steps = [...yaml.matchAll(/^\s+(?:- )?run: (.+)$/gm)].map((m) => m[1] ?? '');
    // As complete as the main example (issue 42): the document, the known data, a second client.
    expect(steps).toEqual([
      'npm ci',
      'npx carrier-conformance run --openapi openapi.yaml --expectations expectations.json --baseline ci/known-failures.json',
    ]);
    const result = await sh(steps[1] ?? '', { env: filled });
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^CONFORMANT {2}http/m);
    expect(existsSync(join(workspace, 'reports', 'junit.xml'))).toBe(true);
    expect(await readFile(summary, 'utf8')).toMatch(/## Carrier-Platform API conformance: ✅ CONFORMANT\b/);
  });

  it('the GitLab CI job: its script, with its variables and the masked secret, gates on the deployment', async () => {
    const yaml = blockWith('conformance:').text;
    await writeKnownFailures();
    const variables = Object.fromEntries(
      [...yaml.matchAll(/^ {4}(CARRIER_[A-Z_]+): (.+)$/gm)].map((m) => [m[1] ?? '', m[2] ?? '']),
    );
    expect(variables).toEqual({
      CARRIER_BASE_URL: SUBSTITUTIONS.deployment,
      CARRIER_CLIENT_ID: 'my-client',
      CARRIER_SECOND_CLIENT_ID: 'my-other-client',
    });
    const script = [...yaml.matchAll(/^ {4}- (.+)$/gm)].map((m) => m[1] ?? '');
    expect(script).toEqual([
      'npm ci',
      'npx carrier-conformance run --openapi openapi.yaml --expectations expectations.json --baseline ci/known-failures.json',
    ]);
    const env = {
      ...variables,
      CARRIER_BASE_URL: deployment.url,
      CARRIER_CLIENT_SECRET: deployment.clientSecret,
      CARRIER_SECOND_CLIENT_SECRET: deployment.secondClientSecret,
      CI: 'true',
      GITLAB_CI: 'true',
    };
    const result = await sh(script[1] ?? '', { env });
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(existsSync(join(workspace, 'reports', 'junit.xml'))).toBe(true);
  });

  it('the same job with CARRIER_BASE_URL missing (a renamed secret): exit 2, not a run against the embedded server', async () => {
    const result = await sh('npx carrier-conformance run --paged-path shipments --baseline ci/known-failures.json', {
      env: { CARRIER_CLIENT_ID: 'my-client', CARRIER_CLIENT_SECRET: 'x', CI: 'true' },
    });
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
  });

  it('one fault case by hand, in two terminals: serve with a fault, then the command serve prints; the fault is found', async () => {
    const port = String(await freePort());
    const text = blockWith('# in one terminal')
      .text.replaceAll(SUBSTITUTIONS.port, port)
      .replace(SUBSTITUTIONS.packageOpenapi, join(PACKAGE_ROOT, 'docs', 'openapi.yaml'));
    const [first = '', second = ''] = text.split(/^# in another.*$/m);
    const serveLine = commandsOf({ lang: 'sh', text: first, line: 0, file: '' });
    expect(serveLine).toEqual([`npx carrier-conformance serve --port ${port} --fault pages-lose-items`]);
    // The first terminal: its own process group, so that Ctrl-C (SIGINT to the group) reaches serve under npx.
    const terminal = spawn('sh', ['-c', serveLine[0] ?? ''], {
      cwd: workspace,
      detached: true,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' },
    });
    const exited = new Promise<void>((resolve) => terminal.on('close', () => resolve()));
    const ctrlC = async (): Promise<void> => {
      try {
        if (terminal.pid !== undefined) process.kill(-terminal.pid, 'SIGINT');
      } catch {
        // The group is gone already: the terminal was closed.
      }
      await exited;
    };
    cleanup.push(ctrlC);
    let printed = '';
    terminal.stdout.on('data', (d: Buffer) => (printed += d.toString()));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve did not start: ${printed}`)), 30_000);
      terminal.stdout.on('data', () => {
        if (printed.includes('Ctrl-C stops it')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    // The second terminal's lines are what serve printed.
    const commands = commandsOf({ lang: 'sh', text: second, line: 0, file: '' });
    for (const command of commands) expect(printed, "serve prints the README's second terminal").toContain(command);
    const result = await sh(second, { env: { CARRIER_REPORTS_DIR: join(workspace, 'fault-reports') } });
    expect(result.status, result.stdout + result.stderr).toBe(1);
    expect(result.stdout).toMatch(/^NON-CONFORMANT {2}http:\/\/127\.0\.0\.1:\d+$/m);
    expect(result.stdout).toMatch(/PAGE-WALK\s+MUST/);
    await ctrlC();
    expect(printed).toContain('reference server stopped');
  });

  it("the counts in the text are the catalogues' (faults, variants, checks)", () => {
    expect(readme).toContain(`**${FAULTS.length} faults**`);
    expect(readme).toContain(`**${VARIANTS.length} variants**`);
    expect(readme).toContain(
      `**Mutation score: ${CHECKS.length} / ${CHECKS.length} checks** have at least one fault that makes them fail, and all ${FAULTS.length}`,
    );
    expect(readme).toContain(`\`CONFORMANT ON 18 OF ${CHECKS.length} CHECKS\``);
  });

  it('the commands in the text: `carrier-conformance list`, and what is not run and why', async () => {
    const inline = [...new Set([...readme.matchAll(/`((?:npx )?carrier-conformance [^`]*)`/g)].map((m) => m[1] ?? ''))];
    // `lint FILE…` is a synopsis: test/lint.test.ts runs the README's lint commands as written.
    expect(inline.sort()).toEqual([
      'carrier-conformance lint FILE…',
      'carrier-conformance list',
      'carrier-conformance serve [--port 8080] [--token-ttl 5]',
      'npx carrier-conformance list',
    ]);
    const list = await sh('npx carrier-conformance list');
    expect(list.status).toBe(0);
    expect(list.stdout).toContain('TOKEN-ISSUE');
    // `serve [--port 8080] [--token-ttl 5]` is a synopsis; the fault case above runs serve as written.
    const development = commandsOf(blockWith('npm test            #'));
    expect(development).toEqual(['npm test', 'npm run build', 'npm run bench']);
    for (const command of [...development, 'npm run build && npx vitest run --config test/vitest.config.ts test/meta'])
      expect(NOT_RUN[command], command).toBeDefined();
    expect(readme).toContain('`npm run build && npx vitest run --config test/vitest.config.ts test/meta`');
  });

  it("comparing runs: diff of two reports, and a run --compare-with the last release's report", async () => {
    const cwd = await project('compare');
    const [diffLine = '', compareLine = ''] = commandsOf(blockWith('npx carrier-conformance diff'));
    expect(diffLine).toBe('npx carrier-conformance diff last-release/report.json reports/report.json');
    // The last release's report and this one's: two runs of the deployment.
    for (const reports of ['last-release', 'reports'])
      expect(
        (
          await sh(`npx carrier-conformance run --paged-path shipments --reports-dir ${reports}`, {
            env: deploymentEnv(),
            cwd,
          })
        ).status,
      ).toBe(0);
    const diff = await sh(diffLine, { cwd });
    expect(diff.status, diff.stdout + diff.stderr).toBe(0);
    expect(diff.stdout).toMatch(/^NO REGRESSION$/m);
    const compared = await sh(compareLine, { env: deploymentEnv(), cwd });
    expect(compared.status, compared.stdout + compared.stderr).toBe(0);
    expect((await readReport(join(cwd, 'reports', 'report.json'))).comparison).toMatchObject({
      with: 'last-release/report.json',
      regressions: [],
    });
  });

  it("the release gate's steps: the gate runs with and without the last release's report", async () => {
    const cwd = await project('release-gate');
    const steps = stepsOf(blockWith("- name: The last release's report").text, 6);
    expect(steps.map((s) => s.name ?? (s.run === undefined ? 'uses' : 'run'))).toEqual([
      "The last release's report",
      'Conformance gate',
      'uses',
    ]);
    expect(NOT_RUN[steps[0]?.name ?? '']).toBeDefined();
    const gate = steps[1] ?? { env: {} };
    const values = {
      'vars.CARRIER_CLIENT_ID': deployment.clientId,
      'secrets.CARRIER_CLIENT_SECRET': deployment.clientSecret,
      'vars.CARRIER_SECOND_CLIENT_ID': deployment.secondClientId,
      'secrets.CARRIER_SECOND_CLIENT_SECRET': deployment.secondClientSecret,
    };
    // The repository's document and test data, as the gate names them.
    await writeFile(join(cwd, 'openapi.yaml'), await readFile(deployment.openapiFile, 'utf8'));
    await writeFile(join(cwd, 'expectations.json'), JSON.stringify(deployment.expectations));
    const env = {
      ...Object.fromEntries(
        Object.entries(gate.env).map(([k, v]) => [
          k,
          fill(v, values).replace(SUBSTITUTIONS.deployment, deployment.url),
        ]),
      ),
      CI: 'true',
      GITHUB_ACTIONS: 'true',
    };
    expect(Object.keys(env)).toEqual([
      'CARRIER_BASE_URL',
      'CARRIER_CLIENT_ID',
      'CARRIER_CLIENT_SECRET',
      'CARRIER_SECOND_CLIENT_ID',
      'CARRIER_SECOND_CLIENT_SECRET',
      'CI',
      'GITHUB_ACTIONS',
    ]);
    // The first release: no earlier report. Its report is the next gate's reference (the upload step).
    const first = await sh(gate.run ?? '', { env, cwd });
    expect(first.status, first.stdout + first.stderr).toBe(0);
    await mkdir(join(cwd, 'last-release'));
    await writeFile(join(cwd, 'last-release', 'report.json'), await readFile(join(cwd, 'reports', 'report.json')));
    const next = await sh(gate.run ?? '', { env, cwd });
    expect(next.status, next.stdout + next.stderr).toBe(0);
    expect(next.stdout).toMatch(/^NO REGRESSION$/m);
  });

  it("a conformance matrix of two targets' reports", async () => {
    const cwd = await project('matrix');
    for (const [name, server] of [
      ['acme', acme],
      ['globex', globex],
    ] as const) {
      const run = await sh(
        `npx carrier-conformance run --openapi ../carrier-api.yaml --target-name ${name} --reports-dir reports/${name}`,
        {
          env: {
            CARRIER_BASE_URL: server.url,
            CARRIER_CLIENT_ID: server.clientId,
            CARRIER_CLIENT_SECRET: server.clientSecret,
          },
          cwd,
        },
      );
      expect(run.status, run.stdout + run.stderr).toBe(0);
    }
    const [line = ''] = commandsOf(blockWith('npx carrier-conformance matrix'));
    const matrix = await sh(line, { cwd });
    expect(matrix.status, matrix.stdout + matrix.stderr).toBe(0);
    for (const file of ['matrix.html', 'matrix.json', 'badges/acme.json', 'badges/globex.json'])
      expect(existsSync(join(cwd, 'matrix', file)), file).toBe(true);
  });

  it("the matrix workflow: each target's job, then the combine job on the artifacts", async () => {
    const cwd = await project('matrix-workflow');
    await writeFile(join(cwd, 'carrier-api.yaml'), await readFile(join(workspace, 'carrier-api.yaml')));
    const yaml = blockWith('jobs:\n  conformance:\n    name: conformance (${{ matrix').text;
    const [targetJob = '', combineJob = ''] = yaml.split(/^ {2}combine:$/m);
    const targets = [
      ...targetJob.matchAll(/^ {10}- \{ name: (\w+), base-url: '([^']+)', client-id: (\w+), secret: (\w+) \}$/gm),
    ].map((m) => ({ name: m[1] ?? '', baseUrl: m[2] ?? '', clientId: m[3] ?? '', secret: m[4] ?? '' }));
    expect(targets.map((t) => [t.name, t.baseUrl])).toEqual([
      ['acme', SUBSTITUTIONS.acme],
      ['globex', SUBSTITUTIONS.globex],
    ]);
    const servers: Record<string, ReferenceServer> = { acme, globex };
    const step = stepsOf(targetJob, 6).find((s) => s.name === 'Conformance run') ?? { env: {} };
    await Promise.all(
      targets.map(async (target) => {
        const server = servers[target.name] ?? deployment;
        const values = {
          'matrix.target.name': target.name,
          'matrix.target.base-url': server.url,
          'matrix.target.client-id': target.clientId,
          // GitHub's secrets, ACME_CLIENT_SECRET and GLOBEX_CLIENT_SECRET: each target's own.
          'secrets[matrix.target.secret]': server.clientSecret,
        };
        const env = {
          ...Object.fromEntries(Object.entries(step.env).map(([k, v]) => [k, fill(v, values)])),
          CI: 'true',
        };
        const run = await sh(fill(step.run ?? '', values), { env, cwd });
        expect(run.status, run.stdout + run.stderr).toBe(0);
        // actions/download-artifact puts each artifact in all-reports/conformance-<name>/.
        await cp(join(cwd, 'reports', target.name), join(cwd, 'all-reports', `conformance-${target.name}`), {
          recursive: true,
        });
      }),
    );
    const combine = stepsOf(combineJob, 6)
      .filter((s) => s.run !== undefined)
      .map((s) => s.run ?? '');
    expect(combine).toEqual(['npm ci', 'npx carrier-conformance matrix all-reports/*/ --out matrix']);
    const matrix = await sh(combine[1] ?? '', { cwd });
    expect(matrix.status, matrix.stdout + matrix.stderr).toBe(0);
    expect(await readFile(join(cwd, 'matrix', 'matrix.json'), 'utf8')).toMatch(/"acme"[\s\S]*"globex"/);
  });

  it('a certification bundle: keys, the signed run, and verify-bundle with the public key', async () => {
    const cwd = await project('certification');
    await writeFile(join(cwd, 'carrier-api.yaml'), await readFile(join(workspace, 'carrier-api.yaml')));
    await writeFile(join(cwd, 'expectations.json'), blockWith('{ "user":').text);
    const script = blockWith('openssl genpkey').text.replace(SUBSTITUTIONS.acme, acme.url);
    const run = await sh(script, {
      env: { CARRIER_CLIENT_SECRET: acme.clientSecret, CARRIER_SECOND_CLIENT_SECRET: acme.secondClientSecret },
      cwd,
    });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout + run.stderr).not.toContain(acme.clientSecret);
    expect(run.stdout + run.stderr).not.toContain(acme.secondClientSecret);
    const verify = await sh(blockWith('npx carrier-conformance verify-bundle').text, { cwd });
    expect(verify.status, verify.stdout + verify.stderr).toBe(0);
    expect(verify.stdout).not.toMatch(/^\s*FAIL/m);
  });

  /**
   * A project with the README's certification profile, filled in for this run: the document and
   * the test account's data of every item the endpoints serve (the README's example expectations
   * are partial, and the profile requires each endpoint judged, its values too), their SHA-256,
   * loopback allowed (the test servers are there); `edit` changes the profile further.
   */
  async function profileProject(name: string, edit: (profile: string) => string = (p) => p): Promise<string> {
    const cwd = await project(name);
    await writeFile(join(cwd, 'carrier-api.yaml'), await readFile(join(workspace, 'carrier-api.yaml')));
    await writeFile(join(cwd, 'expectations.json'), JSON.stringify(acme.expectations));
    const sha256 = async (file: string): Promise<string> =>
      createHash('sha256')
        .update(await readFile(join(cwd, file)))
        .digest('hex');
    const profile = blockWith('{\n  "format": "carrier-conformance-profile/1"')
      .text.replace('<sha256sum carrier-api.yaml>', await sha256('carrier-api.yaml'))
      .replace('<sha256sum expectations.json>', await sha256('expectations.json'))
      .replace(SUBSTITUTIONS.profileTargets, '"allowTargets": ["loopback"]');
    await writeFile(join(cwd, 'carrier-profile.json'), edit(profile));
    return cwd;
  }

  it("a certification profile: the vendor's run with --profile, and verify-bundle --profile exiting 0", async () => {
    const cwd = await profileProject('certification-profile');
    expect(
      (
        await sh(
          'openssl genpkey -algorithm ed25519 -out sign-key.pem && openssl pkey -in sign-key.pem -pubout -out acme-public-key.pem',
          { cwd },
        )
      ).status,
    ).toBe(0);
    const [run = '', verify = ''] = commandsOf(blockWith('npx carrier-conformance run --profile'));
    const ran = await sh(run.replace(SUBSTITUTIONS.acme, acme.url), {
      env: { CARRIER_CLIENT_SECRET: acme.clientSecret, CARRIER_SECOND_CLIENT_SECRET: acme.secondClientSecret },
      cwd,
    });
    expect(ran.status, ran.stdout + ran.stderr).toBe(0);
    const verified = await sh(verify, { cwd });
    expect(verified.status, verified.stdout + verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(
      /^ {2}ok {4}profile: made under carrier-profile\.json \(Carrier Platform certification 2026\)/m,
    );
    expect(verified.stdout).toMatch(/^ {2}ok {4}isolation: tenant isolation proven with a second client, both ways/m);
  });

  it('the certification example, run as written against `serve --fault cross-tenant-data`, is not certifiable (issue 39)', async () => {
    const cwd = await profileProject('certification-cross-tenant');
    expect(
      (
        await sh(
          'openssl genpkey -algorithm ed25519 -out sign-key.pem && openssl pkey -in sign-key.pem -pubout -out acme-public-key.pem',
          { cwd },
        )
      ).status,
    ).toBe(0);
    const leaky = await startReferenceServer({
      clientId: 'conformance',
      clientSecret: 'acme: s3cret+&=',
      secondClientId: 'conformance-2',
      secondClientSecret: 'acme 2: s3cret+&=',
      tokenTtlSeconds: 2,
      faults: ['cross-tenant-data'],
    });
    cleanup.push(() => leaky.close());
    const [run = '', verify = ''] = commandsOf(blockWith('npx carrier-conformance run --profile'));
    const ran = await sh(run.replace(SUBSTITUTIONS.acme, leaky.url), {
      env: { CARRIER_CLIENT_SECRET: leaky.clientSecret, CARRIER_SECOND_CLIENT_SECRET: leaky.secondClientSecret },
      cwd,
    });
    expect(ran.status, ran.stdout + ran.stderr).toBe(1);
    expect(ran.stdout).toMatch(/^NON-CONFORMANT/m);
    expect(ran.stdout).toMatch(/TENANT-FOREIGN\s+MUST/);
    const verified = await sh(verify, { cwd });
    expect(verified.status).toBe(1);
    expect(verified.stdout).toMatch(/^ {2}FAIL {2}MUST TENANT-FOREIGN: failed: /m);
    expect(verified.stdout.trim().split('\n').at(-1)).not.toMatch(/^CERTIFIABLE/);
    // Without the second client the profile refuses the run at once (isolation: second-client), before any request.
    const without = await sh(
      run.replace(SUBSTITUTIONS.acme, leaky.url).replace(' --second-client-id conformance-2', ''),
      { env: { CARRIER_CLIENT_SECRET: leaky.clientSecret }, cwd },
    );
    expect(without.status).toBe(2);
    expect(without.stderr).toMatch(
      /requires tenant isolation proven with a second client \(isolation: second-client\)/,
    );
  }, 60_000);

  it('the two-job expiry proof: a main job, an expiry job, combine-bundles, and verify-bundle --profile exiting 0', async () => {
    const cwd = await profileProject('two-job-expiry', (profile) =>
      profile.replace(SUBSTITUTIONS.minExpiryWait, '"minMaxExpiryWait": 5'),
    );
    expect(await readFile(join(cwd, 'carrier-profile.json'), 'utf8')).toContain('"separateExpiryJob": true');
    expect(
      (
        await sh(
          'openssl genpkey -algorithm ed25519 -out sign-key.pem && openssl pkey -in sign-key.pem -pubout -out acme-public-key.pem',
          { cwd },
        )
      ).status,
    ).toBe(0);
    const script = blockWith('# job "main"')
      .text.replaceAll(SUBSTITUTIONS.acme, acme.url)
      .replace(SUBSTITUTIONS.expiryJobWait, '--max-expiry-wait 10 --deadline 30');
    const ran = await sh(`set -e\n${script}`, {
      env: { CARRIER_CLIENT_SECRET: acme.clientSecret, CARRIER_SECOND_CLIENT_SECRET: acme.secondClientSecret },
      cwd,
    });
    expect(ran.status, ran.stdout + ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/^NOT PROVEN/m);
    expect(ran.stdout).toContain('Combined bundle: acme-bundle (signed, Ed25519 key SHA256:');
    expect(ran.stdout).toMatch(
      /^ {2}ok {4}combination: report\.json and target\.json are exactly what parts\/ combine to/m,
    );
    expect(ran.stdout.trim().split('\n').at(-1)).toBe(
      'CERTIFIABLE: complete, untampered (signed by the key you gave) and conformant',
    );
  }, 60_000);

  it('names only options that exist', async () => {
    const commands = ['run', 'serve', 'list', 'diff', 'matrix', 'verify-bundle', 'lint'];
    const help = (await Promise.all(commands.map((command) => runMain([command, '--help']))))
      .map((r) => r.stdout)
      .join('\n');
    const named = new Set([...readme.matchAll(/`(--[a-z][a-z-]*)/g)].map((m) => m[1] ?? ''));
    for (const option of named) expect(help, `README names ${option}`).toMatch(new RegExp(`${option}\\b`));
  });
});
