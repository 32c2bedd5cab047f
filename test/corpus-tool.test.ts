/**
 * `npm run corpus` (benchmarks/corpus/) measured on itself: its list rule, its oracle, its mock
 * and its tally, on small documents written here (no network, no cache). The corpus's figures are
 * only as true as these: the mock and the oracle must accept their own bodies, and a body the
 * mock breaks on purpose must be refused by the oracle and kept out of the false failures.
 */
import { describe, expect, it } from 'vitest';
import { classify, decide, isMetadata, readLabels, type HandLabel } from '../benchmarks/corpus/classify.js';
import { selectDocuments } from '../benchmarks/corpus/cache.js';
import { mockDocument, trusted } from '../benchmarks/corpus/mock.js';
import { acceptNull, Oracle, unicodePattern } from '../benchmarks/corpus/oracle.js';
import type { HarnessRun } from '../benchmarks/corpus/run-harness.js';
import { corpusOutput } from '../benchmarks/corpus/output.js';
import { emptyResult, normalise, tally, totals } from '../benchmarks/corpus/tally.js';
import type { DocumentFacts } from '../benchmarks/corpus/mock-child.js';
import type { RunReport } from '../src/model/run-report.js';
import { DocumentData, fromPattern, reRoot } from './support/document-mock.js';

type Json = Record<string, unknown>;

/** A small 3.0 document with what the corpus meets: a wrapped list, a resource by id, nulls, writeOnly, a required header, recursion, a bundler's through-$ref pointer. */
function shop(): Json {
  return {
    openapi: '3.0.3',
    info: { title: 'shop', version: '1' },
    paths: {
      '/orders': {
        get: {
          parameters: [{ name: 'page', in: 'query', schema: { type: 'integer' } }],
          responses: {
            '200': {
              description: 'ok',
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    properties: {
                      data: { type: 'array', items: { $ref: '#/components/schemas/Order' } },
                      total: { type: 'integer' },
                    },
                  },
                },
              },
            },
          },
        },
        post: {
          responses: {
            '201': {
              description: 'made',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Order' } } },
            },
          },
        },
      },
      '/orders/{orderId}': {
        get: {
          parameters: [{ name: 'orderId', in: 'path', required: true, schema: { type: 'string' } }],
          // A bundler's pointer through the POST's response (itself a $ref).
          responses: {
            '200': {
              description: 'ok',
              content: {
                'application/json': {
                  schema: { $ref: '#/paths/~1orders/post/responses/201/content/application~1json/schema' },
                },
              },
            },
          },
        },
      },
      '/account': {
        get: {
          parameters: [
            { name: 'X-Account', in: 'header', required: true, schema: { type: 'string' } },
            { name: 'Accept', in: 'header', required: true, schema: { type: 'string' } },
          ],
          responses: {
            '200': {
              description: 'ok',
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['id'],
                    properties: {
                      id: { type: 'string' },
                      name: { type: 'string' },
                      tags: { type: 'array', items: { type: 'string' } },
                      code: { type: 'string', pattern: '^\\d{4}\\-\\d{2}$' },
                    },
                  },
                },
              },
            },
          },
        },
      },
      '/account/me': {
        get: {
          responses: {
            '200': {
              description: 'ok',
              content: { 'application/json': { schema: { type: 'object', properties: { me: { type: 'boolean' } } } } },
            },
          },
        },
      },
    },
    components: {
      schemas: {
        Order: {
          type: 'object',
          required: ['id', 'status', 'secret'],
          properties: {
            id: { type: 'string', format: 'uuid' },
            status: { type: 'string', enum: ['open', 'shipped'] },
            note: { type: 'string' },
            cancelled_at: { type: 'string', format: 'date-time', nullable: true },
            secret: { type: 'string', writeOnly: true },
            parent: { $ref: '#/components/schemas/Order' },
            lines: {
              type: 'array',
              items: { type: 'object', properties: { sku: { type: 'string' }, qty: { type: 'integer', minimum: 1 } } },
            },
            extra: { allOf: [{}, { type: 'object', properties: { a: { type: 'integer' } } }] },
          },
        },
      },
    },
  };
}

