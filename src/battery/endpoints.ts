import { endpointLabel, pathParameters, wirePath, type EndpointSpec } from '../carrier/endpoint-specs.js';
import { LEGACY_TOKEN_PATH, LEGACY_USER_PATH, TOKEN_PATH, USER_PATH, tenantPath } from '../carrier/paths.js';
import { getResource, requestToken, type Send, type VersionHeader } from '../carrier/requests.js';
import { Evidence, HttpResponse, Recorder, type RequestAuth } from '../http/client.js';
import type { CheckContext } from './check.js';
import { getBattery } from './context.js';
import type { PassedResponse } from './wiring.js';
import { wordsOf } from '../openapi/endpoint-model.js';
import { extractItems } from '../carrier/list-items.js';
import { mapBounded } from './bounded.js';

/**
 * The endpoints that rules "on every endpoint" apply to (spec §Endpoints: every endpoint requires
 * Accept-Version; every endpoint but the token endpoint requires a bearer token; spec
 * §Tenant-scoped endpoints: every tenant endpoint is within one tenant). Each one knows how to
 * send a request that is valid in every respect but the one a check varies.
 *
 * Each endpoint's answer to a fully valid request (`validAnswer`) is fetched once and shared: the
 * check named in `judgedBy` judges it, and every check that varies one thing on the endpoint
 * needs it to have succeeded first. A probe is only evidence when the same request without the
 * variation works: a 401 without a token proves nothing on an endpoint that refuses everything,
 * and a 400 without Accept-Version nothing on one that answers 400 to anything. When the valid
 * request fails, the probes on that endpoint are errors that point at `judgedBy`, so that one
 * root cause is reported once.
 *
 * A tenant endpoint with path parameters (`invoices/{invoiceId}`) is filled with real ids: the
 * user's value (--parameter), else the id of the first item of the list it is under
 * (`invoices`). One that cannot be filled is skipped, with the reason, by every check.
 */

export interface Endpoint {
  /** e.g. "POST /uaa/oauth2/token" or "GET /tenants/{tenantId}/shipments". */
  label: string;
  kind: 'token' | 'resource';
  /** The check that judges the endpoint's answer to a valid request. */
  judgedBy: string;
  /** The tenant endpoint it is, when it is one. */
  spec?: EndpointSpec;
  /** The request path (with parameters filled), or why there is none. */
  path(c: CheckContext): Promise<string | { unresolved: string }>;
  /** A request with one variation, sent through `via` (default: the check's own `send`). */
  send(
    c: CheckContext,
    variation: VersionHeader & { auth?: RequestAuth },
    purpose: string,
    via?: Send,
  ): Promise<HttpResponse>;
  /** The valid request, sent through `send` (which records it where the caller wants). */
  sendValid(c: CheckContext, send: Send, purpose: string): Promise<HttpResponse>;
}

/** Thrown by `send` on an endpoint whose path parameters cannot be filled. */
export class UnresolvedEndpoint extends Error {
  override name = 'UnresolvedEndpoint';
}

async function concrete(c: CheckContext, endpoint: Endpoint): Promise<string> {
  const path = await endpoint.path(c);
  if (typeof path !== 'string') throw new UnresolvedEndpoint(`${endpoint.label}: ${path.unresolved}`);
  return path;
}

function tokenEndpoint(path: string, legacy: boolean): Endpoint {
  const label = `POST ${path}${legacy ? ' (legacy)' : ''}`;
  const endpoint: Endpoint = {
    label,
    kind: 'token',
    judgedBy: legacy ? 'LEGACY-TOKEN' : 'TOKEN-ISSUE',
    path: () => Promise.resolve(path),
    // A variation of something other than client authentication (Accept-Version): sent the way
    // that gets a token, so that it is judged even where HTTP Basic is refused (basicRefusedAt).
    send: async (c, v, purpose, via) => {
      const post = await basicRefusedAt(c, endpoint);
      return requestToken(via ?? c.send, c.target, {
        path,
        credentials: c.credentials,
        ...(post ? { clientAuth: 'post' as const } : {}),
        ...v,
        purpose: `${label}: ${purpose}${post ? ' (client_secret_post)' : ''}`,
      });
    },
    sendValid: (c, send, purpose) =>
      requestToken(send, c.target, { path, credentials: c.credentials, purpose: `${label}: ${purpose}` }),
  };
  return endpoint;
}

