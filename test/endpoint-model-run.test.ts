/**
 * The endpoint model through a whole run (issue 29 items 1, 4 and 5): lists found by their body
 * are walked and lend ids to the resources under them, bodies under wildcard media types are
 * judged, required query parameters are sent (or the endpoint is skipped by every check with the
 * reason), and the report accounts for every GET of the document. The reference server serves
 * generated collections (src/reference/generated.ts): arrays of {id, name, value, note}, paged.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { generatedOpenApi } from '../src/reference/generated.js';
import { startReferenceServer, type ReferenceServer } from '../src/reference/index.js';
import type { DocumentAnswer } from '../src/reference/behaviour.js';
import type { RunReport } from '../src/model/run-report.js';
import { runMain, tempDir } from './support/harness.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

type Doc = Record<string, unknown> & {
  paths: Record<
    string,
    Record<string, { parameters?: unknown[]; responses: Record<string, { content?: Record<string, unknown> }> }>
  >;
};

/** The generated document of `n` collections, changed by `edit`. */
function documentOf(n: number, edit: (d: Doc) => void): Doc {
  const d = structuredClone(generatedOpenApi(n)) as Doc;
  edit(d);
  return d;
}

const op = (d: Doc, path: string) => {
  const o = d.paths[`/tenants/{tenantId}/${path}`]?.get;
  if (!o) throw new Error(path);
  return o;
};

const SUITES = ['tenant', 'versioning', 'pagination', 'resources'].flatMap((s) => ['--suite', s]);

async function run(
  server: ReferenceServer,
  document: Doc,
  extra: string[] = [],
): Promise<{ code: number; stdout: string; stderr: string; report: RunReport }> {
  const dir = await tempDir();
  const file = join(dir, 'openapi.json');
  await writeFile(file, JSON.stringify(document));
  process.env.CARRIER_CLIENT_SECRET = server.clientSecret;
  try {
    const result = await runMain([
      'run',
      '--base-url',
      server.url,
      '--client-id',
      server.clientId,
      '--openapi',
      file,
      '--foreign-tenant-id',
      server.foreignTenantId,
      ...SUITES,
      ...extra,
      '--reports-dir',
      dir,
    ]);
    return { ...result, report: JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as RunReport };
  } finally {
    delete process.env.CARRIER_CLIENT_SECRET;
  }
}

/** No check failed or erred, and none was skipped whole but RESOURCE-EXPECTED-VALUES (no --expectations here) and, for a document without lists, the paging checks. */
function clean(report: RunReport): string[] {
  const expected = (c: RunReport['checks'][number]): boolean =>
    c.id === 'RESOURCE-EXPECTED-VALUES' || (c.message ?? '').startsWith('no list endpoint configured');
  return report.checks
    .filter((c) => c.status === 'failed' || c.status === 'error' || (c.status === 'skipped' && !expected(c)))
    .map((c) => `${c.id} ${c.status}: ${c.message ?? ''}`);
}

const outcomes = (report: RunReport, id: string): string[] =>
  report.checks
    .find((c) => c.id === id)
    ?.endpoints?.map((e) => `${e.status} ${e.endpoint}${e.status === 'skipped' ? `: ${e.message ?? ''}` : ''}`) ?? [];

async function server(): Promise<ReferenceServer> {
  const s = await startReferenceServer({ tokenTtlSeconds: 60, generatedCollections: 3, recordRequests: true });
  cleanup.push(() => s.close());
  return s;
}

describe('a list known by its body, not by page/size', () => {
  it('is walked, and the resource under it takes its id from it (before: a single resource, and the child skipped for want of a list)', async () => {
    const target = await server();
    const document = documentOf(3, (d) => {
      for (const c of ['c001', 'c002', 'c003'])
        op(d, c).parameters = (op(d, c).parameters ?? []).filter(
          (p) => !['page', 'size'].includes((p as { name: string }).name),
        );
    });
    const result = await run(target, document);
    expect(
      result.report.target.endpoints?.filter((e) => e.kind === 'list').map((e) => `${e.path} ${e.listBy ?? ''}`),
    ).toEqual(['c001 array', 'c002 array', 'c003 array']);
    expect(outcomes(result.report, 'PAGE-WALK')).toEqual([
      'passed GET /tenants/{tenantId}/c001',
      'passed GET /tenants/{tenantId}/c002',
      'passed GET /tenants/{tenantId}/c003',
    ]);
    expect(outcomes(result.report, 'TENANT-ACCESS').filter((e) => e.includes('{itemId}'))).toEqual([
      'passed GET /tenants/{tenantId}/c001/{itemId}',
      'passed GET /tenants/{tenantId}/c002/{itemId}',
      'passed GET /tenants/{tenantId}/c003/{itemId}',
    ]);
    expect(clean(result.report)).toEqual([]);
  });
});

