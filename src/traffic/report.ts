import { basename } from 'node:path';
import { CHECKS } from '../catalogue/index.js';
import { currentCatalogue } from '../catalogue/digest.js';
import { TOOL_NAME, TOOL_VERSION } from '../core/version.js';
import { plural } from '../core/wording.js';
import {
  countStatuses,
  type CheckResult,
  type Finding,
  type RecordedExchange,
  type RunReport,
  type Scope,
} from '../model/run-report.js';
import { scopeOfChecks, suiteCounts, verdictLine, verdictOf } from '../report/verdict.js';
import type { CapturedExchange } from './capture.js';
import type { PassiveResult } from './judge.js';

/**
 * The report of a `traffic` command (issue 43), in the run's own model (src/model/run-report.ts),
 * so that every writer of a run's reports writes it as they are (console, JUnit, JSON, HTML, the
 * step summary) and `diff` compares two days of traffic. Only the passive checks are selected; a
 * check no exchange fitted is skipped as "not observed", never passed; no request was sent.
 */

export interface CaptureFacts {
  file: string;
  format: 'har' | 'ndjson' | 'nginx' | 'kong';
  sha256: string;
  exchanges: number;
}

export interface TrafficFacts {
  captures: CaptureFacts[];
  exchanges: number;
  matched: number;
  endpoints: string[];
  limits: string[];
  /** Where the exchanges went: the origin and path prefix of the API, and of its token endpoint. */
  baseUrl: string | undefined;
  /** Every place the exchanges went, when more than one. */
  bases?: string[];
  authUrl: string | undefined;
  started: Date;
  strict: boolean;
  /** Why judging stopped before the captures' end (--deadline, a signal): the verdict is then incomplete. */
  stopped?: string;
  /** The --openapi document the endpoints were matched by. */
  openapi?: string;
}

/** `report.har entry 12` or `day.ndjson line 12`, with its time when the capture gives one. */
export function whereIs(exchange: CapturedExchange): string {
  const file = exchange.file === undefined ? 'the capture' : basename(exchange.file);
  const place = exchange.line !== undefined ? `line ${exchange.line}` : `entry ${exchange.index + 1}`;
  return `${file} ${place}${exchange.startedAt !== undefined ? `, ${exchange.startedAt}` : ''}`;
}

function authOf(exchange: CapturedExchange): RecordedExchange['auth'] {
  const value = exchange.request.headers.find(([name]) => name.toLowerCase() === 'authorization')?.[1];
  if (value === undefined) return 'none';
  if (/^bearer\s/i.test(value)) return 'bearer';
  if (/^basic\s/i.test(value)) return 'client-basic';
  return 'literal';
}

function recorded(exchange: CapturedExchange): RecordedExchange {
  const { request, response } = exchange;
  return {
    purpose: `captured: ${whereIs(exchange)}`,
    request: {
      method: exchange.method,
      url: exchange.url,
      headers: request.headers,
      ...(request.body !== undefined ? { body: request.body } : {}),
    },
    ...(response
      ? {
          response: {
            status: response.status,
            headers: response.headers,
            body: response.body ?? '',
            bodyTruncated: response.bodyTruncated === true,
          },
        }
      : {}),
    startedAt: exchange.startedAt ?? '',
    durationMs: 0,
    auth: authOf(exchange),
  };
}

/** "not observed: the captures hold no token issued …", or why the check could judge nothing at all. */
export const notObserved = (result: PassiveResult): string =>
  result.reason !== undefined
    ? `not judged: ${result.reason}`
    : `not observed: the captures hold ${result.needs.replace(/^an? /, 'no ')}`;

