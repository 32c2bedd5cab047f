/**
 * The corpus's ground truth for "is this GET a list?": the mock pages what this decides is a list
 * (or may be one), so the harness is measured against it. It is the benchmark's own rule, written
 * from the spec's words (§Pagination: "search endpoints and others returning multiple elements"),
 * not from src/openapi/endpoint-model.ts: a list is a body that returns multiple elements, whatever
 * its wrapper is called. Where hand labels exist (benchmarks/corpus/list-labels.json) they win.
 *
 * Three answers:
 * - list: certain; the mock pages it, and a harness that takes it for a single resource has a blind spot.
 * - single: certain; the mock does not page it, and a harness that takes it for a list is wrong.
 * - ambiguous: the shape alone cannot say (a wrapper at a by-id path, several arrays, an array among
 *   a few other fields). The mock pages it when it can (a conformant answer either way: paging
 *   headers on a single resource break no rule, a list without them does), and it counts in
 *   neither direction.
 */
import { readFileSync } from 'node:fs';
import type { BodyProperty, BodyShape, ListShape } from '../../test/support/document-mock.js';

export type Label = 'list' | 'single' | 'ambiguous';

export interface Decision {
  label: Label;
  /** Why, in a few words. */
  why: string;
  /** From a hand label (list-labels.json), not the rule below. */
  labelled: boolean;
  /** For a labelled one: what the rule alone would have said (the rule measured against the labels). */
  rule?: Label;
  /** Where the mock pages it (list and ambiguous); undefined: served as one body. */
  shape: ListShape | undefined;
}

/** One hand label: an endpoint of a document of the corpus (its path as in the original document). */
export interface HandLabel {
  document: string;
  path: string;
  label: Label;
  why: string;
}

/** Names a wrapper gives its array of elements. */
const COLLECTION =
  /^(data|items|results|result|content|contents|records|elements|values|entries|list|rows|hits|nodes|edges|_?embedded|objects|collection|resources|value)$/i;

/**
 * Words of a property that is about the page rather than an element of it: counts, totals, page
 * numbers and sizes, cursors, links, sorting, and a response's envelope (status, errors, warnings).
 * A property is metadata when every word of its name is one of these.
 */
const META_WORDS = new Set(
  [
    'perpage pagesize pagecount pagenumber pageno pagetoken pageinfo nextpage prevpage totalcount',
    'totalitems totalresults totalpages totalrecords totalsize itemcount resultcount numresults numfound',
    'hasmore nextcursor nextlink nexttoken maxresults startindex itemsperpage page pages paging',
    'pagination paginated per size number num count counts total totals records record results result',
    'next prev previous first last cursor cursors offset limit start startat end max min has more is link',
    'links meta metadata sort sorted sorting order ordering by token tokens continuation skip top took',
    'time timed out object type kind url uri href self etag status success ok message messages warning',
    'warnings error errors with types request query filter filters odata context nextlink deltalink',
    'facets aggregations summary returned available remaining estimated api version response code from to',
    'at index of in since until scroll before after marker truncated complete done range items item',
    'elements element entries',
  ]
    .join(' ')
    .split(' '),
);
/** Words that make a property an element's field, even beside metadata words (`item_id` is not metadata). */
const ELEMENT_WORDS = new Set(['id', 'ids', 'name', 'uuid', 'key']);

/** A property name's words: camelCase, snake_case, kebab-case and dotted (`@odata.nextLink`) split and lowercased. */
export function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== '')
    .map((w) => w.toLowerCase());
}

export function isMetadata(name: string): boolean {
  const words = wordsOf(name);
  return words.length > 0 && words.every((w) => META_WORDS.has(w)) && !words.some((w) => ELEMENT_WORDS.has(w));
}

/**
 * `databases` ~ `database`, `Accounts` ~ `accounts`, `policies` ~ `policy`: the same noun, any case;
 * and a segment that ends with the name (`best_podcasts` ~ `podcasts`, `getPhotos` ~ `photos`).
 */
function sameNoun(name: string, segment: string): boolean {
  const norm = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]/g, '');
  const stem = (s: string): string =>
    norm(s)
      .replace(/(ies)$/, 'y')
      .replace(/(sses|xes|ches|shes)$/, (m) => m.slice(0, -2))
      .replace(/s$/, '');
  if (norm(name) === '' || norm(segment) === '') return false;
  return (
    norm(name) === norm(segment) ||
    stem(name) === stem(segment) ||
    (stem(name).length >= 4 && stem(segment).endsWith(stem(name)))
  );
}

/**
 * The last literal segment of a template (`users/{id}/comments` → `comments`; a `#variant` and
 * `.json` dropped; Flickr's `rest?method=flickr.people.getPhotos` → `getPhotos`).
 */
