import { isOpenApi32, normalise } from '../openapi/oas32.js';
import { fragmentTokens as tokensOf, isObject, type Json } from '../openapi/pointer.js';
import { lintDocument, type RawFinding, type Resolver } from './rules.js';

/**
 * The Carrier-Platform conventions as a Spectral custom function (spectral.yaml; issue 33): lint's
 * own rules (rules.ts), run on the document as Spectral hands it over, every `$ref` inlined.
 * `npm run build` bundles this module and what it imports into
 * spectral-functions/carrierConventions.js (src/build/bundle-spectral.ts): one plain JavaScript
 * file with no import, which loads in every Spectral 6 (CLI, VS Code, Stoplight). It is generated,
 * never edited (issue 40 item 2); test/lint.test.ts and test/lint-agreement.test.ts run
 * @stoplight/spectral-cli with it and assert lint's findings, at the same file, line and pointer.
 *
 * What differs from lint is only the document model:
 * - Spectral's resolved document has a `$ref` left only where its resolver met a cycle (Xero's
 *   Payment → Invoice → Payments → Payment); the rules follow it as lint follows its internal ones
 *   (followRefs), one written in another file in that file.
 * - OpenAPI 3.2's additions are put where the rules look, as lint reads 3.2 (oas32.ts normalise).
 * - A schema used in several places is one object there, inlined at each: the rules visit each
 *   schema object once (lint, on the bundle, visits each pointer once), so both take `required`
 *   from the same first use of a schema.
 * - Each result is given at the place it is written (writtenAt), as lint's locate.ts traces it,
 *   and a property whose schema is written as a `$ref` at the `properties` object holding it
 *   (docs/design.md, "Where a $ref'd property is reported").
 */

type Segment = string | number;

/** What this function reads of Spectral's document inventory (the function context's). */
interface Inventory {
  /** The root document's file. */
  source?: unknown;
  unresolved?: unknown;
  /** The other files, as Spectral read them, by their absolute path. */
  referencedDocuments?: unknown;
  findAssociatedItemForPath?: (
    path: Segment[],
    resolved: boolean,
  ) => { document?: { data?: unknown }; path: Segment[] } | null;
}

function valueAt(root: unknown, tokens: readonly Segment[]): unknown {
  let v = root;
  for (const t of tokens) {
    const key = String(t);
    if (Array.isArray(v) && /^\d+$/.test(key) && Number(key) < v.length) v = v[Number(key)];
    else if (isObject(v) && Object.hasOwn(v, key)) v = v[key];
    else return undefined;
  }
  return v;
}

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
function writtenAt(unresolved: unknown, path: readonly Segment[]): { path: Segment[]; value: unknown } | undefined {
  let node = unresolved;
  let written: Segment[] = [];
  const follow = (): boolean => {
    for (let hops = 0; hops < 32 && isObject(node) && typeof node.$ref === 'string'; hops += 1) {
      const tokens = tokensOf(node.$ref);
      const next = tokens === undefined ? undefined : valueAt(unresolved, tokens);
      if (next === undefined) return false;
      node = next;
      written = tokens ?? [];
    }
    return !(isObject(node) && typeof node.$ref === 'string');
  };
  for (const segment of path) {
    if (!follow()) return undefined;
    const key = String(segment);
    if (
      Array.isArray(node)
        ? !(/^\d+$/.test(key) && Number(key) < node.length)
        : !(isObject(node) && Object.hasOwn(node, key))
    )
      return undefined;
    node = Array.isArray(node) ? (node as unknown[])[Number(key)] : (node as Json)[key];
    written = [...written, segment];
  }
  return follow() ? { path: written, value: node } : undefined;
}

/** The root document as written. */
const unresolvedOf = (inventory: Inventory | undefined): unknown =>
  inventory && (isObject(inventory.unresolved) || Array.isArray(inventory.unresolved))
    ? inventory.unresolved
    : undefined;

/**
 * Whether property `name` of the `properties` object at `propertiesPath` (a path in the resolved
 * document) is written as a `$ref`: the `properties` object is looked up where it is written (in
 * the root document, or where Spectral locates results in another file) and read as written.
 * Without a document inventory (a caller other than Spectral 6), nothing is taken for a `$ref`.
 */
function writtenAsRef(inventory: Inventory | undefined, propertiesPath: readonly Segment[], name: string): boolean {
  const unresolved = unresolvedOf(inventory);
  const local = unresolved === undefined ? undefined : writtenAt(unresolved, propertiesPath);
  let written = local?.value;
  if (!local) {
    if (typeof inventory?.findAssociatedItemForPath !== 'function') return false;
    const item = inventory.findAssociatedItemForPath(propertiesPath.map(String), true);
    // The closest existing ancestor stands in for a path Spectral cannot find: not a `properties` object.
    if (!item?.document || item.path[item.path.length - 1] !== 'properties') return false;
    written = valueAt(item.document.data, item.path);
  }
  if (!isObject(written) || !Object.hasOwn(written, name)) return false;
  const property = written[name];
  return isObject(property) && typeof property.$ref === 'string';
}

