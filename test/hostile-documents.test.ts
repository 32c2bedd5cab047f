/**
 * The hostile corpus (issue 28, items 1 and 3): crafted --openapi documents. The document is
 * written by a vendor, not by the operator: its `$ref`s are read only inside its folder (or
 * --openapi-root), never from /proc, a device, a FIFO or the network, and reading it is bounded
 * in size, aliases, nesting and the parser's work, and stopped by --deadline and signals
 * (src/openapi/document-files.ts, src/runner/document-thread.ts).
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, symlink, truncate, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveRunOptions } from '../src/config/options.js';
import { optionsFromEnv } from '../src/core/environment.js';
import { RUN_OPTION_KINDS } from '../src/config/options.js';
import { UsageError } from '../src/core/errors.js';
import { DOCUMENT_LIMITS } from '../src/openapi/document-files.js';
import type { loadOpenApiInThread } from '../src/runner/document-thread.js';
import { loadOpenApi } from '../src/openapi/load.js';
import type { RunReport } from '../src/model/run-report.js';
import { startReferenceServer, type ReferenceServer } from '../src/reference/index.js';
import { BIN, runMain, tempDir } from './support/harness.js';
import { onLoopback, closeServer } from './support/loopback.js';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of cleanup.reverse()) await close();
  cleanup = [];
});

/** A minimal OpenAPI 3.1 document whose one tenant endpoint's item schema is `schema`. */
function documentWith(schema: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    openapi: '3.1.0',
    info: { title: 'hostile', version: '1' },
    paths: {
      '/tenants/{tenantId}/shipments': {
        get: {
          parameters: [{ name: 'page', in: 'query', schema: { type: 'integer' } }],
          responses: {
            '200': { description: 'ok', content: { 'application/json': { schema: { type: 'array', items: schema } } } },
          },
        },
      },
    },
    ...extra,
  });
}

/** The reference server's shipments with one field whose expected value comes from `ref`: how a leak reaches "must be …" messages. */
const leakingSchema = (ref: string) => ({ type: 'object', properties: { carrier: { const: { $ref: ref } } } });

/** The one-line UsageError a load ends with (exit 2), within `ms`. */
async function refusal(load: Promise<unknown>, ms = 10_000): Promise<string> {
  const started = performance.now();
  const err = await load.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect((performance.now() - started) / 1000).toBeLessThan(ms / 1000);
  expect(err).toBeInstanceOf(UsageError);
  const message = (err as Error).message;
  expect(message.split('\n')).toHaveLength(1);
  return message;
}

/** A folder holding `files` (path → text), for a document and its $refs. */
async function folder(files: Record<string, string>): Promise<string> {
  const dir = await tempDir('carrier-hostile-doc-');
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

/** A reference server the in-process runs test; the client secret in the environment. */
async function server(): Promise<ReferenceServer> {
  const started = await startReferenceServer({ tokenTtlSeconds: 60 });
  const previous = process.env.CARRIER_CLIENT_SECRET;
  process.env.CARRIER_CLIENT_SECRET = started.clientSecret;
  cleanup.push(async () => {
    if (previous === undefined) delete process.env.CARRIER_CLIENT_SECRET;
    else process.env.CARRIER_CLIENT_SECRET = previous;
    await started.close();
  });
  return started;
}

/** Everything a run left for someone to read: its console and every report file. */
async function everythingWritten(result: { stdout: string; stderr: string }, reportsDir: string): Promise<string> {
  const reports = await readdir(reportsDir).catch(() => [] as string[]);
  const texts = await Promise.all(reports.map((f) => readFile(join(reportsDir, f), 'utf8')));
  return [result.stdout, result.stderr, ...texts].join('\n');
}

describe('a $ref outside the root: exit 2, one line naming the $ref and --openapi-root, nothing of the file anywhere', () => {
  const environ = readFileSync('/proc/self/environ', 'latin1')
    .split('\0')
    .filter((entry) => entry.length >= 12);
  const hostname = readFileSync('/etc/hostname', 'utf8').trim();

  it.each([
    ['/proc/self/environ', (written: string) => environ.filter((entry) => written.includes(entry))],
    [
      '/etc/hostname',
      (written: string) => (hostname.length >= 6 && written.includes(`"${hostname}"`) ? [hostname] : []),
    ],
  ])('%s', async (ref, leaked) => {
    const target = await server();
    const dir = await folder({ 'api.json': documentWith(leakingSchema(ref)) });
    const reportsDir = join(dir, 'reports');
    const result = await runMain([
      'run',
      '--base-url',
      target.url,
      '--client-id',
      target.clientId,
      '--openapi',
      join(dir, 'api.json'),
      '--suite',
      'resources',
      '--reports-dir',
      reportsDir,
    ]);

    expect(result.code, result.stderr).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`$ref "${ref}" is refused`);
    expect(lines[0]).toContain('--openapi-root');
    expect(leaked(await everythingWritten(result, reportsDir))).toEqual([]);
    expect(await everythingWritten(result, reportsDir)).not.toContain('\\u0000');
  });
});

