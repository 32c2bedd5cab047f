// The Carrier-Platform conventions as a Spectral custom function (spectral.yaml beside this
// folder; issue 33). It is `carrier-conformance lint` (src/lint/rules.ts) written again for
// Spectral's document model: Spectral hands it the document with every $ref resolved (inlined),
// and maps each result's path back to the file and line it was written at. test/lint.test.ts
// runs @stoplight/spectral-cli with the ruleset on the lint corpus and asserts the same findings
// as `lint`: a change to one side that the other does not follow fails there.
//
// One place differs from the property itself: an optional property whose schema is written as a
// `$ref` (`links: {$ref: '#/components/schemas/Links-Self'}`). Spectral locates a result whose
// path ends on a `$ref` at the schema it points to (DocumentInventory.findAssociatedItemForPath
// follows the resolver's ref map to the end of the path), so no path can name the property; both
// tools report it at the `properties` object that holds it, the message naming the property
// (src/lint/locate.ts does the same for lint; docs/design.md, "Where a $ref'd property is reported").
//
// No import: Spectral bundles a ruleset's functions with the ruleset, wherever it is installed;
// plain JavaScript that needs nothing else loads in every Spectral 6 (CLI, VS Code, Stoplight).

const TOKEN_PATH = '/uaa/oauth2/token';
const AUTH_PATHS = new Set([TOKEN_PATH, '/uaa/oauth/token', '/users/me', '/uaa/userinfo']);
const TENANT_PREFIX = '/tenants/{tenantId}/';
// A tenant path as the run reads it: `/tenants/{…}/`, whatever the parameter is called (its name
// is not on the wire: OAS 3.1, Path Templating); the name is the one OAS-TENANT-UUID looks for.
const TENANT_PATH = /^\/tenants\/\{([^}/]+)\}\//;
const tenantParameterOf = (template) => {
  const m = TENANT_PATH.exec(template);
  return m ? m[1] : undefined;
};
// The Path Item's operation fields, OpenAPI 3.2's `query` included; 3.2's `additionalOperations` (`LINK`…) are read too.
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace', 'query'];
// spec §Pagination: the five response headers of a paged response.
const PAGING_HEADERS = ['Total-Pages', 'Page-Size', 'Page-Number', 'Total-Elements', 'Link'];

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const listOf = (v) => (Array.isArray(v) ? v : []);
const typesOf = (s) => (typeof s.type === 'string' ? [s.type] : listOf(s.type).filter((t) => typeof t === 'string'));
const isTokenPath = (t) => t === TOKEN_PATH || t === '/uaa/oauth/token';

function isJsonMediaType(type) {
  const essence = (type.split(';')[0] || '').trim().toLowerCase();
  return essence === 'application/json' || /^[a-z]+\/[^\s/]+\+json$/.test(essence);
}

// A JSON Pointer `$ref` into the document itself (`#/components/schemas/A`), as tokens (RFC 6901,
// and RFC 3986 percent-encoding as a URI fragment); undefined for a `$ref` to another file.
function localRefTokens(ref) {
  if (typeof ref !== 'string' || !ref.startsWith('#')) return undefined;
  const body = ref.slice(1);
  if (body === '') return [];
  if (!body.startsWith('/')) return undefined;
  return body
    .slice(1)
    .split('/')
    .map((t) => {
      let decoded = t;
      try {
        decoded = decodeURIComponent(t);
      } catch {
        // Not percent-encoding after all: the token as written.
      }
      return decoded.split('~1').join('/').split('~0').join('~');
    });
}

const hasOwn = (v, key) => Object.prototype.hasOwnProperty.call(v, key);

function valueAt(root, tokens) {
  let v = root;
  for (const t of tokens) {
    if (Array.isArray(v) && /^\d+$/.test(String(t)) && Number(t) < v.length) v = v[Number(t)];
    else if (isObject(v) && hasOwn(v, String(t))) v = v[String(t)];
    else return undefined;
  }
  return v;
}

// `target` (a `$ref`'s file part) read from the file `source`: a path relative to its folder.
function relativeTo(source, target) {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('/')) return target;
  const parts = source.split('/').slice(0, -1);
  for (const segment of target.split('/')) {
    if (segment === '..') parts.pop();
    else if (segment !== '.' && segment !== '') parts.push(segment);
  }
  return parts.join('/');
}