function resourceEndpoint(
  label: string,
  judgedBy: string,
  path: (c: CheckContext) => Promise<string | { unresolved: string }>,
  spec?: EndpointSpec,
): Endpoint {
  const endpoint: Endpoint = {
    label,
    kind: 'resource',
    judgedBy,
    ...(spec ? { spec } : {}),
    path,
    send: async (c, v, purpose, via) =>
      getResource(via ?? c.send, c.target, {
        path: await concrete(c, endpoint),
        auth: v.auth ?? c.bearer(),
        ...v,
        headers: endpointHeaders(spec),
        purpose: `${label}: ${purpose}`,
      }),
    sendValid: async (c, send, purpose) =>
      getResource(send, c.target, {
        path: await concrete(c, endpoint),
        auth: c.bearer(),
        headers: endpointHeaders(spec),
        purpose: `${label}: ${purpose}`,
      }),
  };
  return endpoint;
}

const fixed = (path: string) => () => Promise.resolve(path);

export const USER_ENDPOINT = resourceEndpoint(`GET ${USER_PATH}`, 'USER-OK', fixed(USER_PATH));
export const LEGACY_USER_ENDPOINT = resourceEndpoint(
  `GET ${LEGACY_USER_PATH} (legacy)`,
  'LEGACY-USERINFO',
  fixed(LEGACY_USER_PATH),
);
export const TOKEN_ENDPOINT = tokenEndpoint(TOKEN_PATH, false);
export const LEGACY_TOKEN_ENDPOINT = tokenEndpoint(LEGACY_TOKEN_PATH, true);

const tenantEndpointCache = new Map<string, Endpoint>();

/** The tenant endpoint for a spec, made once per worker (its path is resolved once). */
export function tenantEndpoint(spec: EndpointSpec): Endpoint {
  let endpoint = tenantEndpointCache.get(spec.path);
  if (!endpoint) {
    let resolved: Promise<string | { unresolved: string }> | undefined;
    endpoint = resourceEndpoint(
      endpointLabel(spec.path),
      'TENANT-ACCESS',
      (c) => (resolved ??= resolvePath(c, spec)),
      spec,
    );
    tenantEndpointCache.set(spec.path, endpoint);
  }
  return endpoint;
}

/**
 * The request path of a tenant endpoint: each parameter after the tenant's from --parameter, else
 * the document's enum or default for it, else from the first item of the list the endpoint is
 * under (`invoices` for `invoices/{invoiceId}`): its field of the parameter's name, else its `id`,
 * else the document's example. Then its required query parameters (src/openapi/endpoint-model.ts),
 * each from --parameter (`PATH:NAME=…` before `NAME=…`), else as the document fills it; without a
 * value the endpoint is skipped, saying which. Its required header parameters are checked here
 * too (endpointHeaders sends them). A path key's `#…` suffix is not part of the path (wirePath);
 * a `?…` in a path key (flickr's `/rest?method=…`) is a query the request carries.
 */
async function resolvePath(c: CheckContext, spec: EndpointSpec): Promise<string | { unresolved: string }> {
  const { tenantId, tenantProblem } = c.settings;
  if (tenantId === undefined)
    return { unresolved: `no tenant under test: ${tenantProblem ?? 'none given'} (pass --tenant-id)` };
  return resolveInTenant(c, spec, {
    tenantId,
    givenFirst: true,
    list: async (parent) => {
      const parentEndpoint = tenantEndpoint(parent);
      const resolved = await parentEndpoint.path(c);
      return typeof resolved === 'string' ? validAnswer(c, parentEndpoint).catch(() => undefined) : resolved;
    },
  });
}

/**
 * A tenant as a client sees it, for filling an endpoint's path there: the tenant under test as the
 * run's client sees it (resolvePath), or another client's own tenant (src/battery/isolation.ts).
 */
export interface TenantView {
  tenantId: string;
  /** --parameter values before ids from the lists: they are the test account's, of the tenant under test. */
  givenFirst: boolean;
  /** The answer to a list's valid request in this tenant, or why there is none (undefined: it could not be read). */
  list(parent: EndpointSpec): Promise<HttpResponse | { unresolved: string } | undefined>;
}