describe('a body declared under */* (springdoc) or application/*+json', () => {
  it('is judged against its schema like application/json (before: left out of RESOURCE-SCHEMA without a word)', async () => {
    const target = await server();
    const document = documentOf(2, (d) => {
      for (const [path, type] of [
        ['c001/{itemId}', '*/*'],
        ['c002', 'application/*+json'],
      ] as const) {
        const ok = op(d, path).responses['200'];
        if (ok?.content) ok.content = { [type]: ok.content['application/json'] };
      }
    });
    const passed = await run(target, document);
    expect(outcomes(passed.report, 'RESOURCE-SCHEMA')).toEqual(
      ['c001', 'c001/{itemId}', 'c002', 'c002/{itemId}'].map((p) => `passed GET /tenants/{tenantId}/${p}`),
    );

    // Its faulty twin: the document says `name` is an integer; the served strings must fail it.
    (document.components as { schemas: { Item: { properties: { name: unknown } } } }).schemas.Item.properties.name = {
      type: 'integer',
    };
    const failed = await run(target, document);
    const schema = failed.report.checks.find((c) => c.id === 'RESOURCE-SCHEMA');
    expect(schema?.endpoints?.map((e) => e.status)).toEqual(['failed', 'failed', 'failed', 'failed']);
  });

  it('that cannot be judged is listed by every resource check, skipped with the reason', async () => {
    const target = await server();
    const document = documentOf(1, (d) => {
      const ok = op(d, 'c001/{itemId}').responses['200'];
      if (ok) ok.content = { 'text/csv': { schema: { type: 'string' } } };
    });
    const result = await run(target, document);
    for (const id of ['RESOURCE-SCHEMA', 'RESOURCE-FIELDS-PRESENT']) {
      expect(outcomes(result.report, id), id).toEqual([
        'passed GET /tenants/{tenantId}/c001',
        'skipped GET /tenants/{tenantId}/c001/{itemId}: its body is not judged: its 200 response declares no JSON body (text/csv)',
      ]);
    }
    expect(result.report.target.endpoints?.find((e) => e.path === 'c001/{itemId}')?.schemaGap).toBe(
      'its 200 response declares no JSON body (text/csv)',
    );
    expect(result.report.target.operations).toBe(2);
  });
});

describe('required query parameters', () => {
  const requests = (target: ReferenceServer, path: string): string[] =>
    target
      .requestLog()
      .map((r) => r.target)
      .filter((t) => t.startsWith(`/tenants/${target.tenantId}/${path}`));

  it("are sent with every request of the endpoint, the walk's pages included, filled from the document", async () => {
    const target = await server();
    const document = documentOf(1, (d) => {
      op(d, 'c001').parameters?.push({
        name: 'region',
        in: 'query',
        required: true,
        schema: { type: 'string', enum: ['eu', 'us'] },
      });
      op(d, 'c001/{itemId}').parameters?.push({
        name: 'expand',
        in: 'query',
        required: true,
        schema: { type: 'string' },
        example: 'lines',
      });
    });
    const result = await run(target, document);
    expect(clean(result.report)).toEqual([]);
    const lists = requests(target, 'c001?').concat(requests(target, 'c001/'));
    expect(lists.length).toBeGreaterThan(5);
    for (const t of requests(target, 'c001?')) expect(t).toContain('region=eu');
    for (const t of requests(target, 'c001/')) expect(t).toMatch(/\?expand=lines$/);
    expect(requests(target, 'c001?')).toContain(`/tenants/${target.tenantId}/c001?region=eu&page=2&size=10`);
    expect(result.report.target.endpoints?.find((e) => e.path === 'c001')?.query).toEqual([
      { name: 'region', value: 'eu', from: 'enum' },
    ]);
  });

  it('without a value skip the endpoint in every check, naming the parameter and --parameter; with --parameter PATH:NAME=VALUE it is judged', async () => {
    const target = await server();
    const document = documentOf(1, (d) => {
      op(d, 'c001/{itemId}').parameters?.push({
        name: 'origin',
        in: 'query',
        required: true,
        schema: { type: 'string', pattern: '^[A-Z]{3}$' },
      });
    });
    const skipped = await run(target, document);
    const reason =
      'skipped GET /tenants/{tenantId}/c001/{itemId}: required query parameter origin has no example, default or enum, and its schema (a pattern (^[A-Z]{3}$)) gives no value to make up; give one with --parameter origin=VALUE';
    for (const id of [
      'TENANT-ACCESS',
      'TENANT-FOREIGN',
      'VERSION-ONE',
      'VERSION-MISSING',
      'RESOURCE-SCHEMA',
      'RESOURCE-FIELDS-PRESENT',
    ])
      expect(outcomes(skipped.report, id), id).toContain(reason);
    expect(clean(skipped.report)).toEqual([]);
    expect(skipped.stdout).toContain('1 has a required query or header parameter without a value');
    // The console names the endpoint and the reason once, though every check that passed on the others says "passed".
    expect(skipped.stdout).toMatch(
      /ENDPOINTS NOT JUDGED \(1\).*\n {2}GET \/tenants\/\{tenantId\}\/c001\/\{itemId\}: required query parameter origin has no example, default or enum, .*give one with --parameter origin=VALUE \(\d+ checks\)/,
    );

    // A --parameter that fits no endpoint is said, not silently ignored.
    const typo = await run(target, document, ['--parameter', 'c01/{itemId}:origin=BER', '--parameter', 'orign=BER']);
    expect(typo.stderr).toContain(
      'warning: --parameter c01/{itemId}:origin=…: c01/{itemId} is not a tenant endpoint under test',
    );
    expect(typo.stderr).toContain(
      'warning: --parameter orign=…: no endpoint under test has a path or required query parameter named orign',
    );

    const given = await run(target, document, ['--parameter', 'c001/{itemId}:origin=BER']);
    expect(clean(given.report)).toEqual([]);
    // What the console and the report say of it is what was sent: given, not missing (the value itself is the operator's, not repeated).
    expect(given.stdout).not.toContain('without a value');
    expect(given.stdout).not.toContain('ENDPOINTS NOT JUDGED');
    expect(given.stderr).not.toContain('warning: --parameter');
    expect(given.report.target.endpoints?.find((e) => e.path === 'c001/{itemId}')?.query).toEqual([
      { name: 'origin', from: 'parameter' },
    ]);
    expect(given.report.checks.flatMap((c) => c.endpoints ?? []).filter((e) => e.status === 'skipped')).toEqual([]);
    expect(outcomes(given.report, 'TENANT-ACCESS')).toContain('passed GET /tenants/{tenantId}/c001/{itemId}');
    for (const t of requests(target, 'c001/')) expect(t).toMatch(/\?origin=BER$/);
  });
});