// What a schema is once its `$ref` is followed. Spectral's resolved document still holds a `$ref`
// where the resolver met a cycle (Xero's Payment → Invoice → Payments → Payment), the object as
// its file wrote it: lint follows it (src/openapi/pointer.ts resolve), and so does this. A `$ref`
// of the root document is followed in the resolved document; one written in another file (a
// cycle among the schemas of a second file) in that file, as Spectral read it (the inventory's
// referenced documents), its own `$ref`s followed the same way when they are met.
function makeDeref(document, inventory) {
  const files = new Map();
  const fileOf = new WeakMap();
  const referenced = inventory && isObject(inventory.referencedDocuments) ? inventory.referencedDocuments : {};
  for (const [source, doc] of Object.entries(referenced)) {
    if (!doc || !(isObject(doc.data) || Array.isArray(doc.data))) continue;
    files.set(source, doc.data);
    const stack = [doc.data];
    while (stack.length > 0) {
      const v = stack.pop();
      if (fileOf.has(v)) continue;
      fileOf.set(v, source);
      for (const child of Object.values(v)) if (isObject(child) || Array.isArray(child)) stack.push(child);
    }
  }
  const root = inventory && typeof inventory.source === 'string' ? inventory.source : undefined;
  return (value) => {
    let v = value;
    for (let hops = 0; hops < 32 && isObject(v) && typeof v.$ref === 'string'; hops += 1) {
      const source = fileOf.get(v);
      const hash = v.$ref.indexOf('#');
      const filePart = hash === -1 ? v.$ref : v.$ref.slice(0, hash);
      const tokens = localRefTokens(hash === -1 ? '#' : v.$ref.slice(hash));
      const file = filePart === '' ? source : relativeTo(source ?? root ?? '', filePart);
      // The root document, resolved; another file, as written.
      const data = file === undefined || file === root ? document : files.get(file);
      const next = data === undefined || tokens === undefined ? undefined : valueAt(data, tokens);
      if (next === undefined) return v;
      v = next;
    }
    return v;
  };
}

// spec §Generic rules for optional fields: what admits null, in 3.0 (nullable) and 3.1 (type lists).
function allowsNull(deref, raw, seen = new Set()) {
  const schema = deref(raw);
  if (schema === true) return true;
  if (!isObject(schema) || seen.has(schema)) return false;
  seen.add(schema);
  if (schema.nullable === true) return true;
  if ('const' in schema) return schema.const === null;
  if (Array.isArray(schema.enum)) return schema.enum.includes(null);
  const types = typesOf(schema);
  if (types.includes('null')) return true;
  const arms = [...listOf(schema.anyOf), ...listOf(schema.oneOf)];
  if (arms.length > 0) return arms.some((arm) => allowsNull(deref, arm, seen));
  const all = listOf(schema.allOf);
  if (all.length > 0) return all.every((arm) => allowsNull(deref, arm, seen)) && types.length === 0;
  return types.length === 0 && !('properties' in schema) && !('items' in schema);
}

// OpenAPI 3.2 `in: querystring` as application/x-www-form-urlencoded with an object schema: its
// fields are query parameters (src/openapi/oas32.ts normalise, which `lint` reads through).
function formFields(parameter, path) {
  if (parameter.in !== 'querystring' || !isObject(parameter.content)) return [];
  const types = Object.keys(parameter.content);
  if (types.length !== 1 || (types[0].split(';')[0] || '').trim().toLowerCase() !== 'application/x-www-form-urlencoded') return [];
  const media = parameter.content[types[0]];
  const properties = new Map();
  const required = new Set();
  const merge = (s, depth) => {
    if (!isObject(s) || depth > 8) return;
    for (const member of listOf(s.allOf)) merge(member, depth + 1);
    if (isObject(s.properties)) for (const [name, schema] of Object.entries(s.properties)) properties.set(name, schema);
    for (const r of listOf(s.required)) if (typeof r === 'string') required.add(r);
  };
  merge(isObject(media) ? media.schema : undefined, 0);
  return [...properties].map(([name, schema]) => ({ value: { name, in: 'query', required: parameter.required === true && required.has(name), schema }, path }));
}

function operationsOf(document) {
  const operations = [];
  const paths = isObject(document.paths) ? document.paths : {};
  for (const [template, pathItem] of Object.entries(paths)) {
    if (!isObject(pathItem)) continue;
    const own = METHODS.filter((m) => isObject(pathItem[m])).map((m) => ({ method: m, path: ['paths', template, m], value: pathItem[m] }));
    const more = isObject(pathItem.additionalOperations) ? Object.entries(pathItem.additionalOperations).filter(([, op]) => isObject(op)).map(([m, op]) => ({ method: m, path: ['paths', template, 'additionalOperations', m], value: op })) : [];
    for (const { method, path, value: operation } of [...own, ...more]) {
      // An operation's own parameters win over its path's, by name and place (OAS §4.8.9.1).
      const byKey = new Map();
      const add = (p, at) => {
        if (!isObject(p)) return;
        byKey.set(`${p.in}:${String(p.name).toLowerCase()}`, { value: p, path: at });
        for (const field of formFields(p, at)) byKey.set(`query:${field.value.name.toLowerCase()}`, field);
      };
      listOf(pathItem.parameters).forEach((p, i) => add(p, ['paths', template, 'parameters', i]));
      listOf(operation.parameters).forEach((p, i) => add(p, [...path, 'parameters', i]));
      operations.push({ template, method, path, value: operation, parameters: [...byKey.values()] });
    }
  }
  return operations;
}