/** The request path of a tenant endpoint in `view`'s tenant (see resolvePath). */
export async function resolveInTenant(
  c: CheckContext,
  spec: EndpointSpec,
  view: TenantView,
): Promise<string | { unresolved: string }> {
  const { parameters, endpoints } = c.settings;
  // A `#` with more path after it (Mastercard's `send/#env/v1/partners/…`) is no variant suffix: a
  // fragment is never sent (RFC 9110 §7.1), so no request reaches the path as the document writes it.
  const hash = spec.path.indexOf('#');
  if (hash >= 0 && spec.path.slice(hash).includes('/'))
    return {
      unresolved: `its path key has "${spec.path.slice(hash).split('/')[0] ?? '#'}" before more of the path: a fragment is never sent (RFC 9110 §7.1), so no request reaches the path as written; give the real path with --endpoint or --paged-path`,
    };
  // An empty segment (Clever Cloud's `//openapi`): servers and gateways merge slashes (nginx's
  // merge_slashes) or refuse them, so what a request there reaches is not the document's to say.
  const wire = wirePath(spec.path).split('?')[0] ?? '';
  if (wire.startsWith('/') || wire.includes('//')) {
    return {
      unresolved:
        'its path key has an empty segment (//): servers and gateways merge such slashes or refuse them, so no request reaches the path as written; give the real path with --endpoint or --paged-path',
    };
  }
  const given = (name: string): string | undefined => parameters[`${spec.path}:${name}`] ?? parameters[name];
  const query = new URLSearchParams();
  const invented: string[] = [];
  // --parameter's query values are in spec.query already (src/runner/api.ts withGivenValues).
  // OpenAPI 3.2 `in: querystring` values: the whole query string each, as given.
  const whole: string[] = [];
  for (const { name, value, from, problem, whole: isWhole } of spec.query ?? []) {
    if (value === undefined)
      return {
        unresolved: `${problem ?? `required query parameter ${name} has no value`}; give one with --parameter ${name}=VALUE`,
      };
    if (from === 'invented') invented.push(`${name}=${value}`);
    if (isWhole) whole.push(asQueryString(value));
    else query.append(name, value);
  }
  // --header's are sent with every request (src/http/extra-headers.ts) and left out of spec.headers.
  for (const { name, value, from, problem } of spec.headers ?? []) {
    if (value === undefined)
      return {
        unresolved: `${problem ?? `required header parameter ${name} has no value`}; give one with --header '${name}: VALUE'`,
      };
    if (from === 'invented') invented.push(`header ${name}: ${value}`);
  }
  if (invented.length > 0 && view.givenFirst) inventedValues.set(spec.path, invented);
  const fromDocument = (name: string, kinds: readonly string[]): string | undefined =>
    spec.pathValues?.find((p) => p.name === name && p.from !== undefined && kinds.includes(p.from))?.value;
  const template = wirePath(spec.path);
  let path = template;
  const fromTheDocument: DocumentValue[] = [];
  const slashed: string[] = [];
  for (const name of pathParameters(template)) {
    // A --parameter value is the test account's, of the tenant under test: in another client's
    // tenant it stands only where no list gives an id. The document's enum or default is no account's.
    const own = given(name);
    const ownFirst = view.givenFirst ? own : undefined;
    const statedValue = ownFirst === undefined ? fromDocument(name, ['enum', 'default']) : undefined;
    const stated =
      statedValue === undefined
        ? undefined
        : spec.pathValues?.find((p) => p.name === name && (p.from === 'enum' || p.from === 'default'));
    const value =
      ownFirst ??
      statedValue ??
      (own !== undefined && listAbove(endpoints, template, name) === undefined ? own : undefined);
    if (value !== undefined) {
      path = path.replace(`{${name}}`, encodeURIComponent(value));
      if (stated) fromTheDocument.push({ name, value, from: stated.from === 'enum' ? 'enum' : 'default' });
      continue;
    }
    const found = await fromListAbove(endpoints, template, name, view);
    const example = fromDocument(name, ['example']);
    if (typeof found !== 'string' && example !== undefined) {
      path = path.replace(`{${name}}`, encodeURIComponent(example));
      fromTheDocument.push({ name, value: example, from: 'example' });
      continue;
    }
    if (typeof found !== 'string') return found;
    if (found.includes('/')) slashed.push(`{${name}}=${found}`);
    path = path.replace(`{${name}}`, encodeURIComponent(found));
  }
  // Like inventedValues: only the tenant under test's resolution speaks for its answers (another
  // client's tenant is resolved apart, src/battery/isolation.ts, and judged without them).
  if (view.givenFirst) {
    if (fromTheDocument.length > 0) documentValues.set(spec.path, fromTheDocument);
    else documentValues.delete(spec.path);
    if (slashed.length > 0) slashValues.set(spec.path, slashed);
    else slashValues.delete(spec.path);
  }
  const [base = '', fixedQuery] = path.split(/\?(.*)/s);
  const elsewhere = pathParameters(template).some((name) => given(name) !== undefined)
    ? undefined
    : otherOperation(endpoints, spec.path, base);
  if (elsewhere?.literal)
    return {
      unresolved: `filled as ${base}, which is the document's own path ${endpointLabel(elsewhere.path)}: a server answers that operation there (OpenAPI: a concrete path matches before a templated one); give another value with --parameter`,
    };
  if (view.givenFirst) {
    if (elsewhere) alsoMatches.set(spec.path, elsewhere.path);
    else alsoMatches.delete(spec.path);
  }
  const search = [fixedQuery, ...whole, query.toString()].filter((q) => q !== undefined && q !== '').join('&');
  return `${tenantPath(view.tenantId, base)}${search === '' ? '' : `?${search}`}`;
}

