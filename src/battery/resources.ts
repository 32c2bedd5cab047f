import { isDeepStrictEqual } from 'node:util';
import type { Ajv2020 as Ajv2020Class, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { pathKey, wirePath, type EndpointSpec } from '../carrier/endpoint-specs.js';
import {
  canonicalPointer,
  compileFailure,
  documentAjv,
  precompiledFailure,
  precompiledValidator,
  schemaAt,
  type CompileFailure,
} from '../openapi/document-ajv.js';
import { at as target, isObject, pointerOf, resolve, type Json } from '../openapi/pointer.js';
import { at as nodeAt } from '../openapi/pointer.js';
import { mayBeObject, omissionMessage } from '../lint/omission.js';
import { satisfiabilityFindings, type SatisfiableRule } from '../lint/satisfiable.js';
import { itemId } from '../carrier/list-items.js';
import { describeValue } from './describe.js';
import type { BatteryContext } from './wiring.js';

/**
 * Judging the resources a tenant endpoint serves, item by item, against what the user declared:
 * the JSON Schema of the OpenAPI document (RESOURCE-SCHEMA), the properties it declares, which
 * must all be present, null where there is no data (RESOURCE-FIELDS-PRESENT; spec §Generic rules
 * for optional fields 1), and the known values of seeded items (RESOURCE-EXPECTED-VALUES; null,
 * "" and absent told apart, spec §Generic rules for optional fields 1 and 2).
 *
 * Every judgement returns lines of text for the report; nothing is thrown, nothing is kept.
 */

/** What the three checks found in one object (an item of a list, or a resource). */
export interface ResourceProblems {
  schema: string[];
  missing: string[];
  expected: string[];
}

/** The ids of the seeded items, and what is known of each. */
export type ExpectedItems = Map<string, Json>;

let ajv: Ajv2020Class | undefined;
let ajvDocument: unknown;
const validators = new Map<string, ValidateFunction>();
/** The schemas that could not be compiled, with why: asked again, they are not compiled again. */
const failures = new Map<string, CompileFailure>();

/**
 * The validator of a schema pointer: the one precompiled with the document (see
 * src/openapi/document-ajv.ts), or compiled now; ajv is loaded at the first such compilation.
 * Undefined when the schema cannot be compiled (`failures` says why): that is the endpoint's
 * problem alone (issue 29 item 3), never an exception that takes the walk of a list down.
 */
function validator(document: Json, schemaPointer: string): ValidateFunction | undefined {
  // Endpoints whose schema is one `$ref` share that schema's validator (document-ajv.ts canonicalPointer).
  const pointer = canonicalPointer(document, schemaPointer);
  const precompiled = precompiledValidator(document, pointer);
  if (precompiled) return precompiled;
  if (ajvDocument !== document) {
    ajv = undefined;
    ajvDocument = document;
    validators.clear();
    failures.clear();
  }
  if (failures.has(pointer)) return undefined;
  let fn = validators.get(pointer);
  if (fn) return fn;
  // Where the document was read, it did not compile: it would not here either.
  const there = precompiledFailure(document, pointer);
  if (there) {
    failures.set(pointer, there);
    return undefined;
  }
  ajv ??= documentAjv(document);
  try {
    fn = ajv.compile(schemaAt(pointer));
  } catch (err) {
    failures.set(pointer, compileFailure(document, pointer, err));
    return undefined;
  }
  validators.set(pointer, fn);
  return fn;
}

/**
 * Why RESOURCE-SCHEMA cannot judge a value against the schema at `pointer`, if it cannot: "its
 * schema at #/components/schemas/X/properties/y cannot be compiled: <reason>", naming the schema
 * at fault (one it uses, through its $refs) and why.
 */
export function schemaCompileProblem(document: Json, pointer: string): string | undefined {
  if (validator(document, pointer)) return undefined;
  const failure = failures.get(canonicalPointer(document, pointer)) ?? { at: pointer, reason: 'ajv gave no reason' };
  return `its schema at ${failure.at} cannot be compiled: ${failure.reason}`;
}

/** A field's path as a reader writes it, from a JSON Pointer: `/lines/0/amount` → `lines[0].amount`. */
function fieldOf(instancePath: string): string {
  return instancePath
    .split('/')
    .slice(1)
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((t, i) => (/^\d+$/.test(t) ? `[${t}]` : `${i === 0 ? '' : '.'}${t}`))
    .join('');
}

function valueAt(value: unknown, instancePath: string): unknown {
  let node = value;
  for (const raw of instancePath.split('/').slice(1)) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = Array.isArray(node) ? node[Number(token)] : isObject(node) ? node[token] : undefined;
  }
  return node;
}

/**
 * One error as a line: the field at fault as a reader writes it (`base` is where `value` sits in
 * the resource, e.instancePath is inside `value`), what it must be, and what it is.
 */
function describeError(e: ErrorObject, value: unknown, base = ''): string {
  const field = fieldOf(base + e.instancePath);
  const got = describeValue(valueAt(value, e.instancePath));
  const where = field === '' ? 'the resource' : `field "${field}"`;
  if (e.keyword === 'type') {
    const types = ([] as unknown[]).concat(e.params.type as unknown).map(String);
    return `${where}: must be ${types.join(' or ')}, got ${got}`;
  }
  if (e.keyword === 'enum') return `${where}: must be one of ${JSON.stringify(e.params.allowedValues)}, got ${got}`;
  if (e.keyword === 'const') return `${where}: must be ${JSON.stringify(e.params.allowedValue)}, got ${got}`;
  if (e.keyword === 'required') return `${where}: must have required property ${String(e.params.missingProperty)}`;
  if (e.keyword === 'additionalProperties')
    return `${where}: must not have property ${JSON.stringify(e.params.additionalProperty)}`;
  return `${where}: ${e.message ?? 'is invalid'} (got ${got})`;
}

/** Whether instance path `path` is `prefix` or inside it. */
const within = (path: string, prefix: string): boolean =>
  prefix === '' || path === prefix || path.startsWith(`${prefix}/`);

/**
 * Schemas that apply where these do, outermost first: each, what its $ref leads to, and the
 * members of its allOf/anyOf/oneOf, transitively (bounded).
 */
