import { itemsOf, successCode } from '../openapi/endpoint-model.js';
import { operationsOf as pathOperations } from '../openapi/oas32.js';
import { isObject, pointerOf, resolve, type Json } from '../openapi/pointer.js';
import type { LintRuleId } from '../catalogue/lint-rules.js';
import {
  LEGACY_TOKEN_PATH,
  LEGACY_USER_PATH,
  PAGING_HEADER_NAMES,
  TOKEN_PATH,
  USER_PATH,
} from '../core/carrier-spec.js';
import { coveringFor, satisfiabilityFindings } from './satisfiable.js';

/**
 * The platform's conventions, checked in an OpenAPI document before any deployment exists (issue
 * 33): 3.0, 3.1 or 3.2, or Swagger 2.0 in its 3.0 form (src/openapi/versions.ts). Each rule names
 * the spec sentence it comes from; its level is that sentence's, as the run's checks cite theirs
 * (src/catalogue/checks.ts).
 *
 * The rules read the bundled document (load.ts's bundle: external `$ref`s inlined, internal ones
 * kept) and say where a problem is as a JSON Pointer into it; locate.ts turns that into the file,
 * line and pointer of the source. The same code is the Spectral ruleset's function
 * (spectral-function.ts, bundled at build time into spectral-functions/carrierConventions.js).
 */

export { LINT_RULES, type LintRule, type LintRuleId } from '../catalogue/lint-rules.js';

/** One problem: the rule, where it is in the bundled document, and what is wrong there. */
export interface RawFinding {
  rule: LintRuleId;
  pointer: string;
  message: string;
}

export { TOKEN_PATH };

/** How a `$ref` met in the document is followed: `resolve`'s signature (src/openapi/pointer.ts). */
export type Resolver = typeof resolve;
/**
 * The resolver of each document being linted, when it is not `resolve` (lint's bundle has only
 * internal `$ref`s): Spectral's resolved document can still hold a `$ref` written in another file
 * (spectral-function.ts). Set for the time of one lintDocument call.
 */
const resolvers = new WeakMap<Json, Resolver>();
const resolveIn: Resolver = (document, value, at) => (resolvers.get(document as Json) ?? resolve)(document, value, at);
const AUTH_PATHS = new Set([TOKEN_PATH, LEGACY_TOKEN_PATH, USER_PATH, LEGACY_USER_PATH]);
const TENANT_PREFIX = '/tenants/{tenantId}/';
/**
 * A tenant path as the run reads it (src/openapi/endpoint-model.ts TENANT_PATH): `/tenants/{…}/`
 * whatever the template expression is called. The name is not on the wire (OAS 3.1, Path Templating: a
 * template expression is replaced by the path parameter's value), so `/tenants/{tenant_id}/…`, Python's
 * default spelling, is the spec's `/tenants/{tenantId}/…` (spec §Tenant-scoped endpoints).
 */
const TENANT_PATH = /^\/tenants\/\{([^}/]+)\}\//;
/** The name a tenant path gives its tenant parameter, or undefined for a path outside a tenant. */
const tenantParameterOf = (template: string): string | undefined => TENANT_PATH.exec(template)?.[1];
/** The spec's five paging headers (spec §Pagination). */
export const PAGING_HEADERS: readonly string[] = [...PAGING_HEADER_NAMES, 'Link'];

const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? (v as unknown[]) : []);

/** A path template as the spec writes paths: a trailing slash and the server's base path aside. */
function isTokenPath(template: string): boolean {
  return template === TOKEN_PATH || template === LEGACY_TOKEN_PATH;
}

interface Operation {
  template: string;
  method: string;
  pointer: string;
  value: Json;
  /** Path-level then operation-level parameters, resolved; an operation's own win by name and place (OAS §4.8.9.1). */
  parameters: { value: Json; pointer: string }[];
}

