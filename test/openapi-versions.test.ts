/**
 * Every version real documents come in (issue 37 item 9): Swagger 2.0 (converted to 3.0 in
 * memory, src/openapi/swagger2.ts) and OpenAPI 3.2 (src/openapi/oas32.ts, self.ts) are read by
 * `run --openapi` and by `lint` as 3.0 and 3.1 are, within the same confinement and limits. The
 * runs against the document mock are the construct corpus's (test/fixtures/openapi/corpus/cases.ts:
 * CONFORMANT, and a faulty twin caught); here, what the harness reads of each, where `lint` puts
 * what it finds, hostile documents of both versions, and the public Swagger 2.0 documents of
 * @readme/oas-examples.
 */
import { readdirSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lint } from '../src/lint/command.js';
import { endpointModel } from '../src/openapi/endpoint-model.js';
import { loadOpenApi } from '../src/openapi/load.js';
import { fromSwagger2 } from '../src/openapi/swagger2.js';
import { OAS_3_2, SWAGGER_2 } from './fixtures/openapi/corpus/cases.js';
import { reRoot } from './support/document-mock.js';
import { runMain, tempDir, usageError } from './support/harness.js';

type Json = Record<string, unknown>;
const ROOT = resolve(import.meta.dirname, '..');
const require = createRequire(import.meta.url);

async function write(files: Record<string, string>): Promise<string> {
  const dir = await tempDir('carrier-versions-');
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  return dir;
}

