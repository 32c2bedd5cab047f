/**
 * The items of a list response. The spec does not show the body of a paged response (spec
 * §Pagination shows only its headers), so both common shapes are read: a JSON array, or an
 * object with exactly one array-valued property (`{"items": [...], ...}`).
 */
export function extractItems(body: unknown): { items: unknown[] } | { problem: string } {
  if (Array.isArray(body)) return { items: body };
  if (body !== null && typeof body === 'object') {
    const arrays = Object.entries(body).filter(([, v]) => Array.isArray(v));
    if (arrays.length === 1) return { items: arrays[0]?.[1] as unknown[] };
    return { problem: arrays.length === 0 ? 'the list body is an object without an array of items' : `the list body has several arrays (${arrays.map(([k]) => k).join(', ')}); cannot tell which holds the items` };
  }
  return { problem: `the list body is ${JSON.stringify(body)}, not a JSON array of items` };
}

/** The identity of an item for duplicate detection: its `id` when it has one, else its JSON. */
export function itemKey(item: unknown): string {
  if (item !== null && typeof item === 'object' && 'id' in item) {
    const id = (item).id;
    if (typeof id === 'string' || typeof id === 'number') return `id:${String(id)}`;
  }
  return `json:${JSON.stringify(item)}`;
}

/** A short label of an item for messages. */
export function itemLabel(item: unknown): string {
  const key = itemKey(item);
  return key.startsWith('id:') ? `id ${key.slice(3)}` : key.slice(5, 85);
}
