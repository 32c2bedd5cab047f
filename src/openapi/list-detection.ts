import { PAGING_HEADER_NAMES } from '../carrier/paths.js';
import { isObject, pointerOf, resolve, type Json } from './pointer.js';

/**
 * Which GETs are lists (issue 37 item 3). Spec §Pagination: paging "applies to search endpoints
 * and others returning multiple elements": a list is a body that returns multiple elements of one
 * collection, whatever words its wrapper uses. A list taken for a resource is judged by no PAGE-,
 * LINK- or NULLS- check (a blind spot); a resource taken for a list is paged and fails a
 * conformant server (a false failure). So the evidence is weighed, and where it is not certain the
 * endpoint says so, with the option that overrides it (--paged-path, --endpoint).
 *
 * Measured on 1,853 hand-labelled GETs of 14 public documents (benchmarks/corpus/list-labels.json,
 * `npm run corpus:lists`, docs/list-detection.md). The evidence, strongest first:
 * - the body is an array (bare);
 * - paging response headers are declared (`Total-Pages`, `Link`…: the spec's own);
 * - an object body with one array of the collection (`items`), chosen among its arrays by a
 *   collection's name (`data`, `items`, `results`, `entries`, `value`…) or by the path's own name
 *   (`/v2/databases` → `databases`, `/comment` → `comments`), beside nothing but paging or
 *   hypermedia metadata (`page_count`, `next_page_token`, `startAt`, `maxResults`, `_links`,
 *   `total_records`) or nothing at all (Xero's `{Accounts: [...]}`);
 * - declared paging query parameters (`page`, `size`, integers) on a path that is not one
 *   resource by id.
 * A path that ends in a parameter is one resource (Xero's `GET /Accounts/{AccountID}` answers the
 * list's own envelope with one account in it) unless its body is an array, or a wrapper under a
 * collection's name beside paging metadata (LaunchDarkly's `/flags/{projectKey}` `{items,
 * totalCount, _links}`).
 */

/** Names a list's array goes by in wrappers of real APIs. */
const COLLECTION_NAMES = new Set([
  'data',
  'items',
  'results',
  'content',
  'records',
  'elements',
  'values',
  'value',
  'entries',
  'list',
  'rows',
  'hits',
  'nodes',
  'edges',
  'objects',
  'resources',
  'collection',
  'members',
  'embedded',
  '_embedded',
]);
/** Words of the properties a wrapper has beside its items: paging, totals and hypermedia (`next_page_uri`, `totalCount`, `has_more`, `startAt`, `maxResults`). */
const METADATA_WORDS = new Set([
  'sort',
  'order',
  'page',
  'pages',
  'total',
  'totals',
  'next',
  'prev',
  'previous',
  'first',
  'last',
  'cursor',
  'cursors',
  'continuation',
  'token',
  'count',
  'offset',
  'limit',
  'skip',
  'start',
  'end',
  'at',
  'size',
  'number',
  'more',
  'has',
  'is',
  'links',
  'link',
  'meta',
  'metadata',
  'paging',
  'pagination',
  'info',
  'self',
  'uri',
  'url',
  'href',
  'object',
  'kind',
  'type',
  'truncated',
  'elements',
  'results',
  'result',
  'items',
  'records',
  'max',
  'estimate',
  'expand',
  'marker',
  'markers',
  'after',
  'before',
  'since',
  'per',
  'remaining',
  'available',
  'returned',
  'nextlink',
  'odata',
  'context',
  'etag',
  'warnings',
  'warning',
  'messages',
  'errors',
  'with',
  // Ranges and streams a page of a list reports (Zoom's `from`/`to`, Jira's `since`/`until`, Box's `next_stream_position`, Asana's `sync`), and search results' flags.
  'from',
  'to',
  'since',
  'until',
  'date',
  'sync',
  'stream',
  'position',
  'chunk',
  'incomplete',
  'header',
  'site',
]);
/** Of those, the words only paging or a collection's totals use: one must be there, or `{total, lines: [...]}` (a cart) would pass for a list. */
const PAGING_WORDS = new Set([
  'page',
  'pages',
  'next',
  'prev',
  'previous',
  'cursor',
  'cursors',
  'continuation',
  'offset',
  'limit',
  'more',
  'paging',
  'pagination',
  'marker',
  'nextlink',
  'records',
  'max',
  'estimate',
  'truncated',
  'after',
  'before',
]);

/** A property name's words, lower case: `next_page_uri`, `nextPageUri` and `next-page-uri` are [next, page, uri]. */
export function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

