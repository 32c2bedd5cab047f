import { fragmentTokens as tokensOf, isObject, pointerOf, type Json } from './pointer.js';
import { isDataKey, mapRefs } from './refs.js';

/**
 * A bundled Swagger 2.0 document as the OpenAPI 3.0 document the harness reads (issue 37 item 9),
 * in memory, and the way back: every place the conversion moved is recorded, so that a finding
 * `lint` makes in the 3.0 form is located where the 2.0 document wrote it.
 *
 * Converted: what the harness and `lint` read, and what it takes to keep it whole: paths, every
 * operation, parameters (query, header, path and cookie ones with their `type`… moved into a
 * `schema`, `collectionFormat` into `style`/`explode`, `x-example` into `example`; `body` into
 * `requestBody`, `formData` into a form body), responses (`schema` under each of the operation's
 * `produces` types, else the document's, else application/json; `headers`; `examples`),
 * `definitions`, `parameters` and `responses` into `components`, `securityDefinitions` into
 * `securitySchemes` (an OAuth 2.0 `flow` into `flows`), `host`/`basePath`/`schemes` into
 * `servers`. In schemas: `x-nullable: true` becomes 3.0's `nullable: true` (what Swagger 2 writers
 * mean by it, and what `lint` reads), `type: file` a binary string, a 2.0 `discriminator` (a
 * property name) 3.0's object. Every internal `$ref` is rewritten to where its target now is, a
 * `$ref` into a moved part of `paths` (json-schema-ref-parser's bundle writes those for a file
 * `$ref`d twice) included.
 *
 * Nothing is read or fetched here: the document was read by document-files.ts and bundled before
 * (load.ts bundleDocument), so every `$ref` left is internal. Why not swagger2openapi or Scalar's
 * upgrader: docs/design.md, "OpenAPI documents".
 */

export interface Converted {
  document: Json;
  /**
   * Where a pointer into the converted document was written in the 2.0 one: the place it came
   * from, or when it has no counterpart there (a part the conversion made), the closest place that
   * has one, `exact` false.
   */
  toSource: (pointer: string) => { pointer: string; exact: boolean };
}

type Tokens = readonly string[];

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];

/** OAS 2.0 §Parameter Object `collectionFormat` as 3.0's `style` and `explode` (OAS 3.0.3 §4.7.12.4). */
function serialisation(where: string, format: unknown): Json {
  const f = typeof format === 'string' ? format : 'csv';
  if (where === 'query' || where === 'cookie') {
    if (f === 'multi') return { style: 'form', explode: true };
    if (f === 'ssv') return { style: 'spaceDelimited', explode: false };
    if (f === 'pipes') return { style: 'pipeDelimited', explode: false };
    return { style: 'form', explode: false };
  }
  return { style: 'simple', explode: false };
}

/** The schema keywords a 2.0 non-body parameter or header carries beside its own fields. */
const PARAMETER_SCHEMA_KEYS = [
  'type',
  'format',
  'items',
  'default',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'enum',
  'multipleOf',
  'x-nullable',
];

function pointerText(tokens: Tokens): string {
  // A fragment may not hold every character a name may: those are percent-encoded (RFC 3986 §3.5).
  return `#${tokens.map((t) => `/${pointerOf(t).replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/?{}]/g, (c) => encodeURIComponent(c))}`).join('')}`;
}

/** The value at these (decoded) tokens, and whether there is one. */
function valueAt(document: unknown, tokens: Tokens): { found: boolean; value: unknown } {
  let node = document;
  for (const t of tokens) {
    if (Array.isArray(node) && /^\d+$/.test(t) && Number(t) < node.length) node = node[Number(t)];
    else if (isObject(node) && Object.hasOwn(node, t)) node = node[t];
    else return { found: false, value: undefined };
  }
  return { found: true, value: node };
}

interface Move {
  target: Tokens;
  source: Tokens;
  /** `forward`: only for `$ref`s into the 2.0 document; `back`: only for locating a finding in it. */
  only?: 'forward' | 'back';
  /**
   * A 2.0 parameter or header and its 3.0 form: the 2.0 object's type, format, items… are the 3.0
   * one's `schema`, so `source/items` is `target/schema/items`, and `target/schema/…` is `source/…`.
   */
  schema?: true;
}

/**
 * Where each part of the 2.0 document went (source), and where each part of the 3.0 one came from
 * (target): the longest matching prefix decides, and of two as long, the first recorded. Indexed by
 * prefix both ways, so that a lookup costs the pointer's depth, not the number of moves (a
 * document of thousands of operations records tens of thousands).
 */