function operationsOf(document: Json): Operation[] {
  const paths = isObject(document.paths) ? document.paths : {};
  const operations: Operation[] = [];
  for (const [template, raw] of Object.entries(paths)) {
    const item = resolveIn(document, raw, `#/paths/${pointerOf(template)}`);
    if (!isObject(item.value)) continue;
    const pathItem = item.value;
    // Every operation, OpenAPI 3.2's `query` and `additionalOperations` (`LINK`…) included.
    for (const { method, at: place, value: operation } of pathOperations(pathItem)) {
      const pointer = `${item.pointer}${place.map((t) => `/${pointerOf(t)}`).join('')}`;
      const byKey = new Map<string, { value: Json; pointer: string }>();
      const add = (list: unknown, at: string): void =>
        listOf(list).forEach((p, i) => {
          const found = resolveIn(document, p, `${at}/${i}`);
          if (isObject(found.value))
            byKey.set(`${String(found.value.in)}:${String(found.value.name).toLowerCase()}`, {
              value: found.value,
              pointer: found.pointer,
            });
        });
      add(pathItem.parameters, `${item.pointer}/parameters`);
      add(operation.parameters, `${pointer}/parameters`);
      operations.push({ template, method, pointer, value: operation, parameters: [...byKey.values()] });
    }
  }
  return operations;
}

/** The success response the run judges (successCode), resolved, with where it lives. */
function successResponse(document: Json, operation: Operation): { value: Json; pointer: string } | undefined {
  const responses = isObject(operation.value.responses) ? operation.value.responses : {};
  const code = successCode(responses);
  if (code === undefined) return undefined;
  const found = resolveIn(document, responses[code], `${operation.pointer}/responses/${pointerOf(code)}`);
  return isObject(found.value) ? { value: found.value, pointer: found.pointer } : undefined;
}

function isJsonMediaType(type: string): boolean {
  const essence = type.split(';')[0]?.trim().toLowerCase() ?? '';
  return essence === 'application/json' || /^[a-z]+\/[^\s/]+\+json$/.test(essence);
}

/** The JSON body schemas of a response, resolved, with where each lives. */
function bodySchemas(document: Json, response: { value: Json; pointer: string }): { value: Json; pointer: string }[] {
  const content = isObject(response.value.content) ? response.value.content : {};
  const schemas: { value: Json; pointer: string }[] = [];
  for (const [type, media] of Object.entries(content)) {
    if (!isJsonMediaType(type) || !isObject(media) || !('schema' in media)) continue;
    const found = resolveIn(document, media.schema, `${response.pointer}/content/${pointerOf(type)}/schema`);
    if (isObject(found.value)) schemas.push({ value: found.value, pointer: found.pointer });
  }
  return schemas;
}

const typesOf = (schema: Json): string[] =>
  typeof schema.type === 'string'
    ? [schema.type]
    : listOf(schema.type).filter((t): t is string => typeof t === 'string');

/**
 * An operation returns multiple elements when its success body is a JSON array (spec §Pagination:
 * "search endpoints and others returning multiple elements") or a wrapper around one, as the run
 * reads lists (src/openapi/endpoint-model.ts itemsOf: `{data: [...]}`, `{accounts: [...],
 * next_page_uri}`), or when it already declares a part of paging (a `page` or `size` query
 * parameter, a paging header): the rest is then due too. Any other object holding an array is
 * not taken for a list: a User has its tenants.
 */
function returnsMany(
  document: Json,
  operation: Operation,
  response: { value: Json; pointer: string } | undefined,
): boolean {
  if (operation.method !== 'get') return false;
  if (operation.parameters.some((p) => p.value.in === 'query' && (p.value.name === 'page' || p.value.name === 'size')))
    return true;
  const headers =
    response && isObject(response.value.headers) ? Object.keys(response.value.headers).map((h) => h.toLowerCase()) : [];
  if (PAGING_HEADERS.slice(0, 4).some((h) => headers.includes(h.toLowerCase()))) return true;
  if (!response) return false;
  // What the run takes for a list (src/openapi/endpoint-model.ts): an array body, or a wrapper around one.
  const query = operation.parameters.filter((p) => p.value.in === 'query').map((p) => String(p.value.name));
  return bodySchemas(document, { value: response.value, pointer: response.pointer }).some(
    (s) => itemsOf(document, { pointer: s.pointer }, operation.template, query) !== undefined,
  );
}

