/**
 * Issue 29: public OpenAPI documents nobody here wrote, re-rooted under /tenants/{tenantId}/ at
 * test time (their path keys rewritten, only GETs kept) and served by the document mock
 * (test/support/document-mock.ts) with data valid for their schemas. Each must be judged
 * CONFORMANT with every GET accounted for (judged, or skipped with its reason), and its faulty
 * twin (one property of the wrong type) caught by RESOURCE-SCHEMA.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import {
  invalidBodies,
  listOperations,
  problems,
  reRoot,
  runOnDocument,
  unaccounted,
  type MockFault,
} from './support/document-mock.js';

type Json = Record<string, unknown>;
const require = createRequire(import.meta.url);
const example = (file: string): Json =>
  JSON.parse(readFileSync(require.resolve(`@readme/oas-examples/${file}`), 'utf8')) as Json;

/**
 * A slice of GitHub's REST description (@octokit/openapi): its first `count` GETs under
 * /repos/{owner}/{repo}/, re-rooted under /tenants/{tenantId}/ (owner and repo dropped: the tenant
 * stands for the repository), with only the components they reach, so the run reads what it judges.
 */
export function githubSlice(count: number): Json {
  const file = new URL('../node_modules/@octokit/openapi/generated/api.github.com.json', import.meta.url);
  const full = JSON.parse(readFileSync(file, 'utf8')) as Json;
  const prefix = '/repos/{owner}/{repo}/';
  const dropped = new Set(['#/components/parameters/owner', '#/components/parameters/repo']);
  const paths: Json = {};
  for (const [path, item] of Object.entries(full.paths as Record<string, Json>)) {
    if (Object.keys(paths).length >= count) break;
    const get = item.get as Json | undefined;
    if (!path.startsWith(prefix) || !get) continue;
    const parameters = ((get.parameters ?? []) as Json[]).filter((p) => !dropped.has(String(p.$ref)));
    paths[`/tenants/{tenantId}/${path.slice(prefix.length)}`] = { get: { ...get, parameters } };
  }
  // The components the kept paths reach, following $refs transitively.
  const components: Record<string, Json> = {};
  const pending: unknown[] = [paths];
  const seen = new Set<string>();
  while (pending.length > 0) {
    const node = pending.pop();
    if (Array.isArray(node)) pending.push(...(node as unknown[]));
    else if (node !== null && typeof node === 'object') {
      for (const [key, value] of Object.entries(node as Json)) {
        if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/') && !seen.has(value)) {
          seen.add(value);
          const [, , section = '', name = ''] = value.split('/');
          const target = ((full.components as Record<string, Json>)[section] ?? {})[name];
          (components[section] ??= {})[name] = target;
          pending.push(target);
        } else pending.push(value);
      }
    }
  }
  return { openapi: full.openapi, info: full.info, paths, components };
}

const SUITES = ['resources', 'tenant', 'versioning', 'pagination'].flatMap((s) => ['--suite', s]);

interface RealCase {
  name: string;
  doc: () => Json;
  fault: MockFault;
}

export const REAL: RealCase[] = [
  {
    name: 'Train Travel (3.1)',
    doc: () => reRoot(example('3.1/json/train-travel.json')),
    fault: { path: 'bookings', kind: 'wrong-type', property: 'passenger_name' },
  },
  {
    name: 'petstore-expanded (3.0)',
    doc: () => reRoot(example('3.0/json/petstore-expanded.json')),
    fault: { path: 'pets', kind: 'wrong-type', property: 'name' },
  },
  // Swagger 2.0, as published: converted by the harness (src/openapi/swagger2.ts), read as 2.0 by the mock.
  {
    name: 'petstore-expanded (Swagger 2.0)',
    doc: () => reRoot(example('2.0/json/petstore-expanded.json')),
    fault: { path: 'pets', kind: 'wrong-type', property: 'name' },
  },
  {
    name: 'petstore (3.1)',
    doc: () => reRoot(example('3.1/json/petstore.json')),
    fault: { path: 'pet/findByStatus', kind: 'wrong-type', property: 'name' },
  },
  {
    name: 'Star Trek API, its first 12 GETs (3.0)',
    doc: () => {
      const full = example('3.0/json/star-trek.json');
      const keep = new Set(Object.keys(full.paths as Json).slice(0, 12));
      return reRoot(full, (p) => keep.has(p));
    },
    fault: { path: 'animal/search', kind: 'wrong-type' },
  },
];

describe("a slice of GitHub's REST description (30 GETs) served by the document mock", () => {
  it('is judged CONFORMANT with every GET accounted for, its faulty twin caught, in under 40 s', async () => {
    const started = performance.now();
    const doc = githubSlice(30);
    expect(invalidBodies(doc)).toEqual([]);
    const clean = await runOnDocument(doc, undefined, SUITES);
    expect(problems(clean.report), 'clean slice: checks that did not pass').toEqual([]);
    expect(['conformant', 'conformant-subset']).toContain(clean.report.verdict);
    expect(clean.operations).toHaveLength(30);
    expect(unaccounted(clean.report, clean.operations, listOperations(doc))).toEqual([]);
    const faulty = await runOnDocument(
      doc,
      { path: 'actions/artifacts', kind: 'wrong-type', property: 'name' },
      SUITES,
    );
    const check = faulty.report.checks.find((k) => k.id === 'RESOURCE-SCHEMA');
    expect(
      check?.endpoints?.find((e) => e.endpoint === 'GET /tenants/{tenantId}/actions/artifacts')?.status,
      check?.message,
    ).toBe('failed');
    expect(performance.now() - started).toBeLessThan(40_000);
  }, 60_000);
});

describe('real public documents served by the document mock', () => {
  it.each(REAL.map((c) => [c.name, c] as const))('%s: every body the mock serves is valid for its schema', (_, c) => {
    expect(invalidBodies(c.doc())).toEqual([]);
  });

  it.each(REAL.map((c) => [c.name, c] as const))(
    '%s: CONFORMANT with every GET accounted for; its faulty twin caught',
    async (_, c) => {
      const doc = c.doc();
      const clean = await runOnDocument(doc, undefined, SUITES);
      expect(problems(clean.report), 'clean document: checks that did not pass').toEqual([]);
      expect(['conformant', 'conformant-subset']).toContain(clean.report.verdict);
      expect(unaccounted(clean.report, clean.operations, listOperations(doc))).toEqual([]);

      const faulty = await runOnDocument(doc, c.fault, SUITES);
      const check = faulty.report.checks.find((k) => k.id === 'RESOURCE-SCHEMA');
      expect(
        check?.status,
        `RESOURCE-SCHEMA on the faulty twin (${c.fault.kind} on ${c.fault.path}): ${check?.message ?? 'absent'}`,
      ).toBe('failed');
      expect(check?.endpoints?.find((e) => e.endpoint === `GET /tenants/{tenantId}/${c.fault.path}`)?.status).toBe(
        'failed',
      );
    },
    120_000,
  );
});