function checkResult(result: PassiveResult, strict: boolean): CheckResult {
  const failing = result.level === 'SHOULD' && !strict ? 'warning' : 'failed';
  const exchanges: RecordedExchange[] = [];
  const findings: Finding[] = result.findings.map((f) => {
    exchanges.push(recorded(f.exchange));
    const more = f.count > 1 ? `; and ${plural(f.count - 1, 'more exchange')} like it` : '';
    return {
      kind: 'failure',
      message: `${f.message} (${whereIs(f.exchange)}${more})`,
      exchange: exchanges.length - 1,
      endpoint: f.endpoint,
    };
  });
  if (result.notListed > 0)
    findings.push({
      kind: 'failure',
      message: `and ${plural(result.notListed, 'more finding')} of other causes, not listed`,
    });
  const status = result.status === 'not-observed' ? 'skipped' : result.status === 'failed' ? failing : 'passed';
  const first = findings[0]?.message;
  return {
    id: result.id,
    suite: result.suite,
    level: result.level,
    title: result.title,
    refs: result.refs,
    status,
    ...(status === 'skipped' ? { message: notObserved(result) } : first !== undefined ? { message: first } : {}),
    findings,
    endpoints: result.endpoints.map((e) => ({
      endpoint: e.endpoint,
      status: e.status === 'not-observed' ? 'skipped' : e.status === 'failed' ? failing : 'passed',
      message:
        e.status === 'not-observed'
          ? notObserved(result)
          : `${plural(e.judged, 'exchange')} judged${e.failed > 0 ? `, ${e.failed} failed` : ''}`,
    })),
    notes: [`${plural(result.judged, 'captured exchange')} judged`],
    exchanges,
    durationMs: 0,
  };
}

/** What the verdict covers: the passive checks selected, every other check of the catalogue not. */
function scopeOf(checks: readonly CheckResult[]): Scope {
  const passive = new Set(checks.map((c) => c.id));
  const scope = scopeOfChecks(checks);
  return {
    ...scope,
    coverage: scope.carriedOut === 0 ? 'none' : 'partial',
    catalogue: CHECKS.length,
    selection: { suites: [], checks: [], passive: true },
    notSelected: CHECKS.filter((c) => !passive.has(c.id)).map((c) => c.id),
  };
}

export function trafficReport(results: readonly PassiveResult[], facts: TrafficFacts): RunReport {
  const checks = results.map((r) => checkResult(r, facts.strict));
  const scope = scopeOf(checks);
  const reason =
    facts.stopped ??
    (scope.carriedOut === 0
      ? `nothing in ${facts.captures.map((c) => basename(c.file)).join(', ')} could be judged: ${
          facts.matched === 0
            ? `none of its ${plural(facts.exchanges, 'exchange')} went to an endpoint of the spec (${'/uaa/oauth2/token, /users/me, /tenants/{tenantId}/…'})`
            : `its ${plural(facts.matched, 'exchange')} to the spec's endpoints fit no passive check (docs/traffic.md)`
        }`
      : undefined);
  const { verdict, exitCode } = verdictOf(checks, { strict: facts.strict }, reason, scope);
  const finished = new Date();
  const unknown = '(no endpoint of the spec in the captures)';
  const report: RunReport = {
    tool: { name: TOOL_NAME, version: TOOL_VERSION },
    target: {
      baseUrl:
        (facts.bases?.length ?? 0) > 1
          ? `${facts.baseUrl ?? facts.authUrl ?? unknown} and ${plural((facts.bases?.length ?? 1) - 1, 'other')} (traffic.origins)`
          : (facts.baseUrl ?? facts.authUrl ?? unknown),
      authUrl: facts.authUrl ?? facts.baseUrl ?? unknown,
      embedded: false,
      pagedPaths: [],
      credentialsFormEncoded: false,
      ...(facts.openapi !== undefined ? { openapi: facts.openapi } : {}),
    },
    catalogue: currentCatalogue(),
    startedAt: facts.started.toISOString(),
    finishedAt: finished.toISOString(),
    durationMs: finished.getTime() - facts.started.getTime(),
    strict: facts.strict,
    verdict,
    scope,
    ...(reason !== undefined ? { incompleteReason: reason } : {}),
    exitCode,
    traffic: {
      captures: facts.captures,
      exchanges: facts.exchanges,
      matched: facts.matched,
      endpoints: facts.endpoints,
      limits: facts.limits,
      ...((facts.bases?.length ?? 0) > 1 ? { origins: facts.bases } : {}),
    },
    counts: countStatuses(checks),
    suites: suiteCounts(checks),
    checks,
  };
  return { ...report, summary: verdictLine(report) };
}
