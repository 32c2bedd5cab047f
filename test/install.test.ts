/**
 * The package as a third party gets it: the tarball `npm pack` makes, installed into an empty
 * project as the README's *Install* section says, without this repository and without the
 * network. npm takes every dependency from its cache (this repository was installed from it), at
 * the versions of this repository's package-lock.json, given to the project as its lockfile (an
 * offline install resolves nothing). Installing runs no script and builds nothing (dist/ is in
 * the tarball); the installed CLI then runs the battery against its embedded reference server,
 * and serves it. Also: what the tarball holds, what `npm publish --dry-run` says of it, and the
 * release workflow that attaches it to a GitHub release (docs/ci/release.yml).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../src/model/run-report.js';
import { runShell, tempDir } from './support/harness.js';

const ROOT = new URL('..', import.meta.url).pathname;

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  license?: string;
  scripts?: Record<string, string>;
  files?: string[];
  dependencies?: Record<string, string>;
}

interface Packed {
  filename: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
  files: { path: string; size: number }[];
}

interface LockEntry {
  dev?: boolean;
  devOptional?: boolean;
  optional?: boolean;
  [key: string]: unknown;
}

/** Lifecycle scripts npm runs when a package is installed. */
const INSTALL_SCRIPTS = /^(pre|post)?install$|^prepare$/;

/** npm's own configuration only: this process's environment (Vitest's, npm test's) stays out. */
function npmEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['npm_config_cache', 'npm_config_userconfig', 'npm_config_registry']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

let dir: string;
let project: string;
let packed: Packed;
let tarball: string;
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist', 'cli', 'entry.js')))
    throw new Error('dist/ is not built: npm test builds it first (npm run build)');
  dir = await tempDir('carrier-install-');
  // Without scripts: prepack would build dist/ again, under the test files that read it (npm
  // test has just built it).
  const pack = await runShell(`npm pack --ignore-scripts --json --pack-destination '${dir}'`, {
    cwd: ROOT,
    env: npmEnv(),
    timeoutMs: 60_000,
  });
  expect(pack.status, pack.stderr).toBe(0);
  packed = (JSON.parse(pack.stdout) as Packed[])[0] as Packed;
  tarball = join(dir, packed.filename);
}, 90_000);

