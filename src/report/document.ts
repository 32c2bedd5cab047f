import { CAPS_NOTE } from '../catalogue/lint-rules.js';
import type { DocumentFinding, DocumentSection } from '../model/run-report.js';

/**
 * The run's --openapi document findings (report.document, issue 33), as every report words them:
 * a section of their own, after the checks, and never counted with them.
 */

/** `OAS-NULLABLE ×2, OAS-VERSION-400 ×1`: rules in order of first finding, those not listed counted. */
export function findingsByRule(section: DocumentSection): string {
  const counts = new Map<string, number>();
  for (const f of section.findings) counts.set(f.rule, (counts.get(f.rule) ?? 0) + 1);
  for (const { rule, count } of section.notListed ?? []) counts.set(rule, (counts.get(rule) ?? 0) + count);
  return [...counts].map(([rule, n]) => `${rule} ×${n}`).join(', ');
}

/** How many findings the document has, listed or not. */
export const findingCount = (section: DocumentSection): number =>
  section.findings.length + (section.notListed ?? []).reduce((n, r) => n + r.count, 0);

/** `150 findings, 100 listed`: the count of the findings not listed, when there are some (else undefined). */
export function notListedNote(section: DocumentSection): string | undefined {
  const total = findingCount(section);
  return total === section.findings.length
    ? undefined
    : `${total - section.findings.length} more not listed (${CAPS_NOTE})`;
}

/** `3 findings (OAS-NULLABLE ×2, OAS-VERSION-400 ×1)`, `no findings`, or why it was not linted. */
export function documentHeadline(section: DocumentSection): string {
  if (section.error !== undefined) return `not linted (${section.error})`;
  const n = findingCount(section);
  const listed = n === section.findings.length ? '' : `, ${section.findings.length} listed`;
  return n === 0
    ? `no findings (${section.rules} rules)`
    : `${n} finding${n === 1 ? '' : 's'}${listed} (${findingsByRule(section)})`;
}

/** What the section is, in one sentence: why its findings do not change the verdict. */
export const DOCUMENT_NOTE =
  'lint findings: about the document, not the deployment; not counted in the checks, the verdict or the exit code';

/** `docs/api.yaml:12:5 /components/schemas/Pet/properties/tag`. */
export function findingPlace(f: DocumentFinding): string {
  const line = f.line === undefined ? '' : `:${f.line}${f.column === undefined ? '' : `:${f.column}`}`;
  return `${f.file}${line} ${f.pointer === '' ? '/' : f.pointer}`;
}
