import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import ajvDraft04 from 'ajv-draft-04';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { lint } from '../src/lint/command.js';
import { renderJUnit, renderSarif, type LintFinding } from '../src/lint/outputs.js';
import { LINT_RULES } from '../src/lint/rules.js';
import { XSD_FILES, loadXsd, validateAgainst } from './fixtures/report/xml.js';
import { writeRuleDocuments } from './support/lint-corpus.js';
import { spectralFindings } from './support/spectral.js';

/**
 * `carrier-conformance lint` (issue 33) on its corpus (test/fixtures/lint/): the reference
 * server's own document, two public-style documents re-rooted under /tenants/{tenantId}/, and a
 * document per rule that breaks it with its fix beside it (written from one base document and an
 * overlay per rule: test/support/lint-corpus.ts). The Spectral ruleset (spectral.yaml) must find
 * the same on all of them.
 */

const ROOT = resolve(import.meta.dirname, '..');
const CORPUS = 'test/fixtures/lint';
const RULE_DOCS = LINT_RULES.map((r) => r.id);
const PUBLIC = [`${CORPUS}/public/petstore.json`, `${CORPUS}/public/shipping/openapi.yaml`];

beforeAll(async () => {
  // Every rule has its pair of documents, and only the rules have: none is left out or made up.
  expect((await writeRuleDocuments()).sort()).toEqual([...RULE_DOCS].sort());
});

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, { out: (t) => void (out += t), err: (t) => void (err += `${t}\n`), color: false });
  return { code, out, err };
}

/** What two tools can agree on: the rule, and the file, line and pointer it was written at. */
const key = (f: { rule: string; file: string; line?: number | undefined; pointer: string }): string =>
  `${f.rule} ${f.file}:${f.line ?? '?'} ${f.pointer}`;

describe('lint: the reference document', () => {
  it('lints clean, --strict included', async () => {
    const { code, out } = await cli(['lint', 'docs/openapi.yaml']);
    expect(code).toBe(0);
    expect(out).toMatch(/docs\/openapi\.yaml: 13 rules passed, 0 failed, 0 warned \(0 findings\)/);
    expect((await lint(['docs/openapi.yaml'])).findings).toEqual([]);
    expect((await cli(['lint', '--strict', 'docs/openapi.yaml'])).code).toBe(0);
  });
});

describe('lint: what it is given', () => {
  it('a URL: says lint takes a file and how to get one, exit 2, before reading anything', async () => {
    const { code, out, err } = await cli(['lint', 'docs/openapi.yaml', 'https://api.example.com/openapi.json']);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err.trim()).toBe(
      'carrier-conformance: lint: "https://api.example.com/openapi.json" is a URL; lint takes a file: download the document first (curl -fsSL -o openapi.yaml URL) and give its path',
    );
  });
});

describe('lint: one document per rule, broken and fixed', () => {
  it.each(RULE_DOCS)('%s: the broken document has findings of that rule only; its fix has none', async (id) => {
    const rule = LINT_RULES.find((r) => r.id === id);
    const bad = await lint([`${CORPUS}/rules/${id}.bad.yaml`]);
    expect(bad.findings.length).toBeGreaterThan(0);
    expect(new Set(bad.findings.map((f) => f.rule))).toEqual(new Set([id]));
    for (const f of bad.findings) expect(f.line, key(f)).toBeGreaterThan(0);
    const fixed = await lint([`${CORPUS}/rules/${id}.fixed.yaml`]);
    expect(fixed.findings).toEqual([]);
    const { code } = await cli(['lint', `${CORPUS}/rules/${id}.bad.yaml`]);
    expect(code).toBe(rule?.level === 'MUST' ? 1 : 0);
    expect((await cli(['lint', '--strict', `${CORPUS}/rules/${id}.bad.yaml`])).code).toBe(1);
    expect((await cli(['lint', `${CORPUS}/rules/${id}.fixed.yaml`])).code).toBe(0);
  });
});

