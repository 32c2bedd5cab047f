import { oneLine } from '../core/wording.js';
import { referencedExchanges } from './findings-text.js';
import type { CheckResult, CheckStatus, Finding, RecordedExchange, RunCause } from '../model/run-report.js';

/**
 * The findings of a run grouped by cause: the wrong behaviour, wherever it was seen. One fault of
 * a target (a 401 without its challenge, a missing Accept-Version served) shows on every endpoint
 * and in many checks, as failures of the rules it breaks and as errors of the checks that could
 * not judge what they needed; a person triaging wants the one behaviour first, how far it
 * reaches and the checks it breaks, not one card per endpoint (issue 30, item 7).
 *
 * - An answer that is not the endpoint at all (a redirect, a 5xx) or an exchange that broke is
 *   grouped by that answer: method, path and status (and where a redirect points). "Expected
 *   200, got 308" and "cannot judge: even a valid request gets 308 there" are the same cause.
 *   Endpoints that gave the same such answer and break the same checks are then one cause.
 * - Any other finding is grouped by what it says is wrong, its endpoint taken out: the battery
 *   words a finding "<METHOD> <path> <what was sent>: <what is wrong>", so the part after the
 *   request, its numbers, ids, paths and URLs normalised, is the behaviour ("a 401 must carry a
 *   WWW-Authenticate challenge (Bearer), got none", whatever credential was refused). A status
 *   comparison ("expected 400, got 200") means nothing without what was sent, which stays in
 *   the key ("with no Accept-Version header").
 * - The other findings of a check about the same exchange are the same cause: one wrong answer
 *   ("expected 400, got 200" and "expected no token, but the response carries an access_token").
 * - An error that says "(see CHECK)" could not judge because of what CHECK found: it joins
 *   CHECK's cause (on the same endpoint, where CHECK has several).
 * - A cause the preflight found (`report.causes`) is one cause with every check it kept from
 *   running; a check that failed on the same answer joins it.
 * - What a finding says of one list, item, field or link is the same behaviour on every other
 *   (issue 38 item 9): the list's own name, its page ("shipments page 2: "), item ids, field
 *   names, relation types and error codes are taken out of the key, and a few behaviours that
 *   checks word apart are one (BEHAVIOURS: fields omitted; answers that are not JSON; links a
 *   client cannot follow). A count of a check's other findings ("N findings in all, N shown") is
 *   no cause: it joins the check's cause on its endpoint.
 * - A title is always words a check wrote about a real exchange, never a key with its
 *   placeholders ("N", "…"): the first finding's, without its endpoint; a comparison of statuses
 *   names its endpoint when it has one.
 */

export interface Cause {
  /** What went wrong, in one line: "a 401 must carry a WWW-Authenticate challenge (Bearer), got none". */
  title: string;
  /** The endpoints it was seen on ("GET /users/me", "GET /tenants/{tenantId}/shipments"), each once, in report order. */
  endpoints: string[];
  /**
   * The checks it breaks, in report order, each once, with what each says about it (its first
   * failure's words, else its first error's: `failure` says which) and on how many endpoints.
   */
  checks: { check: CheckResult; message: string; endpoints: number; failure?: boolean }[];
  /** A check and one of its exchanges that show the cause, when there is one. */
  evidence?: { check: CheckResult; exchange: number };
  /** The run's cause found by the preflight (report.causes), when this is one. */
  preflight?: RunCause;
}

/** What a check the preflight's cause kept from running says: its message and its one finding. */
export function pointerTo(cause: Pick<RunCause, 'title'>): string {
  return `not run: ${cause.title} in the preflight (see the cause)`;
}

/** The statuses whose findings are grouped: what needs a reader's attention. */
export const CAUSE_STATUSES: readonly CheckStatus[] = ['failed', 'error', 'warning', 'expected'];

/** The path of a recorded request's URL (the URL as it is, should it not parse). */
export function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

/** How the battery starts a finding about one request: "GET /users/me", "GET /uaa/userinfo (legacy)", "token request". */
const REQUEST = /^(?:(?:GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS) \S*[^\s:](?: \(legacy\))?|token request)(?=[: ]|$)/;

