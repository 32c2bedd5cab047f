/**
 * RESOURCE-FIELDS-PRESENT on real documents (issue 29 items 2 and 6): what a schema demands of a
 * served object (src/battery/resources.ts declaredProperties, missingDeclared and its fast path
 * hasEveryDeclared, always in agreement), and runs against the generated reference collections
 * (items {id, name, value, note}) described by documents that once drew false failures:
 * - a writeOnly property listed in `required` (OAS 3.0.3 §4.7.24: required on requests only);
 * - an optional property whose schema does not allow null (issue 37 item 1, the spec over the
 *   document): demanded like every other, and sent as null without data, which RESOURCE-SCHEMA
 *   accepts; the document is at fault, reported once (lint's OAS-NULLABLE in the run's document
 *   section);
 * - recursive and expandable schemas (Stripe's `anyOf: [string, $ref]`): demands only where the
 *   value and the schema make them certain.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hasEveryDeclared, missingDeclared, schemaProblems } from '../src/battery/resources.js';
import { omissionMessage } from '../src/lint/omission.js';
import { lintDocument } from '../src/lint/rules.js';
import { documentAsJsonSchema } from '../src/openapi/json-schema.js';
import type { Json } from '../src/openapi/pointer.js';
import { generatedItem, generatedOpenApi } from '../src/reference/generated.js';
import { startReferenceServer } from '../src/reference/index.js';
import type { RunReport } from '../src/model/run-report.js';
import { startFront } from './support/front.js';
import { restoreEnv, runMain, setEnv, tempDir } from './support/harness.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  restoreEnv();
  for (const close of cleanup.splice(0).reverse()) await close();
});

/** missingDeclared's list, after checking that its fast path says the same. */
function missing(document: Json, pointer: string, value: unknown): string[] {
  const listed = missingDeclared(document, pointer, value);
  expect(hasEveryDeclared(document, pointer, value), JSON.stringify(listed)).toBe(listed.length === 0);
  return listed;
}

const schemas = (s: Record<string, unknown>, openapi = '3.1.0'): Json => ({ openapi, components: { schemas: s } });
const A = '#/components/schemas/A';

describe('writeOnly and required (issue 29 item 2)', () => {
  it('a required writeOnly property is not demanded of a response: its own, or behind a $ref; a required readOnly one is served, so demanded', () => {
    const document = schemas({
      A: {
        type: 'object',
        required: ['id', 'password', 'pin', 'created'],
        properties: {
          id: { type: 'string' },
          password: { type: 'string', writeOnly: true },
          pin: { $ref: '#/components/schemas/Pin' },
          created: { type: 'string', readOnly: true },
        },
      },
      Pin: { type: 'string', writeOnly: true },
    });
    expect(missing(document, A, { id: 'a', created: 'now' })).toEqual([]);
    expect(missing(document, A, {})).toEqual(['id', 'created']);
  });

  it('writeOnly declared in an allOf member, required in another or at the top', () => {
    const document = schemas({
      A: {
        required: ['token'],
        allOf: [
          { $ref: '#/components/schemas/Base' },
          { properties: { token: { type: 'string', writeOnly: true }, name: { type: ['string', 'null'] } } },
          { required: ['secret'] },
        ],
      },
      Base: {
        type: 'object',
        required: ['id'],
        properties: { id: { type: 'string' }, secret: { allOf: [{ $ref: '#/components/schemas/Secret' }] } },
      },
      Secret: { type: 'string', writeOnly: true },
    });
    expect(missing(document, A, { id: 'a' })).toEqual(['name']);
    expect(missing(document, A, { id: 'a', name: null })).toEqual([]);
  });

  it('3.1: writeOnly beside a $ref; a 3.0 document read as 2020-12, nullable and all', () => {
    const d31 = schemas({
      A: {
        type: 'object',
        required: ['id', 'key'],
        properties: { id: { type: 'string' }, key: { $ref: '#/components/schemas/Text', writeOnly: true } },
      },
      Text: { type: 'string' },
    });
    expect(missing(d31, A, { id: 'a' })).toEqual([]);
    const d30 = documentAsJsonSchema(
      schemas(
        {
          A: {
            type: 'object',
            required: ['id', 'password'],
            properties: { id: { type: 'string' }, password: { type: 'string', nullable: true, writeOnly: true } },
          },
        },
        '3.0.3',
      ),
    );
    expect(missing(d30, A, { id: 'a' })).toEqual([]);
  });
});