function applicable(document: Json, pointers: readonly string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const stack = [...pointers].reverse();
  while (stack.length > 0 && out.length < 200) {
    const here = stack.pop() as string;
    if (seen.has(here)) continue;
    seen.add(here);
    out.push(here);
    const s = nodeAt(document, here);
    if (!isObject(s)) continue;
    const more: string[] = [];
    if (typeof s.$ref === 'string' && s.$ref.startsWith('#')) more.push(s.$ref);
    for (const k of ['allOf', 'anyOf', 'oneOf'] as const) {
      const list = s[k];
      if (Array.isArray(list)) list.forEach((_, i) => more.push(`${here}/${k}/${i}`));
    }
    stack.push(...more.reverse());
  }
  return out;
}

/** The outermost schema with a `keyword` (anyOf/oneOf) that applies at instance path `path` of a value of the schema at `pointer`. */
function compositeAt(
  document: Json,
  pointer: string,
  path: string,
  keyword: string,
): { pointer: string; schema: Json } | undefined {
  for (const p of schemasAt(document, pointer, path)) {
    const s = nodeAt(document, p);
    if (isObject(s) && Array.isArray(s[keyword])) return { pointer: p, schema: s };
  }
  return undefined;
}

/** Every schema that applies at instance path `path` of a value of the schema at `pointer`, outermost first (union arms included). */
function schemasAt(document: Json, pointer: string, path: string): string[] {
  let current = applicable(document, [pointer]);
  for (const raw of path.split('/').slice(1)) {
    const t = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const next: string[] = [];
    for (const p of current) {
      const s = nodeAt(document, p);
      if (!isObject(s)) continue;
      // A pointer's tokens are URI-decoded (pointer.ts `at`): a `%` in a name is written %25.
      if (isObject(s.properties) && Object.hasOwn(s.properties, t))
        next.push(`${p}/properties/${raw.replace(/%/g, '%25')}`);
      else if (/^\d+$/.test(t) && Array.isArray(s.prefixItems) && Number(t) < s.prefixItems.length)
        next.push(`${p}/prefixItems/${t}`);
      else if (/^\d+$/.test(t) && isObject(s.items)) next.push(`${p}/items`);
      else if (isObject(s.additionalProperties)) next.push(`${p}/additionalProperties`);
    }
    current = applicable(document, next);
  }
  return current;
}

/** The lint findings of the three "no server can satisfy this" rules on each schema, by document and pointer (src/lint/satisfiable.ts). */
const unsatisfiable = new WeakMap<Json, Map<string, SatisfiableRule[]>>();

function rulesAt(document: Json, pointer: string): SatisfiableRule[] {
  let byPointer = unsatisfiable.get(document);
  if (!byPointer) unsatisfiable.set(document, (byPointer = new Map<string, SatisfiableRule[]>()));
  let rules = byPointer.get(pointer);
  if (rules === undefined) {
    const s = nodeAt(document, pointer);
    const deref = (v: unknown): unknown => resolve(document, v, '').value;
    rules =
      isObject(s) && typeof s.$ref !== 'string'
        ? [...new Set(satisfiabilityFindings(s, deref).map((f) => f.rule))]
        : [];
    if (byPointer.size < 5000) byPointer.set(pointer, rules);
  }
  return rules;
}

/** Which rule of the document's makes error `e` no server's fault, if one does (issue 37 item 8). */
function documentCause(document: Json, pointer: string, e: ErrorObject): SatisfiableRule | undefined {
  // A value several branches match is the document's only where its branches cannot be told apart
  // at all (lint's OAS-ONEOF-DISTINCT); where they can, the server sent one that fits two.
  const passing: unknown = e.params.passingSchemas;
  const several = e.keyword === 'oneOf' && Array.isArray(passing) && passing.length > 1;
  const relevant: Partial<Record<string, SatisfiableRule[]>> = {
    type: ['OAS-ENUM-TYPE'],
    enum: ['OAS-ENUM-TYPE'],
    const: ['OAS-ENUM-TYPE'],
    oneOf: several ? ['OAS-ONEOF-DISTINCT', 'OAS-CLOSED-SCHEMA'] : ['OAS-CLOSED-SCHEMA'],
    anyOf: ['OAS-CLOSED-SCHEMA'],
    additionalProperties: ['OAS-CLOSED-SCHEMA'],
  };
  const wanted = relevant[e.keyword];
  if (!wanted) return undefined;
  for (const p of schemasAt(document, pointer, e.instancePath)) {
    const found = rulesAt(document, p).find((r) => wanted.includes(r));
    if (found) return found;
  }
  return undefined;
}

/**
 * The branch a discriminator selects (OAS 3.1 §4.8.25: its mapping, else the schema's name), if
 * it has one and the value names one; failing an exact name, the branch whose property admits
 * the value as its `const` or `enum` (what documents that write names in another case mean).
 */
function discriminated(
  document: Json,
  node: Json,
  branches: readonly unknown[],
  value: unknown,
): { index: number | undefined; text: string } | undefined {
  const d = node.discriminator;
  if (!isObject(d) || typeof d.propertyName !== 'string' || !isObject(value)) return undefined;
  const named = value[d.propertyName];
  if (typeof named !== 'string') return undefined;
  const mapped = isObject(d.mapping) ? d.mapping[named] : undefined;
  const target =
    typeof mapped === 'string'
      ? mapped.startsWith('#')
        ? mapped
        : `#/components/schemas/${mapped}`
      : `#/components/schemas/${named}`;
  const propertyName = d.propertyName;
  let index = branches.findIndex((b) => isObject(b) && b.$ref === target);
  if (index < 0) {
    index = branches.findIndex((b) => {
      const own = resolve(document, b, '#').value;
      const property =
        isObject(own) && isObject(own.properties)
          ? resolve(document, own.properties[propertyName], '#').value
          : undefined;
      return (
        isObject(property) &&
        (property.const === named || (Array.isArray(property.enum) && property.enum.includes(named)))
      );
    });
  }
  return { index: index >= 0 ? index : undefined, text: `its ${propertyName} ${JSON.stringify(named)}` };
}

interface Scope {
  /** Whether `required` errors are this check's (inside a union's branch) or RESOURCE-FIELDS-PRESENT's. */
  keepRequired: boolean;
  depth: number;
  /** What every line found here adds: the union and branch it was found in. */
  note: string;
}

/**
 * The lines of ajv's errors for `value` against the schema at `pointer`, each at its own path. A
 * failing anyOf/oneOf is explained by its branches (explainUnion), not by its own "must match a
 * schema in anyOf"; ajv reports a union after its branches' errors, which are the ones just
 * before it, inside its path.
 */