/** A finding's message taken apart: the request ("GET /users/me", "with no Authorization header") and what is wrong. */
export interface ParsedFinding {
  endpoint?: string;
  /** What was sent, the endpoint taken out: "with no Accept-Version header"; empty when the message does not say. */
  sent: string;
  /** What is wrong: the whole message when it does not start with a request. */
  wrong: string;
}

export function parseFinding(message: string): ParsedFinding {
  const flat = oneLine(message);
  const request = REQUEST.exec(flat);
  if (!request) return { sent: '', wrong: flat };
  // A path with a query ("GET shipments?page=2") is that list's endpoint; "token request" names none.
  const endpoint = request[0] === 'token request' ? undefined : request[0].replace(/\?\S*/, '');
  return { ...(endpoint !== undefined ? { endpoint } : {}), ...splitRequest(flat.slice(request[0].length)) };
}

/** What follows the endpoint, taken apart: what was sent, and what is wrong. */
function splitRequest(rest: string): { sent: string; wrong: string } {
  if (rest.startsWith(': ')) return { sent: '', wrong: rest.slice(2) };
  // The first ": " ends the request, unless it is a header field's ("with Accept-Version: 1: …"):
  // then what follows is one word and another ": ".
  let at = rest.indexOf(': ');
  while (at !== -1) {
    const next = rest.indexOf(': ', at + 2);
    const word = next === -1 ? undefined : rest.slice(at + 2, next);
    if (word === undefined || /\s/.test(word) || word === '') break;
    at = next;
  }
  if (at === -1) return { sent: '', wrong: rest.trim() };
  return { sent: rest.slice(0, at).trim(), wrong: rest.slice(at + 2) };
}

/**
 * What is endpoint-specific taken out of a text: URLs, UUIDs, paths ("…"), and numbers other
 * than HTTP statuses (100–599, which are what is wrong more often than where: "N"). It keys a
 * behaviour and titles one seen in different words.
 */