/**
 * The list path parameter `name` is the id of an item of (the path up to the parameter's
 * segment), if the document has it. A parameter that is not a whole segment (`thumbnail.{extension}`)
 * is no list's id.
 */
function listAbove(endpoints: readonly EndpointSpec[], template: string, name: string): EndpointSpec | undefined {
  const at = template.indexOf(`/{${name}}`);
  const whole = at >= 0 && ['/', '?', ''].includes(template.charAt(at + name.length + 3));
  if (!whole) return undefined;
  const parentPath = template.slice(0, at);
  // The list above: `invoices` for `invoices/{invoiceId}`, or with the suffix the API writes its paths with (Twilio's `Calls.json` for `Calls/{Sid}.json`).
  // A router's trailing slash (DRF's `shipments/` above `shipments/{id}/`) is the same list.
  return (
    endpoints.find((e) => e.kind === 'list' && (e.path === parentPath || e.path === `${parentPath}/`)) ??
    endpoints.find(
      (e) =>
        e.kind === 'list' && /^\.[A-Za-z0-9]+$/.test(e.path.slice(parentPath.length)) && e.path.startsWith(parentPath),
    )
  );
}

/**
 * The value of path parameter `name` from the first item of the list the endpoint is under, as
 * `view`'s client sees it in its tenant, or why there is none.
 */
async function fromListAbove(
  endpoints: readonly EndpointSpec[],
  template: string,
  name: string,
  view: TenantView,
): Promise<string | { unresolved: string }> {
  const at = template.indexOf(`/{${name}}`);
  const whole = at >= 0 && ['/', '?', ''].includes(template.charAt(at + name.length + 3));
  if (!whole)
    return {
      unresolved: `no value for {${name}}: it is part of a path segment (${template.split('/').find((s) => s.includes(`{${name}}`)) ?? template}), which no list gives, and the document gives no example, default or enum for it; give one with --parameter ${name}=VALUE`,
    };
  const parentPath = template.slice(0, at);
  const parent = listAbove(endpoints, template, name);
  if (!parent)
    return {
      unresolved: `no value for {${name}}: no list ${endpointLabel(parentPath)} to take an id from; give one with --parameter ${name}=VALUE`,
    };
  const res = await view.list(parent);
  if (res !== undefined && !(res instanceof HttpResponse))
    return {
      unresolved: `no value for {${name}}: ${res.unresolved} (${endpointLabel(parentPath)}); or give one with --parameter ${name}=VALUE`,
    };
  const parsed = res && res.status >= 200 && res.status < 300 ? res.json() : undefined;
  const extracted = parsed?.ok ? extractItems(parsed.value, parent.itemsProperty) : undefined;
  const first =
    extracted && 'items' in extracted ? (extracted.items[0] as Record<string, unknown> | undefined) : undefined;
  const id = first === undefined ? undefined : idFor(first, name);
  if (typeof id !== 'string' && typeof id !== 'number') {
    const fields = [...new Set([name, 'id', lastWord(name)])].map((f) => `"${f}"`);
    const named =
      fields.length === 1 ? (fields[0] as string) : `${fields.slice(0, -1).join(', ')} or ${fields.at(-1) as string}`;
    const why = !res
      ? 'it could not be read'
      : res.status < 200 || res.status > 299
        ? `it answered ${res.status}`
        : first === undefined
          ? 'it has no items'
          : `its first item has no ${named} field with a string or number`;
    return {
      unresolved: `no value for {${name}}: ${why} (${endpointLabel(parentPath)}); give one with --parameter ${name}=VALUE`,
    };
  }
  return String(id);
}

/**
 * The header fields an endpoint's (or a write operation's) every request carries: its required
 * header parameters as the document fills them (issue 37 item 4); resolvePath (probePath, for a
 * write) has made sure each has a value.
 */
export function endpointHeaders(spec: Pick<EndpointSpec, 'headers'> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { name, value } of spec?.headers ?? []) if (value !== undefined) out[name] = value;
  return out;
}

/** A query string as given (by the document's serializedValue, or --parameter): its characters a URL's query may not hold percent-encoded (RFC 3986 §3.4), the rest as they are. */
function asQueryString(value: string): string {
  return value.replace(/^\?/, '').replace(/%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~!$&'()*+,;=:@/?%]/gu, (c) => {
    try {
      return encodeURIComponent(c);
    } catch {
      // A lone surrogate: no character to encode.
      return '%EF%BF%BD';
    }
  });
}

