// The check catalogue (src/catalogue) against itself, the battery (suites/*.test.ts) and the vendored spec.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CHECKS,
  SUITES,
  checksOfSuite,
  findCheck,
  getCheck,
  isSuiteName,
  selectChecks,
  suiteFile,
  type SuiteName,
} from '../src/catalogue/index.js';
import { checkSchema } from '../src/catalogue/schema.js';

const ROOT = new URL('..', import.meta.url);
const SPEC_PATH = 'docs/spec/carrier-platform-api.md';

function readRepoFile(relative: string): string {
  return readFileSync(new URL(relative, ROOT), 'utf8');
}

/** The ids registered by `check('<ID>', ...)` calls in one suite file, in source order. */
function registeredIds(source: string): string[] {
  return [...source.matchAll(/\bcheck\(\s*(['"`])([^'"`]*)\1/g)].map((m) => m[2] ?? '');
}

/** The `##` / `###` headings of the spec, each with the item numbers of the numbered list below it. */
function specSections(markdown: string): Map<string, Set<number>> {
  const sections = new Map<string, Set<number>>();
  let current: Set<number> | undefined;
  for (const line of markdown.split('\n')) {
    const heading = /^#{2,3}\s+(.+?)\s*$/.exec(line);
    if (heading?.[1]) {
      current = new Set();
      sections.set(heading[1], current);
      // "Pagination (applies to ...)" is cited as "Pagination".
      const short = heading[1].replace(/\s*\([^)]*\)$/, '');
      if (short !== heading[1]) sections.set(short, current);
      continue;
    }
    const item = /^(\d+)\.\s/.exec(line);
    if (item?.[1] && current) current.add(Number(item[1]));
  }
  return sections;
}

describe('catalogue entries', () => {
  it('has checks', () => {
    expect(CHECKS.length).toBeGreaterThan(0);
  });

  it.each(CHECKS.map((c) => [c.id, c] as const))('%s is valid against checkSchema', (_id, check) => {
    const result = checkSchema.safeParse(check);
    expect(result.error?.issues ?? []).toEqual([]);
  });

  it('ids are unique', () => {
    const ids = CHECKS.map((c) => c.id);
    const duplicates = ids.filter((id, i) => ids.indexOf(id) !== i);
    expect(duplicates).toEqual([]);
  });

  it.each(SUITES.map((s) => [s] as const))('suite %s has checks and a file suites/<suite>.test.ts', (suite) => {
    expect(checksOfSuite(suite).length).toBeGreaterThan(0);
    expect(suiteFile(suite)).toBe(`suites/${suite}.test.ts`);
    expect(existsSync(new URL(suiteFile(suite), ROOT))).toBe(true);
  });
});

describe('the battery registers every catalogue check exactly once', () => {
  const bySuite = new Map<SuiteName, string[]>(SUITES.map((s) => [s, registeredIds(readRepoFile(suiteFile(s)))]));
  const everywhere = [...bySuite.values()].flat();

  it('finds the check() calls (the source scan works)', () => {
    expect(everywhere.length).toBeGreaterThan(0);
  });

  it('passes every check id to check() as a string literal', () => {
    // An id built at run time would escape the scan below.
    for (const suite of SUITES) {
      const source = readRepoFile(suiteFile(suite));
      const calls = source.match(/\bcheck\(/g) ?? [];
      expect(registeredIds(source).length, `${suiteFile(suite)}: check( calls without a literal id`).toBe(calls.length);
    }
  });

  it.each(CHECKS.map((c) => [c.id, c.suite] as const))('%s is registered once, in suites/%s.test.ts', (id, suite) => {
    expect(everywhere.filter((x) => x === id)).toHaveLength(1);
    expect(bySuite.get(suite)).toContain(id);
  });

  it('registers no id that the catalogue lacks', () => {
    expect(everywhere.filter((id) => findCheck(id) === undefined)).toEqual([]);
  });
});

describe('refs', () => {
  const sections = specSections(readRepoFile(SPEC_PATH));
  const refs = CHECKS.flatMap((c) => c.refs.map((ref) => [c.id, ref] as const));

  it('the spec headings were read', () => {
    expect(sections.has('Authentication')).toBe(true);
    expect(sections.get('Authentication')).toEqual(new Set([1, 2, 3, 4, 5, 6]));
    expect(sections.has('Pagination')).toBe(true);
  });

  it.each(refs)('%s cites %j: a spec heading (and item) that exists, or an RFC clause', (_id, ref) => {
    const spec = /^spec §(.+?)(?: (\d+))?$/.exec(ref);
    if (spec) {
      const [, heading = '', item] = spec;
      expect([...sections.keys()], `no heading "${heading}" in ${SPEC_PATH}`).toContain(heading);
      if (item !== undefined)
        expect([...(sections.get(heading) ?? [])], `no item ${item} under "${heading}"`).toContain(Number(item));
      return;
    }
    expect(ref).toMatch(/^RFC \d+ §[0-9A-Z]+(\.\d+)*$/);
  });
});

describe('lookup', () => {
  it('findCheck and getCheck find a check by id; getCheck throws for an unknown id', () => {
    expect(findCheck('TOKEN-ISSUE')?.suite).toBe('token');
    expect(getCheck('PAGE-WALK').suite).toBe('pagination');
    expect(findCheck('NO-SUCH-CHECK')).toBeUndefined();
    expect(() => getCheck('NO-SUCH-CHECK')).toThrow('unknown check id: NO-SUCH-CHECK');
  });

  it('ids are case-sensitive', () => {
    expect(findCheck('token-issue')).toBeUndefined();
  });

  it.each([
    ['token', true],
    ['pagination', true],
    ['Token', false],
    ['', false],
    ['toString', false],
  ] as const)('isSuiteName(%j) is %s', (name, expected) => {
    expect(isSuiteName(name)).toBe(expected);
  });
});

describe('selectChecks', () => {
  const ids = (checks: readonly { id: string }[]): string[] => checks.map((c) => c.id);
  const catalogueOrder = (wanted: (c: (typeof CHECKS)[number]) => boolean): string[] =>
    CHECKS.filter(wanted).map((c) => c.id);

  it('selects every check when neither suites nor ids are given, as a fresh array', () => {
    const all = selectChecks([], []);
    expect(ids(all)).toEqual(ids(CHECKS));
    expect(all).not.toBe(CHECKS);
  });

  it('selects the checks of the named suites', () => {
    expect(ids(selectChecks(['token', 'nulls'], []))).toEqual(
      catalogueOrder((c) => c.suite === 'token' || c.suite === 'nulls'),
    );
  });

  it('selects the named checks, in catalogue order', () => {
    expect(ids(selectChecks([], ['PAGE-WALK', 'TOKEN-ISSUE']))).toEqual(['TOKEN-ISSUE', 'PAGE-WALK']);
  });

  it('selects the union of suites and ids, each check once', () => {
    const selected = ids(selectChecks(['user'], ['USER-OK', 'LINK-NEXT']));
    expect(selected).toEqual(catalogueOrder((c) => c.suite === 'user' || c.id === 'LINK-NEXT'));
    expect(new Set(selected).size).toBe(selected.length);
  });

  it('selects nothing for names that match nothing', () => {
    expect(selectChecks(['no-such-suite'], ['NO-SUCH-CHECK'])).toEqual([]);
  });
});
