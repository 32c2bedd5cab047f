/**
 * A run with --openapi reports the document's lint findings (issue 33): in report.json's
 * `document` section, on the console, in HTML, Markdown and JUnit, apart from the checks and
 * never counted with them; and RESOURCE-FIELDS-PRESENT advises "send null" for every optional
 * property omitted, naming OAS-NULLABLE where the document's schema does not say null (the spec
 * over the document, issue 37 item 1).
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dump, load } from 'js-yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { junitDisagreements } from '../src/bundle/junit-agree.js';
import { readJUnit } from '../src/bundle/junit-read.js';
import { omissionMessage } from '../src/lint/omission.js';
import { renderConsoleSummary } from '../src/report/console.js';
import { renderHtmlReport } from '../src/report/html.js';
import { renderJUnit } from '../src/report/junit.js';
import { renderMarkdownSummary } from '../src/report/markdown.js';
import type { DocumentSection, RunReport } from '../src/model/run-report.js';
import { parseRunReport } from '../src/report/read.js';
import { startReferenceServer, type ReferenceOptions } from '../src/reference/index.js';
import { junitRuleProblems } from './fixtures/report/junit-rules.js';
import { XSD_FILES, loadXsd, validateAgainst } from './fixtures/report/xml.js';
import { fullReport, writeReport } from './support/reports.js';
import { restoreEnv, runMain, setEnv, tempDir } from './support/harness.js';

const dirs: string[] = [];
afterEach(async () => {
  restoreEnv();
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

type Schemas = Record<string, { required: string[]; properties: Record<string, Record<string, unknown>> }>;

/** docs/openapi.yaml with its Shipment schema edited, in a fresh folder. */
async function shipmentDocument(edit: (shipment: Schemas[string]) => void): Promise<string> {
  const dir = await tempDir('document-findings-');
  dirs.push(dir);
  const doc = load(await readFile('docs/openapi.yaml', 'utf8')) as { components: { schemas: Schemas } };
  const shipment = doc.components.schemas.Shipment;
  if (!shipment) throw new Error('docs/openapi.yaml has no Shipment schema');
  edit(shipment);
  const file = join(dir, 'openapi.yaml');
  await writeFile(file, dump(doc));
  return file;
}

/** A run of the resources suite against a reference server, with `document` as --openapi. */
async function run(
  document: string,
  options: ReferenceOptions = {},
): Promise<{ code: number; stdout: string; report: RunReport; dir: string }> {
  const server = await startReferenceServer(options);
  const dir = await tempDir('document-findings-run-');
  dirs.push(dir);
  setEnv({ CARRIER_CLIENT_SECRET: server.clientSecret });
  try {
    const { code, stdout } = await runMain([
      'run',
      '--base-url',
      server.url,
      '--client-id',
      server.clientId,
      '--openapi',
      document,
      '--foreign-tenant-id',
      server.foreignTenantId,
      '--suite',
      'resources',
      '--reports-dir',
      dir,
    ]);
    return { code, stdout, report: JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as RunReport, dir };
  } finally {
    await server.close();
  }
}

const optional =
  (name: string) =>
  (s: Schemas[string]): void =>
    void (s.required = s.required.filter((r) => r !== name));

describe('a run with --openapi: the document section', () => {
  it("lists the document's OAS-NULLABLE finding, located; the verdict, counts and exit code are the checks' alone", async () => {
    // createdAt is always served: an optional createdAt that does not allow null breaks no check.
    const document = await shipmentDocument(optional('createdAt'));
    const { code, stdout, report, dir } = await run(document);
    expect(report.document?.error).toBeUndefined();
    expect(report.document?.findings).toEqual([
      expect.objectContaining({
        rule: 'OAS-NULLABLE',
        level: 'MUST',
        pointer: '/components/schemas/Shipment/properties/createdAt',
        line: expect.any(Number) as unknown,
      }),
    ]);
    // A MUST finding in the document, and the run is as its checks are: conformant, exit 0.
    expect(report.verdict).toBe('conformant-subset');
    expect(code).toBe(0);
    expect(report.exitCode).toBe(0);
    expect(report.counts.total).toBe(report.checks.length);
    expect(report.checks.some((c) => c.id.startsWith('OAS-'))).toBe(false);
    expect(stdout).toMatch(
      /^The document \(1\): .*openapi\.yaml: 1 finding \(OAS-NULLABLE ×1\); see report\.json, or: carrier-conformance lint .*openapi\.yaml$/m,
    );
    // The reports of the run say the same, in their own sections.
    expect(await readFile(join(dir, 'report.html'), 'utf8')).toContain(
      'The OpenAPI document: 1 finding (OAS-NULLABLE ×1)',
    );
    const junit = await readFile(join(dir, 'junit.xml'), 'utf8');
    expect(junit).toContain('name="carrier-conformance.document (lint)"');
    expect(junitDisagreements(report, readJUnit(junit))).toEqual([]);
  });

  it('RESOURCE-FIELDS-PRESENT demands what the document forbids to be null (the spec over the document): omitted, it fails with "send null" and names OAS-NULLABLE', async () => {
    // The fault omits a shipment's fields without data, deliveredAt among them; this document
    // makes deliveredAt optional and not null. Spec §Generic rules for optional fields 1: sent as
    // null all the same (RESOURCE-SCHEMA accepts that null), never omitted (issue 37 item 1).
    const document = await shipmentDocument((s) => {
      optional('deliveredAt')(s);
      s.properties.deliveredAt = { type: 'string', format: 'date-time' };
    });
    const { report } = await run(document, { faults: ['single-null-fields-omitted'] });
    expect(report.document?.findings.map((f) => `${f.rule} ${f.pointer}`)).toContain(
      'OAS-NULLABLE /components/schemas/Shipment/properties/deliveredAt',
    );
    const check = report.checks.find((c) => c.id === 'RESOURCE-FIELDS-PRESENT');
    expect(check?.status).toBe('failed');
    const about = (check?.findings ?? []).map((f) => f.message).filter((m) => m.includes('"deliveredAt"'));
    expect(about.length).toBeGreaterThan(0);
    for (const m of about)
      expect(m).toMatch(/send null for "deliveredAt"[^)]* instead: optional, so null without data .*OAS-NULLABLE/);
    // The conformant server sends deliveredAt: null there, which RESOURCE-SCHEMA accepts against the same document.
    const clean = await run(document);
    expect(clean.report.checks.find((c) => c.id === 'RESOURCE-SCHEMA')?.status).toBe('passed');
    expect(clean.report.checks.find((c) => c.id === 'RESOURCE-FIELDS-PRESENT')?.status).toBe('passed');
  });
});