const ORDER = '#/components/schemas/Order';
const TENANT = { id: 't', empty: false };

describe('the corpus list rule (benchmarks/corpus/classify.ts)', () => {
  const object = (...names: string[]) => ({
    properties: names.map((n) => (n.endsWith('[]') ? { name: n.slice(0, -2), items: `#/${n}` } : { name: n })),
  });

  it('takes a body of multiple elements for a list, whatever its wrapper is called', () => {
    expect(classify('things', [], { array: '#/a' }).label).toBe('list');
    expect(classify('Accounts', [], object('Accounts[]'))).toMatchObject({
      label: 'list',
      shape: { wrapper: 'Accounts' },
    });
    expect(
      classify(
        'users',
        [],
        object('page_count', 'page_number', 'page_size', 'total_records', 'next_page_token', 'users[]'),
      ),
    ).toMatchObject({ label: 'list', shape: { wrapper: 'users' } });
    expect(classify('issue/{id}/comment', [], object('startAt', 'maxResults', 'total', 'comments[]')).label).toBe(
      'list',
    );
    // Box: a second array (the sort order) beside the elements.
    expect(
      classify('folders/{id}/items', [], object('entries[]', 'order[]', 'limit', 'offset', 'total_count')),
    ).toMatchObject({ label: 'list', shape: { wrapper: 'entries' } });
  });

  it('finds the elements under paging metadata, in a query-named operation, and in an envelope', () => {
    expect(
      classify('rest?method=flickr.favorites.getList', [], object('page', 'pages', 'perpage', 'photos[]', 'total')),
    ).toMatchObject({ label: 'list', shape: { wrapper: 'photos' } });
    expect(
      classify('best_podcasts', [], object('id', 'name', 'podcasts[]', 'total', 'has_next', 'page_number')),
    ).toMatchObject({ label: 'list', shape: { wrapper: 'podcasts' } });
    const envelope = {
      properties: [
        {
          name: 'message',
          properties: [
            { name: 'header', properties: [{ name: 'status_code' }] },
            { name: 'body', properties: [{ name: 'track_list', items: '#/t' }] },
          ],
        },
      ],
    };
    expect(classify('track.search', [], envelope)).toMatchObject({
      label: 'ambiguous',
      shape: { path: ['message', 'body', 'track_list'], items: '#/t' },
    });
  });

  it('takes a resource for a single one, and says when the shape cannot tell', () => {
    expect(classify('account', [], object('id', 'name', 'email', 'roles[]')).label).toBe('single');
    expect(classify('account', [], object('id', 'name')).label).toBe('single');
    expect(classify('things/{id}', [], object('Things[]')).label).toBe('ambiguous');
    expect(
      classify('volumes/{volume_id}/actions/{action_id}', [{ name: 'page', in: 'query' }], object('action', 'links[]'))
        .label,
    ).not.toBe('list');
    expect(classify('report', [], object('name', 'data[]')).label).toBe('ambiguous');
    expect(classify('report', [], undefined).label).toBe('single');
    expect(isMetadata('total_count')).toBe(true);
    expect(isMetadata('item_id')).toBe(false);
  });

  it('lets a hand label win, and reads a labels file only when there is one', () => {
    const label: HandLabel = { document: 'x.json', path: '/report', label: 'list', why: 'by hand' };
    expect(decide('report', [], object('name', 'data[]'), label)).toMatchObject({
      label: 'list',
      labelled: true,
      shape: { wrapper: 'data' },
    });
    expect(decide('report', [], object('name', 'data[]'), { ...label, label: 'single' })).toMatchObject({
      label: 'single',
      shape: undefined,
    });
    expect(readLabels('/nonexistent/list-labels.json').size).toBe(0);
  });

  it('draws the same sample on every machine', () => {
    const all = Array.from({ length: 50 }, (_, i) => `api${i}.example.com.json`);
    const a = selectDocuments(all, { sample: 5 });
    expect(a).toHaveLength(5);
    expect(selectDocuments([...all].reverse(), { sample: 5 }).sort()).toEqual([...a].sort());
    expect(selectDocuments(all, { only: ['api1.', 'api2.'] })).toEqual([
      'api1.example.com.json',
      'api2.example.com.json',
    ]);
  });
});

