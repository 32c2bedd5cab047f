import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lint } from '../src/lint/command.js';
import { endpointModel } from '../src/openapi/endpoint-model.js';
import type { Json } from '../src/openapi/pointer.js';
import { spectralFindings, type SpectralFinding } from './support/spectral.js';

/**
 * Where `lint` and the shipped Spectral ruleset parted on real documents (issue 37 item 10), each
 * case in a document of a few lines, and the tenant path by another name (issue 38 item 9):
 * - Xero's properties reached through circular `$ref`s: Spectral's resolver leaves a `$ref` where
 *   it meets a cycle, and the function took that `{$ref}` for a schema with no type, which admits
 *   null (OAS-NULL-REQUIRED where lint says OAS-NULLABLE);
 * - DigitalOcean's `$ref`s into another operation's schema (`#/paths/~1v2~1…{id}…/schema`):
 *   Spectral placed every finding reached that way at `paths` (line 1 of a minified document).
 * Spectral runs once, on all the documents (a few seconds).
 */

const ROOT = resolve(import.meta.dirname, '..');

const HEAD = `info: {title: agreement, version: '1'}
security: [{bearer: []}]
`;
const COMPONENTS = `components:
  securitySchemes:
    bearer: {type: http, scheme: bearer}
    token: {type: oauth2, flows: {clientCredentials: {tokenUrl: /uaa/oauth2/token, scopes: {}}}}
`;
/** One GET under the tenant, its tenant parameter named `tenant`, returning `schema` (YAML, indented for its place). */
const get = (
  path: string,
  tenant: string,
  id: string,
  schema: string,
): string => `  /tenants/{${tenant}}/${path}/{${id}}:
    parameters:
      - {name: ${tenant}, in: path, required: true, schema: {type: string, format: uuid}}
      - {name: ${id}, in: path, required: true, schema: {type: string}}
    get:
      parameters:
        - {name: Accept-Version, in: header, required: true, schema: {type: string}}
      responses:
        '200':
          description: One
          content:
            application/json:
              schema:
${schema}
        '400': {description: Bad request}
`;

const DOCUMENTS = {
  // Payment → Invoice → Payments[] → Payment: `Invoice` is optional and not nullable.
  'circular.yaml': `openapi: 3.0.3
${HEAD}paths:
${get('payments', 'tenantId', 'paymentId', "                $ref: '#/components/schemas/Payment'")}${COMPONENTS}  schemas:
    Payment:
      type: object
      required: [id]
      properties:
        id: {type: string}
        Invoice: {$ref: '#/components/schemas/Invoice'}
    Invoice:
      type: object
      required: [id, Payments]
      properties:
        id: {type: string}
        Payments: {type: array, items: {$ref: '#/components/schemas/Payment'}}
`,
  // A copy's `record` is the schema written in another operation's response.
  'into-paths.yaml': `openapi: 3.0.3
${HEAD}paths:
${get(
  'records',
  'tenantId',
  'recordId',
  `                type: object
                required: [id]
                properties:
                  id: {type: string}
                  port: {type: integer}`,
)}${get(
  'copies',
  'tenantId',
  'copyId',
  `                type: object
                required: [record]
                properties:
                  record: {$ref: '#/paths/~1tenants~1{tenantId}~1records~1{recordId}/get/responses/200/content/application~1json/schema'}`,
)}${COMPONENTS}`,
  // FastAPI's spelling of the tenant parameter; the second path's is not declared a UUID.
  'tenant-id.yaml': `openapi: 3.1.0
${HEAD}paths:
${get('parcels', 'tenant_id', 'parcel_id', '                {type: object, required: [id], properties: {id: {type: string}}}')}${get(
  'labels',
  'tenant_id',
  'label_id',
  '                {type: object, required: [id], properties: {id: {type: string}}}',
).replace(
  '{name: tenant_id, in: path, required: true, schema: {type: string, format: uuid}}',
  '{name: tenant_id, in: path, required: true, schema: {type: string}}',
)}${COMPONENTS}`,
  // The same cycle among the schemas of a second file: Spectral leaves that `$ref` relative to its own file.
  'cycle-api.yaml': `openapi: 3.0.3
${HEAD}paths:
${get('payments', 'tenantId', 'paymentId', "                $ref: './cycle-schemas.yaml#/Payment'")}${COMPONENTS}`,
  // Zoom's oneOf (no branch told apart), `{type: string, enum: [1, 2]}`, Jira's closed discriminated oneOf (issue 37 item 8).
  'unsatisfiable.yaml': `openapi: 3.0.3
info: {title: unsatisfiable, version: '1'}
security: [{bearer: []}]
paths:
  /tenants/{tenantId}/calls/{callId}:
    parameters:
      - {name: tenantId, in: path, required: true, schema: {type: string, format: uuid}}
      - {name: callId, in: path, required: true, schema: {type: string}}
    get:
      parameters:
        - {name: Accept-Version, in: header, required: true, schema: {type: string}}
      responses:
        '200':
          description: A call
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Call'}
        '400': {description: Bad request}
components:
  securitySchemes:
    bearer: {type: http, scheme: bearer}
    token: {type: oauth2, flows: {clientCredentials: {tokenUrl: /uaa/oauth2/token, scopes: {}}}}
  schemas:
    Call:
      type: object
      required: [id, direction, settings, variable]
      properties:
        id: {type: string}
        direction: {type: string, enum: [1, 2]}
        settings:
          oneOf:
            - properties:
                email_notification: {type: object, properties: {jbh_reminder: {type: boolean}}}
            - type: object
              properties:
                meeting_security: {type: object, properties: {waiting_room: {type: boolean}}}
        variable: {$ref: '#/components/schemas/ContextVariable'}
    ContextVariable:
      type: object
      additionalProperties: false
      required: [type]
      properties:
        type: {type: string}
      discriminator:
        propertyName: type
        mapping: {user: '#/components/schemas/UserVariable', issue: '#/components/schemas/IssueVariable', json: '#/components/schemas/JsonVariable'}
      oneOf:
        - {$ref: '#/components/schemas/UserVariable'}
        - {$ref: '#/components/schemas/IssueVariable'}
        - {$ref: '#/components/schemas/JsonVariable'}
    UserVariable:
      type: object
      required: [accountId, type]
      properties:
        accountId: {type: string}
        type: {type: string}
    IssueVariable:
      type: object
      required: [type]
      properties:
        id: {type: integer}
        key: {type: string}
        type: {type: string}
    JsonVariable:
      type: object
      required: [type]
      properties:
        type: {type: string}
        value: {type: object}
`,
} as const;

