/**
 * resources: what every tenant endpoint serves, item by item (spec §Generic rules for optional
 * fields 1, 2): the types and nullability its OpenAPI schema declares (RESOURCE-SCHEMA), every
 * declared property present, null where there is no data (RESOURCE-FIELDS-PRESENT), and seeded
 * items served exactly as known, null, "" and absent told apart (RESOURCE-EXPECTED-VALUES). Lists
 * are judged page by page as the shared walk reads them (src/battery/resources.ts); single
 * resources on their answer to a valid request.
 */
import type { CheckContext } from '../src/battery/check.js';
import { check, suite } from '../src/battery/check.js';
import { notValidByDocument, onEach, tenantEndpoints, validAnswer, type Endpoint } from '../src/battery/endpoints.js';
import { itemLabel } from '../src/carrier/list-items.js';
import { getBattery } from '../src/battery/context.js';
import { getWalk, pageJudge, type WalkFindings, type WalkHead } from '../src/battery/walk.js';
import {
  addTallies,
  expectedItems,
  expectedResource,
  expectedValueProblems,
  looksLikeNullAsEmpty,
  missingDeclared,
  REVIEW_MIN_EMPTY,
  schemaCompileProblem,
  schemaJudgement,
  variantSchemas,
  type PageFindings,
  type StringTally,
} from '../src/battery/resources.js';
import type { HttpResponse } from '../src/http/client.js';
import { omissionMessage } from '../src/lint/omission.js';
import type { EndpointSpec } from '../src/carrier/endpoint-specs.js';
import type { Json } from '../src/openapi/pointer.js';

/** Findings reported per endpoint before the rest are counted. */
const MAX_REPORTED = 20;

interface Judge {
  /** The lines of a single resource's body. */
  single: (e: CheckContext, endpoint: Endpoint, body: unknown, res: HttpResponse) => string[];
}

/**
 * The page judge of a resource check: the lines the walk's item judgement found on each page
 * (src/battery/resources.ts itemJudge), the first MAX_REPORTED listed, all counted; `walked`
 * says what there is to say about the list as a whole.
 */
function resourcePageJudge(
  check: string,
  pick: (found: PageFindings) => { lines: string[]; count: number },
  walked?: (seen: ReadonlySet<string>, head: WalkHead, last: HttpResponse, out: WalkFindings) => void,
): void {
  pageJudge({
    check,
    start: (head) => ({
      shown: 0,
      total: 0,
      seen: new Set<string>(),
      last: head.first.res,
      strings: new Map<string, StringTally>(),
      documentFaults: new Set<string>(),
    }),
    page(state, page, { head }, out) {
      state.last = page.res;
      if (!page.resources) return;
      if (check === 'RESOURCE-FIELDS-PRESENT' && page.resources.strings)
        addTallies(state.strings, page.resources.strings);
      // What no server could get right is the document's: said, never failed (issue 37 item 8).
      if (check === 'RESOURCE-SCHEMA')
        for (const d of page.resources.documentFaults ?? [])
          if (state.documentFaults.size < 5) state.documentFaults.add(d);
      const { lines, count } = pick(page.resources);
      state.total += count;
      for (const id of page.resources.seen) state.seen.add(id);
      for (const line of lines) {
        if (state.shown >= MAX_REPORTED) break;
        state.shown += 1;
        out.fail(`${head.path} page ${page.number}: ${line}`, page.res);
      }
    },
    end(state, { head }, out) {
      for (const d of state.documentFaults) out.note(`${head.path}: not judged against the document: ${d}`);
      if (state.total > state.shown) out.fail(`${head.path}: ${state.total} findings in all, ${state.shown} shown`);
      if (head.problems.length > 0)
        out.note(`the walk did not cover the whole list (${head.problems.join('; ')}): judged on the pages it read`);
      walked?.(state.seen, head, state.last, out);
      if (check === 'RESOURCE-FIELDS-PRESENT') reviewEmptyStrings(state.strings, head, out);
    },
  });
}

/**
 * Review items for null written as "" (spec §Generic rules for optional fields 2): an optional
 * string field that is "" on many of a list's items and null on none (src/battery/resources.ts
 * looksLikeNullAsEmpty). Without ground truth a "" is a valid value, so this cannot fail the
 * check; an --expectations file that knows an item's field is null turns it into a failure of
 * RESOURCE-EXPECTED-VALUES. Lists only: one resource is one item, too few to see a pattern.
 */
