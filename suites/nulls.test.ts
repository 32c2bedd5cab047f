/**
 * nulls: an optional field without data is sent as null, never omitted (spec §Generic rules for
 * optional fields 1). Across every item of every page of each list, the fields are the same.
 * The walk keeps one example per item shape (src/battery/list-items.ts), which stands for all
 * the items of that shape. (With an OpenAPI document, RESOURCE-FIELDS-PRESENT also holds every
 * item and resource to the properties its schema declares.)
 */
import { check, suite } from '../src/battery/check.js';
import { listEndpoints, onEach } from '../src/battery/endpoints.js';
import { fieldPaths, missingFields } from '../src/battery/fields.js';
import { keyLabel } from '../src/battery/list-items.js';
import { getWalk } from '../src/battery/paging.js';

/** Omissions reported per list before the rest are summed up. */
const MAX_REPORTED = 20;

suite('nulls', () => {
  check('NULLS-SAME-FIELDS', async (c) => {
    const lists = listEndpoints(c);
    const { tenantId, tenantProblem } = c.settings;
    if (lists.length === 0) c.skip('no list endpoint configured: pass --openapi or --paged-path (e.g. --paged-path shipments)');
    if (tenantId === undefined) return c.error(`no tenant under test: ${tenantProblem ?? 'none given'} (pass --tenant-id)`);
    let compared = 0;
    await onEach(c, lists, async (e, endpoint) => {
      const path = await endpoint.path(e);
      if (typeof path !== 'string') return e.skipEndpoint(path.unresolved);
      const walk = await getWalk(e, endpoint);
      if (walk.problems.length > 0) return e.error(`cannot walk ${walk.path}: ${walk.problems.join('; ')}`, walk.pages[0]?.res);
      if (walk.sample) e.note(`judged on a sample of ${walk.sample.pages} of ${walk.sample.of} pages (--max-pages)`);
      const groups = walk.pages.flatMap((page) => (page.items?.shapes ?? []).map((group) => ({ group, page })));
      const itemCount = walk.pages.reduce((n, page) => n + (page.items?.keys.length ?? 0), 0);
      if (itemCount < 2) return e.skipEndpoint('fewer than two items, nothing to compare');
      compared += 1;
      // The union of the fields any item has: an item without one of them omitted it.
      const union = new Set<string>();
      for (const { group } of groups) for (const field of fieldPaths(group.example)) union.add(field);
      let reported = 0;
      let omitting = 0;
      for (const { group, page } of groups) {
        const missing = missingFields(group.example, union);
        if (missing.length === 0) continue;
        omitting += group.keys.length;
        reported += 1;
        const more = group.keys.length > 1 ? ` (and ${group.keys.length - 1} more like it)` : '';
        if (reported <= MAX_REPORTED) e.fail(`${walk.path} page ${page.number}: item ${keyLabel(group.keys[0] ?? '')}${more} omits ${missing.map((f) => `"${f}"`).join(', ')}, which other items carry (send null instead)`, page.res);
      }
      if (reported > MAX_REPORTED) e.fail(`${walk.path}: ${omitting} items in all omit fields that other items carry`);
    });
    // Nothing compared is not a pass: the rule was not exercised (seed the tenant, or add a list).
    if (compared === 0 && c.findings.length === 0) c.skip(`no list with two or more items to compare (${lists.map((l) => l.spec?.path ?? l.label).join(', ')}): the rule could not be exercised; seed the tenant under test or add a --paged-path`);
  });
});