export function normalise(text: string): string {
  return text
    .replace(/https?:\/\/\S+/g, '…')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '…')
    .replace(/(^|[\s"'(=])\/[^\s"',;)]+/g, '$1…')
    .replace(/\b\d+(?:\.\d+)?\b/g, (n) => (/^[1-5]\d\d$/.test(n) ? n : 'N'));
}

/**
 * What was sent, normalised: a header field's value too ("with Accept-Version: 0", "…: banana"),
 * since what is wrong ("expected 400 or 404, got 200") already says which kind of value it was.
 */
function normaliseSent(sent: string): string {
  return normalise(sent).replace(/\b([A-Za-z][\w-]*): [^\s:]+/g, '$1: …');
}

/** A status comparison says what is wrong only with what was sent. */
const STATUS_ONLY = /^(?:expected [^,]*, got \d{3}\b|refused with \d{3}\b|answered \d{3}\b)/;

interface Key {
  key: string;
  title: string;
  /** Grouped by an answer that is not the endpoint (a redirect, a 5xx): merged across endpoints later. */
  answer?: { status: number; location?: string };
  /** One of BEHAVIOURS, titled by what its findings say. */
  behaviour?: Behaviour;
  /** A comparison of statuses ("expected 200, got 404") names what it was about: its title on one endpoint. */
  onOneEndpoint?: string;
}

/** The key of one finding, without the pointers: by the answer that is not the endpoint, else by what is wrong. */
function keyOf(
  finding: Finding,
  exchanges: readonly RecordedExchange[],
  parsed: ParsedFinding,
  endpoint: string | undefined,
): Key {
  const ex = finding.exchange === undefined ? undefined : exchanges[finding.exchange];
  if (ex) {
    const endpoint = `${ex.request.method} ${pathOf(ex.request.url)}`;
    const res = ex.response;
    if (!res) {
      const error = ex.error ?? 'no response was recorded';
      return { key: `broken ${endpoint} ${error}`, title: `${endpoint}: ${error}` };
    }
    if ((res.status >= 300 && res.status < 400) || res.status >= 500) {
      const location =
        res.status < 400 ? res.headers.find(([name]) => name.toLowerCase() === 'location')?.[1] : undefined;
      const title = `${endpoint} answered ${res.status}${location !== undefined ? `, a redirect to ${location}` : ''}`;
      return {
        key: statusKey(endpoint, res.status, location),
        title,
        answer: { status: res.status, ...(location !== undefined ? { location } : {}) },
      };
    }
  }
  const own = listPathOf(endpoint);
  const wrong = withoutListPrefix(parsed.wrong.replace(/\s*\(see [A-Z0-9-]+\)\s*$/, ''), own);
  if (parsed.sent !== '' && STATUS_ONLY.test(wrong)) {
    const sent = /^with(?:out)?\b/.test(parsed.sent) ? `a request ${parsed.sent}` : parsed.sent;
    const title = `${sent.charAt(0).toUpperCase()}${sent.slice(1)}: ${wrong}`;
    return {
      key: `wrong ${normaliseSent(parsed.sent)}: ${normalise(wrong)}`,
      title,
      ...(endpoint !== undefined ? { onOneEndpoint: `${endpoint} ${parsed.sent}: ${wrong}` } : {}),
    };
  }
  const behaviour = BEHAVIOURS.find((b) => b.test.test(wrong));
  // Its first finding whole, request and all: the checks that share it each ask something else.
  if (behaviour) return { key: `behaviour ${behaviour.name}`, title: oneLine(finding.message), behaviour };
  return {
    key: `wrong ${behaviourKey(wrong, own)}`,
    title: wrong,
    ...(STATUS_ONLY.test(wrong) && endpoint !== undefined ? { onOneEndpoint: `${endpoint}: ${wrong}` } : {}),
  };
}

/**
 * Behaviours the checks word apart, each one cause wherever and however it is said: the omission
 * of fields (spec §Generic rules for optional fields 1: RESOURCE-FIELDS-PRESENT's "omits",
 * NULLS-SAME-FIELDS' "which other items carry", the expectations' "got no such field"), answers
 * that must be JSON and are not (an error page a gateway put in place of the API's), links that
 * lose the page size, and links a client cannot follow or that leave the API (LINK-NEXT, -PREV,
 * -FIRST-LAST and -FOLLOW alike).
 */
interface Behaviour {
  name: string;
  test: RegExp;
  /** The cause's title from its findings' messages; undefined: the first finding's words. */
  title?: (messages: readonly string[]) => string;
}

const BEHAVIOURS: readonly Behaviour[] = [
  {
    name: 'fields omitted',
    test: /\bomits "|\bis omitted\b|\bomits the field\b|, got no such field\b|must have required property\b/,
    title: (messages) => {
      const names = new Set<string>();
      for (const m of messages)
        for (const match of m.matchAll(/(?:\bomits |\bfield |\bproperty )(?:the field )?["']?([^"'\s,:]+)["']?/g))
          if (names.size < 6 && match[1] !== undefined) names.add(match[1]);
      const list = [...names].map((n) => `"${n}"`);
      return `fields are omitted that must be sent (null when they have no data)${list.length > 0 ? `: ${list.slice(0, 5).join(', ')}${names.size > 5 ? ', …' : ''}` : ''}`;
    },
  },
  {
    name: 'not JSON',
    test: /\bgot a body that is not JSON\b|\bexpected Content-Type application\/json, got\b|\bexpected a JSON body\b/,
  },
  { name: 'link changes the size', test: /\bleads to page \d+ with Page-Size \d+, not this page's \d+$/ },
  {
    name: 'link leaves the API',
    test: /\brel="[^"]*" \S+ (?:is not on the API's origin|is not an http\(s\) URL|is not under the base URL's path|cannot be resolved to a URL)|^following rel="next" .*(?:is not on the API's origin|is not an http\(s\) URL|is not under the base URL's path|cannot be resolved to a URL)/,
  },
];

/** The tenant-relative path of a list's endpoint ("shipments" of "GET /tenants/{tenantId}/shipments"), as its walk's findings name it. */
function listPathOf(endpoint: string | undefined): string | undefined {
  const m = endpoint === undefined ? undefined : /^GET \/tenants\/\{[^}]+\}\/(\S+)$/.exec(endpoint);
  return m?.[1];
}

/** A walk's finding without its list and page ("shipments page 2: ", "shipments: "): the endpoint says which. */
function withoutListPrefix(wrong: string, path: string | undefined): string {
  if (path === undefined) return wrong;
  if (wrong.startsWith(`${path}: `)) return wrong.slice(path.length + 2);
  const m = /^(\S+) page \d+: /.exec(wrong);
  return m?.[1] === path ? wrong.slice(m[0].length) : wrong;
}

/**
 * The behaviour a finding's words say, as a key: normalised (see `normalise`), and without what
 * names one list, item, field, relation type or error code of many, so that the same behaviour
 * on another item or list is the same key.
 */
function behaviourKey(wrong: string, path: string | undefined): string {
  let text = wrong;
  if (path !== undefined && path !== '') text = text.split(path).join('…');
  return normalise(text)
    .replace(/\bid [^\s:,()]+/g, 'id …')
    .replace(/\b(fields?|omits|property|properties) "[^"]*"(?:(?:, | and | or )"[^"]*")*/g, '$1 "…"')
    .replace(/\brel="[^"]*"/g, 'rel="…"')
    .replace(/\berror "[^"]*"(?: or "[^"]*")*/g, 'error "…"');
}

