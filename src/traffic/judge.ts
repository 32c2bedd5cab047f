import { getCheck } from '../catalogue/index.js';
import {
  accessTokenProblem,
  expiresInProblem,
  noStoreProblem,
  pragmaProblem,
  tokenTypeCaseProblem,
  tokenTypeProblem,
} from '../carrier/token-judges.js';
import { endpointOf } from './endpoints.js';
import type { CapturedExchange } from './har.js';

/**
 * Issue 43 (work in progress): the passive subset of the catalogue, judged on captured exchanges
 * with the battery's own judges (src/carrier/token-judges.ts), so that a check's rule and words
 * are the same in a run and in traffic. So far: the token response's checks, on every successful
 * POST to the token endpoint the capture holds. A check no exchange exercised is "not observed",
 * never passed.
 */

export interface PassiveFinding {
  message: string;
  /** The exchange's place in the capture, and when it started. */
  exchange: number;
  at?: string;
  endpoint: string;
}

export interface PassiveResult {
  id: string;
  level: 'MUST' | 'SHOULD';
  title: string;
  refs: string[];
  status: 'passed' | 'failed' | 'not-observed';
  /** How many exchanges the check judged. */
  judged: number;
  findings: PassiveFinding[];
}

type TokenRule = (
  body: Record<string, unknown>,
  text: string,
  header: (name: string) => string | undefined,
) => string | undefined;

/** The token response's checks (spec §Access token response, RFC 6749 §5.1). */
const TOKEN_RULES: readonly [string, TokenRule][] = [
  ['TOKEN-ACCESS-TOKEN', (body) => accessTokenProblem(body)],
  ['TOKEN-TYPE', (body) => tokenTypeProblem(body)],
  ['TOKEN-TYPE-CASE', (body) => tokenTypeCaseProblem(body)],
  ['TOKEN-EXPIRES-IN', (body, text) => expiresInProblem(body, text)],
  ['TOKEN-NO-STORE', (_body, _text, header) => noStoreProblem(header('cache-control'))],
  ['TOKEN-PRAGMA', (_body, _text, header) => pragmaProblem(header('pragma'))],
];

/** A field's lines combined with ", " (RFC 9110 §5.3), or undefined when absent. */
function headerOf(headers: readonly [string, string][], name: string): string | undefined {
  const lines = headers.filter(([n]) => n.toLowerCase() === name).map(([, v]) => v);
  return lines.length > 0 ? lines.join(', ') : undefined;
}

function jsonObject(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

export function judgeTraffic(exchanges: readonly CapturedExchange[]): PassiveResult[] {
  const results = new Map<string, PassiveResult>(
    TOKEN_RULES.map(([id]) => {
      const check = getCheck(id);
      return [
        id,
        {
          id,
          level: check.level,
          title: check.title,
          refs: check.refs,
          status: 'not-observed',
          judged: 0,
          findings: [],
        },
      ];
    }),
  );
  for (const exchange of exchanges) {
    const endpoint = endpointOf(exchange.method, exchange.url);
    const response = exchange.response;
    // A token the endpoint issued: RFC 6749 §5.1 asks these of the successful response alone.
    if (
      endpoint?.kind !== 'token' ||
      endpoint.legacy ||
      exchange.method.toUpperCase() !== 'POST' ||
      response?.status !== 200
    )
      continue;
    const body = jsonObject(response.body);
    if (body === undefined) continue;
    for (const [id, rule] of TOKEN_RULES) {
      const result = results.get(id);
      if (!result) continue;
      result.judged += 1;
      const problem = rule(body, response.body ?? '', (name) => headerOf(response.headers, name));
      if (problem !== undefined)
        result.findings.push({
          message: problem,
          exchange: exchange.index,
          ...(exchange.startedAt !== undefined ? { at: exchange.startedAt } : {}),
          endpoint: endpoint.label,
        });
    }
  }
  return [...results.values()].map((r) => ({
    ...r,
    status: r.judged === 0 ? 'not-observed' : r.findings.length > 0 ? 'failed' : 'passed',
  }));
}
