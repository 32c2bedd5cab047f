import { at, isObject, resolve, type Json } from '../openapi/pointer.js';
import { itemId } from '../carrier/list-items.js';
import { hasEveryDeclared, schemaProblems } from './resources.js';

/**
 * Whether a refusal carries data (spec §Authentication 5: no data of a tenant the client may not
 * access; spec §Tenant identifier). The spec does not show an error body ("not shown"), and the
 * error bodies of real frameworks hold arrays: FastAPI's 422 `{"detail": [{"loc": [...], "msg":
 * …}]}`, JSON:API's `{"errors": [{"status": "403", "detail": …}]}`, Django REST framework's
 * `{"tenant_id": ["Must be a valid UUID."]}`, an RFC 9457 problem with an `errors` member. An
 * array is therefore no evidence of data (issue 38 item 2). An entry of a refusal is data only
 * by evidence:
 *
 * - it is an object that carries an id of the tenant's own data (its list, or its resource) or
 *   of a seeded item (--expectations), and another field of that data: an error that names the
 *   id it was asked for (`{"id": …, "error": "not found"}`) is no copy of the resource;
 * - it matches the endpoint's item schema, where the document gives one: valid against it, every
 *   property it demands present, and at least half (and two) of the properties it declares, so
 *   that a schema that asks for nothing matches no error object by default;
 * - it has the shape of the tenant's own items: every one of their fields (at least three),
 *   which is how an item of another tenant shows without a document.
 *
 * Anything else in a refusal is an error description, whatever its shape.
 */

/** What is known of the endpoint's real data, to recognise it in a refusal. */
export interface DataEvidence {
  /** The item schema (a list) or the body schema (a single resource) in the run's document, and which it is, for messages. */
  schema?: { document: Json; pointer: string; of: 'items' | 'body' } | undefined;
  /** The ids of the tenant's own items (its list, or its resource). */
  ownIds: ReadonlySet<string>;
  /** The fields every one of the tenant's own items carries; undefined when none was seen. */
  ownFields?: readonly string[] | undefined;
  /** The seeded items of the endpoint (--expectations), by id. */
  seeded: ReadonlyMap<string, Json>;
}

/** The entries of a refusal recognised as data, and why the first one is. */
export interface DataFound {
  count: number;
  /** "id 42 is an id of the tenant's own data". */
  first: string;
}

/** Entries of a refusal looked at, at most: a hostile body must not keep a check busy. */
const MAX_ENTRIES = 1000;
/** Fields an entry must share with the tenant's own items before its shape is evidence. */
const MIN_SHAPE_FIELDS = 3;

/**
 * The objects of a refusal that could be data: the body itself, its elements when it is an array,
 * and its properties' values: the elements of each array (whatever the property is named: the
 * document's items property, `data`, `detail`, `errors`) and each object; one level deep, bounded.
 */
export function refusalEntries(body: unknown): Json[] {
  const out: Json[] = [];
  const add = (v: unknown): void => {
    if (out.length < MAX_ENTRIES && isObject(v)) out.push(v);
  };
  if (Array.isArray(body)) {
    for (const v of body.slice(0, MAX_ENTRIES)) add(v);
    return out;
  }
  if (!isObject(body)) return out;
  add(body);
  for (const value of Object.values(body)) {
    if (Array.isArray(value)) for (const v of value.slice(0, MAX_ENTRIES)) add(v);
    else add(value);
  }
  return out;
}

/** The fields every one of `items` carries (the first 50 looked at); undefined without an object among them. */
export function commonFields(items: readonly unknown[]): string[] | undefined {
  let common: Set<string> | undefined;
  for (const item of items.slice(0, 50)) {
    if (!isObject(item)) continue;
    const keys = Object.keys(item);
    const before = common;
    common = before ? new Set(keys.filter((k) => before.has(k))) : new Set(keys);
  }
  return common ? [...common] : undefined;
}

