/**
 * Real documents' schemas as their authors meant them (issue 29 items 3 and 7): patterns in the
 * dialect they are written in, `nullable`/`x-nullable` wherever they appear, a schema that cannot
 * be compiled an error on its endpoint alone (compiled here or where the document was read), and
 * RESOURCE-SCHEMA's messages at the cause: the branch of a union, at its own path.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { evaluate } from '../src/carrier/standalone.js';
import { schemaCompileProblem, schemaJudgement, schemaProblems } from '../src/battery/resources.js';
import {
  canonicalPointer,
  compileFailure,
  documentAjv,
  precompileDocument,
  precompileIfFew,
  PRECOMPILE_MAX_SCHEMAS,
  schemaAt,
  usePrecompiled,
} from '../src/openapi/document-ajv.js';
import { documentAsJsonSchema } from '../src/openapi/json-schema.js';
import type { Json } from '../src/openapi/pointer.js';
import { generatedOpenApi } from '../src/reference/generated.js';
import { startReferenceServer, type ReferenceServer } from '../src/reference/index.js';
import type { RunReport } from '../src/model/run-report.js';
import { runMain, tempDir, WITHOUT_EXPIRY } from './support/harness.js';

const DATE = '^\\d{4}\\-\\d{2}\\-\\d{2}$';

function doc(schemas: Record<string, unknown>, openapi = '3.1.0'): Json {
  return documentAsJsonSchema({ openapi, info: { title: 't', version: '1' }, paths: {}, components: { schemas } });
}

const compiles = (document: Json, pointer: string) => documentAjv(document).compile(schemaAt(pointer));

describe('patterns in the dialect documents are written in', () => {
  it('a pattern unicode mode rejects (`\\-`) is compiled without the u flag, and holds', () => {
    // JavaScript's unicode mode refuses the identity escape: what ajv did with it before.
    expect(() => new RegExp(DATE, 'u')).toThrow(/Invalid regular expression/);
    const document = doc({ Day: { type: 'string', pattern: DATE } });
    const validate = compiles(document, '#/components/schemas/Day');
    expect(validate('2024-02-29')).toBe(true);
    expect(validate('29/02/2024')).toBe(false);
  });

  it('a pattern valid in unicode mode is read in unicode mode (\\p{…}, astral characters)', () => {
    const validate = compiles(doc({ Word: { type: 'string', pattern: '^\\p{Lu}.$' } }), '#/components/schemas/Word');
    expect(validate('É😀')).toBe(true);
    expect(validate('é😀')).toBe(false);
  });

  it('the standalone code of the thread that reads the document validates alike', () => {
    const document = doc({
      Day: { type: 'string', pattern: DATE },
      Keys: { type: 'object', patternProperties: { '^x\\-': { type: 'integer' } } },
    });
    const validators = evaluate(
      precompileDocument(document, ['#/components/schemas/Day', '#/components/schemas/Keys']),
    );
    expect(validators.get('#/components/schemas/Day')?.('2024-02-29')).toBe(true);
    expect(validators.get('#/components/schemas/Day')?.('2024-2-29')).toBe(false);
    expect(validators.get('#/components/schemas/Keys')?.({ 'x-a': 1 })).toBe(true);
    expect(validators.get('#/components/schemas/Keys')?.({ 'x-a': 'one' })).toBe(false);
  });

  it("Java's POSIX classes unicode mode refuses (AWS's \\p{XDigit}) are their ASCII sets, here and in standalone code; ECMA-262's own \\p{Alpha} stays Unicode's", () => {
    const guid = '\\p{XDigit}{8}-\\p{XDigit}{4}-\\p{XDigit}{4}-\\p{XDigit}{4}-\\p{XDigit}{12}';
    const document = doc({
      Id: { type: 'string', pattern: `^${guid}$` },
      Code: { type: 'string', pattern: '^[\\p{Upper}_]+\\P{Digit}$' },
      Word: { type: 'string', pattern: '^\\p{Alpha}+$' },
      Odd: { type: 'string', pattern: '^\\p{Nonsense}\\-$' },
    });
    for (const validate of [
      (p: string) => compiles(document, p),
      (p: string) => evaluate(precompileDocument(document, [p])).get(p) as (v: unknown) => boolean,
    ]) {
      expect(validate('#/components/schemas/Id')('6f1c2b3a-4d5e-4f60-8a7b-00000000000a')).toBe(true);
      expect(validate('#/components/schemas/Id')('GUID-1xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx')).toBe(false);
      expect(validate('#/components/schemas/Code')('AB_C')).toBe(true);
      expect(validate('#/components/schemas/Code')('AB_1')).toBe(false);
      expect(validate('#/components/schemas/Word')('Éclair')).toBe(true);
    }
    // Java's \p{all} (AWS DLM's `[\p{all}]*`, before: RESOURCE-SCHEMA's error): any character, in a class or alone.
    const all = doc({
      Tag: { type: 'string', pattern: '^[\\p{all}]*$' },
      One: { type: 'string', pattern: '^\\p{all}$' },
    });
    for (const validate of [
      (p: string) => compiles(all, p),
      (p: string) => evaluate(precompileDocument(all, [p])).get(p) as (v: unknown) => boolean,
    ]) {
      expect(validate('#/components/schemas/Tag')('any ✓ thing\n')).toBe(true);
      expect(validate('#/components/schemas/One')('✓')).toBe(true);
      expect(validate('#/components/schemas/One')('ab')).toBe(false);
    }
    // The legacy mode would read \p{Nonsense} as "p{Nonsense}": a pattern no mode reads as written is the schema's error.
    expect(() => compiles(document, '#/components/schemas/Odd')).toThrow(/is not a regular expression/);
  });

  it("PCRE's and Python's \\A, \\Z and \\z are start and end, as written (Django's URL validator in every DRF document), here and in standalone code", () => {
    // DRF's generateschema writes Django's URL regex with `\z`; read as JavaScript it is a literal "z".
    const url = '^(?:[a-z0-9.+-]*)://(?:[^\\s:@/]+(?::[^\\s:@/]*)?@)?(?:[a-z0-9.-]+)(?::\\d{1,5})?(?:[/?#][^\\s]*)?\\z';
    const document = doc({
      Hook: { type: 'string', pattern: url },
      Code: { type: 'string', pattern: '\\AAB\\d\\Z' },
      Escaped: { type: 'string', pattern: '^a\\\\z$' },
    });
    for (const validate of [
      (p: string) => compiles(document, p),
      (p: string) => evaluate(precompileDocument(document, [p])).get(p) as (v: unknown) => boolean,
    ]) {
      expect(validate('#/components/schemas/Hook')('https://example.com/hook')).toBe(true);
      expect(validate('#/components/schemas/Hook')('https://example.com/a b')).toBe(false);
      expect(validate('#/components/schemas/Code')('AB1')).toBe(true);
      expect(validate('#/components/schemas/Code')('xAB1')).toBe(false);
      // An escaped backslash before z is a backslash and a z.
      expect(validate('#/components/schemas/Escaped')('a\\z')).toBe(true);
    }
  });

  it('a pattern valid in neither mode is named with its schema', () => {
    const document = doc({
      Bad: { type: 'object', properties: { code: { type: 'string', pattern: '([a-z]' } } },
      Holder: { type: 'object', properties: { bad: { $ref: '#/components/schemas/Bad' } } },
    });
    let thrown: unknown;
    try {
      compiles(document, '#/components/schemas/Holder');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect(compileFailure(document, '#/components/schemas/Holder', thrown)).toEqual({
      at: '#/components/schemas/Bad/properties/code',
      reason: expect.stringMatching(
        /^pattern "\(\[a-z\]" is not a regular expression: Invalid regular expression/,
      ) as unknown,
    });
  });
});

describe('nullable and x-nullable, in 3.0 and 3.1 documents', () => {
  it('`nullable: true` beside a $ref in a 3.1 document admits null (ajv refused to compile it)', () => {
    const schemas = {
      Money: { type: 'object', properties: { amount: { type: 'number' } } },
      Order: {
        type: 'object',
        properties: { total: { $ref: '#/components/schemas/Money', nullable: true, description: 'the total' } },
      },
    };
    const validate = compiles(doc(schemas), '#/components/schemas/Order');
    expect(validate({ total: null })).toBe(true);
    expect(validate({ total: { amount: 3 } })).toBe(true);
    // 3.1 keeps a $ref's siblings: they still apply.
    expect(validate({ total: { amount: 'three' } })).toBe(false);
    expect(validate({ total: 'none' })).toBe(false);
  });

  it('`nullable` with a type, an enum or none in a 3.1 document; `x-nullable` in 3.0 and 3.1', () => {
    for (const openapi of ['3.0.3', '3.1.0']) {
      const schemas = {
        Thing: {
          type: 'object',
          properties: {
            a: { type: 'string', nullable: true },
            b: { type: 'string', enum: ['x'], 'x-nullable': true },
            c: { allOf: [{ type: 'integer' }], nullable: true },
            d: { type: 'string' },
            e: { type: 'string', nullable: false },
          },
        },
      };
      const validate = compiles(doc(schemas, openapi), '#/components/schemas/Thing');
      expect(validate({ a: null, b: null, c: null }), openapi).toBe(true);
      expect(validate({ a: 'x', b: 'x', c: 1 }), openapi).toBe(true);
      expect(validate({ b: 'y' }), openapi).toBe(false);
      expect(validate({ d: null }), openapi).toBe(false);
      expect(validate({ e: null }), openapi).toBe(false);
    }
  });

  it('`allOf: [X, {type: "null"}]` (a converter\'s nullable beside a $ref, Codat\'s currency) reads as X or null', () => {
    const d = documentAsJsonSchema({
      openapi: '3.1.0',
      paths: {},
      components: {
        schemas: {
          Currency: { type: 'string', pattern: '^[A-Z]{3}$' },
          Bill: {
            type: 'object',
            properties: { currency: { allOf: [{ $ref: '#/components/schemas/Currency' }, { type: 'null' }] } },
          },
        },
      },
    });
    const bill = '#/components/schemas/Bill';
    expect(schemaProblems(d, bill, { currency: 'GBP' })).toEqual([]);
    expect(schemaProblems(d, bill, { currency: null })).toEqual([]);
    expect(schemaProblems(d, bill, { currency: 'pounds' })).toEqual([
      'field "currency": must match pattern "^[A-Z]{3}$" (got the string "pounds")',
    ]);
  });

  it('readOnly/writeOnly beside a nullable $ref (3.0) stay on the "or null" it becomes', () => {
    const d = documentAsJsonSchema({
      openapi: '3.0.3',
      paths: {},
      components: {
        schemas: {
          Card: { type: 'object' },
          Pay: {
            type: 'object',
            properties: { card: { $ref: '#/components/schemas/Card', nullable: true, writeOnly: true } },
          },
        },
      },
    });
    expect(((d.components as Json).schemas as Record<string, { properties: Json }>).Pay?.properties.card).toEqual({
      anyOf: [{ $ref: '#/components/schemas/Card' }, { type: 'null' }],
      writeOnly: true,
    });
  });

  it('a 3.1 document without nullable is left as it is', () => {
    const raw = {
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      paths: {},
      components: { schemas: { A: { type: ['string', 'null'] } } },
    };
    expect(documentAsJsonSchema(raw)).toBe(raw);
  });
});

describe("a schema that cannot be compiled is its endpoint's error alone", () => {
  const schemas = () => ({
    Good: { type: 'object', properties: { id: { type: 'string', pattern: '^g\\-\\d+$' } } },
    Bad: { type: 'object', properties: { id: { type: 'string', pattern: '(' } } },
    Also: { type: 'object', properties: { n: { type: 'integer' } } },
  });

  it('compiled in the battery: the others validate, the bad one says where and why', () => {
    const document = doc(schemas());
    expect(schemaCompileProblem(document, '#/components/schemas/Bad')).toMatch(
      /^its schema at #\/components\/schemas\/Bad\/properties\/id cannot be compiled: pattern "\(" is not a regular expression: /,
    );
    expect(schemaCompileProblem(document, '#/components/schemas/Good')).toBeUndefined();
    expect(schemaProblems(document, '#/components/schemas/Good', { id: 'g-1' })).toEqual([]);
    expect(schemaProblems(document, '#/components/schemas/Good', { id: 'x' })).toEqual([
      'field "id": must match pattern "^g\\-\\d+$" (got the string "x")',
    ]);
    expect(schemaProblems(document, '#/components/schemas/Also', { n: 'one' })).toEqual([
      'field "n": must be integer, got the string "one"',
    ]);
  });

  it('precompiled where the document was read: one failing pointer loses no other', () => {
    const document = doc(schemas());
    const pointers = ['#/components/schemas/Good', '#/components/schemas/Bad', '#/components/schemas/Also'];
    const validators = precompileDocument(document, pointers);
    expect(validators.keys).toEqual(['#/components/schemas/Good', '#/components/schemas/Also']);
    expect(Object.keys(validators.failed ?? {})).toEqual(['#/components/schemas/Bad']);
    const evaluated = evaluate(validators);
    expect(evaluated.get('#/components/schemas/Good')?.({ id: 'g-2' })).toBe(true);
    expect(evaluated.get('#/components/schemas/Also')?.({ n: 'x' })).toBe(false);
    // The battery, given them: the bad schema's problem without compiling it again, the others judged.
    const received = doc(schemas());
    usePrecompiled(received, JSON.parse(JSON.stringify(validators)) as typeof validators);
    expect(schemaCompileProblem(received, '#/components/schemas/Bad')).toMatch(
      /^its schema at #\/components\/schemas\/Bad\/properties\/id cannot be compiled: /,
    );
    expect(schemaProblems(received, '#/components/schemas/Also', { n: 'x' })).toEqual([
      'field "n": must be integer, got the string "x"',
    ]);
  });
});

describe('validators compiled where the document is read only when few (issue 29, "Scale")', () => {
  it('endpoints whose schema is one $ref share one validator, compiled once, precompiled or not', () => {
    const d: Json = {
      openapi: '3.1.0',
      paths: {},
      components: {
        schemas: {
          Item: { type: 'object', properties: { id: { type: 'string' } } },
          A: { $ref: '#/components/schemas/Item', description: 'a list item' },
          B: { items: { $ref: '#/components/schemas/Item' } },
        },
      },
    };
    expect(canonicalPointer(d, '#/components/schemas/A')).toBe('#/components/schemas/Item');
    expect(canonicalPointer(d, '#/components/schemas/B/items')).toBe('#/components/schemas/Item');
    expect(canonicalPointer(d, '#/components/schemas/B')).toBe('#/components/schemas/B');
    const validators = precompileDocument(d, ['#/components/schemas/A', '#/components/schemas/B/items']);
    expect(Object.keys(evaluate(validators) instanceof Map ? Object.fromEntries(evaluate(validators)) : {})).toEqual([
      '#/components/schemas/Item',
    ]);
    const copy = structuredClone(d);
    usePrecompiled(copy, validators);
    expect(schemaProblems(copy, '#/components/schemas/A', { id: 7 })).toEqual(['field "id": must be string, got 7']);
    expect(schemaProblems(copy, '#/components/schemas/B/items', { id: 'x' })).toEqual([]);
  });

  it('a chain of more schemas than PRECOMPILE_MAX_SCHEMAS is left to the battery; a few are compiled', () => {
    const count = PRECOMPILE_MAX_SCHEMAS + 10;
    const chain = Object.fromEntries(
      Array.from({ length: count }, (_, i) => [
        `S${i}`,
        { type: 'object', properties: { next: { $ref: `#/components/schemas/S${(i + 1) % count}` } } },
      ]),
    );
    expect(precompileIfFew(doc(chain), ['#/components/schemas/S0'])).toBeUndefined();
    const few = precompileIfFew(
      doc({ A: { type: 'object', properties: { b: { $ref: '#/components/schemas/B' } } }, B: { type: 'integer' } }),
      ['#/components/schemas/A'],
    );
    expect(few?.keys).toEqual(['#/components/schemas/A']);
  });
});

describe("a schema no server can satisfy is the document's fault, not the deployment's (issue 37 item 8)", () => {
  const document = doc({
    // Zoom-like: `{type: string, enum: [1, 2]}` admits no value.
    Level: { type: 'object', properties: { level: { type: 'string', enum: [1, 2] }, count: { type: 'integer' } } },
    // Zoom's settings: two branches every value of one matches the other too.
    Settings: {
      type: 'object',
      properties: {
        settings: {
          oneOf: [
            { type: 'object', properties: { email: { type: 'boolean' } } },
            { type: 'object', properties: { security: { type: 'boolean' } } },
          ],
        },
      },
    },
    // Jira's closed, discriminated oneOf: additionalProperties false forbids what every branch requires.
    Variable: {
      type: 'object',
      additionalProperties: false,
      properties: { type: { type: 'string' } },
      oneOf: [
        { type: 'object', required: ['accountId'], properties: { accountId: { type: 'string' } } },
        { type: 'object', required: ['issueId'], properties: { issueId: { type: 'integer' } } },
      ],
    },
  });
  const judge = (name: string, value: unknown) => schemaJudgement(document, `#/components/schemas/${name}`, value);

  it('an enum outside its own type: the value is not failed, the document is named; another field is still judged', () => {
    expect(judge('Level', { level: 1, count: 3 })).toEqual({
      problems: [],
      documentFaults: [
        expect.stringMatching(
          /^field "level": must be string, got 1 \(the document's schema there cannot be met by any server: its finding OAS-ENUM-TYPE\)$/,
        ) as unknown,
      ],
    });
    expect(judge('Level', { level: 1, count: 'three' }).problems).toEqual([
      'field "count": must be integer, got the string "three"',
    ]);
  });

  it("a oneOf a value matches twice over is the document's; one it matches not at all is the server's", () => {
    expect(judge('Settings', { settings: { email: true } })).toMatchObject({
      problems: [],
      documentFaults: [expect.stringContaining('OAS-ONEOF-DISTINCT') as unknown],
    });
    expect(judge('Settings', { settings: 'on' }).problems).toHaveLength(1);
    expect(judge('Settings', { settings: 'on' }).documentFaults).toEqual([]);
    // Branches a value can tell apart (each requires its own property): a value fitting both is the server's.
    const told = doc({
      Told: {
        type: 'object',
        properties: {
          either: {
            oneOf: [
              { type: 'object', required: ['a'], properties: { a: { type: 'integer' } } },
              { type: 'object', required: ['b'], properties: { b: { type: 'integer' } } },
            ],
          },
        },
      },
    });
    expect(schemaJudgement(told, '#/components/schemas/Told', { either: { a: 1, b: 2 } })).toMatchObject({
      problems: [expect.stringContaining('must match exactly one branch of its oneOf, matches 2') as unknown],
      documentFaults: [],
    });
  });

  it("a closed schema that forbids its own branches' properties", () => {
    const judged = judge('Variable', { type: 'user', accountId: 'a1' });
    expect(judged.problems).toEqual([]);
    expect(judged.documentFaults.join('\n')).toContain('OAS-CLOSED-SCHEMA');
  });
});

describe('RESOURCE-SCHEMA messages point at the cause (issue 29 item 7)', () => {
  const document = doc({
    Coupon: {
      type: 'object',
      required: ['id'],
      properties: { id: { type: 'string' }, percent_off: { type: 'number' } },
    },
    Discount: { type: 'object', properties: { coupon: { $ref: '#/components/schemas/Coupon' } } },
    Card: {
      type: 'object',
      required: ['type', 'number'],
      properties: { type: { const: 'card' }, number: { type: 'string' } },
    },
    Bank: {
      type: 'object',
      required: ['type', 'iban'],
      properties: { type: { const: 'bank' }, iban: { type: 'string' } },
    },
    Customer: {
      type: 'object',
      required: ['id'],
      properties: {
        id: { type: 'string' },
        address: {
          type: 'object',
          required: ['city', 'line1'],
          properties: { city: { type: 'string' }, line1: { type: 'string' } },
        },
      },
    },
    Order: {
      type: 'object',
      required: ['id'],
      properties: {
        id: { type: 'string' },
        discount: { $ref: '#/components/schemas/Discount', nullable: true },
        payment: {
          oneOf: [{ $ref: '#/components/schemas/Card' }, { $ref: '#/components/schemas/Bank' }],
          discriminator: { propertyName: 'type' },
        },
        source: { anyOf: [{ $ref: '#/components/schemas/Card' }, { $ref: '#/components/schemas/Bank' }] },
        either: {
          oneOf: [
            { type: 'object', properties: { a: { type: 'integer' } } },
            { type: 'object', properties: { b: { type: 'integer' } } },
          ],
        },
        // Stripe's expandable field: an id, or the object expanded.
        customer: { anyOf: [{ type: 'string', maxLength: 5000 }, { $ref: '#/components/schemas/Customer' }] },
      },
    },
  });
  const order = '#/components/schemas/Order';

  it('a failure inside a nullable wrapper is reported at its own path, never as "must be null"', () => {
    const lines = schemaProblems(document, order, { id: 'o1', discount: { coupon: { id: 'c', percent_off: 'x' } } });
    expect(lines).toEqual(['field "discount.coupon.percent_off": must be number, got the string "x"']);
  });

  it("an omission stays RESOURCE-FIELDS-PRESENT's, at the top and through a nullable wrapper", () => {
    expect(schemaProblems(document, order, { discount: { coupon: {} } })).toEqual([]);
  });

  it('a oneOf with a discriminator: its value, the branch it selects and why it fails', () => {
    const lines = schemaProblems(document, order, { id: 'o1', payment: { type: 'card', number: 4 } });
    expect(lines).toEqual([
      'field "payment.number": must be string, got 4 (payment matches none of the 2 branches of its oneOf; its type "card" selects #/components/schemas/Card)',
    ]);
    expect(schemaProblems(document, order, { id: 'o1', payment: { type: 'cash' } })).toEqual([
      'field "payment": its type "cash" names none of the 2 branches of its oneOf',
    ]);
  });

  it('an anyOf without one: the closest branch (fewest errors), with its omissions', () => {
    const lines = schemaProblems(document, order, { id: 'o1', source: { type: 'bank' } });
    expect(lines).toEqual([
      'field "source": must have required property iban (source matches none of the 2 branches of its anyOf; the closest is #/components/schemas/Bank)',
    ]);
  });

  it('an expanded object is judged by its object branch, not told it must be the id string beside it, though that branch has fewer errors', () => {
    const lines = schemaProblems(document, order, { id: 'o1', customer: { id: 'cus_1', address: { city: 5 } } });
    expect(lines.sort()).toEqual([
      'field "customer.address": must have required property line1 (customer matches none of the 2 branches of its anyOf; the closest is #/components/schemas/Customer)',
      'field "customer.address.city": must be string, got 5 (customer matches none of the 2 branches of its anyOf; the closest is #/components/schemas/Customer)',
    ]);
  });

  it("a oneOf that several branches match names them; where its branches cannot be told apart, it is the document's (issue 37 item 8)", () => {
    expect(schemaJudgement(document, order, { id: 'o1', either: { a: 1, b: 2 } })).toEqual({
      problems: [],
      documentFaults: [
        'field "either": must match exactly one branch of its oneOf, matches 2: #/components/schemas/Order/properties/either/oneOf/0, #/components/schemas/Order/properties/either/oneOf/1 (the document\'s schema there cannot be met by any server: its finding OAS-ONEOF-DISTINCT)',
      ],
    });
  });
});

describe("end to end: one endpoint's schema that cannot be compiled", () => {
  let target: ReferenceServer | undefined;
  afterEach(async () => {
    await target?.close();
    target = undefined;
  });

  it('is an error on that endpoint alone; a dialect pattern and nullable beside a $ref in 3.1 pass', {
    timeout: 60_000,
  }, async () => {
    target = await startReferenceServer({ tokenTtlSeconds: 60, generatedCollections: 3 });
    const document = generatedOpenApi(3) as {
      paths: Record<string, { get: { responses: Record<string, { content: Record<string, { schema: unknown }> }> } }>;
      components: { schemas: Record<string, Json> };
    };
    const item = document.components.schemas.Item as Json & { properties: Record<string, unknown> };
    const itemOf = (properties: Record<string, unknown>) => ({
      ...item,
      properties: { ...item.properties, ...properties },
    });
    // c001: `note` is null on every 5th item, a string else: nullable beside a $ref (Codat's 3.1).
    document.components.schemas.Note = { type: 'string' };
    document.components.schemas.NullableItem = itemOf({ note: { $ref: '#/components/schemas/Note', nullable: true } });
    // c002: a pattern no mode reads. c003: ids `c003-1`… under a pattern unicode mode rejects.
    document.components.schemas.BadItem = itemOf({ name: { type: 'string', pattern: '(c002' } });
    document.components.schemas.DialectItem = itemOf({ id: { type: 'string', pattern: '^c003\\-\\d+$' } });
    const use = (collection: string, schema: string) => {
      for (const [path, op] of Object.entries(document.paths)) {
        if (!path.includes(`/${collection}`)) continue;
        const media = op.get.responses['200']?.content['application/json'] as { schema: Json };
        media.schema = JSON.parse(
          JSON.stringify(media.schema).replace('#/components/schemas/Item', `#/components/schemas/${schema}`),
        ) as Json;
      }
    };
    use('c001', 'NullableItem');
    use('c002', 'BadItem');
    use('c003', 'DialectItem');
    const dir = await tempDir();
    const file = join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(document));
    process.env.CARRIER_CLIENT_SECRET = target.clientSecret;
    const result = await runMain([
      'run',
      '--base-url',
      target.url,
      '--client-id',
      target.clientId,
      '--openapi',
      file,
      ...WITHOUT_EXPIRY,
      '--reports-dir',
      dir,
    ]).finally(() => delete process.env.CARRIER_CLIENT_SECRET);
    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as RunReport;

    const schema = report.checks.find((c) => c.id === 'RESOURCE-SCHEMA');
    const outcome = Object.fromEntries((schema?.endpoints ?? []).map((e) => [e.endpoint, [e.status, e.message ?? '']]));
    const bad =
      /^cannot judge GET \/tenants\/\{tenantId\}\/c002(\/\{itemId\})?: its schema at #\/components\/schemas\/BadItem\/properties\/name cannot be compiled: pattern "\(c002" is not a regular expression: /;
    expect(outcome['GET /tenants/{tenantId}/c002']?.[0]).toBe('error');
    expect(outcome['GET /tenants/{tenantId}/c002']?.[1]).toMatch(bad);
    expect(outcome['GET /tenants/{tenantId}/c002/{itemId}']?.[0]).toBe('error');
    expect(outcome['GET /tenants/{tenantId}/c002/{itemId}']?.[1]).toMatch(bad);
    for (const c of ['c001', 'c003']) {
      expect(outcome[`GET /tenants/{tenantId}/${c}`], c).toEqual(['passed', expect.any(String)]);
      expect(outcome[`GET /tenants/{tenantId}/${c}/{itemId}`], c).toEqual(['passed', expect.any(String)]);
    }
    // Every other check judged c002 as ever: the schema is RESOURCE-SCHEMA's matter alone.
    const others = report.checks.filter((c) => c.id !== 'RESOURCE-SCHEMA' && c.status === 'error');
    expect(others.map((c) => `${c.id}: ${c.message ?? ''}`)).toEqual([]);
    expect(result.stderr).not.toMatch(/Invalid regular expression|harness error/);
  });
});
