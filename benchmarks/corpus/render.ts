/**
 * reports/corpus/summary.md: the corpus's figures in a page (docs/corpus.md says what each
 * means). Every value that comes from a document or a report (paths, messages) is escaped as the
 * harness's own Markdown summary escapes it (src/report/markdown.ts inline): documents are hostile.
 */
import { inline } from '../../src/report/markdown.js';
import type { DocumentResult, Group, Totals } from './tally.js';

export interface CorpusOutput {
  corpus: { package: string; version: string };
  options: { sample: number | null; only: string[]; jobs: number; timeoutSeconds: number };
  startedAt: string;
  finishedAt: string;
  finished: boolean;
  totals: Totals;
  groups: {
    falseFailures: Group[];
    falseWarnings: Group[];
    harnessErrors: Group[];
    skips: { reason: string; count: number; documents: number }[];
    notJudged: { reason: string; count: number; example: string }[];
    mockUntrusted: { why: string; count: number; example: string }[];
  };
  documents: DocumentResult[];
}

const pct = (x: number | undefined): string => (x === undefined ? 'n/a' : `${(100 * x).toFixed(1)} %`);
const TOP = 15;

function groupTable(groups: readonly Group[]): string[] {
  if (groups.length === 0) return ['None.', ''];
  const rows = groups
    .slice(0, TOP)
    .map(
      (g) =>
        `| ${g.count} | ${g.documents} | ${inline(g.check, 40)} | ${inline(g.message, 200)} | ${inline(g.example.document, 80)} ${inline(g.example.endpoint ?? '', 120)} |`,
    );
  const rest = groups.length > TOP ? [`| … | | | ${groups.length - TOP} more groups in corpus.json | |`] : [];
  return [
    '| count | documents | check | message (normalised) | example |',
    '|---:|---:|---|---|---|',
    ...rows,
    ...rest,
    '',
  ];
}