describe('the oracle (benchmarks/corpus/oracle.ts)', () => {
  const oracle = new Oracle(shop());
  const order = {
    id: '6f1c2b3a-4d5e-4f60-8a7b-000000000001',
    status: 'open',
    note: 'n',
    cancelled_at: null,
    parent: null,
    lines: [],
    extra: { a: 1 },
  };

  it('accepts null for every optional property, whatever its schema, and a writeOnly property left out', () => {
    expect(oracle.check(ORDER, order)).toEqual({});
    expect(oracle.check(ORDER, { ...order, note: null, lines: null, extra: null })).toEqual({});
  });

  it('refuses a wrong type, a null where a required property may not be null, and a declared property left out', () => {
    expect(oracle.check(ORDER, { ...order, note: 12 }).error).toMatch(/\/note/);
    expect(oracle.check(ORDER, { ...order, status: null }).error).toMatch(/\/status/);
    const withoutNote: Json = { ...order };
    delete withoutNote.note;
    expect(oracle.check(ORDER, withoutNote).error).toMatch(/left out.*note/);
  });

  it('follows a bundler pointer through another $ref, and reads a pattern written for another dialect', () => {
    const body = '#/paths/~1orders~1{orderId}/get/responses/200/content/application~1json/schema';
    expect(oracle.check(body, order)).toEqual({});
    expect(oracle.check(body, { ...order, status: 'lost' }).error).toBeDefined();
    expect(unicodePattern('^\\d{4}\\-\\d{2}$')).toBe('^\\d{4}-\\d{2}$');
    expect(unicodePattern('^\\p{XDigit}{8}[\\p{Upper}_]$')).toBe('^[A-Fa-f0-9]{8}[A-Z_]$');
    // Java's \p{all} (AWS DLM's tag values): any character.
    expect(new RegExp(unicodePattern('^[\\p{all}]*$') ?? '', 'u').test('any ✓ thing\n')).toBe(true);
    const account = '#/paths/~1account/get/responses/200/content/application~1json/schema';
    expect(oracle.check(account, { id: 'a', name: null, tags: null, code: '2026-01' })).toEqual({});
    expect(oracle.check(account, { id: 'a', name: null, tags: null, code: '2026-1' }).error).toMatch(/pattern/);
  });

  it('makes a schema admit null without moving any of its parts', () => {
    const schema: Json = {
      type: 'object',
      allOf: [{ $ref: '#/x' }, { properties: { a: {} } }],
      oneOf: [{ type: 'string' }],
    };
    acceptNull(schema);
    expect(schema).toEqual({
      type: ['object', 'null'],
      allOf: [{ allOf: [{ anyOf: [{ $ref: '#/x' }, { type: 'null' }] }] }, { properties: { a: {} } }],
      oneOf: [{ type: 'string' }, { type: 'null' }],
    });
  });
});