describe('what the document says, printed', () => {
  it('a hostile parameter name and pattern reach the console neutralised: no escape, no CI logging command (docs/security.md)', async () => {
    const target = await server();
    const hostile = '\u001b]0;owned\u0007\n::error::forged ##vso[task.setvariable variable=x]y';
    const document = documentOf(1, (d) => {
      op(d, 'c001/{itemId}').parameters?.push({
        name: `origin${hostile}`,
        in: 'query',
        required: true,
        schema: { type: 'string', pattern: `^${hostile}$` },
      });
    });
    const result = await run(target, document);
    expect(
      outcomes(result.report, 'TENANT-ACCESS').some((e) =>
        e.startsWith('skipped GET /tenants/{tenantId}/c001/{itemId}: required query parameter origin'),
      ),
    ).toBe(true);
    for (const text of [result.stdout, result.stderr]) {
      expect(text).not.toContain('\u001b');
      expect(text).not.toContain('\u0007');
      expect(text).not.toMatch(/^\s*(::|##vso\[)/m);
    }
    expect(result.stdout).toContain('ENDPOINTS NOT JUDGED (1)');
  });
});

describe('a 4xx to a query value the harness made up', () => {
  /** A server that refuses any `from` but 2020-01-01 with 422, as a real report endpoint refuses dates out of range. */
  async function reportServer(): Promise<ReferenceServer> {
    const s = await startReferenceServer({
      tokenTtlSeconds: 60,
      documentRoutes: {
        answer: (subPath, query) => {
          if (subPath !== 'report') return undefined;
          if (query.get('from') !== '2020-01-01')
            return { refusal: { status: 422, error: 'invalid_request', description: 'from is out of range' } };
          return { body: { id: 'r1', total: 3 } };
        },
      },
    });
    cleanup.push(() => s.close());
    return s;
  }
  const reportDocument = (example?: string): Doc => ({
    openapi: '3.1.0',
    info: { title: 'reports', version: '1' },
    paths: {
      '/tenants/{tenantId}/report': {
        get: {
          parameters: [
            {
              name: 'from',
              in: 'query',
              required: true,
              schema: { type: 'string', format: 'date' },
              ...(example !== undefined ? { example } : {}),
            },
          ],
          responses: {
            '200': {
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['id', 'total'],
                    properties: { id: { type: 'string' }, total: { type: 'integer' } },
                  },
                },
              },
            },
          },
        },
      },
    },
  });

  it("is not the target's failure: the endpoint is skipped, saying which value was made up and how to give a real one", async () => {
    const target = await reportServer();
    const result = await run(target, reportDocument());
    const reason =
      /^skipped GET \/tenants\/\{tenantId\}\/report: it answered 422 to a request whose value from=\d{4}-\d{2}-\d{2} the harness made up \(the document gives no example, default or enum\): not judged; give real one with --parameter from=VALUE$/;
    for (const id of ['TENANT-ACCESS', 'VERSION-ONE', 'TENANT-FOREIGN', 'RESOURCE-SCHEMA'])
      expect(
        outcomes(result.report, id).find((e) => e.includes('/report')),
        id,
      ).toMatch(reason);
    expect(clean(result.report)).toEqual([]);
  });

  it('to a value the document gave is: TENANT-ACCESS fails (its faulty twin); with the right value, it passes', async () => {
    const target = await reportServer();
    const refused = await run(target, reportDocument('2021-06-30'));
    expect(outcomes(refused.report, 'TENANT-ACCESS')).toEqual(['failed GET /tenants/{tenantId}/report']);
    const served = await run(target, reportDocument('2020-01-01'));
    expect(outcomes(served.report, 'TENANT-ACCESS')).toEqual(['passed GET /tenants/{tenantId}/report']);
    expect(clean(served.report), JSON.stringify(clean(served.report))).toEqual([]);
  });
});

describe("a path id taken from the document's example", () => {
  /** A server holding one thing, `t-1`, that refuses any other id with 404, as a real one does. */
  async function thingServer(): Promise<ReferenceServer> {
    const s = await startReferenceServer({
      tokenTtlSeconds: 60,
      documentRoutes: {
        answer: (subPath) => {
          if (!subPath.startsWith('things/')) return undefined;
          if (subPath !== 'things/t-1')
            return { refusal: { status: 404, error: 'not_found', description: 'no such thing' } };
          return { body: { id: 't-1', name: 'one' } };
        },
      },
    });
    cleanup.push(() => s.close());
    return s;
  }
  const thingDocument = (example: string): Doc => ({
    openapi: '3.1.0',
    info: { title: 'things', version: '1' },
    paths: {
      '/tenants/{tenantId}/things/{thingId}': {
        get: {
          parameters: [{ name: 'thingId', in: 'path', required: true, schema: { type: 'string' }, example }],
          responses: {
            '200': {
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['id', 'name'],
                    properties: { id: { type: 'string' }, name: { type: 'string' } },
                  },
                },
              },
            },
          },
        },
      },
    },
  });

  it("names the author's resource, not the deployment's: a 404 there is skipped by every check, saying how to give a real id (Azure's {jobIdentity})", async () => {
    const target = await thingServer();
    const result = await run(target, thingDocument('a-job-of-the-author'));
    const reason =
      /^skipped GET \/tenants\/\{tenantId\}\/things\/\{thingId\}: it answered 404 to a path whose \{thingId\}=a-job-of-the-author \(the document's example\) no list above it gave, and which need not exist in this deployment: not judged; give a real one with --parameter thingId=VALUE$/;
    for (const id of ['TENANT-ACCESS', 'TENANT-FOREIGN', 'RESOURCE-SCHEMA'])
      expect(outcomes(result.report, id), id).toEqual([expect.stringMatching(reason)]);
    expect(clean(result.report).filter((l) => !l.startsWith('PAGE-') && !l.startsWith('LINK-'))).toEqual([]);
  });

  it("or from its enum names a resource that may be absent: a 404 there is skipped too (Apicurio's rules/{rule})", async () => {
    const target = await thingServer();
    const document = thingDocument('t-1');
    const parameter = (document.paths['/tenants/{tenantId}/things/{thingId}']?.get?.parameters?.[0] ?? {}) as Record<
      string,
      unknown
    >;
    delete parameter.example;
    parameter.schema = { type: 'string', enum: ['VALIDITY', 'COMPATIBILITY'] };
    const result = await run(target, document);
    expect(outcomes(result.report, 'TENANT-ACCESS')).toEqual([
      expect.stringMatching(
        /^skipped .*: it answered 404 to a path whose \{thingId\}=VALIDITY \(a value of the document's enum\) no list above it gave/,
      ),
    ]);
  });

  it('that the deployment holds is judged: an example it serves passes, and a deployment that refuses the id --parameter gives fails', async () => {
    const target = await thingServer();
    const served = await run(target, thingDocument('t-1'));
    expect(outcomes(served.report, 'TENANT-ACCESS')).toEqual(['passed GET /tenants/{tenantId}/things/{thingId}']);
    const given = await run(target, thingDocument('a-job-of-the-author'), ['--parameter', 'thingId=t-2']);
    expect(outcomes(given.report, 'TENANT-ACCESS')).toEqual(['failed GET /tenants/{tenantId}/things/{thingId}']);
  });
});