/** Whether every property beside the items is metadata, by its words. */
function allMetadata(others: readonly string[]): boolean {
  return others.every((name) => {
    const words = wordsOf(name);
    return words.length > 0 && words.every((w) => METADATA_WORDS.has(w));
  });
}

const hasPagingWord = (others: readonly string[]): boolean =>
  others.some((name) => wordsOf(name).some((w) => PAGING_WORDS.has(w)));

/** Whether one of the fields is wholly paging metadata (Adyen's `pagesTotal`, `itemsTotal`), not a field that merely has a paging word (`cacheTimeLimit`). */
const hasPagingField = (others: readonly string[]): boolean =>
  others.some((name) => {
    const words = wordsOf(name);
    return words.length > 0 && words.every((w) => METADATA_WORDS.has(w)) && words.some((w) => PAGING_WORDS.has(w));
  });

/**
 * Whether an operation takes paging query parameters of any spelling (`per_page`, `pageSize`,
 * `limit`, `cursor`, `PageToken`, `startAt`, `maxResults`): with one, a wrapper's metadata need not
 * name paging itself (GitHub's `{total_count, labels: [...]}` under `per_page` and `page`).
 */
export function pagedByQuery(names: readonly string[]): boolean {
  // A parameter that is wholly about paging: GraphHopper's `alternative_route.max_paths` has a
  // paging word and bounds the alternatives of one route, not a page of a list.
  return names.some((n) => {
    const words = wordsOf(n);
    return (
      words.length > 0 &&
      words.every((w) => METADATA_WORDS.has(w) || w === 'per') &&
      words.some((w) => PAGING_WORDS.has(w) || w === 'per')
    );
  });
}

/** Whether a (resolved) schema describes an array. */
export function isArraySchema(schema: unknown): schema is Json {
  if (!isObject(schema)) return false;
  const { type } = schema;
  return (
    type === 'array' || (Array.isArray(type) && type.includes('array')) || ('items' in schema && type === undefined)
  );
}

/**
 * The properties an object schema declares, its allOf members' merged (the last declaration of a
 * name wins: a member refining a base, as Train Travel's lists refine `Wrapper-Collection`'s
 * `data`), each with the pointer of its schema, resolved.
 */
function propertiesOf(
  document: Json,
  schema: unknown,
  pointer: string,
  depth = 0,
): Map<string, { value: unknown; pointer: string }> {
  const out = new Map<string, { value: unknown; pointer: string }>();
  const s = resolve(document, schema, pointer);
  if (!isObject(s.value) || depth > 16) return out;
  const members = Array.isArray(s.value.allOf) ? (s.value.allOf as unknown[]) : [];
  members.forEach((m, i) => {
    for (const [k, v] of propertiesOf(document, m, `${s.pointer}/allOf/${i}`, depth + 1)) out.set(k, v);
  });
  if (isObject(s.value.properties)) {
    for (const [name, child] of Object.entries(s.value.properties))
      out.set(name, resolve(document, child, `${s.pointer}/properties/${pointerOf(name)}`));
  }
  return out;
}

/** Where a list body's items are: the array itself, or a wrapper's one array property. */
export interface ItemsAt {
  /** The pointer of one item's schema, when the array declares one. */
  schema?: string;
  /** The wrapper's property that holds the items; absent for an array body. */
  property?: string;
}

/** A path's last segment that names something (not a parameter), as words: `v2/databases` → [databases]. */
function lastNamed(path: string): string[] {
  const segments = path.split('/').filter((s) => s !== '' && !/^\{[^}]*\}$/.test(s));
  const last = segments.at(-1) ?? '';
  return wordsOf(last.replace(/\.[A-Za-z0-9]+$/, '').replace(/\{[^}]*\}/g, ''));
}

