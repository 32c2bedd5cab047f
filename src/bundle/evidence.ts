import { createHash } from 'node:crypto';
import { USER_PATH } from '../core/carrier-spec.js';
import { readRegularFileChunks } from '../core/files.js';
import { TOKEN_PATH, LEGACY_TOKEN_PATH } from '../carrier/paths.js';
import type { RunReport } from '../model/run-report.js';
import { extractItems, itemId } from '../carrier/list-items.js';
import { commonFields, dataInRefusal } from '../battery/refusal-data.js';
import { isObject } from '../openapi/pointer.js';

/**
 * A bundle's exchanges.jsonl against its verdicts (issue 39, items 2 and 8): every exchange of the
 * run, one HAR entry a line, each naming the checks that used it (src/report/exchanges.ts). A
 * bundle rewritten as all-passed, or a pass a forger gave a check, is not what the recorded
 * exchanges show: every passed check must rest on exchanges, and for the checks a rule below
 * knows, each exchange of the kind the check judges must have answered as the pass says. The
 * verifier says how far it could tell: how many passes it cross-checked, how many only have
 * exchanges, and what it could not read.
 *
 * The file is read a chunk at a time, a line at a time, hashed as it is read: a walk of a million
 * items is verified in the memory of the few fields each rule needs.
 */

/** Far more than an honest run's exchanges take (a million items' pages, bodies cut at 4 KiB). */
export const EXCHANGES_LIMIT = 2 * 1024 * 1024 * 1024;
/** One entry: a 4 KiB body and its headers, escaped, are far below this. */
const MAX_LINE = 1024 * 1024;

/** What the rules need of one exchange. */
export interface ExchangeFacts {
  checks: string[];
  method: string;
  path: string;
  status: number;
  /** Request header names, lower case, and the Authorization scheme (lower case) if any. */
  requestHeaders: Set<string>;
  authScheme?: string;
  acceptVersion?: string;
  /** Response header values by lower-case name (lines joined). */
  responseHeaders: Map<string, string>;
  purpose: string;
  /** The response body when the rules may need it (a refusal's), and whether it was cut when recorded. */
  body?: string;
  bodyCut: boolean;
  /** What a 2xx answer at a tenant path showed of its data (its items' ids and common fields), to know it in a refusal. */
  data?: { key: string; ids: string[]; fields: string[] | undefined };
}

export interface ReadExchanges {
  sha256: string;
  bytes: number;
  entries: ExchangeFacts[];
  /** Lines that are not entries (not JSON, too long, no _checks): named, never judged. */
  problems: string[];
}

interface HarLine {
  _checks?: unknown;
  comment?: unknown;
  request?: { method?: unknown; url?: unknown; headers?: { name?: unknown; value?: unknown }[] };
  response?: { status?: unknown; headers?: { name?: unknown; value?: unknown }[]; content?: { text?: unknown } };
}

function facts(line: string): ExchangeFacts | string {
  let entry: HarLine;
  try {
    entry = JSON.parse(line) as HarLine;
  } catch {
    return 'not JSON';
  }
  if (
    entry === null ||
    typeof entry !== 'object' ||
    !Array.isArray(entry._checks) ||
    entry.request === undefined ||
    entry.response === undefined
  )
    return 'not a HAR entry with _checks';
  const requestHeaders = new Set<string>();
  let authScheme: string | undefined;
  let acceptVersion: string | undefined;
  for (const h of entry.request.headers ?? []) {
    if (typeof h.name !== 'string' || typeof h.value !== 'string') continue;
    const name = h.name.toLowerCase();
    requestHeaders.add(name);
    if (name === 'authorization') authScheme = h.value.split(/\s/)[0]?.toLowerCase();
    if (name === 'accept-version') acceptVersion = h.value;
  }
  const responseHeaders = new Map<string, string>();
  for (const h of entry.response.headers ?? []) {
    if (typeof h.name !== 'string' || typeof h.value !== 'string') continue;
    const name = h.name.toLowerCase();
    responseHeaders.set(name, responseHeaders.has(name) ? `${responseHeaders.get(name) ?? ''}, ${h.value}` : h.value);
  }
  const url = typeof entry.request.url === 'string' ? entry.request.url : '';
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    path = url;
  }
  const status = typeof entry.response.status === 'number' ? entry.response.status : 0;
  const comment = typeof entry.comment === 'string' ? entry.comment : '';
  const text = entry.response.content?.text;
  // Only a refusal's body is kept (TENANT-*: no data in it); of a tenant path's 2xx answer, what its data is.
  const keepBody = (status === 403 || status === 404) && typeof text === 'string';
  const bodyCut = /response body cut at the recording limit/.test(comment);
  const key = tenantKey(path);
  const data =
    status >= 200 && status < 300 && key !== undefined && typeof text === 'string' && !bodyCut
      ? dataShown(text)
      : undefined;
  return {
    checks: entry._checks.filter((c): c is string => typeof c === 'string'),
    method: typeof entry.request.method === 'string' ? entry.request.method : '',
    path,
    status,
    requestHeaders,
    ...(authScheme !== undefined ? { authScheme } : {}),
    ...(acceptVersion !== undefined ? { acceptVersion } : {}),
    responseHeaders,
    purpose: comment,
    ...(keepBody ? { body: text } : {}),
    bodyCut,
    ...(data !== undefined && key !== undefined ? { data: { key, ...data } } : {}),
  };
}