afterAll(async () => {
  for (const stop of stops.splice(0)) await stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('the package', () => {
  it('is an Apache-2.0 package anyone may install, and installing it runs no script', async () => {
    const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as Manifest;
    expect(manifest.private, 'a private package cannot be published').toBeUndefined();
    expect(manifest.license).toBe('Apache-2.0');
    expect(
      Object.keys(manifest.scripts ?? {}).filter((s) => INSTALL_SCRIPTS.test(s)),
      'a script npm would run (or warn about) at install',
    ).toEqual([]);
    expect(manifest.scripts?.prepack, 'the tarball is packed from a fresh build').toBe('npm run build');
    const licence = await readFile(join(ROOT, 'LICENSE'), 'utf8');
    expect(licence).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004\s/);
    expect(licence).toContain('END OF TERMS AND CONDITIONS');
  });

  it('the tarball holds the built harness and what it reads at run time, not its sources, tests or source maps', () => {
    const paths = packed.files.map((f) => f.path);
    for (const needed of [
      'package.json',
      'README.md',
      'LICENSE',
      'bin/carrier-conformance.js',
      'dist/cli/entry.js', // the CLI's main thread, bundled (src/build/bundle-cli.ts)
      'dist/src/runner/document-worker.js', // the OpenAPI thread (builtFile in src/core/version.ts)
      'dist/src/carrier/schema-validators.json', // the compiled schemas (src/carrier/schemas.ts)
      'dist/suites/battery.test.js', // the battery Vitest runs (src/runner/vitest-run.ts)
      'dist/suites/expiry.test.js',
      'docs/openapi.yaml', // the reference server's API (src/reference/seeded.ts), which serve prints
      'docs/spec/carrier-platform-api.md', // the spec the checks cite
      'spectral.yaml', // the Spectral ruleset, and its function generated from lint's rules (src/build/bundle-spectral.ts)
      'spectral-functions/carrierConventions.js',
    ]) {
      expect(paths, needed).toContain(needed);
    }
    const unwanted = paths.filter((p) =>
      /^(src|suites|test|benchmarks|reports)\/|^dist\/(bench|test|src\/build)\/|\.map$|\.ts$|^tsconfig/.test(p),
    );
    expect(unwanted).toEqual([]);
    // 188 files, 0.5 MB on 2026-11-26: twice that means something that does not belong got in.
    expect(packed.entryCount).toBeLessThan(400);
    expect(packed.size).toBeLessThan(1_000_000);
  });

  it('npm publish --dry-run has nothing to say of it but, perhaps, that no one is logged in', async () => {
    const publish = await runShell(`npm publish --dry-run --offline '${tarball}'`, {
      cwd: dir,
      env: npmEnv(),
      timeoutMs: 60_000,
    });
    expect(publish.status, publish.stderr).toBe(0);
    const warnings = publish.stderr
      .split('\n')
      .filter((l) => /^npm (warn|error)/i.test(l) && !/requires you to be logged in/.test(l));
    expect(warnings).toEqual([]);
    const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as Manifest;
    expect(publish.stdout).toContain(`+ carrier-conformance@${version}`);
  });
});

describe('installed as the README says, into an empty project', () => {
  let commands: string[];

  beforeAll(async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const section = /^## Install\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? '';
    const block = /^```sh\n([\s\S]*?)^```$/m.exec(section)?.[1] ?? '';
    commands = block
      .split('\n')
      .map((l) => l.replace(/(?:^|\s+)#.*$/, '').trim())
      .filter((l) => l !== '');
    project = join(dir, 'a-vendors-project');
    await mkdir(project);
    await writeFile(
      join(project, 'package.json'),
      JSON.stringify({ name: 'a-vendors-project', private: true }, null, 2),
    );
    // The release's tarball, downloaded into the project.
    await copyFile(tarball, join(project, packed.filename));
    // The dependencies at this repository's versions, which npm has in its cache: its lockfile's
    // entries that are not development-only.
    const lock = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, LockEntry>;
    };
    const packages: Record<string, LockEntry> = { '': { name: 'a-vendors-project' } };
    for (const [path, { devOptional, ...entry }] of Object.entries(lock.packages)) {
      if (path === '' || entry.dev === true) continue;
      packages[path] = devOptional === true ? { ...entry, optional: true } : entry;
    }
    await writeFile(
      join(project, 'package-lock.json'),
      JSON.stringify({ name: 'a-vendors-project', lockfileVersion: 3, requires: true, packages }, null, 2),
    );
  });

  it("the README's install command: offline, from the tarball, no install script", async () => {
    expect(commands).toHaveLength(2);
    const [install = ''] = commands;
    expect(install).toMatch(/^npm install --save-dev \.\/carrier-conformance-\d+\.\d+\.\d+\.tgz$/);
    // The README's example version may be older than this one; and no network, no audit.
    const command = install
      .replace(/carrier-conformance-[\d.]+\.tgz$/, packed.filename)
      .replace(/^npm install/, 'npm install --offline --no-audit --no-fund --foreground-scripts');
    const result = await runShell(command, { cwd: project, env: npmEnv(), timeoutMs: 120_000, realNpx: true });
    expect(result.status, result.stdout + result.stderr).toBe(0);
    // npm 11 warns of install scripts it did not run; with --foreground-scripts it prints those it runs.
    expect(result.stderr).not.toMatch(/install-scripts|install script/i);
    expect(result.stdout).not.toMatch(/^> carrier-conformance@/m);
    expect(result.stderr.split('\n').filter((l) => /^npm (warn|error)/i.test(l))).toEqual([]);
    const installed = JSON.parse(
      await readFile(join(project, 'node_modules', 'carrier-conformance', 'package.json'), 'utf8'),
    ) as Manifest;
    expect(Object.keys(installed.scripts ?? {}).filter((s) => INSTALL_SCRIPTS.test(s))).toEqual([]);
    expect(existsSync(join(project, 'node_modules', '.bin', 'carrier-conformance'))).toBe(true);
    expect(JSON.parse(await readFile(join(project, 'package.json'), 'utf8'))).toMatchObject({
      devDependencies: { 'carrier-conformance': `file:${packed.filename}` },
    });
  }, 150_000);

  it("the README's run: the whole battery against the embedded reference server, conformant", async () => {
    const [, run = ''] = commands;
    expect(run).toBe('npx carrier-conformance run --embedded');
    const result = await runShell(run, { cwd: project, timeoutMs: 120_000, realNpx: true });
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^CONFORMANT {2}http:\/\/127\.0\.0\.1:\d+$/m);
    const report = JSON.parse(await readFile(join(project, 'reports', 'report.json'), 'utf8')) as RunReport;
    expect(report.verdict).toBe('conformant');
    expect(report.checks.filter((c) => c.status !== 'passed').map((c) => `${c.id}: ${c.status}`)).toEqual([]);
  }, 150_000);

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`serve: prints its URL and the OpenAPI document in the package, answers, and stops on ${signal}`, async () => {
      // Its own process group, as in a terminal: the signal goes to npx and the CLI under it.
      const serve = spawn('npx', ['carrier-conformance', 'serve', '--port', '0'], {
        cwd: project,
        detached: true,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1' },
      });
      const exited = new Promise<void>((resolve) => serve.on('close', () => resolve()));
      const stop = async (): Promise<void> => {
        try {
          if (serve.pid !== undefined) process.kill(-serve.pid, signal);
        } catch {
          // Gone already.
        }
        await exited;
      };
      stops.push(async () => {
        if (serve.exitCode === null && serve.signalCode === null && serve.pid !== undefined)
          process.kill(-serve.pid, 'SIGKILL');
        await exited;
      });
      let printed = '';
      serve.stdout.on('data', (d: Buffer) => (printed += d.toString()));
      serve.stderr.on('data', (d: Buffer) => (printed += d.toString()));
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`serve did not start within 30 s: ${printed}`)), 30_000);
        const check = (): void => {
          if (!printed.includes('Ctrl-C stops it')) return;
          clearTimeout(timer);
          resolve();
        };
        serve.stdout.on('data', check);
        void exited.then(() => {
          clearTimeout(timer);
          reject(new Error(`serve exited: ${printed}`));
        });
      });
      const url = /listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(printed)?.[1];
      expect(url, printed).toBeDefined();
      expect(printed).toContain('OpenAPI:         node_modules/carrier-conformance/docs/openapi.yaml');
      expect(existsSync(join(project, 'node_modules', 'carrier-conformance', 'docs', 'openapi.yaml'))).toBe(true);
      const response = await fetch(`${url ?? ''}/users/me`, {
        headers: { 'Accept-Version': '1' },
        signal: AbortSignal.timeout(10_000),
      });
      expect(response.status).toBe(401);
      const stopped = Date.now();
      await Promise.race([
        stop(),
        new Promise((_resolve, reject) =>
          setTimeout(() => reject(new Error(`serve did not stop within 15 s of ${signal}: ${printed}`)), 15_000),
        ),
      ]);
      expect(Date.now() - stopped).toBeLessThan(15_000);
      expect(printed).toContain('reference server stopped');
    }, 60_000);
  }
});

