import { posix } from 'node:path';
import { pathToFileURL } from 'node:url';
import { UsageError } from '../core/errors.js';
import { neutralised } from './document-files.js';
import { isOpenApi32 } from './oas32.js';
import { isObject } from './pointer.js';
import { mapRefs } from './refs.js';

/**
 * OpenAPI 3.2's `$self` (OAS 3.2, OpenAPI Object and "Establishing the Base URI"; issue 37 item 9): the base
 * URI of the document's relative references. json-schema-ref-parser resolves a `$ref` against the
 * file it is in; `rebaseOnSelf` rewrites each `$ref` of the document file to where `$self` makes
 * it lead, as the confined reader hands the file to the parser (load.ts bundleDocument), and the
 * reader (document-files.ts) then confines and bounds what it leads to as any other `$ref`:
 *
 * - A `$self` that is a URL (`https://example.com/api/openapi.yaml`) is the document's canonical
 *   name, not a place to fetch from: its folder stands for the document's own, so `schemas.yaml`
 *   is read beside the document; a reference that leaves that folder leaves the document's (and
 *   is refused unless --openapi-root allows it); one to another host or scheme stays a URL, and is
 *   refused (never fetched). A reference to `$self` itself is one into this document.
 * - A relative or `file:` `$self` is a place on disk (a relative one resolved against the
 *   document's own place, RFC 3986 §5.1.3): what it leads to is read there, if the confinement
 *   allows it.
 */

/**
 * The document file's value with every `$ref` that leaves it rewritten to lead where `$self`
 * makes it (a path relative to the document's folder, or a URL), or the value as it is when it
 * has no `$self` (or is not 3.2). Fragment-only references (`#/components/…`) stay: they are the
 * document's own whatever its URI. A `$ref` inside a schema with an `$id` is the schema's to
 * resolve (JSON Schema 2020-12 §8.2.1: the nearest `$id` is its base), and is left to the parser.
 */
export function rebaseOnSelf(value: unknown, documentPath: string, label: string): unknown {
  if (!isObject(value) || !isOpenApi32(value) || typeof value.$self !== 'string' || value.$self === '') return value;
  const self = value.$self;
  const file = pathToFileURL(documentPath);
  let base: URL;
  try {
    base = new URL(self, file);
  } catch {
    throw new UsageError(
      `${label} ${neutralised(documentPath, 300)}: $self "${neutralised(self)}" is not a URI reference`,
    );
  }
  const documentFolder = posix.dirname(file.pathname);
  const rebase = (ref: string): string => {
    if (ref.startsWith('#')) return ref;
    let target: URL;
    let folder: URL;
    try {
      target = new URL(ref, base);
      folder = new URL('.', base);
    } catch {
      throw new UsageError(
        `${label} ${neutralised(documentPath, 300)}: $ref "${neutralised(ref)}" cannot be resolved against $self "${neutralised(self)}"`,
      );
    }
    const fragment = target.hash;
    target.hash = '';
    // A reference to $self is one to this document (OAS 3.2 Appendix F).
    if (target.href === new URL(base.href.split('#')[0] ?? base.href).href) return fragment === '' ? '#' : fragment;
    if (target.protocol === 'file:') return `${relativeUrlPath(documentFolder, target.pathname)}${fragment}`;
    // A URL under $self's folder: the same place under the document's folder. Any other stays a URL (refused: never fetched).
    if (
      target.origin === folder.origin &&
      target.protocol === folder.protocol &&
      target.search === '' &&
      target.origin !== 'null'
    ) {
      return `${relativeUrlPath(folder.pathname.replace(/\/$/, '') || '/', target.pathname)}${fragment}`;
    }
    return `${target.href}${fragment}`;
  };
  // Below an $id, JSON Schema sets the base URI: the parser resolves those references itself.
  return mapRefs(value, rebase, { stopAtId: true });
}

/** `to` relative to the folder `from` (both percent-encoded URL paths), percent-encoded. */
function relativeUrlPath(from: string, to: string): string {
  const relative = posix.relative(from, to);
  return relative === '' ? '.' : relative;
}
