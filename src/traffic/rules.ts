import { createHash } from 'node:crypto';
import { describeStatus } from '../carrier/describe.js';
import { fieldPaths, missingFields, shapeOf } from '../carrier/fields.js';
import { extractItems, itemLabel } from '../carrier/list-items.js';
import { missingDeclared, schemaProblems } from '../battery/resources.js';
import { omissionMessage } from '../lint/omission.js';
import type { Json } from '../openapi/pointer.js';
import { expectedItemCount, expectedTotalPages, PAGING_HEADERS } from '../carrier/paging-headers.js';
import { lifetimeProblem } from '../carrier/token-lifetime.js';
import {
  accessTokenProblem,
  expiresInProblem,
  noStoreProblem,
  pragmaProblem,
  tokenTypeCaseProblem,
  tokenFieldProblems,
  tokenTypeProblem,
} from '../carrier/token-judges.js';
import { userFieldProblems, userSchemaProblems } from '../carrier/user-judges.js';
import { findChallenge, parseChallenges } from '../http/challenge.js';
import { linksWithRel, parseLinkHeader } from '../http/link.js';
import { isJsonMediaType } from '../http/media-type.js';
import type { CapturedExchange } from './capture.js';
import type { ObservedEndpoint } from './endpoints.js';
import { NO_JSON, TOO_DEEP, type Observation } from './observation.js';

/**
 * The passive subset of the catalogue (issue 43): each check that captured exchanges can judge,
 * with the battery's own judges and words (src/carrier/), applied to every exchange it fits.
 *
 * Each rule says first what an exchange must be for it to prove anything, and judges nothing
 * else: a capture is not a probe. What a conformant server may do decides it (docs/traffic.md,
 * "What a capture can prove"):
 * - A request without Accept-Version may be refused for another reason first (an expired token,
 *   a tenant it may not read, a rate limit), or redirected before the API sees it (a gateway's
 *   http → https): only 400 (passes) and a success (fail: the request was served without the
 *   required header, spec §Versioning 2) are judged.
 * - An Accept-Version that is no positive integer is invalid; another integer than 1 may be a later
 *   version the deployment serves (spec §Versioning 4), and is not judged.
 * - Without Authorization, only a success (data served, spec §Authentication 4) and a 401 (which
 *   must challenge Bearer: RFC 9110 §11.6.1, RFC 6750 §3) are judged: a 403 or 404 may answer a
 *   tenant the request may not name (spec §Tenant-scoped endpoints).
 * - A body the capture cut, or did not hold, is no body to judge; a 1xx (100 Continue) is no answer.
 */

/** What a rule made of one exchange: undefined when it does not apply, else its problems (none: passed). */
export type RuleOutcome = readonly string[] | undefined;

/** A problem found once the whole capture is read, on the exchange that shows it. */
export interface LateFinding {
  endpoint: string;
  message: string;
  exchange: CapturedExchange;
}

export interface PassiveRule {
  id: string;
  /**
   * The endpoints it can be observed on, for "not observed" per endpoint; `list`: the capture
   * showed the endpoint answer a page of a list (an array body or a paging header).
   */
  on: (endpoint: ObservedEndpoint, list: boolean) => boolean;
  /** What an exchange must be for the rule to judge it: a check no exchange fits is "not observed: <needs>". */
  needs: string;
  /** Why it judges nothing without an --openapi document, for a rule that needs one. */
  needsDocument?: string;
  judge: (o: Observation) => RuleOutcome;
  /** For a rule across exchanges (the same fields on every item of a list): its findings at the end. */
  end?: () => LateFinding[];
}