describe('what run --openapi reads of a Swagger 2.0 document', () => {
  it('every operation, the GETs under the tenant as endpoints: a paged list with its required enum filled, the resource by id, a CSV-only one not judged', async () => {
    const dir = await write({ 'swagger.json': JSON.stringify(SWAGGER_2) });
    const api = await loadOpenApi(join(dir, 'swagger.json'));
    expect(api.operations).toBe(4);
    expect(api.endpoints).toEqual([
      {
        path: 'parcels',
        kind: 'list',
        listBy: 'paging',
        source: 'openapi: listParcels',
        schema: '#/paths/~1tenants~1{tenantId}~1parcels/get/responses/200/content/application~1json/schema/items',
        query: [{ name: 'carrier', value: 'dhl', from: 'enum' }],
        asSingle: {
          schema: '#/paths/~1tenants~1{tenantId}~1parcels/get/responses/200/content/application~1json/schema',
        },
      },
      {
        path: 'parcels/{parcelId}',
        kind: 'single',
        source: 'openapi: getParcel',
        schema: '#/paths/~1tenants~1{tenantId}~1parcels~1{parcelId}/get/responses/200/content/application~1json/schema',
      },
      {
        path: 'manifest',
        kind: 'single',
        source: 'openapi: getManifest',
        schemaGap: 'its 200 response declares no JSON body (text/csv)',
      },
    ]);
    // x-nullable is 3.0's nullable, the boolean exclusiveMinimum 2020-12's number (json-schema.ts).
    const parcel = ((api.document?.components as Json).schemas as Json).Parcel as { properties: Record<string, Json> };
    expect(parcel.properties.note).toEqual({ type: ['string', 'null'] });
    expect(parcel.properties.weight).toEqual({ type: 'number', exclusiveMinimum: 0 });
  });

  it("a $ref into a moved part of the paths (json-schema-ref-parser writes those for a file $ref'd twice) is rewritten to where it went", () => {
    const swagger = {
      swagger: '2.0',
      info: { title: 'x', version: '1' },
      produces: ['application/json', 'application/xml'],
      paths: {
        '/tenants/{tenantId}/a': {
          get: {
            parameters: [
              { name: 'body', in: 'body', schema: { type: 'object' } },
              { name: 'q', in: 'query', type: 'array', items: { type: 'string' }, collectionFormat: 'multi' },
            ],
            responses: {
              '200': {
                description: 'ok',
                schema: { type: 'object', properties: { id: { type: 'string' } } },
                headers: { 'Total-Pages': { type: 'integer' } },
              },
            },
          },
        },
        '/tenants/{tenantId}/b': {
          get: {
            parameters: [{ $ref: '#/paths/~1tenants~1{tenantId}~1a/get/parameters/1' }],
            responses: {
              '200': {
                description: 'ok',
                schema: { $ref: '#/paths/~1tenants~1{tenantId}~1a/get/responses/200/schema/properties/id' },
              },
            },
          },
        },
      },
    };
    const { document, toSource } = fromSwagger2(swagger);
    const b = ((document.paths as Json)['/tenants/{tenantId}/b'] as Json).get as Json;
    expect(b.parameters).toEqual([{ $ref: '#/paths/~1tenants~1{tenantId}~1a/get/parameters/0' }]);
    expect(b.responses).toEqual({
      '200': {
        description: 'ok',
        content: {
          'application/json': {
            schema: {
              $ref: '#/paths/~1tenants~1{tenantId}~1a/get/responses/200/content/application~1json/schema/properties/id',
            },
          },
          'application/xml': {
            schema: {
              $ref: '#/paths/~1tenants~1{tenantId}~1a/get/responses/200/content/application~1json/schema/properties/id',
            },
          },
        },
      },
    });
    const a = ((document.paths as Json)['/tenants/{tenantId}/a'] as Json).get as Json;
    expect(a.parameters).toEqual([
      { name: 'q', in: 'query', schema: { type: 'array', items: { type: 'string' } }, style: 'form', explode: true },
    ]);
    expect(a.requestBody).toEqual({ content: { 'application/json': { schema: { type: 'object' } } } });
    // And back: each place of the 3.0 form where the 2.0 document wrote it.
    expect(toSource('#/paths/~1tenants~1{tenantId}~1a/get/parameters/0/schema/items')).toEqual({
      pointer: '#/paths/~1tenants~1{tenantId}~1a/get/parameters/1/items',
      exact: true,
    });
    expect(
      toSource('#/paths/~1tenants~1{tenantId}~1a/get/responses/200/content/application~1xml/schema/properties/id'),
    ).toEqual({ pointer: '#/paths/~1tenants~1{tenantId}~1a/get/responses/200/schema/properties/id', exact: true });
    expect(toSource('#/paths/~1tenants~1{tenantId}~1a/get/responses/200/headers/Total-Pages/schema')).toEqual({
      pointer: '#/paths/~1tenants~1{tenantId}~1a/get/responses/200/headers/Total-Pages',
      exact: true,
    });
    expect(toSource('#/paths/~1tenants~1{tenantId}~1a/get/requestBody/content/application~1json/schema')).toEqual({
      pointer: '#/paths/~1tenants~1{tenantId}~1a/get/parameters/0/schema',
      exact: true,
    });
    // A place the conversion made: the closest the 2.0 document has, said not to be exact.
    expect(toSource('#/servers/0')).toEqual({ pointer: '#', exact: false });
  });
  it('a name is not a keyword: a property named default, a default response, an example property are rewritten; an example value is left as data', () => {
    const swagger = {
      swagger: '2.0',
      info: { title: 'x', version: '1' },
      paths: {
        '/tenants/{tenantId}/a': {
          get: {
            responses: {
              default: { $ref: '#/responses/Error' },
              '200': { description: 'ok', schema: { $ref: '#/definitions/Flags' } },
            },
          },
        },
      },
      responses: { Error: { description: 'error', schema: { $ref: '#/definitions/Flag' } } },
      definitions: {
        Flag: { type: 'string' },
        Flags: {
          type: 'object',
          properties: { default: { $ref: '#/definitions/Flag' }, example: { $ref: '#/definitions/Flag' } },
          example: { default: { $ref: '#/definitions/Flag' } },
        },
      },
    };
    const { document } = fromSwagger2(swagger);
    const flag = { $ref: '#/components/schemas/Flag' };
    const schemas = (document.components as { schemas: Json }).schemas;
    expect(schemas.Flags).toEqual({
      type: 'object',
      properties: { default: flag, example: flag },
      example: { default: { $ref: '#/definitions/Flag' } },
    });
    expect(
      ((document.paths as Json)['/tenants/{tenantId}/a'] as { get: { responses: Json } }).get.responses.default,
    ).toEqual({ $ref: '#/components/responses/Error' });
    expect((document.components as { responses: Json }).responses.Error).toEqual({
      description: 'error',
      content: { 'application/json': { schema: flag } },
    });
  });
});