export function renderSummary(out: CorpusOutput): string {
  const t = out.totals;
  const scope =
    out.options.sample !== null
      ? `a sample of ${out.options.sample}`
      : out.options.only.length > 0
        ? `the documents matching ${out.options.only.map((o) => inline(o, 60)).join(', ')}`
        : 'every document';
  const lines: string[] = [
    `# The harness on ${out.corpus.package}@${out.corpus.version}${out.finished ? '' : ' (in progress)'}`,
    '',
    `${t.documents} documents (${scope}), ${out.options.jobs} at a time, ${out.options.timeoutSeconds} s each at most; ${out.startedAt} to ${out.finishedAt}. What each figure means: docs/corpus.md.`,
    '',
    '| figure | value |',
    '|---|---:|',
    `| documents judged / without a GET (exit 2, rightly) / refused (exit 2) / timed out / crashed or no report / mock could not serve | ${t.outcomes.judged} / ${t.outcomes['nothing-to-test']} / ${t.outcomes.refused} / ${t.outcomes.timeout} / ${t.outcomes.crashed + t.outcomes['no-report']} / ${t.outcomes['mock-failed']} |`,
    `| operations (every method) / tenant GETs | ${t.operations} / ${t.tenantGets} |`,
    `| endpoints the harness found: lists / single resources | ${t.found.endpoints}: ${t.found.lists} / ${t.found.singles} |`,
    `| the mock's classification: lists / single / ambiguous (hand-labelled) | ${t.truth.list} / ${t.truth.single} / ${t.truth.ambiguous} (${t.truth.labelled}) |`,
    `| **blind spots**: lists the mock pages that the harness took for single resources | **${t.blindSpots}** |`,
    `| single resources the harness took for lists | ${t.wrongLists} |`,
    `| tenant GETs the harness did not list | ${t.unlisted} |`,
    `| list detection: recall / precision (all certain) | ${pct(t.detection.recall)} / ${pct(t.detection.precision)} |`,
    `| list detection on the hand-labelled: recall / precision | ${pct(t.labelledDetection.recall)} / ${pct(t.labelledDetection.precision)} |`,
    `| the corpus's rule against the hand labels (label/rule: endpoints) | ${
      Object.entries(t.ruleAgainstLabels)
        .sort()
        .map(([k, n]) => `${k}: ${n}`)
        .join(', ') || 'n/a'
    } |`,
    `| endpoints judged / not judged by any check | ${t.endpointsJudged} / ${t.endpointsNotJudged} |`,
    `| check × endpoint: passed / failed / warning / error / skipped | ${t.pairs.passed} / ${t.pairs.failed} / ${t.pairs.warning} / ${t.pairs.error} / ${t.pairs.skipped} |`,
    `| **false failures** (endpoints, documents) | **${t.falseFailures}** (${t.falseFailureEndpoints}, ${t.falseFailureDocuments}) |`,
    `| false warnings (SHOULD checks) | ${t.falseWarnings} |`,
    `| **harness errors** (documents) | **${t.harnessErrors}** (${t.harnessErrorDocuments}) |`,
    `| errors of a stopped run / of the transport | ${t.stopErrors} / ${t.transportErrors} |`,
    `| mock could not generate valid data: endpoints (failures, errors there, not counted above) | ${t.mockUntrustedEndpoints} (${t.mockFailures}, ${t.mockErrors}) |`,
    `| harness wall time per document: median / p90 / max (total) | ${(t.wallMs.median / 1000).toFixed(1)} / ${(t.wallMs.p90 / 1000).toFixed(1)} / ${(t.wallMs.max / 1000).toFixed(1)} s (${(t.wallMs.total / 1000).toFixed(0)} s) |`,
    `| document load time: median / p90 / max | ${t.loadMs ? `${t.loadMs.median} / ${t.loadMs.p90} / ${t.loadMs.max} ms` : 'n/a'} |`,
    `| harness peak RSS: median / p90 / max | ${t.peakRssMb ? `${t.peakRssMb.median} / ${t.peakRssMb.p90} / ${t.peakRssMb.max} MB` : 'n/a'} |`,
    '',
    '## False failures, grouped',
    '',
    ...groupTable(out.groups.falseFailures),
    '## Harness errors, grouped',
    '',
    ...groupTable(out.groups.harnessErrors),
    '## False warnings, grouped',
    '',
    ...groupTable(out.groups.falseWarnings),
    '## Documents not judged',
    '',
    ...(out.groups.notJudged.length === 0
      ? ['None.', '']
      : [
          '| count | outcome: reason (normalised) | example |',
          '|---:|---|---|',
          ...out.groups.notJudged
            .slice(0, TOP)
            .map((g) => `| ${g.count} | ${inline(g.reason, 200)} | ${inline(g.example, 80)} |`),
          '',
        ]),
    '## Skips, by reason',
    '',
    ...(out.groups.skips.length === 0
      ? ['None.', '']
      : [
          '| count | documents | check: reason (normalised) |',
          '|---:|---:|---|',
          ...out.groups.skips.slice(0, TOP).map((s) => `| ${s.count} | ${s.documents} | ${inline(s.reason, 220)} |`),
          '',
        ]),
    '## Mock could not generate valid data',
    '',
    ...(out.groups.mockUntrusted.length === 0
      ? ['None.', '']
      : [
          '| endpoints | why (normalised) | example |',
          '|---:|---|---|',
          ...out.groups.mockUntrusted
            .slice(0, TOP)
            .map((g) => `| ${g.count} | ${inline(g.why, 200)} | ${inline(g.example, 120)} |`),
          '',
        ]),
    '## Per document',
    '',
    '| document | outcome | GETs | found lists / singles | blind spots | false failures | harness errors | wall s | load ms | RSS MB |',
    '|---|---|---:|---|---:|---:|---:|---:|---:|---:|',
    ...out.documents.map(
      (r) =>
        `| ${inline(r.document, 80)} | ${r.outcome} | ${r.facts?.tenantGets ?? ''} | ${r.found ? `${r.found.lists} / ${r.found.singles}` : ''} | ${r.blindSpots.length} | ${r.falseFailures.length} | ${r.harnessErrors.length} | ${r.harness ? (r.harness.wallMs / 1000).toFixed(1) : ''} | ${r.harness?.loadMs ?? ''} | ${r.harness?.peakRssMb ?? ''} |`,
    ),
    '',
  ];
  return `${lines.join('\n')}\n`;
}