/** One word, singular: `databases` → `database`, `entries` → `entry`; crude, and enough to compare two names. */
function singular(word: string): string {
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(ss|sh|ch|x)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

/** Whether an array property's name is the path's own name: `/v2/databases` `{databases}`, `/issue/{id}/comment` `{comments}`, `/Accounts` `{Accounts}`. */
function namedByPath(name: string, path: string): boolean {
  const own = wordsOf(name).map(singular).join('_');
  const last = lastNamed(path).map(singular);
  if (own === '' || last.length === 0) return false;
  // The whole last segment (`scheduled_events` and `scheduledEvents`) or its last word (`/users/{id}/meetings` `meetings`).
  return own === last.join('_') || own === last.at(-1);
}

/** Nouns whose plural names one thing (a contact's `CISSettings`, a user's `preferences`). */
const ONE_THING_PLURALS = new Set(['settings', 'preferences', 'details']);

/**
 * Why an array alone, named as its path is, may hold one thing in a list's envelope rather than a
 * list: the path names one (`/Organisation` `{Organisations: [the one]}`, Zoom's
 * `rooms/locations/structure` `{structures}`), or the name is a plural that means one thing
 * (Xero's `Contacts/{ContactID}/CISSettings` `{CISSettings: [the settings]}`). Undefined: a list.
 * Such a list is judged where its answer shows paging (src/battery/walk.ts notShownAList).
 */
function oneThingNamed(name: string, path: string): string | undefined {
  const own = wordsOf(name).at(-1) ?? '';
  const last = lastNamed(path).at(-1) ?? '';
  if (last !== '' && last !== own && singular(own) === last)
    return `its body is only an array ${name}, and its path names one ${last}: the one in a list's envelope, or a list`;
  if (ONE_THING_PLURALS.has(own))
    return `its body is only an array ${name}, whose name means one thing (${own}): the one in a list's envelope, or a list`;
  return undefined;
}

/**
 * Whether the operation names itself a listing (`listUsers`, `droplets_list_neighbors`, "List
 * billing invoices", "Get all gadgets", "Returns a list of…"): evidence only where the body's
 * shape leaves it open (an array alone under a name the path does not give, an array beside
 * fields that are not all metadata), never against a path that ends in a parameter.
 */
function operationSaysList(operation: Json): boolean {
  const id = typeof operation.operationId === 'string' ? wordsOf(operation.operationId) : [];
  const summary = typeof operation.summary === 'string' ? operation.summary.trim().toLowerCase() : '';
  return (
    id.includes('list') ||
    /^(lists?|get all|retrieve all|returns? all|returns? a list|gets? a list|search|find)\b/.test(summary)
  );
}

/** How the body of a GET reads as a list: its items, or why it reads as a resource, and how sure that is. */
export interface ListShape {
  /** Its items when it is a list. */
  items?: ItemsAt;
  /** What the items would be if it were a list, where it is taken for a resource though it holds an array that may be one. */
  candidate?: ItemsAt;
  /** Why the reading is not certain (for the console and the reports), or undefined when it is. */
  uncertain?: string;
}

/**
 * The items of a body that is an array or a wrapper around one; a resource otherwise, with the
 * array it might be a list of when the evidence is not certain. `lint` asks the same of a
 * document (OAS-PAGE-PARAMS, OAS-PAGE-HEADERS).
 */
export function listShapeOf(
  document: Json,
  body: { pointer: string },
  path: string,
  queryNames: readonly string[] = [],
  operation: Json = {},
): ListShape {
  const saysList = operationSaysList(operation);
  const resolved = resolve(document, { $ref: body.pointer }, body.pointer);
  const items = (array: Json, at: string, property?: string): ItemsAt => ({
    ...('items' in array ? { schema: `${at}/items` } : {}),
    ...(property !== undefined ? { property } : {}),
  });
  if (isArraySchema(resolved.value)) return { items: items(resolved.value, resolved.pointer) };
  const properties = propertiesOf(document, { $ref: body.pointer }, body.pointer);
  const arrays = [...properties].filter(([, p]) => isArraySchema(p.value));
  if (arrays.length === 0) return {};
  const byId = /\}$/.test(path);
  // A collection's name, or one ending in it (Xero's `HistoryRecords`).
  const collection = arrays.filter(
    ([name]) => COLLECTION_NAMES.has(name.toLowerCase()) || COLLECTION_NAMES.has(wordsOf(name).at(-1) ?? ''),
  );
  const named = arrays.filter(([name]) => namedByPath(name, path));
  // The items: the one array under a collection's name, else the one the path names, else the only array.
  const chosen =
    collection.length === 1
      ? collection[0]
      : collection.length === 0 && named.length === 1
        ? named[0]
        : arrays.length === 1
          ? arrays[0]
          : undefined;
  if (!chosen)
    return {
      uncertain: `its body holds ${arrays.length} arrays (${arrays.map(([n]) => n).join(', ')}) and none is certainly its items`,
    };
  const [name, array] = chosen;
  const candidate = items(array.value as Json, array.pointer, name);
  const others = [...properties.keys()].filter((k) => k !== name);
  // Other arrays beside the items are metadata too, or the body is not one collection.
  const metadata = allMetadata(others);
  const paging = hasPagingWord(others) || pagedByQuery(queryNames);
  if (byId) {
    // One resource by id, unless it is a collection's wrapper (`items`, `data`) with nothing but
    // metadata beside it (LaunchDarkly's `/segments/{projectKey}/{environmentKey}` `{_links, items}`):
    // Xero's resource by id answers its list's envelope, `{Accounts: [the one]}`, under another name.
    // Not the envelope the path's own collection answers with (Xero's `/Items/{ItemID}` `{Items: [the one]}`).
    if (
      collection.length === 1 &&
      metadata &&
      others.length > 0 &&
      !namedByPath(name, path.replace(/\/\{[^}]*\}$/, ''))
    )
      return { items: candidate };
    return metadata && others.length > 0 && paging
      ? {
          candidate,
          uncertain: `its path ends in a parameter, but its body is ${name} beside paging metadata (${others.join(', ')})`,
        }
      : {};
  }
  // A collection beside metadata, or beside a paging field among others (Adyen's `{data, pagesTotal,
  // accountReference}`); a paging word inside another field's name (autodealerdata's
  // `{data, brandName, cacheTimeLimit}`) pages nothing for certain.
  if (collection.length === 1 && (metadata || hasPagingField(others))) {
    // Another array beside the items that is not metadata (Azure Data Lake's previewrows `{rows,
    // schema, totalRowCount, truncated}`: a table's preview, its rows beside its columns): a page of
    // the items, or one resource holding both; a list only where the answer shows paging.
    // An array whose name speaks of the page (Adyen's `typesWithErrors` beside its `data`) is about the page.
    const arraysBeside = metadata
      ? []
      : others.filter((k) => isArraySchema(properties.get(k)?.value) && !wordsOf(k).some((w) => METADATA_WORDS.has(w)));
    return arraysBeside.length === 0
      ? { items: candidate }
      : {
          items: candidate,
          uncertain: `its body has an array ${name} beside paging fields and another array (${arraysBeside.slice(0, 4).join(', ')}): a page of ${name}, or one resource holding both`,
        };
  }
  if (collection.length === 1 && hasPagingWord(others))
    return {
      candidate,
      uncertain: `its body has an array ${name} beside fields that are not all paging metadata (${others.slice(0, 4).join(', ')}${others.length > 4 ? ', …' : ''})`,
    };
  if (others.length === 0) {
    // An array alone is the list the path names (`/v2/databases` `{databases}`, `/Accounts`
    // `{Accounts}`), or the operation says it lists; under another name it may be one thing in an
    // envelope (Xero's `/Reports/BalanceSheet` `{Reports: [one report]}`).
    if (named.length === 1 || saysList) {
      const one = saysList ? undefined : oneThingNamed(name, path);
      return one === undefined ? { items: candidate } : { items: candidate, uncertain: one };
    }
    return {
      candidate,
      uncertain: `its body is only an array ${name}, which its path does not name: one resource in an envelope, or a list`,
    };
  }
  if (metadata && (paging || named.length === 1)) return { items: candidate };
  // The array the path names, beside other scalar fields, in an operation that says it lists (Zoom's "List billing invoices" `{currency, invoices}`).
  if (saysList && named.length === 1 && others.every((k) => !isArraySchema(properties.get(k)?.value)))
    return { items: candidate };
  if (named.length === 1 && others.every((k) => !isArraySchema(properties.get(k)?.value))) {
    return {
      candidate,
      uncertain: `its body has an array ${name}, named as its path is, beside ${others.length} other ${others.length === 1 ? 'field' : 'fields'} (${others.slice(0, 4).join(', ')}${others.length > 4 ? ', …' : ''}) that are not all paging metadata`,
    };
  }
  return {};
}