describe('what run --openapi reads of an OpenAPI 3.2 document', () => {
  it('counts query and additionalOperations as operations; fills the form querystring field by field, the JSON one from its serializedValue; a stream is not judged', async () => {
    const dir = await write({ 'openapi.json': JSON.stringify(OAS_3_2) });
    const api = await loadOpenApi(join(dir, 'openapi.json'));
    expect(api.operations).toBe(6);
    const byPath = Object.fromEntries(api.endpoints.map((e) => [e.path, e]));
    expect(byPath.shipments).toMatchObject({
      kind: 'list',
      listBy: 'paging',
      query: [{ name: 'status', value: 'open', from: 'enum' }],
    });
    expect(byPath.reports).toMatchObject({
      kind: 'single',
      query: [{ name: 'criteria', value: '%7B%22from%22%3A%222026-01-01%22%7D', from: 'example', whole: true }],
    });
    expect(byPath.events).toMatchObject({
      kind: 'single',
      schemaGap: 'its 200 response is a stream (application/jsonl, itemSchema), whose items the harness does not judge',
    });
    expect(Object.keys(byPath).sort()).toEqual(['events', 'reports', 'shipments', 'shipments/{shipmentId}']);
  });

  it('a required JSON querystring without a serializedValue skips its endpoint, saying that --parameter gives the whole query string', () => {
    const doc = structuredClone(OAS_3_2) as {
      paths: Record<string, { get: { parameters: { content: Record<string, Json> }[] } }>;
    };
    delete doc.paths['/tenants/{tenantId}/reports']?.get.parameters[0]?.content['application/json']?.examples;
    const reports = endpointModel(doc as unknown as Json).endpoints.find((e) => e.path === 'reports');
    expect(reports?.query).toEqual([
      {
        name: 'criteria',
        whole: true,
        problem: expect.stringMatching(
          /^required querystring parameter criteria is the whole query string as application\/json, .*--parameter gives is sent as the whole query string/,
        ) as unknown,
      },
    ]);
  });

  it("$self: a $ref is read where $self makes it lead, its URL folder standing for the document's", async () => {
    const spec = (self: string, ref: string): string =>
      JSON.stringify({
        ...OAS_3_2,
        $self: self,
        components: {
          ...(OAS_3_2.components as Json),
          schemas: { ...((OAS_3_2.components as Json).schemas as Json), Shipment: { $ref: ref } },
        },
      });
    const shipment = JSON.stringify({
      Shipment: { type: 'object', required: ['id'], properties: { id: { type: 'string' }, from: { const: 'v2' } } },
    });
    // Relative: the document says it is v2/openapi.json, beside its schemas.
    const dir = await write({
      'openapi.json': spec('v2/openapi.json', 'schemas.json#/Shipment'),
      'v2/schemas.json': shipment,
      'schemas.json': '{}',
    });
    const relative = await loadOpenApi(join(dir, 'openapi.json'));
    expect(JSON.stringify(relative.document)).toContain('"const":"v2"');
    // A URL: its folder is the document's; a $ref to $self itself is one into this document.
    const url = await write({
      'openapi.json': spec(
        'https://api.example.com/carrier/openapi.json',
        'https://api.example.com/carrier/v2/schemas.json#/Shipment',
      ),
      'v2/schemas.json': shipment,
    });
    expect(JSON.stringify((await loadOpenApi(join(url, 'openapi.json'))).document)).toContain('"const":"v2"');
    const self = await write({
      'openapi.json': spec('https://api.example.com/carrier/openapi.json', 'openapi.json#/components/schemas/Report'),
    });
    expect(
      ((await loadOpenApi(join(self, 'openapi.json'))).document?.components as { schemas: Json }).schemas.Shipment,
    ).toEqual({ $ref: '#/components/schemas/Report' });
  });
});