describe('the release workflow (docs/ci/release.yml)', () => {
  interface Step {
    uses?: string;
    run?: string;
    with?: Record<string, unknown>;
  }
  interface Workflow {
    on: { push?: { tags?: string[] } };
    jobs: Record<string, { needs?: string; steps: Step[]; permissions?: Record<string, string> }>;
  }

  it('on a tag v*: the gate (npm ci, npm test), npm pack, and the tarball attached to the release', async () => {
    const workflow = load(await readFile(join(ROOT, 'docs', 'ci', 'release.yml'), 'utf8')) as Workflow;
    expect(workflow.on).toEqual({ push: { tags: ['v*'] } });
    const { package: build, release } = workflow.jobs;
    const runs = (build?.steps ?? []).map((s) => s.run).filter((r) => r !== undefined);
    expect(runs.slice(1)).toEqual(['.ci/run', 'npm pack']);
    expect(await readFile(join(ROOT, '.ci', 'run'), 'utf8')).toMatch(/^npm ci --ignore-scripts .*\nnpm test$/m);
    expect(build?.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'))?.with).toMatchObject({
      path: 'carrier-conformance-*.tgz',
    });
    expect(release?.needs).toBe('package');
    expect(release?.permissions).toEqual({ contents: 'write' });
    const attach = release?.steps.map((s) => s.run ?? '').join('\n') ?? '';
    expect(attach).toMatch(/gh release create "\$GITHUB_REF_NAME" carrier-conformance-\*\.tgz/);
    expect(attach).toMatch(/gh release upload "\$GITHUB_REF_NAME" carrier-conformance-\*\.tgz/);
  });
});