function lastLiteral(template: string): string | undefined {
  const [path = '', query = ''] = template.replace(/#.*$/s, '').split('?');
  const method = [...new URLSearchParams(query).values()].at(-1)?.split('.').at(-1);
  if (method) return method;
  const segments = path.split('/').filter((s) => s !== '' && !s.includes('{'));
  return segments.at(-1)?.replace(/\.[a-z]+$/i, '');
}

/** Query parameters that page (an integer page, size, offset or limit; a cursor or token). */
const PAGING_PARAMETER =
  /^(page|size|per[-_]?page|page[-_]?(size|number|token|no|index)|limit|offset|cursor|after|before|starting[-_]?after|max[-_]?results|start[-_]?at|skip|top|\$top|\$skip|next[-_]?(page[-_]?)?token|continuation[-_]?token)$/i;

function pagingParameter(params: readonly Record<string, unknown>[]): boolean {
  return params.some((p) => {
    if (p.in !== 'query' || typeof p.name !== 'string' || !PAGING_PARAMETER.test(p.name)) return false;
    const schema = p.schema as Record<string, unknown> | undefined;
    // Jira's avatar `size` is an enum of sizes, not a page size.
    return !(schema && Array.isArray(schema.enum));
  });
}

/** The array of a wrapper that holds its elements, when one can be told from the others. */
function itemsOf(properties: readonly BodyProperty[], template: string): { name: string; items: string } | undefined {
  const arrays = properties.filter((p): p is { name: string; items: string } => p.items !== undefined);
  if (arrays.length <= 1) return arrays[0];
  const last = lastLiteral(template);
  const named = arrays.filter((a) => COLLECTION.test(a.name) || (last !== undefined && sameNoun(a.name, last)));
  if (named.length === 1) return named[0];
  // One array that is not metadata (Box's `entries` beside its `order`; Adyen's `data` beside `typesWithErrors`).
  const elements = arrays.filter((a) => !isMetadata(a.name));
  return elements.length === 1 ? elements[0] : undefined;
}

/** The corpus's own rule (see the top of this file). */
export function classify(
  template: string,
  params: readonly Record<string, unknown>[],
  shape: BodyShape | undefined,
): Omit<Decision, 'labelled'> {
  const byId = /\}$/.test(template.replace(/#.*$/s, ''));
  if (shape === undefined) return { label: 'single', why: 'no JSON body', shape: undefined };
  if ('array' in shape) {
    const paged = { wrapper: undefined, items: shape.array };
    return byId
      ? { label: 'ambiguous', why: 'an array at a by-id path', shape: paged }
      : { label: 'list', why: 'an array body', shape: paged };
  }
  const arrays = shape.properties.filter((p) => p.items !== undefined);
  if (arrays.length === 0) {
    // Musixmatch's `{message: {header, body: {track_list: [...]}}}`: elements nested in an envelope. Not certain: paged as a list, counted as neither.
    const nested = byId ? undefined : nestedList(shape.properties, template, []);
    return nested
      ? {
          label: 'ambiguous',
          why: `${nested.path.join('.')} nested in an envelope`,
          shape: { wrapper: nested.path[0], items: nested.items, path: nested.path },
        }
      : { label: 'single', why: 'an object without an array', shape: undefined };
  }
  const items = itemsOf(shape.properties, template);
  if (items === undefined)
    return {
      label: byId ? 'single' : 'ambiguous',
      why: `${arrays.length} arrays, none the elements`,
      shape: undefined,
    };
  const paged = { wrapper: items.name, items: items.items };
  const others = shape.properties.filter((p) => p.name !== items.name);
  const fields = others.filter((p) => !isMetadata(p.name));
  if (fields.length === 0) {
    // Xero answers `{Accounts: [one]}` by id: the wrapper of a list, the content of one resource.
    return byId
      ? { label: 'ambiguous', why: `a wrapper of ${items.name} at a by-id path`, shape: paged }
      : {
          label: 'list',
          why: others.length === 0 ? `a wrapper of ${items.name} alone` : `${items.name} beside paging metadata`,
          shape: paged,
        };
  }
  if (byId) return { label: 'single', why: `a resource by id with an array field ${items.name}`, shape: undefined };
  const last = lastLiteral(template);
  const elementsNamed = COLLECTION.test(items.name) || (last !== undefined && sameNoun(items.name, last));
  const beside = fields.map((f) => f.name).join(', ');
  // Paging shows in a parameter, or in metadata beside the array (`has_next`, `page_number`).
  const paging =
    pagingParameter(params) ||
    others.some((p) => isMetadata(p.name) && wordsOf(p.name).some((w) => PAGING_WORDS.has(w)));
  if (paging && elementsNamed && fields.length <= 3)
    return { label: 'list', why: `${items.name} paged, beside ${beside}`, shape: paged };
  if (paging || (elementsNamed && fields.length <= 2))
    return { label: 'ambiguous', why: `${items.name}${paging ? ' paged' : ''} beside ${beside}`, shape: paged };
  return { label: 'single', why: `an object with fields beside its array ${items.name}`, shape: undefined };
}

/** Words of a metadata property that say the body is a page. */
const PAGING_WORDS = new Set([
  'page',
  'pages',
  'paging',
  'pagination',
  'perpage',
  'pagesize',
  'pagecount',
  'pagenumber',
  'pageno',
  'pagetoken',
  'nextpage',
  'next',
  'prev',
  'previous',
  'cursor',
  'offset',
  'limit',
  'has',
  'hasmore',
  'more',
  'continuation',
  'startat',
  'maxresults',
  'nextcursor',
  'nextlink',
  'nexttoken',
  'totalpages',
]);

/**
 * An array two levels down at most, reached through single objects whose other properties are
 * metadata or an envelope's (`header`, `status`): where the elements of an enveloped list are.
 */
function nestedList(
  properties: readonly BodyProperty[],
  template: string,
  path: readonly string[],
): { path: string[]; items: string } | undefined {
  const items = itemsOf(properties, template);
  const arrays = properties.filter((p) => p.items !== undefined);
  if (path.length > 0 && items !== undefined) {
    const fields = properties.filter((p) => p.name !== items.name && !isMetadata(p.name) && !ENVELOPE.test(p.name));
    return fields.length === 0 ? { path: [...path, items.name], items: items.items } : undefined;
  }
  if (arrays.length > 0) return undefined;
  const objects = properties.filter((p) => p.properties !== undefined);
  const found = objects
    .map((o) => nestedList(o.properties ?? [], template, [...path, o.name]))
    .filter((f) => f !== undefined);
  const others = properties.filter((p) => p.properties === undefined && !isMetadata(p.name) && !ENVELOPE.test(p.name));
  return found.length === 1 && others.length === 0 ? found[0] : undefined;
}

/** Names of an envelope's parts beside the content (`header` beside `body`). */
const ENVELOPE =
  /^(header|headers|meta|metadata|status|status_?code|code|message|messages|request|response|execute_time|version|api_version|success|ok|errors?|warnings?)$/i;

/** The hand labels, by document then by tenant-relative template; an absent file is no labels. */
export function readLabels(file: string): Map<string, Map<string, HandLabel>> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw err;
  }
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed)) throw new Error(`${file}: not an array of labels`);
  const out = new Map<string, Map<string, HandLabel>>();
  for (const [i, entry] of parsed.entries()) {
    const e = entry as Partial<HandLabel> | null;
    if (
      !e ||
      typeof e.document !== 'string' ||
      typeof e.path !== 'string' ||
      !['list', 'single', 'ambiguous'].includes(String(e.label))
    ) {
      throw new Error(`${file}: entry ${i} is not {document, path, label: list|single|ambiguous, why}`);
    }
    const byPath = out.get(e.document) ?? new Map<string, HandLabel>();
    byPath.set(templateOf(e.path), {
      document: e.document,
      path: e.path,
      label: e.label as Label,
      why: typeof e.why === 'string' ? e.why : '',
    });
    out.set(e.document, byPath);
  }
  return out;
}

