/**
 * Escaping for report.html. Markup is built only with the `html` tag below, which escapes every
 * interpolated value unless it is itself markup made by `html`: a forgotten escape cannot happen,
 * and a string from the target (a response body, a header) can never become an element.
 */
import { isUnsafeCode } from '../core/text-safety.js';

export class Html {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup;
  }
}

/** What a template may interpolate; `false`, `null` and `undefined` render nothing (conditionals). */
export type HtmlValue = Html | string | number | false | null | undefined | readonly HtmlValue[];

export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): Html {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new Html(out);
}

function render(value: HtmlValue): string {
  if (value instanceof Html) return value.markup;
  if (value === false || value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return escapeHtml(value);
  return value.map(render).join('');
}

/**
 * Text for element content or a double-quoted attribute value. Besides `& < > " '`, characters a
 * reader could not see or that would mislead are shown as `[U+XXXX]` in a marked span: controls
 * (NUL would become U+FFFD, ESC is invisible), bidirectional controls (text that reads in another
 * order than it is), lone surrogates (not representable in UTF-8) and noncharacters.
 */
export function escapeHtml(text: string, showHidden = true): string {
  let out = '';
  let previous = '';
  for (const ch of text) {
    // CR LF is a line end; HTML turns it into LF anyway. A lone CR is shown below.
    if (ch === '\n' && previous === '\r' && showHidden) out = out.slice(0, out.length - CR_MARK.length);
    previous = ch;
    switch (ch) {
      case '&':
        out += '&amp;';
        continue;
      case '<':
        out += '&lt;';
        continue;
      case '>':
        out += '&gt;';
        continue;
      case '"':
        out += '&quot;';
        continue;
      case "'":
        out += '&#39;';
        continue;
    }
    const code = ch.codePointAt(0) ?? 0;
    if (isHidden(ch, code)) {
      // In <title> (text only, no markup) hidden characters are left out instead.
      if (showHidden) out += mark(code);
    } else {
      out += ch;
    }
  }
  return out;
}

function mark(code: number): string {
  return `<span class="ctl">[U+${code.toString(16).toUpperCase().padStart(4, '0')}]</span>`;
}
const CR_MARK = mark(0x0d);

/** What src/core/text-safety.ts calls unsafe, and CR (marked on its own: CR_MARK); TAB and LF are shown as they are. */
function isHidden(ch: string, code: number): boolean {
  return isUnsafeCode(code) || ch === '\r';
}