/** The last word of a parameter's name, lower case: `AccountSid` → `sid`, `booking_id` → `id`. */
function lastWord(name: string): string {
  return wordsOf(name).at(-1) ?? name.toLowerCase();
}

/**
 * The id a list item offers for path parameter `name`: its field of that name, else of that name
 * in another case, else its `id`, else its field named like the name's last word (Twilio's
 * `{Sid}` and `{AccountSid}` are an item's `sid`).
 */
function idFor(item: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(item, name)) return item[name];
  const keys = Object.keys(item);
  const sameName = keys.find((k) => k.toLowerCase() === name.toLowerCase());
  if (sameName !== undefined) return item[sameName];
  if (Object.hasOwn(item, 'id')) return item.id;
  const word = keys.find((k) => k.toLowerCase() === lastWord(name));
  return word === undefined ? undefined : item[word];
}

/** The document's GET paths by their number of segments, for otherOperation: made once per list of endpoints. */
const pathIndex = new WeakMap<readonly EndpointSpec[], Map<number, { path: string; segments: string[] }[]>>();

/**
 * Another of the document's operations whose path template the filled path `concrete` matches
 * too: one with a literal segment where this one has a parameter (HDInsight's
 * `extensions/clustermonitoring` beside `extensions/{extensionName}`), which a server routes it to
 * (`literal`); or one as specific as this (Xero's `Contacts/{ContactNumber}` beside
 * `Contacts/{ContactID}`), which it may.
 */
function otherOperation(
  endpoints: readonly EndpointSpec[],
  own: string,
  concrete: string,
): { path: string; literal: boolean } | undefined {
  let index = pathIndex.get(endpoints);
  if (!index) {
    index = new Map();
    for (const e of endpoints) {
      const segments = wirePath(e.path).split('?')[0]?.split('/') ?? [];
      const list = index.get(segments.length) ?? [];
      list.push({ path: e.path, segments });
      index.set(segments.length, list);
    }
    pathIndex.set(endpoints, index);
  }
  const ownSegments = wirePath(own).split('?')[0]?.split('/') ?? [];
  const wire = concrete.split('/').map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  });
  let found: { path: string; literal: boolean } | undefined;
  for (const other of index.get(wire.length) ?? []) {
    if (other.path === own || wirePath(other.path) === wirePath(own)) continue;
    let literal = false;
    let matches = true;
    for (let i = 0; i < wire.length && matches; i += 1) {
      const theirs = other.segments[i] ?? '';
      if (theirs.includes('{')) {
        matches = segmentPattern(theirs).test(wire[i] ?? '');
      } else {
        matches = theirs === wire[i];
        if (matches && (ownSegments[i] ?? '').includes('{')) literal = true;
      }
    }
    if (!matches) continue;
    if (literal) return { path: other.path, literal };
    found ??= { path: other.path, literal };
  }
  return found;
}

/** A template segment (`{id}`, `thumbnail.{ext}`) as a pattern of the segments it matches. */
function segmentPattern(segment: string): RegExp {
  const literal = (t: string): string => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(
    `^${segment
      .split(/\{[^}]*\}/)
      .map(literal)
      .join('[^/]+')}$`,
  );
}

/**
 * Path values from a list above that hold `/` (Docker's plugin `tiborvass/sample-volume-plugin`),
 * by endpoint path: sent as %2F, which many servers and gateways refuse or route apart (Apache's
 * AllowEncodedSlashes Off answers 404; RFC 3986 §2.2 leaves it to the server).
 */
const slashValues = new Map<string, string[]>();

/** Endpoint paths whose filled path another operation of the document matches as well (otherOperation), by endpoint path. */
const alsoMatches = new Map<string, string>();

/** The query values the harness made up, by endpoint path (resolvePath): the document gave none. */
const inventedValues = new Map<string, string[]>();

/** A path value the document gave: its example, one of its enum values, or its default. */
interface DocumentValue {
  name: string;
  value: string;
  from: 'example' | 'enum' | 'default';
}

/** The path values taken from the document, by endpoint path (resolvePath). */
const documentValues = new Map<string, DocumentValue[]>();

/**
 * Why a 4xx answer to an endpoint's valid request is not evidence against the target, or
 * undefined when it is: the request carried query values the harness made up from the schema's
 * type (the document gives no example, default or enum), and a server may rightly refuse them
 * (an unknown station, a date out of range). Checks that judge the valid answer skip the endpoint
 * with this reason instead of failing it (issue 29: a 4xx to a request the harness could not make
 * valid is never the target's failure).
 */
