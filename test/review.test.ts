/**
 * Review items (issue 30 item 9): null written as "" (spec §Generic rules for optional fields 2)
 * cannot be judged without ground truth, so a run that notices the pattern reports it apart from
 * the checks, in every report, without touching the verdict or the exit code. The detector is
 * unit-tested here; the run against the reference server's `empty-string-for-null` variant, and
 * the same run with the ground truth, are in test/meta/variants.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { EndpointSpec } from '../src/carrier/endpoint-specs.js';
import { itemJudge, looksLikeNullAsEmpty, optionalStringFields, REQUIRED_PLAIN } from '../src/battery/resources.js';
import type { BatteryContext } from '../src/battery/wiring.js';
import type { Json } from '../src/openapi/pointer.js';
import { renderConsoleSummary } from '../src/report/console.js';
import { renderHtmlReport } from '../src/report/html.js';
import { renderJUnit } from '../src/report/junit.js';
import { renderMarkdownSummary } from '../src/report/markdown.js';
import { parseRunReport } from '../src/report/read.js';
import type { ReviewItem, RunReport } from '../src/model/run-report.js';
import { fullReport } from './support/reports.js';

const document = {
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: {},
  components: {
    schemas: {
      Invoice: {
        type: 'object',
        required: ['id', 'reference', 'note'],
        properties: {
          id: { type: 'string' },
          // Required and never null: "" is its value, however often.
          reference: { type: 'string' },
          // Null allowed.
          note: { type: ['string', 'null'] },
          // Not required, a plain string: fast-json-stringify's `type: string` without nullable.
          paidAt: { type: 'string' },
          amount: { type: ['integer', 'null'] },
        },
      },
    },
  },
} as unknown as Json;

describe('optionalStringFields', () => {
  it('takes the string properties, saying which are optional (not required, or null allowed) and which required plain strings (issue 38 item 8)', () => {
    expect([...optionalStringFields(document, '#/components/schemas/Invoice')]).toEqual([
      ['id', REQUIRED_PLAIN],
      ['reference', REQUIRED_PLAIN],
      ['note', 'its schema allows null'],
      ['paidAt', 'its schema does not require it'],
    ]);
  });
});

describe('looksLikeNullAsEmpty', () => {
  const optional = 'its schema allows null';
  it('needs 3 empty strings and no null where the schema allows null, however many items carry a value (Fastify\'s "" on 12 of 47)', () => {
    expect(looksLikeNullAsEmpty({ empty: 3, nulls: 0, carried: 6, why: optional })).toBe(true);
    expect(looksLikeNullAsEmpty({ empty: 12, nulls: 0, carried: 47, why: optional })).toBe(true);
    expect(looksLikeNullAsEmpty({ empty: 2, nulls: 0, carried: 2, why: optional })).toBe(false);
    // Null and "" side by side: the serialiser writes null, so "" is a value (the reference's invoice notes).
    expect(looksLikeNullAsEmpty({ empty: 5, nulls: 1, carried: 6, why: optional })).toBe(false);
  });

  it('and on at least half of the items where the schema does not allow null: a required plain string (a document generated from the code), or one left out of required (DRF\'s blank=True, "" on 12 of 60)', () => {
    expect(looksLikeNullAsEmpty({ empty: 3, nulls: 0, carried: 6, why: REQUIRED_PLAIN })).toBe(true);
    expect(looksLikeNullAsEmpty({ empty: 3, nulls: 0, carried: 7, why: REQUIRED_PLAIN })).toBe(false);
    expect(looksLikeNullAsEmpty({ empty: 12, nulls: 0, carried: 60, why: 'its schema does not require it' })).toBe(
      false,
    );
  });
});

describe('the page tally', () => {
  const settings = {
    openapi: document,
    selected: ['RESOURCE-FIELDS-PRESENT'],
    endpoints: [],
  } as unknown as BatteryContext;
  const spec = { path: 'invoices', kind: 'list', schema: '#/components/schemas/Invoice' } as unknown as EndpointSpec;

  it('counts "", null and the rest of each optional string field', () => {
    const judge = itemJudge(settings, spec, () => 'x');
    const items = [
      { id: '1', reference: '', note: '', paidAt: '' },
      { id: '2', reference: '', note: null, paidAt: '2026-01-01' },
      { id: '3', reference: 'R', note: 'n', paidAt: '' },
      { id: '4', reference: '', note: 7 },
    ];
    const found = judge?.(items);
    expect(Object.fromEntries(found?.strings ?? [])).toEqual({
      id: { empty: 0, nulls: 0, carried: 4, why: REQUIRED_PLAIN },
      reference: { empty: 3, nulls: 0, carried: 4, why: REQUIRED_PLAIN },
      note: { empty: 1, nulls: 1, carried: 3, why: 'its schema allows null' },
      paidAt: { empty: 2, nulls: 0, carried: 3, why: 'its schema does not require it' },
    });
  });

  it('is not kept when RESOURCE-FIELDS-PRESENT does not run', () => {
    const judge = itemJudge({ ...settings, selected: ['RESOURCE-SCHEMA'] }, spec, () => 'x');
    expect(judge?.([{ id: '1', paidAt: '' }]).strings).toBeUndefined();
  });
});

const item: ReviewItem = {
  kind: 'empty-string-for-null',
  check: 'RESOURCE-FIELDS-PRESENT',
  judgedBy: 'RESOURCE-EXPECTED-VALUES',
  endpoint: 'GET /tenants/{tenantId}/invoices',
  field: 'paidAt',
  message:
    'invoices: field "paidAt" is "" on 7 of the 14 items that carry it and null on none, though its schema allows null: <b>',
  advice: 'seed an --expectations file with the real values to judge it',
  refs: ['spec §Generic rules for optional fields 2'],
};

describe('the reports', () => {
  const report: RunReport = fullReport({}, { review: [item] });

  it('report.json reads with review items and without (reports of earlier versions)', () => {
    expect(parseRunReport(JSON.stringify(report), 'r.json').review).toEqual([item]);
    expect(parseRunReport(JSON.stringify(fullReport()), 'r.json').review).toBeUndefined();
  });

  it('the console shows a REVIEW block after the warnings, with the advice, and the verdict unchanged', () => {
    const out = renderConsoleSummary(report, { color: false });
    expect(out).toContain('REVIEW (1): patterns that may break the spec');
    expect(out).toContain('seed an --expectations file with the real values to judge it');
    expect(out.indexOf('REVIEW (1)')).toBeLessThan(out.lastIndexOf('checks:'));
    expect(out.split('\n')[0]).toBe(renderConsoleSummary(fullReport(), { color: false }).split('\n')[0]);
    expect(renderConsoleSummary(fullReport(), { color: false })).not.toContain('REVIEW');
  });

  it('Markdown and HTML have a section of their own, escaped', () => {
    const md = renderMarkdownSummary(report);
    expect(md).toContain('### 🔎 Review (1)');
    expect(md).not.toContain('<b>');
    const html = renderHtmlReport(report);
    expect(html).toContain('<h2 id="review-title">Review (1)</h2>');
    expect(html).toContain('&lt;b&gt;');
    expect(renderHtmlReport(fullReport())).not.toContain('review-title');
  });

  it('JUnit puts them in the system-out of the check that noticed them, not as failures', () => {
    const xml = renderJUnit(report);
    expect(xml).toContain('REVIEW (1): not a failure, not counted in the verdict');
    expect(xml).not.toContain('<failure');
    const testcase = /<testcase[^>]*name="RESOURCE-FIELDS-PRESENT[^"]*"[^>]*>[\s\S]*?<\/testcase>/.exec(xml)?.[0] ?? '';
    expect(testcase).toContain('REVIEW (1)');
  });
});
