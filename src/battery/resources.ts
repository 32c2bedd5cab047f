import { isDeepStrictEqual } from 'node:util';
import type { Ajv2020 as Ajv2020Class, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type { EndpointSpec } from '../api/endpoint-specs.js';
import { documentAjv, precompiledValidator, schemaAt } from '../openapi/document-ajv.js';
import { isObject, resolve, type Json } from '../openapi/pointer.js';
import { omissionMessage } from '../lint/omission.js';
import { itemId } from './list-items.js';
import { describeValue } from './token-response.js';
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

/**
 * The validator of a schema pointer: the one precompiled with the document (see
 * src/openapi/document-ajv.ts), or compiled now; ajv is loaded at the first such compilation.
 */
function validator(document: Json, pointer: string): ValidateFunction {
  const precompiled = precompiledValidator(document, pointer);
  if (precompiled) return precompiled;
  if (ajvDocument !== document) {
    ajv = documentAjv(document);
    ajvDocument = document;
    validators.clear();
  }
  let fn = validators.get(pointer);
  if (!fn && ajv) {
    fn = ajv.compile(schemaAt(pointer));
    validators.set(pointer, fn);
  }
  if (!fn) throw new Error('ajv is not loaded');
  return fn;
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

function describeError(e: ErrorObject, value: unknown): string {
  const field = fieldOf(e.instancePath);
  const got = describeValue(valueAt(value, e.instancePath));
  const where = field === '' ? 'the resource' : `field "${field}"`;
  if (e.keyword === 'type') {
    const types = ([] as unknown[]).concat(e.params.type as unknown).map(String);
    return `${where}: must be ${types.join(' or ')}, got ${got}`;
  }
  if (e.keyword === 'enum') return `${where}: must be one of ${JSON.stringify(e.params.allowedValues)}, got ${got}`;
  if (e.keyword === 'const') return `${where}: must be ${JSON.stringify(e.params.allowedValue)}, got ${got}`;
  return `${where}: ${e.message ?? 'is invalid'} (got ${got})`;
}

/**
 * RESOURCE-SCHEMA: what the value breaks of its declared schema, a line each. Omitted properties
 * (`required`) are RESOURCE-FIELDS-PRESENT's to report, so that one omission is one finding.
 */
export function schemaProblems(document: Json, pointer: string, value: unknown): string[] {
  const validate = validator(document, pointer);
  if (validate(value)) return [];
  const errors = (validate.errors ?? []).filter((e) => e.keyword !== 'required' && !(e.keyword === 'if' || e.keyword === 'anyOf' || e.keyword === 'oneOf'));
  // A value that breaks a composition reports its branches; if only those remain, say it once.
  const lines = [...new Set(errors.map((e) => describeError(e, value)))];
  return lines.length > 0 ? lines : (validate.errors ?? []).filter((e) => e.keyword !== 'required').slice(0, 1).map((e) => describeError(e, value));
}

/** The properties a schema declares (its own and those of every allOf member), with their schemas. */
function declaredProperties(document: Json, schema: unknown, pointer: string, depth: number): Map<string, { schema: unknown; pointer: string }> {
  const out = new Map<string, { schema: unknown; pointer: string }>();
  const resolved = resolve(document, schema, pointer);
  if (!isObject(resolved.value) || depth > 16) return out;
  const { value: s, pointer: at } = resolved;
  if (isObject(s.properties)) {
    for (const [name, child] of Object.entries(s.properties)) {
      // A writeOnly property is sent by clients, never served (OAS 3.1 §4.8.24.1, JSON Schema validation §9.4).
      const childSchema = resolve(document, child, `${at}/properties/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`);
      if (isObject(childSchema.value) && childSchema.value.writeOnly === true) continue;
      out.set(name, { schema: child, pointer: childSchema.pointer });
    }
  }
  if (Array.isArray(s.required)) for (const name of s.required) if (typeof name === 'string' && !out.has(name)) out.set(name, { schema: {}, pointer: `${at}/required` });
  if (Array.isArray(s.allOf)) {
    s.allOf.forEach((member, i) => {
      for (const [name, child] of declaredProperties(document, member, `${at}/allOf/${i}`, depth + 1)) if (!out.has(name)) out.set(name, child);
    });
  }
  // "X or null" (anyOf/oneOf with a null branch, as 3.0's nullable reads): X's properties, for a value that is not null.
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = s[key];
    if (!Array.isArray(branches)) continue;
    const nonNull = branches.map((b, i) => [b, i] as const).filter(([b]) => !(isObject(b) && b.type === 'null'));
    if (nonNull.length === 1 && branches.length === 2 && nonNull[0]) {
      for (const [name, child] of declaredProperties(document, nonNull[0][0], `${at}/${key}/${nonNull[0][1]}`, depth + 1)) if (!out.has(name)) out.set(name, child);
    }
  }
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
    const items = isObject(self.value) && self.value.items !== undefined ? resolve(document, self.value.items, `${self.pointer}/items`).pointer : undefined;
    const properties = declaredProperties(document, { $ref: pointer }, pointer, 0);
    plan = { itemPointer: items, names: [...properties.keys()], pointers: [...properties.values()].map((p) => p.pointer), children: [], items: undefined };
    byPointer.set(pointer, plan);
  }
  return plan;
}

