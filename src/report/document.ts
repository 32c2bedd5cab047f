import type { DocumentFinding, DocumentSection } from './model.js';

/**
 * The run's --openapi document findings (report.document, issue 33), as every report words them:
 * a section of their own, after the checks, and never counted with them.
 */

/** `OAS-NULLABLE ×2, OAS-VERSION-400 ×1`: rules in order of first finding. */
export function findingsByRule(section: DocumentSection): string {
  const counts = new Map<string, number>();
  for (const f of section.findings) counts.set(f.rule, (counts.get(f.rule) ?? 0) + 1);
  return [...counts].map(([rule, n]) => `${rule} ×${n}`).join(', ');
}

/** `3 findings (OAS-NULLABLE ×2, OAS-VERSION-400 ×1)`, `no findings`, or why it was not linted. */
export function documentHeadline(section: DocumentSection): string {
  if (section.error !== undefined) return `not linted (${section.error})`;
  const n = section.findings.length;
  return n === 0 ? `no findings (${section.rules} rules)` : `${n} finding${n === 1 ? '' : 's'} (${findingsByRule(section)})`;
}

/** What the section is, in one sentence: why its findings do not change the verdict. */
export const DOCUMENT_NOTE = 'lint findings: about the document, not the deployment; not counted in the checks, the verdict or the exit code';

/** `docs/api.yaml:12:5 /components/schemas/Pet/properties/tag`. */
export function findingPlace(f: DocumentFinding): string {
  const line = f.line === undefined ? '' : `:${f.line}${f.column === undefined ? '' : `:${f.column}`}`;
  return `${f.file}${line} ${f.pointer === '' ? '/' : f.pointer}`;
}
