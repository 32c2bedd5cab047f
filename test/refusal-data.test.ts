/**
 * A refusal's body is judged by evidence, not by its shape (issue 38 item 2): the error bodies of
 * FastAPI, JSON:API, Django REST framework and RFC 9457 hold arrays that are no data, and the
 * tenant's own items, seeded items, items of the endpoint's schema or of the shape of the
 * tenant's own items in a refusal are data, whatever wraps them.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canRecogniseData, commonFields, dataInRefusal, type DataEvidence } from '../src/battery/refusal-data.js';
import { startReferenceServer, type ReferenceOptions } from '../src/reference/index.js';
import type { RunReport } from '../src/model/run-report.js';
import { listArgs, runMain, tempDir } from './support/harness.js';

const document = {
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: {},
  components: {
    schemas: {
      Shipment: {
        type: 'object',
        required: ['id', 'reference', 'status'],
        properties: {
          id: { type: 'string' },
          reference: { type: 'string' },
          status: { type: 'string', enum: ['created', 'delivered'] },
          carrier: { type: ['string', 'null'] },
        },
      },
      // A schema that requires nothing: every object is valid against it.
      Loose: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          reference: { type: 'string' },
          status: { type: 'string' },
          carrier: { type: 'string' },
        },
      },
    },
  },
};

const own = [
  { id: 'shp-1', reference: 'SHP-1', status: 'created', carrier: null },
  { id: 'shp-2', reference: 'SHP-2', status: 'delivered', carrier: 'DHL' },
];
const foreign = { id: 'other-9', reference: 'SHP-9', status: 'created', carrier: 'DPD' };

function evidence(options: { schema?: 'Shipment' | 'Loose'; own?: boolean; seeded?: string[] } = {}): DataEvidence {
  const items = options.own === false ? [] : own;
  return {
    schema: options.schema ? { document, pointer: `#/components/schemas/${options.schema}`, of: 'items' } : undefined,
    ownIds: new Set(items.map((i) => i.id)),
    ownFields: commonFields(items),
    seeded: new Map((options.seeded ?? []).map((id) => [id, { id, reference: 'SHP-7', status: 'created' }])),
  };
}

/** The error bodies of real frameworks, each with an array that holds no data. */
const ERROR_BODIES: [string, unknown][] = [
  [
    'FastAPI 422',
    { detail: [{ loc: ['path', 'tenant_id'], msg: 'value is not a valid uuid', type: 'type_error.uuid' }] },
  ],
  ['JSON:API 403', { errors: [{ status: '403', title: 'Forbidden', detail: 'No access to this tenant' }] }],
  ['Django REST framework 400', { tenant_id: ['Must be a valid UUID.'] }],
  [
    'RFC 9457 problem with errors',
    {
      type: 'https://example.net/validation-error',
      title: 'Your request is not valid.',
      status: 400,
      errors: [{ detail: 'must be a UUID', pointer: '#/tenantId' }],
    },
  ],
  ['a bare array of messages', ['tenant not accessible', 'see the docs']],
];

describe('an error body is not data', () => {
  it.each(ERROR_BODIES)('%s carries no data, with every kind of evidence at hand', (_name, body) => {
    expect(dataInRefusal(body, evidence({ schema: 'Shipment', seeded: ['shp-7'] }))).toBeUndefined();
  });

  it('nor against a schema that requires nothing: the one property a JSON:API error shares with it (status) does not make it an item', () => {
    const jsonApi = ERROR_BODIES[1]?.[1];
    expect(dataInRefusal(jsonApi, evidence({ schema: 'Loose', own: false }))).toBeUndefined();
  });
});

describe('data in a refusal is known by evidence', () => {
  it("the tenant's own items, by their ids, wherever the body puts them", () => {
    expect(dataInRefusal({ error: 'invalid_request', data: own }, evidence())).toEqual({
      count: 2,
      first: "id shp-1 is an id of the tenant's own data",
    });
    expect(dataInRefusal(own, evidence())?.count).toBe(2);
  });

  it('a seeded item, by its id', () => {
    expect(
      dataInRefusal({ errors: [{ id: 'shp-7', status: 'created' }] }, evidence({ seeded: ['shp-7'], own: false }))
        ?.first,
    ).toBe('id shp-7 is a seeded item (--expectations)');
  });

  it('but not an error that names the id it was asked for, with nothing else of the item', () => {
    expect(
      dataInRefusal({ id: 'shp-1', error: 'not_found', message: 'No such shipment' }, evidence({ seeded: ['shp-1'] })),
    ).toBeUndefined();
  });

  it("another tenant's item, by the endpoint's schema", () => {
    expect(dataInRefusal([foreign], evidence({ schema: 'Shipment', own: false }))?.first).toBe(
      "id other-9 matches the document's schema of the endpoint's items",
    );
  });

  it("another tenant's item without a document, by the shape of the tenant's own items", () => {
    expect(dataInRefusal({ detail: 'Forbidden', items: [foreign] }, evidence())?.first).toBe(
      "id other-9 has every field of the tenant's own items (id, reference, status, carrier)",
    );
  });

  it('with no schema, no item of its own and no seeded item, nothing can be recognised', () => {
    expect(canRecogniseData(evidence({ own: false }))).toBe(false);
    expect(dataInRefusal([foreign], evidence({ own: false }))).toBeUndefined();
  });
});

/** The tenant suite against a reference server, its lists named by --paged-path: no document. */
async function tenantSuiteWithoutDocument(options: ReferenceOptions): Promise<RunReport> {
  const server = await startReferenceServer({ tokenTtlSeconds: 60, ...options });
  const reportsDir = await tempDir();
  process.env.CARRIER_CLIENT_SECRET = server.clientSecret;
  try {
    await runMain([
      'run',
      ...listArgs(server, server.pagedPaths),
      '--suite',
      'tenant',
      '--reporter',
      'json',
      '--reports-dir',
      reportsDir,
    ]);
    return JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
  } finally {
    delete process.env.CARRIER_CLIENT_SECRET;
    await server.close();
  }
}

const tenantChecks = (report: RunReport): Record<string, string> =>
  Object.fromEntries(report.checks.filter((c) => c.id.startsWith('TENANT-')).map((c) => [c.id, c.status]));

describe('the tenant checks without a document (--paged-path)', () => {
  it("pass FastAPI's 422 and a JSON:API 403, and fail a 403 that carries the foreign tenant's items", async () => {
    const errors = await tenantSuiteWithoutDocument({ variants: ['error-bodies-fastapi-jsonapi'] });
    expect(tenantChecks(errors)).toEqual({
      'TENANT-ACCESS': 'passed',
      'TENANT-FOREIGN': 'passed',
      'TENANT-INVALID-ID': 'passed',
      'TENANT-UNKNOWN': 'passed',
      'TENANT-UNKNOWN-NO-AUTH': 'passed',
    });

    const leak = await tenantSuiteWithoutDocument({ faults: ['foreign-refusal-with-data'] });
    expect(tenantChecks(leak)['TENANT-FOREIGN']).toBe('failed');
    const messages = leak.checks.find((c) => c.id === 'TENANT-FOREIGN')?.findings.map((f) => f.message) ?? [];
    expect(messages).toContain(
      "GET /tenants/{foreignTenantId}/shipments (a tenant this client may not access): the refusal carries 3 items of data (id 630d83b3-a9f7-4ff3-8bd1-000000000001 has every field of the tenant's own items (id, reference, carrier, status, …), and 2 more)",
    );
  });
});