const READS = new Set(['GET', 'HEAD']);
const UNKNOWN: unique symbol = Symbol('not recorded');
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const answered = (o: Observation): o is Observation & { status: number } => o.status !== undefined && o.status >= 200;
const success = (status: number): boolean => status >= 200 && status < 300;
/** A redirect: 3xx but 304, which answers a conditional request (RFC 9110 §15.4.5) and moves nothing. */
const redirect = (status: number): boolean => status >= 300 && status < 400 && status !== 304;
const isResource = (e: ObservedEndpoint): boolean => e.kind !== 'token';
const verbOf = (e: ObservedEndpoint): string => e.label.slice(0, e.label.indexOf(' '));
/** An endpoint read (GET, HEAD), or the token endpoint's POST: what a read rule can be observed on. */
const readEndpoint = (e: ObservedEndpoint): boolean =>
  e.kind === 'token' ? verbOf(e) === 'POST' : READS.has(verbOf(e));
const writeEndpoint = (e: ObservedEndpoint): boolean => e.kind === 'tenant' && WRITES.has(verbOf(e));
const isTenant = (e: ObservedEndpoint): boolean => e.kind === 'tenant';
const isToken = (e: ObservedEndpoint): boolean => e.kind === 'token';
const isUser = (e: ObservedEndpoint): boolean => e.kind === 'user';
const isLegacy = (e: ObservedEndpoint): boolean => e.legacy;

/** A read of a resource, or the token request: what VERSION-* and AUTH-* ask of "every endpoint". */
const readOrToken = (o: Observation): boolean =>
  o.endpoint.kind === 'token' ? o.method === 'POST' : READS.has(o.method);
const isWrite = (o: Observation): boolean => isTenant(o.endpoint) && WRITES.has(o.method);

/** Whether a redirect's Location names the very path and query of the request (resolved against it). */
function sameTarget(url: string, location: string | undefined): boolean {
  if (location === undefined) return false;
  try {
    const from = new URL(url);
    const to = new URL(location, url);
    return to.pathname === from.pathname && to.search === from.search;
  } catch {
    return false;
  }
}

/** Accept-Version as sent; `unknown` when the capture does not record the field. */
function versionOf(o: Observation): string | undefined | typeof UNKNOWN {
  if (!o.requestKnown('accept-version')) return UNKNOWN;
  const lines = o.requestLines('accept-version');
  return lines.length === 0 ? undefined : lines.join(', ').replace(/^[ \t]+|[ \t]+$/g, '');
}

/** spec §Versioning 2: a missing header gives 400. */
function versionMissing(o: Observation): RuleOutcome {
  if (!answered(o) || versionOf(o) !== undefined) return undefined;
  if (o.status === 400) return [];
  if (success(o.status)) return [`${o.label} without Accept-Version: expected 400, got ${describeStatus(o.res!)}`];
  return undefined;
}

/** An invalid version: a value that is no positive integer (another integer may be a later version). */
function versionInvalid(o: Observation): RuleOutcome {
  const version = versionOf(o);
  if (!answered(o) || typeof version !== 'string' || /^[1-9]\d*$/.test(version)) return undefined;
  if (o.status === 400 || o.status === 404) return [];
  if (success(o.status))
    return [`${o.label} with Accept-Version: ${version}: expected 400 or 404, got ${describeStatus(o.res!)}`];
  return undefined;
}

/** spec §Authentication 4, RFC 6750 §3: without credentials, no data, and a 401 challenges Bearer. */
function authMissing(o: Observation): RuleOutcome {
  if (!answered(o) || !o.requestKnown('authorization') || o.requestLines('authorization').length > 0) return undefined;
  if (versionOf(o) !== '1') return undefined;
  if (success(o.status))
    return [`${o.label} without Authorization: expected a refusal (a 4xx), got ${o.status} with data`];
  if (o.status !== 401 || !o.responseKnown('www-authenticate')) return undefined;
  return findChallenge(parseChallenges(o.res!.headerLines('www-authenticate')), 'Bearer') === undefined
    ? [
        `${o.label} without Authorization: the 401 carries no Bearer challenge (WWW-Authenticate: ${o.res!.header('www-authenticate') ?? 'none'})`,
      ]
    : [];
}

/** A successful token response, as RFC 6749 §5.1 asks its fields and headers of it alone. */
/** A 200 to POST on the token path (the legacy one with `legacy`): what issues a token. */
const tokenIssuance = (o: Observation, legacy = false): boolean =>
  o.endpoint.kind === 'token' && o.endpoint.legacy === legacy && o.method === 'POST' && o.status === 200;

