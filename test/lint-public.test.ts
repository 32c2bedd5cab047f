import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lint } from '../src/lint/command.js';
import type { LintFinding } from '../src/lint/outputs.js';
import { spectralFindings } from './support/spectral.js';
import { pointerOf } from '../src/openapi/pointer.js';

/**
 * `carrier-conformance lint` (issue 33) on real public documents, as their authors published them
 * (the devDependency @readme/oas-examples, pinned: the lines below are those of its 8.2.2): the
 * Swagger Petstore "expanded" (OpenAPI 3.0) and the Train Travel API (OpenAPI 3.1). At test time
 * each is written to a temp folder as is and re-rooted under /tenants/{tenantId}/, with tenantId
 * declared a plain string (as a public document would): OAS-TENANT-UUID then has something to
 * judge. The Spectral ruleset (spectral.yaml) must find what lint finds on them, where lint finds it.
 */

const ROOT = resolve(import.meta.dirname, '..');
const EXAMPLES = join(ROOT, 'node_modules/@readme/oas-examples');
const PETSTORE = 'petstore-expanded.json';
const TRAIN = 'train-travel.json';
const SOURCES = { [PETSTORE]: '3.0/json/petstore-expanded.json', [TRAIN]: '3.1/json/train-travel.json' } as const;

type Doc = { paths: Record<string, Record<string, unknown>> } & Record<string, unknown>;

/** Every path under /tenants/{tenantId}/, the tenantId path parameter first at path level. */
function reroot(doc: Doc): Doc {
  const paths: Doc['paths'] = {};
  for (const [template, item] of Object.entries(doc.paths)) {
    const { parameters, ...rest } = item;
    const own = Array.isArray(parameters) ? (parameters as unknown[]) : [];
    paths[`/tenants/{tenantId}${template}`] = {
      parameters: [{ name: 'tenantId', in: 'path', required: true, schema: { type: 'string' } }, ...own],
      ...rest,
    };
  }
  return { ...doc, paths };
}

let dir: string;
const rerooted = (name: string): string => join(dir, name);
const original = (name: string): string => join(dir, `original-${name}`);

/** The rule, the file (as named in the temp folder), line and pointer: what two tools can agree on. */
const key = (f: { rule: string; file: string; line?: number | undefined; pointer: string }): string =>
  `${f.rule} ${f.file.startsWith(`${dir}/`) ? f.file.slice(dir.length + 1) : f.file}:${f.line ?? '?'} ${f.pointer}`;