function explain(
  document: Json,
  pointer: string,
  value: unknown,
  base: string,
  errors: readonly ErrorObject[],
  scope: Scope,
): string[] {
  const claimed = errors.map(() => false);
  for (let k = errors.length - 1; k >= 0; k -= 1) {
    const e = errors[k] as ErrorObject;
    if (claimed[k] || (e.keyword !== 'anyOf' && e.keyword !== 'oneOf')) continue;
    for (let j = k - 1; j >= 0 && within((errors[j] as ErrorObject).instancePath, e.instancePath); j -= 1)
      claimed[j] = true;
  }
  const lines: string[] = [];
  errors.forEach((e, k) => {
    if (claimed[k] || e.keyword === 'if') return;
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf')
      lines.push(...explainUnion(document, pointer, value, base, e, scope));
    else if (e.keyword !== 'required' || scope.keepRequired)
      lines.push(`${describeError(e, value, base)}${scope.note}`);
  });
  return [...new Set(lines)];
}

/**
 * A failing anyOf/oneOf (issue 29 item 7): the branches that matched when several matched a
 * oneOf; else the branch its discriminator selects, or the one that matched best (fewest
 * errors), and why that one failed, at the failure's own path. A nullable wrapper (`anyOf: [X,
 * {type: null}]`, as 3.0's nullable reads) is X's failure, never "must be null".
 */
function explainUnion(
  document: Json,
  pointer: string,
  value: unknown,
  base: string,
  e: ErrorObject,
  scope: Scope,
): string[] {
  const flat = [`${describeError(e, value, base)}${scope.note}`];
  const node = scope.depth < 8 ? compositeAt(document, pointer, e.instancePath, e.keyword) : undefined;
  if (!node) return flat;
  const branches = node.schema[e.keyword] as unknown[];
  const name = (i: number): string => {
    const b = branches[i];
    return isObject(b) && typeof b.$ref === 'string' ? b.$ref : `${node.pointer}/${e.keyword}/${i}`;
  };
  const path = fieldOf(base + e.instancePath);
  const where = path === '' ? 'the resource' : `field "${path}"`;
  const passing: unknown = e.params.passingSchemas;
  if (Array.isArray(passing) && passing.length > 1)
    return [
      `${where}: must match exactly one branch of its oneOf, matches ${passing.length}: ${passing.map((i) => name(Number(i))).join(', ')}${scope.note}`,
    ];
  const sub = valueAt(value, e.instancePath);
  const results = branches.map((_, i) => {
    const validate = validator(document, `${node.pointer}/${e.keyword}/${i}`);
    if (!validate) return undefined;
    return validate(sub)
      ? { errors: [] as ErrorObject[], ok: true }
      : { errors: [...(validate.errors ?? [])], ok: false };
  });
  const nullAt = branches.findIndex((b) => isObject(b) && b.type === 'null' && Object.keys(b).length === 1);
  const wrapper = branches.length === 2 && nullAt >= 0;
  let chosen: number | undefined;
  let why = '';
  if (wrapper) chosen = 1 - nullAt;
  const d = wrapper ? undefined : discriminated(document, node.schema, branches, sub);
  if (d && d.index === undefined)
    return [`${where}: ${d.text} names none of the ${branches.length} branches of its ${e.keyword}${scope.note}`];
  if (d) {
    chosen = d.index;
    why = `${d.text} selects`;
  }
  if (chosen === undefined) {
    // The closest: a branch of the value's own type first (an expanded object is an object's
    // failure, not "must be string" of the id branch beside it), then the fewest errors.
    const rank = (r: { errors: ErrorObject[] }): number =>
      (r.errors.some((x) => x.instancePath === '' && x.keyword === 'type') ? 1_000_000 : 0) + r.errors.length;
    let best = Infinity;
    results.forEach((r, i) => {
      if (r && !r.ok && rank(r) < best) [best, chosen] = [rank(r), i];
    });
    why = 'the closest is';
  }
  const result = chosen === undefined ? undefined : results[chosen];
  if (chosen === undefined || !result || result.ok) return flat;
  const note = wrapper
    ? scope.note
    : ` (${path === '' ? 'the resource' : path} matches none of the ${branches.length} branches of its ${e.keyword}; ${why} ${name(chosen)})${scope.note}`;
  const lines = explain(document, `${node.pointer}/${e.keyword}/${chosen}`, sub, base + e.instancePath, result.errors, {
    keepRequired: wrapper ? scope.keepRequired : true,
    depth: scope.depth + 1,
    note,
  });
  // Through a nullable wrapper, X's omissions only: RESOURCE-FIELDS-PRESENT's, which follows it.
  return lines.length > 0 || wrapper ? lines : flat;
}

/** Rounds of null removal (nullsRefused): each round can only reveal nulls inside a union branch the last one let match. */
const NULL_ROUNDS = 4;

