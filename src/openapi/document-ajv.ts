import { createRequire } from 'node:module';
import type { Ajv2020 as Ajv2020Class, ValidateFunction } from 'ajv/dist/2020.js';
import type { RegExpEngine } from 'ajv/dist/types/index.js';
import { evaluate, precompile, type PrecompiledValidators } from '../carrier/standalone.js';
import { SUBSCHEMA, SUBSCHEMA_LISTS, SUBSCHEMA_MAPS } from './json-schema.js';
import { at, isObject, pointerOf } from './pointer.js';

/**
 * ajv for the schemas of an OpenAPI document, as RESOURCE-SCHEMA validates against them
 * (src/battery/resources.ts): one instance holds the whole document, and a validator is compiled
 * for a JSON Pointer into it. ajv validates against JSON Schema 2020-12, which OpenAPI 3.1
 * schemas are and 3.0 schemas were rewritten to (json-schema.ts). Formats are not asserted: JSON
 * Schema 2020-12 §7.2 makes `format` an annotation, and asserting `date-time` or `email` would
 * fail values that many conformant servers send.
 *
 * The validators of the endpoints' schemas are compiled on the thread that reads the document
 * (src/runner/document-worker.ts, src/carrier/standalone.ts) when they are few; a worker of the battery compiles
 * what was not, for an endpoint it judges, when it judges it (issue 29, "Scale": compiling all of
 * a Stripe-sized document's schemas costs seconds of CPU that a run judging some never needs).
 *
 * A schema that cannot be compiled is one endpoint's problem, not the document's: compileFailure
 * says where it is and why, and the endpoints that do not use it are judged as ever (issue 29
 * item 3).
 */

const DOCUMENT_ID = 'openapi:document';
const require = createRequire(import.meta.url);

/**
 * Patterns as documents write them (docs/design.md, "Patterns in the dialect documents are
 * written in"): in unicode mode when the pattern is valid there (ajv's default, and the only mode
 * where `\p{…}` and astral characters mean what they say), else in the legacy mode ECMA-262
 * Annex B keeps for web-compatibility, which reads `\-`, `\_` or `\/` outside a class as the
 * character itself, as PCRE, Java and Python do: what the authors of
 * `^\d{4}\-\d{2}\-\d{2}$` meant. A pattern valid in neither is that schema's error.
 */
/**
 * A pattern's `\A`, `\Z` and `\z` (PCRE, Python, Java: start and end of the string; Django's URL
 * validator, and so every DRF document with a URL field, ends in one) as JavaScript's `^` and `$`:
 * JavaScript has neither, and reads `\z` outside unicode mode as a "z" (issue 38: a false failure
 * on every URL); and Java's POSIX classes `\p{XDigit}`… as the ASCII sets they are (issue 37: a
 * false failure on AWS's ids). A backslash escaped itself (`\\Z`) is left as it is.
 */
function withAnchors(pattern: string): string {
  return pattern.replace(/(?<!\\)((?:\\\\)*)\\A/g, '$1^').replace(/(?<!\\)((?:\\\\)*)\\[Zz]/g, '$1$$');
}

/**
 * A pattern that unicode mode refuses for a `\p{…}` it does not know, with Java's POSIX classes
 * (java.util.regex.Pattern, "POSIX character classes (US-ASCII only)") as the ASCII sets they are:
 * AWS's `\p{XDigit}{8}-…`, which the legacy mode would read as a "p" (issue 37: a false failure on
 * every such id). Only on refusal: `\p{Alpha}` or `\p{Lower}` are ECMA-262 Unicode properties
 * where unicode mode knows them, and a JSON Schema pattern is ECMA-262. Self-contained: its
 * source is ajv's standalone code too (dialectRegExp.code).
 */
