import { isObject, type Json } from '../openapi/pointer.js';

/**
 * Response schemas that contradict themselves (issue 37 item 8): what the document describes, no
 * server can send and pass the schema, so that RESOURCE-SCHEMA would fail every deployment there.
 * Only what follows from the schema's own words is reported, read as JSON Schema reads it (OAS 3.1
 * §4.8.24; 3.0's Schema Object alike), never a guess:
 *
 * - OAS-ENUM-TYPE: an `enum` or `const` value outside the schema's own `type`
 *   (`{type: string, enum: [1, 2]}`): no instance is both.
 * - OAS-ONEOF-DISTINCT: a `oneOf` branch whose values all match another branch too (Zoom's
 *   `{properties: {email_notification}}` and `{type: object, properties: {meeting_security}}`: no
 *   required property, const or enum tells them apart), so that `oneOf`, which needs exactly one
 *   branch to match (JSON Schema core §10.2.1.3), rejects them. "Its values" are the values the
 *   branch describes: objects carrying only the properties it (and the schema holding the oneOf)
 *   declares, nested values alike. That is decided only between branches whose keywords are all
 *   understood here (type, properties, required, additionalProperties, enum, const, items, and
 *   any other keyword the two branches write alike); any other pair is not judged.
 * - OAS-CLOSED-SCHEMA: `additionalProperties: false` beside `allOf`/`anyOf`/`oneOf` forbids
 *   every property not written in the same schema's `properties` (core §10.3.2.3: it sees its
 *   siblings only), those its branches declare included (Jira's discriminated
 *   CustomContextVariable: a branch that requires `accountId` matches no object).
 *
 * rules.ts calls these on every response schema it visits, for `lint` and for the Spectral
 * function built from it (spectral-function.ts); `deref` follows a `$ref` the way each reads its
 * document.
 */

export type SatisfiableRule = 'OAS-ENUM-TYPE' | 'OAS-ONEOF-DISTINCT' | 'OAS-CLOSED-SCHEMA';

/** A finding on one schema: the keyword it is about (the finding's place) and what is wrong. */
export interface SchemaFinding {
  rule: SatisfiableRule;
  keyword: 'enum' | 'const' | 'oneOf' | 'additionalProperties';
  message: string;
}

export type Deref = (value: unknown) => unknown;

/** Keywords that assert nothing (JSON Schema's annotations, OAS's additions), and extensions. */
const ANNOTATIONS = new Set([
  'title',
  'description',
  'example',
  'examples',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  'externalDocs',
  'xml',
  'discriminator',
  '$comment',
  '$id',
  '$anchor',
  '$dynamicAnchor',
  '$schema',
  '$vocabulary',
  '$defs',
  'definitions',
  'contentMediaType',
  'contentEncoding',
  'contentSchema',
]);
const isAnnotation = (key: string): boolean => ANNOTATIONS.has(key) || key.startsWith('x-');
/** Keywords whose meaning depends on others or adds properties beyond `properties`: a schema with one is not judged by `covers`. */
const NOT_JUDGED = new Set([
  '$ref',
  '$dynamicRef',
  '$recursiveRef',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'dependentSchemas',
  'dependentRequired',
  'dependencies',
  'unevaluatedProperties',
  'unevaluatedItems',
  'patternProperties',
  'propertyNames',
  'contains',
  'minContains',
  'maxContains',
  'additionalItems',
]);
/** Handled by their own rule in `covers`. */
const OBJECT_KEYWORDS = new Set([
  'type',
  'nullable',
  'properties',
  'required',
  'additionalProperties',
  'enum',
  'const',
  'items',
  'prefixItems',
]);

const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? (v as unknown[]) : []);
const stringsOf = (v: unknown): string[] => listOf(v).filter((s): s is string => typeof s === 'string');
const propertiesOf = (s: Json): Json => (isObject(s.properties) ? s.properties : {});
const assertions = (s: Json): string[] => Object.keys(s).filter((k) => !isAnnotation(k));

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
}

/** The JSON type of a value, `integer` for a number with no fraction (JSON Schema core §4.2.1). */
function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v === 'object' ? 'object' : typeof v;
}