/** `/a/b~1c` → ['a', 'b/c']. */
function tokensOf(instancePath: string): string[] {
  return instancePath
    .split('/')
    .slice(1)
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * The instance paths of the object properties whose value is null and which an error is about
 * (a `type`, `enum`, `const`… error at the property itself): the nulls the schema refused.
 */
function refusedNulls(value: unknown, errors: readonly ErrorObject[]): string[] {
  const out = new Set<string>();
  for (const e of errors) {
    if (e.instancePath === '' || out.has(e.instancePath)) continue;
    const tokens = tokensOf(e.instancePath);
    const parent = valueAt(value, e.instancePath.slice(0, e.instancePath.lastIndexOf('/')));
    const name = tokens.at(-1) as string;
    if (isObject(parent) && Object.hasOwn(parent, name) && parent[name] === null) out.add(e.instancePath);
  }
  return [...out];
}

/** A copy of `value` without the properties at `paths` (object properties, by instance path). */
function without(value: unknown, paths: readonly string[]): unknown {
  const copy = structuredClone(value);
  for (const path of paths) {
    const parent = valueAt(copy, path.slice(0, path.lastIndexOf('/')));
    if (isObject(parent)) delete parent[tokensOf(path).at(-1) as string];
  }
  return copy;
}

/**
 * The value as the spec's rule for optional fields reads it, and the nulls the schema requires a
 * value for. Spec §Generic rules for optional fields 1: an optional field without data is sent as
 * null. The document says which fields exist and their types; the spec says how a field without
 * data is sent, so a null is accepted for every optional property, whatever its schema says of
 * null (a document that forbids it contradicts the spec: lint's OAS-NULLABLE, reported once). A
 * null the schema refused is read as the omission of that property: the schema's own `required`
 * then says whether the property was optional (the null is accepted) or required (it is a
 * failure: a required property has data, and null is not of its type), through every allOf,
 * oneOf and anyOf exactly as the schema composes them. Bounded rounds: a null removed can let a
 * union branch match whose nulls were not reported before.
 */
function nullsRefused(
  validate: ValidateFunction,
  value: unknown,
  errors: ErrorObject[],
): { value: unknown; errors: ErrorObject[]; requiredNulls: ErrorObject[] } {
  let current = value;
  let currentErrors = errors;
  const removed = new Map<string, ErrorObject>();
  for (let round = 0; round < NULL_ROUNDS; round += 1) {
    const nulls = refusedNulls(current, currentErrors).filter((p) => !removed.has(p));
    if (nulls.length === 0) break;
    for (const p of nulls) removed.set(p, currentErrors.find((e) => e.instancePath === p) as ErrorObject);
    current = without(value, [...removed.keys()]);
    currentErrors = validate(current) ? [] : [...(validate.errors ?? [])];
  }
  if (removed.size === 0) return { value, errors, requiredNulls: [] };
  // A removed null that its schema then misses as `required` was a required property sent as null.
  const requiredNulls: ErrorObject[] = [];
  const rest = currentErrors.filter((e) => {
    if (e.keyword !== 'required') return true;
    const path = `${e.instancePath}/${pointerOf(String(e.params.missingProperty))}`;
    const refused = removed.get(path);
    if (!refused) return true;
    if (!requiredNulls.includes(refused)) requiredNulls.push(refused);
    return false;
  });
  return { value: current, errors: rest, requiredNulls };
}

/** RESOURCE-SCHEMA's judgement of one value: what the server got wrong, and what no server could get right (the document's). */
export interface SchemaJudgement {
  problems: string[];
  /** Failures a schema that contradicts itself makes of every value (lint's OAS-ENUM-TYPE, OAS-ONEOF-DISTINCT, OAS-CLOSED-SCHEMA): the document's, never the deployment's. */
  documentFaults: string[];
}

/**
 * RESOURCE-SCHEMA: what the value breaks of its declared schema, a line each, at its own path.
 * Omitted properties (`required`) are RESOURCE-FIELDS-PRESENT's to report, so that one omission
 * is one finding; inside a union's branch, which that check does not follow, they are this one's.
 * A null is accepted for every optional property (nullsRefused). A failure that the schema makes
 * of every value (`{type: string, enum: [1, 2]}`, a oneOf whose branches overlap, a closed schema
 * that forbids its own branches' properties: issue 37 item 8) is the document's, said apart.
 */
export function schemaJudgement(document: Json, pointer: string, value: unknown): SchemaJudgement {
  const validate = validator(document, pointer);
  if (!validate) throw new Error(schemaCompileProblem(document, pointer));
  if (validate(value)) return { problems: [], documentFaults: [] };
  const read = nullsRefused(validate, value, [...(validate.errors ?? [])]);
  const nulls = read.requiredNulls.map(
    (e) => `${describeError(e, value)} (a required property: it has data, so never null)`,
  );
  // The document's: each error a self-contradicting schema makes, with the errors of the union it explains.
  const documentFaults: string[] = [];
  const dropped = read.errors.map(() => false);
  for (let k = read.errors.length - 1; k >= 0; k -= 1) {
    const e = read.errors[k] as ErrorObject;
    if (dropped[k]) continue;
    const cause = documentCause(document, pointer, e);
    if (cause === undefined) continue;
    dropped[k] = true;
    let text = describeError(e, read.value);
    try {
      if (e.keyword === 'oneOf' || e.keyword === 'anyOf')
        text =
          explainUnion(document, pointer, read.value, '', e, { keepRequired: true, depth: 0, note: '' }).join('; ') ||
          text;
    } catch {
      // As below: a hostile document's pointers leave ajv's own words.
    }
    documentFaults.push(`${text} (the document's schema there cannot be met by any server: its finding ${cause})`);
    if (e.keyword === 'oneOf' || e.keyword === 'anyOf')
      for (let j = k - 1; j >= 0 && within((read.errors[j] as ErrorObject).instancePath, e.instancePath); j -= 1)
        dropped[j] = true;
  }
  const errors = read.errors.filter((_, k) => !dropped[k]);
  if (errors.length === 0) return { problems: nulls, documentFaults };
  try {
    // Nothing left when the value's only faults are omissions: RESOURCE-FIELDS-PRESENT reports them.
    return {
      problems: [
        ...nulls,
        ...explain(document, pointer, read.value, '', errors, { keepRequired: false, depth: 0, note: '' }),
      ],
      documentFaults,
    };
  } catch {
    // The explanation follows the document's pointers, which a hostile document can make throw:
    // ajv's own errors then, each at its path, rather than no judgement of the item.
    return {
      problems: [
        ...nulls,
        ...new Set(errors.filter((e) => e.keyword !== 'required').map((e) => describeError(e, read.value))),
      ],
      documentFaults,
    };
  }
}

/** schemaJudgement's lines of what the server got wrong. */
export function schemaProblems(document: Json, pointer: string, value: unknown): string[] {
  return schemaJudgement(document, pointer, value).problems;
}

/**
 * A property an object schema declares, as RESOURCE-FIELDS-PRESENT reads it: its schema (the
 * first declaration met, whose pointer nested values are judged by) and whether the schema
 * requires it.
 */
interface Declared {
  schema: unknown;
  pointer: string;
  required: boolean;
}

/** What one walk over a schema's declarations gathers (see collectDeclared). */
interface Declarations {
  properties: Map<string, { schema: unknown; pointer: string }>;
  /** Names listed in `required`, with where the first list is (for a name no `properties` declares). */
  required: Map<string, string>;
  writeOnly: Set<string>;
  seen: Set<string>;
}

/**
 * Whether a property's schema is writeOnly: itself, what its `$ref` points at, any allOf member
 * (annotations of every applying subschema apply: JSON Schema 2020-12 core §7.7.1), or every
 * non-null arm of an "X or null" (3.0's `nullable` beside a writeOnly `$ref` reads that way).
 */
function isWriteOnly(document: Json, schema: unknown, depth = 0): boolean {
  if (!isObject(schema) || depth > 16) return false;
  if (schema.writeOnly === true) return true;
  if (
    typeof schema.$ref === 'string' &&
    isWriteOnly(document, resolve(document, { $ref: schema.$ref }, schema.$ref).value, depth + 1)
  )
    return true;
  if (Array.isArray(schema.allOf) && schema.allOf.some((m) => isWriteOnly(document, m, depth + 1))) return true;
  return (['anyOf', 'oneOf'] as const).some((k) => {
    const arms = Array.isArray(schema[k])
      ? (schema[k] as unknown[]).filter((a) => !(isObject(a) && a.type === 'null'))
      : [];
    return arms.length > 0 && arms.every((a) => isWriteOnly(document, a, depth + 1));
  });
}

/**
 * Gathers the declarations that certainly apply to an object value of `schema`: its own, every
 * allOf member's, those of keywords beside a `$ref` (OAS 3.1 §4.8.24: a schema is JSON Schema
 * 2020-12, where they apply with it; 3.0 ignores them, but a writeOnly there is written to mean
 * what it says, as `nullable` is: src/openapi/json-schema.ts), and of the one arm of an anyOf/oneOf that admits an object
 * (the X of "X or null"; the object of Stripe's expandable `anyOf: [string, $ref]`). Where more
 * than one arm admits an object, which applies is not known: none is gathered (issue 29 item 6).
 */
function collectDeclared(document: Json, schema: unknown, pointer: string, depth: number, into: Declarations): void {
  if (depth > 16) return;
  if (isObject(schema) && typeof schema.$ref === 'string') {
    const { $ref, ...siblings } = schema;
    if ($ref.startsWith('#')) collectDeclared(document, target(document, $ref), $ref, depth + 1, into);
    if (Object.keys(siblings).length > 0) collectDeclared(document, siblings, pointer, depth + 1, into);
    return;
  }
  const s = schema;
  const at = pointer;
  if (!isObject(s) || into.seen.has(at)) return;
  into.seen.add(at);
  if (isObject(s.properties)) {
    for (const [name, child] of Object.entries(s.properties)) {
      // A writeOnly property is sent by clients, never served (OAS 3.0.3 §4.7.24 readOnly/writeOnly, JSON Schema validation 2020-12 §9.4).
      if (isWriteOnly(document, child)) into.writeOnly.add(name);
      if (!into.properties.has(name))
        into.properties.set(name, {
          schema: child,
          pointer: resolve(document, child, `${at}/properties/${pointerOf(name)}`).pointer,
        });
    }
  }
  if (Array.isArray(s.required))
    for (const name of s.required)
      if (typeof name === 'string' && !into.required.has(name)) into.required.set(name, `${at}/required`);
  if (Array.isArray(s.allOf))
    s.allOf.forEach((member, i) => collectDeclared(document, member, `${at}/allOf/${i}`, depth + 1, into));
  for (const key of ['anyOf', 'oneOf'] as const) {
    const arms = s[key];
    if (!Array.isArray(arms)) continue;
    const objects = arms.map((a, i) => [a, i] as const).filter(([a]) => mayBeObject(document, a));
    const only = objects.length === 1 ? objects[0] : undefined;
    if (only) collectDeclared(document, only[0], `${at}/${key}/${only[1]}`, depth + 1, into);
  }
}

/**
 * The properties an object value of a schema must be read against (collectDeclared), with their
 * schemas and whether required. A writeOnly property is left out even when `required`
 * lists it: OAS 3.0.3 §4.7.24 (readOnly/writeOnly) applies `required` on it to requests only.
 * readOnly properties are served like any other and stay in.
 */
function declaredProperties(document: Json, schema: unknown, pointer: string, depth: number): Map<string, Declared> {
  const found: Declarations = { properties: new Map(), required: new Map(), writeOnly: new Set(), seen: new Set() };
  collectDeclared(document, schema, pointer, depth, found);
  const out = new Map<string, Declared>();
  for (const [name, p] of found.properties)
    if (!found.writeOnly.has(name)) out.set(name, { ...p, required: found.required.has(name) });
  // Listed in required with no schema: anything, null included.
  for (const [name, at] of found.required)
    if (!out.has(name) && !found.writeOnly.has(name)) out.set(name, { schema: {}, pointer: at, required: true });
  return out;
}

/** What missingDeclared needs of a schema pointer: its declared properties, and where its array items' schema is. */
interface Plan {
  itemPointer: string | undefined;
  /** The declared property names and their schemas' pointers, side by side. */
  names: string[];
  pointers: string[];
  /** The plans of the properties (by index in `names`) and of the items, as hasEveryDeclared meets them. */
  children: (Plan | undefined)[];
  items: Plan | undefined;
}

/** Plans by document and pointer: a list's items share one schema, which is read once, not once per item. */
const plans = new WeakMap<Json, Map<string, Plan>>();

function planOf(document: Json, pointer: string): Plan {
  let byPointer = plans.get(document);
  if (!byPointer) plans.set(document, (byPointer = new Map<string, Plan>()));
  let plan = byPointer.get(pointer);
  if (!plan) {
    const self = resolve(document, { $ref: pointer }, pointer);
    const items =
      isObject(self.value) && self.value.items !== undefined
        ? resolve(document, self.value.items, `${self.pointer}/items`).pointer
        : undefined;
    const properties = declaredProperties(document, { $ref: pointer }, pointer, 0);
    const declared = [...properties.values()];
    plan = {
      itemPointer: items,
      names: [...properties.keys()],
      pointers: declared.map((p) => p.pointer),
      children: [],
      items: undefined,
    };
    byPointer.set(pointer, plan);
  }
  return plan;
}

/**
 * RESOURCE-FIELDS-PRESENT: every property the schema declares that the value omits, as dotted
 * paths (nested objects and array elements included, a few levels deep). Required or optional,
 * null allowed by its schema or not: an optional field without data is sent as null, never
 * omitted (spec §Generic rules for optional fields 1), whatever the document says of null (the
 * spec over the document, docs/design.md "One rule for null"; a schema that does not allow null
 * is the document's finding, OAS-NULLABLE, and RESOURCE-SCHEMA accepts the null). writeOnly
 * properties are requests' only and are not demanded. Properties that only some branches of oneOf/anyOf declare are not demanded where more
 * than one branch may apply to an object: which one does is not known (collectDeclared).
 */
export function missingDeclared(document: Json, pointer: string, value: unknown, prefix = '', depth = 0): string[] {
  if (depth > 6) return [];
  const plan = planOf(document, pointer);
  if (Array.isArray(value)) {
    const itemPointer = plan.itemPointer;
    if (itemPointer === undefined) return [];
    const out: string[] = [];
    for (let i = 0; i < value.length && out.length < 20; i += 1)
      out.push(...missingDeclared(document, itemPointer, value[i], `${prefix}[${i}]`, depth + 1));
    return out.slice(0, 20);
  }
  if (!isObject(value)) return [];
  const out: string[] = [];
  // Paths are written only for what is reported or followed: this runs for every item of a walk.
  plan.names.forEach((name, i) => {
    // Own properties only: `in` would find an omitted `constructor` or `toString` on Object.prototype.
    if (!Object.hasOwn(value, name)) {
      out.push(prefix === '' ? name : `${prefix}.${name}`);
    } else {
      const v = value[name];
      if (v !== null && typeof v === 'object')
        out.push(
          ...missingDeclared(
            document,
            plan.pointers[i] as string,
            v,
            prefix === '' ? name : `${prefix}.${name}`,
            depth + 1,
          ),
        );
    }
  });
  return out;
}

/**
 * Whether missingDeclared finds nothing, told without writing a path or an array: what every
 * item of a walk costs when it carries its fields (missingDeclared then says which are missing).
 * It follows missingDeclared step by step: the same plans, depth bound and own properties.
 */
export function hasEveryDeclared(document: Json, pointer: string, value: unknown): boolean {
  return everyDeclaredIn(document, pointer)(value);
}

/** hasEveryDeclared for many values of one schema: its plan is looked up once. */
function everyDeclaredIn(document: Json, pointer: string): (value: unknown) => boolean {
  const plan = planOf(document, pointer);
  return (value) => presentIn(document, plan, value, 0);
}

function presentIn(document: Json, plan: Plan, value: unknown, depth: number): boolean {
  if (depth > 6) return true;
  if (Array.isArray(value)) {
    if (plan.itemPointer === undefined) return true;
    const items = (plan.items ??= planOf(document, plan.itemPointer));
    for (const v of value) if (!presentIn(document, items, v, depth + 1)) return false;
    return true;
  }
  if (!isObject(value)) return true;
  const { names, pointers, children } = plan;
  for (let i = 0; i < names.length; i += 1) {
    const name = names[i] as string;
    if (!Object.hasOwn(value, name)) return false;
    const v = value[name];
    if (
      v !== null &&
      typeof v === 'object' &&
      !presentIn(document, (children[i] ??= planOf(document, pointers[i] as string)), v, depth + 1)
    )
      return false;
  }
  return true;
}

/**
 * What the expectations' resources know under an endpoint's path: the key as written, else one
 * that differs only by trailing slashes (an expectations file keyed `shipments` against a
 * document whose paths are DRF's `shipments/`).
 */
function knownAt(resources: Record<string, unknown>, path: string): unknown {
  if (Object.hasOwn(resources, path)) return resources[path];
  const key = Object.keys(resources).find((k) => pathKey(k) === pathKey(path));
  return key === undefined ? undefined : resources[key];
}

/** The seeded items of an endpoint's expectations, by id; undefined when none are known. */
export function expectedItems(settings: BatteryContext, spec: EndpointSpec): ExpectedItems | undefined {
  const resources = settings.expectations?.resources;
  if (!resources) return undefined;
  // The items of a list also stand for the single resource under it (`invoices/{invoiceId}`, `invoices/{id}/`).
  const parent = spec.kind === 'single' ? pathKey(spec.path).replace(/\/\{[^}]+\}$/, '') : spec.path;
  const known = [knownAt(resources, spec.path), knownAt(resources, parent)].find(Array.isArray);
  if (!known) return undefined;
  return new Map(known.filter(isObject).map((item) => [String(item.id), item]));
}

