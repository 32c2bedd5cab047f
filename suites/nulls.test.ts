/**
 * nulls: an optional field without data is sent as null, never omitted (spec §Generic rules for
 * optional fields 1). Across every item of every page of each list, the fields are the same.
 * The walk hands each page's items grouped by shape (src/battery/list-items.ts); the judge keeps
 * one example per shape across the whole list, which stands for all the items of that shape.
 * (With an OpenAPI document, RESOURCE-FIELDS-PRESENT also holds every item and resource to the
 * properties its schema declares, and the keys of its maps and the properties of one branch of a
 * union are not fields: src/battery/field-schema.ts.)
 */
import { check, suite } from '../src/battery/check.js';
import { listEndpoints, notValidByDocument, onEach } from '../src/battery/endpoints.js';
import { fieldPaths, missingFields } from '../src/carrier/fields.js';
import { fieldFilter } from '../src/battery/field-schema.js';
import { getBattery } from '../src/battery/context.js';
import { itemLabelAt } from '../src/carrier/list-items.js';
import { getWalk, notShownAList, pageJudge } from '../src/battery/walk.js';
import type { HttpResponse } from '../src/http/client.js';

/** Omissions reported per list before the rest are summed up. */
const MAX_REPORTED = 20;
/** Item shapes kept per list: a list whose every item has its own shape is compared on the first ones. */
const MAX_SHAPES = 1000;

interface Shape {
  example: unknown;
  /** The page it was first seen on, and the first item of that shape. */
  page: number;
  /** The label of the first item of that shape. */
  first: string;
  count: number;
  res: HttpResponse | undefined;
}

pageJudge({
  check: 'NULLS-SAME-FIELDS',
  start: () => ({ shapes: new Map<string, Shape>(), overflow: false }),
  page(state, page) {
    const items = page.items;
    for (const group of items?.shapes ?? []) {
      const key = group.shape;
      const known = state.shapes.get(key);
      if (known) known.count += group.indexes.length;
      else if (state.shapes.size >= MAX_SHAPES) state.overflow = true;
      // The exchange is kept for the shapes that can be listed in the report.
      else if (items)
        state.shapes.set(key, {
          example: group.example,
          page: page.number,
          first: itemLabelAt(items, group.indexes[0] ?? 0),
          count: group.indexes.length,
          res: state.shapes.size < MAX_REPORTED ? page.res : undefined,
        });
    }
  },
  end(state, { head }, out) {
    if (state.overflow)
      out.note(
        `${head.path}: more than ${MAX_SHAPES} different item shapes; the items of the others were not compared`,
      );
    // The union of the fields any item has: an item without one of them omitted it. Fields as the
    // schema says: a map's keys and one union branch's properties are not (issue 37 item 2).
    const isField = fieldFilter(getBattery().settings.openapi, head.endpoint.spec?.schema);
    const union = new Set<string>();
    for (const shape of state.shapes.values())
      for (const field of fieldPaths(shape.example)) if (isField(field)) union.add(field);
    let reported = 0;
    let omitting = 0;
    for (const shape of state.shapes.values()) {
      const missing = missingFields(shape.example, union);
      if (missing.length === 0) continue;
      omitting += shape.count;
      reported += 1;
      const more = shape.count > 1 ? ` (and ${shape.count - 1} more like it)` : '';
      if (reported <= MAX_REPORTED)
        out.fail(
          `${head.path} page ${shape.page}: item ${shape.first}${more} omits ${missing.map((f) => `"${f}"`).join(', ')}, which other items carry (send null instead)`,
          shape.res,
        );
    }
    if (reported > MAX_REPORTED) out.fail(`${head.path}: ${omitting} items in all omit fields that other items carry`);
  },
});

suite('nulls', () => {
  check('NULLS-SAME-FIELDS', async (c) => {
    const lists = listEndpoints(c);
    const { tenantId, tenantProblem } = c.settings;
    if (lists.length === 0)
      c.skip('no list endpoint configured: pass --openapi or --paged-path (e.g. --paged-path shipments)');
    if (tenantId === undefined)
      return c.error(`no tenant under test: ${tenantProblem ?? 'none given'} (pass --tenant-id)`);
    let compared = 0;
    await onEach(c, lists, async (e, endpoint) => {
      const path = await endpoint.path(e);
      if (typeof path !== 'string') return e.skipEndpoint(path.unresolved);
      const walk = await getWalk(e, endpoint);
      const unproven = walk.first.res.status >= 400 ? notValidByDocument(endpoint, walk.first.res) : undefined;
      if (unproven !== undefined) return e.skipEndpoint(unproven);
      const unshown = notShownAList(endpoint.spec, walk.first);
      if (unshown !== undefined) return e.skipEndpoint(unshown);
      if (walk.problems.length > 0)
        return e.error(`cannot walk ${walk.path}: ${walk.problems.join('; ')}`, walk.first.res);
      if (walk.sample) e.note(`judged on a sample of ${walk.sample.pages} of ${walk.sample.of} pages (--max-pages)`);
      if (walk.itemsRead < 2) return e.skipEndpoint('fewer than two items, nothing to compare');
      compared += 1;
      walk.findings(e.check.id).report(e);
    });
    // Nothing compared is not a pass: the rule was not exercised (seed the tenant, or add a list).
    if (compared === 0 && c.findings.length === 0)
      c.skip(
        `no list with two or more items to compare (${lists.map((l) => l.spec?.path ?? l.label).join(', ')}): the rule could not be exercised; seed the tenant under test or add a --paged-path`,
      );
  });
});
