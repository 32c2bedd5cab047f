import { getCheck } from '../catalogue/index.js';
import type { Level, SuiteName } from '../catalogue/types.js';
import { plural } from '../core/wording.js';
import type { Redactor } from '../core/redact.js';
import { redactCaptured, type CapturedExchange } from './capture.js';
import type { Json } from '../openapi/pointer.js';
import { endpointOf, type DocumentedPaths, type ObservedEndpoint } from './endpoints.js';
import { Observation } from './observation.js';
import { isPage, passiveRules, type PassiveRule } from './rules.js';

/**
 * The passive subset of the catalogue judged on captured exchanges, one at a time (issue 43): a
 * capture of any length is judged in bounded memory. Exchanges are judged as captured, and what is
 * kept of them as evidence is redacted at the end, with every secret the readers learnt. Each check keeps its counts per endpoint and
 * one finding per cause (the first exchange that shows it, and how many more did), never the
 * exchanges themselves. A check no exchange fitted is "not observed", never passed.
 */

/**
 * Endpoints judged at most: a capture reaches a few dozen; one of random paths (a scan, a hostile
 * file) would otherwise grow every check's per-endpoint counts without bound. Exchanges to further
 * endpoints are counted and not judged.
 */
const MAX_ENDPOINTS = 1000;
/** Causes listed per check; the rest are counted. */
const MAX_CAUSES = 20;
/** Characters of a cited exchange's body kept as evidence: a finding needs the start of it, not megabytes. */
const EVIDENCE_BODY_CHARS = 16_384;

export interface PassiveFinding {
  message: string;
  endpoint: string;
  /** The first exchange that shows it (its body cut to EVIDENCE_BODY_CHARS). */
  exchange: CapturedExchange;
  /** Exchanges that showed the same cause, this one included. */
  count: number;
}

export interface EndpointCoverage {
  endpoint: string;
  status: 'passed' | 'failed' | 'not-observed';
  /** Exchanges to it the check judged, and how many of them failed it. */
  judged: number;
  failed: number;
}

export interface PassiveResult {
  id: string;
  suite: SuiteName;
  level: Level;
  title: string;
  refs: string[];
  status: 'passed' | 'failed' | 'not-observed';
  /** What an exchange must be for the check to judge it. */
  needs: string;
  /** Why it judged nothing whatever the traffic (no --openapi document): said instead of "not observed". */
  reason?: string;
  judged: number;
  findings: PassiveFinding[];
  /** Causes beyond MAX_CAUSES, counted. */
  notListed: number;
  endpoints: EndpointCoverage[];
}

interface RuleState {
  rule: PassiveRule;
  judged: number;
  byEndpoint: Map<string, { judged: number; failed: number }>;
  causes: Map<string, PassiveFinding>;
  notListed: number;
}

/** One cause whatever page or number it names: `page 3 of 7` and `page 4 of 7` are one defect. */
const causeOf = (endpoint: string, message: string): string => `${endpoint}\u0000${message.replace(/\d+/g, '#')}`;

function evidence(exchange: CapturedExchange): CapturedExchange {
  const response = exchange.response;
  if (response?.body === undefined || response.body.length <= EVIDENCE_BODY_CHARS) return exchange;
  return {
    ...exchange,
    response: { ...response, body: response.body.slice(0, EVIDENCE_BODY_CHARS), bodyTruncated: true },
  };
}