/** Whether a schema admits null: 3.1 `type: [T, "null"]`, `const`/`enum` with null, an `anyOf`/`oneOf` arm that does; 3.0 `nullable: true`; no type at all. */
export function allowsNull(document: Json, schema: unknown, seen = new Set<unknown>()): boolean {
  const value = resolveIn(document, schema, '').value;
  if (value === true) return true;
  if (!isObject(value) || seen.has(value)) return false;
  seen.add(value);
  if (value.nullable === true) return true;
  if ('const' in value) return value.const === null;
  if (Array.isArray(value.enum)) return value.enum.includes(null);
  const types = typesOf(value);
  if (types.includes('null')) return true;
  const arms = [...listOf(value.anyOf), ...listOf(value.oneOf)];
  if (arms.length > 0) return arms.some((arm) => allowsNull(document, arm, seen));
  const all = listOf(value.allOf);
  if (all.length > 0) return all.every((arm) => allowsNull(document, arm, seen)) && types.length === 0;
  return types.length === 0 && !('properties' in value) && !('items' in value);
}

/**
 * The response schemas' properties: every optional one must allow null (OAS-NULLABLE), every one
 * that allows null should be required (OAS-NULL-REQUIRED). A property is required when the schema
 * or one of its `allOf` arms lists it. Each schema is visited once, wherever it is used. A finding
 * points at the property; one whose schema is written as a `$ref` is located at its `properties`
 * object (locate.ts's trace), where the Spectral ruleset can report it too.
 */
function checkNulls(
  document: Json,
  root: { value: Json; pointer: string },
  visited: Set<unknown>,
  schemaKey: SchemaKey,
  findings: FindingCollector,
): void {
  const deref = (v: unknown): unknown => resolveIn(document, v, '').value;
  const covering = coveringFor(deref);
  const visit = (schema: unknown, at: string, inherited: ReadonlySet<string>): void => {
    const found = resolveIn(document, schema, at);
    if (!isObject(found.value)) return;
    const key = schemaKey(found.value, found.pointer);
    if (visited.has(key)) return;
    visited.add(key);
    const value = found.value;
    // OAS-ENUM-TYPE, OAS-ONEOF-DISTINCT and OAS-CLOSED-SCHEMA: on every schema visited, once.
    for (const f of satisfiabilityFindings(value, deref, covering))
      findings.add({ rule: f.rule, pointer: `${found.pointer}/${f.keyword}`, message: f.message });
    const required = new Set([
      ...inherited,
      ...listOf(value.required).filter((r): r is string => typeof r === 'string'),
    ]);
    listOf(value.allOf).forEach((arm) => {
      const armValue = resolveIn(document, arm, '').value;
      if (isObject(armValue)) for (const r of listOf(armValue.required)) if (typeof r === 'string') required.add(r);
    });
    const properties = isObject(value.properties) ? value.properties : {};
    for (const [name, property] of Object.entries(properties)) {
      const pointer = `${found.pointer}/properties/${pointerOf(name)}`;
      // A writeOnly property is sent by clients, never served (OAS 3.1 §4.8.24.1, JSON Schema validation §9.4): the rule for what a response carries does not reach it.
      const own = resolveIn(document, property, pointer).value;
      if (isObject(own) && own.writeOnly === true) continue;
      const nullable = allowsNull(document, property);
      if (!required.has(name) && !nullable) {
        findings.add({
          rule: 'OAS-NULLABLE',
          pointer,
          message: `property "${name}" is optional (not in required) but does not allow null: without data it is sent as null`,
        });
      } else if (!required.has(name) && nullable) {
        findings.add({
          rule: 'OAS-NULL-REQUIRED',
          pointer,
          message: `property "${name}" allows null but is not in required: it is never omitted`,
        });
      }
      visit(property, pointer, new Set());
    }
    listOf(value.allOf).forEach((arm, i) => visit(arm, `${found.pointer}/allOf/${i}`, required));
    for (const key of ['anyOf', 'oneOf', 'prefixItems'] as const)
      listOf(value[key]).forEach((arm, i) => visit(arm, `${found.pointer}/${key}/${i}`, new Set()));
    if ('items' in value) visit(value.items, `${found.pointer}/items`, new Set());
    if (isObject(value.additionalProperties))
      visit(value.additionalProperties, `${found.pointer}/additionalProperties`, new Set());
  };
  visit(root.value, root.pointer, new Set());
}