function reviewEmptyStrings(strings: ReadonlyMap<string, StringTally>, head: WalkHead, out: WalkFindings): void {
  for (const [field, t] of strings) {
    if (!looksLikeNullAsEmpty(t)) {
      // Why a recurring "" was not raised, said once a list: the item's reader asks where it went.
      if (t.empty >= REVIEW_MIN_EMPTY)
        out.note(
          `${head.path}: field "${field}" is "" on ${t.empty} of the ${t.carried} items that carry it, not raised for review: ${t.nulls > 0 ? `it is null on ${t.nulls}, and a serialiser that writes null does not write it as ""` : `${t.why}, which does not say null is possible, and "" is on fewer than half of them`}`,
        );
      continue;
    }
    out.review({
      kind: 'empty-string-for-null',
      judgedBy: 'RESOURCE-EXPECTED-VALUES',
      field,
      message: `${head.path}: field "${field}" is "" on ${t.empty} of the ${t.carried} items that carry it and null on none, though ${t.why}: the mark of a serialiser that writes null as "" (e.g. fast-json-stringify with \`type: string\` and no null), which spec §Generic rules for optional fields 2 forbids; or "" is its real value`,
      advice: `seed an --expectations file with the real values to judge it (RESOURCE-EXPECTED-VALUES: "resources" → "${head.path}", items with their "${field}")`,
      refs: ['spec §Generic rules for optional fields 2'],
    });
  }
}

resourcePageJudge(
  'RESOURCE-SCHEMA',
  (found) => ({ lines: found.schema, count: found.counts.schema }),
  // A schema that cannot be compiled judged no item (issue 29 item 3): an error on this list alone.
  (_seen, head, _last, out) => {
    const document = getBattery().settings.openapi;
    const pointer = head.endpoint.spec?.schema;
    const problem = document && pointer !== undefined ? schemaCompileProblem(document, pointer) : undefined;
    if (problem) out.error(`cannot judge ${head.endpoint.label}: ${problem}`);
  },
);
resourcePageJudge('RESOURCE-FIELDS-PRESENT', (found) => ({ lines: found.missing, count: found.counts.missing }));
resourcePageJudge(
  'RESOURCE-EXPECTED-VALUES',
  (found) => ({ lines: found.expected, count: found.counts.expected }),
  (seen, head, last, out) => {
    const spec = head.endpoint.spec;
    const known = spec ? expectedItems(getBattery().settings, spec) : undefined;
    if (!known) return;
    const absent = [...known.keys()].filter((id) => !seen.has(id));
    if (absent.length === 0) return;
    const which = absent.map((id) => `id ${id}`).join(', ');
    // A sample, or a walk cut short, cannot show that an item is absent.
    if (head.sample || head.problems.length > 0) out.note(`seeded items not among the pages read: ${which}`);
    else out.fail(`${head.path}: the seeded items ${which} are not in the list (every page was read)`, last);
  },
);

/**
 * Applies a resource check to each endpoint: the pages of a list's walk, or the body of a single
 * resource, each endpoint with its own outcome; a list that cannot be walked, or a resource that
 * is not served, is an error pointing at the check that judges that.
 */
async function onEveryResource(
  c: CheckContext,
  endpoints: Endpoint[],
  judge: Judge,
  needsSchema = true,
): Promise<void> {
  if (c.settings.tenantId === undefined)
    return c.error(`no tenant under test: ${c.settings.tenantProblem ?? 'none given'} (pass --tenant-id)`);
  await onEach(c, endpoints, async (e, endpoint) => {
    const gap = needsSchema ? schemaGapOf(endpoint) : undefined;
    if (gap !== undefined) return e.skipEndpoint(gap);
    const path = await endpoint.path(e);
    if (typeof path !== 'string') return e.skipEndpoint(path.unresolved);
    if (endpoint.spec?.kind === 'list') {
      const walk = await getWalk(e, endpoint);
      const first = walk.first;
      if (first.res.status < 200 || first.res.status > 299) {
        const unproven = notValidByDocument(endpoint, first.res);
        return unproven !== undefined
          ? e.skipEndpoint(unproven)
          : e.error(`cannot check ${walk.path}: page 1 answered ${first.res.status} (see TENANT-ACCESS)`, first.res);
      }
      walk.findings(e.check.id).report(e);
      return;
    }
    const res = await validAnswer(e, endpoint);
    if (res.status < 200 || res.status > 299) {
      const unproven = notValidByDocument(endpoint, res);
      return unproven !== undefined
        ? e.skipEndpoint(unproven)
        : e.error(`cannot check ${endpoint.label}: a valid request gets ${res.status} (see TENANT-ACCESS)`, res);
    }
    const parsed = res.json();
    if (!parsed.ok) return e.fail(`${endpoint.label}: ${parsed.error}`, res);
    const lines = judge.single(e, endpoint, parsed.value, res);
    lines.slice(0, MAX_REPORTED).forEach((line) => e.fail(`${endpoint.label}: ${line}`, res));
  });
}

/**
 * Every tenant endpoint, for a check that holds bodies to their declared schemas: those the
 * document gives none are listed too, skipped with the reason (issue 29: every GET is accounted
 * for); the whole check skips when no endpoint has one.
 */
