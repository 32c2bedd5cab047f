/**
 * corpus.json from the documents' results: the totals and the groups (false failures, harness
 * errors, skips, documents not judged, endpoints the mock could not serve), for run.ts after every
 * document and for combine.ts over the results of several runs.
 */
import { CORPUS_PACKAGE, CORPUS_VERSION } from './cache.js';
import type { CorpusOutput } from './render.js';
import { group, normalise, totals, type DocumentResult } from './tally.js';

export interface RunFacts {
  harness: { suites: readonly string[]; bin: string };
  options: CorpusOutput['options'] & { labels?: string | undefined };
  startedAt: string;
  finishedAt: string;
  finished: boolean;
}

export function corpusOutput(
  list: readonly DocumentResult[],
  facts: RunFacts,
): CorpusOutput & { harness: RunFacts['harness'] } {
  const skips = new Map<string, { reason: string; count: number; documents: number }>();
  for (const r of list) {
    for (const [reason, count] of Object.entries(r.skips)) {
      const s = skips.get(reason) ?? { reason, count: 0, documents: 0 };
      s.count += count;
      s.documents += 1;
      skips.set(reason, s);
    }
  }
  const refusals = new Map<string, { reason: string; count: number; example: string }>();
  for (const r of list.filter((x) => x.outcome !== 'judged')) {
    const reason = `${r.outcome}: ${normalise(r.reason ?? '')}`;
    const g = refusals.get(reason) ?? { reason, count: 0, example: r.document };
    g.count += 1;
    refusals.set(reason, g);
  }
  const mockGroups = new Map<string, { why: string; count: number; example: string }>();
  for (const r of list) {
    for (const u of r.mockUntrusted) {
      const why = normalise(u.why);
      const g = mockGroups.get(why) ?? { why, count: 0, example: `${r.document} ${u.endpoint}` };
      g.count += 1;
      mockGroups.set(why, g);
    }
  }
  return {
    corpus: { package: CORPUS_PACKAGE, version: CORPUS_VERSION },
    harness: facts.harness,
    options: facts.options,
    startedAt: facts.startedAt,
    finishedAt: facts.finishedAt,
    finished: facts.finished,
    totals: totals(list),
    groups: {
      falseFailures: group(list, (r) => r.falseFailures),
      falseWarnings: group(list, (r) => r.falseWarnings),
      harnessErrors: group(list, (r) => r.harnessErrors),
      skips: [...skips.values()].sort((a, b) => b.count - a.count),
      notJudged: [...refusals.values()].sort((a, b) => b.count - a.count),
      mockUntrusted: [...mockGroups.values()].sort((a, b) => b.count - a.count),
    },
    documents: [...list],
  };
}