/** The whole known resource of a single endpoint without an id (`settings`), if the expectations give one. */
export function expectedResource(settings: BatteryContext, spec: EndpointSpec): Json | undefined {
  const resources = settings.expectations?.resources;
  const known = resources ? knownAt(resources, spec.path) : undefined;
  return isObject(known) ? known : undefined;
}

/**
 * RESOURCE-EXPECTED-VALUES: each known field that the value does not carry exactly. Where the
 * schema (`schema`, the value's own) says `format: date-time`, two RFC 3339 date-times are the
 * same value when they are the same instant (issue 38 item 9): `2026-02-09T10:00:00+00:00`, as
 * pydantic writes it, is `2026-02-09T10:00:00.000Z` (RFC 3339 §5.6 allows either offset and
 * fraction; the spec shows no form). Everything else is compared exactly.
 */
export function expectedValueProblems(
  expected: Json,
  actual: unknown,
  schema?: { document: Json; pointer: string },
): string[] {
  if (!isObject(actual)) return [`expected an object, got ${describeValue(actual)}`];
  const properties = schema
    ? declaredProperties(schema.document, { $ref: schema.pointer }, schema.pointer, 0)
    : undefined;
  const out: string[] = [];
  for (const [field, want] of Object.entries(expected)) {
    const present = Object.hasOwn(actual, field);
    const got = present ? actual[field] : undefined;
    const declared = properties?.get(field);
    if (!present) out.push(`field "${field}": expected ${describeValue(want)}, got no such field`);
    else if (
      !sameValue(
        want,
        got,
        schema && declared
          ? { document: schema.document, schema: declared.schema, pointer: declared.pointer }
          : undefined,
        0,
      )
    )
      out.push(`field "${field}": expected ${describeValue(want)}, got ${describeValue(got)}`);
  }
  return out;
}