export function javaPosixClasses(pattern: string): string {
  const posix: Record<string, string> = {
    Lower: 'a-z',
    Upper: 'A-Z',
    ASCII: '\\x00-\\x7F',
    Alpha: 'a-zA-Z',
    Digit: '0-9',
    Alnum: 'a-zA-Z0-9',
    Punct: '!-\\/:-@\\[-`{-~',
    Graph: '!-~',
    Print: ' -~',
    Blank: ' \\t',
    Cntrl: '\\x00-\\x1F\\x7F',
    XDigit: '0-9a-fA-F',
    Space: ' \\t\\n\\x0B\\f\\r',
    // Java's `\p{all}`, any character (java.util.regex.CharPredicates: AWS DLM's `[\p{all}]*`).
    all: '\\s\\S',
  };
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i += 1) {
    const c = pattern.charAt(i);
    if (c === '\\') {
      const named = /^\\([pP])\{([A-Za-z]+)\}/.exec(pattern.slice(i));
      const set = named ? posix[named[2] as string] : undefined;
      if (named && set !== undefined && (named[1] === 'p' || !inClass)) {
        out += inClass ? set : `[${named[1] === 'P' ? '^' : ''}${set}]`;
        i += named[0].length - 1;
      } else {
        out += c + pattern.charAt(i + 1);
        i += 1;
      }
      continue;
    }
    if (c === '[' && !inClass) inClass = true;
    else if (c === ']' && inClass) inClass = false;
    out += c;
  }
  return out;
}

export const dialectRegExp: RegExpEngine = Object.assign(
  (written: string, flags: string): RegExp => {
    const pattern = withAnchors(written);
    try {
      return new RegExp(pattern, flags);
    } catch (unicode) {
      try {
        return new RegExp(javaPosixClasses(pattern), flags);
      } catch {
        // Not Java's classes either: the legacy mode below.
      }
      try {
        // The legacy mode reads `\p{…}` as a "p": not what any author meant, so not read there.
        if (flags.includes('u') && !/(?<!\\)(?:\\\\)*\\[pP]\{/.test(pattern))
          return new RegExp(pattern, flags.replace('u', ''));
      } catch {
        // Reported with the unicode mode's reason below: the mode the pattern was read in first.
      }
      throw new Error(`pattern ${JSON.stringify(pattern)} is not a regular expression: ${(unicode as Error).message}`, {
        cause: unicode,
      });
    }
  },
  {
    // The same engine in ajv's standalone code (https://ajv.js.org/options.html#code: a custom
    // engine's `code` is what the generated module calls); its patterns were compiled already.
    code: `(function (w, f) { var p = (${withAnchors.toString()})(w); try { return new RegExp(p, f); } catch (e) { try { return new RegExp((${javaPosixClasses.toString()})(p), f); } catch (e2) { return new RegExp(p, f.replace("u", "")); } } })`,
  },
);

export function documentAjv(document: object, forStandaloneCode = false): Ajv2020Class {
  const { Ajv2020 } = require('ajv/dist/2020.js') as { Ajv2020: typeof Ajv2020Class };
  // optimize: false: ajv's optimisation passes over the generated code cost a third of the
  // compilation of a Stripe-sized document (measured: 5.1 s → 3.3 s of CPU, benchmarks/big-document.ts)
  // and change no verdict: the code validates the same.
  const code = { regExp: dialectRegExp, optimize: false, ...(forStandaloneCode ? { source: true } : {}) };
  // inlineRefs: false: every $ref'd schema is compiled once, as its own function, rather than
  // inlined into each schema that refers to it; a document whose endpoints share their component
  // schemas (all real ones) compiles a third quicker (Stripe's 212 endpoint validators: 2.0 s →
  // 1.3 s of CPU), and validates the same.
  const ajv = new Ajv2020({
    strict: false,
    allErrors: true,
    validateFormats: false,
    validateSchema: false,
    inlineRefs: false,
    code,
  });
  ajv.addSchema(withoutData(document) as object, DOCUMENT_ID);
  return ajv;
}

/** Objects whose keys are names (of properties, schemas, responses, media types, headers…), not keywords. */
const NAME_MAPS = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'schemas',
  'responses',
  'parameters',
  'requestBodies',
  'headers',
  'securitySchemes',
  'links',
  'callbacks',
  'pathItems',
  'paths',
  'webhooks',
  'content',
  'encoding',
  'variables',
]);
/** Keywords whose values are data that ajv reads as data (json-schema-traverse skips them): kept as they are. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'required']);

/**
 * The document as ajv is given it: without the data that is not schema, where a key (`example`,
 * `examples`, `x-…` extensions) is a keyword and not a name in a map. ajv walks every key of what
 * it is given for `$id`s (json-schema-traverse with allKeys), examples included: a key `$id` inside
 * Box's example data made every validator of the document fail to compile (issue 37 item 5).
 * Examples are data, never schemas; the pointers to every schema stay as they are, since only
 * data is taken out (a `$ref` never leads into an example).
 */
