import { describe, expect, it } from 'vitest';
import { satisfiabilityFindings, type SchemaFinding } from '../src/lint/satisfiable.js';
import { isObject, resolve, type Json } from '../src/openapi/pointer.js';

/**
 * Response schemas no server can satisfy (issue 37 item 8, src/lint/satisfiable.ts): each rule on
 * the shapes real documents have (Zoom's indistinguishable oneOf, Jira's closed discriminated
 * oneOf, `{type: string, enum: [1, 2]}`), and, as many, the shapes it must leave alone: a finding
 * here says the document cannot be met, so one that is not certain is the worst defect.
 */

/** The findings on `schema`, its `$ref`s into `components.schemas` (`#/components/schemas/Name`). */
function findings(schema: Json, schemas: Record<string, unknown> = {}): SchemaFinding[] {
  const document = { components: { schemas } };
  return satisfiabilityFindings(schema, (v) => resolve(document, v, '').value);
}
const rules = (schema: Json, schemas?: Record<string, unknown>): string[] =>
  findings(schema, schemas).map((f) => `${f.rule} ${f.keyword}`);
const message = (schema: Json, schemas?: Record<string, unknown>): string =>
  findings(schema, schemas)
    .map((f) => f.message)
    .join(' | ');
const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });

describe('OAS-ENUM-TYPE: enum and const values outside their own type', () => {
  it('{type: string, enum: [1, 2]}: no value passes', () => {
    expect(findings({ type: 'string', enum: [1, 2] })).toEqual([
      {
        rule: 'OAS-ENUM-TYPE',
        keyword: 'enum',
        message: "enum 1, 2: no value is of the schema's type string, so no value passes this schema",
      },
    ]);
  });

  it('some values outside the type: those values break the schema; a const outside it: nothing passes', () => {
    expect(message({ type: 'string', enum: ['EU', 61] })).toBe(
      "enum value 61 is not of the schema's type string: a server that sends it breaks the schema",
    );
    expect(message({ type: 'array', items: { type: 'string' }, enum: ['EU', 'HK'] })).toMatch(
      /^enum "EU", "HK": no value is of the schema's type array/,
    );
    expect(message({ type: 'integer', const: '1' })).toBe(
      'const "1" is not of the schema\'s type integer: no value passes this schema',
    );
    // 3.0: null is outside `type: string` unless `nullable: true` says otherwise.
    expect(rules({ type: 'string', enum: ['TB', null] })).toEqual(['OAS-ENUM-TYPE enum']);
  });

  it('values of the type, integers of a number type, null where the type allows it, no type: no finding', () => {
    for (const schema of [
      { type: 'number', enum: [1, 2.5] },
      { type: 'integer', enum: [1, 2] },
      { type: 'string', nullable: true, enum: ['a', null] },
      { type: ['string', 'null'], enum: ['a', null] },
      { enum: [1, 'a', null] },
      { type: 'object', const: { a: 1 } },
      { type: 'string', enum: [] },
    ]) {
      expect(rules(schema), JSON.stringify(schema)).toEqual([]);
    }
  });
});