const counts = (findings: LintFinding[]): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const f of findings) out[f.rule] = (out[f.rule] ?? 0) + 1;
  return out;
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lint-public-'));
  for (const [name, source] of Object.entries(SOURCES)) {
    const doc = JSON.parse(await readFile(join(EXAMPLES, source), 'utf8')) as Doc;
    await writeFile(original(name), `${JSON.stringify(doc, null, 2)}\n`);
    await writeFile(rerooted(name), `${JSON.stringify(reroot(doc), null, 2)}\n`);
  }
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('lint: real public documents re-rooted under /tenants/{tenantId}/', () => {
  it('the Swagger Petstore expanded (3.0): no Accept-Version, no 400, no security, no token endpoint, tenantId not a UUID, an unpaged list, an optional tag', async () => {
    const { findings } = await lint([rerooted(PETSTORE)]);
    expect(counts(findings)).toEqual({
      'OAS-VERSION-HEADER': 4,
      'OAS-VERSION-400': 4,
      'OAS-BEARER': 4,
      // One per path-level parameter, naming the two operations of its path that share it (one mistake, one finding).
      'OAS-TENANT-UUID': 2,
      'OAS-PAGE-PARAMS': 1,
      'OAS-PAGE-HEADERS': 1,
      'OAS-NULLABLE': 1,
      'OAS-TOKEN-ENDPOINT': 1,
    });
    const keys = findings.map(key);
    expect(keys).toEqual(
      expect.arrayContaining([
        `OAS-VERSION-HEADER ${PETSTORE}:35 /paths/~1tenants~1{tenantId}~1pets/get`,
        `OAS-BEARER ${PETSTORE}:176 /paths/~1tenants~1{tenantId}~1pets~1{id}/delete`,
        `OAS-TENANT-UUID ${PETSTORE}:133 /paths/~1tenants~1{tenantId}~1pets~1{id}/parameters/0/schema`,
        `OAS-PAGE-PARAMS ${PETSTORE}:35 /paths/~1tenants~1{tenantId}~1pets/get`,
        `OAS-PAGE-HEADERS ${PETSTORE}:64 /paths/~1tenants~1{tenantId}~1pets/get/responses/200`,
        // Pet is allOf [NewPet, {id}]: the optional tag is reported once, where NewPet writes it.
        `OAS-NULLABLE ${PETSTORE}:239 /components/schemas/NewPet/properties/tag`,
        `OAS-TOKEN-ENDPOINT ${PETSTORE}:1 `,
      ]),
    );
    // Only GET /pets returns a list (GET /pets/{id} returns one Pet).
    expect(
      findings
        .filter((f) => f.rule.startsWith('OAS-PAGE-'))
        .every((f) => f.pointer.startsWith('/paths/~1tenants~1{tenantId}~1pets/get')),
    ).toBe(true);
  });

  it('the Train Travel API (3.1): no Accept-Version, tenantId not a UUID, wrapped lists without paging, 45 optional response properties without null (its writeOnly card details aside), an authorization-code flow only', async () => {
    const { findings } = await lint([rerooted(TRAIN)]);
    expect(counts(findings)).toEqual({
      'OAS-VERSION-HEADER': 7,
      'OAS-TENANT-UUID': 5,
      // stations, trips and bookings: `{data: [...], links}` lists that declare neither page/size nor the headers.
      'OAS-PAGE-PARAMS': 3,
      'OAS-PAGE-HEADERS': 3,
      'OAS-NULLABLE': 45,
      'OAS-TOKEN-ENDPOINT': 1,
    });
    // A writeOnly property (the card's cvc) is never served: the rule for what responses carry does not reach it.
    expect(findings.filter((f) => /\/cvc$/.test(f.pointer))).toEqual([]);
    expect(findings.map(key)).toEqual(
      expect.arrayContaining([
        `OAS-VERSION-HEADER ${TRAIN}:790 /paths/~1tenants~1{tenantId}~1bookings~1{bookingId}~1payment/post`,
        `OAS-TENANT-UUID ${TRAIN}:55 /paths/~1tenants~1{tenantId}~1stations/parameters/0/schema`,
        `OAS-NULLABLE ${TRAIN}:1058 /components/schemas/Station/properties/timezone`,
        // Inside an anyOf arm of a component.
        `OAS-NULLABLE ${TRAIN}:1379 /components/schemas/BookingPayment/properties/source/anyOf/1/properties/sort_code`,
        // An inline allOf arm of a response body.
        `OAS-NULLABLE ${TRAIN}:84 /paths/~1tenants~1{tenantId}~1stations/get/responses/200/content/application~1json/schema/allOf/1/properties/data`,
        `OAS-TOKEN-ENDPOINT ${TRAIN}:995 /components/securitySchemes`,
      ]),
    );
    // OAuth 2.0 on every operation (top-level security) is a bearer token; every operation documents 400.
    expect(findings.filter((f) => f.rule === 'OAS-BEARER' || f.rule === 'OAS-VERSION-400')).toEqual([]);
  });

  it('as published (not re-rooted): OAS-TENANT-PATH on every path, and no OAS-TENANT-UUID', async () => {
    for (const name of [PETSTORE, TRAIN]) {
      const doc = JSON.parse(await readFile(original(name), 'utf8')) as Doc;
      const { findings } = await lint([original(name)]);
      const tenantPaths = findings.filter((f) => f.rule === 'OAS-TENANT-PATH');
      expect(tenantPaths.map((f) => f.pointer).sort(), name).toEqual(
        Object.keys(doc.paths)
          .map((p) => `/paths/${pointerOf(p)}`)
          .sort(),
      );
      for (const f of tenantPaths) expect(f.line, key(f)).toBeGreaterThan(0);
      expect(
        findings.filter((f) => f.rule === 'OAS-TENANT-UUID'),
        name,
      ).toEqual([]);
    }
    expect((await lint([original(PETSTORE)])).findings.map(key)).toContain(
      `OAS-TENANT-PATH original-${PETSTORE}:24 /paths/~1pets`,
    );
  });
});

describe('the Spectral ruleset (spectral.yaml) on the re-rooted public documents', () => {
  it("@stoplight/spectral-cli finds what lint finds, at the same file, line and pointer, a $ref'd property at its properties object", async () => {
    const documents = [rerooted(PETSTORE), rerooted(TRAIN)];
    const ours = (await lint(documents)).findings;
    const theirs = await spectralFindings(documents);
    const distinct = (list: string[]): string[] => [...new Set(list)].sort();
    expect(distinct(theirs.map(key))).toEqual(distinct(ours.map(key)));
    expect(theirs.length).toBeGreaterThan(60);
    // `links: {$ref: Links-Self}` (and Links-Booking), optional and not nullable, is reported at the
    // properties object holding it, where it is written, with its name: not at Links-Self, which
    // is where Spectral puts a result whose path ends on a $ref (docs/design.md).
    const properties = (path: string, code: number): string =>
      `/paths/~1tenants~1{tenantId}~1${path}/responses/${code}/content/application~1json/schema/allOf/1/properties`;
    const atProperties = ours.filter((f) => f.pointer.endsWith('/properties'));
    expect(atProperties.map(key).sort()).toEqual(
      [
        `OAS-NULLABLE ${TRAIN}:569 ${properties('bookings/post', 201)}`,
        `OAS-NULLABLE ${TRAIN}:672 ${properties('bookings~1{bookingId}/get', 200)}`,
        `OAS-NULLABLE ${TRAIN}:860 ${properties('bookings~1{bookingId}~1payment/post', 200)}`,
      ].sort(),
    );
    expect(atProperties.map((f) => f.message.split(' is ')[0])).toEqual([
      'property "links"',
      'property "links"',
      'property "links"',
    ]);
    expect(theirs.map(key).filter((k) => /\/components\/schemas\/Links-\w+$/.test(k))).toEqual([]);
  });
});