/** Where a value sits in the document: its schema (as declared, maybe a $ref) and the pointer to it. */
interface SchemaAt {
  document: Json;
  schema: unknown;
  pointer: string;
}

/** Whether `got` is the value `want`: equal, or the same instant where the schema says date-time, inside objects and arrays too. */
function sameValue(want: unknown, got: unknown, where: SchemaAt | undefined, depth: number): boolean {
  if (isDeepStrictEqual(want, got)) return true;
  if (!where || depth > 8) return false;
  if (typeof want === 'string' && typeof got === 'string')
    return isDateTime(where.document, where.schema, 0) && sameInstant(want, got);
  const { value: node, pointer } = resolve(where.document, where.schema, where.pointer);
  if (Array.isArray(want) && Array.isArray(got)) {
    if (want.length !== got.length) return false;
    const items = isObject(node) ? node.items : undefined;
    const at =
      items === undefined ? undefined : { document: where.document, schema: items, pointer: `${pointer}/items` };
    return want.every((w, i) => sameValue(w, got[i], at, depth + 1));
  }
  if (isObject(want) && isObject(got)) {
    const keys = Object.keys(want);
    if (keys.length !== Object.keys(got).length || !keys.every((k) => Object.hasOwn(got, k))) return false;
    const properties = declaredProperties(where.document, where.schema, pointer, 0);
    return keys.every((k) => {
      const declared = properties.get(k);
      return sameValue(
        want[k],
        got[k],
        declared ? { document: where.document, schema: declared.schema, pointer: declared.pointer } : undefined,
        depth + 1,
      );
    });
  }
  return false;
}