export function notValidByDocument(endpoint: Endpoint, res: HttpResponse): string | undefined {
  // A path value the document gave names a resource of the author's, not one this deployment is
  // known to hold: an example proves nothing (a 404 or another refusal there is no evidence); an
  // enum value or a default is a value the server takes, yet the resource it names may be absent
  // (Apicurio's rules/{rule}: 404 for a rule not configured).
  const unproven = (endpoint.spec ? documentValues.get(endpoint.spec.path) : undefined)?.filter((v) =>
    v.from === 'example'
      ? res.status >= 400 && res.status <= 499 && res.status !== 401 && res.status !== 403
      : res.status === 404,
  );
  if (unproven && unproven.length > 0) {
    const what = unproven.map(
      (v) =>
        `{${v.name}}=${v.value} (${v.from === 'example' ? "the document's example" : v.from === 'enum' ? "a value of the document's enum" : "the document's default"})`,
    );
    return `it answered ${res.status} to a path whose ${what.join(', ')} no list above it gave, and which need not exist in this deployment: not judged; give a real one with ${unproven.map((v) => `--parameter ${v.name}=VALUE`).join(' ')}`;
  }
  const slashes = endpoint.spec ? slashValues.get(endpoint.spec.path) : undefined;
  if (slashes && (res.status === 400 || res.status === 404)) {
    return `it answered ${res.status} to a path whose ${slashes.join(', ')} (from the list above) holds a "/", sent as %2F, which many servers and gateways refuse (Apache's AllowEncodedSlashes): not judged; give another with --parameter`;
  }
  const other = endpoint.spec ? alsoMatches.get(endpoint.spec.path) : undefined;
  if (other !== undefined && res.status >= 400 && res.status <= 499 && res.status !== 401 && res.status !== 403) {
    return `it answered ${res.status} to a path that the document's ${endpointLabel(other)} matches as well, which a server may answer instead (the document declares both): not judged; give a value only this path takes with --parameter`;
  }
  const invented = endpoint.spec ? inventedValues.get(endpoint.spec.path) : undefined;
  if (!invented || res.status < 400 || res.status > 499 || res.status === 401 || res.status === 403) return undefined;
  const give = invented.map((v) =>
    v.startsWith('header ')
      ? `--header '${v.slice(7, v.indexOf(':'))}: VALUE'`
      : `--parameter ${v.slice(0, v.indexOf('='))}=VALUE`,
  );
  return `it answered ${res.status} to a request whose ${invented.length === 1 ? 'value' : 'values'} ${invented.join(', ')} the harness made up (the document gives no example, default or enum): not judged; give real ${give.length === 1 ? 'one' : 'ones'} with ${give.join(' ')}`;
}

/** Every tenant endpoint under test (lists and single resources). */
export function tenantEndpoints(c: CheckContext): Endpoint[] {
  return c.settings.endpoints.map(tenantEndpoint);
}

/** The tenant endpoints that are lists. */
export function listEndpoints(c: CheckContext): Endpoint[] {
  return c.settings.endpoints.filter((e) => e.kind === 'list').map(tenantEndpoint);
}

/** /users/me, its legacy path and every tenant endpoint. */
export function resourceEndpoints(c: CheckContext): Endpoint[] {
  return [USER_ENDPOINT, LEGACY_USER_ENDPOINT, ...tenantEndpoints(c)];
}

/** The token endpoint and its legacy path. */
export function tokenEndpoints(): Endpoint[] {
  return [TOKEN_ENDPOINT, LEGACY_TOKEN_ENDPOINT];
}

/** Every endpoint of the API that this run knows of. */
export function allEndpoints(c: CheckContext): Endpoint[] {
  return [...tokenEndpoints(), ...resourceEndpoints(c)];
}

/** Requests several checks judge: each sent once per worker, recorded apart, cited by each. */
type SharedAnswers = Map<string, { answer: Promise<HttpResponse>; recorder: Recorder }>;

/** The answer under `key` in `cache`, sent now (into a recorder of its own) if it is the first ask. */
function sharedAnswer(
  cache: SharedAnswers,
  c: CheckContext,
  key: string,
  send: (recorder: Recorder) => Promise<HttpResponse>,
): Promise<HttpResponse> {
  let shared = cache.get(key);
  if (!shared) {
    const recorder = new Recorder(false);
    // The check that sends it accounts for the token renewals it needed.
    const answer = send(recorder).finally(() => (c.sharedTokenRequests += recorder.tokenRequests));
    answer.catch(() => undefined);
    cache.set(key, (shared = { answer, recorder }));
  }
  c.uses(shared.recorder);
  return shared.answer;
}

const validAnswers: SharedAnswers = new Map();