class Moves {
  private readonly bySource = new Map<string, Move>();
  private readonly byTarget = new Map<string, Move>();

  add(target: Tokens, source: Tokens, only?: Move['only'], schema?: true): void {
    const move: Move = { target, source, ...(only ? { only } : {}), ...(schema ? { schema } : {}) };
    if (only !== 'back' && !this.bySource.has(keyOf(source))) this.bySource.set(keyOf(source), move);
    if (only !== 'forward' && !this.byTarget.has(keyOf(target))) this.byTarget.set(keyOf(target), move);
  }

  /** `tokens` with the longest recorded prefix replaced; `undefined` when none matches. */
  private map(tokens: Tokens, from: 'target' | 'source'): string[] | undefined {
    const index = from === 'source' ? this.bySource : this.byTarget;
    for (let length = tokens.length; length >= 0; length -= 1) {
      const move = index.get(keyOf(tokens.slice(0, length)));
      if (!move) continue;
      const rest = tokens.slice(length);
      if (from === 'source')
        return [
          ...move.target,
          ...(move.schema && PARAMETER_SCHEMA_KEYS.includes(rest[0] ?? '') ? ['schema'] : []),
          ...rest,
        ];
      return [...move.source, ...(move.schema && rest[0] === 'schema' ? rest.slice(1) : rest)];
    }
    return undefined;
  }

  forward(tokens: Tokens): string[] | undefined {
    return this.map(tokens, 'source');
  }

  back(tokens: Tokens): string[] | undefined {
    return this.map(tokens, 'target');
  }
}

/** A token list as one Map key (NUL between tokens: a JSON key may hold one, and two pointers would then share a key, a cost of one pointer's line, never a verdict). */
const keyOf = (tokens: Tokens): string => tokens.join('\u0000');

export function isSwagger2(document: Json): boolean {
  return document.swagger === '2.0';
}

export function fromSwagger2(swagger: Json): Converted {
  const moves = new Moves();
  const out: Json = { openapi: '3.0.3' };
  const globalProduces = stringsOf(swagger.produces);
  const globalConsumes = stringsOf(swagger.consumes);

  for (const [key, value] of Object.entries(swagger)) {
    if (['info', 'tags', 'externalDocs', 'security'].includes(key) || key.startsWith('x-')) {
      out[key] = value;
      moves.add([key], [key]);
    }
  }
  const servers = serversOf(swagger);
  if (servers) out.servers = servers;

  const components: Json = {};
  if (isObject(swagger.definitions)) {
    components.schemas = Object.fromEntries(
      Object.entries(swagger.definitions).map(([name, schema]) => [name, convertSchema(schema)]),
    );
    moves.add(['components', 'schemas'], ['definitions']);
  }
  if (isObject(swagger.parameters)) {
    const parameters: Json = {};
    const bodies: Json = {};
    for (const [name, raw] of Object.entries(swagger.parameters)) {
      if (!isObject(raw)) continue;
      if (raw.in === 'body') {
        bodies[name] = requestBodyOf(
          raw,
          globalConsumes,
          ['components', 'requestBodies', name],
          ['parameters', name],
          moves,
        );
      } else if (raw.in !== 'formData') {
        parameters[name] = parameterOf(raw, ['components', 'parameters', name], ['parameters', name], moves);
      }
    }
    if (Object.keys(parameters).length > 0) components.parameters = parameters;
    if (Object.keys(bodies).length > 0) components.requestBodies = bodies;
  }
  if (isObject(swagger.responses)) {
    components.responses = Object.fromEntries(
      Object.entries(swagger.responses).map(([name, r]) => [
        name,
        responseOf(r, globalProduces, ['components', 'responses', name], ['responses', name], moves),
      ]),
    );
  }
  if (isObject(swagger.securityDefinitions)) {
    components.securitySchemes = Object.fromEntries(
      Object.entries(swagger.securityDefinitions).map(([name, s]) => [
        name,
        securitySchemeOf(s, ['components', 'securitySchemes', name], ['securityDefinitions', name], moves),
      ]),
    );
    moves.add(['components', 'securitySchemes'], ['securityDefinitions']);
  }

  const paths: Json = {};
  if (isObject(swagger.paths)) {
    moves.add(['paths'], ['paths']);
    for (const [template, rawItem] of Object.entries(swagger.paths)) {
      if (!isObject(rawItem)) {
        paths[template] = rawItem;
        continue;
      }
      const place = ['paths', template];
      const item: Json = {};
      const itemParameters = listOf(rawItem.parameters);
      for (const [key, value] of Object.entries(rawItem)) {
        if (key === 'parameters') {
          const { parameters } = convertParameters(swagger, itemParameters, [...place, 'parameters'], moves);
          if (parameters.length > 0) item.parameters = parameters;
        } else if (METHODS.includes(key) && isObject(value)) {
          item[key] = operationOf(
            swagger,
            value,
            itemParameters,
            [...place, key],
            [...place, 'parameters'],
            { produces: globalProduces, consumes: globalConsumes },
            moves,
          );
        } else {
          item[key] = value;
        }
      }
      paths[template] = item;
    }
  }
  out.paths = paths;
  if (Object.keys(components).length > 0) out.components = components;
  // What has no counterpart is looked for where the 2.0 document would have it, else at its root.
  moves.add(['components'], [], 'back');
  moves.add([], [], 'back');

  // Every internal $ref, now that every move is known: to where its target went.
  const document = mapRefs(out, (ref) => {
    const tokens = tokensOf(ref);
    const mapped = tokens && moves.forward(tokens);
    return mapped ? pointerText(mapped) : ref;
  }) as Json;

  return {
    document,
    toSource(pointer) {
      let source = moves.back(tokensOf(pointer) ?? []) ?? [];
      let exact = true;
      // A place the 2.0 document does not have (the conversion made it): its closest ancestor that it has.
      while (source.length > 0 && !valueAt(swagger, source).found) {
        source = source.slice(0, -1);
        exact = false;
      }
      return { pointer: `#${source.map((t) => `/${pointerOf(t)}`).join('')}`, exact };
    },
  };
}

