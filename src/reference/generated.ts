/**
 * A generated API for scale: `collections` extra lists under every tenant, `/tenants/{tenantId}/
 * c001` … `cNNN`, each with a resource by id (`c001/{itemId}`), and the OpenAPI 3.1 document that
 * describes them. With 100 collections a run has 200 tenant operations to check (the benchmark).
 * Nothing here is a rule of the spec: it is more of the same, generic on purpose.
 */

/** Items of each generated list by default (`generatedItems` sets another count): two pages of the default size. */
export const GENERATED_ITEMS = 12;

export interface GeneratedItem {
  id: string;
  name: string;
  /** null on every 3rd item. */
  value: number | null;
  /** "" on every 4th item, null on every 5th. */
  note: string | null;
}

export function collectionName(n: number): string {
  return `c${String(n).padStart(3, '0')}`;
}

/** Item `index` (0-based) of a generated collection; the same on every call. */
export function generatedItem(collection: string, index: number): GeneratedItem {
  const n = index + 1;
  return {
    id: `${collection}-${n}`,
    name: `${collection} item ${n}`,
    value: n % 3 === 0 ? null : n * 7,
    note: n % 4 === 0 ? '' : n % 5 === 0 ? null : `note ${n}`,
  };
}

/** The OpenAPI 3.1 document of the generated collections: `collections` lists and as many resources by id. */
export function generatedOpenApi(collections: number): Record<string, unknown> {
  const tenant = { name: 'tenantId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };
  const version = { name: 'Accept-Version', in: 'header', required: true, schema: { type: 'string' } };
  const json = (schema: unknown) => ({ 'application/json': { schema } });
  const paths: Record<string, unknown> = {};
  for (let n = 1; n <= collections; n += 1) {
    const c = collectionName(n);
    paths[`/tenants/{tenantId}/${c}`] = {
      get: {
        operationId: `list_${c}`,
        parameters: [
          tenant,
          version,
          { name: 'page', in: 'query', schema: { type: 'integer' } },
          { name: 'size', in: 'query', schema: { type: 'integer' } },
        ],
        responses: {
          '200': {
            description: 'A page',
            content: json({ type: 'array', items: { $ref: '#/components/schemas/Item' } }),
          },
        },
      },
    };
    paths[`/tenants/{tenantId}/${c}/{itemId}`] = {
      get: {
        operationId: `get_${c}`,
        parameters: [tenant, version, { name: 'itemId', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'One item', content: json({ $ref: '#/components/schemas/Item' }) } },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: `Generated: ${collections} collections`, version: '1' },
    paths,
    components: {
      schemas: {
        Item: {
          type: 'object',
          required: ['id', 'name', 'value', 'note'],
          properties: {
            id: { type: 'string' },
            name: { type: 'string' },
            value: { type: ['integer', 'null'] },
            note: { type: ['string', 'null'] },
          },
        },
      },
    },
  };
}
