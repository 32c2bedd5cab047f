import { dirname, resolve as resolvePath } from 'node:path';
import { getScalarValue, parseEvents, type Event } from 'js-yaml';
import { readRegularFile } from '../core/files.js';
import { isObject, pointerOf } from '../openapi/pointer.js';
import type { ReadDocument } from './read.js';

/**
 * Where a finding was written: the file, the JSON Pointer inside that file, and its line and
 * column (1-based). A rule's pointer is into the bundle, where external `$ref`s are inlined; it is
 * traced back by walking the files as written alongside it, following each `$ref` met on the way
 * (to another file, or inside one), which is what the bundle replaced.
 *
 * Lines come from a second reading of each file, for positions only (the values are the confined
 * reader's): js-yaml's event parser gives source offsets without building values, so aliases are
 * not expanded, and it is held to the same depth limit; the file itself is read as files.ts reads
 * the user's files (regular file only, non-blocking, within the size limit). A file whose text no
 * longer parses (changed since) gets no line: the pointer still says where.
 */

export interface Location {
  /** Absolute path of the file. */
  path: string;
  /** JSON Pointer (RFC 6901) inside that file, "" for its root. */
  pointer: string;
  line?: number;
  column?: number;
}

function tokensOf(pointer: string): string[] {
  const body = pointer.startsWith('#') ? pointer.slice(1) : pointer;
  if (body === '') return [];
  return body
    .split('/')
    .slice(1)
    .map((t) => decodeURIComponent(t).replace(/~1/g, '/').replace(/~0/g, '~'));
}

const join = (tokens: readonly string[]): string => tokens.map((t) => `/${pointerOf(t)}`).join('');

function child(node: unknown, token: string): { found: boolean; value: unknown } {
  if (Array.isArray(node))
    return /^\d+$/.test(token) && Number(token) < node.length
      ? { found: true, value: node[Number(token)] }
      : { found: false, value: undefined };
  if (isObject(node) && Object.hasOwn(node, token)) return { found: true, value: node[token] };
  return { found: false, value: undefined };
}

/** The pointers whose lines are asked for, as a tree of their tokens; each node gets the line of the value it names, when the text has it. */
export interface PointerTree {
  children: Map<string, PointerTree>;
  position?: { line: number; column: number };
}

const newTree = (): PointerTree => ({ children: new Map() });

export class Locator {
  /** Per file: the pointers asked for (a tree: a pointer's ancestors share its nodes, so memory grows with distinct tokens, not with findings × depth). */
  private readonly requests = new Map<string, PointerTree>();
  private readonly read = new Set<string>();

  constructor(private readonly document: ReadDocument) {}

  /**
   * The file and pointer a bundled pointer was written at (the closest that exists, if the walk
   * stops short). A schema property written as a `$ref` (`…/properties/links` holding
   * `{$ref: …}`) is located at the `properties` object that holds it: Spectral cannot put a result
   * on a `$ref` (it moves it to the schema pointed at), and the ruleset must find what lint finds
   * where lint finds it; the finding's message names the property (docs/design.md, "Where a $ref'd
   * property is reported"). Only OAS-NULLABLE and OAS-NULL-REQUIRED point at properties.
   */
  trace(bundledPointer: string): { path: string; pointer: string } {
    let path = this.document.path;
    let node = this.document.files.get(path);
    let at: string[] = [];
    const follow = (): void => {
      for (let hops = 0; hops < 32 && isObject(node) && typeof node.$ref === 'string'; hops += 1) {
        const [filePart = '', fragment = ''] = node.$ref.split('#', 2);
        const target = filePart === '' ? path : resolvePath(dirname(path), decodeURIComponent(filePart));
        if (!this.document.files.has(target)) return;
        let value = this.document.files.get(target);
        const tokens = tokensOf(fragment);
        for (const t of tokens) {
          const next = child(value, t);
          if (!next.found) return;
          value = next.value;
        }
        path = target;
        node = value;
        at = tokens;
      }
    };
    const tokens = tokensOf(bundledPointer);
    let walked = 0;
    for (const token of tokens) {
      if (!child(node, token).found) follow();
      const next = child(node, token);
      if (!next.found) break;
      node = next.value;
      at = [...at, token];
      walked += 1;
    }
    const property =
      walked === tokens.length &&
      tokens.length >= 2 &&
      tokens[tokens.length - 2] === 'properties' &&
      at[at.length - 2] === 'properties';
    if (property && isObject(node) && typeof node.$ref === 'string') at = at.slice(0, -1);
    return { path, pointer: join(at) };
  }