/** Files the documents `$ref`, not linted themselves. */
const SIDE_FILES = {
  'cycle-schemas.yaml': `Payment:
  type: object
  required: [id]
  properties:
    id: {type: string}
    Invoice: {$ref: '#/Invoice'}
Invoice:
  type: object
  required: [id, Payments, amount]
  properties:
    id: {type: string}
    note: {type: string}
    amount: {oneOf: [{type: integer}, {type: number}]}
    Payments: {type: array, items: {$ref: '#/Payment'}}
`,
};

let dir: string;
let theirs: SpectralFinding[];
const file = (name: keyof typeof DOCUMENTS): string => join(dir, name);
const key = (f: { rule: string; file: string; line?: number | undefined; pointer: string; message: string }): string =>
  `${f.rule} ${resolve(ROOT, f.file).slice(dir.length + 1)}:${f.line ?? '?'} ${f.pointer} ${f.message}`;
const distinct = (list: string[]): string[] => [...new Set(list)].sort();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lint-agreement-'));
  for (const [name, text] of Object.entries({ ...DOCUMENTS, ...SIDE_FILES })) await writeFile(join(dir, name), text);
  theirs = await spectralFindings(Object.keys(DOCUMENTS).map((name) => join(dir, name)));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Spectral's findings on one document, as `key` reads them. */
const spectralOn = (name: keyof typeof DOCUMENTS): string[] =>
  distinct(theirs.filter((f) => f.file === file(name)).map(key));