describe('path keys that name one request target (`#` variants)', () => {
  /** A server answering GET …/roles/r-1 with `body`. */
  async function roleServer(body: unknown): Promise<ReferenceServer> {
    const s = await startReferenceServer({
      tokenTtlSeconds: 60,
      documentRoutes: { answer: (subPath) => (subPath === 'roles/r-1' ? { body } : undefined) },
    });
    cleanup.push(() => s.close());
    return s;
  }
  const object = (required: string[]) => ({
    type: 'object',
    required,
    properties: Object.fromEntries(required.map((k) => [k, { type: 'string' }])),
  });
  // Azure's `/{roleAssignmentId}` and `/{roleDefinitionId}#disambiguation_dummy`: one wire path, two schemas.
  const variants: Doc = {
    openapi: '3.1.0',
    info: { title: 'variants', version: '1' },
    paths: {
      '/tenants/{tenantId}/roles/{roleId}': {
        get: {
          parameters: [{ name: 'roleId', in: 'path', required: true, schema: { type: 'string', enum: ['r-1'] } }],
          responses: { '200': { content: { 'application/json': { schema: object(['id', 'roleName']) } } } },
        },
      },
      '/tenants/{tenantId}/roles/{roleDefinitionId}#disambiguation_dummy': {
        get: {
          parameters: [
            { name: 'roleDefinitionId', in: 'path', required: true, schema: { type: 'string', enum: ['r-1'] } },
          ],
          responses: { '200': { content: { 'application/json': { schema: object(['id', 'scope']) } } } },
        },
      },
    },
  };

  it('are judged by the variant the body is: a body one of them describes passes RESOURCE-SCHEMA and RESOURCE-FIELDS-PRESENT on both, with a note', async () => {
    const result = await run(await roleServer({ id: 'r-1', scope: 'all' }), variants);
    for (const id of ['RESOURCE-SCHEMA', 'RESOURCE-FIELDS-PRESENT'])
      expect(outcomes(result.report, id), id).toEqual([
        'passed GET /tenants/{tenantId}/roles/{roleId}',
        'passed GET /tenants/{tenantId}/roles/{roleDefinitionId}#disambiguation_dummy',
      ]);
    expect(result.report.checks.find((c) => c.id === 'RESOURCE-FIELDS-PRESENT')?.notes?.join('\n')).toContain(
      'its body is the one the document declares for roles/{roleDefinitionId}#disambiguation_dummy, a path key of the same request target',
    );
  });

  it('a body no variant describes whole is judged by its own: a wrong type fails where the schema declares the field (the faulty twin)', async () => {
    const result = await run(await roleServer({ id: 'r-1', roleName: 7 }), variants);
    expect(outcomes(result.report, 'RESOURCE-SCHEMA')).toEqual([
      'failed GET /tenants/{tenantId}/roles/{roleId}',
      'passed GET /tenants/{tenantId}/roles/{roleDefinitionId}#disambiguation_dummy',
    ]);
    // Nor is it the variant's whole: it omits the variant's scope.
    expect(outcomes(result.report, 'RESOURCE-FIELDS-PRESENT')).toEqual([
      'passed GET /tenants/{tenantId}/roles/{roleId}',
      'failed GET /tenants/{tenantId}/roles/{roleDefinitionId}#disambiguation_dummy',
    ]);
  });
});