function issued(o: Observation, legacy = false): Record<string, unknown> | undefined {
  return tokenIssuance(o, legacy) ? o.object() : undefined;
}

/** A token response's rule; `field`: the response field it reads, which the capture must record. */
function tokenRule(
  id: string,
  problem: (body: Record<string, unknown>, o: Observation) => string | undefined,
  field?: string,
): PassiveRule {
  return {
    id,
    on: (e) => isToken(e) && !e.legacy,
    needs: `a token issued (a 200 with a JSON body${field === undefined ? '' : ` and ${field} recorded`}) at POST /uaa/oauth2/token`,
    judge(o) {
      const body = issued(o);
      if (body === undefined || (field !== undefined && !o.responseKnown(field))) return undefined;
      const found = problem(body, o);
      return found === undefined ? [] : [found];
    },
  };
}

/** Whether the exchange is a page of a list, for the judge's record of which endpoints are lists. */
export const isPage = (o: Observation): boolean => page(o) !== undefined;

/**
 * A page of a list: a 200 to a read of a tenant endpoint that the document declares a list, or
 * whose body is an array, or that carries a paging header. Its items: the array, or the one array
 * of a wrapper (the document's wrapper property where it names one).
 */
function page(o: Observation): PageSeen | undefined {
  if (!pages.has(o)) pages.set(o, pageOf(o));
  return pages.get(o);
}

interface PageSeen {
  items: unknown[] | undefined;
}

/** What page() found of each exchange: a dozen rules ask it of the same one. */
const pages = new WeakMap<Observation, PageSeen | undefined>();

function pageOf(o: Observation): PageSeen | undefined {
  if (!isTenant(o.endpoint) || !READS.has(o.method) || o.status !== 200) return undefined;
  const spec = o.endpoint.spec;
  const body = o.json();
  const paged = spec?.kind === 'list' || PAGING_HEADERS.some((name) => o.res!.headerLines(name).length > 0);
  if (!PAGING_HEADERS.every((name) => o.responseKnown(name))) return paged ? { items: undefined } : undefined;
  if (Array.isArray(body) && spec?.kind !== 'single') return { items: body };
  if (!paged) return undefined;
  if (body === TOO_DEEP || body === NO_JSON) return { items: undefined };
  const extracted = extractItems(body, spec?.itemsProperty);
  return { items: 'items' in extracted ? extracted.items : undefined };
}

/** A positive integer query parameter, as a page or size is sent; undefined when absent or otherwise. */
function positiveParameter(o: Observation, name: string): number | undefined {
  const value = o.query.get(name);
  return value !== null && /^[1-9]\d{0,15}$/.test(value) ? Number(value) : undefined;
}

/** The page a link's target names in its `page` parameter, when it is a link into the same list. */
function linkedPage(o: Observation, target: string): number | undefined {
  try {
    const url = new URL(target);
    const from = new URL(o.exchange.url);
    if (url.pathname.replace(/\/+$/, '') !== from.pathname.replace(/\/+$/, '')) return undefined;
    const value = url.searchParams.get('page');
    return value !== null && /^\d{1,15}$/.test(value) ? Number(value) : undefined;
  } catch {
    return undefined;
  }
}

/** One rel's links on a page: its single target, and a problem when it has several different ones. */
function singleLink(o: Observation, rels: readonly string[], problems: string[]): string | undefined {
  const parsed = parseLinkHeader(o.res!.headerLines('link'), o.exchange.url);
  for (const rel of rels) {
    const links = linksWithRel(parsed, rel);
    const first = links[0]?.target;
    const targets = [...new Set(links.map((l) => l.target))];
    if (targets.length > 1)
      problems.push(`${o.label}: ${targets.length} different rel="${rel}" links (${targets.join(', ')})`);
    if (first !== undefined) return first;
  }
  return undefined;
}

