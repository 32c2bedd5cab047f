/**
 * List detection measured against hand labels (issue 37, *A corpus the harness is measured on*:
 * "label by hand (operationId, summary, body) the GETs of at least 10 documents and report
 * precision and recall"; targets: list recall ≥ 95 %, precision ≥ 99 %).
 *
 * A label says what a careful reader makes of one GET of a public document: `list` when its
 * success body returns multiple elements of a collection (spec §Pagination: paging "applies to
 * search endpoints and others returning multiple elements"), bare or wrapped, paged or not;
 * `single` for one resource, whatever arrays, maps or counts it holds; `ambiguous` where the
 * document does not let a reader tell (its `why` says what disagrees). This module is pure: it
 * scores the endpoints the harness's endpoint model found against the labels of one document, and
 * renders the result; list-accuracy.ts reads the documents and writes the reports.
 *
 * "list" is the positive class. An ambiguous GET is left out of the figures, and counted. A
 * labelled GET the harness has no endpoint for (the document was not read, or the GET was lost)
 * is "absent": for a labelled list it is a miss (the list is not judged as one), for a single
 * resource it is neither right nor wrong; both are listed.
 */
import { z } from '../../src/core/zod.js';
import type { EndpointSpec } from '../../src/carrier/endpoint-specs.js';
import { inline } from '../../src/report/markdown.js';

/** Issue 37's targets for the labelled set. */
export const TARGETS = { recall: 0.95, precision: 0.99 } as const;

const LABEL = z.enum(['list', 'single', 'ambiguous']);

/** One hand-labelled GET: the document (relative to the corpus's `api/` folder) and its path key as written there. */
export const ListLabelSchema = z
  .object({
    document: z
      .string()
      .min(1)
      .refine(
        (d) => !d.startsWith('/') && !d.split('/').includes('..'),
        'a path relative to the corpus folder, without ".."',
      ),
    path: z.string().startsWith('/'),
    label: LABEL,
    why: z.string().trim().min(1),
  })
  .strict();

export type ListLabel = z.infer<typeof ListLabelSchema>;

/** The label file: an array sorted by document, then path, each GET once (a deterministic file, reviewable as a diff). */
export const ListLabelsSchema = z.array(ListLabelSchema).superRefine((labels, ctx) => {
  for (let i = 1; i < labels.length; i += 1) {
    const a = labels[i - 1];
    const b = labels[i];
    if (a === undefined || b === undefined) continue;
    const order = compareLabels(a, b);
    if (order === 0) ctx.addIssue({ code: 'custom', path: [i], message: `${b.document} ${b.path} is labelled twice` });
    else if (order > 0)
      ctx.addIssue({
        code: 'custom',
        path: [i],
        message: `not sorted: ${b.document} ${b.path} comes after ${a.document} ${a.path}`,
      });
  }
});

/** Code-unit order of document, then path: the order the file is kept in. */
export function compareLabels(
  a: Pick<ListLabel, 'document' | 'path'>,
  b: Pick<ListLabel, 'document' | 'path'>,
): number {
  if (a.document !== b.document) return a.document < b.document ? -1 : 1;
  if (a.path !== b.path) return a.path < b.path ? -1 : 1;
  return 0;
}

/**
 * The harness's endpoint path for a document's path key once re-rooted under the tenant
 * (test/support/document-mock.ts `reRoot`: `/` becomes `/root`).
 */
export function tenantRelative(path: string): string {
  return path === '/' ? 'root' : path.slice(1);
}

/** What the harness made of a labelled GET. */
export type HarnessKind = EndpointSpec['kind'] | 'absent';

/** A labelled GET and the harness's reading of it. */
export interface Judged {
  document: string;
  path: string;
  label: ListLabel['label'];
  harness: HarnessKind;
  listBy?: EndpointSpec['listBy'];
  itemsProperty?: string;
  why: string;
}

export interface Counts {
  /** Labelled list, harness list. */
  tp: number;
  /** Labelled single, harness list. */
  fp: number;
  /** Labelled list, harness single or absent. */
  fn: number;
  /** Labelled single, harness single. */
  tn: number;
}

export interface DocumentScore extends Counts {
  document: string;
  labelled: { list: number; single: number; ambiguous: number };
  /** Labelled GETs the harness has no endpoint for (among them the lists counted in `fn`). */
  absent: number;
  /** Ambiguous GETs the harness took for lists, and for single resources. */
  ambiguousAs: { list: number; single: number };
  precision: number | null;
  recall: number | null;
  /** Endpoints of the harness no label names (the document changed, or the labels miss a GET). */
  unlabelled: string[];
  /** Why the document could not be read, when it could not. */
  error?: string;
  judged: Judged[];
}