describe('omissionMessage: the remedy the document allows', () => {
  const document = {
    components: {
      schemas: {
        Item: {
          type: 'object',
          required: ['code'],
          properties: {
            note: { type: ['string', 'null'] },
            tag: { type: 'string' },
            code: { type: 'string' },
            lines: { type: 'array', items: { $ref: '#/components/schemas/Line' } },
          },
        },
        Line: {
          allOf: [
            { required: ['amount'] },
            { properties: { amount: { type: 'integer' }, memo: { type: 'string', nullable: true } } },
          ],
        },
      },
    },
  };
  const at = '#/components/schemas/Item';

  it('send null where null is allowed, as before', () => {
    expect(omissionMessage(document, at, ['note', 'lines[0].memo'])).toBe(
      'omits "note", "lines[0].memo", which the schema declares (send null instead)',
    );
  });

  it('an optional property that does not allow null: send null all the same, naming the document finding', () => {
    expect(omissionMessage(document, at, ['note', 'tag'])).toBe(
      'omits "note", "tag", which the schema declares (send null for "note" instead; send null for "tag" instead: optional, so null without data (spec §Generic rules for optional fields 1), though the document\'s schema does not say null (its finding OAS-NULLABLE, in the report\'s document findings))',
    );
  });

  it('a required property that does not allow null: send its value (required through allOf too)', () => {
    expect(omissionMessage(document, at, ['code', 'lines[1].amount'])).toBe(
      'omits "code", "lines[1].amount", which the schema declares (the schema requires "code", "lines[1].amount" and does not allow null: send the value)',
    );
  });
});

