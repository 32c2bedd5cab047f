// Validators compiled ahead of the battery (src/carrier/standalone.ts) must find exactly what
// validators compiled at run time find: the same errors (path, keyword, parameters, message) for
// the same values, for the harness's own schemas and for an OpenAPI document's.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import type { Ajv as AjvClass, ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import type { EndpointSpec } from '../src/carrier/endpoint-specs.js';
import {
  COMPILED_SCHEMAS_FILE,
  OWN_SCHEMAS,
  OWN_SCHEMA_OPTIONS,
  compileOwnSchemas,
  loadBuiltValidators,
} from '../src/carrier/schemas.js';
import { evaluate } from '../src/carrier/standalone.js';
import { loadOpenApiInThread } from '../src/runner/document-thread.js';
import { canonicalPointer, documentAjv, precompileDocument, schemaAt } from '../src/openapi/document-ajv.js';
import { loadOpenApi } from '../src/openapi/load.js';
import { REFERENCE_OPENAPI_FILE } from '../src/reference/seeded.js';

const FIXTURE_3_0 = new URL('./fixtures/openapi/api-3.0.yaml', import.meta.url).pathname;

/** What a validator says of a value: valid, or its errors as a report reads them. */
function verdict(validate: ValidateFunction, value: unknown): unknown {
  const valid = validate(value);
  return {
    valid,
    errors: (validate.errors ?? []).map(({ instancePath, keyword, params, message }) => ({
      instancePath,
      keyword,
      params,
      message,
    })),
  };
}

/** Values that break schemas in many ways: wrong types, nulls, "", missing and extra fields, nested arrays. */
const PROBES: unknown[] = [
  null,
  '',
  42,
  [],
  {},
  {
    id: 'not-a-uuid',
    name: 7,
    email: null,
    tenants: [{ id: '5e0c3b8a-1f2d-4a6b-8c9d-0e1f2a3b4c5d', name: null }, { id: 3 }],
  },
  { access_token: '', token_type: 'bearer', expires_in: 0 },
  { access_token: 'x', token_type: 'bearer', expires_in: 1.5 },
  { error: 'invalid"client', error_description: 'a\\b', error_uri: 1 },
  { error: 'invalid_client' },
  {
    id: 'SHP-1',
    reference: null,
    carrier: 'UPS',
    status: 'lost',
    weightKg: '3',
    deliveredAt: '',
    createdAt: null,
    extra: true,
  },
  {
    id: '9319db14-b2dc-48bc-b478-000000000191',
    reference: 'SHP-1',
    status: 'delivered',
    lines: [{ amount: 'x' }, null],
  },
  { amount: -1, currency: 'EUR', lines: [{}, { amount: 1 }], dueDate: 5, note: null, paidAt: false },
];