/**
 * The runner's preflight made the valid requests of the token endpoint and of /users/me already
 * (to obtain the shared token and find the tenant): their answers serve the checks, which need
 * not ask again. /users/me's is taken only if it is not a 401: a 401 to a shared-token request is
 * asked again with a fresh token before it is judged (HttpClient.send).
 */
function preflightAnswer(c: CheckContext, endpoint: Endpoint, recorder: Recorder): HttpResponse | undefined {
  const answers = c.settings.preflight;
  const answer =
    endpoint === TOKEN_ENDPOINT
      ? answers?.token
      : endpoint === USER_ENDPOINT && answers?.user?.status !== 401
        ? answers?.user
        : undefined;
  return answer ? responseOf(answer, recorder) : undefined;
}

/** A preflight answer as the checks' HttpResponse, recorded in `recorder` (and its logged exchange named by the check). */
function responseOf(answer: PassedResponse, recorder: Recorder): HttpResponse {
  if (answer.logId !== undefined) recorder.ids.push(answer.logId);
  return new HttpResponse(
    answer.url,
    answer.status,
    answer.headers,
    answer.text,
    -1,
    recorder,
    answer.receivedAt,
    Evidence.of(answer.record, answer.logId),
  );
}

/** Sends through the worker's HTTP client into `recorder`; `high`: others wait for the answer. */
function sender(recorder: Recorder, priority: 'high' | 'normal' = 'normal'): Send {
  return (req) => getBattery().http.send({ ...req, priority }, recorder);
}

/**
 * The endpoint's answer to a fully valid request (the documented Accept-Version, a valid token
 * or the configured client credentials), sent once per worker and recorded apart; checks cite it.
 * For a list, it is the request without page and size.
 */
export function validAnswer(c: CheckContext, endpoint: Endpoint): Promise<HttpResponse> {
  return sharedAnswer(validAnswers, c, endpoint.label, (recorder) => {
    const known = preflightAnswer(c, endpoint, recorder);
    return known ? Promise.resolve(known) : endpoint.sendValid(c, sender(recorder, 'high'), 'a valid request');
  });
}

/**
 * A token endpoint's answer to the valid request with the client credentials in the form body
 * (client_secret_post, RFC 6749 §2.3.1), for a run that goes with it (--client-auth post, or
 * HTTP Basic refused and client_secret_post accepted in the preflight): the preflight's answer,
 * or sent once per worker.
 */
export function postAnswer(c: CheckContext, endpoint: Endpoint = TOKEN_ENDPOINT): Promise<HttpResponse> {
  return sharedAnswer(validAnswers, c, `${endpoint.label} with client_secret_post`, async (recorder) => {
    const known = endpoint === TOKEN_ENDPOINT ? c.settings.preflight?.tokenPost : undefined;
    if (known) return responseOf(known, recorder);
    const path = await endpoint.path(c);
    if (typeof path !== 'string') throw new UnresolvedEndpoint(`${endpoint.label}: ${path.unresolved}`);
    return requestToken(sender(recorder, 'high'), c.target, {
      path,
      credentials: c.credentials,
      clientAuth: 'post',
      purpose: `${endpoint.label}: a valid request with the client credentials in the form body (client_secret_post)`,
    });
  });
}

/**
 * Whether checks that do not test client authentication send their requests to this token
 * endpoint with client_secret_post: the run goes with it (Target.clientAuth) and the valid HTTP
 * Basic request got no token there. TOKEN-ISSUE reports that, once, for both paths; the checks
 * of everything else (the token response, grant_type, Accept-Version, the token's use, the
 * legacy path) are judged on the request that works, and the checks that vary the Basic request
 * err, pointing at TOKEN-ISSUE (requireWorking with `basic`).
 */
export async function basicRefusedAt(c: CheckContext, endpoint: Endpoint): Promise<boolean> {
  if (endpoint.kind !== 'token' || c.target.clientAuth !== 'post') return false;
  return (await validAnswer(c, endpoint)).status !== 200;
}

/**
 * The endpoint's answer to the valid request that a check building on it varies something else
 * of: validAnswer, but at a token endpoint that refused HTTP Basic (basicRefusedAt) the
 * client_secret_post answer.
 */
export async function workingAnswer(c: CheckContext, endpoint: Endpoint): Promise<HttpResponse> {
  return (await basicRefusedAt(c, endpoint)) ? postAnswer(c, endpoint) : validAnswer(c, endpoint);
}

const sharedProbes: SharedAnswers = new Map();

/**
 * A probe that several checks judge (AUTH-MISSING and AUTH-MISSING-NO-ERROR send the same
 * request without credentials, each judging another rule of the answer): sent once per worker,
 * recorded apart, and cited by each; `key` names the request exactly.
 */