export function withoutData(node: unknown, names = false, depth = 0): unknown {
  if (depth > 256) return node;
  if (Array.isArray(node)) return node.map((v) => withoutData(v, false, depth + 1));
  if (!isObject(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (names) out[key] = withoutData(value, false, depth + 1);
    else if (key === 'example' || key === 'examples' || key.startsWith('x-')) continue;
    else out[key] = DATA_KEYWORDS.has(key) ? value : withoutData(value, NAME_MAPS.has(key), depth + 1);
  }
  return out;
}

/** The schema that validates against the document's schema at `pointer` (e.g. `#/components/schemas/Shipment`). */
export function schemaAt(pointer: string): { $ref: string } {
  const fragment = pointer.slice(1).split('/').map(encodeURIComponent).join('/');
  return { $ref: `${DOCUMENT_ID}#${fragment}` };
}

/** Why the schema at a pointer cannot be compiled: the schema at fault (`at`, a JSON Pointer) and the reason. */
export interface CompileFailure {
  at: string;
  reason: string;
}

/**
 * Each schema the schema at `pointer` uses, its own and those its `$ref`s lead to (each once), as
 * [pointer, schema], until `visit` returns a value, which is returned. Bounded: a document is
 * within DOCUMENT_LIMITS, and this visits at most `max` schemas.
 */
function eachSchema<T>(
  document: object,
  pointer: string,
  visit: (at: string, schema: Record<string, unknown>) => T | undefined,
  max = 50_000,
): T | undefined {
  const seen = new Set<string>();
  const stack = [pointer];
  while (stack.length > 0 && seen.size < max) {
    const here = stack.pop() as string;
    if (seen.has(here)) continue;
    seen.add(here);
    const schema = at(document, here);
    if (!isObject(schema)) continue;
    const found = visit(here, schema);
    if (found !== undefined) return found;
    if (typeof schema.$ref === 'string' && schema.$ref.startsWith('#')) stack.push(schema.$ref);
    for (const key of SUBSCHEMA) {
      const value = schema[key];
      if (Array.isArray(value)) value.forEach((_, i) => stack.push(`${here}/${key}/${i}`));
      else if (isObject(value)) stack.push(`${here}/${key}`);
    }
    for (const key of SUBSCHEMA_MAPS) {
      const map = schema[key];
      if (isObject(map)) for (const name of Object.keys(map)) stack.push(`${here}/${key}/${pointerOf(name)}`);
    }
    for (const key of SUBSCHEMA_LISTS) {
      const list = schema[key];
      if (Array.isArray(list)) list.forEach((_, i) => stack.push(`${here}/${key}/${i}`));
    }
  }
  return undefined;
}

/** What is wrong with one schema object itself, whatever its subschemas: what ajv refuses to compile. */
function ownProblem(document: object, schema: Record<string, unknown>): string | undefined {
  const patterns = [
    ...(typeof schema.pattern === 'string' ? [schema.pattern] : []),
    ...(isObject(schema.patternProperties) ? Object.keys(schema.patternProperties) : []),
  ];
  for (const pattern of patterns) {
    try {
      dialectRegExp(pattern, 'u');
    } catch (err) {
      return (err as Error).message;
    }
  }
  const ref = schema.$ref;
  if (typeof ref === 'string') {
    if (!ref.startsWith('#')) return `$ref ${JSON.stringify(ref)} leads outside the document`;
    if (at(document, ref) === undefined) return `$ref ${JSON.stringify(ref)} leads nowhere in the document`;
  }
  return undefined;
}

/**
 * Where and why the schema at `pointer` cannot be compiled, ajv having thrown `err`: the first
 * schema it uses that is wrong in itself (a pattern valid in no mode, a $ref that leads nowhere),
 * or else the schema at `pointer` (after its $refs) with ajv's reason.
 */
export function compileFailure(document: object, pointer: string, err: unknown): CompileFailure {
  const found = eachSchema(document, pointer, (here, schema) => {
    const reason = ownProblem(document, schema);
    return reason === undefined ? undefined : { at: here, reason };
  });
  if (found) return found;
  let target = pointer;
  for (let hops = 0; hops < 32; hops += 1) {
    const node = at(document, target);
    if (!isObject(node) || typeof node.$ref !== 'string' || !node.$ref.startsWith('#')) break;
    target = node.$ref;
  }
  const message = err instanceof Error ? err.message : String(err);
  return { at: target, reason: message.replace(/\s+/g, ' ').trim().slice(0, 300) };
}

/**
 * How many distinct schemas `$ref`s lead to from these pointers, counted up to `max`: what
 * compiling their validators costs (every schema a $ref leads to is a function of its own).
 */
export function referencedSchemas(document: object, pointers: readonly string[], max: number): number {
  const targets = new Set<string>();
  for (const pointer of pointers) {
    eachSchema(document, pointer, (_, schema) => {
      if (typeof schema.$ref === 'string') targets.add(schema.$ref);
      return targets.size > max ? true : undefined;
    });
    if (targets.size > max) break;
  }
  return targets.size;
}

/** The validators of these schema pointers of the document, as code (on the document's thread). */
export function precompileDocument(document: object, pointers: readonly string[]): PrecompiledValidators {
  return precompile(
    documentAjv(document, true),
    [...new Set(pointers.map((p) => canonicalPointer(document, p)))],
    schemaAt,
  );
}

/** Keywords that do not validate (JSON Schema 2020-12 §9 meta-data, core §8.3 `$comment`): beside a lone `$ref` they change nothing ajv checks. */
const ANNOTATIONS = new Set([
  'description',
  'title',
  'example',
  'examples',
  '$comment',
  'deprecated',
  'readOnly',
  'writeOnly',
]);

/**
 * The pointer a validator of the schema at `pointer` is compiled for: where its `$ref` leads when
 * the schema is that `$ref` alone (annotations aside), followed to the end. Endpoints whose bodies
 * are `{$ref: Item}` (every list of a document that shares its component schemas) then share one
 * validator, compiled once, instead of one per endpoint of identical content (issue 29, "Scale":
 * 300 such validators cost 0.73 s of CPU and 1.28 MB of code to evaluate). It validates alike:
 * the schema is its `$ref`'s target.
 */
export function canonicalPointer(document: object, pointer: string): string {
  let current = pointer;
  for (let hops = 0; hops < 32; hops += 1) {
    const schema = at(document, current);
    if (!isObject(schema) || typeof schema.$ref !== 'string' || !schema.$ref.startsWith('#')) return current;
    if (!Object.keys(schema).every((k) => k === '$ref' || ANNOTATIONS.has(k))) return current;
    current = schema.$ref;
  }
  return current;
}

/**
 * Schemas that $refs lead to, at most, for the endpoints' validators to be compiled where the
 * document is read. Each is a function of ajv's; a few hundred compile in well under a second, in
 * parallel with the battery's start, which then loads no ajv of its own. Beyond, the battery
 * compiles, for each endpoint it judges, when it judges it: all of a Stripe-sized document's took
 * 3-5 s of CPU there (benchmarks/big-document.ts), which the run would wait for, whatever it judges.
 */
export const PRECOMPILE_MAX_SCHEMAS = 150;

/** precompileDocument, when the schemas are few enough (PRECOMPILE_MAX_SCHEMAS); else undefined. */
export function precompileIfFew(document: object, pointers: readonly string[]): PrecompiledValidators | undefined {
  if (referencedSchemas(document, pointers, PRECOMPILE_MAX_SCHEMAS) > PRECOMPILE_MAX_SCHEMAS) return undefined;
  return precompileDocument(document, pointers);
}

const received = new WeakMap<
  object,
  { validators: PrecompiledValidators; evaluated?: Map<string, ValidateFunction> }
>();

/** The battery received `document` with these precompiled validators (src/battery/context.ts). */
export function usePrecompiled(document: object, validators: PrecompiledValidators): void {
  received.set(document, { validators });
}

/** The precompiled validator of `pointer` in `document`, if it came with the document. */
export function precompiledValidator(document: object, pointer: string): ValidateFunction | undefined {
  const entry = received.get(document);
  if (!entry) return undefined;
  entry.evaluated ??= evaluate(entry.validators);
  return entry.evaluated.get(canonicalPointer(document, pointer));
}

/** Why the schema at `pointer` could not be compiled where the document was read, if it could not. */
export function precompiledFailure(document: object, pointer: string): CompileFailure | undefined {
  const message = received.get(document)?.validators.failed?.[canonicalPointer(document, pointer)];
  return message === undefined ? undefined : compileFailure(document, pointer, new Error(message));
}
