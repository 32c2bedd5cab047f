/**
 * Where teams already work (issue 42 items 1 and 2): every GitHub workflow the documentation
 * shows is one GitHub's own parser accepts; action.yml is a valid action whose steps, run as a
 * runner runs them (inputs through expressions, bash -eo pipefail, GITHUB_OUTPUT), gate on a
 * deployment; the GitLab template's jobs run as GitLab runs them, the gate fetching the last
 * release's report with the job's token; the pre-commit hook lints what pre-commit hands it.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceServer, type ReferenceServer } from '../src/reference/index.js';
import { actionProblems, condition, interpolate, workflowProblems, type Contexts } from './support/github-actions.js';
import { BIN, runShell, tempDir } from './support/harness.js';
import { closeServer, onLoopback } from './support/loopback.js';
import { readUserDocs } from './support/user-docs.js';

const ROOT = new URL('..', import.meta.url).pathname;
const read = (path: string): Promise<string> => readFile(join(ROOT, path), 'utf8');

let workspace: string;
let deployment: ReferenceServer;
let faulty: ReferenceServer;

beforeAll(async () => {
  // A platform team's repository: the harness installed (npx finds it), its document and data.
  workspace = await tempDir('carrier-ci-templates-');
  await mkdir(join(workspace, 'node_modules', '.bin'), { recursive: true });
  await symlink(BIN, join(workspace, 'node_modules', '.bin', 'carrier-conformance'));
  await writeFile(join(workspace, 'package.json'), JSON.stringify({ name: 'a-platform-team', private: true }));
  [deployment, faulty] = await Promise.all([
    startReferenceServer({ tokenTtlSeconds: 2 }),
    startReferenceServer({ tokenTtlSeconds: 2, faults: ['version-missing-accepted'] }),
  ]);
  await writeFile(join(workspace, 'openapi.yaml'), await readFile(deployment.openapiFile, 'utf8'));
  await writeFile(join(workspace, 'expectations.json'), JSON.stringify(deployment.expectations));
});
afterAll(async () => {
  await Promise.all([deployment.close(), faulty.close()]);
});

/** The YAML blocks of the user documentation that are GitHub workflows, or steps of one. */
async function workflowBlocks(): Promise<{ where: string; text: string }[]> {
  const found: { where: string; text: string }[] = [];
  const docs = [
    ...(await readUserDocs()),
    { file: 'docs/ci/github-action.md', text: await read('docs/ci/github-action.md') },
  ];
  for (const doc of docs)
    for (const m of doc.text.matchAll(/```yaml\n([\s\S]*?)```/g)) {
      const text = m[1] ?? '';
      const where = `${doc.file}, the block at line ${doc.text.slice(0, m.index).split('\n').length}`;
      if (/^jobs:/m.test(text)) found.push({ where, text: /^on:/m.test(text) ? text : `on: push\n${text}` });
      else if (/^\s*- (name|uses|run):/.test(text) && !/^\s*- (id|repo):/m.test(text))
        found.push({
          where,
          text: `on: push\njobs:\n  job:\n    runs-on: ubuntu-latest\n    steps:\n${text.replace(/^/gm, '      ')}`,
        });
    }
  return found;
}