/** Where a security requirement's schemes send a bearer token: HTTP bearer, OAuth 2.0 or OpenID Connect (RFC 6750). */
function isBearerScheme(scheme: unknown): boolean {
  if (!isObject(scheme)) return false;
  if (scheme.type === 'http') return typeof scheme.scheme === 'string' && scheme.scheme.toLowerCase() === 'bearer';
  return scheme.type === 'oauth2' || scheme.type === 'openIdConnect';
}

/** The path of a token URL, absolute or relative to the server (OAS §4.8.29: a URL). */
function urlPath(url: string): string {
  try {
    return new URL(url, 'http://relative.invalid').pathname;
  } catch {
    return url;
  }
}

/** Where the rules put their findings, as they find them (src/lint/caps.ts keeps a bounded number). */
export interface FindingCollector {
  add(finding: RawFinding): void;
}

/** What an operation rule sees of one operation, computed once for all of them. */
interface OperationView {
  document: Json;
  operations: readonly Operation[];
  op: Operation;
  /** "GET /tenants/{tenantId}/shipments": how messages name the operation. */
  label: string;
  /** The token endpoint (or its legacy path): its bodies are RFC 6749's. */
  token: boolean;
  responses: Json;
  schemeOf: (name: string) => unknown;
  /** The operation's success response, and whether it returns a list (spec §Pagination). */
  success: { value: Json; pointer: string } | undefined;
  many: boolean;
}

/** A rule that judges one operation: `add` records a finding of that rule (its id is the key it is filed under). */
type OperationRule = (view: OperationView, add: (pointer: string, message: string) => void) => void;

/**
 * The rules judged on every operation, keyed by id (catalogue/lint-rules.ts), in the order their
 * findings are listed. The schema rules (OAS-NULLABLE and the others checkNulls finds) share one
 * walk of each body's schemas, and OAS-TOKEN-ENDPOINT is the document's (lintDocument).
 */
const OPERATION_RULES: Partial<Record<LintRuleId, OperationRule>> = {
  // spec §Versioning 1: every endpoint, the token one too.
  'OAS-VERSION-HEADER': ({ op, label }, add) => {
    const version = op.parameters.find(
      (p) =>
        p.value.in === 'header' && typeof p.value.name === 'string' && p.value.name.toLowerCase() === 'accept-version',
    );
    if (!version) add(op.pointer, `${label} does not declare the Accept-Version header parameter`);
    else if (version.value.required !== true)
      add(version.pointer, `${label}: the Accept-Version header is not required: true`);
  },
  // spec §Versioning 2.
  'OAS-VERSION-400': ({ op, label, responses }, add) => {
    if ('400' in responses || Object.keys(responses).some((k) => k.toUpperCase() === '4XX')) return;
    add(
      isObject(op.value.responses) ? `${op.pointer}/responses` : op.pointer,
      `${label} does not document 400, the answer to a missing or invalid Accept-Version`,
    );
  },
  // spec §Authentication 4: the operation's security, else the document's.
  'OAS-BEARER': ({ document, op, label, token, schemeOf }, add) => {
    if (token) return;
    const own = Array.isArray(op.value.security);
    const security = listOf(own ? op.value.security : document.security);
    const where = own ? `${op.pointer}/security` : Array.isArray(document.security) ? '#/security' : op.pointer;
    if (security.length === 0)
      return add(where, `${label} requires no authentication${own ? '' : ' (no security here nor at the top level)'}`);
    const alternatives = security.map((r) => (isObject(r) ? Object.keys(r) : []));
    const without = alternatives.findIndex((names) => !names.some((n) => isBearerScheme(schemeOf(n))));
    if (without === -1) return;
    const names = alternatives[without] ?? [];
    add(
      `${where}/${without}`,
      `${label} can be called ${names.length === 0 ? 'without authentication' : `with ${names.join(' + ')}`}, not a bearer token`,
    );
  },
  // spec §Authentication 5, once per path.
  'OAS-TENANT-PATH': ({ op, operations }, add) => {
    if (
      AUTH_PATHS.has(op.template) ||
      tenantParameterOf(op.template) !== undefined ||
      op !== operations.find((o) => o.template === op.template)
    )
      return;
    add(
      `#/paths/${pointerOf(op.template)}`,
      `path ${op.template} is not under ${TENANT_PREFIX} (only the authentication endpoints are outside a tenant)`,
    );
  },
  // spec §Tenant identifier: the parameter the tenant segment names.
  'OAS-TENANT-UUID': ({ document, op, label }, add) => {
    const tenantName = tenantParameterOf(op.template);
    if (tenantName === undefined) return;
    const tenant = op.parameters.find((p) => p.value.in === 'path' && p.value.name === tenantName);
    if (!tenant) return add(op.pointer, `${label} does not declare the ${tenantName} path parameter`);
    const schema = resolveIn(document, tenant.value.schema, `${tenant.pointer}/schema`);
    if (!isObject(schema.value) || !typesOf(schema.value).includes('string') || schema.value.format !== 'uuid')
      add(
        isObject(schema.value) ? schema.pointer : tenant.pointer,
        `${label}: ${tenantName} is not declared a string of format uuid`,
      );
  },
  // spec §Pagination.
  'OAS-PAGE-PARAMS': ({ document, op, label, many }, add) => {
    if (!many) return;
    const missing = ['page', 'size'].filter((name) => {
      const p = op.parameters.find((q) => q.value.in === 'query' && q.value.name === name);
      const schema = p && resolveIn(document, p.value.schema, '').value;
      return !isObject(schema) || !typesOf(schema).includes('integer');
    });
    if (missing.length > 0)
      add(
        op.pointer,
        `${label} returns a list but does not declare ${missing.map((m) => `"${m}"`).join(' and ')} as integer query parameter${missing.length > 1 ? 's' : ''}`,
      );
  },
  // spec §Pagination.
  'OAS-PAGE-HEADERS': ({ op, label, success, many }, add) => {
    if (!many) return;
    const declared =
      success && isObject(success.value.headers) ? Object.keys(success.value.headers).map((h) => h.toLowerCase()) : [];
    const absent = PAGING_HEADERS.filter((h) => !declared.includes(h.toLowerCase()));
    if (absent.length > 0)
      add(
        success?.pointer ?? op.pointer,
        `${label} returns a list but its success response does not declare ${absent.join(', ')}`,
      );
  },
};