/** The types a schema's `type` allows (3.0's `nullable: true` adds null), or undefined when it has none. */
function typesOf(s: Json): Set<string> | undefined {
  const declared = typeof s.type === 'string' ? [s.type] : Array.isArray(s.type) ? stringsOf(s.type) : undefined;
  if (declared === undefined) return undefined;
  const types = new Set(declared);
  if (s.nullable === true) types.add('null');
  return types;
}

const fitsTypes = (types: ReadonlySet<string>, type: string): boolean =>
  types.has(type) || (type === 'integer' && types.has('number'));
const typeText = (s: Json): string =>
  `type ${Array.isArray(s.type) ? `[${stringsOf(s.type).join(', ')}]` : String(s.type)}${s.nullable === true ? ' (nullable)' : ''}`;

/** At most five values, as JSON, each cut short. */
function valuesText(values: readonly unknown[]): string {
  const shown = values.slice(0, 5).map((v) => {
    const text = JSON.stringify(v) ?? String(v);
    return text.length > 40 ? `${text.slice(0, 39)}…` : text;
  });
  return `${shown.join(', ')}${values.length > 5 ? ` and ${values.length - 5} more` : ''}`;
}

/** OAS-ENUM-TYPE: `enum` and `const` values outside the schema's own type. */
function enumFindings(s: Json): SchemaFinding[] {
  const types = typesOf(s);
  if (types === undefined) return [];
  const findings: SchemaFinding[] = [];
  if ('const' in s && !fitsTypes(types, jsonType(s.const))) {
    findings.push({
      rule: 'OAS-ENUM-TYPE',
      keyword: 'const',
      message: `const ${valuesText([s.const])} is not of the schema's ${typeText(s)}: no value passes this schema`,
    });
  }
  const values = listOf(s.enum);
  const off = values.filter((v) => !fitsTypes(types, jsonType(v)));
  if (off.length > 0 && off.length === values.length) {
    findings.push({
      rule: 'OAS-ENUM-TYPE',
      keyword: 'enum',
      message: `enum ${valuesText(off)}: no value is of the schema's ${typeText(s)}, so no value passes this schema`,
    });
  } else if (off.length > 0) {
    findings.push({
      rule: 'OAS-ENUM-TYPE',
      keyword: 'enum',
      message: `enum value${off.length === 1 ? '' : 's'} ${valuesText(off)} ${off.length === 1 ? 'is' : 'are'} not of the schema's ${typeText(s)}: a server that sends ${off.length === 1 ? 'it' : 'one of them'} breaks the schema`,
    });
  }
  return findings;
}

/** A branch as a message names it: by its place (`oneOf/1`); a name its `$ref` gives would read differently in Spectral's resolved document. */
const branchName = (key: string, index: number): string => `${key}/${index}`;

/** Whether values of `s` may be objects, as far as `covers` reasons: its type says so, or it has none and constrains objects. */
function describesObjects(s: Json): boolean {
  const types = typesOf(s);
  return types === undefined
    ? 'properties' in s || 'required' in s || 'additionalProperties' in s
    : types.has('object');
}

/** The schema holding a oneOf, as far as its branches' values are concerned: what it declares, requires and allows. */
interface Holder {
  properties: Json;
  required: ReadonlySet<string>;
  /** The only names `additionalProperties: false` beside the oneOf allows; undefined when it allows any. */
  allowed: ReadonlySet<string> | undefined;
}

const NO_HOLDER: Holder = { properties: {}, required: new Set(), allowed: undefined };

class Covering {
  private readonly memo = new Map<unknown, Map<unknown, boolean>>();

  constructor(private readonly deref: Deref) {}

  /**
   * Whether every value `a` describes (objects carrying only the properties `a` and its holder
   * declare, nested values alike) matches `b` too. False whenever that is not certain.
   */
  covers(rawA: unknown, rawB: unknown, holder: Holder = NO_HOLDER, depth = 0): boolean {
    const a = this.deref(rawA);
    const b = this.deref(rawB);
    if (b === true || (isObject(b) && assertions(b).length === 0)) return true;
    if (!isObject(a) || !isObject(b) || depth > 12) return false;
    const key = holder === NO_HOLDER ? b : undefined;
    const known = key === undefined ? undefined : this.memo.get(a)?.get(key);
    if (known !== undefined) return known;
    // While a pair is being decided it counts as not covered: a cycle never makes a finding.
    if (key !== undefined) this.memo.set(a, (this.memo.get(a) ?? new Map<unknown, boolean>()).set(key, false));
    const result = this.decide(a, b, holder, depth);
    if (key !== undefined) this.memo.get(a)?.set(key, result);
    return result;
  }