/** The tenant-relative template a path of the original document becomes (test/support/document-mock.ts reRoot). */
export function templateOf(path: string): string {
  return path === '/' ? 'root' : path.replace(/^\//, '');
}

/** The decision for one GET: the hand label when there is one (its list shape found as the rule finds it), else the rule's. */
export function decide(
  template: string,
  params: readonly Record<string, unknown>[],
  shape: BodyShape | undefined,
  label: HandLabel | undefined,
): Decision {
  const ruled = classify(template, params, shape);
  if (label === undefined) return { ...ruled, labelled: false };
  if (label.label === 'single')
    return { label: 'single', why: label.why, labelled: true, rule: ruled.label, shape: undefined };
  // A labelled list is paged where its elements are: the whole array, the wrapper's array (or the nested one) the rule picks, else its only or first one.
  let paged = ruled.shape;
  if (paged === undefined && shape !== undefined) {
    if ('array' in shape) paged = { wrapper: undefined, items: shape.array };
    else {
      const first = itemsOf(shape.properties, template) ?? shape.properties.find((p) => p.items !== undefined);
      if (first?.items !== undefined) paged = { wrapper: first.name, items: first.items };
    }
  }
  return { label: label.label, why: label.why, labelled: true, rule: ruled.label, shape: paged };
}