describe('$refs that leave the root, or lead to what is not a file', () => {
  it('../ out of the document folder is refused', async () => {
    const dir = await folder({
      'api/openapi.json': documentWith({ $ref: '../secret.json' }),
      'secret.json': '{"type": "string", "const": "s3cr3t"}',
    });
    expect(await refusal(loadOpenApi(join(dir, 'api', 'openapi.json')))).toMatch(
      /\$ref "\.\.\/secret\.json" is refused: it leads outside .*--openapi-root/,
    );
  });

  it('a symbolic link inside the folder that points outside it is refused', async () => {
    const outside = await folder({ 'secret.json': '{"type": "string", "const": "s3cr3t"}' });
    const dir = await folder({ 'api.json': documentWith({ $ref: 'schemas/item.json' }) });
    await mkdir(join(dir, 'schemas'));
    await symlink(join(outside, 'secret.json'), join(dir, 'schemas', 'item.json'));
    expect(await refusal(loadOpenApi(join(dir, 'api.json')))).toMatch(
      /\$ref "schemas\/item\.json" is refused: it is a symbolic link.*--openapi-root/,
    );
  });

  it('a symbolic link that stays inside the folder is read', async () => {
    const dir = await folder({
      'api.json': documentWith({ $ref: 'link.json' }),
      'item.json': '{"type": "object", "properties": {"id": {"type": "string"}}}',
    });
    await symlink(join(dir, 'item.json'), join(dir, 'link.json'));
    const api = await loadOpenApi(join(dir, 'api.json'));
    expect(api.endpoints.map((e) => e.path)).toEqual(['shipments']);
  });

  it('a FIFO $ref is refused at once, not waited on', async () => {
    const dir = await folder({ 'api.json': documentWith({ $ref: 'item.json' }) });
    execFileSync('mkfifo', [join(dir, 'item.json')]);
    expect(await refusal(loadOpenApi(join(dir, 'api.json')), 5_000)).toMatch(
      /\$ref "item\.json" is refused: it is a FIFO, not a regular file/,
    );
  });

  it('a FIFO given as --openapi is refused at once', async () => {
    const dir = await tempDir('carrier-hostile-doc-');
    execFileSync('mkfifo', [join(dir, 'api.yaml')]);
    expect(await refusal(loadOpenApi(join(dir, 'api.yaml')), 5_000)).toMatch(
      /^--openapi .*api\.yaml: it is a FIFO, not a regular file$/,
    );
  });

  it('/dev/zero is refused, even with --openapi-root /', async () => {
    const dir = await folder({ 'api.json': documentWith({ $ref: '/dev/zero' }) });
    expect(await refusal(loadOpenApi(join(dir, 'api.json')), 5_000)).toMatch(
      /\$ref "\/dev\/zero" is refused: it leads outside/,
    );
    expect(await refusal(loadOpenApi(join(dir, 'api.json'), { root: '/' }), 5_000)).toMatch(
      /\$ref "\/dev\/zero" is refused: it is a device, not a regular file/,
    );
  });

  it('/proc is refused even with --openapi-root /', async () => {
    const dir = await folder({ 'api.json': documentWith(leakingSchema('/proc/self/environ')) });
    expect(await refusal(loadOpenApi(join(dir, 'api.json'), { root: '/' }))).toMatch(
      /\$ref "\/proc\/self\/environ" is refused: .* is a kernel pseudo-file, not a document; no --openapi-root allows \/proc, \/sys or \/dev$/,
    );
  });

  it('the $ref in the message is neutralised: no control characters, cut short', async () => {
    const ref = `../\u001b]0;pwned\u0007${'x'.repeat(500)}.json`;
    const dir = await folder({ 'api.json': documentWith({ $ref: ref }) });
    const message = await refusal(loadOpenApi(join(dir, 'api.json')));
    expect([...message].filter((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)).toEqual([]);
    expect(message).toMatch(/\$ref "\.\.\/\?\]0;pwned\?x+…" is refused/);
    expect(message.length).toBeLessThan(500);
  });

  it('a remote $ref is never fetched, and refused', async () => {
    let requests = 0;
    const remote: Server = createServer((_req, res) => {
      requests += 1;
      res.setHeader('content-type', 'application/json');
      res.end('{"type": "string", "const": "from-the-network"}');
    });
    await onLoopback(remote);
    cleanup.push(() => closeServer(remote));
    const url = `http://127.0.0.1:${(remote.address() as AddressInfo).port}/item.json`;
    const dir = await folder({ 'api.json': documentWith({ $ref: url }) });
    expect(await refusal(loadOpenApi(join(dir, 'api.json'), { root: '/' }))).toContain(
      `$ref "${url}" is refused: it is a URL, and remote $refs are never fetched`,
    );
    expect(requests).toBe(0);
  });
});

describe('a document split across sibling folders', () => {
  const files = {
    'spec/api/openapi.yaml': `openapi: 3.1.0
info: {title: split, version: "1"}
paths:
  /tenants/{tenantId}/shipments:
    get:
      parameters: [{name: page, in: query, schema: {type: integer}}]
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {type: array, items: {$ref: "../schemas/shipment.yaml"}}
`,
    'spec/schemas/shipment.yaml':
      'type: object\nrequired: [id]\nproperties:\n  id: {type: string}\n  parent: {$ref: "#"}\n',
  };

  it('is read with --openapi-root naming the common parent, and refused without it', async () => {
    const dir = await folder(files);
    const document = join(dir, 'spec', 'api', 'openapi.yaml');
    expect(await refusal(loadOpenApi(document))).toMatch(
      /\$ref "\.\.\/schemas\/shipment\.yaml" is refused: it leads outside .*spec\/api \(the document's folder\); --openapi-root DIR/,
    );
    const api = await loadOpenApi(document, { root: join(dir, 'spec') });
    expect(api.endpoints).toEqual([
      {
        path: 'shipments',
        kind: 'list',
        listBy: 'paging',
        source: 'openapi: GET /tenants/{tenantId}/shipments',
        schema: expect.stringMatching(/^#\//) as string,
        asSingle: { schema: expect.stringMatching(/^#\//) as string },
      },
    ]);
  });

  it('a root that does not hold the document is refused', async () => {
    const dir = await folder(files);
    const elsewhere = await tempDir('carrier-hostile-doc-');
    expect(await refusal(loadOpenApi(join(dir, 'spec', 'api', 'openapi.yaml'), { root: elsewhere }))).toMatch(
      /it is not inside --openapi-root/,
    );
  });

  it('--openapi-root on the command line, CARRIER_OPENAPI_ROOT and "openapiRoot" in a config file', async () => {
    const dir = await folder(files);
    expect(resolveRunOptions({ argv: { openapiRoot: 'spec' } }).openapiRoot).toBe('spec');
    expect(
      resolveRunOptions({ argv: {}, env: optionsFromEnv(RUN_OPTION_KINDS, { CARRIER_OPENAPI_ROOT: '/srv/spec' }) })
        .openapiRoot,
    ).toBe('/srv/spec');
    await writeFile(
      join(dir, 'config.json'),
      JSON.stringify({ openapi: 'spec/api/openapi.yaml', openapiRoot: 'spec' }),
    );
    const { loadConfigFile } = await import('../src/config/options.js');
    expect(loadConfigFile(join(dir, 'config.json'))).toMatchObject({ openapiRoot: join(dir, 'spec') });

    const target = await server();
    const reportsDir = join(dir, 'reports');
    const args = [
      'run',
      '--base-url',
      target.url,
      '--client-id',
      target.clientId,
      '--openapi',
      join(dir, 'spec', 'api', 'openapi.yaml'),
      '--suite',
      'resources',
      '--reports-dir',
      reportsDir,
    ];
    const refused = await runMain(args);
    expect(refused.code, refused.stderr).toBe(2);
    const run = await runMain([...args, '--openapi-root', join(dir, 'spec')]);
    expect(run.stderr).not.toMatch(/refused/);
    const report = JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
    expect(report.target.endpoints).toEqual([
      { path: 'shipments', kind: 'list', listBy: 'paging', source: 'openapi: GET /tenants/{tenantId}/shipments' },
    ]);
    expect(report.verdict).not.toBe('incomplete');
  });
});

describe('bounded parsing: one line naming the limit, within seconds', () => {
  /** A "billion laughs": `levels` anchors, each ten aliases of the one before. */
  function aliasBomb(levels: number): string {
    const lines = [
      'openapi: 3.1.0',
      'info: {title: bomb, version: "1"}',
      'paths: {}',
      'x-bomb:',
      '  l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]',
    ];
    for (let i = 1; i < levels; i += 1)
      lines.push(`  l${i}: &l${i} [${Array.from({ length: 10 }, () => `*l${i - 1}`).join(', ')}]`);
    return `${lines.join('\n')}\n`;
  }

  it('a YAML alias bomb (10^12 values) through the CLI: exit 2 in seconds', async () => {
    const target = await server();
    const dir = await folder({ 'api.yaml': aliasBomb(12) });
    const started = performance.now();
    const result = await runMain([
      'run',
      '--base-url',
      target.url,
      '--client-id',
      target.clientId,
      '--openapi',
      join(dir, 'api.yaml'),
      '--suite',
      'resources',
      '--reports-dir',
      join(dir, 'reports'),
    ]);
    expect((performance.now() - started) / 1000).toBeLessThan(10);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/api\.yaml: it expands to more than 32 MiB with its YAML aliases followed$/) as string,
    ]);
  });

  it('more YAML aliases than the limit', async () => {
    const aliases = Array.from({ length: DOCUMENT_LIMITS.aliases + 1 }, (_, i) => `  a${i}: *x`).join('\n');
    const dir = await folder({ 'api.yaml': `openapi: 3.1.0\nx-anchor: &x 1\nx-many:\n${aliases}\n` });
    expect(await refusal(loadOpenApi(join(dir, 'api.yaml')))).toMatch(/it has more than 10000 YAML aliases/);
  });

  it('an alias inside its own anchor (an endless value) is refused', async () => {
    const dir = await folder({ 'api.yaml': 'openapi: 3.1.0\nx-loop: &x [1, *x]\n' });
    expect(await refusal(loadOpenApi(join(dir, 'api.yaml')))).toMatch(/a YAML alias refers to a node that contains it/);
  });

  it.each([
    ['JSON', 'api.json', `{"openapi": "3.1.0", "x-deep": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`],
    ['YAML', 'api.yaml', `openapi: 3.1.0\nx-deep: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`],
    ['JSON objects', 'api.json', `{"openapi": "3.1.0", "x-deep": ${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`],
  ])('a depth bomb (100 000 levels of %s)', async (_what, name, text) => {
    const dir = await folder({ [name]: text });
    expect(await refusal(loadOpenApi(join(dir, name)))).toMatch(/it nests objects and arrays more than 256 deep/);
  });

  it('nesting within the limit is read, across files too', async () => {
    const deep = (levels: number): unknown =>
      levels === 0 ? { type: 'string' } : { type: 'object', properties: { a: deep(levels - 1) } };
    const dir = await folder({
      'api.json': documentWith({ $ref: 'deep.json' }),
      'deep.json': JSON.stringify(deep(60)),
    });
    const api = await loadOpenApi(join(dir, 'api.json'));
    expect(api.endpoints).toHaveLength(1);
  });

  it('a file over the size limit is refused before it is read', async () => {
    const dir = await folder({ 'api.json': documentWith({ $ref: 'huge.json' }), 'huge.json': '' });
    // Sparse: the size is what stat says, and nothing is read.
    await truncate(join(dir, 'huge.json'), DOCUMENT_LIMITS.fileBytes + 1);
    expect(await refusal(loadOpenApi(join(dir, 'api.json')), 5_000)).toMatch(
      /\$ref "huge\.json" is refused: it is 33554433 bytes, more than the 32 MiB a file of the document may have/,
    );
    await truncate(join(dir, 'api.json'), DOCUMENT_LIMITS.fileBytes + 1);
    expect(await refusal(loadOpenApi(join(dir, 'api.json')), 5_000)).toMatch(
      /api\.json: it is 33554433 bytes, more than the 32 MiB/,
    );
  });

  it('the files of a document together over the total limit are refused', async () => {
    const padding = JSON.stringify({ type: 'string', description: 'x'.repeat(600) });
    const dir = await folder({
      'api.json': documentWith({ allOf: [{ $ref: 'a.json' }, { $ref: 'b.json' }] }),
      'a.json': padding,
      'b.json': padding,
    });
    expect(
      await refusal(loadOpenApi(join(dir, 'api.json'), { limits: { ...DOCUMENT_LIMITS, totalBytes: 1500 } })),
    ).toMatch(/the document's files come to more than 1500 bytes with it/);
    expect((await loadOpenApi(join(dir, 'api.json'))).endpoints).toHaveLength(1);
  });

  it("many $ids matched against many $refs (the parser's quadratic walk) is refused in a moment", async () => {
    const dir = await folder({ 'api.json': slowDocument(20_000) });
    expect(await refusal(loadOpenApi(join(dir, 'api.json')), 5_000)).toMatch(
      /it has 20000 \$id keywords and 20001 distinct \$refs, which @readme\/openapi-parser would compare pairwise/,
    );
  });

  it('recursive schemas still bundle, finite', async () => {
    const dir = await folder({
      'api.json': documentWith({ $ref: 'node.json' }),
      'node.json': JSON.stringify({
        type: 'object',
        properties: { children: { type: 'array', items: { $ref: '#' } } },
      }),
    });
    const api = await loadOpenApi(join(dir, 'api.json'));
    expect(JSON.stringify(api.document).length).toBeLessThan(5_000);
  });
});

/**
 * A document within every limit that takes the parser long (seconds, ~15 s on the 2-core CI
 * machine): `ids` schemas with an `$id`, each the target of a `$ref`, which
 * @readme/openapi-parser compares pairwise (document-files.ts, idMatching).
 */
function slowDocument(ids: number): string {
  const schemas: Record<string, unknown> = {};
  for (let i = 0; i < ids; i += 1) {
    schemas[`S${i}`] = { $id: `urn:example:schema:${i}`, type: 'object', properties: { n: { type: 'string' } } };
    schemas[`R${i}`] = { $ref: `#/components/schemas/S${i}/properties/n` };
  }
  return documentWith({ $ref: '#/components/schemas/S0' }, { components: { schemas } });
}
const SLOW_IDS = 8_500;

describe('a document that takes long to read is stopped with the run', () => {
  it('loadOpenApiInThread (from the build) terminates its thread on abort and rejects with the reason', async () => {
    const built = (await import(new URL('../dist/src/runner/document-thread.js', import.meta.url).href)) as {
      loadOpenApiInThread: typeof loadOpenApiInThread;
    };
    const dir = await folder({ 'api.json': slowDocument(SLOW_IDS) });
    const controller = new AbortController();
    const loading = built.loadOpenApiInThread(join(dir, 'api.json'), { signal: controller.signal });
    setTimeout(() => controller.abort('the run exceeded its --deadline of 1 s'), 500);
    const started = performance.now();
    await expect(loading).rejects.toThrow('the run exceeded its --deadline of 1 s');
    expect((performance.now() - started) / 1000).toBeLessThan(2);
  });

  /** The CLI (from dist/) on a slow document; `stop` ends it. */
  async function runSlow(
    extra: string[],
    stop?: NodeJS.Signals,
  ): Promise<{ code: number | null; stderr: string; seconds: number; afterStop: number; report: RunReport }> {
    const target = await startReferenceServer({ tokenTtlSeconds: 60 });
    cleanup.push(() => target.close());
    const dir = await folder({ 'api.json': slowDocument(SLOW_IDS) });
    const reportsDir = join(dir, 'reports');
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [
        BIN,
        'run',
        '--base-url',
        target.url,
        '--client-id',
        target.clientId,
        '--openapi',
        join(dir, 'api.json'),
        '--suite',
        'resources',
        '--reports-dir',
        reportsDir,
        ...extra,
      ],
      {
        env: { ...process.env, CARRIER_CLIENT_SECRET: target.clientSecret, CARRIER_PROFILE: '1', NO_COLOR: '1' },
      },
    );
    let stderr = '';
    let sent = false;
    let stoppedAt = 0;
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      // Vitest is loaded: the document has been on its thread since before Vitest's loading began.
      if (stop && !sent && stderr.includes('battery: vitest loaded')) {
        sent = true;
        stoppedAt = performance.now();
        child.kill(stop);
      }
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), 45_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(killer);
    const seconds = (performance.now() - started) / 1000;
    const afterStop = stoppedAt === 0 ? Number.NaN : (performance.now() - stoppedAt) / 1000;
    const report = JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
    return { code, stderr, seconds, afterStop, report };
  }

  it('--deadline ends the run while the document is read: exit 3, a report marked incomplete', async () => {
    const { code, stderr, seconds, report } = await runSlow(['--deadline', '1']);
    expect(code, stderr).toBe(3);
    expect(seconds).toBeLessThan(8);
    expect(report.verdict).toBe('incomplete');
    expect(report.incompleteReason).toBe('the run exceeded its --deadline of 1 s');
    // Stopped before the document was read: no endpoint of it in the report.
    expect(report.target.endpoints).toBeUndefined();
    expect(stderr).toMatch(/carrier-conformance: the run exceeded its --deadline of 1 s/);
  });

  it('SIGTERM ends the run while the document is read: exit 3, a report marked incomplete', async () => {
    const { code, stderr, afterStop, report } = await runSlow([], 'SIGTERM');
    expect(code, stderr).toBe(3);
    // The document alone would take ~15 s more: the signal, not the document, ended the run.
    expect(afterStop).toBeLessThan(5);
    expect(report.verdict).toBe('incomplete');
    expect(report.incompleteReason).toBe('interrupted by SIGTERM');
    expect(report.target.endpoints).toBeUndefined();
  });
});