/** A link's target judged where its URL names a page of the same list; otherwise only its presence is. */
function expectLink(o: Observation, rel: string, target: string, expected: number, problems: string[]): void {
  const linked = linkedPage(o, target);
  if (linked !== undefined && linked !== expected)
    problems.push(`${o.label}: rel="${rel}" links to page ${linked} (${target}), expected page ${expected}`);
}

/** Page-Number and Total-Pages as the page states them: what the Link rules judge against. */
function pagePosition(o: Observation): { number: number; last: number } | undefined {
  const { values } = o.paging();
  const number = values['Page-Number'];
  const pages = values['Total-Pages'];
  if (number === undefined || pages === undefined) return undefined;
  return { number, last: Math.max(pages, 1) };
}

/** A rule of a page's links, judged where the page states its place and the capture records Link. */
function linkRule(
  id: string,
  judge: (o: Observation, at: { number: number; last: number }, problems: string[]) => void,
): PassiveRule {
  return pageRule(id, 'a page of a list with Page-Number, Total-Pages and Link recorded', (o) => {
    const at = pagePosition(o);
    if (at === undefined || !o.responseKnown('link')) return undefined;
    const problems: string[] = [];
    judge(o, at, problems);
    return problems;
  });
}

function pageRule(
  id: string,
  needs: string,
  judge: (o: Observation, items: unknown[] | undefined) => RuleOutcome,
): PassiveRule {
  return {
    id,
    on: (_e, list) => list,
    needs,
    judge(o) {
      const seen = page(o);
      return seen === undefined ? undefined : judge(o, seen.items);
    },
  };
}

/** NULLS-SAME-FIELDS across every page of a list the capture holds: one example per item shape. */
function sameFields(): PassiveRule {
  /** Shapes kept per list: a list whose every item has its own shape is compared on the first ones. */
  const MAX_SHAPES = 1000;
  type Shapes = Map<string, { example: unknown; exchange: CapturedExchange; count: number }>;
  const lists = new Map<string, Shapes>();
  return {
    id: 'NULLS-SAME-FIELDS',
    on: (_e, list) => list,
    needs: 'a page of a list with items (a 200 whose body is an array or holds one)',
    judge(o) {
      const seen = page(o);
      if (seen?.items === undefined || seen.items.length === 0) return undefined;
      let shapes = lists.get(o.endpoint.label);
      if (!shapes) lists.set(o.endpoint.label, (shapes = new Map() as Shapes));
      for (const item of seen.items) {
        const key = shapeOf(item);
        const known = shapes.get(key);
        if (known) known.count += 1;
        else if (shapes.size < MAX_SHAPES) shapes.set(key, { example: item, exchange: o.exchange, count: 1 });
      }
      return [];
    },
    end() {
      const out: LateFinding[] = [];
      for (const [endpoint, shapes] of lists) {
        const union = new Set<string>();
        for (const shape of shapes.values()) for (const field of fieldPaths(shape.example)) union.add(field);
        for (const shape of shapes.values()) {
          const missing = missingFields(shape.example, union);
          if (missing.length === 0) continue;
          const more = shape.count > 1 ? ` (and ${shape.count - 1} more like it)` : '';
          out.push({
            endpoint,
            message: `${endpoint}: an item${more} omits ${missing.map((f) => `"${f}"`).join(', ')}, which other items carry (send null instead)`,
            exchange: shape.exchange,
          });
        }
      }
      return out;
    },
  };
}

/**
 * A token a capture already redacted (this harness's own HAR): every one reads the same, so a use
 * cannot be tied to its issuance, and none is judged.
 */