function stringsOf(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : undefined;
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? (value as unknown[]) : [];
}

/** `host`, `basePath` and `schemes` as 3.0 `servers` (OAS 2.0 §Swagger Object: the scheme defaults to the one the document was fetched with; http here). */
function serversOf(swagger: Json): Json[] | undefined {
  const basePath = typeof swagger.basePath === 'string' ? swagger.basePath : '';
  if (typeof swagger.host !== 'string') return basePath === '' ? undefined : [{ url: basePath }];
  const schemes = stringsOf(swagger.schemes) ?? [];
  return (schemes.length > 0 ? schemes : ['http']).map((scheme) => ({
    url: `${scheme}://${swagger.host as string}${basePath}`,
  }));
}

/** Schemas converted already: a schema used in several places (YAML aliases, several `produces` types) is converted once and shared, not copied. */
const converted = new WeakMap<object, unknown>();

/** A 2.0 schema as 3.0 reads it: `x-nullable`, `type: file` and a 2.0 `discriminator` rewritten, in every subschema (a copy). */
function convertSchema(schema: unknown): unknown {
  if (schema === null || typeof schema !== 'object') return schema;
  const known = converted.get(schema);
  if (known !== undefined) return known;
  const result = Array.isArray(schema) ? schema.map(convertSchema) : convertObject(schema as Json);
  converted.set(schema, result);
  return result;
}

function convertObject(schema: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'x-nullable') {
      if (value === true) out.nullable = true;
      continue;
    }
    if (isDataKey(key, value)) out[key] = value;
    else if (key === 'properties' || key === 'patternProperties' || key === 'definitions')
      out[key] = isObject(value)
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, convertSchema(v)]))
        : value;
    else if (['items', 'additionalProperties', 'not', 'allOf', 'anyOf', 'oneOf'].includes(key))
      out[key] = convertSchema(value);
    else out[key] = value;
  }
  if (out.type === 'file') {
    out.type = 'string';
    out.format = 'binary';
  }
  if (typeof out.discriminator === 'string') out.discriminator = { propertyName: out.discriminator };
  return out;
}

/** The schema a non-body parameter or a header declares with its own keywords. */
function inlineSchemaOf(raw: Json): Json {
  const schema: Json = {};
  for (const key of PARAMETER_SCHEMA_KEYS) if (key in raw) schema[key] = raw[key];
  return convertSchema(schema) as Json;
}

function parameterOf(raw: Json, target: Tokens, source: Tokens, moves: Moves): Json {
  if (typeof raw.$ref === 'string') {
    moves.add(target, source);
    return { $ref: raw.$ref };
  }
  const out: Json = {};
  for (const key of ['name', 'in', 'description', 'required', 'allowEmptyValue', 'deprecated'])
    if (key in raw) out[key] = raw[key];
  for (const [key, value] of Object.entries(raw))
    if (key.startsWith('x-') && key !== 'x-example' && key !== 'x-nullable') out[key] = value;
  out.schema = inlineSchemaOf(raw);
  if (raw.type === 'array') Object.assign(out, serialisation(String(raw.in), raw.collectionFormat));
  if ('x-example' in raw) out.example = raw['x-example'];
  moves.add(target, source, undefined, true);
  return out;
}