function successResponse(op) {
  const responses = isObject(op.value.responses) ? op.value.responses : {};
  const code = ['200', ...Object.keys(responses).filter((k) => /^2(\d\d|XX)$/i.test(k)).sort()].find((k) => k in responses);
  return code !== undefined && isObject(responses[code]) ? { value: responses[code], path: [...op.path, 'responses', code] } : undefined;
}

function bodySchemas(response) {
  const content = isObject(response.value.content) ? response.value.content : {};
  return Object.entries(content)
    .filter(([type, media]) => isJsonMediaType(type) && isObject(media) && isObject(media.schema))
    .map(([type, media]) => ({ value: media.schema, path: [...response.path, 'content', type, 'schema'] }));
}

// Which bodies are lists: src/openapi/endpoint-model.ts itemsOf, for Spectral's resolved document.
const COLLECTION_NAMES = new Set(['data', 'items', 'results', 'content', 'records', 'elements', 'values', 'entries', 'list', 'rows', 'hits', 'nodes', 'edges', 'objects', 'resources', 'collection', 'members', 'embedded', '_embedded']);
const METADATA_WORDS = new Set(['sort', 'order', 'page', 'pages', 'total', 'next', 'prev', 'previous', 'first', 'last', 'cursor', 'continuation', 'token', 'count', 'offset', 'limit', 'skip', 'start', 'end', 'size', 'number', 'more', 'has', 'links', 'link', 'meta', 'metadata', 'paging', 'pagination', 'info', 'self', 'uri', 'url', 'href', 'object', 'kind', 'truncated', 'elements', 'results', 'items']);
const PAGING_WORDS = new Set(['page', 'pages', 'next', 'prev', 'previous', 'cursor', 'continuation', 'offset', 'limit', 'more', 'paging', 'pagination']);
const wordsOf = (name) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
function isPagingMetadata(others, pagedByQuery) {
  const words = others.map(wordsOf);
  return words.length > 0 && words.every((w) => w.length > 0 && w.every((x) => METADATA_WORDS.has(x))) && (pagedByQuery || words.some((w) => w.some((x) => PAGING_WORDS.has(x))));
}
// Wholly a paging parameter (src/openapi/list-detection.ts pagedByQuery): not `alternative_route.max_paths`.
const pagedByQuery = (names) =>
  names.some((n) => {
    const words = wordsOf(n);
    return words.length > 0 && words.every((w) => METADATA_WORDS.has(w) || w === 'per') && words.some((w) => PAGING_WORDS.has(w) || w === 'per');
  });
const isArraySchema = (s) => isObject(s) && (s.type === 'array' || (Array.isArray(s.type) && s.type.includes('array')) || ('items' in s && s.type === undefined));
function propertiesOf(schema, depth = 0) {
  const out = new Map();
  if (!isObject(schema) || depth > 16) return out;
  for (const member of listOf(schema.allOf)) for (const [k, v] of propertiesOf(member, depth + 1)) out.set(k, v);
  if (isObject(schema.properties)) for (const [k, v] of Object.entries(schema.properties)) out.set(k, v);
  return out;
}
function isListBody(schema, template, queryNames) {
  if (isArraySchema(schema)) return true;
  if (/\}$/.test(template)) return false;
  const properties = propertiesOf(schema);
  const arrays = [...properties].filter(([, v]) => isArraySchema(v));
  if (arrays.length !== 1) return false;
  const name = arrays[0][0];
  return COLLECTION_NAMES.has(name.toLowerCase()) || isPagingMetadata([...properties.keys()].filter((k) => k !== name), pagedByQuery(queryNames));
}

function returnsMany(op, response) {
  if (op.method !== 'get') return false;
  if (op.parameters.some((p) => p.value.in === 'query' && (p.value.name === 'page' || p.value.name === 'size'))) return true;
  const headers = response && isObject(response.value.headers) ? Object.keys(response.value.headers).map((h) => h.toLowerCase()) : [];
  if (PAGING_HEADERS.slice(0, 4).some((h) => headers.includes(h.toLowerCase()))) return true;
  if (!response) return false;
  const query = op.parameters.filter((p) => p.value.in === 'query').map((p) => String(p.value.name));
  return bodySchemas(response).some((s) => isListBody(s.value, op.template, query));
}

// Spectral's reading of a result's path segment (spectral-runtime decodeSegmentFragment, which
// decodes `~1` and `~0` as a JSON Pointer token): the paths looked up below are read as results are.
const asResultSegment = (s) => (typeof s === 'string' ? s.split('~1').join('/').split('~0').join('~') : String(s));

/**
 * Where the value at `path` (a path in the resolved document) is written in the root document:
 * its path there and the value as written, following each local `$ref` on the way, and one the
 * path ends on, as Spectral does. Undefined when the way leaves the root document (a `$ref` to
 * another file): Spectral's own mapping places those.
 *
 * Spectral's mapping (DocumentInventory.findAssociatedItemForPath) percent-encodes the path's
 * segments to look them up in the resolver's ref map, and decodes only `~1` and `~0` when it turns
 * the result back into a path: past a `$ref`, a segment with `{`, `}` or a space (a path template:
 * DigitalOcean's `$ref`s into `#/paths/~1v2~1apps~1{app_id}/…`) is not found, and the result lands
 * on `paths`, line 1 of no use (docs/design.md, "Linting documents"). A result given at the place
 * it is written has no `$ref` on its way left to follow, and is located as lint locates it.
 */