describe('GitHub workflows and the action, as GitHub parses them (@actions/workflow-parser)', () => {
  it('every workflow of docs/ci/ and every workflow or steps block of the documentation is valid', async () => {
    const files = (await readdir(join(ROOT, 'docs', 'ci'))).filter((f) => f.endsWith('.yml'));
    expect(files.length).toBeGreaterThanOrEqual(4);
    const blocks = await workflowBlocks();
    expect(blocks.map((b) => b.where.split(',')[0])).toEqual(
      expect.arrayContaining([
        'README.md',
        'docs/guide.md',
        'docs/certification.md',
        'docs/lint.md',
        'docs/ci/github-action.md',
      ]),
    );
    const problems = [
      ...(await Promise.all(files.map(async (f) => workflowProblems(f, await read(`docs/ci/${f}`))))).flat(),
      ...blocks.flatMap((b) => workflowProblems(b.where, b.text)),
    ];
    expect(problems).toEqual([]);
    // The parser finds what GitHub would refuse: a misspelt key, a job without runs-on.
    expect(workflowProblems('bad.yml', 'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    stepz: []\n')).toEqual([
      "bad.yml (Line: 5, Col: 5): Unexpected value 'stepz'",
    ]);
  });

  it('action.yml is a valid composite action, and no script of it interpolates an input (inputs reach scripts through env)', async () => {
    const text = await read('action.yml');
    expect(actionProblems('action.yml', text)).toEqual([]);
    const action = load(text) as { runs: { using: string; steps: { run?: string }[] } };
    expect(action.runs.using).toBe('composite');
    for (const step of action.runs.steps) expect(step.run ?? '').not.toContain('${{');
  });

  it('the examples run a maintained Node.js LTS (Node 20 is out of support since April 2026)', async () => {
    const texts = [
      ...(await readUserDocs()).map((d) => d.text),
      ...(await Promise.all(
        ['conformance-matrix.yml', 'release-gate.yml', 'vendor-certification.yml'].map((f) => read(`docs/ci/${f}`)),
      )),
      await read('docs/ci/gitlab/carrier-conformance.yml'),
    ].join('\n');
    const versions = [...texts.matchAll(/node-version: (\S+?) ?\}|image: node:(\S+)/g)].map((m) => m[1] ?? m[2]);
    expect(versions.length).toBeGreaterThan(5);
    for (const v of versions) expect(['22', '24']).toContain(v);
  });
});

interface ActionStep {
  name?: string;
  id?: string;
  if?: string;
  run?: string;
  uses?: string;
  with?: Record<string, string>;
  env?: Record<string, string>;
  'working-directory'?: string;
}
interface ActionFile {
  inputs: Record<string, { default?: string; required?: boolean }>;
  outputs: Record<string, { value: string }>;
  runs: { steps: ActionStep[] };
}

/** Runs a script as a composite action's `shell: bash` step: bash --noprofile --norc -eo pipefail FILE. */
async function bashStep(
  script: string,
  env: Record<string, string>,
  cwd: string,
): Promise<{ code: number; out: string }> {
  const file = join(await tempDir('carrier-step-'), 'step.sh');
  await writeFile(file, script);
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', file], { cwd, env });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, out });
    });
  });
}

/**
 * action.yml run as a runner runs a composite action: each step's `if:` and expressions evaluated
 * (GitHub's evaluator), `run` steps in bash with the step's env, the outputs read from
 * GITHUB_OUTPUT; `uses` steps are not run (they are GitHub's), their `with:` is returned.
 */
