/**
 * Text preparation for the JUnit writer. Report strings carry whatever the target sent back
 * (response bodies, error texts), so they may hold anything a server can put in a byte stream.
 */

function isXml10Char(code: number): boolean {
  // XML 1.0 §2.2 Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF].
  // Surrogates are handled by the caller, which sees them in pairs.
  if (code < 0x20) return code === 0x09 || code === 0x0a || code === 0x0d;
  return code !== 0xfffe && code !== 0xffff;
}

/**
 * Removes every character XML 1.0 cannot carry, even as a character reference: C0 controls other
 * than tab, LF and CR, lone surrogates, U+FFFE and U+FFFF. xmlbuilder would strip them too
 * (junit-report-builder sets `invalidCharReplacement: ''`), but only after its CDATA escaping, so
 * `]]\u0000>` would turn into an unescaped `]]>`. Stripping first makes `splitCdataTerminators`
 * see the final text.
 */
export function stripInvalidXmlChars(text: string): string {
  let out = '';
  let kept = 0; // start of the run of valid characters not yet copied
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    let valid: boolean;
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      valid = next >= 0xdc00 && next <= 0xdfff;
      if (valid) {
        i += 1; // the pair is one valid character
        continue;
      }
    } else if (code >= 0xdc00 && code <= 0xdfff) {
      valid = false;
    } else {
      valid = isXml10Char(code);
    }
    if (!valid) {
      out += text.slice(kept, i);
      kept = i + 1;
    }
  }
  return kept === 0 ? text : out + text.slice(kept);
}

const CDATA_END = ']]>';
/** Ends the CDATA section after `]]` and opens a new one for `>`: the reader sees `]]>`. */
const CDATA_END_SPLIT = ']]]]><![CDATA[>';

/**
 * Makes text safe to hand to junit-report-builder's CDATA writers (`stacktrace`, `error` content,
 * `standardOutput`).
 *
 * xmlbuilder 15.1.1 (`XMLStringifier.cdata`) already splits a `]]>`, but with a non-global
 * `replace(']]>', …)`, i.e. only the first one; a second `]]>` ends the section early and the file
 * is malformed. Splitting every occurrence ourselves would not do either: the builder would then
 * split the `]]>` inside our first split again and the reader would see `]]]]><![CDATA[>`.
 * So the first `]]>` is left for the builder and every later one is split here. The first match of
 * `]]>` in the result is always that first original one (the text before it holds none), which is
 * exactly the one the builder replaces. test/junit.test.ts checks the round trip through libxml2,
 * so a change in the builder's escaping shows up there.
 */
export function splitCdataTerminators(text: string): string {
  const parts = text.split(CDATA_END);
  if (parts.length <= 2) return text; // none, or one that the builder splits
  const [first = '', second = '', ...rest] = parts;
  return [`${first}${CDATA_END}${second}`, ...rest].join(CDATA_END_SPLIT);
}

/** Text for an element written as CDATA by junit-report-builder. */
export function xmlCdata(text: string): string {
  return splitCdataTerminators(stripInvalidXmlChars(text));
}