function writtenAt(unresolved, path) {
  let node = unresolved;
  let written = [];
  const follow = () => {
    for (let hops = 0; hops < 32 && isObject(node) && typeof node.$ref === 'string'; hops += 1) {
      const tokens = localRefTokens(node.$ref);
      const next = tokens === undefined ? undefined : valueAt(unresolved, tokens);
      if (next === undefined) return false;
      node = next;
      written = tokens;
    }
    return !(isObject(node) && typeof node.$ref === 'string');
  };
  for (const segment of path) {
    if (!follow()) return undefined;
    const key = String(segment);
    if (Array.isArray(node) ? !(/^\d+$/.test(key) && Number(key) < node.length) : !(isObject(node) && hasOwn(node, key))) return undefined;
    node = Array.isArray(node) ? node[Number(key)] : node[key];
    written = [...written, segment];
  }
  return follow() ? { path: written, value: node } : undefined;
}

/** The root document as written, from Spectral's document inventory (the function context's). */
const unresolvedOf = (inventory) => (inventory && (isObject(inventory.unresolved) || Array.isArray(inventory.unresolved)) ? inventory.unresolved : undefined);

/**
 * Whether property `name` of the `properties` object at `propertiesPath` (a path in the resolved
 * document) is written as a `$ref`: the `properties` object is looked up where it is written (in
 * the root document, or where Spectral locates results in another file) and read as written.
 * Without a document inventory (a caller other than Spectral 6), nothing is taken for a `$ref`.
 */
function writtenAsRef(inventory, propertiesPath, name) {
  const unresolved = unresolvedOf(inventory);
  const local = unresolved === undefined ? undefined : writtenAt(unresolved, propertiesPath);
  let written = local ? local.value : undefined;
  if (!local) {
    if (!inventory || typeof inventory.findAssociatedItemForPath !== 'function') return false;
    const item = inventory.findAssociatedItemForPath(propertiesPath.map(asResultSegment), true);
    // The closest existing ancestor stands in for a path Spectral cannot find: not a `properties` object.
    if (!item || !item.document || item.path[item.path.length - 1] !== 'properties') return false;
    written = item.document.data;
    for (const token of item.path) written = isObject(written) || Array.isArray(written) ? written[token] : undefined;
  }
  if (!isObject(written) || !hasOwn(written, name)) return false;
  return isObject(written[name]) && typeof written[name].$ref === 'string';
}

// Schemas no server can satisfy: OAS-ENUM-TYPE, OAS-ONEOF-DISTINCT and OAS-CLOSED-SCHEMA, as
// src/lint/satisfiable.ts decides them (the same code, in JavaScript; its comments say why).
const ANNOTATIONS = new Set(['title', 'description', 'example', 'examples', 'default', 'deprecated', 'readOnly', 'writeOnly', 'externalDocs', 'xml', 'discriminator', '$comment', '$id', '$anchor', '$dynamicAnchor', '$schema', '$vocabulary', '$defs', 'definitions', 'contentMediaType', 'contentEncoding', 'contentSchema']);
const isAnnotation = (key) => ANNOTATIONS.has(key) || key.startsWith('x-');
const NOT_JUDGED = new Set(['$ref', '$dynamicRef', '$recursiveRef', 'allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else', 'dependentSchemas', 'dependentRequired', 'dependencies', 'unevaluatedProperties', 'unevaluatedItems', 'patternProperties', 'propertyNames', 'contains', 'minContains', 'maxContains', 'additionalItems']);
const OBJECT_KEYWORDS = new Set(['type', 'nullable', 'properties', 'required', 'additionalProperties', 'enum', 'const', 'items', 'prefixItems']);
const stringsOf = (v) => listOf(v).filter((s) => typeof s === 'string');
const ownPropertiesOf = (s) => (isObject(s.properties) ? s.properties : {});
const assertions = (s) => Object.keys(s).filter((k) => !isAnnotation(k));

function deepEqual(a, b) {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => hasOwn(b, k) && deepEqual(a[k], b[k]));
}

function jsonType(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v === 'object' ? 'object' : typeof v;
}

function declaredTypes(s) {
  const declared = typeof s.type === 'string' ? [s.type] : Array.isArray(s.type) ? stringsOf(s.type) : undefined;
  if (declared === undefined) return undefined;
  const types = new Set(declared);
  if (s.nullable === true) types.add('null');
  return types;
}

const fitsTypes = (types, type) => types.has(type) || (type === 'integer' && types.has('number'));
const typeText = (s) => `type ${Array.isArray(s.type) ? `[${stringsOf(s.type).join(', ')}]` : String(s.type)}${s.nullable === true ? ' (nullable)' : ''}`;

