/**
 * Issue 29's corpus of constructs: one small OpenAPI document per construct that real documents
 * use, each re-rooted under /tenants/{tenantId}/ and served by the document mock
 * (test/support/document-mock.ts: schema-valid data, the reference server around it). Each is
 * asserted CONFORMANT with every GET operation accounted for in every per-endpoint check (judged,
 * or skipped with its reason), and each has a faulty twin (one thing broken on one endpoint)
 * asserted caught by the check that judges that thing.
 */
import { describe, expect, it } from 'vitest';
import { CASES } from './fixtures/openapi/corpus/cases.js';
import {
  DocumentData,
  invalidBodies,
  listOperations,
  problems,
  runOnDocument,
  unaccounted,
} from './support/document-mock.js';

const SUITES = ['resources', 'tenant', 'versioning', 'pagination', 'nulls'].flatMap((s) => ['--suite', s]);

describe('the document mock serves schema-valid data', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s: every body it serves is valid for its schema', (_, c) => {
    expect(invalidBodies(c.doc, c.style)).toEqual([]);
  });

  it('leaves writeOnly properties out, keeps readOnly ones, and every other declared property', () => {
    const c = CASES.find((x) => x.name === 'writeOnly and required');
    const data = new DocumentData(c?.doc ?? {});
    const list = data.operations.find((o) => o.list);
    expect(list && data.item(list, 0)).toEqual({
      id: expect.any(String) as unknown,
      name: expect.any(String) as unknown,
    });
  });

  it('ends a recursion with null, one level down', () => {
    const c = CASES.find((x) => x.name.startsWith('recursion'));
    const data = new DocumentData(c?.doc ?? {});
    const list = data.operations.find((o) => o.list);
    const item = (list && data.item(list, 0)) as { parent: { parent: unknown } };
    expect(item.parent.parent).toBeNull();
  });

  it('answers a resource by id for an id of its list, 404 for another, and 400 without a required query parameter', () => {
    const c = CASES.find((x) => x.name.startsWith('wrapper'));
    const data = new DocumentData(c?.doc ?? {});
    const list = data.operations.find((o) => o.list);
    const first = (list && data.item(list, 0)) as { id: string };
    const tenant = { id: 't', empty: false };
    expect(data.answer(`orders/${first.id}`, new URLSearchParams(), tenant)).toMatchObject({ body: { id: first.id } });
    expect(data.answer('orders/nope', new URLSearchParams(), tenant)).toMatchObject({ refusal: { status: 404 } });
    const required = new DocumentData(CASES[0]?.doc ?? {});
    expect(required.answer('reports', new URLSearchParams(), tenant)).toMatchObject({
      refusal: { status: 400, description: 'required query parameter from is missing' },
    });
    expect(required.answer('reports', new URLSearchParams('from=2026-01-01'), tenant)).toHaveProperty('list');
  });
});

describe('corpus of constructs (issue 29): CONFORMANT with every endpoint accounted for, and a faulty twin caught', () => {
  it.each(CASES.map((c) => [c.name, c] as const))(
    '%s',
    async (_, c) => {
      const clean = await runOnDocument(c.doc, undefined, SUITES, c.style);
      const lists = listOperations(c.doc);
      expect(problems(clean.report), 'clean document: checks that did not pass').toEqual([]);
      expect(['conformant', 'conformant-subset']).toContain(clean.report.verdict);
      expect(unaccounted(clean.report, clean.operations, lists)).toEqual([]);
      if (c.skipped) {
        const skippedIn = clean.report.checks.filter((k) =>
          k.endpoints?.some(
            (e) =>
              e.endpoint === c.skipped?.endpoint && e.status === 'skipped' && c.skipped.reason.test(e.message ?? ''),
          ),
        );
        expect(
          skippedIn.length,
          `${c.skipped.endpoint} skipped with a reason matching ${String(c.skipped.reason)}`,
        ).toBeGreaterThan(0);
      }

      const faulty = await runOnDocument(c.doc, c.fault, SUITES, c.style);
      const check = faulty.report.checks.find((k) => k.id === c.caughtBy);
      expect(
        check?.status,
        `${c.caughtBy} on the faulty twin (${c.fault.kind} ${c.fault.property ?? ''} on ${c.fault.path}): ${check?.message ?? 'absent'}`,
      ).toBe('failed');
      expect(check?.endpoints?.find((e) => e.endpoint === `GET /tenants/{tenantId}/${c.fault.path}`)?.status).toBe(
        'failed',
      );
      expect(faulty.report.verdict).toBe('non-conformant');
    },
    90_000,
  );
});
