/**
 * One rule for unsafe characters (src/core/text-safety.ts, issue 40 item 3), every sink rendering it
 * its own way: the same hostile characters through the console stream, one-line messages, the
 * HTML report and the shell words of a reproduction. Before, five predicates each had their own
 * set (U+200B-U+200F and U+FEFF in one, U+061C in two, U+2028/2029 kept by one).
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { SafeStream, withoutControls } from '../src/core/console-safety.js';
import { neutralised } from '../src/openapi/document-files.js';
import { printable } from '../src/core/wording.js';
import { escapeHtml } from '../src/report/html-escape.js';
import { shellWord } from '../src/report/reproduce.js';
import { isUnsafeCode } from '../src/core/text-safety.js';

const hex = (code: number): string => `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;

/** One or more of each kind the rule names, and the edges of every range. */
const UNSAFE = [
  0x00, 0x07, 0x08, 0x0b, 0x0c, 0x1b, 0x1f, 0x7f, 0x80, 0x85, 0x9b, 0x9f, 0x061c, 0x200b, 0x200c, 0x200d, 0x200e,
  0x200f, 0x2028, 0x2029, 0x202a, 0x202e, 0x2060, 0x2066, 0x2069, 0xfeff, 0xfffe, 0xffff, 0xd800, 0xdfff,
];
/** Their neighbours, and what a name may hold: printed as they are. */
const SAFE = [
  0x20, 0x7e, 0xa0, 0xe9, 0x061b, 0x061d, 0x200a, 0x2010, 0x2027, 0x202f, 0x205f, 0x2061, 0x206a, 0x4e2d, 0xfdcf,
  0xfefe, 0xfffd, 0x1f600,
];

/** Each sink's text for `text`, with only what its rendering adds. */
const SINKS: Record<string, (text: string) => string> = {
  'console (plain)': (t) => withoutControls(t, false),
  'console (colour)': (t) => withoutControls(t, true),
  'console stream': (t) => {
    let out = '';
    new SafeStream((w) => (out += w), false).write(t);
    return out;
  },
  'one-line message (printable)': printable,
  'document message (neutralised)': (t) => neutralised(t, 1000),
  'HTML report': (t) => escapeHtml(t).replace(/<span class="ctl">\[U\+[0-9A-F]{4}\]<\/span>/g, ''),
  'HTML title': (t) => escapeHtml(t, false),
  'shell word': shellWord,
};

describe('the one rule', () => {
  it('names every character of each kind, and none of their neighbours', () => {
    expect(UNSAFE.filter((c) => !isUnsafeCode(c)).map(hex)).toEqual([]);
    expect(SAFE.filter((c) => isUnsafeCode(c)).map(hex)).toEqual([]);
    // TAB, LF and CR are whitespace: each sink keeps or flattens them.
    expect([0x09, 0x0a, 0x0d].filter((c) => isUnsafeCode(c))).toEqual([]);
  });
});

describe('every sink', () => {
  for (const [sink, render] of Object.entries(SINKS)) {
    it(`${sink}: writes no unsafe character as it is, and every safe one as it is`, () => {
      for (const code of UNSAFE) {
        const ch = String.fromCharCode(code);
        const out = render(`a${ch}b`);
        expect(out.includes(ch), `${sink}: ${hex(code)} written as it is: ${JSON.stringify(out)}`).toBe(false);
        expect(out, `${sink}: ${hex(code)}`).toMatch(/^'?a.*b'?$/s);
      }
      for (const code of SAFE) {
        const ch = String.fromCodePoint(code);
        expect(render(`a${ch}b`), `${sink}: ${hex(code)}`).toContain(ch);
      }
    });
  }

  it('each renders them its own way: dropped, a space, ?, [U+XXXX], a printf escape', () => {
    const text = 'x\u001b]0;t\u0007\u202eid\u2028y';
    expect(printable(text)).toBe('x]0;tid y');
    expect(withoutControls(text, false)).toBe('x]0;tid y');
    expect(neutralised(text)).toBe('x?]0;t??id?y');
    expect(escapeHtml(text)).toBe(
      'x<span class="ctl">[U+001B]</span>]0;t<span class="ctl">[U+0007]</span><span class="ctl">[U+202E]</span>id<span class="ctl">[U+2028]</span>y',
    );
    // The shell word is exact: the shell makes the same bytes of it again.
    const word = shellWord(text);
    expect(execFileSync('sh', ['-c', `printf %s ${word}`], { encoding: 'utf8' })).toBe(text);
  });

  it('the console keeps its own colour sequences, and drops an ESC that starts anything else', () => {
    expect(withoutControls('\u001b[31mred\u001b[0m \u001b]8;;http://x\u0007link', true)).toBe(
      '\u001b[31mred\u001b[0m ]8;;http://xlink',
    );
  });
});