describe('the mock of a document (benchmarks/corpus/mock.ts on test/support/document-mock.ts)', () => {
  it('serves bodies its oracle accepts, with null for some optional properties and none left out', () => {
    const mock = mockDocument(reRoot(shop(), undefined, 'all'));
    mock.precheck();
    const records = [...mock.records.values()];
    expect(records.map((r) => [r.template, r.decision.label])).toEqual([
      ['orders', 'list'],
      ['orders/{orderId}', 'single'],
      ['account', 'single'],
      ['account/me', 'single'],
    ]);
    for (const r of records)
      expect({
        template: r.template,
        trusted: trusted(r),
        refusal: r.refusal,
        error: r.mockError,
        unreadable: r.unreadable,
      }).toMatchObject({ trusted: true });
    expect(records.find((r) => r.template === 'orders')?.checked).toBeGreaterThan(0);
    const orders = mock.data.operations.find((o) => o.template === 'orders');
    const items = Array.from({ length: 12 }, (_, i) => (orders ? mock.data.item(orders, i) : undefined)) as Json[];
    // `note` is optional and not nullable: a conformant server still sends null when there is no note (spec §Generic rules for optional fields 1).
    expect(items.some((item) => item.note === null)).toBe(true);
    expect(items.every((item) => 'note' in item && 'parent' in item && !('secret' in item))).toBe(true);
  });

  it('enforces required header parameters as it does query ones (Accept, Content-Type and Authorization aside)', () => {
    const data = new DocumentData(reRoot(shop()));
    expect(data.answer('account', new URLSearchParams(), TENANT, {})).toMatchObject({
      refusal: { status: 400, description: 'required header X-Account is missing' },
    });
    expect(data.answer('account', new URLSearchParams(), TENANT, { 'x-account': '1' })).toHaveProperty('body');
  });

  it("pages an array in an envelope, reads a body of arrays in anyOf as an array, and tells operations apart by a path key's query", () => {
    const ok = (schema: Json) => ({ '200': { description: 'ok', content: { 'application/json': { schema } } } });
    const doc: Json = {
      openapi: '3.0.3',
      info: { title: 't', version: '1' },
      paths: {
        '/track.search': {
          get: {
            responses: ok({
              type: 'object',
              properties: {
                message: {
                  type: 'object',
                  properties: {
                    header: { type: 'object', properties: { status_code: { type: 'integer' } } },
                    body: {
                      type: 'object',
                      properties: {
                        track_list: {
                          type: 'array',
                          items: { type: 'object', properties: { id: { type: 'integer' } } },
                        },
                      },
                    },
                  },
                },
              },
            }),
          },
        },
        '/starred': {
          get: {
            responses: ok({
              anyOf: [
                { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } },
                { type: 'array', items: { type: 'object', properties: { b: { type: 'string' } } } },
              ],
            }),
          },
        },
        '/rest?method=photos.list': {
          get: { responses: ok({ type: 'object', properties: { which: { type: 'string', enum: ['list'] } } }) },
        },
        '/rest?method=photos.get': {
          get: { responses: ok({ type: 'object', properties: { which: { type: 'string', enum: ['get'] } } }) },
        },
      },
    };
    const mock = mockDocument(reRoot(doc));
    mock.precheck();
    expect([...mock.records.values()].map((r) => [r.template, r.decision.label, trusted(r)])).toEqual([
      ['track.search', 'ambiguous', true],
      ['starred', 'list', true],
      ['rest?method=photos.list', 'single', true],
      ['rest?method=photos.get', 'single', true],
    ]);
    const page = mock.routes.answer('track.search', new URLSearchParams(), TENANT, {});
    expect(
      page && 'list' in page && page.list.wrap?.([{ id: 1 }], { page: 1, size: 10, totalElements: 1, totalPages: 1 }),
    ).toMatchObject({
      message: { header: { status_code: expect.any(Number) as unknown }, body: { track_list: [{ id: 1 }] } },
    });
    expect(mock.routes.answer('rest', new URLSearchParams('method=photos.get'), TENANT, {})).toMatchObject({
      body: { which: 'get' },
    });
    expect(mock.routes.answer('rest', new URLSearchParams('method=photos.list'), TENANT, {})).toMatchObject({
      body: { which: 'list' },
    });
    // The path key's query is no part of the wire path: `rest%3Fmethod%3D…` is not found, as on a real server.
    expect(mock.routes.answer('rest%3Fmethod%3Dphotos.get', new URLSearchParams(), TENANT, {})).toBeUndefined();
  });

  it('answers a literal path by its own operation, not by a templated one declared before it', () => {
    const doc = shop();
    const paths = doc.paths as Json;
    doc.paths = {
      '/account/{accountId}': {
        get: {
          parameters: [{ name: 'accountId', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            '200': {
              description: 'ok',
              content: {
                'application/json': { schema: { type: 'object', properties: { other: { type: 'integer' } } } },
              },
            },
          },
        },
      },
      ...paths,
    };
    const data = new DocumentData(reRoot(doc));
    expect(data.answer('account/me', new URLSearchParams(), TENANT, {})).toMatchObject({
      body: { me: expect.any(Boolean) as unknown },
    });
  });

  it("answers a segment literal in part (Oxford's translations={lang}) by its own operation, not by a whole parameter ({filters}) declared before it", () => {
    const ok = (schema: Json) => ({ '200': { description: 'ok', content: { 'application/json': { schema } } } });
    const param = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'string' } });
    const doc: Json = {
      openapi: '3.0.3',
      info: { title: 't', version: '1' },
      paths: {
        '/entries/{word}/{filters}': {
          get: {
            parameters: [param('word'), param('filters')],
            responses: ok({ type: 'object', required: ['filtered'], properties: { filtered: { type: 'boolean' } } }),
          },
        },
        '/entries/{word}/translations={lang}': {
          get: {
            parameters: [param('word'), param('lang')],
            responses: ok({
              type: 'object',
              required: ['translated'],
              properties: { translated: { type: 'boolean' } },
            }),
          },
        },
      },
    };
    const data = new DocumentData(reRoot(doc));
    expect(data.answer('entries/w/translations=es', new URLSearchParams(), TENANT, {})).toMatchObject({
      body: { translated: expect.any(Boolean) as unknown },
    });
    expect(data.answer('entries/w/grammatical', new URLSearchParams(), TENANT, {})).toMatchObject({
      body: { filtered: expect.any(Boolean) as unknown },
    });
  });

  it("serves the application/json body, not a JSON text sequence declared before it (Zuora's charge-metrics)", () => {
    const doc: Json = {
      openapi: '3.0.3',
      info: { title: 't', version: '1' },
      paths: {
        '/metrics': {
          get: {
            responses: {
              '200': {
                description: 'ok',
                content: {
                  'application/json-seq': { examples: {} },
                  'application/json; charset=utf-8': {
                    schema: { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } },
                  },
                },
              },
            },
          },
        },
      },
    };
    const data = new DocumentData(reRoot(doc));
    expect(data.answer('metrics', new URLSearchParams(), TENANT, {})).toMatchObject({
      body: { amount: expect.any(Number) as unknown },
    });
  });

  it("looks an item up by the field its path parameter names, not by an `Id` that is an object (Service Fabric's Nodes/{nodeName}) or an `_id` (LaunchDarkly's projects/{projectKey})", () => {
    const node = {
      type: 'object',
      required: ['Id', 'Name'],
      properties: {
        Id: { type: 'object', required: ['Id'], properties: { Id: { type: 'string' } } },
        Name: { type: 'string' },
      },
    };
    const ok = (schema: Json) => ({ '200': { description: 'ok', content: { 'application/json': { schema } } } });
    const doc: Json = {
      openapi: '3.0.3',
      info: { title: 't', version: '1' },
      paths: {
        '/Nodes': { get: { responses: ok({ type: 'array', items: node }) } },
        '/Nodes/{nodeName}': {
          get: {
            parameters: [{ name: 'nodeName', in: 'path', required: true, schema: { type: 'string' } }],
            responses: ok(node),
          },
        },
      },
    };
    const data = new DocumentData(reRoot(doc));
    const nodes = data.operations.find((o) => o.template === 'Nodes');
    const first = (nodes ? data.item(nodes, 0) : undefined) as { Name: string; Id: { Id: string } };
    expect(data.answer(`Nodes/${first.Name}`, new URLSearchParams(), TENANT, {})).toMatchObject({
      body: { Name: first.Name },
    });
    // LaunchDarkly's projects/{projectKey}: a project's `key`, not its `_id`.
    const project = {
      type: 'object',
      required: ['_id', 'key'],
      properties: { _id: { type: 'string' }, key: { type: 'string' } },
    };
    const ld = new DocumentData(
      reRoot({
        ...doc,
        paths: {
          '/projects': { get: { responses: ok({ type: 'array', items: project }) } },
          '/projects/{projectKey}': {
            get: {
              parameters: [{ name: 'projectKey', in: 'path', required: true, schema: { type: 'string' } }],
              responses: ok(project),
            },
          },
        },
      }),
    );
    const projects = ld.operations.find((o) => o.template === 'projects');
    const one = (projects ? ld.item(projects, 0) : undefined) as { key: string; _id: string };
    expect(ld.answer(`projects/${one.key}`, new URLSearchParams(), TENANT, {})).toMatchObject({
      body: { key: one.key },
    });
  });

  it("serves a path item that is a $ref to another (SureVoIP's /support/ip-address)", () => {
    const doc = shop();
    const paths = doc.paths as Json;
    doc.paths = { ...paths, '/support/account': { $ref: '#/paths/~1account' } };
    const data = new DocumentData(reRoot(doc));
    expect(data.answer('support/account', new URLSearchParams(), TENANT, { 'x-account': '1' })).toHaveProperty('body');
  });

  it('has a body it breaks on purpose refused by the oracle, and the failures there kept out of the false failures', () => {
    const mock = mockDocument(reRoot(shop(), undefined, 'all'), {
      fault: { path: 'orders', kind: 'wrong-type', property: 'note' },
    });
    mock.precheck();
    const broken = mock.records.get('orders');
    expect(broken?.refused).toBeGreaterThan(0);
    expect(broken?.refusal).toMatch(/\/data\/\d+\/note/);
    expect(broken && trusted(broken)).toBe(false);

    const failed = (endpoint: string, message: string) => ({
      id: 'RESOURCE-SCHEMA',
      status: 'failed',
      findings: [],
      endpoints: [{ endpoint, status: 'failed', message }],
    });
    const report = {
      verdict: 'non-conformant',
      target: {
        operations: 5,
        endpoints: [
          { path: 'orders', kind: 'list' },
          { path: 'orders/{orderId}', kind: 'single' },
          { path: 'account', kind: 'single' },
          { path: 'account/me', kind: 'list' },
        ],
      },
      checks: [
        failed('GET /tenants/{tenantId}/orders', 'field "data[0].note": must be string, got integer'),
        failed('GET /tenants/{tenantId}/orders/{orderId}', 'field "note": must be string, got null'),
        {
          id: 'TENANT-ACCESS',
          status: 'error',
          findings: [],
          endpoints: [
            {
              endpoint: 'GET /tenants/{tenantId}/account',
              status: 'error',
              message: 'not judged: harness error: Error: schema cannot compile',
            },
            {
              endpoint: 'GET /tenants/{tenantId}/account/me',
              status: 'error',
              message: 'not run: the run reached its deadline',
            },
            { endpoint: 'GET /tenants/{tenantId}/orders', status: 'skipped', message: 'no value for {id}' },
          ],
        },
      ],
    } as unknown as RunReport;
    const run: HarnessRun = {
      code: 1,
      killed: false,
      wallMs: 1000,
      cpuMs: 500,
      peakRssMb: 100,
      loadMs: 50,
      stderr: '',
      stdout: '',
      report,
      command: '',
    };
    const facts = { tenantGets: 4, operations: 5 } as DocumentFacts;
    const result = tally('shop.json', facts, [...mock.records.values()], run, 0);
    expect(result.falseFailures.map((f) => f.endpoint)).toEqual(['GET /tenants/{tenantId}/orders/{orderId}']);
    expect(result.mockFailures).toBe(1);
    expect(result.mockUntrusted).toEqual([
      { endpoint: 'GET /tenants/{tenantId}/orders', why: expect.stringMatching(/^oracle refused/) as unknown },
    ]);
    expect(result.harnessErrors.map((e) => e.endpoint)).toEqual(['GET /tenants/{tenantId}/account']);
    expect(result.stopErrors).toBe(1);
    expect(result.wrongLists).toEqual(['GET /tenants/{tenantId}/account/me']);
    expect(result.skips).toEqual({ 'TENANT-ACCESS: no value for {id}': 1 });
    const t = totals([result]);
    expect(t).toMatchObject({
      falseFailures: 1,
      harnessErrors: 1,
      mockUntrustedEndpoints: 1,
      wrongLists: 1,
      blindSpots: 0,
    });
    expect(t.detection).toMatchObject({
      lists: 1,
      listsAsList: 1,
      singles: 3,
      singlesAsList: 1,
      recall: 1,
      precision: 0.5,
    });
  });
});