describe('an optional property whose schema does not allow null (issue 37 item 1: the spec over the document)', () => {
  const document = documentAsJsonSchema(
    schemas(
      {
        A: {
          type: 'object',
          required: ['id', 'code'],
          properties: {
            id: { type: 'string' },
            code: { type: 'string' },
            account: { type: 'string' },
            note: { type: 'string', nullable: true },
            address: { $ref: '#/components/schemas/Address' },
            lines: { type: 'array', items: { $ref: '#/components/schemas/Address' } },
          },
        },
        Address: { type: 'object', properties: { city: { type: 'string' }, zip: { type: 'string', nullable: true } } },
      },
      '3.0.3',
    ),
  );

  it('is demanded like every other: omitted, it is missing, nested ones too; one carried is read for its own properties', () => {
    expect(missing(document, A, { id: 'a', code: 'c', account: null, note: null, address: null, lines: [] })).toEqual(
      [],
    );
    expect(missing(document, A, { id: 'a', code: 'c', note: null })).toEqual(['account', 'address', 'lines']);
    expect(missing(document, A, { id: 'a' })).toEqual(['code', 'account', 'note', 'address', 'lines']);
    expect(
      missing(document, A, {
        id: 'a',
        code: 'c',
        account: null,
        note: null,
        address: { city: 'X' },
        lines: [{ zip: null }, {}],
      }),
    ).toEqual(['address.zip', 'lines[0].city', 'lines[1].city', 'lines[1].zip']);
  });

  it('sent as null, RESOURCE-SCHEMA accepts it (spec §Generic rules for optional fields 1), nested and behind a $ref too; a required one sent as null still fails', () => {
    const served = {
      id: 'a',
      code: 'c',
      account: null,
      note: null,
      address: { city: null, zip: null },
      lines: [{ city: null, zip: 'z' }],
    };
    expect(schemaProblems(document, A, served)).toEqual([]);
    expect(schemaProblems(document, A, { ...served, address: null, lines: null })).toEqual([]);
    expect(schemaProblems(document, A, { ...served, code: null })).toEqual([
      'field "code": must be string, got null (a required property: it has data, so never null)',
    ]);
    // A null is accepted; another type is not.
    expect(schemaProblems(document, A, { ...served, account: 7 })).toEqual(['field "account": must be string, got 7']);
  });

  it("the omission's remedy is null, and the message names the document's finding", () => {
    expect(omissionMessage(document, A, ['account'])).toBe(
      'omits "account", which the schema declares (send null for "account" instead: optional, so null without data (spec §Generic rules for optional fields 1), though the document\'s schema does not say null (its finding OAS-NULLABLE, in the report\'s document findings))',
    );
  });

  it('the document findings OAS-NULLABLE name each and where it is', () => {
    const withPath: Json = {
      ...document,
      paths: {
        '/tenants/{tenantId}/a': {
          get: {
            responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: A } } } } },
          },
        },
      },
    };
    expect(
      lintDocument(withPath)
        .filter((f) => f.rule === 'OAS-NULLABLE')
        .map((f) => f.pointer),
    ).toEqual([
      '#/components/schemas/A/properties/account',
      '#/components/schemas/A/properties/address',
      '#/components/schemas/Address/properties/city',
      '#/components/schemas/A/properties/lines',
    ]);
  });
});

describe('recursive and expandable schemas (issue 29 item 6)', () => {
  const document = schemas({
    A: {
      type: 'object',
      required: ['id', 'note'],
      properties: {
        id: { type: 'string' },
        note: { type: ['string', 'null'] },
        label: { type: 'string' },
        parent: { anyOf: [{ $ref: A }, { type: 'null' }] },
        // Stripe's expandable field: the id, or the object when expanded.
        owner: { anyOf: [{ type: 'string', maxLength: 5000 }, { $ref: A }] },
        // Two object arms: which applies is not known.
        either: { oneOf: [{ $ref: '#/components/schemas/B' }, { $ref: '#/components/schemas/C' }] },
      },
    },
    B: { type: 'object', required: ['b'], properties: { b: { type: 'string' } } },
    C: { type: 'object', required: ['c'], properties: { c: { type: 'string' } } },
  });
  const node = (parent: unknown): Json => ({ id: 'x', note: null, label: null, owner: null, either: null, parent });

  it('every declared property is demanded however deep, an optional one without null included', () => {
    // Depth first, in declaration order (id, note, label, parent, owner, either).
    const level = (at: string, depth: number): string[] => [
      `${at}id`,
      `${at}label`,
      ...(depth < 3 ? level(`${at}parent.`, depth + 1) : []),
      `${at}owner`,
      `${at}either`,
    ];
    expect(
      missing(document, A, {
        note: null,
        parent: { note: null, parent: { note: null, parent: { note: null, parent: null } } },
      }),
    ).toEqual(level('', 0));
    expect(missing(document, A, node({ ...node({ ...node(null), id: 'p2' }), label: 'l' }))).toEqual([]);
  });

  it('an expandable field: a string has nothing to demand; an expanded object is the schema it expands to', () => {
    expect(missing(document, A, { ...node(null), owner: 'acct_1' })).toEqual([]);
    expect(missing(document, A, { ...node(null), owner: { id: 'o' } })).toEqual([
      'owner.note',
      'owner.label',
      'owner.parent',
      'owner.owner',
      'owner.either',
    ]);
    expect(missing(document, A, { ...node(null), owner: { ...node(null), owner: { note: 'n' } } })).toEqual([
      'owner.owner.id',
      'owner.owner.label',
      'owner.owner.parent',
      'owner.owner.owner',
      'owner.owner.either',
    ]);
  });

  it("an expanded object's omitted required id: the advice is its value, never null, which the schema forbids", () => {
    const listed = missing(document, A, {
      ...node(null),
      owner: { note: null, label: null, owner: null, either: null, parent: null },
    });
    expect(listed).toEqual(['owner.id']);
    expect(omissionMessage(document, A, listed)).toBe(
      'omits "owner.id", which the schema declares (the schema requires "owner.id" and does not allow null: send the value)',
    );
  });

  it('a branch not known to apply demands nothing', () => {
    expect(missing(document, A, { ...node(null), either: {} })).toEqual([]);
  });
});