export class TrafficJudge {
  readonly #states: RuleState[] = passiveRules().map((rule) => ({
    rule,
    judged: 0,
    byEndpoint: new Map(),
    causes: new Map(),
    notListed: 0,
  }));
  /** Every endpoint of the spec's the capture reached, by label. */
  readonly #endpoints = new Map<string, ObservedEndpoint>();
  /** The endpoints seen answering a page of a list. */
  readonly #lists = new Set<string>();
  /** Exchanges read, and those to an endpoint of the spec's. */
  exchanges = 0;
  matched = 0;
  /** Where the API and its token endpoint were reached: origin and path prefix, from the first exchange to each. */
  apiBase: string | undefined;
  authBase: string | undefined;
  /** Exchanges to the spec's endpoints whose capture does not record Accept-Version or Authorization, or the answer's body. */
  #unrecordedFields = 0;
  #noBody = 0;
  /** Exchanges to endpoints past MAX_ENDPOINTS. */
  #pastEndpoints = 0;
  #results: PassiveResult[] | undefined;

  /**
   * `redactor`: what the captures' readers learnt; the evidence kept is redacted with it at the
   * end. `api`: the --openapi document, whose templates name the tenant endpoints and whose
   * schemas the resource rules judge bodies against.
   */
  constructor(
    readonly redactor?: Redactor,
    api?: { document: Json; paths: DocumentedPaths },
  ) {
    this.#api = api;
  }
  readonly #api: { document: Json; paths: DocumentedPaths } | undefined;
  /** Every origin and prefix the API's exchanges went to (the first 100). */
  readonly #bases = new Set<string>();
  /** Exchanges to tenant paths the document does not declare. */
  #undocumented = new Map<string, number>();

  add(exchange: CapturedExchange): void {
    this.exchanges += 1;
    const endpoint = endpointOf(exchange.method, exchange.url, this.#api?.paths);
    if (endpoint === undefined) return;
    if (!this.#endpoints.has(endpoint.label)) {
      if (this.#endpoints.size >= MAX_ENDPOINTS) {
        this.#pastEndpoints += 1;
        return;
      }
      this.#endpoints.set(endpoint.label, endpoint);
    }
    this.matched += 1;
    const observation = new Observation(exchange, endpoint, this.#api?.document);
    if (endpoint.undocumented === true)
      this.#undocumented.set(endpoint.label, (this.#undocumented.get(endpoint.label) ?? 0) + 1);
    if (isPage(observation)) this.#lists.add(endpoint.label);
    const base = baseOf(exchange.url, endpoint.prefix);
    if (endpoint.kind === 'token') this.authBase ??= base;
    else this.apiBase ??= base;
    // The API's places only: a token endpoint on an auth server of its own is one deployment still.
    if (endpoint.kind !== 'token' && base !== undefined && this.#bases.size < 100) this.#bases.add(base);
    if (!observation.requestKnown('accept-version') || !observation.requestKnown('authorization'))
      this.#unrecordedFields += 1;
    if (exchange.response !== undefined && exchange.response.body === undefined && observation.method !== 'HEAD')
      this.#noBody += 1;
    for (const state of this.#states) {
      const problems = state.rule.judge(observation);
      if (problems === undefined) continue;
      this.#count(state, endpoint.label, problems.length > 0);
      for (const message of problems) this.#cause(state, endpoint.label, message, exchange);
    }
  }

  #count(state: RuleState, endpoint: string, failed: boolean): void {
    state.judged += 1;
    let counts = state.byEndpoint.get(endpoint);
    if (!counts) state.byEndpoint.set(endpoint, (counts = { judged: 0, failed: 0 }));
    counts.judged += 1;
    if (failed) counts.failed += 1;
  }

  #cause(state: RuleState, endpoint: string, message: string, exchange: CapturedExchange): void {
    const key = causeOf(endpoint, message);
    const known = state.causes.get(key);
    if (known) known.count += 1;
    else if (state.causes.size < MAX_CAUSES)
      state.causes.set(key, { message, endpoint, exchange: evidence(exchange), count: 1 });
    else state.notListed += 1;
  }

  /** Where the exchanges went, when to more than one place: the captures are of several deployments (or names of one). */
  bases(): string[] {
    return [...this.#bases];
  }

  /** The endpoints of the spec's the capture reached, as the checks name them. */
  endpoints(): string[] {
    return [...this.#endpoints.keys()];
  }

  /** What the capture did not record, and what that kept from being judged (docs/traffic.md, What a capture can prove). */
  limits(): string[] {
    const out: string[] = [];
    if (this.#unrecordedFields > 0)
      out.push(
        `${plural(this.#unrecordedFields, 'exchange')} of ${this.matched} to the spec's endpoints do not record Accept-Version or Authorization: VERSION-*, WRITE-* and AUTH-MISSING were not judged on them (a gateway must log both)`,
      );
    if (this.#undocumented.size > 0) {
      const shown = [...this.#undocumented].slice(0, 5).map(([label, n]) => `${label} (${n})`);
      const more = this.#undocumented.size > 5 ? ` and ${this.#undocumented.size - 5} more` : '';
      out.push(
        `${plural(this.#undocumented.size, 'endpoint')} the --openapi document does not declare, judged by the spec alone: ${shown.join(', ')}${more}`,
      );
    }
    if (this.#pastEndpoints > 0)
      out.push(
        `${plural(this.#pastEndpoints, 'exchange')} to endpoints past the first ${MAX_ENDPOINTS} were not judged (a capture of that many endpoints is a scan, or another API)`,
      );
    if (this.#noBody > 0)
      out.push(
        `${plural(this.#noBody, 'answer')} of ${this.matched} hold no body: the token response's fields, the User and the items of lists were not judged on them`,
      );
    return out;
  }

  /** Each check's outcome; the capture read so far is all it judges (the first call ends the judging). */
  results(): PassiveResult[] {
    this.#results ??= this.#judged();
    return this.#results;
  }

  #judged(): PassiveResult[] {
    return this.#states.map((state) => {
      const { rule } = state;
      for (const late of rule.end?.() ?? []) {
        const counts = state.byEndpoint.get(late.endpoint);
        if (counts) counts.failed = Math.max(counts.failed, 1);
        this.#cause(state, late.endpoint, late.message, late.exchange);
      }
      const check = getCheck(rule.id);
      const failed = state.causes.size > 0 || state.notListed > 0;
      const endpoints: EndpointCoverage[] = [...this.#endpoints.values()]
        .filter((e) => rule.on(e, this.#lists.has(e.label)) || state.byEndpoint.has(e.label))
        .map((e) => {
          const counts = state.byEndpoint.get(e.label) ?? { judged: 0, failed: 0 };
          return {
            endpoint: e.label,
            status: counts.judged === 0 ? 'not-observed' : counts.failed > 0 ? 'failed' : 'passed',
            ...counts,
          };
        });
      return {
        id: rule.id,
        suite: check.suite,
        level: check.level,
        title: check.title,
        refs: check.refs,
        status: state.judged === 0 ? 'not-observed' : failed ? 'failed' : 'passed',
        needs: this.#api === undefined && rule.needsDocument !== undefined ? rule.needsDocument : rule.needs,
        ...(this.#api === undefined && rule.needsDocument !== undefined ? { reason: rule.needsDocument } : {}),
        judged: state.judged,
        // Redacted now, with every secret the whole capture revealed (a token issued late, echoed early).
        findings: [...state.causes.values()].map((f) =>
          this.redactor === undefined ? f : { ...f, exchange: redactCaptured(f.exchange, this.redactor) },
        ),
        notListed: state.notListed,
        endpoints,
      };
    });
  }
}

/** `https://api.example.com/api`: where the spec's paths begin. */
function baseOf(url: string, prefix: string): string | undefined {
  try {
    return `${new URL(url).origin}${prefix}`;
  } catch {
    return undefined;
  }
}

/** Judges a whole capture held in memory (a HAR); `redactor` redacts the evidence kept. */
export function judgeTraffic(exchanges: Iterable<CapturedExchange>, redactor?: Redactor): PassiveResult[] {
  const judge = new TrafficJudge(redactor);
  for (const exchange of exchanges) judge.add(exchange);
  return judge.results();
}