/** A count of a check's other findings on a list: "shipments: 17 findings in all, 12 shown". */
const FINDINGS_COUNT = /^(?:\S+: )?\d+ findings in all, \d+ shown$/;

function statusKey(endpoint: string, status: number, location: string | undefined): string {
  return `status ${endpoint} ${status} ${location ?? ''}`;
}

/** The endpoint a finding is about: its own, else the one its message names, else its exchange's path. */
function endpointOf(
  finding: Finding,
  exchanges: readonly RecordedExchange[],
  parsed: ParsedFinding,
): string | undefined {
  if (finding.endpoint !== undefined) return finding.endpoint;
  if (parsed.endpoint !== undefined) return parsed.endpoint;
  const ex = finding.exchange === undefined ? undefined : exchanges[finding.exchange];
  return ex ? `${ex.request.method} ${pathOf(ex.request.url)}` : undefined;
}

interface Placed {
  check: CheckResult;
  finding: Finding;
  parsed: ParsedFinding;
  endpoint?: string;
  key: Key;
}

export function groupByCause(checks: readonly CheckResult[], runCauses: readonly RunCause[] = []): Cause[] {
  const byId = new Map(checks.map((c) => [c.id, c]));
  // The preflight's causes: their checks belong to them whatever they say.
  const preflightOf = new Map<string, { cause: RunCause; key: Key }>();
  for (const cause of runCauses) {
    const key: Key =
      cause.endpoint !== undefined && cause.status !== undefined
        ? {
            key: statusKey(cause.endpoint, cause.status, undefined),
            title: cause.title,
            answer: { status: cause.status },
          }
        : { key: `preflight ${cause.title}`, title: cause.title };
    for (const id of cause.checks) preflightOf.set(id, { cause, key });
  }

  const attention = checks.filter((c) => CAUSE_STATUSES.includes(c.status));
  const findingsOf = (check: CheckResult): Finding[] =>
    // A check without findings (a message only) is its own cause.
    check.findings.length > 0
      ? check.findings
      : [{ kind: check.status === 'error' ? 'error' : 'failure', message: check.message ?? check.status }];

  // First every finding that stands on its own; then the pointers, which need their check's causes.
  const placed: Placed[] = [];
  const pointers: Omit<Placed, 'key'>[] = [];
  const counts: Omit<Placed, 'key'>[] = [];
  /** A check's first cause, and its first on each endpoint: where its pointers and counts of findings go, found at once. */
  const firstOfCheck = new Map<string, Placed>();
  const firstOnEndpoint = new Map<string, Map<string, Placed>>();
  const sameAs = (p: Omit<Placed, 'key'>, target: string): Placed | undefined =>
    (p.endpoint !== undefined ? firstOnEndpoint.get(target)?.get(endpointId(p.endpoint)) : undefined) ??
    firstOfCheck.get(target);
  for (const check of attention) {
    const byExchange = new Map<number, Key>();
    const preflight = preflightOf.get(check.id);
    for (const finding of findingsOf(check)) {
      const parsed = parseFinding(finding.message);
      const endpoint = endpointOf(finding, check.exchanges, parsed);
      const base = { check, finding, parsed, ...(endpoint !== undefined ? { endpoint } : {}) };
      // A check the cause kept from running, or a finding in the preflight's own words (a
      // failure's other finding: "the tenant endpoints could not be checked: <why>").
      const quoting =
        preflight ??
        [...preflightOf.values()].find(
          (x) => x.cause.detail !== undefined && x.cause.detail !== '' && finding.message.includes(x.cause.detail),
        );
      if (quoting) {
        placed.push({ ...base, key: quoting.key });
        continue;
      }
      if (FINDINGS_COUNT.test(oneLine(finding.message))) {
        counts.push(base);
        continue;
      }
      const seeOther = finding.kind === 'error' ? /\(see ([A-Z0-9-]+)\)/.exec(finding.message)?.[1] : undefined;
      if (seeOther !== undefined && seeOther !== check.id && byId.has(seeOther)) {
        pointers.push(base);
        continue;
      }
      const shared = finding.exchange === undefined ? undefined : byExchange.get(finding.exchange);
      const key = shared ?? keyOf(finding, check.exchanges, parsed, endpoint);
      if (finding.exchange !== undefined && !shared) byExchange.set(finding.exchange, key);
      const p = { ...base, key };
      placed.push(p);
      // Looked up by key, not searched: a search per finding made the grouping quadratic (issue 39 item 9: a bundle of 20,000 findings took minutes).
      if (!firstOfCheck.has(check.id)) firstOfCheck.set(check.id, p);
      if (endpoint !== undefined) {
        const byEndpoint = firstOnEndpoint.get(check.id) ?? new Map<string, Placed>();
        firstOnEndpoint.set(check.id, byEndpoint);
        if (!byEndpoint.has(endpointId(endpoint))) byEndpoint.set(endpointId(endpoint), p);
      }
    }
  }
  for (const p of pointers) {
    const target = /\(see ([A-Z0-9-]+)\)/.exec(p.finding.message)?.[1] ?? '';
    const same = sameAs(p, target);
    placed.push({ ...p, key: same ? same.key : keyOf(p.finding, p.check.exchanges, p.parsed, p.endpoint) });
  }
  // A count of the findings not listed is part of the check's cause on that endpoint, never one of its own.
  for (const p of counts) {
    const same = sameAs(p, p.check.id);
    if (same) placed.push({ ...p, key: same.key });
  }

  type Working = Cause & {
    answer?: Key['answer'];
    behaviour?: Behaviour;
    onOneEndpoint?: string;
    messages: string[];
    endpointIds: Set<string>;
  };
  const causes = new Map<string, Working>();
  for (const cause of runCauses) {
    const key = [...preflightOf.values()].find((x) => x.cause === cause)?.key.key ?? `preflight ${cause.title}`;
    causes.set(key, {
      title: cause.title,
      endpoints: cause.endpoint !== undefined ? [cause.endpoint] : [],
      checks: [],
      preflight: cause,
      messages: [],
      endpointIds: new Set(cause.endpoint !== undefined ? [endpointId(cause.endpoint)] : []),
    });
  }
  // Report order: the checks in the order of the report, whatever order the passes placed them in.
  const order = new Map(checks.map((c, i) => [c, i]));
  placed.sort((a, b) => (order.get(a.check) ?? 0) - (order.get(b.check) ?? 0));
  const seenOn = new Map<string, Map<CheckResult, Set<string>>>();
  for (const { check, finding, endpoint, key } of placed) {
    let cause = causes.get(key.key);
    if (!cause) {
      const working: Working = {
        title: key.title,
        endpoints: [],
        checks: [],
        messages: [],
        endpointIds: new Set(),
        ...(key.answer ? { answer: key.answer } : {}),
        ...(key.behaviour ? { behaviour: key.behaviour } : {}),
        ...(key.onOneEndpoint !== undefined ? { onOneEndpoint: key.onOneEndpoint } : {}),
      };
      causes.set(key.key, (cause = working));
    }
    if (cause.messages.length < 200) cause.messages.push(finding.message);
    if (endpoint !== undefined && !cause.endpointIds.has(endpointId(endpoint))) {
      cause.endpointIds.add(endpointId(endpoint));
      cause.endpoints.push(endpoint);
    }
    const perCheck = seenOn.get(key.key) ?? new Map<CheckResult, Set<string>>();
    seenOn.set(key.key, perCheck);
    const where = perCheck.get(check) ?? new Set<string>();
    perCheck.set(check, where);
    if (endpoint !== undefined) where.add(endpointId(endpoint));
    // What a check says about the cause: its first failure, else its first error.
    const entry = cause.checks.find((c) => c.check === check);
    if (!entry)
      cause.checks.push({
        check,
        message: finding.message,
        endpoints: 0,
        ...(finding.kind === 'failure' ? { failure: true } : {}),
      });
    else if (finding.kind === 'failure' && entry.failure !== true)
      Object.assign(entry, { message: finding.message, failure: true });
    // Evidence: preferably a failure's exchange, the response a reader must see.
    const evidence =
      finding.exchange !== undefined && referencedExchanges(check).includes(finding.exchange)
        ? { check, exchange: finding.exchange }
        : undefined;
    if (evidence && (!cause.evidence || (cause.evidence.check.status !== 'failed' && check.status === 'failed')))
      cause.evidence = evidence;
  }
  for (const [key, cause] of causes)
    for (const entry of cause.checks) entry.endpoints = seenOn.get(key)?.get(entry.check)?.size ?? 0;

  // Several endpoints with the same wrong answer that break the same checks: one behaviour.
  const merged: (Cause & { answer?: Key['answer'] })[] = [];
  const byAnswer = new Map<string, Working>();
  for (const cause of causes.values()) {
    // A behaviour the checks word apart is titled by what its findings name; a comparison of
    // statuses by the endpoint it is about, when there is one (issue 38 item 9).
    const titled = cause.behaviour?.title?.(cause.messages);
    if (titled !== undefined) cause.title = titled;
    else if (cause.onOneEndpoint !== undefined && cause.endpoints.length === 1) cause.title = cause.onOneEndpoint;
    const answer = cause.answer;
    if (!answer || cause.preflight) {
      merged.push(cause);
      continue;
    }
    const same = `${answer.status} ${answer.location ?? ''} ${cause.checks.map((c) => c.check.id).join(' ')}`;
    const into = byAnswer.get(same);
    if (!into) {
      byAnswer.set(same, cause);
      merged.push(cause);
      continue;
    }
    for (const e of cause.endpoints) {
      if (into.endpointIds.has(endpointId(e))) continue;
      into.endpointIds.add(endpointId(e));
      into.endpoints.push(e);
    }
    for (const c of cause.checks) {
      const entry = into.checks.find((x) => x.check === c.check);
      if (entry) entry.endpoints += c.endpoints;
    }
    into.title = `${plural(into.endpoints.length)} answered ${answer.status}${answer.location !== undefined ? `, a redirect to ${answer.location}` : ''}`;
  }
  // Most checks first, then the widest: the cause that explains the most of the report leads it.
  // A preflight cause leads whatever its count: the run could not look past it.
  return (
    merged
      .filter((c) => c.checks.length > 0)
      // Only what a Cause is: the grouping's working state stays here.
      .map(
        ({ title, endpoints, checks, evidence, preflight }): Cause => ({
          title,
          endpoints,
          checks,
          ...(evidence ? { evidence } : {}),
          ...(preflight ? { preflight } : {}),
        }),
      )
      .sort(
        (a, b) =>
          Number(b.preflight !== undefined) - Number(a.preflight !== undefined) ||
          b.checks.length - a.checks.length ||
          b.endpoints.length - a.endpoints.length,
      )
  );
}

function plural(n: number): string {
  return `${n} ${n === 1 ? 'endpoint' : 'endpoints'}`;
}

/** "GET /uaa/userinfo (legacy)" and "GET /uaa/userinfo" are one endpoint, named by the battery in two ways. */
function endpointId(endpoint: string): string {
  return endpoint.replace(/ \(legacy\)$/, '');
}