function valuesText(values) {
  const shown = values.slice(0, 5).map((v) => {
    const text = JSON.stringify(v) ?? String(v);
    return text.length > 40 ? `${text.slice(0, 39)}…` : text;
  });
  return `${shown.join(', ')}${values.length > 5 ? ` and ${values.length - 5} more` : ''}`;
}

function enumFindings(s) {
  const types = declaredTypes(s);
  if (types === undefined) return [];
  const findings = [];
  if ('const' in s && !fitsTypes(types, jsonType(s.const))) {
    findings.push({ rule: 'OAS-ENUM-TYPE', keyword: 'const', message: `const ${valuesText([s.const])} is not of the schema's ${typeText(s)}: no value passes this schema` });
  }
  const values = listOf(s.enum);
  const off = values.filter((v) => !fitsTypes(types, jsonType(v)));
  if (off.length > 0 && off.length === values.length) {
    findings.push({ rule: 'OAS-ENUM-TYPE', keyword: 'enum', message: `enum ${valuesText(off)}: no value is of the schema's ${typeText(s)}, so no value passes this schema` });
  } else if (off.length > 0) {
    findings.push({ rule: 'OAS-ENUM-TYPE', keyword: 'enum', message: `enum value${off.length === 1 ? '' : 's'} ${valuesText(off)} ${off.length === 1 ? 'is' : 'are'} not of the schema's ${typeText(s)}: a server that sends ${off.length === 1 ? 'it' : 'one of them'} breaks the schema` });
  }
  return findings;
}

const branchName = (key, index) => `${key}/${index}`;

function describesObjects(s) {
  const types = declaredTypes(s);
  return types === undefined ? 'properties' in s || 'required' in s || 'additionalProperties' in s : types.has('object');
}

const NO_HOLDER = { properties: {}, required: new Set(), allowed: undefined };

function makeCovering(deref) {
  const memo = new Map();
  const covers = (rawA, rawB, holder = NO_HOLDER, depth = 0) => {
    const a = deref(rawA);
    const b = deref(rawB);
    if (b === true || (isObject(b) && assertions(b).length === 0)) return true;
    if (!isObject(a) || !isObject(b) || depth > 12) return false;
    const key = holder === NO_HOLDER ? b : undefined;
    const known = key === undefined ? undefined : memo.get(a) && memo.get(a).get(key);
    if (known !== undefined) return known;
    if (key !== undefined) memo.set(a, (memo.get(a) || new Map()).set(key, false));
    const result = decide(a, b, holder, depth);
    if (key !== undefined) memo.get(a).set(key, result);
    return result;
  };
  const decide = (a, b, holder, depth) => {
    const ownA = assertions(a);
    const ownB = assertions(b);
    if (ownA.length === ownB.length && ownB.every((k) => hasOwn(a, k) && deepEqual(a[k], b[k]))) return true;
    if (ownA.some((k) => NOT_JUDGED.has(k)) || ownB.some((k) => NOT_JUDGED.has(k))) return false;
    for (const k of ownB) if (!OBJECT_KEYWORDS.has(k) && !(hasOwn(a, k) && deepEqual(a[k], b[k]))) return false;
    const typesB = declaredTypes(b);
    const typesA = declaredTypes(a) ?? (describesObjects(a) ? new Set(['object']) : undefined);
    if (typesB !== undefined && (typesA === undefined || [...typesA].some((t) => !fitsTypes(typesB, t)))) return false;
    const valuesA = Array.isArray(a.enum) ? a.enum : 'const' in a ? [a.const] : undefined;
    if (Array.isArray(b.enum) && (valuesA === undefined || !valuesA.every((v) => b.enum.some((w) => deepEqual(v, w))))) return false;
    if ('const' in b && (valuesA === undefined || !valuesA.every((v) => deepEqual(v, b.const)))) return false;
    if ('prefixItems' in a || 'prefixItems' in b) {
      if (!deepEqual(a.prefixItems, b.prefixItems) || !deepEqual(a.items, b.items)) return false;
    } else if ('items' in b && !('items' in a && (deepEqual(a.items, b.items) || covers(a.items, b.items, NO_HOLDER, depth + 1)))) return false;
    if (!['properties', 'required', 'additionalProperties'].some((k) => k in b)) return true;
    if (typesA === undefined) return false;
    return typesA.has('object') ? coversObjects(a, b, holder, depth) : true;
  };
  const coversObjects = (a, b, holder, depth) => {
    const ownProperties = ownPropertiesOf(a);
    const required = new Set([...stringsOf(a.required), ...holder.required]);
    let carried = new Set([...Object.keys(ownProperties), ...required, ...Object.keys(holder.properties)]);
    if (holder.allowed !== undefined) carried = new Set([...carried].filter((n) => holder.allowed.has(n)));
    for (const r of stringsOf(b.required)) if (!required.has(r) || !carried.has(r)) return false;
    const bProperties = ownPropertiesOf(b);
    for (const name of carried) {
      const target = hasOwn(bProperties, name) ? bProperties[name] : b.additionalProperties;
      if (target === undefined || target === true) continue;
      const schemas = [ownProperties[name], holder.properties[name]].filter((s) => s !== undefined);
      if (!schemas.some((s) => covers(s, target, NO_HOLDER, depth + 1))) return false;
    }
    return true;
  };
  return covers;
}