describe('hostile Swagger 2.0 and OpenAPI 3.2 documents: refused as the confined reader refuses 3.0 and 3.1 ones', () => {
  const swagger = (ref: string): string =>
    JSON.stringify({
      swagger: '2.0',
      info: { title: 'x', version: '1' },
      paths: {
        '/tenants/{tenantId}/a': { get: { responses: { '200': { description: 'ok', schema: { $ref: ref } } } } },
      },
    });
  const oas32 = (self: string, ref: string): string =>
    JSON.stringify({
      openapi: '3.2.0',
      $self: self,
      info: { title: 'x', version: '1' },
      paths: {
        '/tenants/{tenantId}/a': {
          get: {
            responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: ref } } } } },
          },
        },
      },
    });
  it.each([
    [
      '2.0, a $ref outside the folder',
      swagger('../../../../../../etc/passwd'),
      /\$ref "\.\.\/\.\.\/\.\.\/\.\.\/\.\.\/\.\.\/etc\/passwd" is refused: it leads outside /,
    ],
    [
      '2.0, a URL $ref',
      swagger('https://evil.example/schema.json'),
      /\$ref "https:\/\/evil\.example\/schema\.json" is refused: it is a URL, and remote \$refs are never fetched/,
    ],
    [
      '3.2, a file: $self elsewhere',
      oas32('file:///etc/openapi.json', 'passwd'),
      /\$ref "(\.\.\/)+etc\/passwd" is refused: it leads outside /,
    ],
    [
      '3.2, a relative $self above the folder',
      oas32('../../../../../../../../etc/openapi.json', 'passwd'),
      /\$ref "(\.\.\/)+etc\/passwd" is refused: it leads outside /,
    ],
    [
      '3.2, a URL $self and a $ref out of its folder',
      oas32('https://evil.example/a/b/openapi.json', '../../../../secret.json'),
      /\$ref "\.\.\/\.\.\/secret\.json" is refused: it leads outside /,
    ],
    [
      '3.2, a URL $ref under a URL $self',
      oas32('https://api.example.com/openapi.json', 'https://evil.example/schema.json'),
      /\$ref "https:\/\/evil\.example\/schema\.json" is refused: it is a URL/,
    ],
    [
      '3.2, a $self no relative reference resolves against',
      oas32('urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66', 'schema.json'),
      /\$ref "schema\.json" cannot be resolved against \$self "urn:uuid:/,
    ],
  ])('%s: run (exit 2, one line) and lint (exit 2)', async (_what, text, message) => {
    const dir = await write({ 'api.json': text });
    const file = join(dir, 'api.json');
    expect(await usageError(loadOpenApi(file))).toMatch(message);
    const linted = await runMain(['lint', file]);
    expect(linted.code).toBe(2);
    expect(linted.stderr.trim().split('\n')).toHaveLength(1);
    expect(linted.stderr).toMatch(message);
  });

  it('a version neither reads: exit 2, naming the versions that are read', async () => {
    const dir = await write({
      'api.json': JSON.stringify({ openapi: '4.0.0', info: { title: 'x', version: '1' }, paths: {} }),
    });
    expect(await usageError(loadOpenApi(join(dir, 'api.json')))).toMatch(
      /OpenAPI 4\.0\.0 is not supported; give a Swagger 2\.0 or an OpenAPI 3\.0, 3\.1 or 3\.2 document$/,
    );
  });
});

/** The rule, and the file (under the fixtures' folder), line and pointer. */
const LINT = join(ROOT, 'test/fixtures/lint/versions');
const key = (f: { rule: string; file: string; line?: number | undefined; pointer: string }): string =>
  `${f.rule} ${resolve(ROOT, f.file).slice(LINT.length + 1)}:${f.line ?? '?'} ${f.pointer}`;

