/**
 * The endpoint model (src/openapi/endpoint-model.ts, issue 29): every GET under the tenant path
 * accounted for, lists found by their bodies as well as by paging, items found in wrappers, the
 * JSON body found under wildcard and suffixed media types, and required query parameters filled
 * as a client would fill them, or the reason they cannot be.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { endpointModel, fillQueryParameter } from '../src/openapi/endpoint-model.js';
import { documentAsJsonSchema } from '../src/openapi/json-schema.js';
import { at, type Json } from '../src/openapi/pointer.js';

const require = createRequire(import.meta.url);

const item = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } };
const json = (schema: unknown, type = 'application/json') => ({
  '200': { description: 'ok', content: { [type]: { schema } } },
});

function doc(paths: Record<string, unknown>, schemas: Record<string, unknown> = {}): Json {
  return {
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths,
    components: { schemas: { Item: item, ...schemas } },
  };
}

const get = (responses: unknown, parameters: unknown[] = []) => ({ get: { parameters, responses } });
const byPath = (d: Json) => new Map(endpointModel(d).endpoints.map((e) => [e.path, e]));

describe('lists', () => {
  it('are found by paging parameters, paging headers, array bodies and wrappers around one array', () => {
    const m = byPath(
      doc({
        '/tenants/{tenantId}/paged': get(json({ type: 'object' }), [
          { name: 'page', in: 'query', schema: { type: 'integer' } },
        ]),
        '/tenants/{tenantId}/array': get(json({ type: 'array', items: { $ref: '#/components/schemas/Item' } })),
        '/tenants/{tenantId}/wrapped': get(
          json({
            type: 'object',
            properties: {
              data: { type: 'array', items: { $ref: '#/components/schemas/Item' } },
              links: { type: 'object' },
            },
          }),
        ),
        '/tenants/{tenantId}/meta': get(
          json({
            type: 'object',
            properties: {
              things: { type: 'array', items: item },
              total_count: { type: 'integer' },
              next_cursor: { type: ['string', 'null'] },
            },
          }),
        ),
      }),
    );
    expect(m.get('paged')).toMatchObject({ kind: 'list', listBy: 'paging' });
    expect(m.get('array')).toMatchObject({
      kind: 'list',
      listBy: 'array',
      schema: '#/paths/~1tenants~1{tenantId}~1array/get/responses/200/content/application~1json/schema/items',
    });
    expect(m.get('wrapped')).toMatchObject({ kind: 'list', listBy: 'wrapped-array', itemsProperty: 'data' });
    expect(m.get('meta')).toMatchObject({ kind: 'list', listBy: 'wrapped-array', itemsProperty: 'things' });
  });

  it("are found in a wrapper whose array has any name when all else is paging metadata (Twilio's {accounts, page, next_page_uri, …}, Stripe's {object, data, has_more, url})", () => {
    const m = byPath(
      doc({
        '/tenants/{tenantId}/accounts': get(
          json({
            type: 'object',
            properties: {
              accounts: { type: 'array', items: item },
              end: { type: 'integer' },
              first_page_uri: { type: 'string' },
              next_page_uri: { type: ['string', 'null'] },
              page: { type: 'integer' },
              page_size: { type: 'integer' },
              previous_page_uri: { type: ['string', 'null'] },
              start: { type: 'integer' },
              uri: { type: 'string' },
            },
          }),
        ),
        '/tenants/{tenantId}/charges': get(
          json({
            type: 'object',
            properties: {
              object: { enum: ['list'] },
              data: { type: 'array', items: item },
              has_more: { type: 'boolean' },
              url: { type: 'string' },
            },
          }),
        ),
        '/tenants/{tenantId}/users': get(
          json({
            type: 'object',
            properties: {
              members: { type: 'array', items: item },
              nextPageToken: { type: 'string' },
              totalCount: { type: 'integer' },
            },
          }),
        ),
      }),
    );
    expect(m.get('accounts')).toMatchObject({ kind: 'list', itemsProperty: 'accounts' });
    expect(m.get('charges')).toMatchObject({ kind: 'list', itemsProperty: 'data' });
    expect(m.get('users')).toMatchObject({ kind: 'list', itemsProperty: 'members' });
  });

  it("are found in a wrapper with only totals beside its array when the operation takes paging parameters of any spelling (GitHub's {total_count, labels} under per_page)", () => {
    const wrapper = json({
      type: 'object',
      properties: { total_count: { type: 'integer' }, labels: { type: 'array', items: item } },
    });
    const m = byPath(
      doc({
        '/tenants/{tenantId}/labels': get(wrapper, [{ name: 'per_page', in: 'query', schema: { type: 'integer' } }]),
        '/tenants/{tenantId}/animals': get(
          json({
            type: 'object',
            properties: { page: { type: 'object' }, sort: { type: 'object' }, animals: { type: 'array', items: item } },
          }),
          [{ name: 'pageNumber', in: 'query', schema: { type: 'integer' } }],
        ),
        '/tenants/{tenantId}/tags': get(wrapper),
      }),
    );
    expect(m.get('labels')).toMatchObject({ kind: 'list', itemsProperty: 'labels' });
    expect(m.get('animals')).toMatchObject({ kind: 'list', itemsProperty: 'animals' });
    // Without paging parameters, a total beside an array is a summary, not a page.
    expect(m.get('tags')).toMatchObject({ kind: 'single' });
  });

  it('are the bodies that return multiple elements, whatever their wrapper calls them (issue 37 item 3: the shapes of Zoom, Xero, DigitalOcean, Jira, Box, Adyen)', () => {
    const arr = { type: 'array', items: item };
    const m = byPath(
      doc({
        '/tenants/{tenantId}/users': get(
          json({
            type: 'object',
            properties: {
              page_count: { type: 'integer' },
              page_number: { type: 'integer' },
              page_size: { type: 'integer' },
              total_records: { type: 'integer' },
              next_page_token: { type: 'string' },
              users: arr,
            },
          }),
        ),
        '/tenants/{tenantId}/Accounts': get(json({ type: 'object', properties: { Accounts: arr } })),
        '/tenants/{tenantId}/v2/databases': get(json({ type: 'object', properties: { databases: arr } })),
        '/tenants/{tenantId}/issue/{issueIdOrKey}/comment': get(
          json({
            type: 'object',
            properties: {
              startAt: { type: 'integer' },
              maxResults: { type: 'integer' },
              total: { type: 'integer' },
              comments: arr,
            },
          }),
        ),
        '/tenants/{tenantId}/folders/{folder_id}/items': get(
          json({
            type: 'object',
            properties: {
              entries: arr,
              order: {
                type: 'array',
                items: { type: 'object', properties: { by: { type: 'string' }, direction: { type: 'string' } } },
              },
              limit: { type: 'integer' },
              offset: { type: 'integer' },
              total_count: { type: 'integer' },
            },
          }),
        ),
        '/tenants/{tenantId}/merchants/{merchantId}/paymentMethodSettings': get(
          json({
            type: 'object',
            properties: {
              data: arr,
              typesWithErrors: { type: 'array', items: { type: 'string' } },
              itemsTotal: { type: 'integer' },
              pagesTotal: { type: 'integer' },
              _links: { type: 'object' },
            },
          }),
        ),
      }),
    );
    expect(m.get('users')).toMatchObject({ kind: 'list', itemsProperty: 'users' });
    expect(m.get('Accounts')).toMatchObject({ kind: 'list', itemsProperty: 'Accounts' });
    expect(m.get('v2/databases')).toMatchObject({ kind: 'list', itemsProperty: 'databases' });
    expect(m.get('issue/{issueIdOrKey}/comment')).toMatchObject({ kind: 'list', itemsProperty: 'comments' });
    expect(m.get('folders/{folder_id}/items')).toMatchObject({ kind: 'list', itemsProperty: 'entries' });
    expect(m.get('merchants/{merchantId}/paymentMethodSettings')).toMatchObject({
      kind: 'list',
      itemsProperty: 'data',
    });
    for (const e of m.values()) expect(e.uncertain, e.path).toBeUndefined();
  });

  it('are not what a page parameter on a resource by id or an avatar size makes them; the envelope of a resource by id is one resource (Xero)', () => {
    const avatar = {
      name: 'size',
      in: 'query',
      schema: { type: 'string', enum: ['xsmall', 'small', 'medium', 'large'] },
    };
    const m = byPath(
      doc({
        '/tenants/{tenantId}/volumes/{volume_id}/actions/{action_id}': get(
          json({ type: 'object', properties: { action: item } }),
          [{ name: 'page', in: 'query', schema: { type: 'integer' } }],
        ),
        '/tenants/{tenantId}/universal_avatar/view/type/{type}': get(
          json({ type: 'object', properties: { id: { type: 'string' } } }),
          [avatar],
        ),
        '/tenants/{tenantId}/Accounts/{AccountID}': get(
          json({ type: 'object', properties: { Accounts: { type: 'array', items: item } } }),
        ),
      }),
    );
    expect(m.get('volumes/{volume_id}/actions/{action_id}')).toMatchObject({ kind: 'single' });
    expect(m.get('universal_avatar/view/type/{type}')).toMatchObject({ kind: 'single' });
    expect(m.get('universal_avatar/view/type/{type}')?.uncertain).toBeUndefined();
    expect(m.get('Accounts/{AccountID}')).toMatchObject({ kind: 'single' });
  });

  it('whose kind is not certain say why, and what they would be as a list (the override --paged-path takes)', () => {
    const m = byPath(
      doc({
        // A combined status pages its own statuses: a resource, said to be uncertain.
        '/tenants/{tenantId}/commits/{ref}/status': get(
          json({
            type: 'object',
            properties: {
              state: { type: 'string' },
              sha: { type: 'string' },
              statuses: { type: 'array', items: item },
            },
          }),
          [{ name: 'page', in: 'query', schema: { type: 'integer' } }],
        ),
        // Vimeo's promotions: page and per_page on one object without an array (the document's gap: the API returns an array).
        '/tenants/{tenantId}/promotions': get(
          json({ type: 'object', properties: { access_type: { type: 'string' }, download: { type: 'boolean' } } }),
          [{ name: 'page', in: 'query', schema: { type: 'integer' } }],
        ),
        '/tenants/{tenantId}/events': get(json({}), [{ name: 'page', in: 'query', schema: { type: 'integer' } }]),
        '/tenants/{tenantId}/route': get(
          json({ type: 'object', properties: { paths: { type: 'array', items: item }, info: { type: 'object' } } }),
          [{ name: 'alternative_route.max_paths', in: 'query', schema: { type: 'integer' } }],
        ),
        '/tenants/{tenantId}/avatars/qr': {
          get: {
            parameters: [{ name: 'size', in: 'query', schema: { type: 'integer' } }],
            responses: { '200': { description: 'Image' } },
          },
        },
        '/tenants/{tenantId}/getBrands': get(
          json({
            type: 'object',
            properties: {
              data: { type: 'array', items: { type: 'string' } },
              brandName: { type: 'string' },
              cacheTimeLimit: { type: 'integer' },
            },
          }),
        ),
        '/tenants/{tenantId}/webhooks': get(
          json({
            type: 'object',
            properties: {
              data: { type: 'array', items: item },
              accountReference: { type: 'string' },
              pagesTotal: { type: 'integer' },
            },
          }),
        ),
        // One array alone, under a name the path does not give: a report in an envelope, or a list.
        '/tenants/{tenantId}/Reports/BalanceSheet': get(
          json({ type: 'object', properties: { Reports: { type: 'array', items: item } } }),
        ),
        // One array alone, named as a path that names one thing (Xero's Organisation, Zoom's structure) or a plural that means one (CISSettings).
        '/tenants/{tenantId}/Organisation': get(
          json({ type: 'object', properties: { Organisations: { type: 'array', items: item } } }),
        ),
        '/tenants/{tenantId}/Contacts/{ContactID}/CISSettings': get(
          json({ type: 'object', properties: { CISSettings: { type: 'array', items: item } } }),
        ),
        '/tenants/{tenantId}/Organisations': get(
          json({ type: 'object', properties: { Organisations: { type: 'array', items: item } } }),
        ),
        // A collection beside paging fields and another array that is no metadata (Azure Data Lake's table preview).
        '/tenants/{tenantId}/tables/{tableName}/previewrows': get(
          json({
            type: 'object',
            properties: {
              rows: { type: 'array', items: { type: 'array' } },
              schema: { type: 'array', items: item },
              totalRowCount: { type: 'integer' },
              truncated: { type: 'boolean' },
            },
          }),
        ),
      }),
    );
    expect(m.get('commits/{ref}/status')).toMatchObject({
      kind: 'single',
      uncertain: expect.stringMatching(
        /^it takes page, but its body is a resource whose own array the query may page/,
      ) as unknown,
    });
    expect(m.get('promotions')).toMatchObject({
      kind: 'single',
      uncertain: 'it takes page, but its body is one object with no array, nothing a page could hold',
    });
    // Paging parameters on a body the document leaves unsaid still make a list, uncertain: judged
    // as one only where its answer shows a list (suites/pagination.test.ts notShownAList).
    expect(m.get('events')).toMatchObject({
      kind: 'list',
      uncertain: 'it takes page, but the document does not say what its body holds',
    });
    // GraphHopper's route: `alternative_route.max_paths` bounds one route's alternatives, it pages nothing.
    expect(m.get('route')).toMatchObject({ kind: 'single' });
    expect(m.get('route')?.uncertain).toBeUndefined();
    // `size` alone on a body the document does not describe is an image's as often as a page's (Appwrite's QR code).
    expect(m.get('avatars/qr')).toMatchObject({
      kind: 'single',
      uncertain: expect.stringMatching(/^it takes size, but the document declares no JSON body/) as unknown,
    });
    // A paging word inside another field's name is no paging field (autodealerdata's cacheTimeLimit).
    expect(m.get('getBrands')).toMatchObject({
      kind: 'single',
      uncertain: expect.stringMatching(
        /^its body has an array data beside fields that are not all paging metadata/,
      ) as unknown,
    });
    expect(m.get('webhooks')).toMatchObject({ kind: 'list', itemsProperty: 'data' });
    expect(m.get('Reports/BalanceSheet')).toMatchObject({
      kind: 'single',
      uncertain:
        'its body is only an array Reports, which its path does not name: one resource in an envelope, or a list',
      asList: { itemsProperty: 'Reports', schema: expect.stringMatching(/\/properties\/Reports\/items$/) as unknown },
    });
    // Lists whose answer decides (notShownAList): judged as lists where it shows paging, skipped where it does not.
    expect(m.get('Organisation')).toMatchObject({
      kind: 'list',
      itemsProperty: 'Organisations',
      uncertain:
        "its body is only an array Organisations, and its path names one organisation: the one in a list's envelope, or a list",
    });
    expect(m.get('Contacts/{ContactID}/CISSettings')).toMatchObject({
      kind: 'list',
      itemsProperty: 'CISSettings',
      uncertain:
        "its body is only an array CISSettings, whose name means one thing (settings): the one in a list's envelope, or a list",
    });
    expect(m.get('Organisations')).toMatchObject({ kind: 'list', itemsProperty: 'Organisations' });
    expect(m.get('Organisations')?.uncertain).toBeUndefined();
    expect(m.get('tables/{tableName}/previewrows')).toMatchObject({
      kind: 'list',
      itemsProperty: 'rows',
      uncertain:
        'its body has an array rows beside paging fields and another array (schema): a page of rows, or one resource holding both',
    });
  });

  it('are not a resource by id, nor a resource that merely has an array field', () => {
    const m = byPath(
      doc({
        '/tenants/{tenantId}/orders/{orderId}': get(
          json({ type: 'object', properties: { data: { type: 'array', items: item } } }),
        ),
        '/tenants/{tenantId}/invoice': get(
          json({
            type: 'object',
            properties: { id: { type: 'string' }, lines: { type: 'array', items: item }, customer: { type: 'string' } },
          }),
        ),
        // A total beside the array is no paging: a cart, not a list (a false list would fail the paging checks).
        '/tenants/{tenantId}/cart': get(
          json({
            type: 'object',
            properties: {
              lines: { type: 'array', items: item },
              total: { type: 'number' },
              count: { type: 'integer' },
            },
          }),
        ),
      }),
    );
    expect(m.get('cart')).toMatchObject({ kind: 'single' });
    expect(m.get('orders/{orderId}')).toMatchObject({ kind: 'single' });
    expect(m.get('invoice')).toMatchObject({
      kind: 'single',
      schema: '#/paths/~1tenants~1{tenantId}~1invoice/get/responses/200/content/application~1json/schema',
    });
  });

  it('find their items in an allOf wrapper, the refining member winning over the base (Train Travel, Codat)', () => {
    const m = byPath(
      doc(
        {
          '/tenants/{tenantId}/stations': get(
            json({
              allOf: [
                { $ref: '#/components/schemas/Wrapper' },
                { properties: { data: { type: 'array', items: { $ref: '#/components/schemas/Item' } } } },
              ],
            }),
          ),
          '/tenants/{tenantId}/companies': get(
            json({
              allOf: [
                { $ref: '#/components/schemas/PageInfo' },
                { properties: { results: { type: 'array', items: { $ref: '#/components/schemas/Item' } } } },
              ],
            }),
          ),
        },
        {
          Wrapper: {
            type: 'object',
            properties: { data: { type: 'array', items: { type: 'object' } }, links: { type: 'object' } },
          },
          PageInfo: {
            type: 'object',
            properties: {
              pageNumber: { type: 'integer' },
              pageSize: { type: 'integer' },
              totalResults: { type: 'integer' },
              _links: { type: 'object' },
            },
          },
        },
      ),
    );
    expect(m.get('stations')).toMatchObject({
      kind: 'list',
      itemsProperty: 'data',
      schema:
        '#/paths/~1tenants~1{tenantId}~1stations/get/responses/200/content/application~1json/schema/allOf/1/properties/data/items',
    });
    expect(m.get('companies')).toMatchObject({ kind: 'list', itemsProperty: 'results' });
  });
});

describe('the success body', () => {
  it('is found under */*, application/*+json and a +json type, and never taken from problem+json beside the 200', () => {
    const m = byPath(
      doc({
        '/tenants/{tenantId}/star': get(json({ $ref: '#/components/schemas/Item' }, '*/*')),
        '/tenants/{tenantId}/suffix': get(json({ $ref: '#/components/schemas/Item' }, 'application/*+json')),
        '/tenants/{tenantId}/both': get({
          '200': {
            description: 'ok',
            content: {
              'application/problem+json': { schema: { type: 'object' } },
              'application/json': { schema: { $ref: '#/components/schemas/Item' } },
            },
          },
        }),
      }),
    );
    expect(m.get('star')?.schema).toMatch(/content\/\*~1\*\/schema$/);
    expect(m.get('suffix')?.schema).toMatch(/content\/application~1\*\+json\/schema$/);
    expect(m.get('both')?.schema).toMatch(/content\/application~1json\/schema$/);
  });

  it('that cannot be judged is said, never left out: no body, not JSON, no schema, no 2xx', () => {
    const m = byPath(
      doc({
        '/tenants/{tenantId}/empty': get({ '204': { description: 'none' } }),
        '/tenants/{tenantId}/csv': get({
          '200': { description: 'csv', content: { 'text/csv': { schema: { type: 'string' } } } },
        }),
        '/tenants/{tenantId}/bare': get({ '200': { description: 'bare', content: { 'application/json': {} } } }),
        '/tenants/{tenantId}/odd': get({ default: { description: 'whatever' } }),
      }),
    );
    expect(m.size).toBe(4);
    expect(m.get('empty')?.schemaGap).toBe('its 204 response declares no body');
    expect(m.get('csv')?.schemaGap).toBe('its 200 response declares no JSON body (text/csv)');
    expect(m.get('bare')?.schemaGap).toBe('its 200 response declares application/json without a schema');
    expect(m.get('odd')?.schemaGap).toBe('it declares no 2xx response');
  });
});