/** A tenant path without its tenant (nor the API's base path): where two tenants' answers are of the same list or resource. */
function tenantKey(path: string): string | undefined {
  const m = /\/tenants\/[^/]+(\/.*)?$/.exec(path);
  return m ? (m[1] ?? '') : undefined;
}

/** Ids of data kept of one answer: a refusal's items are a page's first ones. */
const MAX_IDS_PER_ANSWER = 1000;

/** The ids of the items (or the resource) a 2xx body holds, and the fields all its items carry. */
function dataShown(text: string): { ids: string[]; fields: string[] | undefined } | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
  const extracted = Array.isArray(body) || isObject(body) ? extractItems(body) : undefined;
  const items = extracted !== undefined && 'items' in extracted ? extracted.items : isObject(body) ? [body] : [];
  const all = isObject(body) && !items.includes(body) ? [body, ...items] : items;
  const ids = all
    .slice(0, MAX_IDS_PER_ANSWER)
    .map(itemId)
    .filter((id): id is string => id !== undefined);
  return { ids, fields: commonFields(items) };
}

/** Reads exchanges.jsonl (a regular file of the bundle, never through a link): its digest and size, and what the rules need of each entry. Throws a UsageError naming it otherwise. */
export function readExchanges(path: string, name: string): ReadExchanges {
  const hash = createHash('sha256');
  const entries: ExchangeFacts[] = [];
  const problems: string[] = [];
  let bytes = 0;
  let rest = '';
  let lineNo = 0;
  const take = (line: string): void => {
    lineNo += 1;
    if (line === '') return;
    if (line.length > MAX_LINE) return void problems.push(`line ${lineNo}: longer than ${MAX_LINE} characters`);
    const f = facts(line);
    if (typeof f === 'string') problems.push(`line ${lineNo}: ${f}`);
    else entries.push(f);
  };
  const decoder = new TextDecoder('utf-8');
  readRegularFileChunks(
    path,
    name,
    { maxBytes: EXCHANGES_LIMIT, of: "a bundle's exchanges" },
    (chunk) => {
      bytes += chunk.length;
      hash.update(chunk);
      const lines = (rest + decoder.decode(chunk, { stream: true })).split('\n');
      rest = lines.pop() ?? '';
      if (rest.length > MAX_LINE) {
        problems.push(`line ${lineNo + 1}: longer than ${MAX_LINE} characters`);
        rest = '';
      }
      for (const line of lines) take(line);
    },
    { noFollow: true },
  );
  take(rest + decoder.decode());
  return { sha256: hash.digest('hex'), bytes, entries, problems };
}

const isTokenPath = (f: ExchangeFacts): boolean => f.path.endsWith(TOKEN_PATH) || f.path.endsWith(LEGACY_TOKEN_PATH);
const isResource = (f: ExchangeFacts): boolean => !isTokenPath(f);
const is4xx = (f: ExchangeFacts): boolean => f.status >= 400 && f.status < 500;
const refused = (f: ExchangeFacts): boolean => f.status === 403 || f.status === 404;

/** What 2xx answers at each tenant path (tenantKey) showed of their data. */
export type SeenData = ReadonlyMap<string, { ids: ReadonlySet<string>; fields: readonly string[] | undefined }>;