describe("a resource variant of a list's path (OSIsoft's assetservers#name beside assetservers, issue 37)", () => {
  const server = { type: 'object', properties: { Id: { type: 'string' }, Name: { type: ['string', 'null'] } } };
  const document: Doc = {
    openapi: '3.1.0',
    info: { title: 'variants', version: '1' },
    paths: {
      '/tenants/{tenantId}/assetservers': {
        get: {
          responses: {
            '200': {
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    properties: {
                      Items: { type: 'array', items: server },
                      Links: { type: 'object', properties: { First: { type: ['string', 'null'] } } },
                    },
                  },
                },
              },
            },
          },
        },
      },
      '/tenants/{tenantId}/assetservers#name': {
        get: {
          parameters: [{ name: 'name', in: 'query', required: true, schema: { type: 'string' } }],
          responses: { '200': { content: { 'application/json': { schema: server } } } },
        },
      },
    },
  };
  async function assetServer(byName: DocumentAnswer | undefined): Promise<ReferenceServer> {
    const list: DocumentAnswer = {
      list: {
        count: 3,
        item: (i: number) => ({ Id: `s${i}`, Name: null }),
        wrap: (items: unknown[]) => ({ Items: items, Links: { First: null } }),
      },
    };
    const s = await startReferenceServer({
      tokenTtlSeconds: 60,
      documentRoutes: {
        answer: (subPath, query) =>
          subPath !== 'assetservers' ? undefined : query.has('name') ? (byName ?? list) : list,
      },
    });
    cleanup.push(() => s.close());
    return s;
  }

  it("answered as the list answers (the name ignored), the resource is judged by the list's whole body, with a note (before: RESOURCE-FIELDS-PRESENT failed it)", async () => {
    const result = await run(await assetServer(undefined), document);
    for (const id of ['RESOURCE-SCHEMA', 'RESOURCE-FIELDS-PRESENT'])
      expect(outcomes(result.report, id), id).toEqual([
        'passed GET /tenants/{tenantId}/assetservers',
        'passed GET /tenants/{tenantId}/assetservers#name',
      ]);
    expect(result.report.checks.find((c) => c.id === 'RESOURCE-FIELDS-PRESENT')?.notes?.join('\n')).toContain(
      'its body is the one the document declares for assetservers, a path key of the same request target',
    );
  });

  it('answered with a body neither describes whole, it fails (the faulty twin)', async () => {
    const result = await run(await assetServer({ body: { Id: 's0' } }), document);
    expect(outcomes(result.report, 'RESOURCE-FIELDS-PRESENT')).toEqual([
      'passed GET /tenants/{tenantId}/assetservers',
      'failed GET /tenants/{tenantId}/assetservers#name',
    ]);
  });
});