describe('lint: public-style documents re-rooted under /tenants/{tenantId}/', () => {
  it('the Swagger Petstore (3.0, JSON): no version header, no security, no token, tenantId not a UUID, unpaged list, an optional tag', async () => {
    const report = await lint([PUBLIC[0] as string]);
    const file = PUBLIC[0] as string;
    expect(report.findings.map(key).sort()).toEqual(
      [
        `OAS-BEARER ${file}:13 /paths/~1tenants~1{tenantId}~1pets/get`,
        `OAS-BEARER ${file}:29 /paths/~1tenants~1{tenantId}~1pets/post`,
        `OAS-BEARER ${file}:42 /paths/~1tenants~1{tenantId}~1pets~1{petId}/get`,
        `OAS-NULLABLE ${file}:62 /components/schemas/Pet/properties/tag`,
        `OAS-PAGE-HEADERS ${file}:21 /paths/~1tenants~1{tenantId}~1pets/get/responses/200`,
        `OAS-PAGE-PARAMS ${file}:13 /paths/~1tenants~1{tenantId}~1pets/get`,
        // The path's parameter, shared by its GET and POST: one finding naming both (issue 42 item 6).
        `OAS-TENANT-UUID ${file}:12 /paths/~1tenants~1{tenantId}~1pets/parameters/0/schema`,
        `OAS-TENANT-UUID ${file}:41 /paths/~1tenants~1{tenantId}~1pets~1{petId}/parameters/0/schema`,
        `OAS-TOKEN-ENDPOINT ${file}:1 `,
        `OAS-VERSION-400 ${file}:20 /paths/~1tenants~1{tenantId}~1pets/get/responses`,
        `OAS-VERSION-400 ${file}:34 /paths/~1tenants~1{tenantId}~1pets/post/responses`,
        `OAS-VERSION-400 ${file}:47 /paths/~1tenants~1{tenantId}~1pets~1{petId}/get/responses`,
        `OAS-VERSION-HEADER ${file}:13 /paths/~1tenants~1{tenantId}~1pets/get`,
        `OAS-VERSION-HEADER ${file}:29 /paths/~1tenants~1{tenantId}~1pets/post`,
        `OAS-VERSION-HEADER ${file}:42 /paths/~1tenants~1{tenantId}~1pets~1{petId}/get`,
      ].sort(),
    );
  });

  it('a Stripe-style shipping API (3.1, YAML, schemas in a second file): findings located in the file they are written in', async () => {
    const report = await lint([PUBLIC[1] as string]);
    const api = PUBLIC[1] as string;
    const schemas = `${CORPUS}/public/shipping/schemas.yaml`;
    expect(report.findings.map(key).sort()).toEqual(
      [
        `OAS-BEARER ${api}:57 /paths/~1tenants~1{tenantId}~1shipments/post/security/1`,
        `OAS-NULLABLE ${schemas}:22 /Shipment/properties/metadata`,
        `OAS-NULLABLE ${schemas}:39 /Error/properties/error/properties/message`,
        `OAS-NULLABLE ${schemas}:40 /Error/properties/error/properties/param`,
        `OAS-NULL-REQUIRED ${schemas}:17 /Shipment/properties/description`,
        `OAS-NULL-REQUIRED ${schemas}:20 /Shipment/properties/tracking_number`,
        // A wrapped list, `{object: list, data: [...], has_more}`, is a list as the run reads it (src/openapi/endpoint-model.ts).
        `OAS-PAGE-HEADERS ${api}:38 /paths/~1tenants~1{tenantId}~1shipments/get/responses/200`,
        `OAS-PAGE-PARAMS ${api}:30 /paths/~1tenants~1{tenantId}~1shipments/get`,
        `OAS-TENANT-PATH ${api}:14 /paths/~1v1~1balance`,
        `OAS-TOKEN-ENDPOINT ${api}:92 /components/securitySchemes/oauth/flows/clientCredentials/tokenUrl`,
        `OAS-VERSION-400 ${api}:79 /paths/~1tenants~1{tenantId}~1shipments~1{shipment}/get/responses`,
        `OAS-VERSION-HEADER ${api}:15 /paths/~1v1~1balance/get`,
        `OAS-VERSION-HEADER ${api}:30 /paths/~1tenants~1{tenantId}~1shipments/get`,
        `OAS-VERSION-HEADER ${api}:52 /paths/~1tenants~1{tenantId}~1shipments/post`,
        `OAS-VERSION-HEADER ${api}:75 /paths/~1tenants~1{tenantId}~1shipments~1{shipment}/get`,
      ].sort(),
    );
  });
});

