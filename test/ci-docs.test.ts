/**
 * The CI workflows the README shows (docs/ci/) must stay what the README says and use only options
 * the commands have: a renamed flag would break every copy of them.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { runMain } from './support/harness.js';
import { userDocsText } from './support/user-docs.js';

const root = new URL('..', import.meta.url);
const read = (path: string): Promise<string> => readFile(new URL(path, root), 'utf8');

/** The fenced blocks of a Markdown text in a given language. */
function blocks(markdown: string, lang: string): string[] {
  return [...markdown.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1] ?? '');
}

/** `carrier-conformance <command> … --flag …` in shell text (continuation lines and YAML folding joined). */
function invocations(text: string): { command: string; flags: string[] }[] {
  const joined = text
    .replace(/\\\n\s*/g, ' ')
    .replace(/>-\n((?:\s{10,}.*\n)+)/g, (_m, body: string) => `${body.replace(/\n\s*/g, ' ')}\n`);
  return [
    ...joined.matchAll(
      /carrier-conformance (run|diff|matrix|verify-bundle|combine-bundles|list|serve|lint)\b([^\n]*)/g,
    ),
  ].map((m) => ({
    command: m[1] ?? '',
    flags: [...(m[2] ?? '').matchAll(/(?:^|\s)(--[a-z][a-z-]*)/g)].map((f) => f[1] ?? ''),
  }));
}

describe('docs/ci workflows', () => {
  it('the README shows them as they are', async () => {
    const readme = await userDocsText();
    const matrix = await read('docs/ci/conformance-matrix.yml');
    const gate = await read('docs/ci/release-gate.yml');
    const yaml = blocks(readme, 'yaml');
    const matrixBlock = yaml.find((b) => b.includes('combine:'));
    expect(matrixBlock && matrix.includes(matrixBlock)).toBe(true);
    const gateBlock = yaml.find((b) => b.includes('--compare-with'));
    expect(gateBlock).toBeDefined();
    for (const line of (gateBlock ?? '').split('\n').filter((l) => l.trim() !== '')) expect(gate, line).toContain(line);
  });

  it('use only options the commands have', async () => {
    const texts = [
      await read('docs/ci/conformance-matrix.yml'),
      await read('docs/ci/release-gate.yml'),
      await read('docs/ci/vendor-certification.yml'),
      ...blocks(await userDocsText(), 'sh'),
    ];
    const found = texts.flatMap(invocations);
    expect(found.map((f) => f.command)).toEqual(
      expect.arrayContaining(['run', 'diff', 'matrix', 'verify-bundle', 'combine-bundles']),
    );
    const help = new Map<string, string>();
    for (const { command, flags } of found) {
      if (!help.has(command)) help.set(command, (await runMain([command, '--help'])).stdout);
      for (const flag of flags) expect(help.get(command), `${command} ${flag}`).toMatch(new RegExp(`\\s${flag}\\b`));
    }
  });
});

describe('docs/ci/vendor-certification.yml (issue 39 item 5)', () => {
  it("runs the README's three jobs: the main job allows exit 5 only, the expiry job waits, the bundles travel as artifacts, the key comes from a secret", async () => {
    const text = await read('docs/ci/vendor-certification.yml');
    expect(text).toContain('--max-expiry-wait 0');
    expect(text).toContain('|| test $? -eq 5');
    expect(text).not.toMatch(/test \$\? -eq 1/);
    expect(text).toContain('--suite expiry');
    expect(text).toContain('needs: [main, expiry]');
    expect(text.match(/secrets\.CARRIER_SIGN_KEY/g)?.length).toBe(3);
    expect(text).toMatch(/combine-bundles main-bundle expiry-bundle --output acme-bundle/);
    expect(text).toMatch(/verify-bundle acme-bundle --profile carrier-profile\.json --public-key/);
  });
});

describe('.ci/run', () => {
  it('installs without scripts, and that skips nothing: there are none, and npm test builds first', async () => {
    const run = await read('.ci/run');
    expect(run).toMatch(/^npm ci --ignore-scripts .*\nnpm test$/m);
    const lock = JSON.parse(await read('package-lock.json')) as {
      packages: Record<string, { hasInstallScript?: boolean }>;
    };
    // Install scripts that are better not run: @scarf/scarf (under @stoplight/spectral-cli, a
    // devDependency) only reports the install to its vendor's analytics.
    const unwanted = new Set(['node_modules/@scarf/scarf']);
    const scripted = Object.entries(lock.packages)
      .filter(([path, p]) => p.hasInstallScript === true && !unwanted.has(path))
      .map(([path]) => path);
    expect(scripted, 'a dependency with an install script: drop --ignore-scripts from .ci/run').toEqual([]);
    // No install script of its own either (test/install.test.ts installs the tarball): the
    // tarball holds dist/, built when it is packed.
    const pkg = JSON.parse(await read('package.json')) as { scripts: Record<string, string> };
    expect(Object.keys(pkg.scripts).filter((s) => /^(pre|post)?install$|^prepare$/.test(s))).toEqual([]);
    expect(pkg.scripts.prepack).toBe('npm run build');
    // npm test builds first, without a type check of its own (the typecheck that follows covers
    // every file), then type-checks and lints side by side (two single-threaded tools, two cores),
    // failing if either fails: what is built and tested is what was checked.
    expect(pkg.scripts.test).toMatch(/^npm run build:emit && npm run checks && vitest run /);
    expect(pkg.scripts.checks).toBe(
      'npm run -s typecheck & typecheck=$!; npm run -s lint; lint=$?; wait $typecheck && [ $lint -eq 0 ]',
    );
    expect(pkg.scripts['build:emit']).toBe(
      pkg.scripts.build?.replace('tsc -p tsconfig.build.json', 'tsc -p tsconfig.build.json --noCheck'),
    );
  });
});

describe('test/vitest.config.ts', () => {
  it('orders by the durations of test files that exist (a renamed one would silently start last again)', async () => {
    const { DURATIONS } = await import('./vitest.config.js');
    const { access } = await import('node:fs/promises');
    expect(Object.keys(DURATIONS).length).toBeGreaterThan(100);
    for (const file of Object.keys(DURATIONS)) await expect(access(new URL(file, root)), file).resolves.toBeUndefined();
  });
});