/**
 * RESOURCE-FIELDS-PRESENT: every property the schema declares that the value omits, as dotted
 * paths (nested objects and array elements included, a few levels deep). Properties that only
 * some branches of oneOf/anyOf declare are not required: which branch applies is not known.
 */
export function missingDeclared(document: Json, pointer: string, value: unknown, prefix = '', depth = 0): string[] {
  if (depth > 6) return [];
  const plan = planOf(document, pointer);
  if (Array.isArray(value)) {
    const itemPointer = plan.itemPointer;
    if (itemPointer === undefined) return [];
    const out: string[] = [];
    for (let i = 0; i < value.length && out.length < 20; i += 1) out.push(...missingDeclared(document, itemPointer, value[i], `${prefix}[${i}]`, depth + 1));
    return out.slice(0, 20);
  }
  if (!isObject(value)) return [];
  const out: string[] = [];
  // Paths are written only for what is reported or followed: this runs for every item of a walk.
  plan.names.forEach((name, i) => {
    // Own properties only: `in` would find an omitted `constructor` or `toString` on Object.prototype.
    if (!Object.hasOwn(value, name)) out.push(prefix === '' ? name : `${prefix}.${name}`);
    else {
      const v = value[name];
      if (v !== null && typeof v === 'object') out.push(...missingDeclared(document, plan.pointers[i] as string, v, prefix === '' ? name : `${prefix}.${name}`, depth + 1));
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
    if (v !== null && typeof v === 'object' && !presentIn(document, (children[i] ??= planOf(document, pointers[i] as string)), v, depth + 1)) return false;
  }
  return true;
}

/** The seeded items of an endpoint's expectations, by id; undefined when none are known. */
export function expectedItems(settings: BatteryContext, spec: EndpointSpec): ExpectedItems | undefined {
  const resources = settings.expectations?.resources;
  if (!resources) return undefined;
  // The items of a list also stand for the single resource under it (`invoices/{invoiceId}`).
  const parent = spec.kind === 'single' ? spec.path.replace(/\/\{[^}]+\}$/, '') : spec.path;
  const known = resources[spec.path] ?? resources[parent];
  if (!Array.isArray(known)) return undefined;
  return new Map(known.filter(isObject).map((item) => [String(item.id), item]));
}

/** The whole known resource of a single endpoint without an id (`settings`), if the expectations give one. */
export function expectedResource(settings: BatteryContext, spec: EndpointSpec): Json | undefined {
  const known = settings.expectations?.resources?.[spec.path];
  return isObject(known) ? known : undefined;
}

/** RESOURCE-EXPECTED-VALUES: each known field that the value does not carry exactly. */
export function expectedValueProblems(expected: Json, actual: unknown): string[] {
  if (!isObject(actual)) return [`expected an object, got ${describeValue(actual)}`];
  const out: string[] = [];
  for (const [field, want] of Object.entries(expected)) {
    const present = Object.hasOwn(actual, field);
    const got = present ? actual[field] : undefined;
    if (!present) out.push(`field "${field}": expected ${describeValue(want)}, got no such field`);
    else if (!isDeepStrictEqual(got, want)) out.push(`field "${field}": expected ${describeValue(want)}, got ${describeValue(got)}`);
  }
  return out;
}

/** What the resource checks found on one page of a list: a few lines each, and how many in all. */
export interface PageFindings {
  schema: string[];
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
  if (schema.nullable === true || schema.type === 'null' || (Array.isArray(schema.type) && schema.type.includes('null'))) return true;
  return (['anyOf', 'oneOf'] as const).some((k) => Array.isArray(schema[k]) && schema[k].some((b) => isObject(b) && b.type === 'null'));
}

function mayBeString(schema: unknown): boolean {
  if (!isObject(schema)) return false;
  const { type } = schema;
  if (type === 'string' || (Array.isArray(type) && type.includes('string'))) return true;
  return (['anyOf', 'oneOf'] as const).some((k) => Array.isArray(schema[k]) && schema[k].some((b) => isObject(b) && b.type === 'string'));
}

/** The names an object schema requires: its own `required` and its allOf members'. */
function requiredNames(document: Json, schema: unknown, pointer: string, depth = 0): Set<string> {
  const out = new Set<string>();
  const { value: s, pointer: at } = resolve(document, schema, pointer);
  if (!isObject(s) || depth > 16) return out;
  if (Array.isArray(s.required)) for (const name of s.required) if (typeof name === 'string') out.add(name);
  if (Array.isArray(s.allOf)) s.allOf.forEach((m, i) => requiredNames(document, m, `${at}/allOf/${i}`, depth + 1).forEach((n) => out.add(n)));
  return out;
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
    const required = requiredNames(document, { $ref: pointer }, pointer);
    for (const [name, { pointer: at }] of declaredProperties(document, { $ref: pointer }, pointer, 0)) {
      const schema = resolve(document, { $ref: at }, at).value;
      if (!mayBeString(schema)) continue;
      if (allowsNull(schema)) fields.set(name, 'its schema allows null');
      else if (!required.has(name)) fields.set(name, 'its schema does not require it');
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

/**
 * Items at least of a field that is "" before it is a review item: fewer are an anecdote (one
 * customer left a box empty), and a review list that cries wolf is not read.
 */
export const REVIEW_MIN_EMPTY = 3;

/**
 * Whether a walk's tally of an optional string field looks like null written as "" (spec §Generic
 * rules for optional fields 2), the way fast-json-stringify writes null for a `type: string`
 * property without `nullable`: "" on REVIEW_MIN_EMPTY items or more and on at least half of those
 * that carry the field, and null on none. Never null is the serialiser's mark: one that writes null
 * for the field at all does not turn null into "", so a field that is sometimes null and
 * sometimes "" uses "" as a value (the reference server's invoice notes: "" when the customer left
 * it empty, null when none was asked for) and is not reported. At least half: a field that a
 * serialiser empties for want of data is "" wherever data is missing, which for an optional field
 * is commonly most items; a few "" among many values are as likely real empty values.
 */
export function looksLikeNullAsEmpty(t: Omit<StringTally, 'why'>): boolean {
  return t.nulls === 0 && t.empty >= REVIEW_MIN_EMPTY && t.empty * 2 >= t.carried;
}

/** Lines kept per page and check; the rest are counted. */
const LINES_PER_PAGE = 5;

/**
 * The judge of a list's items, for the resource checks this run selected, or undefined when none
 * applies (no schema, no seeded items). Each page is judged as it arrives; only the lines are kept.
 */
export function itemJudge(settings: BatteryContext, spec: EndpointSpec, label: (item: unknown) => string): ((items: readonly unknown[]) => PageFindings) | undefined {
  const { openapi, selected } = settings;
  const schema = openapi && spec.schema !== undefined ? spec.schema : undefined;
  const wantSchema = schema !== undefined && selected.includes('RESOURCE-SCHEMA');
  const wantMissing = schema !== undefined && selected.includes('RESOURCE-FIELDS-PRESENT');
  const known = selected.includes('RESOURCE-EXPECTED-VALUES') ? expectedItems(settings, spec) : undefined;
  if (!wantSchema && !wantMissing && !known) return undefined;
  // The review of null written as "" rides on RESOURCE-FIELDS-PRESENT: both are about optional fields without data.
  const strings = wantMissing && openapi && schema ? optionalStringFields(openapi, schema) : undefined;
  return (items) => {
    const out: PageFindings = { schema: [], missing: [], expected: [], counts: { schema: 0, missing: 0, expected: 0 }, seen: [] };
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
      if (validate && openapi && schema && !validate(item)) for (const p of schemaProblems(openapi, schema, item)) add('schema', `${label(item)}: ${p}`);
      if (carriesEveryDeclared && openapi && schema && !carriesEveryDeclared(item)) {
        const missing = missingDeclared(openapi, schema, item);
        if (missing.length > 0) add('missing', `${label(item)} ${omissionMessage(openapi, schema, missing)}`);
      }
      if (!known) continue;
      const id = itemId(item);
      const want = id === undefined ? undefined : known.get(id);
      if (want && id !== undefined) {
        out.seen.push(id);
        for (const p of expectedValueProblems(want, item)) add('expected', `${label(item)}: ${p}`);
      }
    }
    return out;
  };
}