  /** Asks for a location's line; `resolveLines` then reads each file once for all of them. */
  request(location: { path: string; pointer: string }): void {
    let node: PointerTree = this.requests.get(location.path) ?? newTree();
    this.requests.set(location.path, node);
    // Every ancestor too (the tree's path to it): the closest one stands in for a pointer the text does not have.
    for (const token of tokensOf(location.pointer)) {
      const next: PointerTree = node.children.get(token) ?? newTree();
      node.children.set(token, next);
      node = next;
    }
  }

  resolveLines(): void {
    for (const [path, tree] of this.requests) {
      if (this.read.has(path)) continue;
      this.read.add(path);
      this.positionsOf(path, tree);
    }
  }

  locate(location: { path: string; pointer: string }): Location {
    let node = this.requests.get(location.path);
    let found = node?.position;
    for (const token of tokensOf(location.pointer)) {
      node = node?.children.get(token);
      if (!node) break;
      if (node.position) found = node.position;
    }
    return found ? { ...location, ...found } : { ...location };
  }

  private positionsOf(path: string, wanted: PointerTree): void {
    let text: string;
    let events: Event[];
    try {
      // The text as it was read for the document; read again only when none was kept.
      text =
        this.document.texts?.get(path) ??
        readRegularFile(path, 'lint', {
          maxBytes: this.document.limits.fileBytes,
          of: 'a file of the document',
        }).toString('utf8');
      events = parseEvents(text, { maxDepth: this.document.limits.depth });
    } catch {
      return;
    }
    positionsFromEvents(text, events, wanted);
  }
}

interface Frame {
  kind: 'doc' | 'map' | 'seq' | 'skip';
  /** The node of this collection in the tree of wanted pointers (a `skip` frame has none: nothing under it is wanted). */
  node: PointerTree | undefined;
  index: number;
  expectKey: boolean;
  key: string;
  keyStart: number;
}

/** Sets the line and column of each wanted pointer's node: a mapping entry's at its key, an item's at its start. */
export function positionsFromEvents(text: string, events: readonly Event[], wanted: PointerTree): void {
  const lineStarts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const at = (offset: number): { line: number; column: number } => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((lineStarts[mid] ?? 0) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - (lineStarts[lo] ?? 0) + 1 };
  };
  const frame = (kind: Frame['kind'], node: PointerTree | undefined): Frame => ({
    kind: node === undefined ? 'skip' : kind,
    node,
    index: 0,
    expectKey: kind === 'map',
    key: '',
    keyStart: 0,
  });
  const stack: Frame[] = [];
  let documents = 0;
  for (const event of events) {
    if (event.type === 1) {
      documents += 1;
      if (documents > 1) break;
      stack.push(frame('doc', wanted));
      continue;
    }
    if (event.type === 6) {
      stack.pop();
      continue;
    }
    const parent = stack[stack.length - 1];
    if (!parent) continue;
    const start = event.type === 4 ? event.valueStart : event.type === 5 ? event.anchorStart : event.start;
    let node: PointerTree | undefined;
    let position = start;
    if (parent.kind === 'skip') node = undefined;
    else if (parent.kind === 'map' && parent.expectKey) {
      parent.expectKey = false;
      // A key that is a collection (`? [a, b]`) is no JSON key: its value is not addressed.
      parent.key = event.type === 4 ? getScalarValue(text, event) : '\u0000';
      parent.keyStart = start;
      if (event.type === 2 || event.type === 3) stack.push(frame('skip', undefined));
      continue;
    } else if (parent.kind === 'map') {
      parent.expectKey = true;
      node = parent.key === '\u0000' ? undefined : parent.node?.children.get(parent.key);
      position = parent.keyStart;
    } else if (parent.kind === 'seq') {
      node = parent.node?.children.get(String(parent.index));
      parent.index += 1;
    } else {
      node = parent.node;
    }
    if (node !== undefined && node.position === undefined) node.position = at(position);
    if (event.type === 3) stack.push(frame('map', node));
    else if (event.type === 2) stack.push(frame('seq', node));
  }
}
