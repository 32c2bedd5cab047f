/**
 * The source text of a JSON value, where its lexical form matters and JSON.parse forgets it:
 * `3600`, `3600.0` and `3.6e3` all parse to 3600, but RFC 6749 §A.14 writes expires_in as
 * `1*DIGIT`, and typed clients (Go's encoding/json into an int, serde_json into a u64) refuse
 * the other two. JSON.parse's reviver gets no source text on Node 20 (the `context.source` of
 * the TC39 proposal is undefined there), so the text is scanned: one pass, no recursion, linear
 * in its length (the HTTP layer bounds a body before anyone reads it).
 */

/** A JSON string token (RFC 8259 §7), read from where it starts. */
const STRING = /"(?:[^"\\]|\\.)*"/y;
/** A JSON number token (RFC 8259 §6). */
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
/** Insignificant whitespace (RFC 8259 §2). */
const WHITESPACE = /[ \t\n\r]*/y;

function skipWhitespace(text: string, from: number): number {
  WHITESPACE.lastIndex = from;
  WHITESPACE.exec(text);
  return WHITESPACE.lastIndex;
}

function keyOf(token: string): string | undefined {
  if (!token.includes('\\')) return token.slice(1, -1);
  try {
    return JSON.parse(token) as string;
  } catch {
    return undefined;
  }
}

/**
 * The number literal that is the value of member `key` of the top-level object in `text`, as
 * written (`"expires_in": 3600.0` gives `3600.0`); undefined when the member is absent or its
 * value is not a number. With the member repeated, the last one counts, as it does for JSON.parse.
 * Meant for a text that JSON.parse has accepted: on one it has not, the answer means nothing.
 */
export function numberSource(text: string, key: string): string | undefined {
  let depth = 0;
  let found: string | undefined;
  let i = 0;
  while (i < text.length) {
    const ch = text.charCodeAt(i);
    if (ch === 0x22 /* " */) {
      STRING.lastIndex = i;
      const token = STRING.exec(text)?.[0];
      if (token === undefined) return found;
      i += token.length;
      if (depth !== 1) continue;
      const colon = skipWhitespace(text, i);
      // A string inside the top-level object followed by a colon is a member's name.
      if (text.charCodeAt(colon) !== 0x3a /* : */) continue;
      i = skipWhitespace(text, colon + 1);
      if (keyOf(token) !== key) continue;
      NUMBER.lastIndex = i;
      const number = NUMBER.exec(text)?.[0];
      found = number;
      if (number !== undefined) i += number.length;
      continue;
    }
    if (ch === 0x7b /* { */ || ch === 0x5b /* [ */) depth += 1;
    else if (ch === 0x7d /* } */ || ch === 0x5d /* ] */) depth -= 1;
    i += 1;
  }
  return found;
}