function ratio(numerator: number, denominator: number): number | null {
  return denominator === 0 ? null : numerator / denominator;
}

/**
 * Scores the harness's endpoints of one document against its labels. An endpoint is found by its
 * tenant-relative path; failing that, by the path without a `#…` suffix (Box's operation variants
 * `/shared_items#folders`, which a harness may send as the path the wire sees).
 */
export function scoreDocument(
  document: string,
  labels: readonly ListLabel[],
  endpoints: readonly EndpointSpec[],
  error?: string,
): DocumentScore {
  const byPath = new Map(endpoints.map((e) => [e.path, e]));
  const used = new Set<string>();
  const judged: Judged[] = [];
  const counts: Counts = { tp: 0, fp: 0, fn: 0, tn: 0 };
  const labelled = { list: 0, single: 0, ambiguous: 0 };
  const ambiguousAs = { list: 0, single: 0 };
  let absent = 0;
  for (const l of labels) {
    const relative = tenantRelative(l.path);
    const endpoint = byPath.get(relative) ?? byPath.get(relative.replace(/#.*$/, ''));
    if (endpoint) used.add(endpoint.path);
    const harness: HarnessKind = endpoint?.kind ?? 'absent';
    labelled[l.label] += 1;
    if (harness === 'absent') absent += 1;
    if (l.label === 'ambiguous') {
      if (harness !== 'absent') ambiguousAs[harness] += 1;
    } else if (l.label === 'list') {
      if (harness === 'list') counts.tp += 1;
      else counts.fn += 1;
    } else if (harness === 'list') counts.fp += 1;
    else if (harness === 'single') counts.tn += 1;
    judged.push({
      document,
      path: l.path,
      label: l.label,
      harness,
      ...(endpoint?.listBy !== undefined ? { listBy: endpoint.listBy } : {}),
      ...(endpoint?.itemsProperty !== undefined ? { itemsProperty: endpoint.itemsProperty } : {}),
      why: l.why,
    });
  }
  return {
    document,
    labelled,
    ...counts,
    absent,
    ambiguousAs,
    precision: ratio(counts.tp, counts.tp + counts.fp),
    recall: ratio(counts.tp, counts.tp + counts.fn),
    unlabelled: endpoints
      .map((e) => e.path)
      .filter((p) => !used.has(p))
      .sort(),
    ...(error !== undefined ? { error } : {}),
    judged,
  };
}

/** Where the harness and the labels differ: a list missed, or a single resource taken for one. */
export function isDisagreement(j: Judged): boolean {
  return (j.label === 'list' && j.harness !== 'list') || (j.label === 'single' && j.harness === 'list');
}

export interface Accuracy {
  labels: string;
  corpus: string;
  targets: typeof TARGETS;
  total: Omit<DocumentScore, 'document' | 'judged' | 'unlabelled' | 'error'> & {
    documents: number;
    unread: number;
    meetsTargets: boolean;
  };
  documents: Omit<DocumentScore, 'judged'>[];
  /** Every labelled list the harness missed and every single resource it took for a list, by document and path. */
  disagreements: Judged[];
  /** The ambiguous GETs, left out of the figures, with what the harness made of them. */
  ambiguous: Judged[];
}

/** The scores of all documents, summed (micro-averaged: each GET weighs the same). */
export function accuracyOf(scores: readonly DocumentScore[], source: { labels: string; corpus: string }): Accuracy {
  const sorted = [...scores].sort((a, b) => (a.document < b.document ? -1 : a.document > b.document ? 1 : 0));
  const sum = (f: (s: DocumentScore) => number): number => sorted.reduce((n, s) => n + f(s), 0);
  const counts: Counts = { tp: sum((s) => s.tp), fp: sum((s) => s.fp), fn: sum((s) => s.fn), tn: sum((s) => s.tn) };
  const precision = ratio(counts.tp, counts.tp + counts.fp);
  const recall = ratio(counts.tp, counts.tp + counts.fn);
  const judged = sorted.flatMap((s) => s.judged);
  return {
    ...source,
    targets: TARGETS,
    total: {
      documents: sorted.length,
      unread: sorted.filter((s) => s.error !== undefined).length,
      labelled: {
        list: sum((s) => s.labelled.list),
        single: sum((s) => s.labelled.single),
        ambiguous: sum((s) => s.labelled.ambiguous),
      },
      ...counts,
      absent: sum((s) => s.absent),
      ambiguousAs: { list: sum((s) => s.ambiguousAs.list), single: sum((s) => s.ambiguousAs.single) },
      precision,
      recall,
      meetsTargets: precision !== null && recall !== null && precision >= TARGETS.precision && recall >= TARGETS.recall,
    },
    documents: sorted.map(({ judged: _judged, ...rest }) => rest),
    disagreements: judged.filter(isDisagreement),
    ambiguous: judged.filter((j) => j.label === 'ambiguous'),
  };
}

/** 0.9876 → "98.8 %"; no denominator → "–". */
function percent(value: number | null): string {
  return value === null ? '–' : `${(Math.floor(value * 1000) / 10).toFixed(1)} %`;
}

/** A document's path key or a label's reason in a table cell: plain text whatever it holds (the document is not ours). */
function cell(text: string): string {
  return inline(text, 400);
}

function harnessCell(j: Judged): string {
  if (j.harness === 'absent') return 'absent';
  return j.harness === 'list'
    ? `list (${j.listBy ?? '?'}${j.itemsProperty !== undefined ? `: ${cell(j.itemsProperty)}` : ''})`
    : 'single';
}

/** The report as Markdown: the figures per document and in total, then every disagreement and every ambiguous GET. */
export function renderAccuracy(a: Accuracy): string {
  const t = a.total;
  const verdict = (value: number | null, target: number): string =>
    value !== null && value >= target ? 'met' : 'not met';
  const lines = [
    '# List detection against hand labels',
    '',
    `Labels: ${cell(a.labels)}: ${t.labelled.list + t.labelled.single + t.labelled.ambiguous} GETs of ${t.documents} documents (${t.labelled.list} lists, ${t.labelled.single} single resources, ${t.labelled.ambiguous} ambiguous, left out). Corpus: ${cell(a.corpus)}.${t.unread > 0 ? ` **${t.unread} document(s) could not be read**: their lists count as missed.` : ''}`,
    '',
    `Recall ${percent(t.recall)} (target ≥ ${percent(a.targets.recall)}: ${verdict(t.recall, a.targets.recall)}), precision ${percent(t.precision)} (target ≥ ${percent(a.targets.precision)}: ${verdict(t.precision, a.targets.precision)}); "list" is the positive class.`,
    '',
    '| document | GETs | lists | single | ambiguous | TP | FP | FN | TN | absent | precision | recall |',
    '|:--|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
    ...a.documents.map(
      (d) =>
        `| ${cell(d.document)}${d.error !== undefined ? ` (not read: ${cell(d.error)})` : ''} | ${d.labelled.list + d.labelled.single + d.labelled.ambiguous} | ${d.labelled.list} | ${d.labelled.single} | ${d.labelled.ambiguous} | ${d.tp} | ${d.fp} | ${d.fn} | ${d.tn} | ${d.absent} | ${percent(d.precision)} | ${percent(d.recall)} |`,
    ),
    `| **total** | ${t.labelled.list + t.labelled.single + t.labelled.ambiguous} | ${t.labelled.list} | ${t.labelled.single} | ${t.labelled.ambiguous} | ${t.tp} | ${t.fp} | ${t.fn} | ${t.tn} | ${t.absent} | **${percent(t.precision)}** | **${percent(t.recall)}** |`,
  ];
  const unlabelled = a.documents.filter((d) => d.unlabelled.length > 0);
  if (unlabelled.length > 0) {
    lines.push(
      '',
      `Endpoints no label names (the labels are out of date with the document): ${unlabelled.map((d) => `${cell(d.document)} ${d.unlabelled.length}`).join(', ')}.`,
    );
  }
  const table = (title: string, rows: readonly Judged[]): void => {
    lines.push('', `## ${title} (${rows.length})`, '');
    if (rows.length === 0) {
      lines.push('None.');
      return;
    }
    lines.push("| document | path | label | harness | why (the label's reading) |", '|:--|:--|:--|:--|:--|');
    for (const j of rows)
      lines.push(`| ${cell(j.document)} | ${cell(j.path)} | ${j.label} | ${harnessCell(j)} | ${cell(j.why)} |`);
  };
  table(
    'Lists the harness takes for single resources (FN)',
    a.disagreements.filter((j) => j.label === 'list'),
  );
  table(
    'Single resources the harness takes for lists (FP)',
    a.disagreements.filter((j) => j.label === 'single'),
  );
  table('Ambiguous GETs, left out of the figures', a.ambiguous);
  return `${lines.join('\n')}\n`;
}
