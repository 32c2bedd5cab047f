/**
 * nulls: an optional field without data is sent as null, never omitted (spec §Generic rules for
 * optional fields 1). Across every item of every page of each list, the fields are the same.
 */
import { check, suite } from '../src/battery/check.js';
import { fieldPaths, missingFields } from '../src/battery/fields.js';
import { itemLabel } from '../src/battery/list-items.js';
import { getWalk } from '../src/battery/paging.js';

/** Omissions reported per list before the rest are summed up. */
const MAX_REPORTED = 20;

suite('nulls', () => {
  check('NULLS-SAME-FIELDS', async (c) => {
    const { pagedPaths, tenantId, tenantProblem } = c.settings;
    if (pagedPaths.length === 0) c.skip('no list endpoint configured: pass --paged-path (e.g. --paged-path shipments)');
    if (tenantId === undefined) return c.error(`no tenant under test: ${tenantProblem ?? 'none given'} (pass --tenant-id)`);
    for (const path of pagedPaths) {
      const walk = await getWalk(c, path);
      if (walk.problems.length > 0) {
        c.error(`cannot walk ${path}: ${walk.problems.join('; ')}`, walk.pages[0]?.res);
        continue;
      }
      const items = walk.pages.flatMap((page) => (page.items ?? []).map((item) => ({ item, page })));
      if (items.length < 2) {
        c.note(`${path}: fewer than two items, nothing to compare`);
        continue;
      }
      // The union of the fields any item has: an item without one of them omitted it.
      const union = new Set<string>();
      for (const { item } of items) for (const field of fieldPaths(item)) union.add(field);
      let reported = 0;
      for (const { item, page } of items) {
        const missing = missingFields(item, union);
        if (missing.length === 0) continue;
        reported += 1;
        if (reported <= MAX_REPORTED) c.fail(`${path} page ${page.number}: item ${itemLabel(item)} omits ${missing.map((f) => `"${f}"`).join(', ')}, which other items carry (send null instead)`, page.res);
      }
      if (reported > MAX_REPORTED) c.fail(`${path}: ${reported - MAX_REPORTED} more items omit fields`);
    }
  });
});