  private decide(a: Json, b: Json, holder: Holder, depth: number): boolean {
    const ownA = assertions(a);
    const ownB = assertions(b);
    // The same assertions: whatever the holder allows of `a`, `b` allows too.
    if (ownA.length === ownB.length && ownB.every((k) => Object.hasOwn(a, k) && deepEqual(a[k], b[k]))) return true;
    if (ownA.some((k) => NOT_JUDGED.has(k)) || ownB.some((k) => NOT_JUDGED.has(k))) return false;
    // Any keyword not handled below, `b` asserts only where `a` asserts the same.
    for (const k of ownB) if (!OBJECT_KEYWORDS.has(k) && !(Object.hasOwn(a, k) && deepEqual(a[k], b[k]))) return false;
    const typesB = typesOf(b);
    const typesA = typesOf(a) ?? (describesObjects(a) ? new Set(['object']) : undefined);
    if (typesB !== undefined && (typesA === undefined || [...typesA].some((t) => !fitsTypes(typesB, t)))) return false;
    const valuesA = Array.isArray(a.enum) ? (a.enum as unknown[]) : 'const' in a ? [a.const] : undefined;
    if (
      Array.isArray(b.enum) &&
      (valuesA === undefined || !valuesA.every((v) => (b.enum as unknown[]).some((w) => deepEqual(v, w))))
    )
      return false;
    if ('const' in b && (valuesA === undefined || !valuesA.every((v) => deepEqual(v, b.const)))) return false;
    if ('prefixItems' in a || 'prefixItems' in b) {
      if (!deepEqual(a.prefixItems, b.prefixItems) || !deepEqual(a.items, b.items)) return false;
    } else if (
      'items' in b &&
      !('items' in a && (deepEqual(a.items, b.items) || this.covers(a.items, b.items, NO_HOLDER, depth + 1)))
    )
      return false;
    if (!['properties', 'required', 'additionalProperties'].some((k) => k in b)) return true;
    // `b` constrains objects: `a`'s values must be known, objects with known properties or no objects at all.
    if (typesA === undefined) return false;
    return typesA.has('object') ? this.coversObjects(a, b, holder, depth) : true;
  }

  /** The object keywords: what `a`'s objects carry, against what `b` requires and allows. */
  private coversObjects(a: Json, b: Json, holder: Holder, depth: number): boolean {
    const ownProperties = propertiesOf(a);
    const required = new Set([...stringsOf(a.required), ...holder.required]);
    let carried = new Set([...Object.keys(ownProperties), ...required, ...Object.keys(holder.properties)]);
    if (holder.allowed !== undefined) carried = new Set([...carried].filter((n) => holder.allowed?.has(n)));
    for (const r of stringsOf(b.required)) if (!required.has(r) || !carried.has(r)) return false;
    const bProperties = propertiesOf(b);
    for (const name of carried) {
      const target = Object.hasOwn(bProperties, name) ? bProperties[name] : b.additionalProperties;
      if (target === undefined || target === true) continue;
      const schemas = [ownProperties[name], holder.properties[name]].filter((s) => s !== undefined);
      if (!schemas.some((s) => this.covers(s, target, NO_HOLDER, depth + 1))) return false;
    }
    return true;
  }
}

/** The names a branch requires and declares that `additionalProperties: false` beside it forbids. */
function forbiddenBy(allowed: ReadonlySet<string>, branch: Json): { required: string[]; declared: string[] } {
  const required = stringsOf(branch.required).filter((n) => !allowed.has(n));
  const declared = Object.keys(propertiesOf(branch)).filter((n) => !allowed.has(n) && !required.includes(n));
  return { required, declared };
}

const quoted = (names: readonly string[]): string => valuesText(names);