/** Whether a schema says `format: date-time`: itself, through its $ref, an allOf member, or an arm of an anyOf/oneOf ("date-time or null"). */
function isDateTime(document: Json, schema: unknown, depth: number): boolean {
  if (depth > 8) return false;
  const node = resolve(document, schema, '#').value;
  if (!isObject(node)) return false;
  if (node.format === 'date-time') return true;
  return (['allOf', 'anyOf', 'oneOf'] as const).some(
    (k) => Array.isArray(node[k]) && (node[k] as unknown[]).some((arm) => isDateTime(document, arm, depth + 1)),
  );
}

/** RFC 3339 §5.6 date-time: full-date "T" full-time, the T and Z in either case. */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** An RFC 3339 date-time as an instant: whole seconds since the epoch and the fraction's digits (exact, whatever their number); undefined when it is none. */
function instant(text: string): { seconds: number; fraction: string } | undefined {
  const m = DATE_TIME.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const offsetHours = Number(m[10] ?? 0);
  const offsetMinutes = Number(m[11] ?? 0);
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 60 || offsetHours > 23 || offsetMinutes > 59)
    return undefined;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  if (date.getUTCDate() !== day) return undefined;
  // A leap second (23:59:60) is the instant the next second starts, to this comparison.
  date.setUTCHours(hour, minute, second, 0);
  const offset = (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60;
  return { seconds: date.getTime() / 1000 - offset, fraction: (m[7] ?? '').replace(/0+$/, '') };
}

/** Whether two RFC 3339 date-times are the same instant, to the last digit either gives. */
export function sameInstant(a: string, b: string): boolean {
  const x = instant(a);
  const y = instant(b);
  return x !== undefined && y !== undefined && x.seconds === y.seconds && x.fraction === y.fraction;
}

/** What the resource checks found on one page of a list: a few lines each, and how many in all. */
export interface PageFindings {
  schema: string[];
  /** RESOURCE-SCHEMA's failures that are the document's (schemaJudgement), the first few. */
  documentFaults?: string[];
  missing: string[];
  expected: string[];
  counts: { schema: number; missing: number; expected: number };
  /** Ids of seeded items that appeared on the page. */
  seen: string[];
  /** How the optional string fields were filled on the page (see optionalStringFields), when RESOURCE-FIELDS-PRESENT runs. */
  strings?: Map<string, StringTally>;
}

/**
 * How the items of a page (or of a whole walk) filled one optional string field: "" on `empty`
 * items, null on `nulls`, and either or another string on `carried`.
 */
export interface StringTally {
  empty: number;
  nulls: number;
  carried: number;
  /** Why the document makes the field optional, for the review item. */
  why: string;
}

function allowsNull(schema: unknown): boolean {
  if (!isObject(schema)) return false;
  if (
    schema.nullable === true ||
    schema.type === 'null' ||
    (Array.isArray(schema.type) && schema.type.includes('null'))
  )
    return true;
  return (['anyOf', 'oneOf'] as const).some(
    (k) => Array.isArray(schema[k]) && schema[k].some((b) => isObject(b) && b.type === 'null'),
  );
}

function mayBeString(schema: unknown): boolean {
  if (!isObject(schema)) return false;
  const { type } = schema;
  if (type === 'string' || (Array.isArray(type) && type.includes('string'))) return true;
  return (['anyOf', 'oneOf'] as const).some(
    (k) => Array.isArray(schema[k]) && schema[k].some((b) => isObject(b) && b.type === 'string'),
  );
}

const optionalStrings = new WeakMap<Json, Map<string, Map<string, string>>>();

/**
 * The top-level properties of an item schema that may hold a string and that the document makes
 * optional (spec §Generic rules for optional fields: the ones that are null without data): not
 * `required`, or null allowed (`type: [string, null]`, `nullable`, a null branch). With why, by
 * name. What the document says is all the harness has to tell an optional field from a mandatory
 * one whose value is "": a required, non-null string that is "" is a value, whatever the count.
 */
export function optionalStringFields(document: Json, pointer: string): Map<string, string> {
  let byPointer = optionalStrings.get(document);
  if (!byPointer) optionalStrings.set(document, (byPointer = new Map<string, Map<string, string>>()));
  let fields = byPointer.get(pointer);
  if (!fields) {
    fields = new Map<string, string>();
    // Required as declaredProperties reads it: the schema's, its allOf members', the object arm's.
    for (const [name, { pointer: at, required }] of declaredProperties(document, { $ref: pointer }, pointer, 0)) {
      const schema = resolve(document, { $ref: at }, at).value;
      if (!mayBeString(schema)) continue;
      if (allowsNull(schema)) fields.set(name, NULL_ALLOWED);
      else if (!required) fields.set(name, 'its schema does not require it');
      // A document generated from the code documents an optional field the way its serialiser
      // writes it: fast-json-stringify's null-as-"" field is a required plain string (issue 38 item 8).
      else fields.set(name, REQUIRED_PLAIN);
    }
    byPointer.set(pointer, fields);
  }
  return fields;
}

/** Adds one item's values of the optional string fields to a page's tallies. */
function tallyStrings(fields: ReadonlyMap<string, string>, item: unknown, into: Map<string, StringTally>): void {
  if (!isObject(item)) return;
  for (const [name, why] of fields) {
    if (!Object.hasOwn(item, name)) continue;
    const v = item[name];
    if (v !== null && typeof v !== 'string') continue;
    let t = into.get(name);
    if (!t) into.set(name, (t = { empty: 0, nulls: 0, carried: 0, why }));
    t.carried += 1;
    if (v === null) t.nulls += 1;
    else if (v === '') t.empty += 1;
  }
}

/** Adds a page's tallies to a walk's. */
export function addTallies(into: Map<string, StringTally>, page: ReadonlyMap<string, StringTally>): void {
  for (const [name, t] of page) {
    const sum = into.get(name);
    if (sum) {
      sum.empty += t.empty;
      sum.nulls += t.nulls;
      sum.carried += t.carried;
    } else into.set(name, { ...t });
  }
}

/** Why of a string field whose schema allows null. */
export const NULL_ALLOWED = 'its schema allows null';

/** Why of a required, non-null string field: "" is a value there unless most items carry it. */
export const REQUIRED_PLAIN =
  'its schema requires it as a plain string, the way a document generated from the code writes a field its serialiser fills with "" for want of data';

/**
 * Items at least of a field that is "" before it is a review item: fewer are an anecdote (one
 * customer left a box empty), and a review list that cries wolf is not read.
 */
export const REVIEW_MIN_EMPTY = 3;

