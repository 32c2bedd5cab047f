/**
 * A document read once in a process is not parsed again while none of its files changed
 * (src/runner/document-thread.ts, the memo): the harness's own tests run the battery hundreds of
 * times on the reference server's document. Any change, to the document or to a file its `$ref`s
 * reach, and it is read anew; a file that is no longer a regular one is refused as on a first read.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { loadOpenApiInThread } from '../src/runner/document-thread.js';
import { tempDir } from './support/harness.js';

/** From the build, as runs load it: with its thread (`npm test` builds first). */
const built = (): Promise<{ loadOpenApiInThread: typeof loadOpenApiInThread; documentReads: () => number }> =>
  import(new URL('../dist/src/runner/document-thread.js', import.meta.url).href) as Promise<{
    loadOpenApiInThread: typeof loadOpenApiInThread;
    documentReads: () => number;
  }>;

/** A document with one tenant list whose item schema is in a file beside it. */
async function documentWithItemFile(itemProperties: Record<string, unknown>): Promise<string> {
  const dir = await tempDir('carrier-memo-');
  await mkdir(join(dir, 'schemas'));
  await writeFile(join(dir, 'schemas', 'item.json'), JSON.stringify({ type: 'object', properties: itemProperties }));
  await writeFile(
    join(dir, 'api.json'),
    JSON.stringify({
      openapi: '3.1.0',
      info: { title: 'memo', version: '1' },
      paths: {
        '/tenants/{tenantId}/shipments': {
          get: {
            parameters: [{ name: 'tenantId', in: 'path', required: true, schema: { type: 'string' } }],
            responses: {
              '200': {
                description: 'ok',
                content: {
                  'application/json': { schema: { type: 'array', items: { $ref: 'schemas/item.json' } } },
                },
              },
            },
          },
        },
      },
    }),
  );
  return join(dir, 'api.json');
}

/** Whether the document as read has the item property `name` (its item schema's file is bundled in). */
const hasProperty = (api: Awaited<ReturnType<typeof loadOpenApiInThread>>, name: string): boolean =>
  JSON.stringify(api.document).includes(`"${name}":{"type"`);

describe('a document read before in this process', () => {
  it('is answered again, a copy of its own, without a thread, while its files are unchanged', async () => {
    const { loadOpenApiInThread, documentReads } = await built();
    const file = await documentWithItemFile({ id: { type: 'string' } });
    const first = await loadOpenApiInThread(file);
    const reads = documentReads();
    const again = await loadOpenApiInThread(file);
    expect(documentReads()).toBe(reads);
    expect(again).toEqual(first);
    expect(again).not.toBe(first);
    expect(again.document).not.toBe(first.document);
  });

  it('is read anew when a file its $ref reaches changes, and when the document itself does', async () => {
    const { loadOpenApiInThread, documentReads } = await built();
    const file = await documentWithItemFile({ id: { type: 'string' } });
    const reads = documentReads();
    expect(hasProperty(await loadOpenApiInThread(file), 'weight')).toBe(false);
    await writeFile(
      join(file, '..', 'schemas', 'item.json'),
      JSON.stringify({ type: 'object', properties: { id: { type: 'string' }, weight: { type: 'number' } } }),
    );
    expect(hasProperty(await loadOpenApiInThread(file), 'weight')).toBe(true);
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace('"title":"memo"', '"title":"memo, edited"'));
    expect(JSON.stringify((await loadOpenApiInThread(file)).document)).toContain('memo, edited');
    expect(documentReads()).toBe(reads + 3);
  });

  it('is refused as on a first read when a file it read is no longer a regular file', async () => {
    const { loadOpenApiInThread } = await built();
    const file = await documentWithItemFile({ id: { type: 'string' } });
    await loadOpenApiInThread(file);
    const item = join(file, '..', 'schemas', 'item.json');
    await rm(item);
    execFileSync('mkfifo', [item]);
    await expect(loadOpenApiInThread(file)).rejects.toThrow(/item\.json.*FIFO|FIFO.*item\.json/);
  });
});