describe('lint: formats', () => {
  let findings: LintFinding[];
  let documents: string[];
  beforeAll(async () => {
    documents = [...PUBLIC, 'docs/openapi.yaml'];
    ({ findings } = await lint(documents));
  });

  it('console: grouped by rule, each finding with file:line:column and pointer', async () => {
    const { out } = await cli(['lint', PUBLIC[0] as string]);
    expect(out).toMatch(
      /^FAIL OAS-VERSION-HEADER \(MUST\) .*\[spec §Versioning 1; spec §Endpoints\]\n {7}test\/fixtures\/lint\/public\/petstore\.json:13:\d+ \/paths\/~1tenants~1\{tenantId\}~1pets\/get\n/m,
    );
    expect(out).toMatch(/^ok {3}OAS-TENANT-PATH /m);
  });

  it('SARIF: valid against the SARIF 2.1.0 JSON schema; every finding at its file and line', async () => {
    const schema = JSON.parse(await readFile(join(ROOT, CORPUS, 'sarif/sarif-2.1.0-rtm.5.json'), 'utf8')) as object;
    // A CommonJS module: its default export is the class, under `default` of what Node imports.
    const ajv = new ajvDraft04.default({
      allErrors: true,
      strict: false,
      validateFormats: false,
      unicodeRegExp: false,
    });
    // unicodeRegExp off: the schema's language pattern (`^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$`) is an ECMA-262 regex only without the u flag.
    const validate = ajv.compile(schema);
    const sarif = JSON.parse(renderSarif({ documents, findings, strict: false })) as {
      runs: {
        results: {
          ruleId: string;
          level: string;
          locations: { physicalLocation: { artifactLocation: { uri: string }; region?: { startLine: number } } }[];
        }[];
        tool: { driver: { rules: { id: string }[] } };
      }[];
    };
    expect(validate(sarif), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
    const run = sarif.runs[0];
    expect(run?.tool.driver.rules.map((r) => r.id)).toEqual(LINT_RULES.map((r) => r.id));
    expect(run?.results).toHaveLength(findings.length);
    const metadata = run?.results.find(
      (r) =>
        r.ruleId === 'OAS-NULLABLE' && r.locations[0]?.physicalLocation.artifactLocation.uri.endsWith('schemas.yaml'),
    );
    expect(metadata?.locations[0]?.physicalLocation.region?.startLine).toBeGreaterThan(0);
    expect(run?.results.find((r) => r.ruleId === 'OAS-VERSION-400')?.level).toBe('warning');
    expect(run?.results.find((r) => r.ruleId === 'OAS-BEARER')?.level).toBe('error');
  });

  it.each(XSD_FILES)('JUnit: a test case per rule and document, valid against %s', async (xsd) => {
    const xml = renderJUnit({ documents, findings, strict: false });
    expect(await validateAgainst(xml, await loadXsd(xsd))).toEqual({ valid: true, errors: [] });
    expect(xml.match(/<testcase /g)).toHaveLength(LINT_RULES.length * documents.length);
    // The reference document's SHOULD findings are a pass with a WARNING, as a run's warnings are.
    expect(xml).toContain('WARNING (SHOULD): 3 findings');
  });

  it('--format json --output FILE: the report in the file, the console summary on stdout', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lint-'));
    try {
      const file = join(dir, 'lint.json');
      const { code, out } = await cli(['lint', '--format', 'json', '--output', file, PUBLIC[1] as string]);
      expect(code).toBe(1);
      expect(out).toContain('FAIL OAS-TOKEN-ENDPOINT');
      const json = JSON.parse(await readFile(file, 'utf8')) as { findings: LintFinding[]; rules: unknown[] };
      expect(json.rules).toHaveLength(LINT_RULES.length);
      expect(json.findings.map(key).sort()).toEqual((await lint([PUBLIC[1] as string])).findings.map(key).sort());
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('lint: untrusted documents, as --openapi reads them', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lint-hostile-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a $ref outside the document folder is refused (exit 2, one line)', async () => {
    const file = join(dir, 'outside.yaml');
    await writeFile(
      file,
      "openapi: 3.1.0\ninfo: {title: x, version: '1'}\npaths:\n  /tenants/{tenantId}/x:\n    get:\n      responses:\n        '200': {$ref: '../../etc/passwd'}\n",
    );
    const { code, err } = await cli(['lint', file]);
    expect(code).toBe(2);
    expect(err).toMatch(
      /^carrier-conformance: lint .*outside\.yaml: \$ref "..\/..\/etc\/passwd" is refused: it leads outside /,
    );
  });

  it('a billion laughs is refused before anything walks it', async () => {
    const file = join(dir, 'laughs.yaml');
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i += 1)
      levels.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(',')}]`,
      );
    await writeFile(
      file,
      `openapi: 3.1.0\ninfo: {title: x, version: '1'}\npaths: {}\nx-lol:\n${levels.map((l) => `  ${l}`).join('\n')}\n`,
    );
    const { code, err } = await cli(['lint', file]);
    expect(code).toBe(2);
    expect(err).toMatch(/expands to more than|YAML aliases/);
  });

  it('not Swagger 2.0 nor OpenAPI 3.0, 3.1 or 3.2: exit 2', async () => {
    const file = join(dir, 'swagger.json');
    await writeFile(file, JSON.stringify({ swagger: '1.2', info: { title: 'x', version: '1' }, paths: {} }));
    expect(await cli(['lint', file])).toMatchObject({
      code: 2,
      err: expect.stringMatching(
        /Swagger 1\.2 is not supported; give a Swagger 2\.0 or an OpenAPI 3\.0, 3\.1 or 3\.2 document/,
      ) as unknown,
    });
  });
});

describe('the Spectral ruleset (spectral.yaml)', () => {
  it('names the same rules as lint, MUST as error and SHOULD as warn', async () => {
    const ruleset = load(await readFile(join(ROOT, 'spectral.yaml'), 'utf8')) as {
      rules: Record<string, { severity: string }>;
    };
    expect(Object.keys(ruleset.rules)).toEqual(LINT_RULES.map((r) => r.id));
    for (const rule of LINT_RULES)
      expect(ruleset.rules[rule.id]?.severity, rule.id).toBe(rule.level === 'MUST' ? 'error' : 'warn');
  });

  it('@stoplight/spectral-cli with the ruleset finds what lint finds on the whole corpus, at the same file, line and pointer', async () => {
    const ruleDocs = (await readdir(join(ROOT, CORPUS, 'rules'))).map((f) => `${CORPUS}/rules/${f}`);
    // OpenAPI 3.2 (its query operation, additionalOperations, a form querystring: test/openapi-versions.test.ts).
    const documents = ['docs/openapi.yaml', ...PUBLIC, ...ruleDocs, `${CORPUS}/versions/openapi-3.2.yaml`];
    const ours = (await lint(documents)).findings;
    const theirs = (await spectralFindings(documents)).map((r) => ({
      ...r,
      file: r.file.startsWith(`${ROOT}/`) ? r.file.slice(ROOT.length + 1) : r.file,
    }));
    // Spectral drops results that share a place and message; lint keeps one per place and message too.
    const distinct = (list: string[]): string[] => [...new Set(list)].sort();
    expect(distinct(theirs.map(key))).toEqual(distinct(ours.map(key)));
    expect(theirs.length).toBeGreaterThan(30);
  });
});

describe('a response property written as a $ref (lint and the Spectral ruleset alike)', () => {
  // Spectral puts a result whose path ends on a $ref at the schema it points to; both tools report
  // such a property at the `properties` object holding it, in the file it is written in, and name
  // it in the message (docs/design.md, "Where a $ref'd property is reported").
  const OPENAPI = `openapi: 3.1.0
info: {title: refs, version: '1'}
security: [{bearer: []}]
paths:
  /tenants/{tenantId}/parcels/{parcelId}:
    parameters:
      - {name: tenantId, in: path, required: true, schema: {type: string, format: uuid}}
      - {name: parcelId, in: path, required: true, schema: {type: string}}
    get:
      parameters:
        - {name: Accept-Version, in: header, required: true, schema: {type: string}}
      responses:
        '200':
          description: The parcel
          content:
            application/json:
              schema:
                type: object
                properties:
                  links: {$ref: '#/components/schemas/Links'}
                  shipment: {$ref: './refs-schemas.yaml#/Shipment'}
                  note: {type: string}
        '400': {description: Bad request}
components:
  securitySchemes:
    bearer: {type: http, scheme: bearer}
    token: {type: oauth2, flows: {clientCredentials: {tokenUrl: /uaa/oauth2/token, scopes: {}}}}
  schemas:
    Links:
      type: object
      properties:
        self: {type: string}
`;
  const SCHEMAS = `Shipment:
  type: object
  required: [id]
  properties:
    id: {type: string}
    carrier: {$ref: '#/Carrier'}
    label: {$ref: '#/Label'}
Carrier:
  type: object
  required: [name]
  properties:
    name: {type: string}
Label: {type: [string, 'null']}
`;

  it('is reported at its properties object, in its own file, by both; every other property where it is written', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lint-refs-'));
    try {
      const doc = join(dir, 'refs-openapi.yaml');
      await writeFile(doc, OPENAPI);
      await writeFile(join(dir, 'refs-schemas.yaml'), SCHEMAS);
      const ours = (await lint([doc])).findings;
      const named = (f: { rule: string; file: string; line?: number | undefined; pointer: string }): string =>
        key({ ...f, file: resolve(ROOT, f.file).slice(dir.length + 1) });
      const response =
        '/paths/~1tenants~1{tenantId}~1parcels~1{parcelId}/get/responses/200/content/application~1json/schema/properties';
      expect(ours.map((f) => `${named(f)} ${/^property "[^"]+"/.exec(f.message)?.[0] ?? ''}`).sort()).toEqual(
        [
          `OAS-NULLABLE refs-openapi.yaml:19 ${response} property "links"`,
          `OAS-NULLABLE refs-openapi.yaml:19 ${response} property "shipment"`,
          `OAS-NULLABLE refs-openapi.yaml:22 ${response}/note property "note"`,
          'OAS-NULLABLE refs-openapi.yaml:32 /components/schemas/Links/properties/self property "self"',
          'OAS-NULLABLE refs-schemas.yaml:4 /Shipment/properties property "carrier"',
          'OAS-NULL-REQUIRED refs-schemas.yaml:4 /Shipment/properties property "label"',
        ].sort(),
      );
      const theirs = await spectralFindings([doc]);
      expect([...new Set(theirs.map(named))].sort()).toEqual([...new Set(ours.map(named))].sort());
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('docs/lint.md, run as written (test/readme.test.ts leaves its two blocks to this file)', () => {
  it('its commands and its workflow steps work on the reference document', async () => {
    // docs/lint.md, the page the README links to for lint (issue 40 item 5).
    const section = await readFile(join(ROOT, 'docs', 'lint.md'), 'utf8');
    const blocks = [...section.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1], text: m[2] ?? '' }));
    expect(blocks.map((b) => b.lang)).toEqual(['sh', 'yaml']);
    const dir = await mkdtemp(join(tmpdir(), 'lint-readme-'));
    try {
      // openapi.yaml of the examples: the reference document; lint.sarif: a file in a fresh folder.
      const concrete = (command: string): string[] =>
        command
          .split(' ')
          .slice(2)
          .map((a) => (a === 'openapi.yaml' ? 'docs/openapi.yaml' : a === 'lint.sarif' ? join(dir, 'lint.sarif') : a));
      const commands = (blocks[0]?.text ?? '').trim().split('\n');
      for (const command of commands.filter((c) => c.startsWith('npx carrier-conformance lint')))
        expect((await cli(concrete(command))).code, command).toBe(0);
      expect(JSON.parse(await readFile(join(dir, 'lint.sarif'), 'utf8'))).toMatchObject({ version: '2.1.0' });
      // The installed package's ruleset is this folder's spectral.yaml.
      // Spectral by its package: a bare `npx spectral` runs npm's unrelated `spectral` (issue 42).
      const spectral = commands.find((c) => c.startsWith('npx -p @stoplight/spectral-cli spectral lint '));
      expect(spectral).toContain('--ruleset node_modules/carrier-conformance/spectral.yaml');
      const bin = join(ROOT, 'node_modules/@stoplight/spectral-cli/dist/index.js');
      const args = (spectral ?? '')
        .split(' ')
        .slice(4)
        .map((a) =>
          a === 'node_modules/carrier-conformance/spectral.yaml'
            ? 'spectral.yaml'
            : a === 'openapi.yaml'
              ? 'docs/openapi.yaml'
              : a,
        );
      const { stdout } = await promisify(execFile)(process.execPath, [bin, ...args], { cwd: ROOT, timeout: 120_000 });
      // The reference document lints clean with Spectral too (the agreement test above shows the
      // ruleset finding what lint finds on the corpus).
      expect(stdout).toMatch(/No results with a severity of 'error' found/);
      const steps = load(blocks[1]?.text ?? '') as { run?: string; uses?: string; with?: Record<string, string> }[];
      const run = steps[0]?.run ?? '';
      expect(run).toMatch(/^npx carrier-conformance lint --format sarif --output (\S+) openapi\.yaml$/);
      expect(steps[1]?.uses).toMatch(/^github\/codeql-action\/upload-sarif@v\d+$/);
      expect(steps[1]?.with?.sarif_file).toBe(/--output (\S+)/.exec(run)?.[1]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a run lints the document it read (issue 40 item 2: it read the file a second time)', () => {
  it("the same findings as `lint FILE`, from the run's own read: none of the files is read again", async () => {
    const { loadOpenApiAsRead } = await import('../src/openapi/load.js');
    const { lintForRun } = await import('../src/lint/in-run.js');
    for (const [folder, name] of [
      ['rules', 'OAS-BEARER.bad.yaml'],
      ['rules', 'OAS-CLOSED-SCHEMA.bad.yaml'],
      ['versions', 'openapi-3.2.yaml'],
      ['versions', 'swagger-2.0.yaml'],
    ] as const) {
      const dir = await mkdtemp(join(tmpdir(), 'lint-one-read-'));
      try {
        for (const f of await readdir(join(CORPUS, folder)))
          await writeFile(join(dir, f), await readFile(join(CORPUS, folder, f)));
        const file = join(dir, name);
        const expected = (await lint([file])).findings.map(({ document: _document, ...f }) => f);
        const { read } = await loadOpenApiAsRead(file);
        // Gone: a second read would fail, and the section would say so instead of listing findings.
        await rm(dir, { recursive: true, force: true });
        const section = await lintForRun(file, undefined, read);
        expect(section.error, name).toBeUndefined();
        expect(section.findings, name).toEqual(expected);
        expect(expected.length + (name.endsWith('.bad.yaml') ? 0 : 1), name).toBeGreaterThan(0);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
  });
});