/** A run of the resources suite against generated collection c001, described by `document`, through `rewrite` of each item. */
async function run(document: Json, rewrite?: (item: Json) => Json): Promise<RunReport> {
  const server = await startReferenceServer({ generatedCollections: 1 });
  cleanup.push(() => server.close());
  let url = server.url;
  if (rewrite) {
    const front = await startFront(server.url, (req, res) => {
      if (!/\/c001(\/|\?|$)/.test(req.url ?? '')) return false;
      void (async () => {
        const answer = await fetch(`${server.url}${req.url ?? '/'}`, {
          headers: Object.fromEntries(
            Object.entries(req.headers).filter(
              (e): e is [string, string] => typeof e[1] === 'string' && !['host', 'connection'].includes(e[0]),
            ),
          ),
        });
        const headers: Record<string, string> = {};
        answer.headers.forEach((v, k) => {
          if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive'].includes(k))
            headers[k] = v;
        });
        const body = await answer.json();
        const out = Array.isArray(body)
          ? body.map((i) => rewrite(i as Json))
          : answer.ok
            ? rewrite(body as Json)
            : body;
        res.writeHead(answer.status, headers);
        res.end(JSON.stringify(out));
      })().catch(() => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
      return true;
    });
    cleanup.push(() => front.close());
    url = front.url;
  }
  const dir = await tempDir('openapi-fields-');
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'openapi.json');
  await writeFile(file, JSON.stringify(document));
  setEnv({ CARRIER_CLIENT_SECRET: server.clientSecret });
  const { code } = await runMain([
    'run',
    '--base-url',
    url,
    '--client-id',
    server.clientId,
    '--openapi',
    file,
    '--foreign-tenant-id',
    server.foreignTenantId,
    '--suite',
    'resources',
    '--reports-dir',
    dir,
  ]);
  const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as RunReport;
  expect(report.exitCode).toBe(code);
  return report;
}

/** The generated document with its Item schema edited. */
function generated(
  edit: (item: { required: string[]; properties: Record<string, unknown> }) => void,
  extra: Record<string, unknown> = {},
): Json {
  const doc = generatedOpenApi(1) as { components: { schemas: Record<string, unknown> } };
  const item = doc.components.schemas.Item as { required: string[]; properties: Record<string, unknown> };
  edit(item);
  Object.assign(doc.components.schemas, extra);
  return doc;
}

const checkOf = (report: RunReport, id: string) => report.checks.find((c) => c.id === id);
const fieldsPresent = (report: RunReport) => {
  const check = checkOf(report, 'RESOURCE-FIELDS-PRESENT');
  return {
    status: check?.status,
    messages: (check?.findings ?? []).map((f) => f.message),
    notes: check?.notes ?? [],
    endpoints: check?.endpoints?.map((e) => `${e.status} ${e.endpoint}`),
  };
};