describe('OAS-ONEOF-DISTINCT: oneOf branches that cannot be told apart', () => {
  it("Zoom's settings: objects with no required property, each matching the other branch", () => {
    const schema = {
      oneOf: [
        { properties: { email_notification: { type: 'object', properties: { jbh_reminder: { type: 'boolean' } } } } },
        {
          type: 'object',
          properties: { meeting_security: { type: 'object', properties: { waiting_room: { type: 'boolean' } } } },
        },
      ],
      type: 'object',
    };
    expect(findings(schema)).toEqual([
      {
        rule: 'OAS-ONEOF-DISTINCT',
        keyword: 'oneOf',
        message:
          'no value its branches describe passes this oneOf (exactly one branch must match): an object of oneOf/0 matches oneOf/1 too; an object of oneOf/1 matches oneOf/0 too',
      },
    ]);
  });

  it('a branch whose objects match another (what it requires, the other requires less of, alike): only that branch', () => {
    const schemas = {
      NullTransport: {
        type: 'object',
        required: ['type'],
        properties: { type: { type: 'string' }, dummy: { type: 'string' } },
      },
      SftpTransport: {
        type: 'object',
        required: ['type', 'host'],
        properties: { type: { type: 'string', description: 'the kind' }, host: { type: 'string' } },
      },
    };
    expect(message({ oneOf: [ref('SftpTransport'), ref('NullTransport')] }, schemas)).toBe(
      'an object of oneOf/0 matches oneOf/1 too: this oneOf rejects those values (exactly one branch must match)',
    );
  });

  it('scalars: every integer is a number; the same schema twice', () => {
    expect(message({ oneOf: [{ type: 'string' }, { type: 'integer' }, { type: 'number' }] })).toBe(
      'a value of oneOf/1 matches oneOf/2 too: this oneOf rejects those values (exactly one branch must match)',
    );
    expect(
      rules(
        { oneOf: [ref('A'), ref('A')] },
        { A: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } },
      ),
    ).toEqual(['OAS-ONEOF-DISTINCT oneOf']);
    expect(rules({ oneOf: [{ type: 'string' }, { type: 'string', enum: [''] }] })).toEqual([
      'OAS-ONEOF-DISTINCT oneOf',
    ]);
    // A branch that asserts nothing matches every value of the others (and what it describes is not known: it is not judged itself).
    expect(message({ oneOf: [{ description: 'anything' }, { type: 'object', required: ['a'] }] })).toBe(
      'an object of oneOf/1 matches oneOf/0 too: this oneOf rejects those values (exactly one branch must match)',
    );
  });

  it('branches a required property, a const, an enum, a type or a closed object tells apart: no finding', () => {
    for (const oneOf of [
      [
        { type: 'object', required: ['meow'], properties: { meow: { type: 'boolean' } } },
        { type: 'object', required: ['bark'], properties: { bark: { type: 'boolean' } } },
      ],
      [
        { type: 'object', required: ['kind'], properties: { kind: { const: 'road' } } },
        {
          type: 'object',
          required: ['kind', 'depot'],
          properties: { kind: { const: 'depot' }, depot: { type: 'string' } },
        },
      ],
      [
        { type: 'object', properties: { kind: { type: 'string', enum: ['a'] } }, required: ['kind'] },
        { type: 'object', properties: { kind: { type: 'string', enum: ['b'] } }, required: ['kind'] },
      ],
      [{ type: 'string' }, { type: 'null' }],
      [{ type: 'integer' }, { type: 'boolean' }],
      [
        { type: 'object', additionalProperties: false, properties: { a: { type: 'string' } } },
        { type: 'object', required: ['b'], properties: { b: { type: 'string' } } },
      ],
      [
        { type: 'array', items: { type: 'string' } },
        { type: 'array', items: { type: 'integer' } },
      ],
      // Formats are assertions to some validators: not taken for the same.
      [
        { type: 'string', format: 'date' },
        { type: 'string', format: 'date-time' },
      ],
      // A property typed differently in each: an object of one does not match the other.
      [
        { type: 'object', properties: { id: { type: 'string' } } },
        { type: 'object', properties: { id: { type: 'integer' } } },
      ],
      // What a branch's allOf adds is not understood here: not judged.
      [
        { allOf: [{ type: 'object', required: ['a'], properties: { a: { type: 'string' } } }] },
        { type: 'object', properties: { b: { type: 'string' } } },
      ],
    ]) {
      expect(rules({ oneOf }), JSON.stringify(oneOf)).toEqual([]);
    }
  });
});