function forbiddenBy(allowed, branch) {
  const required = stringsOf(branch.required).filter((n) => !allowed.has(n));
  const declared = Object.keys(ownPropertiesOf(branch)).filter((n) => !allowed.has(n) && !required.includes(n));
  return { required, declared };
}

function closedFindings(s, deref) {
  if (s.additionalProperties !== false || 'patternProperties' in s) return [];
  const allowed = new Set(Object.keys(ownPropertiesOf(s)));
  const parts = [];
  let none = false;
  const own = stringsOf(s.required).filter((n) => !allowed.has(n));
  if (own.length > 0) {
    parts.push(`it requires ${valuesText(own)}, which it forbids`);
    none = true;
  }
  for (const key of ['allOf', 'anyOf', 'oneOf']) {
    const branches = listOf(s[key]);
    let dead = 0;
    branches.forEach((raw, i) => {
      const branch = deref(raw);
      if (!isObject(branch)) return;
      const forbidden = forbiddenBy(allowed, branch);
      const name = branchName(key, i);
      if (forbidden.required.length > 0) {
        dead += 1;
        parts.push(`${name} requires ${valuesText(forbidden.required)}, so no object matches it`);
      } else if (forbidden.declared.length > 0) {
        parts.push(`${name} declares ${valuesText(forbidden.declared)}, which no object may carry`);
      }
    });
    if ((key === 'allOf' && dead > 0) || (key !== 'allOf' && branches.length > 0 && dead === branches.length)) none = true;
  }
  if (parts.length === 0) return [];
  const allowedText = allowed.size === 0 ? 'no property (this schema\'s own properties declares none)' : `only the names in this schema's own properties (${valuesText([...allowed])})`;
  const shown = parts.length > 6 ? [...parts.slice(0, 5), `and ${parts.length - 5} more`] : parts;
  return [{ rule: 'OAS-CLOSED-SCHEMA', keyword: 'additionalProperties', message: `additionalProperties: false allows ${allowedText}: ${shown.join('; ')}${none ? ': no object passes this schema' : ''}` }];
}

function oneOfFindings(s, deref, covers) {
  const raws = listOf(s.oneOf);
  if (raws.length < 2) return [];
  const closed = s.additionalProperties === false && !('patternProperties' in s);
  const holder = { properties: ownPropertiesOf(s), required: new Set(stringsOf(s.required)), allowed: closed ? new Set(Object.keys(ownPropertiesOf(s))) : undefined };
  const branches = raws.map((raw) => deref(raw));
  const live = branches.map((b) => !(isObject(b) && holder.allowed !== undefined && forbiddenBy(holder.allowed, b).required.length > 0));
  const pairs = [];
  let shadowed = 0;
  branches.forEach((branch, i) => {
    if (!live[i]) return;
    const other = branches.findIndex((b, j) => j !== i && live[j] && covers(branch, b, holder));
    if (other === -1) return;
    shadowed += 1;
    const what = isObject(branch) && describesObjects(branch) ? 'an object' : 'a value';
    pairs.push(`${what} of ${branchName('oneOf', i)} matches ${branchName('oneOf', other)} too`);
  });
  if (shadowed === 0) return [];
  const all = shadowed === live.filter(Boolean).length;
  const tag = isObject(s.discriminator) && typeof s.discriminator.propertyName === 'string' ? s.discriminator.propertyName : undefined;
  const hint = tag === undefined ? '' : `; the discriminator "${tag}" does not tell them apart for validation (OAS 3.1 §4.8.25): give each branch's "${tag}" a const`;
  const listed = (pairs.length > 6 ? [...pairs.slice(0, 5), `and ${pairs.length - 5} more`] : pairs).join('; ');
  const message = all ? `no value its branches describe passes this oneOf (exactly one branch must match): ${listed}${hint}` : `${listed}: this oneOf rejects those values (exactly one branch must match)${hint}`;
  return [{ rule: 'OAS-ONEOF-DISTINCT', keyword: 'oneOf', message }];
}

function satisfiabilityFindings(schema, deref, covers) {
  return [...enumFindings(schema), ...closedFindings(schema, deref), ...oneOfFindings(schema, deref, covers)];
}

/**
 * OAS-NULLABLE and OAS-NULL-REQUIRED on one response body, and the three rules above on each schema. Each schema is visited once in the
 * document (`visited`, shared by every body), as lint visits each once by its pointer, so that
 * both inherit `required` from the same first use of a schema.
 */
