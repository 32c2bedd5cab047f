import { oneLine, printable } from './wording.js';

/**
 * What is wrong with a JSON file, in words a user can act on: where the text stops being JSON
 * (line and column, which editors show, rather than JSON.parse's character offset), and what a
 * value is when it is not the kind the file should hold.
 */

/**
 * The offset of the first character that makes `text` not JSON (RFC 8259), `text.length` if it
 * ends too early, or -1 if it is JSON. V8 names the offset for most errors, but not for an
 * unexpected character ("Unexpected token 'x', "…" is not valid JSON"), so the text is scanned
 * here: a state machine, not recursion, so that deep nesting in a hostile file cannot overflow
 * the stack.
 */
export function jsonErrorOffset(text: string): number {
  const closers: string[] = [];
  type State = 'value' | 'valueOrClose' | 'keyOrClose' | 'key' | 'colon' | 'afterValue';
  let state: State = 'value';
  let i = 0;
  const number = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  /** Past a string starting at i; false where it breaks (i is there). */
  const string = (): boolean => {
    i += 1;
    for (;;) {
      const c = text.charCodeAt(i);
      if (Number.isNaN(c) || c < 0x20) return false;
      if (c === 0x22) {
        i += 1;
        return true;
      }
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return false;
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else return false;
      } else i += 1;
    }
  };
  for (;;) {
    while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i += 1;
    if (state === 'afterValue' && closers.length === 0) return i < text.length ? i : -1;
    const c = text[i];
    if (c === undefined) return text.length;
    switch (state) {
      case 'value':
      case 'valueOrClose':
        if (state === 'valueOrClose' && c === ']') {
          closers.pop();
          i += 1;
          state = 'afterValue';
        } else if (c === '{' || c === '[') {
          closers.push(c === '{' ? '}' : ']');
          i += 1;
          state = c === '{' ? 'keyOrClose' : 'valueOrClose';
        } else if (c === '"') {
          if (!string()) return i;
          state = 'afterValue';
        } else {
          const literal = ['true', 'false', 'null'].find((word) => text.startsWith(word, i));
          number.lastIndex = i;
          if (literal !== undefined) i += literal.length;
          else if (number.test(text)) i = number.lastIndex;
          else return i;
          state = 'afterValue';
        }
        break;
      case 'keyOrClose':
      case 'key':
        if (state === 'keyOrClose' && c === '}') {
          closers.pop();
          i += 1;
          state = 'afterValue';
        } else if (c === '"') {
          if (!string()) return i;
          state = 'colon';
        } else return i;
        break;
      case 'colon':
        if (c !== ':') return i;
        i += 1;
        state = 'value';
        break;
      case 'afterValue':
        if (c === ',') {
          i += 1;
          state = closers[closers.length - 1] === '}' ? 'key' : 'value';
        } else if (c === closers[closers.length - 1]) {
          closers.pop();
          i += 1;
        } else return i;
        break;
    }
  }
}

/** Line and column (both from 1) of an offset into `text`. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, offset));
  const lines = before.split('\n');
  return { line: lines.length, column: (lines[lines.length - 1] as string).length + 1 };
}

/**
 * JSON.parse's complaint about `text`, as one line: "line 3, column 5: expected ',' or '}' after
 * property value". V8's own message can quote a piece of the text ("Unexpected token 'x', "{…}"
 * is not valid JSON"): that quote is dropped (the line and column say where to look), and what
 * remains is made printable, so that a hostile file cannot reach the terminal through it.
 */
export function jsonParseProblem(text: string, err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const reason = message
    .replace(/,\s*(?:\.\.\.)?".*$/s, '')
    .replace(/\s+in JSON at position \d+.*$/s, '')
    .replace(/^Unexpected end of JSON input$/, 'the text ends too early')
    .replace(/^\w/, (c) => c.toLowerCase());
  const offset = jsonErrorOffset(text);
  if (offset < 0) return oneLine(printable(reason), 160);
  const { line, column } = lineAndColumn(text, offset);
  return `line ${line}, column ${column}: ${oneLine(printable(reason), 160)}`;
}

/** What a parsed JSON value is, in words: "an array", "a string", "null"…, for "must be X, not Y". */
export function jsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'object':
      return 'an object';
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      return typeof value;
  }
}