/** `target` (a `$ref`'s file part) read from the file `source`: a path relative to its folder. */
function relativeTo(source: string, target: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('/')) return target;
  const parts = source.split('/').slice(0, -1);
  for (const segment of target.split('/')) {
    if (segment === '..') parts.pop();
    else if (segment !== '.' && segment !== '') parts.push(segment);
  }
  return parts.join('/');
}

/**
 * How the rules follow a `$ref` left in Spectral's resolved document. One of the root document is
 * followed in the resolved document, to the pointer it names (lint's `resolve`). One written in
 * another file (a cycle among the schemas of a second file) is followed in that file as Spectral
 * read it (the inventory's referenced documents), its own `$ref`s followed the same way; what is
 * found there keeps the path of the `$ref`, so Spectral places a result inside it at the `$ref`
 * that closes the cycle (docs/design.md).
 */
function followRefs(document: Json, inventory: Inventory | undefined): Resolver {
  const files = new Map<string, unknown>();
  const fileOf = new WeakMap<object, string>();
  const referenced = isObject(inventory?.referencedDocuments) ? inventory.referencedDocuments : {};
  for (const [source, doc] of Object.entries(referenced)) {
    const data = isObject(doc) ? doc.data : undefined;
    if (!(isObject(data) || Array.isArray(data))) continue;
    files.set(source, data);
    const stack: object[] = [data];
    while (stack.length > 0) {
      const v = stack.pop() as object;
      if (fileOf.has(v)) continue;
      fileOf.set(v, source);
      for (const child of Object.values(v)) if (isObject(child) || Array.isArray(child)) stack.push(child);
    }
  }
  const root = typeof inventory?.source === 'string' ? inventory.source : undefined;
  return (_document, value, at) => {
    let v = value;
    let pointer = at;
    for (let hops = 0; hops < 32 && isObject(v) && typeof v.$ref === 'string'; hops += 1) {
      const source = fileOf.get(v);
      const hash = v.$ref.indexOf('#');
      const filePart = hash === -1 ? v.$ref : v.$ref.slice(0, hash);
      const fragment = hash === -1 ? '#' : v.$ref.slice(hash);
      const tokens = tokensOf(fragment);
      const file = filePart === '' ? source : relativeTo(source ?? root ?? '', filePart);
      const inRoot = file === undefined || file === root;
      const next = tokens === undefined ? undefined : valueAt(inRoot ? document : files.get(file), tokens);
      if (next === undefined) break;
      if (inRoot) pointer = fragment;
      v = next;
    }
    return { value: v, pointer };
  };
}

/** Spectral's result: the message, and the path it is reported at. */
interface Result {
  message: string;
  path: Segment[];
}

/** A finding as Spectral reports it: at the place it is written, a `$ref`'d property at its `properties` object. */
function placed(finding: RawFinding, inventory: Inventory | undefined): { rule: string; result: Result } {
  let path: Segment[] = tokensOf(finding.pointer) ?? [];
  const name = path[path.length - 1];
  if (
    (finding.rule === 'OAS-NULLABLE' || finding.rule === 'OAS-NULL-REQUIRED') &&
    path[path.length - 2] === 'properties' &&
    writtenAsRef(inventory, path.slice(0, -1), String(name))
  ) {
    path = path.slice(0, -1);
  }
  const unresolved = unresolvedOf(inventory);
  const written = unresolved === undefined ? undefined : writtenAt(unresolved, path);
  return { rule: finding.rule, result: { message: finding.message, path: written ? written.path : path } };
}

// Every rule of the ruleset calls this function on the whole document: the findings are worked
// out once per document and handed to each rule by its id.
const cache = new WeakMap<object, { rule: string; result: Result }[]>();

export default function carrierConventions(
  targetVal: unknown,
  options: { rule?: string } | null,
  context?: { documentInventory?: Inventory },
): Result[] {
  if (!isObject(targetVal)) return [];
  let findings = cache.get(targetVal);
  if (!findings) {
    const inventory = context?.documentInventory;
    const document = isOpenApi32(targetVal) ? normalise(targetVal) : targetVal;
    findings = lintDocument(document, undefined, {
      schemaKey: (value) => value,
      resolve: followRefs(document, inventory),
    }).map((f) => placed(f, inventory));
    cache.set(targetVal, findings);
  }
  return findings.filter((f) => f.rule === options?.rule).map((f) => f.result);
}