function checkNulls(deref, root, findings, inventory, visited, asRef, covers) {
  const isRefAt = (propertiesPath, name) => {
    const key = JSON.stringify([...propertiesPath, name]);
    if (!asRef.has(key)) asRef.set(key, writtenAsRef(inventory, propertiesPath, name));
    return asRef.get(key);
  };
  const visit = (raw, path, inherited) => {
    const schema = deref(raw);
    if (!isObject(schema) || visited.has(schema)) return;
    visited.add(schema);
    for (const f of satisfiabilityFindings(schema, deref, covers)) findings.push({ rule: f.rule, path: [...path, f.keyword], message: f.message });
    const required = new Set([...inherited, ...listOf(schema.required).filter((r) => typeof r === 'string')]);
    for (const raw of listOf(schema.allOf)) {
      const arm = deref(raw);
      if (isObject(arm)) for (const r of listOf(arm.required)) if (typeof r === 'string') required.add(r);
    }
    const properties = isObject(schema.properties) ? schema.properties : {};
    for (const [name, property] of Object.entries(properties)) {
      // A writeOnly property is sent by clients, never served (OAS 3.1 §4.8.24.1): out of this rule's reach.
      const own = deref(property);
      if (isObject(own) && own.writeOnly === true) continue;
      const at = [...path, 'properties', name];
      // A property written as a `$ref` is reported at its `properties` object (see the top of this file).
      const where = required.has(name) ? at : isRefAt([...path, 'properties'], name) ? [...path, 'properties'] : at;
      const nullable = allowsNull(deref, property);
      if (!required.has(name) && !nullable) findings.push({ rule: 'OAS-NULLABLE', path: where, message: `property "${name}" is optional (not in required) but does not allow null: without data it is sent as null` });
      else if (!required.has(name) && nullable) findings.push({ rule: 'OAS-NULL-REQUIRED', path: where, message: `property "${name}" allows null but is not in required: it is never omitted` });
      visit(property, at, new Set());
    }
    listOf(schema.allOf).forEach((arm, i) => visit(arm, [...path, 'allOf', i], required));
    for (const key of ['anyOf', 'oneOf', 'prefixItems']) listOf(schema[key]).forEach((arm, i) => visit(arm, [...path, key, i], new Set()));
    if ('items' in schema) visit(schema.items, [...path, 'items'], new Set());
    if (isObject(schema.additionalProperties)) visit(schema.additionalProperties, [...path, 'additionalProperties'], new Set());
  };
  visit(root.value, root.path, new Set());
}

function isBearerScheme(scheme) {
  if (!isObject(scheme)) return false;
  if (scheme.type === 'http') return typeof scheme.scheme === 'string' && scheme.scheme.toLowerCase() === 'bearer';
  return scheme.type === 'oauth2' || scheme.type === 'openIdConnect';
}

function urlPath(url) {
  try {
    return new URL(url, 'http://relative.invalid').pathname;
  } catch {
    return url;
  }
}