/** Whether a query parameter pages as the spec's `page`/`size` do: by that name, with an integer (or unstated) type; an avatar's `size` enum of names does not. */
function isPagingParameter(document: Json, parameter: Json): boolean {
  if (parameter.name !== 'page' && parameter.name !== 'size') return false;
  const schema = resolve(document, parameter.schema, '').value;
  if (!isObject(schema)) return true;
  const types = ([] as unknown[]).concat(schema.type ?? []);
  if (Array.isArray(schema.enum) && schema.enum.some((v) => typeof v === 'string' && !/^\d+$/.test(v))) return false;
  return types.length === 0 || types.some((t) => t === 'integer' || t === 'number');
}

/** Whether a response declares a paging header of the spec's (§Pagination). */
function pagingHeaders(response: { value: Json } | undefined): boolean {
  const headers = response && isObject(response.value.headers) ? Object.keys(response.value.headers) : [];
  return headers.some((h) => PAGING_HEADER_NAMES.some((name) => name.toLowerCase() === h.toLowerCase()));
}

/** The verdict on one GET: list or single, by what evidence, and the items of a list. */
export interface Classification {
  kind: 'list' | 'single';
  listBy?: 'paging' | 'array' | 'wrapped-array';
  items?: ItemsAt;
  /** For a resource that may be a list: its items were it one (--paged-path uses them). */
  candidate?: ItemsAt;
  uncertain?: string;
}