/** What makes two visits of a schema one: its pointer in lint's bundle; the schema object itself in Spectral's resolved document, which inlines a shared schema at each use (spectral-function.ts). */
export type SchemaKey = (schema: Json, pointer: string) => unknown;

/**
 * Every rule, on a bundled OpenAPI 3.0 or 3.1 document: its findings, in the order found, or,
 * given a collector, into it (and none returned).
 */
export function lintDocument(
  document: Json,
  collector?: FindingCollector,
  options: { schemaKey?: SchemaKey; resolve?: Resolver } = {},
): RawFinding[] {
  if (options.resolve) resolvers.set(document, options.resolve);
  try {
    const found = lintWith(document, options.schemaKey ?? ((_, pointer) => pointer), collector);
    return collector ? found : oneFindingPerMistake(found);
  } finally {
    resolvers.delete(document);
  }
}

/** A finding about one operation at a place others share: "GET /users/me: the Accept-Version header is not required: true". */
const ABOUT_AN_OPERATION = /^([A-Z][A-Za-z]* \/[^\s:]*(?: \(legacy\))?): (.+)$/s;
/** How many operations a merged finding names before "and N more". */
const OPERATIONS_NAMED = 10;

/**
 * One mistake is one finding (issue 42 item 6): a shared parameter or schema written once (a
 * `components/parameters/AcceptVersion` with `required: false`) is found once per operation that
 * uses it, at the same place with the same words but the operation's name; those become one
 * finding where the mistake is written, naming the operations it affects. The lint command and
 * the Spectral function both list findings so (src/lint/command.ts lintRead; lintDocument above).
 */
export function oneFindingPerMistake(findings: readonly RawFinding[]): RawFinding[] {
  const out: RawFinding[] = [];
  const groups = new Map<string, { index: number; rest: string; labels: string[] }>();
  for (const f of findings) {
    const m = ABOUT_AN_OPERATION.exec(f.message);
    if (!m) {
      out.push(f);
      continue;
    }
    const [, label = '', rest = ''] = m;
    const key = `${f.rule}\u0000${f.pointer}\u0000${rest}`;
    const group = groups.get(key);
    if (group) {
      if (!group.labels.includes(label)) group.labels.push(label);
      continue;
    }
    groups.set(key, { index: out.length, rest, labels: [label] });
    out.push(f);
  }
  for (const { index, rest, labels } of groups.values()) {
    if (labels.length < 2) continue;
    const named = labels.slice(0, OPERATIONS_NAMED).join(', ');
    const more = labels.length > OPERATIONS_NAMED ? `, and ${labels.length - OPERATIONS_NAMED} more` : '';
    const f = out[index] as RawFinding;
    out[index] = { ...f, message: `${rest}, on ${labels.length} operations (${named}${more})` };
  }
  return out;
}