export function sharedProbe(
  c: CheckContext,
  key: string,
  send: (send: Send) => Promise<HttpResponse>,
): Promise<HttpResponse> {
  return sharedAnswer(sharedProbes, c, key, (recorder) => send(sender(recorder)));
}

/** A token endpoint succeeds with 200 (a token); a resource endpoint with any 2xx. */
export function succeeded(endpoint: Endpoint, res: HttpResponse): boolean {
  return endpoint.kind === 'token' ? res.status === 200 : res.status >= 200 && res.status < 300;
}

/**
 * Which valid request a probe varies: `working`, the one that gets a token or data (workingAnswer);
 * `basic`, at a token endpoint, the HTTP Basic one whatever the run goes with, for the checks
 * that test client authentication itself.
 */
export type ProbeBase = 'working' | 'basic';

/**
 * The precondition of every probe on an endpoint: its path can be filled and its valid request
 * succeeds. Otherwise the endpoint is skipped (no path) or errs, pointing at the check judging it.
 */
export async function requireWorking(
  c: CheckContext,
  endpoint: Endpoint,
  base: ProbeBase = 'working',
): Promise<boolean> {
  const path = await endpoint.path(c);
  if (typeof path !== 'string') {
    c.at(endpoint.label).skipEndpoint(path.unresolved);
    return false;
  }
  const res = await (base === 'basic' ? validAnswer(c, endpoint) : workingAnswer(c, endpoint));
  if (succeeded(endpoint, res)) return true;
  const unproven = notValidByDocument(endpoint, res);
  if (unproven !== undefined) {
    c.at(endpoint.label).skipEndpoint(unproven);
    return false;
  }
  if (base === 'basic' && (await basicRefusedAt(c, endpoint))) {
    // One cause for both token paths, reported by TOKEN-ISSUE; LEGACY-TOKEN judges the legacy path on client_secret_post.
    c.at(endpoint.label).error(
      `cannot judge ${endpoint.label}: the valid request in HTTP Basic gets ${res.status} there, and the run goes on with client_secret_post (see TOKEN-ISSUE)`,
      res,
    );
    return false;
  }
  c.at(endpoint.label).error(
    `cannot judge ${endpoint.label}: even a valid request gets ${res.status} there (see ${endpoint.judgedBy})`,
    res,
  );
  return false;
}

/**
 * A probe that is evidence only if the endpoint works (`requireWorking`), sent at once, beside
 * the valid request instead of after it: one round trip instead of two. Its answer is returned
 * only when the endpoint works; otherwise it is dropped unjudged (and its failure, if it failed).
 */
export async function probeWhenWorking<T>(
  c: CheckContext,
  endpoint: Endpoint,
  probe: () => Promise<T>,
  base: ProbeBase = 'working',
): Promise<T | undefined> {
  const path = await endpoint.path(c);
  const sent = typeof path === 'string' ? probe() : undefined;
  sent?.catch(() => undefined);
  if (!(await requireWorking(c, endpoint, base))) return undefined;
  return sent;
}

/**
 * Applies the check to every endpoint, each judged through its own context (`CheckContext.at`),
 * all at once up to ENDPOINT_CONCURRENCY: the HTTP client's politeness bound decides what goes
 * on the wire, so a check over 200 endpoints costs round trips by the bound, not by the 200.
 */
export async function onEach(
  c: CheckContext,
  endpoints: readonly Endpoint[],
  judge: (e: CheckContext, endpoint: Endpoint) => Promise<void>,
): Promise<void> {
  // What escapes one endpoint's judgement is that endpoint's error ("not judged: …"), never a
  // pass, and the others are judged all the same (CheckContext.judgeEndpoint).
  await mapBounded(endpoints, ENDPOINT_CONCURRENCY, (endpoint) => {
    const e = c.at(endpoint.label);
    return e.judgeEndpoint(() => judge(e, endpoint));
  });
}

/** Endpoints a check judges at the same time (bounds the judgements waiting for a slot, not the wire). */
const ENDPOINT_CONCURRENCY = 64;

/**
 * Notes, once per check, that tenant endpoints were left out and why, so that a run without any
 * does not look as if it had covered them.
 */
export function noteMissingTenantEndpoints(c: CheckContext): void {
  const { endpoints, tenantId, tenantProblem } = c.settings;
  if (endpoints.length === 0)
    c.note('no tenant endpoints were checked: none configured (--openapi, --paged-path or --endpoint)');
  else if (tenantId === undefined)
    c.error(`the tenant endpoints could not be checked: ${tenantProblem ?? 'no tenant under test'}`);
}
