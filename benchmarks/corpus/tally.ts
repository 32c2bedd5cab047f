/**
 * The figures of one document's run, from the harness's report.json and what the mock recorded,
 * and their totals over the corpus. What each figure means is in docs/corpus.md.
 *
 * The mock is conformant, so every failure the harness reports is false, except on an endpoint the
 * mock could not serve trustworthily (a body the oracle refused or could not read, a body the
 * generator could not make): those are counted apart ("mock could not generate valid data").
 *
 * An error is the harness's (a HARNESS ERROR) unless its message says the run was stopped (the
 * timeout: --deadline, an interruption), or the transport failed (a request timed out, a
 * connection reset: the machine or the mock, not the harness's reading), or it is on an endpoint
 * the mock could not serve. Against a conformant target, what is left is the harness's: a request
 * it could not make valid, a schema it could not compile, a precondition it got wrong.
 */
import type { CheckResult } from '../../src/model/run-report.js';
import type { DocumentFacts } from './mock-child.js';
import { endpointName, trusted, type EndpointRecord } from './mock.js';
import type { HarnessRun } from './run-harness.js';

/** One check × endpoint result worth listing. */
export interface Verdict {
  check: string;
  endpoint?: string;
  message: string;
}

export interface Detection {
  lists: number;
  listsAsList: number;
  singles: number;
  singlesAsList: number;
}

/**
 * judged: the run ended with a report (exit 0 or 1, or 3 for another cause than the deadline);
 * nothing-to-test: the document has no GET, and the harness said so (exit 2); refused: exit 2 for
 * another reason; timeout: the run hit --timeout; crashed / no-report: it ended without a report;
 * mock-failed: the mock could not serve the document (the harness was not run).
 */
export type Outcome = 'judged' | 'nothing-to-test' | 'refused' | 'timeout' | 'crashed' | 'no-report' | 'mock-failed';

export interface DocumentResult {
  document: string;
  outcome: Outcome;
  /** Exit code of the harness (2: refused the document or the configuration). */
  exitCode?: number | null;
  /** The harness's one-line reason for exit 2 or 3, or the mock's for mock-failed. */
  reason?: string;
  facts?: Partial<DocumentFacts>;
  harness?: {
    wallMs: number;
    loadMs?: number | undefined;
    cpuMs?: number | undefined;
    peakRssMb?: number | undefined;
    verdict?: string;
  };
  /** report.json target: operations and the tenant endpoints the harness found. */
  found?: { operations?: number | undefined; endpoints: number; lists: number; singles: number };
  /** The mock's classification (the ground truth): lists, single resources, ambiguous; hand-labelled among them. */
  truth: { list: number; single: number; ambiguous: number; labelled: number };
  /**
   * List detection against the certain classifications of the endpoints the harness listed: the
   * lists, those it took for lists; the single resources, those it took for lists. `labelled`:
   * the same over hand-labelled endpoints only.
   */
  detection: Detection;
  labelledDetection: Detection;
  /** The corpus's rule against the hand labels: labelled endpoints by "label/rule" (`list/ambiguous`: labelled a list, the rule said ambiguous). */
  ruleAgainstLabels: Record<string, number>;
  /** Lists (certain) the harness took for single resources, and single resources (certain) it took for lists. */
  blindSpots: string[];
  wrongLists: string[];
  /** Tenant GETs the harness did not list among its endpoints. */
  unlisted: string[];
  /** Check × endpoint results. */
  pairs: { passed: number; failed: number; warning: number; error: number; skipped: number };
  /** Endpoints with at least one check that passed, failed or warned; and with none. */
  endpointsJudged: number;
  endpointsNotJudged: number;
  /** Skips by reason (normalised). */
  skips: Record<string, number>;
  falseFailures: Verdict[];
  falseWarnings: Verdict[];
  harnessErrors: Verdict[];
  /** Errors that are not the harness's: the run stopped (timeout), transport failures. */
  stopErrors: number;
  transportErrors: number;
  /**
   * Endpoints the mock could not serve trustworthily, why, and the failures and errors the harness
   * reported on them (not counted above), with those of list checks on a GET that may be a list
   * but that the mock could not page (ambiguous, without an array it can tell).
   */
  mockUntrusted: { endpoint: string; why: string }[];
  mockFailures: number;
  mockErrors: number;
  /** Patterns the oracle could not compile (dropped). */
  unreadablePatterns?: number;
}

