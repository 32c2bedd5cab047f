// --openapi: reading the user's OpenAPI 3.x document (Swagger 2.0 and 3.2: openapi-versions.test.ts) (src/openapi/), and judging served
// resources against it (src/battery/resources.ts): endpoints and their kinds, 3.0's nullable as
// JSON Schema 2020-12, $refs across files, declared properties, and clear errors for bad documents.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { validate } from '@readme/openapi-parser';
import { describe, expect, it } from 'vitest';
import { expectedValueProblems, hasEveryDeclared, missingDeclared, schemaProblems } from '../src/battery/resources.js';
import { fromOpenApi30 } from '../src/openapi/json-schema.js';
import { loadOpenApi } from '../src/openapi/load.js';
import { REFERENCE_OPENAPI_FILE } from '../src/reference/seeded.js';
import { tempDir, usageError } from './support/harness.js';
import { prng } from './support/prng.js';

const FIXTURE = new URL('./fixtures/openapi/api-3.0.yaml', import.meta.url).pathname;

describe("the reference server's own document (docs/openapi.yaml)", () => {
  it('is a valid OpenAPI 3.1 document, by @readme/openapi-parser', async () => {
    const result = await validate(REFERENCE_OPENAPI_FILE);
    expect(result.valid, JSON.stringify(result)).toBe(true);
    expect(result.specification).toBe('OpenAPI');
  });

  it('describes two lists, a resource by id under each, and the settings', async () => {
    const { endpoints } = await loadOpenApi(REFERENCE_OPENAPI_FILE);
    expect(endpoints.map(({ path, kind, source }) => ({ path, kind, source }))).toEqual([
      { path: 'shipments', kind: 'list', source: 'openapi: listShipments' },
      { path: 'shipments/{shipmentId}', kind: 'single', source: 'openapi: getShipment' },
      { path: 'invoices', kind: 'list', source: 'openapi: listInvoices' },
      { path: 'invoices/{invoiceId}', kind: 'single', source: 'openapi: getInvoice' },
      { path: 'settings', kind: 'single', source: 'openapi: getSettings' },
    ]);
  });
});