describe('lint and the Spectral ruleset agree', () => {
  it('on a property reached through a circular $ref: optional and not nullable (OAS-NULLABLE), at the properties object holding it', async () => {
    const ours = (await lint([file('circular.yaml')])).findings;
    expect(ours.map(key)).toEqual([
      'OAS-NULLABLE circular.yaml:28 /components/schemas/Payment/properties property "Invoice" is optional (not in required) but does not allow null: without data it is sent as null',
    ]);
    expect(spectralOn('circular.yaml')).toEqual(distinct(ours.map(key)));
  });

  it('on a cycle among the schemas of a second file: the same findings; those inside the schema the cycle closes on are placed by Spectral at the `$ref` that closes it (docs/design.md)', async () => {
    const ours = (await lint([file('cycle-api.yaml')])).findings;
    const placed = (f: { rule: string; file: string; line?: number | undefined; pointer: string }): string =>
      `${f.rule} ${resolve(ROOT, f.file).slice(dir.length + 1)}:${f.line ?? '?'} ${f.pointer}`;
    expect(ours.map(placed)).toEqual([
      'OAS-NULLABLE cycle-schemas.yaml:4 /Payment/properties',
      'OAS-NULLABLE cycle-schemas.yaml:12 /Invoice/properties/note',
      'OAS-ONEOF-DISTINCT cycle-schemas.yaml:13 /Invoice/properties/amount/oneOf',
    ]);
    const spectral = theirs.filter((f) => f.file.endsWith('cycle-schemas.yaml'));
    // The same rules and messages: the `$ref` is followed (before, "Invoice" allowed null, and nothing inside it was seen).
    expect(distinct(spectral.map((f) => `${f.rule} ${f.message}`))).toEqual(
      distinct(ours.map((f) => `${f.rule} ${f.message}`)),
    );
    // Spectral cannot name a place past a `$ref` its resolver left in another file (its ref map has no entry for it): the closest is that `$ref`.
    expect(distinct(spectral.map(placed))).toEqual([
      'OAS-NULLABLE cycle-schemas.yaml:4 /Payment/properties',
      'OAS-NULLABLE cycle-schemas.yaml:6 /Payment/properties/Invoice',
      'OAS-ONEOF-DISTINCT cycle-schemas.yaml:6 /Payment/properties/Invoice',
    ]);
  });

  it("on a schema reached through a $ref into another path's operation: where it is written, never at `paths`", async () => {
    const ours = (await lint([file('into-paths.yaml')])).findings;
    expect(ours.map(key)).toEqual([
      'OAS-NULLABLE into-paths.yaml:22 /paths/~1tenants~1{tenantId}~1records~1{recordId}/get/responses/200/content/application~1json/schema/properties/port property "port" is optional (not in required) but does not allow null: without data it is sent as null',
    ]);
    expect(spectralOn('into-paths.yaml')).toEqual(distinct(ours.map(key)));
    expect(theirs.filter((f) => f.pointer === '/paths')).toEqual([]);
  });
});

describe('schemas no server can satisfy (issue 37 item 8), found by both', () => {
  it('an enum outside its type, a oneOf no branch of which is told apart, a closed schema whose branches it forbids', async () => {
    const ours = (await lint([file('unsatisfiable.yaml')])).findings;
    expect(
      ours.filter((f) => !f.rule.startsWith('OAS-NULL')).map((f) => `${f.rule} ${f.line ?? '?'} ${f.pointer}`),
    ).toEqual([
      'OAS-ENUM-TYPE 29 /components/schemas/Call/properties/direction/enum',
      'OAS-ONEOF-DISTINCT 31 /components/schemas/Call/properties/settings/oneOf',
      'OAS-CLOSED-SCHEMA 40 /components/schemas/ContextVariable/additionalProperties',
      'OAS-ONEOF-DISTINCT 47 /components/schemas/ContextVariable/oneOf',
    ]);
    expect(spectralOn('unsatisfiable.yaml')).toEqual(distinct(ours.map(key)));
  });
});

describe('the tenant path by another name (issue 38 item 9): /tenants/{tenant_id}/…', () => {
  it('is the tenant path for lint, Spectral and the run alike; its parameter is the one OAS-TENANT-UUID judges', async () => {
    const ours = (await lint([file('tenant-id.yaml')])).findings;
    expect(ours.map(key)).toEqual([
      'OAS-TENANT-UUID tenant-id.yaml:22 /paths/~1tenants~1{tenant_id}~1labels~1{label_id}/parameters/0/schema GET /tenants/{tenant_id}/labels/{label_id}: tenant_id is not declared a string of format uuid',
    ]);
    expect(spectralOn('tenant-id.yaml')).toEqual(distinct(ours.map(key)));
    // The run takes both paths for tenant endpoints (src/openapi/endpoint-model.ts).
    const model = endpointModel(load(DOCUMENTS['tenant-id.yaml']) as Json);
    expect(model.endpoints.map((e) => e.path).sort()).toEqual(['labels/{label_id}', 'parcels/{parcel_id}']);
  });
});