describe("the document's own request parts (issue 37 items 4, 6, 12)", () => {
  const resource = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } };
  /** A document of single resources at these path keys, each with these extra parameters. */
  const documentAt = (paths: Record<string, unknown[]>): Doc => ({
    openapi: '3.1.0',
    info: { title: 'parts', version: '1' },
    paths: Object.fromEntries(
      Object.entries(paths).map(([key, parameters]) => [
        `/tenants/{tenantId}/${key}`,
        {
          get: {
            parameters: [
              { name: 'tenantId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
              ...parameters,
            ],
            responses: {
              '200': {
                content: {
                  'application/json': {
                    schema: key.endsWith('things') ? { type: 'array', items: resource } : resource,
                  },
                },
              },
            },
          },
        },
      ]),
    ),
  });
  /** A server that answers what `answer` says under the tenant, as a real API does. */
  async function serving(
    answer: (
      subPath: string,
      query: URLSearchParams,
      headers: Readonly<Record<string, string | string[] | undefined>>,
    ) => DocumentAnswer | undefined,
  ): Promise<ReferenceServer> {
    const s = await startReferenceServer({
      tokenTtlSeconds: 60,
      recordRequests: true,
      documentRoutes: { answer: (subPath, query, _tenant, headers) => answer(subPath, query, headers) },
    });
    cleanup.push(() => s.close());
    return s;
  }
  const withHeader = (example?: string): unknown => ({
    name: 'Xero-Tenant-Id',
    in: 'header',
    required: true,
    schema: { type: 'string', format: 'uuid' },
    ...(example !== undefined ? { example } : {}),
  });
  const XERO = '0e1a2b3c-4d5e-4f60-8a7b-9c0d1e2f3a4b';
  const xero = (
    subPath: string,
    _q: URLSearchParams,
    headers: Readonly<Record<string, string | string[] | undefined>>,
  ) =>
    subPath === 'organisation'
      ? headers['xero-tenant-id'] === XERO
        ? { body: { id: 'o1' } }
        : { refusal: { status: 400, error: 'invalid_request', description: 'xero-tenant-id is missing or unknown' } }
      : undefined;

  it('a required header parameter is sent with every request of the endpoint, filled from the document; the report names it', async () => {
    const target = await serving(xero);
    const result = await run(target, documentAt({ organisation: [withHeader(XERO)] }));
    expect(outcomes(result.report, 'TENANT-ACCESS')).toEqual(['passed GET /tenants/{tenantId}/organisation']);
    expect(clean(result.report)).toEqual([]);
    const sent = target.requestLog().filter((r) => r.target.startsWith(`/tenants/${target.tenantId}/organisation`));
    expect(sent.length).toBeGreaterThan(3);
    for (const r of sent) expect(r.headers.find(([k]) => k.toLowerCase() === 'xero-tenant-id')?.[1]).toBe(XERO);
    expect(result.report.target.endpoints?.find((e) => e.path === 'organisation')?.headers).toEqual([
      { name: 'Xero-Tenant-Id', value: XERO, from: 'example' },
    ]);
  });

  it('one the harness has to make up: a 4xx skips the endpoint naming --header, never fails it; --header gives it', async () => {
    const target = await serving(xero);
    const made = await run(target, documentAt({ organisation: [withHeader()] }));
    const reason =
      /^skipped GET \/tenants\/\{tenantId\}\/organisation: it answered 400 to a request whose value header Xero-Tenant-Id: 00000000-0000-4000-8000-000000000000 the harness made up .*give real one with --header 'Xero-Tenant-Id: VALUE'$/m;
    for (const id of ['TENANT-ACCESS', 'VERSION-ONE', 'RESOURCE-SCHEMA'])
      expect(outcomes(made.report, id).join('\n'), id).toMatch(reason);
    expect(clean(made.report)).toEqual([]);
    const given = await run(target, documentAt({ organisation: [withHeader()] }), [
      '--header',
      `xero-tenant-id: ${XERO}`,
    ]);
    expect(outcomes(given.report, 'TENANT-ACCESS')).toEqual(['passed GET /tenants/{tenantId}/organisation']);
    expect(given.report.target.endpoints?.find((e) => e.path === 'organisation')?.headers).toBeUndefined();
  });

  it("a path key's #fragment is not part of the path; a ?query in a path key is sent as the request's query", async () => {
    const target = await serving((subPath, query) =>
      subPath === 'shared_items' || (subPath === 'rest' && query.get('method') === 'items.get')
        ? { body: { id: 's1' } }
        : undefined,
    );
    const result = await run(target, documentAt({ 'shared_items#folders': [], 'rest?method=items.get': [] }));
    expect(outcomes(result.report, 'TENANT-ACCESS')).toEqual([
      'passed GET /tenants/{tenantId}/shared_items#folders',
      'passed GET /tenants/{tenantId}/rest?method=items.get',
    ]);
    expect(target.requestLog().some((r) => r.target.includes('%23'))).toBe(false);
    expect(clean(result.report)).toEqual([]);
  });

  describe('a filled path that another operation of the document matches too (issue 37)', () => {
    const twoWays = (paths: string[]): Doc => {
      const document = documentAt(
        Object.fromEntries(
          paths.map((p) => [
            p,
            p.includes('{')
              ? [{ name: /\{([^}]+)\}/.exec(p)?.[1], in: 'path', required: true, schema: { type: 'string' } }]
              : [],
          ]),
        ),
      );
      return document;
    };

    it("one with a literal segment there (HDInsight's extensions/clustermonitoring beside extensions/{extensionName}) answers it: skipped saying so, not judged against the other's schema", async () => {
      const target = await serving((subPath) =>
        subPath === 'things'
          ? { body: [{ id: 'clustermonitoring' }] }
          : subPath === 'things/clustermonitoring'
            ? { body: { count: 42 } }
            : undefined,
      );
      const document = twoWays(['things', 'things/{thingName}', 'things/clustermonitoring']);
      const literal = (
        document.paths as Record<
          string,
          { get: { responses: Record<string, { content: Record<string, { schema: unknown }> }> } }
        >
      )['/tenants/{tenantId}/things/clustermonitoring']?.get.responses['200']?.content['application/json'];
      if (literal) literal.schema = { type: 'object', required: ['count'], properties: { count: { type: 'integer' } } };
      const result = await run(target, document);
      expect(outcomes(result.report, 'TENANT-ACCESS')).toContain(
        "skipped GET /tenants/{tenantId}/things/{thingName}: filled as things/clustermonitoring, which is the document's own path GET /tenants/{tenantId}/things/clustermonitoring: a server answers that operation there (OpenAPI: a concrete path matches before a templated one); give another value with --parameter",
      );
      // (The list `things` is not paged here: its PAGE- failures are its own.)
      expect(
        result.report.checks
          .filter((c) => c.status === 'failed')
          .map((c) => `${c.id} ${c.message ?? ''}`)
          .filter((m) => m.includes('things/')),
      ).toEqual([]);
    });

    it("one as specific (Xero's Contacts/{ContactNumber} beside Contacts/{ContactID}): a 404 there is skipped naming the other; a 2xx is judged; without the other, the 404 fails (the faulty twin)", async () => {
      const target = await serving((subPath) =>
        subPath === 'things'
          ? { body: [{ id: 'c1', ThingNumber: 'n1' }] }
          : subPath === 'things/c1'
            ? { body: { id: 'c1' } }
            : undefined,
      );
      const result = await run(target, twoWays(['things', 'things/{ThingID}', 'things/{ThingNumber}']));
      expect(outcomes(result.report, 'TENANT-ACCESS')).toEqual([
        'passed GET /tenants/{tenantId}/things',
        'passed GET /tenants/{tenantId}/things/{ThingID}',
        "skipped GET /tenants/{tenantId}/things/{ThingNumber}: it answered 404 to a path that the document's GET /tenants/{tenantId}/things/{ThingID} matches as well, which a server may answer instead (the document declares both): not judged; give a value only this path takes with --parameter",
      ]);
      const alone = await run(target, twoWays(['things', 'things/{ThingNumber}']));
      expect(outcomes(alone.report, 'TENANT-ACCESS')).toEqual([
        'passed GET /tenants/{tenantId}/things',
        'failed GET /tenants/{tenantId}/things/{ThingNumber}',
      ]);
    });
  });

  it("a path key with an empty segment (Clever Cloud's //openapi) is skipped saying why; an id from the list that holds '/' (Docker's plugin names) answered 404 is skipped, where one without is failed (the faulty twin)", async () => {
    const target = await serving((subPath) =>
      subPath === 'things'
        ? { body: [{ id: 'owner/plugin' }] }
        : subPath === 'morethings'
          ? { body: [{ id: 'w1' }] }
          : undefined,
    );
    const document = documentAt({
      '/openapi': [],
      things: [],
      'things/{thingId}': [{ name: 'thingId', in: 'path', required: true, schema: { type: 'string' } }],
      morethings: [],
      'morethings/{widgetId}': [{ name: 'widgetId', in: 'path', required: true, schema: { type: 'string' } }],
    });
    const result = await run(target, document);
    expect(
      outcomes(result.report, 'TENANT-ACCESS').filter(
        (o) => !/ GET \/tenants\/\{tenantId\}\/(things|morethings)$/.test(o),
      ),
    ).toEqual([
      'skipped GET /tenants/{tenantId}//openapi: its path key has an empty segment (//): servers and gateways merge such slashes or refuse them, so no request reaches the path as written; give the real path with --endpoint or --paged-path',
      'skipped GET /tenants/{tenantId}/things/{thingId}: it answered 404 to a path whose {thingId}=owner/plugin (from the list above) holds a "/", sent as %2F, which many servers and gateways refuse (Apache\'s AllowEncodedSlashes): not judged; give another with --parameter',
      'failed GET /tenants/{tenantId}/morethings/{widgetId}',
    ]);
  });

  it("a path key with more path after its '#' (Mastercard's send/#env/v1/…) names no path a request can reach: skipped saying so, not failed on what `send/` answers", async () => {
    const target = await serving((subPath) =>
      subPath === 'send/'
        ? { refusal: { status: 400, error: 'invalid_request', description: 'no such route' } }
        : undefined,
    );
    const result = await run(target, documentAt({ 'send/#env/v1/transfers': [] }));
    expect(outcomes(result.report, 'TENANT-ACCESS')).toEqual([
      'skipped GET /tenants/{tenantId}/send/#env/v1/transfers: its path key has "#env" before more of the path: a fragment is never sent (RFC 9110 §7.1), so no request reaches the path as written; give the real path with --endpoint or --paged-path',
    ]);
    expect(result.report.checks.filter((c) => c.status === 'failed').map((c) => c.id)).toEqual([]);
  });

  it("a path parameter that is part of a segment takes the document's enum; without one it is skipped saying so, not with a garbled parent path", async () => {
    const target = await serving((subPath) =>
      /^files\/f1\/thumbnail\.(png|jpg)$/.test(subPath)
        ? { body: { id: 't1' } }
        : subPath === 'things'
          ? { body: [{ name: 'no id' }] }
          : undefined,
    );
    const fileId = { name: 'file_id', in: 'path', required: true, schema: { type: 'string' }, example: 'f1' };
    const result = await run(
      target,
      documentAt({
        'files/{file_id}/thumbnail.{extension}': [
          fileId,
          { name: 'extension', in: 'path', required: true, schema: { type: 'string', enum: ['png', 'jpg'] } },
        ],
        'files/{file_id}/preview.{format}': [
          fileId,
          { name: 'format', in: 'path', required: true, schema: { type: 'string' } },
        ],
        things: [],
        'things/{id}': [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      }),
    );
    const access = outcomes(result.report, 'TENANT-ACCESS');
    expect(access).toContain('passed GET /tenants/{tenantId}/files/{file_id}/thumbnail.{extension}');
    expect(access).toContain(
      'skipped GET /tenants/{tenantId}/files/{file_id}/preview.{format}: no value for {format}: it is part of a path segment (preview.{format}), which no list gives, and the document gives no example, default or enum for it; give one with --parameter format=VALUE',
    );
    // Each field named once: not `no "id", "id" or "id" field`.
    expect(access).toContain(
      'skipped GET /tenants/{tenantId}/things/{id}: no value for {id}: its first item has no "id" field with a string or number (GET /tenants/{tenantId}/things); give one with --parameter id=VALUE',
    );
  });

  describe("a GET with page and per_page whose body the document does not describe (Reverb's articles, issue 37)", () => {
    const paged = (): Doc => {
      const document = documentAt({
        articles: [
          { name: 'page', in: 'query', schema: { type: 'integer' } },
          { name: 'per_page', in: 'query', schema: { type: 'integer' } },
        ],
      });
      const articles = (document.paths as Record<string, { get: { responses: unknown } }>)[
        '/tenants/{tenantId}/articles'
      ];
      if (articles) articles.get.responses = { '200': { description: 'the articles' } };
      return document;
    };
    const pagingOutcomes = (report: RunReport): string[] =>
      report.checks
        .filter((c) => c.suite === 'pagination' || c.id === 'NULLS-SAME-FIELDS')
        .flatMap((c) => outcomes(report, c.id).map((o) => `${c.id} ${o}`));

    it('is a list, uncertain; answered with no array and no paging header it is not judged as one: every paging check and NULLS-SAME-FIELDS skip it, saying why (before: PAGE-HEADERS failed a conformant server)', async () => {
      const target = await serving((subPath) => (subPath === 'articles' ? { body: { ok: true } } : undefined));
      const result = await run(target, paged(), ['--suite', 'nulls']);
      expect(result.report.target.endpoints?.[0]).toMatchObject({
        kind: 'list',
        uncertain: 'it takes page, but the document declares no JSON body',
      });
      const all = pagingOutcomes(result.report);
      expect(all.length).toBeGreaterThanOrEqual(12);
      for (const o of all)
        expect(o).toMatch(
          / skipped GET \/tenants\/\{tenantId\}\/articles: it takes page, but the document declares no JSON body, and page 1 holds no list \(the list body is an object without an array of items\) and none of the paging headers: not judged as a list; pass --paged-path articles if it is one$/,
        );
      expect(result.code).toBe(0);
    });

    it('answered with an array and no paging header, it is judged and fails PAGE-HEADERS (the faulty twin); named a list with --paged-path, it is judged whatever its body', async () => {
      const target = await serving((subPath) =>
        subPath === 'articles' ? { body: [{ id: 'a1' }, { id: 'a2' }] } : undefined,
      );
      const result = await run(target, paged());
      expect(outcomes(result.report, 'PAGE-HEADERS')).toEqual(['failed GET /tenants/{tenantId}/articles']);
      const plain = await serving((subPath) => (subPath === 'articles' ? { body: { ok: true } } : undefined));
      const named = await run(plain, paged(), ['--paged-path', 'articles']);
      expect(outcomes(named.report, 'PAGE-HEADERS')).toEqual(['failed GET /tenants/{tenantId}/articles']);
    });
  });

  describe("a wrapper alone whose path names one thing (Xero's /Organisation {Organisations: [the one]}, issue 37)", () => {
    const wrapped = (key: string, wrapper: string): Doc => {
      const document = documentAt({ [key]: [] });
      const paths = document.paths as Record<
        string,
        { get: { responses: Record<string, { content: Record<string, { schema: unknown }> }> } }
      >;
      const ok = paths[`/tenants/{tenantId}/${key}`]?.get.responses['200']?.content['application/json'];
      if (ok) ok.schema = { type: 'object', properties: { [wrapper]: { type: 'array', items: resource } } };
      return document;
    };
    const pagingOutcomes = (report: RunReport): string[] =>
      report.checks
        .filter((c) => c.suite === 'pagination')
        .flatMap((c) => outcomes(report, c.id).map((o) => `${c.id} ${o}`));

    it('is a list, uncertain; answered as one resource (no paging header) every paging check skips it saying why, not PAGE-HEADERS failed (before)', async () => {
      for (const [key, wrapper] of [
        ['Organisation', 'Organisations'],
        ['Contacts/{ContactID}/CISSettings', 'CISSettings'],
      ] as const) {
        const target = await serving((subPath) =>
          subPath === 'Contacts' || /^Organisation$|CISSettings$/.test(subPath)
            ? { body: { [wrapper]: [{ id: 'o1' }] } }
            : undefined,
        );
        const result = await run(target, wrapped(key, wrapper), ['--parameter', 'ContactID=c1']);
        expect(
          result.report.target.endpoints?.find((e) => e.path === key),
          key,
        ).toMatchObject({
          kind: 'list',
          itemsProperty: wrapper,
          uncertain: expect.stringMatching(/^its body is only an array /) as unknown,
        });
        const all = pagingOutcomes(result.report);
        expect(all.length, key).toBeGreaterThanOrEqual(11);
        for (const o of all)
          expect(o).toMatch(
            new RegExp(
              ` skipped GET /tenants/\\{tenantId\\}/${key.replace(/[{}]/g, '\\$&')}: its body is only an array ${wrapper}, .*, and page 1 holds no bare array and none of the paging headers: not judged as a list; pass --paged-path ${key.replace(/[{}]/g, '\\$&')} if it is one$`,
            ),
          );
        expect(result.code, key).toBe(0);
      }
    });

    it('answered with paging headers it is judged as a list: a page repeating an id fails PAGE-WALK (the faulty twin); a bare array without them fails PAGE-HEADERS', async () => {
      const list = (id: (i: number) => string) =>
        serving((subPath) =>
          subPath === 'Organisation'
            ? { list: { count: 12, item: (i) => ({ id: id(i) }), wrap: (items) => ({ Organisations: items }) } }
            : undefined,
        );
      const paged = await run(await list((i) => `o${i}`), wrapped('Organisation', 'Organisations'));
      expect(['PAGE-HEADERS', 'PAGE-WALK'].flatMap((id) => outcomes(paged.report, id))).toEqual([
        'passed GET /tenants/{tenantId}/Organisation',
        'passed GET /tenants/{tenantId}/Organisation',
      ]);
      const repeated = await run(
        await list((i) => (i === 11 ? 'o0' : `o${i}`)),
        wrapped('Organisation', 'Organisations'),
      );
      expect(outcomes(repeated.report, 'PAGE-WALK')).toEqual(['failed GET /tenants/{tenantId}/Organisation']);
      const bare = await serving((subPath) => (subPath === 'Organisation' ? { body: [{ id: 'o1' }] } : undefined));
      expect(outcomes((await run(bare, wrapped('Organisation', 'Organisations'))).report, 'PAGE-HEADERS')).toEqual([
        'failed GET /tenants/{tenantId}/Organisation',
      ]);
    });
  });

  it('a GET whose kind the document leaves uncertain is listed once in the console (KIND NOT CERTAIN) and report.json, with the option that settles it; --paged-path makes it a list of the array it holds', async () => {
    const target = await serving((subPath) =>
      subPath === 'Reports/BalanceSheet' ? { body: { Reports: [{ id: 'r1' }] } } : undefined,
    );
    const document = documentAt({ 'Reports/BalanceSheet': [] });
    const paths = document.paths as Record<
      string,
      { get: { responses: Record<string, { content: Record<string, { schema: unknown }> }> } }
    >;
    const op200 = paths['/tenants/{tenantId}/Reports/BalanceSheet']?.get.responses['200']?.content['application/json'];
    if (op200) op200.schema = { type: 'object', properties: { Reports: { type: 'array', items: resource } } };
    const result = await run(target, document);
    expect(result.stdout).toContain('1 is of a kind the document leaves uncertain (KIND NOT CERTAIN, at the end)');
    expect(result.stdout).toMatch(
      /KIND NOT CERTAIN \(1\).*\n {2}GET \/tenants\/\{tenantId\}\/Reports\/BalanceSheet: judged as a single resource: its body is only an array Reports, which its path does not name: one resource in an envelope, or a list; if it is a list, pass --paged-path 'Reports\/BalanceSheet'/,
    );
    expect(result.report.target.endpoints?.[0]).toMatchObject({
      kind: 'single',
      uncertain: expect.any(String) as unknown,
    });
    const settled = await run(target, document, ['--paged-path', 'Reports/BalanceSheet']);
    expect(settled.report.target.endpoints?.[0]).toMatchObject({
      path: 'Reports/BalanceSheet',
      kind: 'list',
      itemsProperty: 'Reports',
    });
    expect(settled.report.target.endpoints?.[0]?.uncertain).toBeUndefined();
    expect(settled.stdout).not.toContain('KIND NOT CERTAIN');
  });
});