/** Ids of data kept per path, at most. */
const MAX_IDS_PER_PATH = 10_000;

function seenData(entries: readonly ExchangeFacts[]): SeenData {
  const seen = new Map<string, { ids: Set<string>; fields: string[] | undefined }>();
  for (const { data } of entries) {
    if (data === undefined) continue;
    const at = seen.get(data.key);
    if (at === undefined) {
      seen.set(data.key, { ids: new Set(data.ids.slice(0, MAX_IDS_PER_PATH)), fields: data.fields });
      continue;
    }
    for (const id of data.ids) if (at.ids.size < MAX_IDS_PER_PATH) at.ids.add(id);
    if (data.fields !== undefined)
      at.fields = at.fields === undefined ? data.fields : at.fields.filter((k) => data.fields?.includes(k));
  }
  return seen;
}

/**
 * A refusal's body holds no data (what TENANT-FOREIGN and TENANT-UNKNOWN judge), by the rules of
 * src/battery/refusal-data.ts with what the bundle shows of the data at that path (the 2xx answers
 * there, of any tenant): no entry that carries an id of it and another of its fields, none with
 * every field (three or more) of its items. An array in an error body is no data (FastAPI's
 * `detail`, JSON:API's `errors`), nor an error that names the id it was asked for (issue 38 item 2).
 */
function noData(f: ExchangeFacts, seen: SeenData): boolean {
  if (f.body === undefined || f.bodyCut) return true;
  const key = tenantKey(f.path);
  const shown = key === undefined ? undefined : seen.get(key);
  if (shown === undefined) return true;
  let body: unknown;
  try {
    body = JSON.parse(f.body) as unknown;
  } catch {
    return true;
  }
  return dataInRefusal(body, { ownIds: shown.ids, ownFields: shown.fields, seeded: new Map() }) === undefined;
}

/**
 * What a pass of a check says of the exchanges it judged: those `select` picks (at least one) all
 * answered as `holds` requires. Each rule reads only what the wire shows (status, header fields,
 * a refusal's items), never a check's own words.
 */
interface Rule {
  check: string;
  /** Which of the check's exchanges the rule judges, in words. */
  what: string;
  select(f: ExchangeFacts): boolean;
  holds(f: ExchangeFacts, seen: SeenData): boolean;
  /** What each must show, in words. */
  expected: string;
}

const PAGING = ['total-pages', 'page-size', 'page-number', 'total-elements'];

export const EVIDENCE_RULES: readonly Rule[] = [
  {
    check: 'TOKEN-ISSUE',
    what: 'token requests with the configured credentials (a valid request)',
    select: (f) =>
      isTokenPath(f) && f.authScheme === 'basic' && /a valid request/.test(f.purpose) && f.method === 'POST',
    holds: (f) => f.status === 200,
    expected: '200',
  },
  {
    check: 'AUTH-MISSING',
    what: 'requests without an Authorization header',
    select: (f) => isResource(f) && !f.requestHeaders.has('authorization'),
    holds: is4xx,
    expected: 'a 4xx refusal',
  },
  {
    check: 'AUTH-MISSING-401',
    what: 'requests without an Authorization header',
    select: (f) => isResource(f) && !f.requestHeaders.has('authorization'),
    holds: (f) => f.status === 401,
    expected: '401',
  },
  {
    check: 'AUTH-NOT-BEARER',
    what: 'requests with Basic credentials instead of a token',
    select: (f) => isResource(f) && f.authScheme === 'basic',
    holds: is4xx,
    expected: 'a 4xx refusal',
  },
  {
    check: 'VERSION-MISSING',
    what: 'requests without Accept-Version',
    select: (f) => !f.requestHeaders.has('accept-version'),
    holds: (f) => f.status === 400,
    expected: '400',
  },
  {
    check: 'VERSION-INVALID',
    what: 'requests with an Accept-Version other than 1',
    select: (f) => f.acceptVersion !== undefined && f.acceptVersion.trim() !== '1',
    holds: (f) => f.status === 400 || f.status === 404,
    expected: '400 or 404',
  },
  {
    check: 'USER-OK',
    what: 'GET /users/me with a bearer token',
    select: (f) => f.path.endsWith(USER_PATH) && f.authScheme === 'bearer' && f.acceptVersion === '1',
    holds: (f) => f.status === 200,
    expected: '200',
  },
  {
    check: 'TENANT-ACCESS',
    what: "requests of the tenant endpoints' valid answers",
    select: (f) => /\/tenants\//.test(f.path) && /: a valid request/.test(f.purpose) && f.authScheme === 'bearer',
    holds: (f) => f.status >= 200 && f.status < 300,
    expected: 'a 2xx status',
  },
  {
    check: 'TENANT-FOREIGN',
    what: 'requests for another tenant than the asking client may access',
    select: (f) =>
      /tenant this client may not access|the second client's tenant\)|with the second client's token \(the tenant under test\)/.test(
        f.purpose,
      ),
    holds: (f, seen) => refused(f) && noData(f, seen),
    expected: '403 or 404 without data',
  },
  {
    check: 'TENANT-UNKNOWN',
    what: 'requests for a tenant id that names no tenant',
    select: (f) => /a tenant id that names no tenant/.test(f.purpose),
    holds: (f, seen) => refused(f) && noData(f, seen),
    expected: '403 or 404 without data',
  },
  {
    check: 'PAGE-HEADERS',
    what: 'list pages answered 200',
    select: (f) => f.status === 200 && /\/tenants\//.test(f.path) && PAGING.some((h) => f.responseHeaders.has(h)),
    holds: (f) => PAGING.every((h) => /^\d+$/.test((f.responseHeaders.get(h) ?? '').trim())),
    expected: 'Total-Pages, Page-Size, Page-Number and Total-Elements, once each, as integers',
  },
];