const LIST_CAP = 400;
const MESSAGE_CAP = 400;

/** Paths compared with their parameters unnamed and a `#variant` dropped: the harness may rename or strip. */
const key = (path: string): string =>
  path
    .replace(/^GET /, '')
    .replace(/^\/?tenants\/\{[^}]*\}\//, '')
    .replace(/#.*$/s, '')
    .replace(/\{[^}]*\}/g, '{}');

const STOPPED = /deadline|run was (stopped|interrupted|aborted)|interrupted|aborted|SIGTERM|SIGINT|not run: the run/i;
const TRANSPORT =
  /ECONNRESET|ECONNREFUSED|EPIPE|socket hang up|UND_ERR|other side closed|timed out after|request timed out|Headers Timeout|Body Timeout|connect ETIMEDOUT/i;

export function emptyResult(document: string, outcome: Outcome): DocumentResult {
  return {
    document,
    outcome,
    truth: { list: 0, single: 0, ambiguous: 0, labelled: 0 },
    detection: { lists: 0, listsAsList: 0, singles: 0, singlesAsList: 0 },
    labelledDetection: { lists: 0, listsAsList: 0, singles: 0, singlesAsList: 0 },
    ruleAgainstLabels: {},
    blindSpots: [],
    wrongLists: [],
    unlisted: [],
    pairs: { passed: 0, failed: 0, warning: 0, error: 0, skipped: 0 },
    endpointsJudged: 0,
    endpointsNotJudged: 0,
    skips: {},
    falseFailures: [],
    falseWarnings: [],
    harnessErrors: [],
    stopErrors: 0,
    transportErrors: 0,
    mockUntrusted: [],
    mockFailures: 0,
    mockErrors: 0,
  };
}

/**
 * A message with what varies between documents taken out, so that the same defect groups: quoted
 * names, paths, pointers, numbers and ids become placeholders.
 */