describe("corpus.json from documents' results (benchmarks/corpus/output.ts, run.ts and combine.ts)", () => {
  it('totals the documents and groups their false failures, as one run does over the parts of several', () => {
    const a = {
      ...emptyResult('a.json', 'judged'),
      falseFailures: [
        { check: 'PAGE-HEADERS', endpoint: 'GET /tenants/{tenantId}/x', message: 'Page-Number is missing' },
      ],
    };
    const b = {
      ...emptyResult('b.json', 'judged'),
      falseFailures: [
        { check: 'PAGE-HEADERS', endpoint: 'GET /tenants/{tenantId}/y', message: 'Page-Number is missing' },
      ],
    };
    const out = corpusOutput([a, b, emptyResult('c.json', 'nothing-to-test')], {
      harness: { suites: ['tenant'], bin: 'this checkout' },
      options: { sample: null, only: [], jobs: 1, timeoutSeconds: 180 },
      startedAt: 's',
      finishedAt: 'f',
      finished: true,
    });
    expect(out.totals).toMatchObject({
      documents: 3,
      falseFailures: 2,
      falseFailureDocuments: 2,
      outcomes: { judged: 2, 'nothing-to-test': 1 },
    });
    expect(out.groups.falseFailures).toHaveLength(1);
    expect(out.groups.falseFailures[0]).toMatchObject({ count: 2, documents: 2, check: 'PAGE-HEADERS' });
  });
});

describe('strings the mock makes for a pattern (fromPattern)', () => {
  it("match the pattern and differ from item to item: ids that repeat would be the mock's fault (1Password's [\\da-z]{26})", () => {
    for (const pattern of ['^[\\da-z]{26}$', '^\\d{4}-\\d{2}$', '^[A-Z]{3}$', '^ab\\-c[0-9]+$', '^[a-f0-9_]{8}$']) {
      const made = Array.from({ length: 40 }, (_, n) => fromPattern(pattern, n + 1));
      for (const s of made) expect(s, pattern).toMatch(new RegExp(pattern));
      expect(new Set(made).size, pattern).toBe(pattern === '^ab\\-c[0-9]+$' ? 10 : 40);
    }
  });
});

describe('the grouping of messages', () => {
  it('takes out what varies between documents', () => {
    expect(normalise('GET /tenants/{tenantId}/v2/apps/tiers: field "tiers[2].egress": must be string, got null')).toBe(
      normalise('GET /tenants/{tenantId}/accounts: field "name": must be string, got null'),
    );
  });
});