describe('required query parameters', () => {
  const d = doc({});
  it('are filled as a client would: example, examples, schema example, default, first enum value', () => {
    expect(
      fillQueryParameter(d, {
        name: 'a',
        in: 'query',
        required: true,
        example: 'x',
        schema: { type: 'string', default: 'y' },
      }),
    ).toEqual({ name: 'a', value: 'x', from: 'example' });
    expect(
      fillQueryParameter(d, {
        name: 'b',
        in: 'query',
        required: true,
        examples: { one: { value: 7 } },
        schema: { type: 'integer' },
      }),
    ).toEqual({ name: 'b', value: '7', from: 'example' });
    expect(
      fillQueryParameter(d, {
        name: 'c',
        in: 'query',
        required: true,
        schema: { type: 'string', examples: ['2024-02-01'] },
      }),
    ).toEqual({ name: 'c', value: '2024-02-01', from: 'example' });
    expect(
      fillQueryParameter(d, { name: 'd', in: 'query', required: true, schema: { type: 'integer', default: 20 } }),
    ).toEqual({ name: 'd', value: '20', from: 'default' });
    expect(
      fillQueryParameter(d, {
        name: 'e',
        in: 'query',
        required: true,
        schema: { type: 'string', enum: ['open', 'closed'] },
      }),
    ).toEqual({ name: 'e', value: 'open', from: 'enum' });
    expect(
      fillQueryParameter(d, {
        name: 'f',
        in: 'query',
        required: true,
        schema: { type: 'array', items: { type: 'string', enum: ['x', 'y'] } },
      }),
    ).toEqual({ name: 'f', value: 'x', from: 'enum' });
  });

  it("never take an example or default outside the enum (Azure Service Fabric Mesh's api-version example beside its one-value enum: before, every request got 404)", () => {
    const apiVersion = {
      name: 'api-version',
      in: 'query',
      required: true,
      example: '2018-09-01-privatepreview',
      schema: { type: 'string', enum: ['2018-09-01-preview'], default: '2018-09-01-private' },
    };
    expect(fillQueryParameter(d, apiVersion)).toEqual({
      name: 'api-version',
      value: '2018-09-01-preview',
      from: 'enum',
    });
    expect(fillQueryParameter(d, { ...apiVersion, example: '2018-09-01-preview' })).toEqual({
      name: 'api-version',
      value: '2018-09-01-preview',
      from: 'example',
    });
    expect(
      fillQueryParameter(d, {
        name: 'n',
        in: 'query',
        required: true,
        example: 2,
        schema: { type: 'integer', enum: [1, 2] },
      }),
    ).toEqual({ name: 'n', value: '2', from: 'example' });
  });

  it('else get a value valid for their type and format, marked invented; or say why none can be made', () => {
    expect(
      fillQueryParameter(d, { name: 'from', in: 'query', required: true, schema: { type: 'string', format: 'date' } }),
    ).toMatchObject({ name: 'from', from: 'invented', value: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) as unknown });
    expect(
      fillQueryParameter(d, { name: 'n', in: 'query', required: true, schema: { type: 'integer', minimum: 5 } }),
    ).toEqual({ name: 'n', value: '5', from: 'invented' });
    expect(
      fillQueryParameter(d, { name: 'id', in: 'query', required: true, schema: { type: 'string', format: 'uuid' } }),
    ).toMatchObject({ from: 'invented' });
    expect(
      fillQueryParameter(d, {
        name: 'origin',
        in: 'query',
        required: true,
        schema: { type: 'string', pattern: '^[A-Z]{3}$' },
      }),
    ).toEqual({
      name: 'origin',
      problem:
        'required query parameter origin has no example, default or enum, and its schema (a pattern (^[A-Z]{3}$)) gives no value to make up',
    });
    expect(
      fillQueryParameter(d, { name: 'filter', in: 'query', required: true, schema: { type: 'object' } }).problem,
    ).toMatch(/^required query parameter filter has no example, default or enum/);
  });

  it('are those of the operation and its path item, the operation overriding; optional ones are not sent; page is the spec default', () => {
    const m = byPath(
      doc({
        '/tenants/{tenantId}/trips': {
          parameters: [
            { name: 'date', in: 'query', required: true, schema: { type: 'string' }, example: 'path-level' },
          ],
          get: {
            parameters: [
              { name: 'date', in: 'query', required: true, schema: { type: 'string' }, example: '2024-02-01' },
              { name: 'origin', in: 'query', required: true, schema: { type: 'string' }, example: 'efdb' },
              { name: 'bicycles', in: 'query', schema: { type: 'boolean' } },
              { name: 'page', in: 'query', required: true, schema: { type: 'integer' } },
            ],
            responses: json({ type: 'array', items: item }),
          },
        },
      }),
    );
    expect(m.get('trips')?.query).toEqual([
      { name: 'date', value: '2024-02-01', from: 'example' },
      { name: 'origin', value: 'efdb', from: 'example' },
      { name: 'page', value: '1', from: 'default' },
    ]);
  });
});