/**
 * Classifies a GET from its body (listShapeOf), its query parameters and its response headers.
 * Declared paging (page/size, the spec's headers) makes a list of a body that is not clearly one
 * resource; on a path that ends in a parameter, or beside a body whose arrays are a resource's
 * fields (GitHub's combined status pages its `statuses`), it is the resource's own array the
 * query pages, and the endpoint stays a resource, said to be uncertain.
 */
export function classify(
  document: Json,
  body: { pointer: string } | undefined,
  path: string,
  query: readonly Json[],
  response: { value: Json } | undefined,
  operation: Json = {},
): Classification {
  const shape = body
    ? listShapeOf(
        document,
        body,
        path,
        query.map((p) => String(p.name)),
        operation,
      )
    : {};
  const headers = pagingHeaders(response);
  const params = query.some((p) => isPagingParameter(document, p));
  if (shape.items) {
    // Paging declared settles what the body's shape left uncertain.
    const listBy = headers || params ? 'paging' : shape.items.property !== undefined ? 'wrapped-array' : 'array';
    return {
      kind: 'list',
      listBy,
      items: shape.items,
      ...(shape.uncertain !== undefined && listBy !== 'paging' ? { uncertain: shape.uncertain } : {}),
    };
  }
  if (headers) return { kind: 'list', listBy: 'paging', ...(shape.candidate ? { items: shape.candidate } : {}) };
  const byId = /\}$/.test(path);
  // Paging parameters on a body the document leaves unsaid make a list; on an object the document
  // declares with no array at all (Vimeo's promotions, {access_type, discount_type, …} under page and
  // per_page) nothing could be paged: a resource, uncertain, rather than PAGE- failures on one object.
  if (params && !byId && !shape.uncertain && shape.candidate === undefined && !hasArrays(document, body)) {
    // `size` alone on a body the document does not describe is as often an image's (Appwrite's QR code) as a page's.
    // A list by its parameters alone, the body unsaid: uncertain, and judged as a list only where
    // the answer shows one (suites/pagination.test.ts: an array, or the spec's paging headers).
    if (
      !declaresObject(document, body) &&
      (body !== undefined || query.some((p) => p.name === 'page' && isPagingParameter(document, p)))
    ) {
      const names = query
        .filter((p) => isPagingParameter(document, p))
        .map((p) => String(p.name))
        .join(' and ');
      return {
        kind: 'list',
        listBy: 'paging',
        uncertain: `it takes ${names}, but the document ${body === undefined ? 'declares no JSON body' : 'does not say what its body holds'}`,
      };
    }
    if (!declaresObject(document, body))
      return {
        kind: 'single',
        uncertain: `it takes size, but the document declares no JSON body: an image's size or a page's`,
      };
    return {
      kind: 'single',
      uncertain: `it takes ${query
        .filter((p) => isPagingParameter(document, p))
        .map((p) => String(p.name))
        .join(' and ')}, but its body is one object with no array, nothing a page could hold`,
    };
  }
  const single: Classification = { kind: 'single', ...(shape.candidate ? { candidate: shape.candidate } : {}) };
  if (params)
    return {
      ...single,
      uncertain: `it takes ${query
        .filter((p) => isPagingParameter(document, p))
        .map((p) => String(p.name))
        .join(
          ' and ',
        )}, but ${byId ? 'its path ends in a parameter (one resource)' : 'its body is a resource whose own array the query may page'}${shape.uncertain ? `; ${shape.uncertain}` : ''}`,
    };
  return shape.uncertain ? { ...single, uncertain: shape.uncertain } : single;
}

/** Whether the body's schema is an object that declares its properties (a resource the document describes, not a gap). */
function declaresObject(document: Json, body: { pointer: string } | undefined): boolean {
  if (!body) return false;
  return [...propertiesOf(document, { $ref: body.pointer }, body.pointer)].length > 0;
}

/** Whether an object body declares any array property (a resource with a field the query may page). */
function hasArrays(document: Json, body: { pointer: string } | undefined): boolean {
  if (!body) return false;
  return [...propertiesOf(document, { $ref: body.pointer }, body.pointer)].some(([, p]) => isArraySchema(p.value));
}