describe('the document section in the reports', () => {
  const section: DocumentSection = {
    file: 'api/<openapi>.yaml',
    rules: 10,
    findings: [
      {
        rule: 'OAS-NULLABLE',
        level: 'MUST',
        message:
          'property "tag" is optional (not in required) but does not allow null: without data it is sent as null',
        file: 'api/<openapi>.yaml',
        pointer: '/components/schemas/Pet/properties/tag',
        line: 62,
        column: 9,
      },
      {
        rule: 'OAS-NULLABLE',
        level: 'MUST',
        message: 'property "<b>name</b>" is optional',
        file: 'api/schemas.yaml',
        pointer: '/Pet/properties/name',
        line: 3,
      },
      {
        rule: 'OAS-VERSION-400',
        level: 'SHOULD',
        message: 'GET /tenants/{tenantId}/pets does not document 400',
        file: 'api/<openapi>.yaml',
        pointer: '/paths/~1tenants~1{tenantId}~1pets/get/responses',
      },
    ],
  };
  const withDocument = fullReport({}, { document: section });

  it('report.json: read back with its section; a report without one (earlier versions) still reads, and diff compares the two', async () => {
    expect(parseRunReport(JSON.stringify(withDocument), 'report').document).toEqual(section);
    const old = fullReport();
    expect(parseRunReport(JSON.stringify(old), 'report').document).toBeUndefined();
    const dir = await tempDir('document-findings-diff-');
    dirs.push(dir);
    const result = await runMain([
      'diff',
      await writeReport(dir, 'old.json', old),
      await writeReport(dir, 'new.json', withDocument),
    ]);
    expect(result.code).toBe(0);
  });

  it('console: one block after the checks, by rule; totals and verdict unchanged', () => {
    const text = renderConsoleSummary(withDocument, { color: false });
    const without = renderConsoleSummary(fullReport(), { color: false });
    expect(text).toContain(
      'The document (3): api/<openapi>.yaml: 3 findings (OAS-NULLABLE ×2, OAS-VERSION-400 ×1); see report.json, or: carrier-conformance lint api/<openapi>.yaml\n  lint findings: about the document, not the deployment; not counted in the checks, the verdict or the exit code',
    );
    expect(text.split('\n')[0]).toBe(without.split('\n')[0]);
    expect(text.trimEnd().split('\n').at(-1)).toBe(without.trimEnd().split('\n').at(-1));
    // A clean document is no news on the console.
    expect(renderConsoleSummary(fullReport({}, { document: { ...section, findings: [] } }), { color: false })).toBe(
      without,
    );
  });

  it('Markdown: a section of its own, escaped', () => {
    const md = renderMarkdownSummary(withDocument);
    expect(md).toContain('### 📄 The OpenAPI document: 3 findings \\(OAS-NULLABLE ×2, OAS-VERSION-400 ×1\\)');
    expect(md).toContain(
      '- **OAS-NULLABLE** (MUST) api/schemas.yaml:3 /Pet/properties/name: property &quot;&lt;b&gt;name&lt;/b&gt;&quot; is optional',
    );
    expect(md).not.toContain('<b>');
    expect(renderMarkdownSummary(fullReport({}, { document: { ...section, findings: [] } }))).toBe(
      renderMarkdownSummary(fullReport()),
    );
  });

  it('HTML: a section of its own, escaped, each finding with where it was written', () => {
    const page = renderHtmlReport(withDocument);
    expect(page).toContain(
      '<h2 id="document-title">The OpenAPI document: 3 findings (OAS-NULLABLE ×2, OAS-VERSION-400 ×1)</h2>',
    );
    expect(page).toContain('<code>api/&lt;openapi&gt;.yaml:62:9 /components/schemas/Pet/properties/tag</code>');
    expect(page).not.toContain('<b>name</b>');
  });

  it('findings not listed (lint lists so many of a rule and at a place): counted in the headline, the console, Markdown, HTML and JUnit', async () => {
    const capped: DocumentSection = { ...section, notListed: [{ rule: 'OAS-NULLABLE', count: 1200 }] };
    const report = fullReport({}, { document: capped });
    expect(renderConsoleSummary(report, { color: false })).toContain(
      'The document (1203): api/<openapi>.yaml: 1203 findings, 3 listed (OAS-NULLABLE ×1202, OAS-VERSION-400 ×1); see report.json',
    );
    expect(renderMarkdownSummary(report)).toContain(
      '- … 1200 more not listed \\(a document lists at most 100 findings of a rule and 10 at one place; fix those and lint again\\)',
    );
    expect(renderHtmlReport(report)).toContain(
      '<p>… 1200 more not listed (a document lists at most 100 findings of a rule and 10 at one place; fix those and lint again)</p>',
    );
    const xml = renderJUnit(report);
    expect(await validateAgainst(xml, await loadXsd('junit-10.xsd'))).toEqual({ valid: true, errors: [] });
    expect(xml).toContain('1202 findings in the document (MUST)');
    expect(xml).toContain('… and 1200 more not listed (a document lists at most 100');
    expect(junitDisagreements(report, readJUnit(xml))).toEqual([]);
    expect(parseRunReport(JSON.stringify(report), 'report').document).toEqual(capped);
  });

  it.each(XSD_FILES)(
    'JUnit: a testsuite apart, a skipped case per rule, valid against %s; verify-bundle holds it to report.json',
    async (xsd) => {
      const xml = renderJUnit(withDocument);
      expect(await validateAgainst(xml, await loadXsd(xsd))).toEqual({ valid: true, errors: [] });
      expect(await junitRuleProblems(xml)).toEqual([]);
      const suites = readJUnit(xml);
      const document = suites.find((s) => s.name === 'carrier-conformance.document (lint)');
      expect(document?.cases.map((c) => [c.name.split(' ')[0], c.outcomes])).toEqual([
        ['OAS-NULLABLE', ['skipped']],
        ['OAS-VERSION-400', ['skipped']],
      ]);
      // The checks' suites are the same as without the section.
      expect(suites.filter((s) => s !== document)).toEqual(readJUnit(renderJUnit(fullReport())));
      expect(junitDisagreements(withDocument, suites)).toEqual([]);
      expect(junitDisagreements(fullReport(), suites)).toEqual([
        'the document\'s lint findings: rules "OAS-NULLABLE OAS-VERSION-400" in junit.xml, "" in report.json',
      ]);
      // A clean document adds no suite: the run's test counts are its checks'.
      expect(renderJUnit(fullReport({}, { document: { ...section, findings: [] } }))).toBe(renderJUnit(fullReport()));
    },
  );
});