/** Every finding of every rule, on the resolved document; `inventory` is Spectral's document inventory (the function context's). */
export function lintResolved(document, inventory) {
  const findings = [];
  const visited = new Set();
  const asRef = new Map();
  const deref = makeDeref(document, inventory);
  const covers = makeCovering(deref);
  const operations = operationsOf(document);
  const schemes = isObject(document.components) && isObject(document.components.securitySchemes) ? document.components.securitySchemes : {};
  for (const op of operations) {
    const label = `${op.method.toUpperCase()} ${op.template}`;
    const token = isTokenPath(op.template);

    // spec §Versioning 1–2.
    const version = op.parameters.find((p) => p.value.in === 'header' && typeof p.value.name === 'string' && p.value.name.toLowerCase() === 'accept-version');
    if (!version) findings.push({ rule: 'OAS-VERSION-HEADER', path: op.path, message: `${label} does not declare the Accept-Version header parameter` });
    else if (version.value.required !== true) findings.push({ rule: 'OAS-VERSION-HEADER', path: version.path, message: `${label}: the Accept-Version header is not required: true` });
    const responses = isObject(op.value.responses) ? op.value.responses : {};
    if (!('400' in responses) && !Object.keys(responses).some((k) => k.toUpperCase() === '4XX')) {
      findings.push({ rule: 'OAS-VERSION-400', path: isObject(op.value.responses) ? [...op.path, 'responses'] : op.path, message: `${label} does not document 400, the answer to a missing or invalid Accept-Version` });
    }

    // spec §Authentication 4.
    if (!token) {
      const own = Array.isArray(op.value.security);
      const security = listOf(own ? op.value.security : document.security);
      const where = own ? [...op.path, 'security'] : Array.isArray(document.security) ? ['security'] : op.path;
      if (security.length === 0) {
        findings.push({ rule: 'OAS-BEARER', path: where, message: `${label} requires no authentication${own ? '' : ' (no security here nor at the top level)'}` });
      } else {
        const alternatives = security.map((r) => (isObject(r) ? Object.keys(r) : []));
        const without = alternatives.findIndex((names) => !names.some((n) => isBearerScheme(schemes[n])));
        if (without !== -1) {
          const names = alternatives[without];
          findings.push({ rule: 'OAS-BEARER', path: [...where, without], message: `${label} can be called ${names.length === 0 ? 'without authentication' : `with ${names.join(' + ')}`}, not a bearer token` });
        }
      }
    }

    // spec §Authentication 5, §Tenant identifier.
    const tenantName = tenantParameterOf(op.template);
    if (!AUTH_PATHS.has(op.template) && tenantName === undefined && op === operations.find((o) => o.template === op.template)) {
      findings.push({ rule: 'OAS-TENANT-PATH', path: ['paths', op.template], message: `path ${op.template} is not under ${TENANT_PREFIX} (only the authentication endpoints are outside a tenant)` });
    }
    if (tenantName !== undefined) {
      const tenant = op.parameters.find((p) => p.value.in === 'path' && p.value.name === tenantName);
      if (!tenant) findings.push({ rule: 'OAS-TENANT-UUID', path: op.path, message: `${label} does not declare the ${tenantName} path parameter` });
      else if (!isObject(tenant.value.schema) || !typesOf(tenant.value.schema).includes('string') || tenant.value.schema.format !== 'uuid') {
        findings.push({ rule: 'OAS-TENANT-UUID', path: isObject(tenant.value.schema) ? [...tenant.path, 'schema'] : tenant.path, message: `${label}: ${tenantName} is not declared a string of format uuid` });
      }
    }

    // spec §Pagination.
    const success = successResponse(op);
    if (returnsMany(op, success)) {
      const missing = ['page', 'size'].filter((name) => {
        const p = op.parameters.find((q) => q.value.in === 'query' && q.value.name === name);
        return !p || !isObject(p.value.schema) || !typesOf(p.value.schema).includes('integer');
      });
      if (missing.length > 0) findings.push({ rule: 'OAS-PAGE-PARAMS', path: op.path, message: `${label} returns a list but does not declare ${missing.map((m) => `"${m}"`).join(' and ')} as integer query parameter${missing.length > 1 ? 's' : ''}` });
      const declared = success && isObject(success.value.headers) ? Object.keys(success.value.headers).map((h) => h.toLowerCase()) : [];
      const absent = PAGING_HEADERS.filter((h) => !declared.includes(h.toLowerCase()));
      if (absent.length > 0) findings.push({ rule: 'OAS-PAGE-HEADERS', path: success ? success.path : op.path, message: `${label} returns a list but its success response does not declare ${absent.join(', ')}` });
    }

    // spec §Generic rules for optional fields; the token endpoint's bodies are RFC 6749's.
    if (!token) {
      for (const [code, response] of Object.entries(responses)) {
        if (!isObject(response)) continue;
        for (const body of bodySchemas({ value: response, path: [...op.path, 'responses', code] })) checkNulls(deref, body, findings, inventory, visited, asRef, covers);
      }
    }
  }

  // spec §Obtain an access token.
  let described = operations.some((o) => o.template === TOKEN_PATH && o.method === 'post');
  const tokenFindings = [];
  for (const [name, scheme] of Object.entries(schemes)) {
    if (!isObject(scheme) || scheme.type !== 'oauth2' || !isObject(scheme.flows) || !isObject(scheme.flows.clientCredentials)) continue;
    const tokenUrl = typeof scheme.flows.clientCredentials.tokenUrl === 'string' ? scheme.flows.clientCredentials.tokenUrl : '';
    if (urlPath(tokenUrl).replace(/\/$/, '') === TOKEN_PATH) described = true;
    else tokenFindings.push({ rule: 'OAS-TOKEN-ENDPOINT', path: ['components', 'securitySchemes', name, 'flows', 'clientCredentials', 'tokenUrl'], message: `security scheme "${name}": the client credentials tokenUrl ${JSON.stringify(tokenUrl)} is not ${TOKEN_PATH}` });
  }
  findings.push(...tokenFindings);
  if (!described && tokenFindings.length === 0) {
    findings.push({ rule: 'OAS-TOKEN-ENDPOINT', path: isObject(document.components) && isObject(document.components.securitySchemes) ? ['components', 'securitySchemes'] : [], message: `the document does not say where tokens come from: neither POST ${TOKEN_PATH} nor an OAuth 2.0 client credentials flow with that tokenUrl` });
  }
  return findings;
}

// Every rule of the ruleset calls this function on the whole document: the findings are worked
// out once per document and handed to each rule by its id.
const cache = new WeakMap();

export default function carrierConventions(targetVal, options, context) {
  if (!isObject(targetVal)) return [];
  let findings = cache.get(targetVal);
  if (!findings) {
    const inventory = context && context.documentInventory;
    const unresolved = unresolvedOf(inventory);
    // Each result at the place it is written (writtenAt), where lint puts it too.
    findings = lintResolved(targetVal, inventory).map((f) => {
      const written = unresolved === undefined ? undefined : writtenAt(unresolved, f.path);
      return written ? { ...f, path: written.path } : f;
    });
    cache.set(targetVal, findings);
  }
  return findings.filter((f) => f.rule === options.rule).map((f) => ({ message: f.message, path: f.path }));
}