export interface EvidenceSink {
  ok(topic: string, message: string): void;
  fail(topic: string, message: string): void;
  note(topic: string, message: string): void;
}

/**
 * The report's passes against the exchanges: a passed check with none is not shown to have run; a
 * rule's exchange that answered otherwise disproves the pass. Says how far it could tell.
 */
export function checkEvidence(report: RunReport, read: ReadExchanges, f: EvidenceSink): void {
  const topic = 'exchanges.jsonl';
  for (const p of read.problems.slice(0, 5)) f.fail(topic, p);
  if (read.problems.length > 5) f.fail(topic, `and ${read.problems.length - 5} more lines that are not entries`);
  const byCheck = new Map<string, ExchangeFacts[]>();
  for (const e of read.entries) for (const c of e.checks) byCheck.set(c, [...(byCheck.get(c) ?? []), e]);
  const passed = report.checks.filter((c) => c.status === 'passed');
  const seen = seenData(read.entries);
  let crossChecked = 0;
  let onlyRecorded = 0;
  let disproved = 0;
  for (const check of passed) {
    const mine = byCheck.get(check.id) ?? [];
    if (mine.length === 0) {
      disproved += 1;
      f.fail(`evidence ${check.id}`, 'passed, but no recorded exchange names it: nothing shows the check ran');
      continue;
    }
    const rules = EVIDENCE_RULES.filter((r) => r.check === check.id);
    if (rules.length === 0) {
      onlyRecorded += 1;
      continue;
    }
    let ok = true;
    for (const rule of rules) {
      const judged = mine.filter((e) => rule.select(e));
      if (judged.length === 0) {
        ok = false;
        f.fail(
          `evidence ${check.id}`,
          `passed, but none of its ${mine.length} exchanges is one of the ${rule.what} the check judges`,
        );
        continue;
      }
      const contrary = judged.filter((e) => !rule.holds(e, seen));
      if (contrary.length > 0) {
        ok = false;
        const first = contrary[0];
        f.fail(
          `evidence ${check.id}`,
          `passed, but ${contrary.length} of its ${judged.length} ${rule.what} did not answer ${rule.expected}${first !== undefined ? ` (${first.method} ${first.path} answered ${first.status})` : ''}: the verdict is not what the exchanges show`,
        );
      }
    }
    if (ok) crossChecked += 1;
    else disproved += 1;
  }
  const total = read.entries.length;
  const named = read.entries.filter((e) => e.checks.length > 0).length;
  const line = `${total} exchanges recorded (${named} used by checks); of the ${passed.length} passed checks, ${crossChecked} cross-checked against what their exchanges answered, ${onlyRecorded} shown to have exchanges (no rule here judges their content)${disproved > 0 ? `, ${disproved} not supported` : ''}`;
  if (disproved === 0 && read.problems.length === 0) f.ok('evidence', line);
  else f.note('evidence', line);
}