describe('OAS-CLOSED-SCHEMA: additionalProperties: false against what its schema and branches require or declare', () => {
  // Jira's CustomContextVariable, as published.
  const schemas = {
    UserContextVariable: {
      type: 'object',
      required: ['accountId', 'type'],
      properties: { accountId: { type: 'string' }, type: { type: 'string' } },
    },
    IssueContextVariable: {
      type: 'object',
      required: ['type'],
      properties: { id: { type: 'integer', format: 'int64' }, key: { type: 'string' }, type: { type: 'string' } },
    },
    JsonContextVariable: {
      type: 'object',
      required: ['type'],
      properties: { type: { type: 'string' }, value: { type: 'object' } },
    },
  };
  const jira = {
    additionalProperties: false,
    discriminator: {
      propertyName: 'type',
      mapping: {
        user: '#/components/schemas/UserContextVariable',
        issue: '#/components/schemas/IssueContextVariable',
        json: '#/components/schemas/JsonContextVariable',
      },
    },
    oneOf: [ref('UserContextVariable'), ref('IssueContextVariable'), ref('JsonContextVariable')],
    properties: { type: { description: 'Type of custom context variable.', type: 'string' } },
    required: ['type'],
    type: 'object',
  };

  it("Jira's discriminated oneOf: the user branch matches no object; issue and json, left with `type` alone, match each other", () => {
    expect(findings(jira, schemas)).toEqual([
      {
        rule: 'OAS-CLOSED-SCHEMA',
        keyword: 'additionalProperties',
        message:
          'additionalProperties: false allows only the names in this schema\'s own properties ("type"): oneOf/0 requires "accountId", so no object matches it; oneOf/1 declares "id", "key", which no object may carry; oneOf/2 declares "value", which no object may carry',
      },
      {
        rule: 'OAS-ONEOF-DISTINCT',
        keyword: 'oneOf',
        message:
          'no value its branches describe passes this oneOf (exactly one branch must match): an object of oneOf/1 matches oneOf/2 too; an object of oneOf/2 matches oneOf/1 too; the discriminator "type" does not tell them apart for validation (OAS 3.1 §4.8.25): give each branch\'s "type" a const',
      },
    ]);
  });

  it('every branch, or an allOf member, requiring what it forbids; the schema requiring it itself: no object passes', () => {
    expect(
      message({
        type: 'object',
        additionalProperties: false,
        oneOf: [{ required: ['nodeType'] }, { required: ['conditions'] }],
      }),
    ).toBe(
      'additionalProperties: false allows no property (this schema\'s own properties declares none): oneOf/0 requires "nodeType", so no object matches it; oneOf/1 requires "conditions", so no object matches it: no object passes this schema',
    );
    expect(
      message(
        { type: 'object', additionalProperties: false, allOf: [ref('Base')] },
        { Base: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } },
      ),
    ).toMatch(/allOf\/0 requires "id", so no object matches it: no object passes this schema$/);
    expect(
      message({
        type: 'object',
        additionalProperties: false,
        required: ['defaultScreen'],
        properties: { default: { type: 'string' } },
      }),
    ).toMatch(/it requires "defaultScreen", which it forbids: no object passes this schema$/);
  });

  it('branches within the properties written beside it, patternProperties, or no additionalProperties: false: no finding', () => {
    for (const schema of [
      {
        type: 'object',
        additionalProperties: false,
        properties: { kind: { type: 'string' }, a: { type: 'string' } },
        oneOf: [{ required: ['kind', 'a'] }, { required: ['kind'], properties: { kind: { const: 'b' } } }],
      },
      { type: 'object', additionalProperties: false, patternProperties: { '^x-': {} }, allOf: [{ required: ['x-a'] }] },
      {
        type: 'object',
        additionalProperties: true,
        allOf: [{ required: ['a'], properties: { a: { type: 'string' } } }],
      },
      {
        type: 'object',
        unevaluatedProperties: false,
        allOf: [{ required: ['a'], properties: { a: { type: 'string' } } }],
      },
    ]) {
      expect(
        rules(schema).filter((r) => r.startsWith('OAS-CLOSED')),
        JSON.stringify(schema),
      ).toEqual([]);
    }
  });
});

describe('cycles and depth', () => {
  it('a recursive schema in both branches is decided without looping; not certain means no finding', () => {
    const schemas = {
      Node: { type: 'object', required: ['children'], properties: { children: { type: 'array', items: ref('Node') } } },
      Other: {
        type: 'object',
        required: ['children'],
        properties: { children: { type: 'array', items: ref('Other') } },
      },
    };
    const result = findings({ oneOf: [ref('Node'), ref('Other')] }, schemas);
    expect(result.every((f) => isObject(f))).toBe(true);
    expect(result).toEqual([]);
  });
});