function withSchemas(c: CheckContext): Endpoint[] {
  if (!c.settings.openapi)
    c.skip('no OpenAPI document (--openapi): there are no declared schemas to hold the responses to');
  const endpoints = tenantEndpoints(c);
  if (!endpoints.some((e) => e.spec?.schema !== undefined))
    c.skip('the OpenAPI document declares no JSON response schema for any tenant endpoint');
  return endpoints;
}

/**
 * The path key of another GET at the same request target (variantSchemas) whose schema the body
 * meets; undefined when there is none.
 */
function describingVariant(
  endpoints: readonly EndpointSpec[],
  endpoint: Endpoint,
  document: Json,
  body: unknown,
): string | undefined {
  if (!endpoint.spec) return undefined;
  // Described whole: valid by the variant's schema and carrying every field it declares (a variant that merely allows the body's fields describes nothing).
  return variantSchemas(endpoints, endpoint.spec).find(
    (v) =>
      schemaJudgement(document, v.schema, body).problems.length === 0 &&
      missingDeclared(document, v.schema, body).length === 0,
  )?.path;
}

/** Why an endpoint's body is not held to a schema, or undefined when it has one. */
function schemaGapOf(endpoint: Endpoint): string | undefined {
  if (endpoint.spec?.schema !== undefined) return undefined;
  return `its body is not judged: ${endpoint.spec?.schemaGap ?? 'the document declares no JSON schema for it'}`;
}

suite('resources', () => {
  check('RESOURCE-SCHEMA', async (c) => {
    const document = c.settings.openapi;
    await onEveryResource(c, withSchemas(c), {
      single: (e, endpoint, body) => {
        const pointer = endpoint.spec?.schema;
        if (!document || pointer === undefined) return [];
        // A schema that cannot be compiled is this endpoint's error alone (issue 29 item 3).
        const problem = schemaCompileProblem(document, pointer);
        if (problem) e.error(`cannot judge ${endpoint.label}: ${problem}`);
        if (problem) return [];
        const judged = schemaJudgement(document, pointer, body);
        for (const d of judged.documentFaults) e.note(`${endpoint.label}: not judged against the document: ${d}`);
        const variant =
          judged.problems.length > 0 ? describingVariant(e.settings.endpoints, endpoint, document, body) : undefined;
        if (variant !== undefined) {
          e.note(
            `${endpoint.label}: its body is the one the document declares for ${variant}, a path key of the same request target: judged by that one`,
          );
          return [];
        }
        return judged.problems;
      },
    });
  });

  check('RESOURCE-FIELDS-PRESENT', async (c) => {
    const document = c.settings.openapi;
    const endpoints = withSchemas(c);
    await onEveryResource(c, endpoints, {
      single: (e, endpoint, body) => {
        const own = document && endpoint.spec?.schema ? missingDeclared(document, endpoint.spec.schema, body) : [];
        const variant =
          own.length > 0 && document ? describingVariant(c.settings.endpoints, endpoint, document, body) : undefined;
        if (variant !== undefined)
          e.note(
            `${endpoint.label}: its body is the one the document declares for ${variant}, a path key of the same request target: judged by that one`,
          );
        const missing = variant !== undefined ? [] : own;
        // The remedy the document allows (src/lint/omission.ts): never "send null" where its schema forbids null.
        return document && endpoint.spec?.schema && missing.length > 0
          ? [omissionMessage(document, endpoint.spec.schema, missing)]
          : [];
      },
    });
  });

  check('RESOURCE-EXPECTED-VALUES', async (c) => {
    if (!c.settings.expectations?.resources)
      c.skip('no --expectations file with "resources" (known items per endpoint) was given');
    const endpoints = tenantEndpoints(c).filter(
      (e) =>
        e.spec &&
        (expectedItems(c.settings, e.spec) !== undefined || expectedResource(c.settings, e.spec) !== undefined),
    );
    if (endpoints.length === 0) c.skip('the "resources" of the --expectations file name no endpoint under test');
    await onEveryResource(
      c,
      endpoints,
      {
        single: (e, endpoint, body) => {
          const spec = endpoint.spec;
          const whole = spec ? expectedResource(e.settings, spec) : undefined;
          const document = e.settings.openapi;
          const schema = document && spec?.schema !== undefined ? { document, pointer: spec.schema } : undefined;
          if (whole) return expectedValueProblems(whole, body, schema);
          const raw = body !== null && typeof body === 'object' && 'id' in body ? body.id : undefined;
          const id = typeof raw === 'string' || typeof raw === 'number' ? String(raw) : undefined;
          const want = spec && id !== undefined ? expectedItems(e.settings, spec)?.get(id) : undefined;
          if (!want) {
            e.skipEndpoint(
              `the resource served (${id === undefined ? 'no id' : `id ${id}`}) is not a seeded item: nothing known to compare`,
            );
            return [];
          }
          return expectedValueProblems(want, body, schema).map((p) => `${itemLabel(body)}: ${p}`);
        },
      },
      false,
    );
  });
});