/** The top-level property names a schema declares: its own and its allOf members', through $refs (bounded). */
function declaredNames(document: Json, pointer: string): Set<string> {
  const names = new Set<string>();
  const seen = new Set<string>();
  const visit = (schema: unknown, where: string, depth: number): void => {
    if (depth > 8 || seen.has(where)) return;
    seen.add(where);
    const { value, pointer: p } = resolve(document, schema, where);
    if (!isObject(value)) return;
    if (isObject(value.properties)) for (const name of Object.keys(value.properties)) names.add(name);
    if (Array.isArray(value.allOf)) value.allOf.forEach((member, i) => visit(member, `${p}/allOf/${i}`, depth + 1));
  };
  visit(at(document, pointer), pointer, 0);
  return names;
}

/** Whether `entry` is one of the schema's values by the rule above; false when the schema cannot be judged. */
function matchesSchema(
  schema: NonNullable<DataEvidence['schema']>,
  declared: ReadonlySet<string>,
  entry: Json,
): boolean {
  const carried = Object.keys(entry).filter((k) => declared.has(k)).length;
  if (carried < 2 || carried * 2 < declared.size) return false;
  try {
    return (
      schemaProblems(schema.document, schema.pointer, entry).length === 0 &&
      hasEveryDeclared(schema.document, schema.pointer, entry)
    );
  } catch {
    // A schema that cannot be compiled is RESOURCE-SCHEMA's error, and no evidence here.
    return false;
  }
}

/** Why `entry` is data, or undefined when nothing shows it is. */
/** Whether `entry` carries a field of `fields` besides its id. */
export function carriesMoreThanId(entry: Json, fields: Iterable<string>): boolean {
  for (const k of fields) if (k !== 'id' && Object.hasOwn(entry, k)) return true;
  return false;
}

function evidenceOf(
  evidence: DataEvidence,
  declared: ReadonlySet<string> | undefined,
  entry: Json,
  whole: boolean,
): string | undefined {
  const id = itemId(entry);
  if (id !== undefined && evidence.ownIds.has(id) && carriesMoreThanId(entry, evidence.ownFields ?? []))
    return `id ${id} is an id of the tenant's own data`;
  const seeded = id === undefined ? undefined : evidence.seeded.get(id);
  if (seeded && carriesMoreThanId(entry, Object.keys(seeded)))
    return `id ${id as string} is a seeded item (--expectations)`;
  const label = id !== undefined ? `id ${id}` : whole ? 'the body' : 'an entry';
  if (evidence.schema && declared && matchesSchema(evidence.schema, declared, entry))
    return `${label} matches the document's schema of the endpoint's ${evidence.schema.of === 'items' ? 'items' : 'body'}`;
  const own = evidence.ownFields;
  if (own && own.length >= MIN_SHAPE_FIELDS && own.every((k) => Object.hasOwn(entry, k)))
    return `${label} has every field of the tenant's own items (${own.slice(0, 4).join(', ')}${own.length > 4 ? ', …' : ''})`;
  return undefined;
}

/** The entries of a refusal's body that are data by evidence, or undefined when none is. */
export function dataInRefusal(body: unknown, evidence: DataEvidence): DataFound | undefined {
  const declared = evidence.schema ? declaredNames(evidence.schema.document, evidence.schema.pointer) : undefined;
  let found: DataFound | undefined;
  for (const entry of refusalEntries(body)) {
    const why = evidenceOf(evidence, declared, entry, entry === body);
    if (why === undefined) continue;
    if (found) found.count += 1;
    else found = { count: 1, first: why };
  }
  return found;
}

/** Whether anything could show data in a refusal: without a schema, own items or seeded ones, nothing can. */
export function canRecogniseData(evidence: DataEvidence): boolean {
  return (
    evidence.schema !== undefined ||
    evidence.ownIds.size > 0 ||
    evidence.seeded.size > 0 ||
    (evidence.ownFields?.length ?? 0) >= MIN_SHAPE_FIELDS
  );
}