describe('an OpenAPI 3.0 document split over files', () => {
  it('yields every GET under /tenants/{tenantId}/ (not other paths, not other methods), lists by page/size or paging headers', async () => {
    const { endpoints } = await loadOpenApi(FIXTURE);
    expect(endpoints.map((e) => [e.path, e.kind])).toEqual([
      ['parcels', 'list'],
      ['parcels/{parcelId}', 'single'],
      ['labels', 'list'],
    ]);
  });

  it("points each at its item's or body's schema, in the bundled document, whatever the JSON media type", async () => {
    const { endpoints, document } = await loadOpenApi(FIXTURE);
    const [parcels, parcel] = endpoints;
    // The list's body is an object with one array property: the item is that array's items.
    expect(parcels?.schema).toMatch(/\/properties\/data\/items$/);
    expect(parcel?.schema).toMatch(/application~1vnd\.parcels\+json; charset=utf-8\/schema$/);
    // The other file's schema is inlined: no $ref leaves the document.
    expect(JSON.stringify(document)).not.toContain('components.json');
  });

  it('reads nullable as a type that allows null, and judges items against it', async () => {
    const { endpoints, document } = await loadOpenApi(FIXTURE);
    const pointer = endpoints[0]?.schema ?? '';
    if (!document) throw new Error('no document');
    const good = { id: 'p1', weight: 2.5, note: null, kind: null, sender: { name: 'A', phone: null }, recipient: null };
    expect(schemaProblems(document, pointer, good)).toEqual([]);
    // weight is required: null is not its type. sender.name is optional: null without data is the spec's rule, whatever the schema says (issue 37 item 1).
    expect(schemaProblems(document, pointer, { ...good, weight: null, sender: { name: null, phone: null } })).toEqual([
      'field "weight": must be number, got null (a required property: it has data, so never null)',
    ]);
    expect(schemaProblems(document, pointer, { ...good, weight: '2.5' })).toEqual([
      'field "weight": must be number, got the string "2.5"',
    ]);
    expect(schemaProblems(document, pointer, { ...good, kind: 'crate' })).toEqual([
      'field "kind": must be one of ["box","letter",null], got the string "crate"',
    ]);
    // exclusiveMinimum: true beside minimum 0 (3.0) is exclusiveMinimum: 0 (2020-12).
    expect(schemaProblems(document, pointer, { ...good, weight: 0 })).toEqual(['field "weight": must be > 0 (got 0)']);
  });

  it('holds every declared property to be present, nested ones and allOf members included, writeOnly ones exempt', async () => {
    const { endpoints, document } = await loadOpenApi(FIXTURE);
    const pointer = endpoints[0]?.schema ?? '';
    if (!document) throw new Error('no document');
    const full = {
      id: 'p1',
      weight: 1,
      note: null,
      kind: 'box',
      sender: { name: 'A', phone: null },
      recipient: { name: 'B', phone: '1' },
    };
    expect(missingDeclared(document, pointer, full)).toEqual([]);
    // Party.name is optional and does not allow null: still never omitted (spec §Generic rules for optional fields 1, issue 37 item 1).
    expect(
      missingDeclared(document, pointer, {
        id: 'p1',
        weight: 1,
        kind: 'box',
        sender: { name: 'A' },
        recipient: { phone: null },
      }),
    ).toEqual(['note', 'sender.phone', 'recipient.name']);
    expect(
      missingDeclared(document, pointer, {
        id: 'p1',
        weight: 1,
        kind: 'box',
        sender: { phone: null },
        recipient: { name: 'B' },
      }),
    ).toEqual(['note', 'sender.name', 'recipient.phone']);
    // A field that is null holds nothing further: its properties are not missing.
    expect(missingDeclared(document, pointer, { ...full, recipient: null })).toEqual([]);
  });

  it("holds a declared property named like an Object member (constructor, toString) to be present: only the item's own fields count", () => {
    const document = {
      components: {
        schemas: {
          Rate: {
            type: 'object',
            properties: {
              id: { type: 'string' },
              constructor: { type: ['string', 'null'] },
              toString: { type: ['string', 'null'] },
            },
          },
        },
      },
    };
    expect(missingDeclared(document, '#/components/schemas/Rate', { id: 'r1' })).toEqual(['constructor', 'toString']);
    expect(
      missingDeclared(document, '#/components/schemas/Rate', { id: 'r1', constructor: null, toString: 'x' }),
    ).toEqual([]);
  });

  it('tells, without listing them, exactly when missingDeclared finds fields missing (its fast path for every item of a walk)', () => {
    const document = {
      components: {
        schemas: {
          Node: {
            type: 'object',
            // secret: writeOnly, so never demanded though required; every other declared property is demanded (issue 37 item 1).
            required: ['req', 'secret'],
            properties: {
              id: { type: 'string' },
              constructor: {},
              child: { $ref: '#/components/schemas/Node' },
              list: { type: 'array', items: { $ref: '#/components/schemas/Leaf' } },
              secret: { $ref: '#/components/schemas/Secret' },
              maybe: { type: ['string', 'null'] },
              // Stripe's expandable field: an id, or the object itself; an object value is a Node.
              parent: { anyOf: [{ type: 'string' }, { $ref: '#/components/schemas/Node' }] },
            },
            allOf: [{ properties: { extra: {} } }],
          },
          Secret: { type: 'string', writeOnly: true },
          Leaf: {
            type: 'object',
            properties: { a: {}, b: { type: 'array', items: { $ref: '#/components/schemas/Node' } } },
          },
        },
      },
    };
    const next = prng(11);
    const names = [
      'id',
      'constructor',
      'child',
      'list',
      'extra',
      'req',
      'a',
      'b',
      'other',
      'secret',
      'maybe',
      'parent',
    ];
    const leaf = (): unknown => [null, 1, 'x', [], {}][Math.floor(next() * 5)];
    // Objects and arrays nest past missingDeclared's depth bound, under the declared names that lead on.
    const value = (depth: number): unknown => {
      const r = next();
      if (depth > 9 || r < 0.1) return leaf();
      if (r < 0.25) return Array.from({ length: Math.floor(next() * 3) }, () => value(depth + 1));
      const out: Record<string, unknown> = {};
      for (const name of names)
        if (next() < 0.93)
          out[name] = ['child', 'list', 'b', 'parent'].includes(name) && next() < 0.6 ? value(depth + 1) : leaf();
      return out;
    };
    let missing = 0;
    for (let i = 0; i < 3000; i += 1) {
      const v = value(0);
      const listed = missingDeclared(document, '#/components/schemas/Node', v);
      if (listed.length > 0) missing += 1;
      expect(hasEveryDeclared(document, '#/components/schemas/Node', v)).toBe(listed.length === 0);
    }
    // Both outcomes were exercised, many times.
    expect(missing).toBeGreaterThan(300);
    expect(missing).toBeLessThan(2700);
    // Complete nodes down to an incomplete one at each depth: found within the depth bound, not past it.
    const chain = (depth: number, incompleteAt: number): unknown => ({
      id: 'x',
      constructor: null,
      extra: null,
      req: null,
      maybe: null,
      parent: null,
      list: [{ a: 1, b: [] }],
      child: depth === incompleteAt ? { id: 'only' } : chain(depth + 1, incompleteAt),
    });
    const found = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((at) => {
      const v = chain(0, at);
      const listed = missingDeclared(document, '#/components/schemas/Node', v);
      expect(hasEveryDeclared(document, '#/components/schemas/Node', v)).toBe(listed.length === 0);
      return listed.length > 0;
    });
    expect(found).toEqual([true, true, true, true, true, false, false, false, false]);
    // The same down an expandable field: an object under parent is a Node, a string has nothing to demand.
    const up = (depth: number, incompleteAt: number): unknown => ({
      id: 'x',
      child: null,
      list: [],
      constructor: null,
      extra: null,
      req: null,
      maybe: null,
      parent: depth + 1 === incompleteAt ? { id: 'only' } : depth + 1 === 4 ? 'node_4' : up(depth + 1, incompleteAt),
    });
    const viaParent = [1, 2, 5].map((at) => {
      const v = up(0, at);
      const listed = missingDeclared(document, '#/components/schemas/Node', v);
      expect(hasEveryDeclared(document, '#/components/schemas/Node', v)).toBe(listed.length === 0);
      return listed;
    });
    expect(viaParent).toEqual([
      [
        'parent.constructor',
        'parent.child',
        'parent.list',
        'parent.maybe',
        'parent.parent',
        'parent.extra',
        'parent.req',
      ],
      [
        'parent.parent.constructor',
        'parent.parent.child',
        'parent.parent.list',
        'parent.parent.maybe',
        'parent.parent.parent',
        'parent.parent.extra',
        'parent.parent.req',
      ],
      [],
    ]);
  });
});