export function normalise(message: string): string {
  return (
    message
      .replace(/\s+/g, ' ')
      // An item quoted as JSON (the harness cuts it): up to what the message says of it.
      .replace(/\{".*?(?=: field | omits | \(and |$)/g, '{…}')
      .replace(/ \(and \d+ more like it\)/g, '')
      .replace(/GET \/tenants\/\{tenantId\}\/\S*/g, 'GET <path>')
      .replace(/"(?:[^"\\]|\\.){0,200}"/g, '"…"')
      .replace(/"…"(, "…")+(…|, …)?/g, '"…", …')
      .replace(/`[^`]{0,200}`/g, '`…`')
      .replace(/'[^'\s]{1,200}'/g, "'…'")
      .replace(/#\/[^\s,;)]*/g, '#/…')
      .replace(/https?:\/\/\S+/g, '<url>')
      // A path, with or without its leading slash (`v2/apps page 1:`), and an item's id.
      .replace(/(^|[\s(])\/?[^\s,;()"]*\/[^\s,;)]*/g, '$1<path>')
      .replace(/\bid [^\s:]+:/g, 'id …:')
      // A quoted name the harness cut: its opening quote alone.
      .replace(/,? ?"[^"]*$/, (tail, offset: number, all: string) =>
        (all.slice(0, offset).match(/"/g)?.length ?? 0) % 2 === 0 ? '' : tail,
      )
      .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>')
      .replace(/\b\d+(\.\d+)?\b/g, 'N')
      .trim()
      .slice(0, 200)
  );
}

const cut = (s: string): string => (s.length > MESSAGE_CAP ? `${s.slice(0, MESSAGE_CAP)}…` : s);

/** The message of a check's result on one endpoint: the entry's own, else its findings'. */
function messageOf(check: CheckResult, endpoint: string, entryMessage: string | undefined): string {
  if (entryMessage) return entryMessage;
  const finding = check.findings.find((f) => f.endpoint === endpoint) ?? check.findings[0];
  return finding?.message ?? check.message ?? '';
}

export function tally(
  document: string,
  facts: DocumentFacts,
  records: readonly EndpointRecord[],
  run: HarnessRun,
  unreadablePatterns: number,
): DocumentResult {
  const report = run.report;
  const outcome: Outcome = run.killed
    ? 'timeout'
    : run.code === 2
      ? facts.tenantGets === 0
        ? 'nothing-to-test'
        : 'refused'
      : report === undefined
        ? run.code === null
          ? 'crashed'
          : 'no-report'
        : run.code === 3 && /deadline/i.test(report.incompleteReason ?? '')
          ? 'timeout'
          : 'judged';
  const result = emptyResult(document, outcome);
  result.exitCode = run.code;
  result.facts = facts;
  result.unreadablePatterns = unreadablePatterns;
  result.harness = {
    wallMs: run.wallMs,
    loadMs: run.loadMs,
    cpuMs: run.cpuMs,
    peakRssMb: run.peakRssMb,
    ...(report ? { verdict: report.verdict } : {}),
  };
  if (outcome === 'refused' || outcome === 'nothing-to-test' || outcome === 'crashed' || outcome === 'no-report') {
    result.reason = lastLine(run.stderr) ?? `exit ${run.code}`;
  }
  if (outcome === 'timeout') result.reason = report?.incompleteReason ?? 'killed past the timeout';

  const byKey = new Map(records.map((r) => [key(r.template), r]));
  // A refused document's report has every check "not run" for the refusal: the refusal is the one finding.
  const judged = outcome === 'judged' || outcome === 'timeout';
  for (const r of records) {
    result.truth[r.decision.label] += 1;
    if (r.decision.labelled) {
      result.truth.labelled += 1;
      const k = `${r.decision.label}/${r.decision.rule ?? '?'}`;
      result.ruleAgainstLabels[k] = (result.ruleAgainstLabels[k] ?? 0) + 1;
    }
    if (!trusted(r))
      result.mockUntrusted.push({
        endpoint: endpointName(r.template),
        why: r.mockError
          ? `generator: ${r.mockError}`
          : r.unreadable
            ? `oracle could not read: ${r.unreadable}`
            : `oracle refused ${r.refused} of ${r.checked} bodies: ${r.refusal ?? ''}`,
      });
  }
  if (!report || !judged) return result;

  const endpoints = report.target.endpoints ?? [];
  result.found = {
    operations: report.target.operations,
    endpoints: endpoints.length,
    lists: endpoints.filter((e) => e.kind === 'list').length,
    singles: endpoints.filter((e) => e.kind === 'single').length,
  };
  const found = new Map(endpoints.map((e) => [key(e.path), e]));
  for (const r of records) {
    const e = found.get(key(r.template));
    if (!e) {
      result.unlisted.push(endpointName(r.template));
      continue;
    }
    if (r.decision.label === 'list' && e.kind === 'single') result.blindSpots.push(endpointName(r.template));
    if (r.decision.label === 'single' && e.kind === 'list') result.wrongLists.push(endpointName(r.template));
    for (const d of r.decision.labelled ? [result.detection, result.labelledDetection] : [result.detection]) {
      if (r.decision.label === 'list') {
        d.lists += 1;
        if (e.kind === 'list') d.listsAsList += 1;
      } else if (r.decision.label === 'single') {
        d.singles += 1;
        if (e.kind === 'list') d.singlesAsList += 1;
      }
    }
  }

  const judgedEndpoints = new Set<string>();
  const untrusted = (endpoint: string | undefined, check: string): boolean => {
    const r = endpoint === undefined ? undefined : byKey.get(key(endpoint));
    if (r === undefined) return false;
    // A list check on a GET that may be a list but that the mock could not page (an ambiguous one
    // without an array it can tell, a labelled list without one): nobody knows who is wrong there.
    const unpaged =
      r.decision.label !== 'single' && r.decision.shape === undefined && /^(PAGE|LINK|NULLS)-/.test(check);
    return !trusted(r) || unpaged;
  };
  for (const check of report.checks) {
    for (const entry of check.endpoints ?? []) {
      result.pairs[entry.status] += 1;
      if (entry.status === 'passed' || entry.status === 'failed' || entry.status === 'warning')
        judgedEndpoints.add(key(entry.endpoint));
      const message = messageOf(check, entry.endpoint, entry.message);
      if (entry.status === 'skipped') {
        const reason = `${check.id}: ${normalise(message)}`;
        result.skips[reason] = (result.skips[reason] ?? 0) + 1;
      } else if (entry.status === 'failed' || entry.status === 'warning') {
        if (untrusted(entry.endpoint, check.id)) result.mockFailures += 1;
        else
          (entry.status === 'failed' ? result.falseFailures : result.falseWarnings).push({
            check: check.id,
            endpoint: entry.endpoint,
            message: cut(message),
          });
      } else if (entry.status === 'error') {
        classifyError(result, check.id, entry.endpoint, message, untrusted(entry.endpoint, check.id));
      }
    }
    // A check that is not about endpoints (or lists none) and did not pass: counted once, without an endpoint.
    if ((check.endpoints ?? []).length === 0) {
      if (check.status === 'failed' || check.status === 'warning')
        (check.status === 'failed' ? result.falseFailures : result.falseWarnings).push({
          check: check.id,
          message: cut(check.message ?? check.findings[0]?.message ?? ''),
        });
      else if (check.status === 'error')
        classifyError(result, check.id, undefined, check.message ?? check.findings[0]?.message ?? '', false);
    }
  }
  result.endpointsJudged = records.filter((r) => judgedEndpoints.has(key(r.template))).length;
  result.endpointsNotJudged = records.length - result.endpointsJudged;
  for (const list of [result.falseFailures, result.falseWarnings, result.harnessErrors]) list.splice(LIST_CAP);
  return result;
}

function classifyError(
  result: DocumentResult,
  check: string,
  endpoint: string | undefined,
  message: string,
  untrusted: boolean,
): void {
  if (untrusted) result.mockErrors += 1;
  else if (STOPPED.test(message)) result.stopErrors += 1;
  else if (TRANSPORT.test(message)) result.transportErrors += 1;
  else result.harnessErrors.push({ check, ...(endpoint !== undefined ? { endpoint } : {}), message: cut(message) });
}

function lastLine(text: string): string | undefined {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('Command exited') && !l.startsWith('Command terminated'))
    .at(-1)
    ?.slice(0, MESSAGE_CAP);
}

// --- totals ------------------------------------------------------------------------------------

export interface Group {
  check: string;
  message: string;
  count: number;
  documents: number;
  example: { document: string; endpoint?: string | undefined; message: string };
}

/** Verdicts grouped by check and normalised message, most frequent first. */
export function group(results: readonly DocumentResult[], pick: (r: DocumentResult) => readonly Verdict[]): Group[] {
  const groups = new Map<string, Group & { docs: Set<string> }>();
  for (const r of results) {
    for (const v of pick(r)) {
      const k = `${v.check}\0${normalise(v.message)}`;
      const g = groups.get(k) ?? {
        check: v.check,
        message: normalise(v.message),
        count: 0,
        documents: 0,
        docs: new Set<string>(),
        example: { document: r.document, endpoint: v.endpoint, message: v.message },
      };
      g.count += 1;
      g.docs.add(r.document);
      groups.set(k, g);
    }
  }
  return [...groups.values()]
    .map(({ docs, ...g }) => ({ ...g, documents: docs.size }))
    .sort((a, b) => b.count - a.count || a.check.localeCompare(b.check));
}

export interface Totals {
  documents: number;
  outcomes: Record<Outcome, number>;
  operations: number;
  tenantGets: number;
  found: { endpoints: number; lists: number; singles: number };
  truth: { list: number; single: number; ambiguous: number; labelled: number };
  blindSpots: number;
  wrongLists: number;
  unlisted: number;
  /** List detection: recall (certain lists taken for lists) and precision (of what it took for lists among the certain, the lists), over all and over the hand-labelled. */
  detection: Detection & { recall: number | undefined; precision: number | undefined };
  labelledDetection: Detection & { recall: number | undefined; precision: number | undefined };
  ruleAgainstLabels: Record<string, number>;
  pairs: { passed: number; failed: number; warning: number; error: number; skipped: number };
  endpointsJudged: number;
  endpointsNotJudged: number;
  falseFailures: number;
  falseFailureEndpoints: number;
  falseFailureDocuments: number;
  falseWarnings: number;
  harnessErrors: number;
  harnessErrorDocuments: number;
  stopErrors: number;
  transportErrors: number;
  mockUntrustedEndpoints: number;
  mockFailures: number;
  mockErrors: number;
  wallMs: { total: number; median: number; p90: number; max: number };
  loadMs: { median: number; p90: number; max: number } | undefined;
  peakRssMb: { median: number; p90: number; max: number } | undefined;
}

function quantiles(values: readonly number[]): { median: number; p90: number; max: number } | undefined {
  if (values.length === 0) return undefined;
  const s = [...values].sort((a, b) => a - b);
  const q = (p: number): number => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
  return { median: q(0.5), p90: q(0.9), max: s.at(-1) ?? 0 };
}

function rates(
  results: readonly DocumentResult[],
  pick: (r: DocumentResult) => Detection,
): Detection & { recall: number | undefined; precision: number | undefined } {
  const d: Detection = { lists: 0, listsAsList: 0, singles: 0, singlesAsList: 0 };
  for (const r of results) for (const k of Object.keys(d) as (keyof Detection)[]) d[k] += pick(r)[k];
  const predicted = d.listsAsList + d.singlesAsList;
  return {
    ...d,
    recall: d.lists > 0 ? d.listsAsList / d.lists : undefined,
    precision: predicted > 0 ? d.listsAsList / predicted : undefined,
  };
}

export function totals(results: readonly DocumentResult[]): Totals {
  const sum = (f: (r: DocumentResult) => number): number => results.reduce((n, r) => n + f(r), 0);
  const outcomes: Record<Outcome, number> = {
    judged: 0,
    'nothing-to-test': 0,
    refused: 0,
    timeout: 0,
    crashed: 0,
    'no-report': 0,
    'mock-failed': 0,
  };
  for (const r of results) outcomes[r.outcome] += 1;
  const walls = results.map((r) => r.harness?.wallMs).filter((v): v is number => v !== undefined);
  const wall = quantiles(walls);
  return {
    documents: results.length,
    outcomes,
    operations: sum((r) => r.facts?.operations ?? 0),
    tenantGets: sum((r) => r.facts?.tenantGets ?? 0),
    found: {
      endpoints: sum((r) => r.found?.endpoints ?? 0),
      lists: sum((r) => r.found?.lists ?? 0),
      singles: sum((r) => r.found?.singles ?? 0),
    },
    truth: {
      list: sum((r) => r.truth.list),
      single: sum((r) => r.truth.single),
      ambiguous: sum((r) => r.truth.ambiguous),
      labelled: sum((r) => r.truth.labelled),
    },
    blindSpots: sum((r) => r.blindSpots.length),
    wrongLists: sum((r) => r.wrongLists.length),
    unlisted: sum((r) => r.unlisted.length),
    detection: rates(results, (r) => r.detection),
    labelledDetection: rates(results, (r) => r.labelledDetection),
    ruleAgainstLabels: results.reduce<Record<string, number>>((acc, r) => {
      for (const [k, n] of Object.entries(r.ruleAgainstLabels)) acc[k] = (acc[k] ?? 0) + n;
      return acc;
    }, {}),
    pairs: {
      passed: sum((r) => r.pairs.passed),
      failed: sum((r) => r.pairs.failed),
      warning: sum((r) => r.pairs.warning),
      error: sum((r) => r.pairs.error),
      skipped: sum((r) => r.pairs.skipped),
    },
    endpointsJudged: sum((r) => r.endpointsJudged),
    endpointsNotJudged: sum((r) => r.endpointsNotJudged),
    falseFailures: sum((r) => r.falseFailures.length),
    falseFailureEndpoints: sum((r) => new Set(r.falseFailures.map((f) => f.endpoint ?? f.check)).size),
    falseFailureDocuments: results.filter((r) => r.falseFailures.length > 0).length,
    falseWarnings: sum((r) => r.falseWarnings.length),
    harnessErrors: sum((r) => r.harnessErrors.length),
    harnessErrorDocuments: results.filter((r) => r.harnessErrors.length > 0).length,
    stopErrors: sum((r) => r.stopErrors),
    transportErrors: sum((r) => r.transportErrors),
    mockUntrustedEndpoints: sum((r) => r.mockUntrusted.length),
    mockFailures: sum((r) => r.mockFailures),
    mockErrors: sum((r) => r.mockErrors),
    wallMs: { total: walls.reduce((a, b) => a + b, 0), ...(wall ?? { median: 0, p90: 0, max: 0 }) },
    loadMs: quantiles(results.map((r) => r.harness?.loadMs).filter((v): v is number => v !== undefined)),
    peakRssMb: quantiles(results.map((r) => r.harness?.peakRssMb).filter((v): v is number => v !== undefined)),
  };
}