/** OAS-CLOSED-SCHEMA: `additionalProperties: false` that forbids what the schema itself or its branches require or declare. */
function closedFindings(s: Json, deref: Deref): SchemaFinding[] {
  if (s.additionalProperties !== false || 'patternProperties' in s) return [];
  const allowed = new Set(Object.keys(propertiesOf(s)));
  const parts: string[] = [];
  let none = false;
  const own = stringsOf(s.required).filter((n) => !allowed.has(n));
  if (own.length > 0) {
    parts.push(`it requires ${quoted(own)}, which it forbids`);
    none = true;
  }
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const branches = listOf(s[key]);
    let dead = 0;
    branches.forEach((raw, i) => {
      const branch = deref(raw);
      if (!isObject(branch)) return;
      const forbidden = forbiddenBy(allowed, branch);
      const name = branchName(key, i);
      if (forbidden.required.length > 0) {
        dead += 1;
        parts.push(`${name} requires ${quoted(forbidden.required)}, so no object matches it`);
      } else if (forbidden.declared.length > 0) {
        parts.push(`${name} declares ${quoted(forbidden.declared)}, which no object may carry`);
      }
    });
    if ((key === 'allOf' && dead > 0) || (key !== 'allOf' && branches.length > 0 && dead === branches.length))
      none = true;
  }
  if (parts.length === 0) return [];
  const allowedText =
    allowed.size === 0
      ? "no property (this schema's own properties declares none)"
      : `only the names in this schema's own properties (${quoted([...allowed])})`;
  const shown = parts.length > 6 ? [...parts.slice(0, 5), `and ${parts.length - 5} more`] : parts;
  return [
    {
      rule: 'OAS-CLOSED-SCHEMA',
      keyword: 'additionalProperties',
      message: `additionalProperties: false allows ${allowedText}: ${shown.join('; ')}${none ? ': no object passes this schema' : ''}`,
    },
  ];
}

/** OAS-ONEOF-DISTINCT: branches whose values match another branch too. */
function oneOfFindings(s: Json, deref: Deref, covering: Covering): SchemaFinding[] {
  const raws = listOf(s.oneOf);
  if (raws.length < 2) return [];
  const closed = s.additionalProperties === false && !('patternProperties' in s);
  const holder: Holder = {
    properties: propertiesOf(s),
    required: new Set(stringsOf(s.required)),
    allowed: closed ? new Set(Object.keys(propertiesOf(s))) : undefined,
  };
  const branches = raws.map((raw) => deref(raw));
  // A branch no object of this schema can match (OAS-CLOSED-SCHEMA says why) has no values to compare.
  const live = branches.map(
    (b) => !(isObject(b) && holder.allowed !== undefined && forbiddenBy(holder.allowed, b).required.length > 0),
  );
  const pairs: string[] = [];
  let shadowed = 0;
  branches.forEach((branch, i) => {
    if (!live[i]) return;
    const other = branches.findIndex((b, j) => j !== i && live[j] && covering.covers(branch, b, holder));
    if (other === -1) return;
    shadowed += 1;
    const what = isObject(branch) && describesObjects(branch) ? 'an object' : 'a value';
    pairs.push(`${what} of ${branchName('oneOf', i)} matches ${branchName('oneOf', other)} too`);
  });
  if (shadowed === 0) return [];
  const all = shadowed === live.filter(Boolean).length;
  const tag =
    isObject(s.discriminator) && typeof s.discriminator.propertyName === 'string'
      ? s.discriminator.propertyName
      : undefined;
  const hint =
    tag === undefined
      ? ''
      : `; the discriminator "${tag}" does not tell them apart for validation (OAS 3.1 §4.8.25): give each branch's "${tag}" a const`;
  const listed = (pairs.length > 6 ? [...pairs.slice(0, 5), `and ${pairs.length - 5} more`] : pairs).join('; ');
  const message = all
    ? `no value its branches describe passes this oneOf (exactly one branch must match): ${listed}${hint}`
    : `${listed}: this oneOf rejects those values (exactly one branch must match)${hint}`;
  return [{ rule: 'OAS-ONEOF-DISTINCT', keyword: 'oneOf', message }];
}

/** Every finding of the three rules on one schema (already resolved); `deref` follows `$ref`s in the document. */
export function satisfiabilityFindings(schema: Json, deref: Deref, covering = new Covering(deref)): SchemaFinding[] {
  return [...enumFindings(schema), ...closedFindings(schema, deref), ...oneOfFindings(schema, deref, covering)];
}

/** One memo for a whole document's schemas. */
export function coveringFor(deref: Deref): Covering {
  return new Covering(deref);
}