describe('3.0 schemas as JSON Schema 2020-12', () => {
  it.each([
    ['nullable beside a type', { type: 'string', nullable: true }, { type: ['string', 'null'] }],
    [
      'nullable beside an enum',
      { type: 'string', enum: ['a'], nullable: true },
      { type: ['string', 'null'], enum: ['a', null] },
    ],
    ['nullable beside a $ref', { $ref: '#/x', nullable: true }, { anyOf: [{ $ref: '#/x' }, { type: 'null' }] }],
    ['nullable: false', { type: 'integer', nullable: false }, { type: 'integer' }],
    [
      'siblings of a $ref, ignored (OAS 3.0.3 §4.7.25: "SHALL be ignored"; Xero\'s Contact beside type: string)',
      { $ref: '#/x', type: 'string', description: 'd' },
      { $ref: '#/x' },
    ],
    [
      'readOnly beside a $ref, kept (read as its authors mean it)',
      { $ref: '#/x', readOnly: true, maxLength: 3 },
      { $ref: '#/x', readOnly: true },
    ],
    [
      'nullable beside an allOf (no type)',
      { allOf: [{ $ref: '#/x' }], nullable: true },
      { anyOf: [{ allOf: [{ $ref: '#/x' }] }, { type: 'null' }] },
    ],
    [
      'boolean exclusiveMaximum',
      { type: 'number', maximum: 9, exclusiveMaximum: true },
      { type: 'number', exclusiveMaximum: 9 },
    ],
    [
      'nested in properties and items',
      { type: 'array', items: { type: 'object', properties: { a: { type: 'string', nullable: true } } } },
      { type: 'array', items: { type: 'object', properties: { a: { type: ['string', 'null'] } } } },
    ],
  ])('%s', (_what, schema, expected) => {
    expect(fromOpenApi30(schema)).toEqual(expected);
  });
});

describe('ground truth: null, "" and absent told apart', () => {
  it.each([
    [{ note: null }, { note: '' }, 'field "note": expected null, got the string ""'],
    [{ note: '' }, { note: null }, 'field "note": expected the string "", got null'],
    [{ note: null }, {}, 'field "note": expected null, got no such field'],
    [{ amount: 10 }, { amount: '10' }, 'field "amount": expected 10, got the string "10"'],
    [{ constructor: null }, {}, 'field "constructor": expected null, got no such field'],
  ])('%j served as %j', (expected, actual, problem) => {
    expect(expectedValueProblems(expected, actual)).toEqual([problem]);
  });

  it('compares only the fields that are known', () => {
    expect(expectedValueProblems({ note: null }, { note: null, extra: 1 })).toEqual([]);
  });
});

describe('a document that cannot be used: exit 2, one line', () => {
  it('a file that does not exist', async () => {
    expect(await usageError(loadOpenApi('/nonexistent/api.yaml'))).toMatch(
      /^--openapi \/nonexistent\/api\.yaml: cannot read it as an OpenAPI document: /,
    );
  });

  it.each([
    ['YAML that does not parse', 'openapi: 3.1.0\npaths: [unclosed', /cannot read it as an OpenAPI document/],
    [
      'a version the harness does not read',
      'swagger: "1.2"\ninfo: {title: x, version: "1"}\npaths: {}\n',
      /Swagger 1\.2 is not supported; give a Swagger 2\.0 or an OpenAPI 3\.0, 3\.1 or 3\.2 document/,
    ],
    [
      'a document without tenant endpoints',
      'openapi: 3.1.0\ninfo: {title: x, version: "1"}\npaths:\n  /status:\n    get:\n      responses: {"200": {description: ok}}\n',
      /no GET operation under \/tenants\/\{tenantId\}\/ in the document/,
    ],
    [
      'a $ref to a file that is not there',
      'openapi: 3.1.0\ninfo: {title: x, version: "1"}\npaths:\n  /tenants/{t}/a:\n    get:\n      responses: {"200": {$ref: "missing.yaml#/r"}}\n',
      /cannot read it as an OpenAPI document/,
    ],
  ])('%s', async (_what, text, message) => {
    const file = join(await tempDir(), 'api.yaml');
    await writeFile(file, text);
    expect(await usageError(loadOpenApi(file))).toMatch(message);
  });
});