async function runAction(
  inputs: Record<string, string>,
  env: Record<string, string>,
): Promise<{
  code: number;
  log: string;
  outputs: Record<string, string>;
  uses: Record<string, Record<string, string>>;
  summary: string;
}> {
  const action = load(await read('action.yml')) as ActionFile;
  for (const [name, spec] of Object.entries(action.inputs))
    if (spec.required === true) expect(inputs[name], `required input ${name}`).toBeDefined();
  const given = Object.fromEntries(Object.entries(action.inputs).map(([k, v]) => [k, inputs[k] ?? v.default ?? '']));
  const steps: Record<string, { outputs: Record<string, string> }> = {};
  const contexts = (): Contexts => ({ inputs: given, github: { action_path: ROOT, workspace }, steps });
  const summary = join(await tempDir('carrier-summary-'), 'summary.md');
  await writeFile(summary, '');
  let failedCode = 0;
  let log = '';
  const uses: Record<string, Record<string, string>> = {};
  for (const step of action.runs.steps) {
    if (!condition(step.if, contexts(), failedCode !== 0)) continue;
    if (step.uses !== undefined) {
      uses[step.uses] = Object.fromEntries(
        Object.entries(step.with ?? {}).map(([k, v]) => [k, interpolate(String(v), contexts())]),
      );
      continue;
    }
    const output = join(await tempDir('carrier-output-'), 'output');
    await writeFile(output, '');
    const stepEnv = Object.fromEntries(
      Object.entries(step.env ?? {}).map(([k, v]) => [k, interpolate(String(v), contexts())]),
    );
    const cwd =
      step['working-directory'] === undefined ? workspace : interpolate(step['working-directory'], contexts());
    const { code, out } = await bashStep(
      step.run ?? '',
      {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? '/tmp',
        CI: 'true',
        GITHUB_ACTIONS: 'true',
        GITHUB_ACTION_PATH: ROOT,
        GITHUB_WORKSPACE: workspace,
        GITHUB_OUTPUT: output,
        GITHUB_STEP_SUMMARY: summary,
        NO_COLOR: '1',
        ...env,
        ...stepEnv,
      },
      cwd,
    );
    log += out;
    const outputs = Object.fromEntries(
      (await readFile(output, 'utf8'))
        .split('\n')
        .filter((l) => l.includes('='))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    if (step.id !== undefined) steps[step.id] = { outputs };
    if (code !== 0 && failedCode === 0) failedCode = code;
  }
  const outputs = Object.fromEntries(
    Object.entries(action.outputs).map(([k, v]) => [k, interpolate(v.value, contexts())]),
  );
  return { code: failedCode, log, outputs, uses, summary: await readFile(summary, 'utf8') };
}

describe('action.yml, its steps run as a runner runs them', () => {
  it('against a conformant deployment, with the document, the data, a second client and lint: exit 0, the outputs, the step summary, SARIF, the artifact', async () => {
    const run = await runAction(
      {
        'base-url': deployment.url,
        'client-id': deployment.clientId,
        'second-client-id': deployment.secondClientId,
        openapi: 'openapi.yaml',
        expectations: 'expectations.json',
        reporters: '+har',
        'reports-dir': 'gate-reports',
        lint: 'true',
      },
      { CARRIER_CLIENT_SECRET: deployment.clientSecret, CARRIER_SECOND_CLIENT_SECRET: deployment.secondClientSecret },
    );
    expect(run.code, run.log).toBe(0);
    expect(run.outputs).toEqual({
      verdict: 'conformant',
      'exit-code': '0',
      junit: 'gate-reports/junit.xml',
      'report-json': 'gate-reports/report.json',
      'reports-dir': 'gate-reports',
    });
    for (const file of ['junit.xml', 'report.json', 'report.html', 'report.har', 'lint.sarif'])
      expect(existsSync(join(workspace, 'gate-reports', file)), file).toBe(true);
    expect(run.summary).toMatch(/^## Carrier-Platform API conformance: ✅ CONFORMANT\b/m);
    // The runner masks what ::add-mask:: names: the two secrets, and nothing else shows them.
    expect(run.log).toContain(`::add-mask::${deployment.clientSecret}`);
    expect(run.log).toContain(`::add-mask::${deployment.secondClientSecret}`);
    expect(run.log.split(`::add-mask::${deployment.clientSecret}`).join('')).not.toContain(deployment.clientSecret);
    expect(run.uses['github/codeql-action/upload-sarif@v4']).toEqual({
      sarif_file: 'gate-reports/lint.sarif',
      category: 'carrier-conformance-lint',
    });
    expect(run.uses['actions/upload-artifact@v4']).toMatchObject({
      name: 'conformance-reports',
      path: 'gate-reports/',
    });
  }, 90_000);

  it('against a deployment that serves without Accept-Version: the step fails with exit 1, the outputs still say why, the reports are still kept', async () => {
    const run = await runAction(
      {
        'base-url': faulty.url,
        'client-id': faulty.clientId,
        openapi: 'openapi.yaml',
        'reports-dir': 'faulty-reports',
      },
      { CARRIER_CLIENT_SECRET: faulty.clientSecret },
    );
    expect(run.code).toBe(1);
    expect(run.outputs.verdict).toBe('non-conformant');
    expect(run.outputs['exit-code']).toBe('1');
    expect(run.uses['actions/upload-artifact@v4']).toMatchObject({ path: 'faulty-reports/' });
    // lint is off by default: no SARIF upload.
    expect(run.uses['github/codeql-action/upload-sarif@v4']).toBeUndefined();
  }, 90_000);

  it('an input is never shell code: a base URL with $(…) and ; is an option value (exit 2, one line), nothing is executed', async () => {
    const marker = join(workspace, 'pwned');
    const run = await runAction(
      { 'base-url': `https://x.example/$(touch ${marker}); touch ${marker}`, 'client-id': 'c', args: '--deadline 30' },
      { CARRIER_CLIENT_SECRET: 'x' },
    );
    expect(run.code).toBe(2);
    expect(run.outputs['exit-code']).toBe('2');
    expect(run.outputs.verdict).toBe('');
    expect(existsSync(marker)).toBe(false);
  }, 60_000);
});

interface GitLabJob {
  extends?: string;
  image?: string;
  variables?: Record<string, string>;
  script: string[];
  artifacts?: { when?: string; paths?: string[]; reports?: { junit?: string } };
}

describe('the GitLab CI template (docs/ci/gitlab/carrier-conformance.yml)', () => {
  let template: Record<string, GitLabJob>;
  beforeAll(async () => {
    template = load(await read('docs/ci/gitlab/carrier-conformance.yml')) as Record<string, GitLabJob>;
  });

  /** A job's script as GitLab runs it: the lines in one shell, stopping at the first that fails, with the job's variables. */
  const runJob = (job: GitLabJob, variables: Record<string, string>) =>
    runShell(`set -e\n${job.script.filter((l) => l !== 'npm ci').join('\n')}`, {
      cwd: workspace,
      env: { ...job.variables, ...variables, CI: 'true', GITLAB_CI: 'true' },
      timeoutMs: 90_000,
    });

  it('.carrier-conformance: the JUnit report and every report kept as artifacts, the run gating on the deployment', async () => {
    const job = template['.carrier-conformance'];
    expect(job?.artifacts).toEqual({
      when: 'always',
      expire_in: '30 days',
      paths: ['$CARRIER_REPORTS_DIR/'],
      reports: { junit: '$CARRIER_REPORTS_DIR/junit.xml' },
    });
    expect(job?.script).toEqual(['npm ci', 'npx carrier-conformance run $CARRIER_CONFORMANCE_ARGS']);
    const result = await runJob(job as GitLabJob, {
      CARRIER_BASE_URL: deployment.url,
      CARRIER_CLIENT_ID: deployment.clientId,
      CARRIER_CLIENT_SECRET: deployment.clientSecret,
      // One suite: the template is what is tested here, the battery elsewhere.
      CARRIER_CONFORMANCE_ARGS: '--openapi openapi.yaml --suite versioning',
      CARRIER_REPORTS_DIR: 'gitlab-reports',
    });
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(existsSync(join(workspace, 'gitlab-reports', 'junit.xml'))).toBe(true);
  }, 90_000);

  it('.carrier-conformance-gate: fetches the last release report with JOB-TOKEN (a private project refuses it without) and compares; without a release, the verdict alone', async () => {
    const job = template['.carrier-conformance-gate'] as GitLabJob;
    expect(job.extends).toBe('.carrier-conformance');
    // GitLab's jobs artifacts API for a private project: the report only for the job's token.
    const release = await readFile(join(workspace, 'gitlab-reports', 'report.json'), 'utf8').catch(() => '');
    expect(release).not.toBe('');
    const asked: { url: string; token: string | undefined }[] = [];
    const api = createServer((req: IncomingMessage, res: ServerResponse) => {
      const token = req.headers['job-token'] as string | undefined;
      asked.push({ url: req.url ?? '', token });
      if (token !== 'job-token-123') return void res.writeHead(404).end('{"message":"404 Not found"}');
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' }).end(release);
    });
    const apiUrl = await onLoopback(api);
    try {
      const variables = {
        ...job.variables,
        CARRIER_BASE_URL: deployment.url,
        CARRIER_CLIENT_ID: deployment.clientId,
        CARRIER_CLIENT_SECRET: deployment.clientSecret,
        CARRIER_CONFORMANCE_ARGS: '--openapi openapi.yaml --suite versioning',
        CARRIER_REPORTS_DIR: 'gitlab-gate-reports',
        CI_API_V4_URL: `${apiUrl}/api/v4`,
        CI_PROJECT_ID: '42',
        CI_JOB_TOKEN: 'job-token-123',
        LAST_RELEASE_TAG: 'v1.4.0',
      };
      const gated = await runJob({ ...(template['.carrier-conformance'] as GitLabJob), ...job }, variables);
      expect(gated.status, gated.stdout + gated.stderr).toBe(0);
      expect(asked).toEqual([
        {
          url: '/api/v4/projects/42/jobs/artifacts/v1.4.0/raw/gitlab-gate-reports/report.json?job=conformance',
          token: 'job-token-123',
        },
      ]);
      const report = JSON.parse(await readFile(join(workspace, 'gitlab-gate-reports', 'report.json'), 'utf8')) as {
        comparison?: unknown;
      };
      expect(report.comparison).toBeDefined();

      // Another token (the project's artifacts are private): no comparison, the verdict alone gates.
      const alone = await runJob(job, {
        ...variables,
        CI_JOB_TOKEN: 'not-this-job',
        CARRIER_REPORTS_DIR: 'gitlab-alone',
      });
      expect(alone.status, alone.stdout + alone.stderr).toBe(0);
      expect(alone.stdout).toContain('No report of a release before this commit: the verdict alone gates this run');
    } finally {
      await closeServer(api);
    }
  }, 120_000);
});

describe('the pre-commit hook (.pre-commit-hooks.yaml)', () => {
  interface Hook {
    id: string;
    entry: string;
    language: string;
    files: string;
  }

  it('lints the OpenAPI documents pre-commit hands it: exit 0 on a clean one, 1 on one without the version header', async () => {
    const [hook] = load(await read('.pre-commit-hooks.yaml')) as Hook[];
    expect(hook).toMatchObject({
      id: 'carrier-conformance-lint',
      entry: 'npx --no-install carrier-conformance lint',
      language: 'system',
    });
    const files = new RegExp(hook?.files ?? '$^');
    for (const name of ['openapi.yaml', 'api/openapi.json', 'spec/openapi-v2.yml', 'swagger.yaml'])
      expect(files.test(name), name).toBe(true);
    for (const name of ['package.json', 'docker-compose.yml', '.github/workflows/ci.yml'])
      expect(files.test(name), name).toBe(false);

    // pre-commit runs `entry` with the staged files matching `files` as arguments.
    const document = await read('docs/openapi.yaml');
    const broken = document.replace(
      'name: Accept-Version\n      in: header\n      required: true',
      'name: Accept-Version\n      in: header\n      required: false',
    );
    expect(broken).not.toBe(document);
    await writeFile(join(workspace, 'openapi-broken.yaml'), broken);
    // The project's own install (node_modules/.bin), as npm's npx finds it with --no-install.
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
    const clean = await runShell(`${hook?.entry} openapi.yaml`, { cwd: workspace, env, realNpx: true });
    expect(clean.status, clean.stdout + clean.stderr).toBe(0);
    const dirty = await runShell(`${hook?.entry} openapi.yaml openapi-broken.yaml`, {
      cwd: workspace,
      env,
      realNpx: true,
    });
    expect(dirty.stdout + dirty.stderr).toContain('openapi-broken.yaml');
    expect(dirty.status).toBe(1);
  }, 60_000);
});