function lintWith(document: Json, schemaKey: SchemaKey, collector: FindingCollector | undefined): RawFinding[] {
  const all: RawFinding[] = [];
  const findings: FindingCollector = { add: (f) => (collector ? collector.add(f) : all.push(f)) };
  const operations = operationsOf(document);
  const schemes =
    isObject(document.components) && isObject(document.components.securitySchemes)
      ? document.components.securitySchemes
      : {};
  const schemeOf = (name: string): unknown =>
    resolveIn(document, schemes[name], `#/components/securitySchemes/${pointerOf(name)}`).value;
  const visitedSchemas = new Set<unknown>();

  for (const op of operations) {
    const success = successResponse(document, op);
    const responses = isObject(op.value.responses) ? op.value.responses : {};
    const view: OperationView = {
      document,
      operations,
      op,
      label: `${op.method.toUpperCase()} ${op.template}`,
      token: isTokenPath(op.template),
      responses,
      schemeOf,
      success,
      many: returnsMany(document, op, success),
    };
    for (const [rule, judge] of Object.entries(OPERATION_RULES) as [LintRuleId, OperationRule][])
      judge(view, (pointer, message) => findings.add({ rule, pointer, message }));
    // OAS-NULLABLE, OAS-NULL-REQUIRED and the other schema rules (spec §Generic rules for optional
    // fields), one walk of each body: the token endpoint's bodies are RFC 6749's (§5.1, §5.2), whose
    // optional members are omitted.
    if (!view.token) {
      for (const [code, raw] of Object.entries(responses)) {
        const response = resolveIn(document, raw, `${op.pointer}/responses/${pointerOf(code)}`);
        if (!isObject(response.value)) continue;
        for (const body of bodySchemas(document, { value: response.value, pointer: response.pointer }))
          checkNulls(document, body, visitedSchemas, schemaKey, findings);
      }
    }
  }
  tokenEndpointRule(document, operations, schemes, (pointer, message) =>
    findings.add({ rule: 'OAS-TOKEN-ENDPOINT', pointer, message }),
  );
  return all;
}

/**
 * OAS-TOKEN-ENDPOINT (spec §Obtain an access token), the document's rule: every client
 * credentials flow is at /uaa/oauth2/token, and the document says where tokens come from, as a
 * flow or the path.
 */
function tokenEndpointRule(
  document: Json,
  operations: readonly Operation[],
  schemes: Json,
  add: (pointer: string, message: string) => void,
): void {
  let described = operations.some((o) => o.template === TOKEN_PATH && o.method === 'post');
  let found = false;
  for (const [name, raw] of Object.entries(schemes)) {
    const scheme = resolveIn(document, raw, `#/components/securitySchemes/${pointerOf(name)}`);
    if (!isObject(scheme.value) || scheme.value.type !== 'oauth2' || !isObject(scheme.value.flows)) continue;
    const flow = scheme.value.flows.clientCredentials;
    if (!isObject(flow)) continue;
    const tokenUrl = typeof flow.tokenUrl === 'string' ? flow.tokenUrl : '';
    if (urlPath(tokenUrl).replace(/\/$/, '') === TOKEN_PATH) described = true;
    else {
      found = true;
      add(
        `${scheme.pointer}/flows/clientCredentials/tokenUrl`,
        `security scheme "${name}": the client credentials tokenUrl ${JSON.stringify(tokenUrl)} is not ${TOKEN_PATH}`,
      );
    }
  }
  if (!described && !found) {
    add(
      isObject(document.components) && isObject(document.components.securitySchemes)
        ? '#/components/securitySchemes'
        : '#',
      `the document does not say where tokens come from: neither POST ${TOKEN_PATH} nor an OAuth 2.0 client credentials flow with that tokenUrl`,
    );
  }
}