describe('lint reads Swagger 2.0: each finding where the 2.0 document wrote it', () => {
  it("in the document and in its $ref'd file, at 2.0's own pointers (a parameter's type, an OAuth flow's tokenUrl, a response's schema)", async () => {
    const report = await lint([join(LINT, 'swagger-2.0.yaml')]);
    const op = '/paths/~1tenants~1{tenantId}~1parcels';
    expect(report.findings.map(key).sort()).toEqual(
      [
        'OAS-NULL-REQUIRED definitions.yaml:6 /Parcel/properties/note',
        'OAS-NULLABLE definitions.yaml:7 /Parcel/properties/weight',
        `OAS-PAGE-HEADERS swagger-2.0.yaml:20 ${op}/get/responses/200`,
        `OAS-PAGE-PARAMS swagger-2.0.yaml:15 ${op}/get`,
        // The 2.0 parameter holds its own type: the finding is at the parameter, once for the GET and POST that share it.
        `OAS-TENANT-UUID swagger-2.0.yaml:14 ${op}/parameters/0`,
        'OAS-TOKEN-ENDPOINT swagger-2.0.yaml:8 /securityDefinitions/oauth/tokenUrl',
        `OAS-VERSION-HEADER swagger-2.0.yaml:18 ${op}/get/parameters/1`,
        // The POST's header is its second parameter in 2.0, its first in 3.0 (the body went to requestBody).
        `OAS-VERSION-HEADER swagger-2.0.yaml:29 ${op}/post/parameters/1`,
        `OAS-VERSION-400 swagger-2.0.yaml:30 ${op}/post/responses`,
      ].sort(),
    );
    expect(report.findings.every((f) => !f.message.includes('closest place'))).toBe(true);
  });
});

describe('lint reads OpenAPI 3.2 (the Spectral ruleset finds the same: test/lint.test.ts, whose corpus has this document)', () => {
  it("the query operation and additionalOperations are operations; a form querystring's page and size are query parameters; a stream is not judged", async () => {
    const report = await lint([join(LINT, 'openapi-3.2.yaml')]);
    const item = '/paths/~1tenants~1{tenantId}~1parcels';
    expect(report.findings.map(key).sort()).toEqual(
      [
        'OAS-NULL-REQUIRED schemas-3.2.yaml:6 /Parcel/properties/note',
        `OAS-PAGE-HEADERS openapi-3.2.yaml:22 ${item}/get/responses/200`,
        `OAS-VERSION-400 openapi-3.2.yaml:29 ${item}/query/responses`,
        `OAS-VERSION-HEADER openapi-3.2.yaml:38 ${item}/additionalOperations/LINK/parameters/0`,
      ].sort(),
    );
  });
});

describe("@readme/oas-examples' Swagger 2.0 documents, as their authors published them", () => {
  const EXAMPLES = dirname(require.resolve('@readme/oas-examples/2.0/json/petstore.json'));
  const files = readdirSync(EXAMPLES).filter((f) => f.endsWith('.json'));

  it.each(files)(
    '%s: re-rooted under /tenants/{tenantId}/, every GET is an endpoint; lint reads it as published, every finding at a line of the file',
    async (name) => {
      const text = await readFile(join(EXAMPLES, name), 'utf8');
      const raw = JSON.parse(text) as Json;
      const dir = await write({ [name]: text, [`tenant-${name}`]: JSON.stringify(reRoot(raw), null, 2) });
      const gets = Object.values(raw.paths as Record<string, Json>).filter((item) => 'get' in item).length;
      if (gets > 0) expect((await loadOpenApi(join(dir, `tenant-${name}`))).endpoints).toHaveLength(gets);
      else
        expect(await usageError(loadOpenApi(join(dir, `tenant-${name}`)))).toMatch(
          /no GET operation under \/tenants\/\{tenantId\}\//,
        );
      const report = await lint([join(dir, name)]);
      expect(report.findings.length).toBeGreaterThan(0);
      for (const f of report.findings) {
        expect(f.line, `${f.rule} ${f.pointer}`).toBeGreaterThan(0);
        expect(f.message).not.toMatch(/closest place/);
      }
    },
  );
});