const REDACTED = /^\[REDACTED/;
/** Tokens remembered for EXPIRY-REFUSED-AFTER at most: a day of traffic's, by their digests. */
const MAX_TOKENS = 200_000;
/**
 * What the run allows past expires_in before a token must be refused (suites/expiry.test.ts): a
 * second of whole-second rounding (JWT `exp = floor(iat) + ttl`) and the default --expiry-margin.
 */
const EXPIRY_ALLOWANCE_MS = 2000;
/** Where the capture does not say how long the token request took: when, after its start, the token may have been issued. */
const UNTIMED_ISSUANCE_MS = 5000;

/**
 * EXPIRY-REFUSED-AFTER on what the traffic shows: a token the captures saw issued, used after its
 * expires_in has surely run out (from the latest moment it can have been issued: the token
 * request's start plus its duration, and the run's allowance). A success is a failure (spec
 * §Authentication 3: after that time the token is invalid); so is a 401 without a Bearer
 * challenge, and on /users/me any refusal without one (RFC 6750 §3). A 403 or 404 on a tenant path
 * may answer the tenant first: not judged.
 */
function expiredTokens(): PassiveRule {
  const expiries = new Map<string, { at: number; expiresIn: number; issued: string }>();
  const digest = (token: string): string => createHash('sha256').update(token).digest('base64url').slice(0, 22);
  return {
    id: 'EXPIRY-REFUSED-AFTER',
    on: isResource,
    needs: 'a request with a token the captures saw issued, sent after its expires_in ran out',
    judge(o) {
      const started = Date.parse(o.exchange.startedAt ?? '');
      if (o.endpoint.kind === 'token') {
        const body = issued(o) ?? issued(o, true);
        const token = body?.access_token;
        const expiresIn = body?.expires_in;
        if (
          typeof token === 'string' &&
          !REDACTED.test(token) &&
          typeof expiresIn === 'number' &&
          expiresIn > 0 &&
          Number.isFinite(started)
        ) {
          if (expiries.size >= MAX_TOKENS) expiries.delete(expiries.keys().next().value as string);
          expiries.set(digest(token), {
            at: started + (o.exchange.durationMs ?? UNTIMED_ISSUANCE_MS) + expiresIn * 1000,
            expiresIn,
            issued: o.exchange.startedAt ?? '',
          });
        }
        return undefined;
      }
      const bearer = /^bearer\s+(\S+)\s*$/i.exec(o.requestLines('authorization').join(', '))?.[1];
      const known = bearer === undefined || REDACTED.test(bearer) ? undefined : expiries.get(digest(bearer));
      if (known === undefined || !answered(o) || !Number.isFinite(started) || versionOf(o) !== '1') return undefined;
      const late = started - (known.at + EXPIRY_ALLOWANCE_MS);
      if (late <= 0) return undefined;
      const what = `${o.label} with a token whose expires_in (${known.expiresIn} s, issued ${known.issued}) had run out ${(late / 1000 + EXPIRY_ALLOWANCE_MS / 1000).toFixed(1)} s before at the least`;
      if (success(o.status)) return [`${what}: expected a refusal with a Bearer challenge, got ${o.status}`];
      const refusalNeedsChallenge =
        o.status === 401 || (o.endpoint.kind === 'user' && o.status >= 400 && o.status < 500);
      if (!refusalNeedsChallenge || !o.responseKnown('www-authenticate')) return undefined;
      return findChallenge(parseChallenges(o.res!.headerLines('www-authenticate')), 'Bearer') === undefined
        ? [
            `${what}: the ${o.status} carries no Bearer challenge (WWW-Authenticate: ${o.res!.header('www-authenticate') ?? 'none'})`,
          ]
        : [];
    },
  };
}

/** A fresh set of rules: NULLS-SAME-FIELDS keeps what it has seen of each list, for one judging. */
export function passiveRules(): PassiveRule[] {
  return [
    {
      id: 'TOKEN-ISSUE',
      on: (e) => isToken(e) && !e.legacy,
      needs: 'a 200 to POST /uaa/oauth2/token with its whole body and Content-Type recorded',
      // Whether valid credentials get a token needs a request of its own; that a 200 is a JSON access
      // token response (RFC 6749 §5.1: application/json) any captured one shows.
      judge(o) {
        const response = o.exchange.response;
        if (!tokenIssuance(o)) return undefined;
        if (
          response?.body === undefined ||
          response.bodyTruncated === true ||
          o.json() === TOO_DEEP ||
          !o.responseKnown('content-type')
        )
          return undefined;
        const type = o.res?.header('content-type');
        if (!isJsonMediaType(type))
          return [
            `POST /uaa/oauth2/token: expected a JSON body (Content-Type application/json), got Content-Type ${type === undefined ? '(none)' : JSON.stringify(type)}`,
          ];
        return o.object() === undefined
          ? [`POST /uaa/oauth2/token: expected a JSON object, got ${JSON.stringify(response.body.slice(0, 80))}`]
          : [];
      },
    },
    tokenRule('TOKEN-ACCESS-TOKEN', (body) => accessTokenProblem(body)),
    tokenRule('TOKEN-TYPE', (body) => tokenTypeProblem(body)),
    tokenRule('TOKEN-TYPE-CASE', (body) => tokenTypeCaseProblem(body)),
    tokenRule('TOKEN-EXPIRES-IN', (body, o) => expiresInProblem(body, o.exchange.response?.body ?? '')),
    // A lifetime that is no positive number is TOKEN-EXPIRES-IN's failure; nothing to judge here.
    tokenRule('TOKEN-SHORT-LIVED', (body) =>
      typeof body.expires_in === 'number' && body.expires_in > 0 ? lifetimeProblem(body.expires_in) : undefined,
    ),
    tokenRule('TOKEN-NO-STORE', (_body, o) => noStoreProblem(o.res?.header('cache-control')), 'cache-control'),
    tokenRule('TOKEN-PRAGMA', (_body, o) => pragmaProblem(o.res?.header('pragma')), 'pragma'),
    tokenRule('TOKEN-NO-REFRESH', (body) =>
      body.refresh_token !== undefined
        ? 'expected no refresh_token for the client credentials grant, got one'
        : undefined,
    ),
    {
      id: 'LEGACY-TOKEN',
      on: (e) => isToken(e) && e.legacy,
      needs: 'a token issued (a 200 with a JSON body) at the legacy POST /uaa/oauth/token',
      judge(o) {
        const body = issued(o, true);
        if (body === undefined) return undefined;
        return tokenFieldProblems(body, o.exchange.response?.body ?? '').map((p) => `POST /uaa/oauth/token: ${p}`);
      },
    },
    {
      id: 'LEGACY-NO-REDIRECT',
      on: isLegacy,
      needs: 'an answer to a legacy path (POST /uaa/oauth/token, GET /uaa/userinfo)',
      judge(o) {
        if (!o.endpoint.legacy || !answered(o)) return undefined;
        if (!redirect(o.status)) return [];
        // To the same path and query on another origin (a gateway's http → https): before the API, not the legacy rewrite.
        if (sameTarget(o.exchange.url, o.res!.header('location'))) return undefined;
        return [
          `${o.label}: answered ${describeStatus(o.res!)}; the gateway rewrites a legacy path, it does not redirect it`,
        ];
      },
    },
    {
      id: 'VERSION-MISSING',
      on: readEndpoint,
      needs: 'a request without Accept-Version answered 400, a success or a redirect',
      judge: (o) => (readOrToken(o) ? versionMissing(o) : undefined),
    },
    {
      id: 'VERSION-INVALID',
      on: readEndpoint,
      needs: 'a request whose Accept-Version is no positive integer, answered 400, 404, a success or a redirect',
      judge: (o) => (readOrToken(o) ? versionInvalid(o) : undefined),
    },
    {
      id: 'WRITE-VERSION-MISSING',
      on: writeEndpoint,
      needs: 'a write (POST, PUT, PATCH, DELETE) without Accept-Version answered 400, a success or a redirect',
      judge: (o) => (isWrite(o) ? versionMissing(o) : undefined),
    },
    {
      id: 'WRITE-VERSION-INVALID',
      on: writeEndpoint,
      needs: 'a write whose Accept-Version is no positive integer, answered 400, 404, a success or a redirect',
      judge: (o) => (isWrite(o) ? versionInvalid(o) : undefined),
    },
    {
      id: 'AUTH-MISSING',
      on: (e) => isResource(e) && readEndpoint(e),
      needs: 'a read with Accept-Version: 1 and without Authorization, answered 401 or a success',
      judge: (o) => (isResource(o.endpoint) && READS.has(o.method) ? authMissing(o) : undefined),
    },
    {
      id: 'WRITE-AUTH-MISSING',
      on: writeEndpoint,
      needs: 'a write with Accept-Version: 1 and without Authorization, answered 401 or a success',
      judge: (o) => (isWrite(o) ? authMissing(o) : undefined),
    },
    ...(['USER-OK', 'USER-SCHEMA', 'USER-FIELDS-PRESENT'] as const).map(
      (id): PassiveRule => ({
        id,
        on: (e) => isUser(e) && !e.legacy && verbOf(e) === 'GET',
        needs: 'a 200 to GET /users/me with its whole body captured',
        judge(o) {
          const response = o.exchange.response;
          if (!isUser(o.endpoint) || o.endpoint.legacy || o.method !== 'GET' || o.status !== 200) return undefined;
          if (response?.body === undefined || response.bodyTruncated === true || o.json() === TOO_DEEP)
            return undefined;
          const user = o.object();
          if (id === 'USER-OK') {
            // As the run's USER-OK (expectJsonObject): a JSON media type, and an object in it.
            const type = o.res?.header('content-type');
            if (!o.responseKnown('content-type')) return undefined;
            if (!isJsonMediaType(type))
              return [
                `GET /users/me: expected a JSON body (Content-Type application/json), got Content-Type ${type === undefined ? '(none)' : JSON.stringify(type)}`,
              ];
            return user === undefined
              ? [`GET /users/me: expected a JSON object, got ${JSON.stringify(response.body.slice(0, 80))}`]
              : [];
          }
          if (user === undefined) return undefined;
          return id === 'USER-SCHEMA' ? userSchemaProblems(user) : userFieldProblems(user);
        },
      }),
    ),
    pageRule('PAGE-HEADERS', 'a page of a list (a 200 whose body is an array, or that carries a paging header)', (o) =>
      PAGING_HEADERS.every((name) => o.responseKnown(name))
        ? o.paging().problems.map((p) => `${o.label}: ${p}`)
        : undefined,
    ),
    pageRule('PAGE-DEFAULT', 'a page of a list asked for without a page parameter, with Page-Number', (o) => {
      if (o.query.has('page')) return undefined;
      const number = o.paging().values['Page-Number'];
      if (number === undefined) return undefined;
      return number === 1 ? [] : [`${o.label} without page: expected Page-Number 1, got ${number}`];
    }),
    pageRule(
      'PAGE-ECHO',
      'a page of a list asked for with page or size, or whose items can be counted against its headers',
      (o, items) => {
        const paging = o.paging();
        const { values } = paging;
        const asked = positiveParameter(o, 'page');
        const size = positiveParameter(o, 'size');
        const problems: string[] = [];
        let judged = false;
        if (asked !== undefined && values['Page-Number'] !== undefined) {
          judged = true;
          if (values['Page-Number'] !== asked)
            problems.push(`${o.label}: expected Page-Number ${asked}, got ${values['Page-Number']}`);
        }
        if (size !== undefined && values['Page-Size'] !== undefined) {
          judged = true;
          if (values['Page-Size'] > size)
            problems.push(`${o.label}: expected Page-Size ${size} (or a cap below it), got ${values['Page-Size']}`);
        }
        const number = values['Page-Number'];
        if (items !== undefined && number !== undefined && number >= 1) {
          const expected = expectedItemCount(paging, number);
          if ('count' in expected) {
            judged = true;
            if (items.length !== expected.count)
              problems.push(
                `${o.label}: holds ${items.length} items, but Page-Size ${expected.size} and Total-Elements ${expected.total} promise ${expected.count} on page ${number}`,
              );
          }
        }
        return judged ? problems : undefined;
      },
    ),
    pageRule('PAGE-TOTALS', 'a page of a list with Total-Elements, Total-Pages and Page-Size', (o) => {
      const { values } = o.paging();
      const total = values['Total-Elements'];
      const pages = values['Total-Pages'];
      const size = values['Page-Size'];
      if (total === undefined || pages === undefined || size === undefined) return undefined;
      const expected = expectedTotalPages(total, size);
      return expected.includes(pages)
        ? []
        : [
            `${o.label}: Total-Pages is ${pages}, expected ${expected.join(' or ')} = ceil(Total-Elements ${total} / Page-Size ${size})`,
          ];
    }),
    pageRule('LINK-SYNTAX', 'a page of a list with a Link header', (o) => {
      const lines = o.res!.headerLines('link');
      if (lines.length === 0) return undefined;
      return parseLinkHeader(lines, o.exchange.url).errors.map((e) => `${o.label}: Link: ${e}`);
    }),
    linkRule('LINK-NEXT', (o, at, problems) => {
      const next = singleLink(o, ['next'], problems);
      if (at.number < at.last) {
        if (next === undefined) problems.push(`${o.label}: page ${at.number} of ${at.last} has no rel="next" link`);
        else expectLink(o, 'next', next, at.number + 1, problems);
      } else if (next !== undefined) problems.push(`${o.label}: the last page has a rel="next" link (${next})`);
    }),
    linkRule('LINK-PREV', (o, at, problems) => {
      const prev = singleLink(o, ['prev', 'previous'], problems);
      if (prev === undefined) return;
      if (at.number === 1) problems.push(`${o.label}: page 1 has a rel="prev" link (${prev})`);
      else expectLink(o, 'prev', prev, at.number - 1, problems);
    }),
    linkRule('LINK-FIRST-LAST', (o, at, problems) => {
      const first = singleLink(o, ['first'], problems);
      const last = singleLink(o, ['last'], problems);
      if (first !== undefined) expectLink(o, 'first', first, 1, problems);
      if (last !== undefined) expectLink(o, 'last', last, at.last, problems);
    }),
    sameFields(),
    expiredTokens(),
    resourceRule('RESOURCE-SCHEMA', (document, pointer, value) => schemaProblems(document, pointer, value)),
    resourceRule('RESOURCE-FIELDS-PRESENT', (document, pointer, value) => {
      const missing = missingDeclared(document, pointer, value);
      // The remedy the document allows (src/lint/omission.ts), as the run words it.
      return missing.length > 0 ? [omissionMessage(document, pointer, missing)] : [];
    }),
  ];
}

/** Items judged per page against their schema: the first ones stand for a page (a run walks them all). */
const ITEMS_PER_PAGE = 50;

/**
 * A check of a tenant endpoint's bodies against the schema the --openapi document declares (spec
 * over document: every property present, null where there is no data). Without a document, or
 * for an endpoint the document gives no schema, nothing to judge.
 */
function resourceRule(
  id: string,
  problems: (document: Json, pointer: string, value: unknown) => string[],
): PassiveRule {
  return {
    id,
    on: (e) => e.spec?.schema !== undefined,
    needs: 'a 200 to a tenant endpoint whose schema the --openapi document declares, with its body captured',
    needsDocument: 'no --openapi document was given, whose schemas would judge the bodies',
    judge(o) {
      const spec = o.endpoint.spec;
      const document = o.document;
      if (spec?.schema === undefined || document === undefined || !READS.has(o.method) || o.status !== 200)
        return undefined;
      if (spec.kind === 'single') {
        const body = o.json();
        if (body === NO_JSON || body === TOO_DEEP) return undefined;
        return problems(document, spec.schema, body).map((p) => `${o.label}: ${p}`);
      }
      const items = page(o)?.items;
      if (items === undefined) return undefined;
      const out: string[] = [];
      items.slice(0, ITEMS_PER_PAGE).forEach((item, i) => {
        for (const p of problems(document, spec.schema as string, item))
          out.push(`${o.label} item ${i + 1} (${itemLabel(item)}): ${p}`);
      });
      return out;
    },
  };
}
