/**
 * JSON Pointers (RFC 6901) into a bundled OpenAPI document, and following its internal `$ref`s.
 * Plain functions with no dependency: the battery's workers use them too.
 */

export type Json = Record<string, unknown>;

/** A JSON object: not null, not an array. */
export const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** One reference token (RFC 6901 §3: `~` as `~0`, `/` as `~1`). */
export function pointerOf(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * A `#/…` fragment's reference tokens (RFC 6901 §3, and RFC 3986 percent-encoding as a URI
 * fragment: §3.5), or undefined for a reference that is not a pointer into this document.
 */
export function fragmentTokens(pointer: string): string[] | undefined {
  if (!pointer.startsWith('#')) return undefined;
  const body = pointer.slice(1);
  if (body === '') return [];
  if (!body.startsWith('/')) return undefined;
  return body
    .slice(1)
    .split('/')
    .map((t) => {
      let decoded = t;
      try {
        decoded = decodeURIComponent(t);
      } catch {
        // A `%` that starts no escape: the token as written.
      }
      return decoded.replace(/~1/g, '/').replace(/~0/g, '~');
    });
}

/** The value at a `#/…` pointer, or undefined. */
export function at(document: unknown, pointer: string): unknown {
  if (!pointer.startsWith('#')) return undefined;
  let node: unknown = document;
  for (const raw of pointer.slice(1).split('/').slice(1)) {
    const token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) node = node[Number(token)];
    else if (isObject(node)) node = node[token];
    else return undefined;
  }
  return node;
}

/**
 * `value`, or what its `$ref` points at inside the document (following chains, at most 32 deep),
 * with the pointer of where the value finally lives (`at` is where `value` itself was found).
 */
export function resolve(document: unknown, value: unknown, atPointer: string): { value: unknown; pointer: string } {
  let current = value;
  let pointer = atPointer;
  for (
    let depth = 0;
    depth < 32 && isObject(current) && typeof current.$ref === 'string' && current.$ref.startsWith('#');
    depth += 1
  ) {
    pointer = current.$ref;
    current = at(document, pointer);
  }
  return { value: current, pointer };
}
