import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EndpointSpec } from '../src/carrier/endpoint-specs.js';
import { loadOpenApi } from '../src/openapi/load.js';
import {
  accuracyOf,
  ListLabelsSchema,
  renderAccuracy,
  scoreDocument,
  type ListLabel,
} from '../benchmarks/corpus/list-scoring.js';
import { reRoot } from './support/document-mock.js';
import { tempDir } from './support/harness.js';

// `npm run corpus:lists` (benchmarks/corpus/list-accuracy.ts) scores the harness's list detection
// against hand labels of public documents; the documents are a download, not part of the tests.
// What is tested here is what the figures rest on: the label file, the scoring, and the re-rooting.

const ROOT = new URL('..', import.meta.url).pathname;

const label = (path: string, l: ListLabel['label']): ListLabel => ({
  document: 'x.json',
  path,
  label: l,
  why: `${l} by reading`,
});
const endpoint = (path: string, kind: EndpointSpec['kind'], listBy?: EndpointSpec['listBy']): EndpointSpec => ({
  path,
  kind,
  source: 'openapi: test',
  ...(listBy ? { listBy } : {}),
});

describe('the hand labels of list detection', () => {
  it('label every GET of at least ten documents once, sorted, each with its reason', async () => {
    const labels = ListLabelsSchema.parse(
      JSON.parse(await readFile(join(ROOT, 'benchmarks/corpus/list-labels.json'), 'utf8')),
    );
    const documents = new Set(labels.map((l) => l.document));
    expect(documents.size).toBeGreaterThanOrEqual(10);
    for (const d of documents)
      expect(labels.filter((l) => l.document === d && l.label === 'list').length, d).toBeGreaterThan(0);
  });

  it('refuse a file that is unsorted, repeats a GET or leaves a reason out', () => {
    expect(ListLabelsSchema.safeParse([label('/b', 'list'), label('/a', 'single')]).success).toBe(false);
    expect(ListLabelsSchema.safeParse([label('/a', 'list'), label('/a', 'single')]).success).toBe(false);
    expect(ListLabelsSchema.safeParse([{ ...label('/a', 'list'), why: ' ' }]).success).toBe(false);
    expect(ListLabelsSchema.safeParse([{ ...label('/a', 'list'), document: '../x.json' }]).success).toBe(false);
  });
});

describe('scoring the harness against the labels', () => {
  const labels = [
    label('/', 'single'),
    label('/found', 'list'),
    label('/lost', 'list'),
    label('/missed', 'list'),
    label('/resource', 'single'),
    label('/shared_items#folders', 'single'),
    label('/taken', 'single'),
    label('/unclear', 'ambiguous'),
  ];
  const endpoints = [
    endpoint('root', 'single'),
    endpoint('found', 'list', 'wrapped-array'),
    endpoint('missed', 'single'),
    endpoint('resource', 'single'),
    // A harness that sends the path the wire sees: the `#…` of the path key is not part of it.
    endpoint('shared_items', 'single'),
    endpoint('taken', 'list', 'paging'),
    endpoint('unclear', 'list', 'array'),
    endpoint('extra', 'single'),
  ];
  const score = scoreDocument('x.json', labels, endpoints);

  it('counts lists as the positive class, a labelled list the harness has no endpoint for as missed, and leaves ambiguous GETs out', () => {
    expect({ tp: score.tp, fp: score.fp, fn: score.fn, tn: score.tn, absent: score.absent }).toEqual({
      tp: 1,
      fp: 1,
      fn: 2,
      tn: 3,
      absent: 1,
    });
    expect(score.labelled).toEqual({ list: 3, single: 4, ambiguous: 1 });
    expect(score.ambiguousAs).toEqual({ list: 1, single: 0 });
    expect(score.precision).toBe(0.5);
    expect(score.recall).toBeCloseTo(1 / 3);
    expect(score.unlabelled).toEqual(['extra']);
  });

  it('lists every disagreement with what the harness made of it, and every ambiguous GET', () => {
    const accuracy = accuracyOf([score], { labels: 'labels.json', corpus: 'corpus' });
    expect(accuracy.disagreements.map((d) => [d.path, d.harness, d.listBy])).toEqual([
      ['/lost', 'absent', undefined],
      ['/missed', 'single', undefined],
      ['/taken', 'list', 'paging'],
    ]);
    expect(accuracy.ambiguous.map((d) => d.path)).toEqual(['/unclear']);
    expect(accuracy.total.meetsTargets).toBe(false);
    const markdown = renderAccuracy(accuracy);
    expect(markdown).toContain('| x.json | 8 | 3 | 4 | 1 | 1 | 1 | 2 | 3 | 1 | 50.0 % | 33.3 % |');
    expect(markdown).toMatch(
      /Lists the harness takes for single resources \(FN\) \(2\)[\s\S]*\| x\.json \| \/missed \| list \| single \|/,
    );
    expect(markdown).toMatch(
      /Single resources the harness takes for lists \(FP\) \(1\)[\s\S]*\| \/taken \| single \| list \(paging\) \|/,
    );
  });

  it('counts every list of a document that could not be read as missed, naming why', () => {
    const unread = scoreDocument('x.json', labels, [], 'cannot read it');
    expect({ tp: unread.tp, fn: unread.fn, fp: unread.fp, absent: unread.absent }).toEqual({
      tp: 0,
      fn: 3,
      fp: 0,
      absent: 8,
    });
    expect(renderAccuracy(accuracyOf([unread], { labels: 'l', corpus: 'c' }))).toContain(
      'x.json (not read: cannot read it)',
    );
  });

  it("prints a document's text as plain Markdown text", () => {
    const hostile = scoreDocument(
      'x.json',
      [{ ...label('/a|b', 'list'), why: '[click](https://evil.example) `x`' }],
      [],
    );
    const markdown = renderAccuracy(accuracyOf([hostile], { labels: 'l', corpus: 'c' }));
    expect(markdown).toContain('/a\\|b');
    expect(markdown).not.toContain('[click](https://');
  });
});

describe('re-rooting a document under the tenant', () => {
  it("keeps a GET readable whose $ref names an operation left out (DigitalOcean answers with its POST's schema)", async () => {
    const document = {
      openapi: '3.0.3',
      info: { title: 't', version: '1' },
      paths: {
        '/things': {
          post: {
            responses: {
              '201': {
                description: 'made',
                content: {
                  'application/json': {
                    schema: {
                      type: 'object',
                      properties: { thing: { type: 'object', properties: { id: { type: 'string' } } } },
                    },
                  },
                },
              },
            },
          },
          get: {
            responses: {
              '200': {
                description: 'all',
                content: {
                  'application/json': {
                    schema: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' } } } },
                  },
                },
              },
            },
          },
        },
        '/things/{id}': {
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          get: { responses: { '200': { $ref: '#/paths/~1things/post/responses/201' } } },
        },
      },
    };
    const rooted = reRoot(document);
    expect(JSON.stringify(rooted)).not.toContain('/post/');
    const file = join(await tempDir(), 'rooted.json');
    await writeFile(file, JSON.stringify(rooted));
    const api = await loadOpenApi(file);
    expect(api.endpoints.map((e) => [e.path, e.kind])).toEqual([
      ['things', 'list'],
      ['things/{id}', 'single'],
    ]);
  });
});