describe('precompiled validators (src/carrier/standalone.ts)', () => {
  it("judge the harness's own schemas as runtime-compiled ones do", () => {
    const { Ajv } = createRequire(import.meta.url)('ajv') as { Ajv: typeof AjvClass };
    const precompiled = evaluate(compileOwnSchemas().validators);
    expect([...precompiled.keys()]).toEqual(OWN_SCHEMAS.map((s) => s.$id));
    for (const schema of OWN_SCHEMAS) {
      const runtime = new Ajv(OWN_SCHEMA_OPTIONS).compile(schema);
      for (const value of PROBES)
        expect(verdict(precompiled.get(schema.$id) as ValidateFunction, value)).toEqual(verdict(runtime, value));
    }
  });

  it('the build wrote them, and a schema changed since is compiled at run time instead', async () => {
    // `npm test` builds first: dist/src/carrier/schema-validators.json is what the CLI's battery loads.
    const built = loadBuiltValidators(new URL('../dist/src/carrier/schema-validators.json', import.meta.url));
    expect([...built.keys()].sort()).toEqual(OWN_SCHEMAS.map((s) => s.$id).sort());
    // From the sources there is no such file beside schemas.ts: every schema is compiled at run time.
    expect(loadBuiltValidators(COMPILED_SCHEMAS_FILE).size).toBe(0);
    const stale = join(await mkdtemp(join(tmpdir(), 'carrier-standalone-')), 'schema-validators.json');
    const { validators, schemas } = compileOwnSchemas();
    await writeFile(
      stale,
      JSON.stringify({ validators, schemas: { ...schemas, User: '{"$id":"User","type":"string"}' } }),
    );
    expect([...loadBuiltValidators(pathToFileURL(stale)).keys()].sort()).toEqual(['AccessTokenResponse', 'OAuthError']);
  });

  for (const [name, file] of [
    ['the reference API (OpenAPI 3.1)', REFERENCE_OPENAPI_FILE],
    ['a 3.0 document with components in another file', FIXTURE_3_0],
  ] as const) {
    it(`judge ${name} as runtime-compiled ones do, for every endpoint's schema`, async () => {
      const { document, endpoints } = await loadOpenApi(file);
      if (!document) throw new Error('no document');
      const pointers = endpoints.flatMap((e: EndpointSpec) => (e.schema === undefined ? [] : [e.schema]));
      expect(pointers.length).toBeGreaterThan(0);
      const precompiled = evaluate(precompileDocument(document, pointers));
      const ajv = documentAjv(document);
      let errors = 0;
      for (const pointer of pointers) {
        const runtime = ajv.compile(schemaAt(pointer));
        // Keyed as the battery looks them up: a lone $ref's target (document-ajv.ts canonicalPointer).
        const ahead = precompiled.get(canonicalPointer(document, pointer));
        expect(ahead, pointer).toBeDefined();
        for (const value of PROBES) {
          expect(verdict(ahead as ValidateFunction, value), pointer).toEqual(verdict(runtime, value));
          errors += runtime.errors?.length ?? 0;
        }
      }
      // The comparison is not of empty verdicts: the probes break these schemas in many places.
      expect(errors).toBeGreaterThan(10 * pointers.length);
    });
  }

  it('leave out a schema that does not compile, for the battery to compile (and report) as before', () => {
    const document = {
      components: {
        schemas: {
          Good: { type: 'object', properties: { a: { type: 'string' } } },
          Broken: { $ref: '#/components/schemas/Missing' },
        },
      },
    };
    const precompiled = precompileDocument(document, ['#/components/schemas/Good', '#/components/schemas/Broken']);
    expect(precompiled.keys).toEqual(['#/components/schemas/Good']);
    expect(() => documentAjv(document).compile(schemaAt('#/components/schemas/Broken'))).toThrow();
  });

  it('come with a document read on the OpenAPI thread when the harness runs from its build', async () => {
    // From the sources there is no thread and nothing is precompiled (document-thread.ts).
    const api = await loadOpenApiInThread(REFERENCE_OPENAPI_FILE);
    expect(api.validators).toBeUndefined();
    const built = (await import(new URL('../dist/src/runner/document-thread.js', import.meta.url).href)) as {
      loadOpenApiInThread: typeof loadOpenApiInThread;
    };
    const fromThread = await built.loadOpenApiInThread(REFERENCE_OPENAPI_FILE);
    // One validator per schema a lone $ref leads to (canonicalPointer): the invoices list and the invoice share Invoice's.
    const document = fromThread.document ?? {};
    const pointers = [
      ...new Set(
        fromThread.endpoints.flatMap((e) => (e.schema === undefined ? [] : [canonicalPointer(document, e.schema)])),
      ),
    ];
    expect(pointers.sort()).toEqual([
      '#/components/schemas/Invoice',
      '#/components/schemas/Shipment',
      '#/components/schemas/TenantSettings',
    ]);
    expect(fromThread.validators?.keys.sort()).toEqual(pointers);
    expect(fromThread.document).toEqual(api.document);
  });
});
