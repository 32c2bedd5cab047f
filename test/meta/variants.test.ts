/**
 * Every variant of the reference server is unusual but conformant: the harness run against it
 * exits 0 with every check passed, no failure, no warning, no error. A variant that breaks a rule
 * only ground truth can show (`review`) passes too, without the ground truth, and shows its review
 * items; with it, the ground-truth check fails.
 */
import { describe, expect, it } from 'vitest';
import { VARIANTS } from '../../src/reference/catalogue.js';
import { judgeVariant, planForVariant, runCase } from './support.js';

describe.concurrent('variants', () => {
  it.each(VARIANTS.map((v) => [v.name, v] as const))('%s passes', async (name, variant) => {
    const result = await runCase({ variants: [name] }, planForVariant(variant));
    expect(judgeVariant(result, variant)).toEqual([]);
  });

  it('the reference server itself has no review item', async () => {
    const result = await runCase({}, planForVariant());
    expect(judgeVariant(result)).toEqual([]);
  });

  // A review item is what ground truth can settle: with the reference's --expectations file,
  // which knows that unpaid invoices have paidAt null, the "" is a failure of the existing check.
  it('empty-string-for-null fails RESOURCE-EXPECTED-VALUES with the ground truth', async () => {
    const result = await runCase({ variants: ['empty-string-for-null'] }, planForVariant());
    expect(result.exitCode).toBe(1);
    const failed = result.report.checks.filter((c) => c.status !== 'passed').map((c) => `${c.id} ${c.status}`);
    expect(failed).toEqual(['RESOURCE-EXPECTED-VALUES failed']);
    const messages =
      result.report.checks.find((c) => c.id === 'RESOURCE-EXPECTED-VALUES')?.findings.map((f) => f.message) ?? [];
    expect(
      messages.some((m) => /field "paidAt": expected null, got the string ""/.test(m)),
      messages.join('\n'),
    ).toBe(true);
    // The review item is still shown: the data has the pattern, ground truth or not.
    expect(result.report.review?.map((r) => `${r.endpoint} ${r.field}`)).toEqual([
      'GET /tenants/{tenantId}/invoices paidAt',
    ]);
  });
});