describe('runs against a server that serves {id, name, value, note}', () => {
  it('item 2: a document that requires writeOnly properties (own, behind a $ref, in an allOf member, beside a 3.1 $ref): RESOURCE-FIELDS-PRESENT passes', async () => {
    const document = generated(
      (item) => {
        item.required.push('password', 'pin', 'token', 'key');
        item.properties.password = { type: 'string', writeOnly: true };
        item.properties.pin = { $ref: '#/components/schemas/Pin' };
        item.properties.key = { $ref: '#/components/schemas/Text', writeOnly: true };
        Object.assign(item, { allOf: [{ properties: { token: { type: 'string', writeOnly: true } } }] });
      },
      { Pin: { type: 'string', writeOnly: true }, Text: { type: 'string' } },
    );
    const report = await run(document);
    const found = fieldsPresent(report);
    expect(found.messages).toEqual([]);
    expect(found.status).toBe('passed');
    expect(found.endpoints).toEqual([
      'passed GET /tenants/{tenantId}/c001',
      'passed GET /tenants/{tenantId}/c001/{itemId}',
    ]);
    expect(checkOf(report, 'RESOURCE-SCHEMA')?.status).toBe('passed');
  });

  it('issue 37 item 1: an optional property that does not allow null, served as null: RESOURCE-SCHEMA and RESOURCE-FIELDS-PRESENT pass; the document finding names it', async () => {
    const report = await run(
      generated((item) => void (item.properties.color = { type: 'string' })),
      (item) => ({ ...item, color: null }),
    );
    const found = fieldsPresent(report);
    expect(found.messages).toEqual([]);
    expect(found.status).toBe('passed');
    expect(checkOf(report, 'RESOURCE-SCHEMA')?.findings ?? []).toEqual([]);
    expect(checkOf(report, 'RESOURCE-SCHEMA')?.status).toBe('passed');
    // The document's breach is reported once, on the document, with where it is.
    expect(
      report.document?.findings.filter((f) => f.rule === 'OAS-NULLABLE').map((f) => [f.pointer, f.message]),
    ).toEqual([
      [
        '/components/schemas/Item/properties/color',
        'property "color" is optional (not in required) but does not allow null: without data it is sent as null',
      ],
    ]);
  });

  it('issue 37 item 1, the faulty twin: the same property omitted fails RESOURCE-FIELDS-PRESENT with "send null" (the spec over the document)', async () => {
    const report = await run(generated((item) => void (item.properties.color = { type: 'string' })));
    const found = fieldsPresent(report);
    expect(found.status).toBe('failed');
    expect(found.endpoints).toEqual([
      'failed GET /tenants/{tenantId}/c001',
      'failed GET /tenants/{tenantId}/c001/{itemId}',
    ]);
    for (const m of found.messages.filter((x) => !/findings in all/.test(x)))
      expect(m).toMatch(
        /omits "color", which the schema declares \(send null for "color" instead: optional, so null without data/,
      );
    expect(checkOf(report, 'RESOURCE-SCHEMA')?.status).toBe('passed');
  });

  it('an optional nullable property omitted fails, and only it', async () => {
    const report = await run(
      generated((item) => {
        item.properties.color = { type: 'string' };
        item.properties.tag = { type: ['string', 'null'] };
      }),
      (item) => ({ ...item, color: null }),
    );
    const found = fieldsPresent(report);
    expect(found.status).toBe('failed');
    expect(found.messages.length).toBeGreaterThan(0);
    for (const m of found.messages.filter((x) => !/findings in all/.test(x)))
      expect(m).toMatch(/omits "tag", which the schema declares \(send null instead\)$/);
    expect(found.messages.join('\n')).not.toContain('color');
  });

  it('item 6, recursion: nested items under an "X or null" parent and an expandable owner, the optional label null: passes; a nested omission is caught', async () => {
    const document = generated((item) => {
      item.properties.label = { type: 'string' };
      item.properties.parent = { anyOf: [{ $ref: '#/components/schemas/Item' }, { type: 'null' }] };
      item.properties.owner = { anyOf: [{ type: 'string' }, { $ref: '#/components/schemas/Item' }] };
      item.required.push('parent');
    });
    const base = (i: number): Json => ({ ...generatedItem('c001', i), label: null, owner: null, parent: null });
    const chain = (item: Json): Json => {
      const n = Number(String(item.id).split('-')[1]);
      return {
        ...item,
        label: null,
        parent: { ...base(n), parent: { ...base(n + 1), parent: base(n + 2) } },
        owner: n % 2 === 0 ? `c001-${n + 1}` : { ...base(n + 3), owner: 'c001-1' },
      };
    };
    const clean = fieldsPresent(await run(document, chain));
    expect(clean.messages).toEqual([]);
    expect(clean.status).toBe('passed');

    const faulty = fieldsPresent(
      await run(document, (item) => {
        const out = chain(item);
        const deep = ((out.parent as Json).parent as Json).parent as Json;
        delete deep.note;
        if (typeof out.owner === 'object' && out.owner !== null) delete (out.owner as Json).note;
        return out;
      }),
    );
    expect(faulty.status).toBe('failed');
    expect(faulty.messages.join('\n')).toContain('"parent.parent.parent.note"');
    expect(faulty.messages.join('\n')).toContain('"owner.note"');
    expect(faulty.messages.join('\n')).not.toContain('label');
  });
});
