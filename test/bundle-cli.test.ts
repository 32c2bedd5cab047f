import { readdirSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The CLI runs from its bundle (src/build/bundle-cli.ts), which `npm test` builds first. What
 * must hold of it: the main thread loads each harness module once (from the bundle, never also
 * from dist/src/, or there would be two redactors), zod and yargs are inside it, and what it
 * leaves outside is a package the harness loads as such.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BUNDLE = join(ROOT, 'dist', 'cli');

function bundleFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? bundleFiles(join(dir, e.name)) : e.name.endsWith('.js') ? [join(dir, e.name)] : [],
  );
}

/** Every module specifier a file imports: static imports and exports, and dynamic import(). */
function specifiers(code: string): string[] {
  const found = [
    ...code.matchAll(/^\s*(?:import|export)\b[^'"`;]*?\bfrom\s*["']([^"']+)["']/gm),
    ...code.matchAll(/^\s*import\s*["']([^"']+)["']/gm),
    ...code.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g),
  ];
  return found.map((m) => m[1] as string);
}

describe('the CLI bundle', () => {
  const files = bundleFiles(BUNDLE);

  it('is what bin/carrier-conformance.js runs', () => {
    expect(readFileSync(join(ROOT, 'bin', 'carrier-conformance.js'), 'utf8')).toContain("'../dist/cli/entry.js'");
    expect(files.map((f) => relative(BUNDLE, f))).toContain('entry.js');
  });

  it('imports no harness module from outside itself, and holds zod and yargs', () => {
    const outside: string[] = [];
    for (const file of files) {
      for (const spec of specifiers(readFileSync(file, 'utf8'))) {
        if (isBuiltin(spec)) continue;
        if (spec.startsWith('.')) {
          if (relative(BUNDLE, resolve(dirname(file), spec)).startsWith('..'))
            outside.push(`${relative(BUNDLE, file)}: ${spec}`);
          continue;
        }
        if (/^(zod|yargs)(\/|$)/.test(spec)) outside.push(`${relative(BUNDLE, file)}: ${spec}`);
      }
    }
    expect(outside).toEqual([]);
  });

  it('leaves outside only Vitest and what is loaded on demand', () => {
    const packages = new Set(
      files.flatMap((f) => specifiers(readFileSync(f, 'utf8'))).filter((s) => !s.startsWith('.') && !isBuiltin(s)),
    );
    // The OpenAPI parser, and js-yaml that reads the document's YAML within limits
    // (document-files.ts), are imported when a document is read on this thread (load.ts); tar
    // when a bundle archive is written or read (src/bundle/archive.ts).
    expect([...packages].sort()).toEqual(['@readme/openapi-parser', 'js-yaml', 'tar', 'vitest/node']);
  });
});