describe('real documents', () => {
  it('Train Travel (3.1): every GET re-rooted under the tenant, its wrapped lists found, its trips filled from the examples', async () => {
    const raw = JSON.parse(
      await readFile(require.resolve('@readme/oas-examples/3.1/json/train-travel.json'), 'utf8'),
    ) as Json;
    const paths = Object.fromEntries(Object.entries(raw.paths as Json).map(([k, v]) => [`/tenants/{tenantId}${k}`, v]));
    const model = endpointModel(documentAsJsonSchema({ ...raw, paths }));
    const gets = Object.values(paths).filter((p) => typeof p === 'object' && p !== null && 'get' in p).length;
    expect(model.endpoints).toHaveLength(gets);
    const m = new Map(model.endpoints.map((e) => [e.path, e]));
    for (const list of ['stations', 'trips', 'bookings'])
      expect(m.get(list), list).toMatchObject({ kind: 'list', listBy: 'wrapped-array', itemsProperty: 'data' });
    expect(m.get('bookings/{bookingId}')).toMatchObject({ kind: 'single' });
    expect(m.get('trips')?.query?.map((p) => `${p.name}=${p.value ?? '?'} (${p.from ?? p.problem ?? ''})`)).toEqual([
      'origin=efdbb9d1-02c2-4bc3-afb7-6788d8782b1e (example)',
      'destination=b2e783e1-c824-4d63-b37a-d8d698862f1d (example)',
      'date=2024-02-01T09:00:00Z (example)',
    ]);
    // The item schema is the refined one (Station), not the wrapper's generic object.
    const stations = m.get('stations')?.schema;
    expect(stations && at({ ...raw, paths }, stations)).toEqual({ $ref: '#/components/schemas/Station' });
  });
});