function requestBodyOf(
  raw: Json,
  consumes: readonly string[] | undefined,
  target: Tokens,
  source: Tokens,
  moves: Moves,
): Json {
  const types = consumes && consumes.length > 0 ? consumes : ['application/json'];
  const schema = convertSchema(raw.schema);
  const out: Json = { content: Object.fromEntries(types.map((t) => [t, { schema }])) };
  if (typeof raw.description === 'string') out.description = raw.description;
  if (raw.required === true) out.required = true;
  moves.add(target, source);
  for (const t of types) {
    moves.add([...target, 'content', t], source, 'back');
    moves.add([...target, 'content', t, 'schema'], [...source, 'schema']);
  }
  return out;
}

/** A 2.0 form (`formData` parameters) as one request body: an object with a property per field. */
function formBodyOf(
  fields: { value: Json; source: Tokens }[],
  consumes: readonly string[] | undefined,
  target: Tokens,
  moves: Moves,
): Json {
  const hasFile = fields.some((f) => f.value.type === 'file');
  const declared = (consumes ?? []).filter((t) =>
    /^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(t),
  );
  const types =
    declared.length > 0 ? declared : [hasFile ? 'multipart/form-data' : 'application/x-www-form-urlencoded'];
  const properties: Json = {};
  const required: string[] = [];
  for (const { value } of fields) {
    const name = String(value.name);
    properties[name] = {
      ...inlineSchemaOf(value),
      ...(typeof value.description === 'string' ? { description: value.description } : {}),
    };
    if (value.required === true) required.push(name);
  }
  const schema: Json = { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
  moves.add(target, fields[0]?.source ?? target);
  for (const t of types) {
    for (const { value, source } of fields)
      moves.add([...target, 'content', t, 'schema', 'properties', String(value.name)], source);
  }
  return {
    content: Object.fromEntries(types.map((t) => [t, { schema }])),
    ...(required.length > 0 ? { required: true } : {}),
  };
}

/** A parameter list without its body and form fields (3.0 has them in `requestBody`), each parameter where it went. */
function convertParameters(
  swagger: Json,
  raw: readonly unknown[],
  at: Tokens,
  moves: Moves,
): { parameters: Json[]; body?: { value: Json; source: Tokens }; form: { value: Json; source: Tokens }[] } {
  const parameters: Json[] = [];
  let body: { value: Json; source: Tokens } | undefined;
  const form: { value: Json; source: Tokens }[] = [];
  raw.forEach((p, i) => {
    const source = [...at, String(i)];
    const resolved = resolveParameter(swagger, p, source);
    if (!resolved) return;
    if (resolved.value.in === 'body')
      body = {
        value: isObject(p) && typeof p.$ref === 'string' ? { $ref: p.$ref } : resolved.value,
        source: isObject(p) && typeof p.$ref === 'string' ? source : resolved.source,
      };
    else if (resolved.value.in === 'formData') form.push(resolved);
    else parameters.push(parameterOf(isObject(p) ? p : {}, [...at, String(parameters.length)], source, moves));
  });
  return { parameters, ...(body ? { body } : {}), form };
}

/** A parameter, its `$ref`s followed inside the document, and where it is written. */
function resolveParameter(swagger: Json, p: unknown, source: Tokens): { value: Json; source: Tokens } | undefined {
  let value = p;
  let where = source;
  for (let hops = 0; hops < 32 && isObject(value) && typeof value.$ref === 'string'; hops += 1) {
    const tokens = tokensOf(value.$ref);
    if (!tokens) return undefined;
    where = tokens;
    value = valueAt(swagger, tokens).value;
  }
  return isObject(value) ? { value, source: where } : undefined;
}

function operationOf(
  swagger: Json,
  raw: Json,
  itemParameters: readonly unknown[],
  at: Tokens,
  itemAt: Tokens,
  inherited: { produces: string[] | undefined; consumes: string[] | undefined },
  moves: Moves,
): Json {
  const produces = stringsOf(raw.produces) ?? inherited.produces;
  const consumes = stringsOf(raw.consumes) ?? inherited.consumes;
  const out: Json = {};
  for (const [key, value] of Object.entries(raw)) {
    if (['produces', 'consumes', 'parameters', 'responses', 'schemes'].includes(key)) continue;
    out[key] = value;
  }
  const own = convertParameters(swagger, listOf(raw.parameters), [...at, 'parameters'], moves);
  if (own.parameters.length > 0) out.parameters = own.parameters;
  // The path's body or form fields apply to its operations (OAS 2.0 §Path Item Object), the operation's own first.
  const fromItem =
    own.body || own.form.length > 0 ? undefined : convertParameters(swagger, itemParameters, itemAt, new Moves());
  const body = own.body ?? fromItem?.body;
  const form = own.form.length > 0 ? own.form : (fromItem?.form ?? []);
  if (body) {
    if (typeof body.value.$ref === 'string') {
      out.requestBody = { $ref: body.value.$ref };
      moves.add([...at, 'requestBody'], body.source);
    } else {
      out.requestBody = requestBodyOf(body.value, consumes, [...at, 'requestBody'], body.source, moves);
    }
  } else if (form.length > 0) {
    out.requestBody = formBodyOf(form, consumes, [...at, 'requestBody'], moves);
  }
  if (isObject(raw.responses)) {
    out.responses = Object.fromEntries(
      Object.entries(raw.responses).map(([code, r]) => [
        code,
        responseOf(r, produces, [...at, 'responses', code], [...at, 'responses', code], moves),
      ]),
    );
  }
  return out;
}

function responseOf(
  raw: unknown,
  produces: readonly string[] | undefined,
  target: Tokens,
  source: Tokens,
  moves: Moves,
): unknown {
  moves.add(target, source);
  if (!isObject(raw) || typeof raw.$ref === 'string') return raw;
  const out: Json = {};
  for (const [key, value] of Object.entries(raw))
    if (!['schema', 'headers', 'examples'].includes(key)) out[key] = value;
  if (typeof out.description !== 'string') out.description = '';
  const types = produces && produces.length > 0 ? produces : ['application/json'];
  if ('schema' in raw || isObject(raw.examples)) {
    const examples = isObject(raw.examples) ? raw.examples : {};
    const content: Json = {};
    const schema = convertSchema(raw.schema);
    for (const t of types) {
      const media: Json = {};
      if ('schema' in raw) media.schema = schema;
      if (t in examples) media.example = examples[t];
      content[t] = media;
      moves.add([...target, 'content', t], source, 'back');
      moves.add([...target, 'content', t, 'schema'], [...source, 'schema']);
    }
    out.content = content;
  }
  if (isObject(raw.headers)) {
    const headers: Json = {};
    for (const [name, header] of Object.entries(raw.headers)) {
      if (!isObject(header)) continue;
      headers[name] = {
        ...(typeof header.description === 'string' ? { description: header.description } : {}),
        schema: inlineSchemaOf(header),
      };
      moves.add([...target, 'headers', name], [...source, 'headers', name], undefined, true);
    }
    out.headers = headers;
  }
  return out;
}

/** OAS 2.0 §Security Scheme Object as 3.0's: `basic` an HTTP scheme, an OAuth 2.0 `flow` one of `flows`. */
function securitySchemeOf(raw: unknown, target: Tokens, source: Tokens, moves: Moves): unknown {
  moves.add(target, source);
  if (!isObject(raw)) return raw;
  const extensions = Object.fromEntries(Object.entries(raw).filter(([k]) => k.startsWith('x-')));
  const description = typeof raw.description === 'string' ? { description: raw.description } : {};
  if (raw.type === 'basic') return { type: 'http', scheme: 'basic', ...description, ...extensions };
  if (raw.type === 'apiKey') return { type: 'apiKey', name: raw.name, in: raw.in, ...description, ...extensions };
  if (raw.type !== 'oauth2') return raw;
  const names: Record<string, string> = {
    implicit: 'implicit',
    password: 'password',
    application: 'clientCredentials',
    accessCode: 'authorizationCode',
  };
  const flow = names[String(raw.flow)] ?? String(raw.flow);
  const body: Json = {};
  for (const key of ['authorizationUrl', 'tokenUrl', 'scopes']) {
    if (!(key in raw)) continue;
    body[key] = raw[key];
    moves.add([...target, 'flows', flow, key], [...source, key]);
  }
  if (!('scopes' in body)) body.scopes = {};
  moves.add([...target, 'flows', flow], source, 'back');
  return { type: 'oauth2', ...description, flows: { [flow]: body }, ...extensions };
}