/**
 * Whether a walk's tally of an optional string field looks like null written as "" (spec §Generic
 * rules for optional fields 2), the way fast-json-stringify writes null for a `type: string`
 * property without `nullable`: "" on REVIEW_MIN_EMPTY items or more and null on none (on at least
 * half of the items that carry it unless the schema allows null). Never null is the serialiser's mark: one that writes null
 * for the field at all does not turn null into "", so a field that is sometimes null and
 * sometimes "" uses "" as a value (the reference server's invoice notes: "" when the customer left
 * it empty, null when none was asked for) and is not reported. At least half: a field that a
 * serialiser empties for want of data is "" wherever data is missing, which for an optional field
 * is commonly most items; a few "" among many values are as likely real empty values.
 */
export function looksLikeNullAsEmpty(t: StringTally): boolean {
  if (t.nulls > 0 || t.empty < REVIEW_MIN_EMPTY) return false;
  // Where the document says null is possible, "" recurring and null never is the pattern, however
  // many items carry a value (Fastify's "" on 12 of 47); where it only leaves the field out of
  // `required` (DRF's `blank=True` reference, "" on 12 of 60) or requires a plain string, "" is a
  // value unless it is at least half of them.
  return t.why === NULL_ALLOWED || t.empty * 2 >= t.carried;
}

/**
 * The schemas of the other GETs the document declares at the same request target: path keys that
 * differ only in a `#…` suffix or their parameters' names (Box's `/shared_items#folders`, Azure's
 * `/{roleAssignmentId}` and `/{roleDefinitionId}#disambiguation_dummy`) name one wire path, which a server answers one way. A body that one of them describes is judged
 * conformant to the document: which variant the server answers is not the harness's to guess. A
 * resource is also described by a list variant's whole body (a server that answers
 * `assetservers?name=a` as it answers `assetservers`, ignoring the parameter its other variant takes).
 */
export function variantSchemas(
  endpoints: readonly EndpointSpec[],
  spec: EndpointSpec,
): { path: string; schema: string }[] {
  // Parameters by position, not name: Azure's `/{roleAssignmentId}` and `/{roleDefinitionId}#…` are one template.
  const requestTarget = (path: string): string => wirePath(path).replace(/\{[^}]*\}/g, '{}');
  const target = requestTarget(spec.path);
  const out: { path: string; schema: string }[] = [];
  for (const other of endpoints) {
    if (other === spec || other.path === spec.path || other.schema === undefined || other.schema === spec.schema)
      continue;
    if (requestTarget(other.path) !== target) continue;
    if (other.kind === spec.kind) out.push({ path: other.path, schema: other.schema });
    // A resource's variant that is a list (OSIsoft's `assetservers#name` beside `assetservers`): the list's whole body.
    else if (spec.kind === 'single' && other.asSingle !== undefined)
      out.push({ path: other.path, schema: other.asSingle.schema });
  }
  return out;
}

/** Lines kept per page and check; the rest are counted. */
const LINES_PER_PAGE = 5;

/**
 * The judge of a list's items, for the resource checks this run selected, or undefined when none
 * applies (no schema, no seeded items). Each page is judged as it arrives; only the lines are kept.
 */
export function itemJudge(
  settings: BatteryContext,
  spec: EndpointSpec,
  label: (item: unknown) => string,
): ((items: readonly unknown[]) => PageFindings) | undefined {
  const { openapi, selected } = settings;
  const schema = openapi && spec.schema !== undefined ? spec.schema : undefined;
  const wantSchema = schema !== undefined && selected.includes('RESOURCE-SCHEMA');
  const wantMissing = schema !== undefined && selected.includes('RESOURCE-FIELDS-PRESENT');
  const known = selected.includes('RESOURCE-EXPECTED-VALUES') ? expectedItems(settings, spec) : undefined;
  if (!wantSchema && !wantMissing && !known) return undefined;
  // The review of null written as "" rides on RESOURCE-FIELDS-PRESENT: both are about optional fields without data.
  const strings = wantMissing && openapi && schema ? optionalStringFields(openapi, schema) : undefined;
  // The variants at the same request target that may describe an item (variantSchemas): once a list, not once a page.
  const variants =
    openapi && (wantSchema || wantMissing)
      ? variantSchemas(settings.endpoints, spec).map((v) => ({
          valid: validator(openapi, v.schema) ?? (() => false),
          declared: everyDeclaredIn(openapi, v.schema),
        }))
      : [];
  return (items) => {
    const out: PageFindings = {
      schema: [],
      missing: [],
      expected: [],
      counts: { schema: 0, missing: 0, expected: 0 },
      seen: [],
    };
    if (strings && strings.size > 0) out.strings = new Map();
    const add = (kind: 'schema' | 'missing' | 'expected', line: string): void => {
      out.counts[kind] += 1;
      if (out[kind].length < LINES_PER_PAGE) out[kind].push(line);
    };
    // Looked up once per page, not per item: an item that passes costs one call of each.
    const validate = wantSchema && openapi && schema ? validator(openapi, schema) : undefined;
    const carriesEveryDeclared = wantMissing && openapi && schema ? everyDeclaredIn(openapi, schema) : undefined;
    for (const item of items) {
      if (strings && out.strings) tallyStrings(strings, item, out.strings);
      if (
        validate &&
        openapi &&
        schema &&
        !validate(item) &&
        !variants.some((v) => v.valid(item) && v.declared(item))
      ) {
        const judged = schemaJudgement(openapi, schema, item);
        for (const p of judged.problems) add('schema', `${label(item)}: ${p}`);
        for (const d of judged.documentFaults)
          if ((out.documentFaults ??= []).length < LINES_PER_PAGE && !out.documentFaults.includes(d))
            out.documentFaults.push(d);
      }
      if (
        carriesEveryDeclared &&
        openapi &&
        schema &&
        !carriesEveryDeclared(item) &&
        !variants.some((v) => v.valid(item) && v.declared(item))
      ) {
        const missing = missingDeclared(openapi, schema, item);
        if (missing.length > 0) add('missing', `${label(item)} ${omissionMessage(openapi, schema, missing)}`);
      }
      if (!known) continue;
      const id = itemId(item);
      const want = id === undefined ? undefined : known.get(id);
      if (want && id !== undefined) {
        out.seen.push(id);
        for (const p of expectedValueProblems(
          want,
          item,
          openapi && schema !== undefined ? { document: openapi, pointer: schema } : undefined,
        ))
          add('expected', `${label(item)}: ${p}`);
      }
    }
    return out;
  };
}
