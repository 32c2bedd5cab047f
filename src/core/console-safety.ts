/**
 * The one path every byte the CLI prints goes through (docs/security.md, *What it prints*).
 *
 * Console lines quote text the harness did not write: a target's answers (a `token_type`, a
 * header, an error body), an OpenAPI document, report files and bundles made elsewhere. Printed
 * raw, that text would act on the terminal (escape sequences: window titles, screen clears, OSC 8
 * links) or on the CI system that reads the log (logging commands: set a variable, prepend PATH,
 * mask a word, forge an annotation). The harness itself never writes either, so the stream is
 * cleaned whole, whatever the command: no caller has to remember to.
 *
 * - What src/core/text-safety.ts calls unsafe goes: C0 controls but tab and newline, DEL, C1 (8-bit
 *   CSI, NEL), the Unicode bidirectional controls (Trojan Source), zero-width characters and
 *   noncharacters. A carriage return goes too: .NET's line reader (the
 *   GitHub and Azure agents) ends a line there, which would start a new one mid-text. ESC goes,
 *   except the colour sequences (SGR, `ESC [ … m`) when the harness paints in colour (a TTY).
 *   U+2028 and U+2029 become a space: some log viewers break lines on them.
 * - CI logging commands are broken by writing their first character in its fullwidth form (the
 *   text reads the same to a person; no parser matches it), wherever the CI looks for them:
 *   - anywhere in a line: `##[` (GitHub's legacy commands, Azure's formatting commands),
 *     `##vso[` (Azure Pipelines), `##teamcity[` (TeamCity service messages); any `##word[`;
 *   - at a line's start, after blanks: `::` (GitHub workflow commands), `--- `, `+++ `, `~~~ `
 *     and `^^^ +++` (Buildkite's log groups).
 *   GitLab's section markers and Buildkite's timestamps and inline images need ESC, which is gone.
 * A command split across two writes is caught too: each stream remembers the end of its line.
 */

import { isLineSeparator, renderUnsafe } from './text-safety.js';

/** The longest CI command opener (`##teamcity[`), and then some: what a write must see of the line before it. */
const TAIL = 32;

/** `##vso[`, `##teamcity[`, `##[`: found by the CIs anywhere in a line (an IndexOf, any case). */
const ANYWHERE = /##[A-Za-z]*\[/g;
/** At a line's start after blanks (.NET's Trim: any Unicode white space): GitHub's and Buildkite's. */
const AT_LINE_START = /(?<=\n)[^\S\n]*(::|---(?= |\n|$)|\+\+\+(?= |\n|$)|~~~(?= |\n|$)|\^\^\^ \+\+\+)/g;
/** The colour sequences the console reporter writes (util.styleText). */
// eslint-disable-next-line no-control-regex
const SGR = /^\x1b\[[0-9;]*m/;

/** `#` → `＃`: the fullwidth form (U+FF01–U+FF5E) of a printable ASCII character. */
function fullwidth(ch: string): string {
  const code = ch.charCodeAt(0);
  return code > 0x20 && code < 0x7f ? String.fromCharCode(code + 0xfee0) : ch;
}

/**
 * Drops the characters src/core/text-safety.ts calls unsafe, and CR (see above); U+2028 and U+2029
 * become a space. Keeps SGR colour sequences when `keepColour`.
 */
export function withoutControls(text: string, keepColour: boolean): string {
  const clean = (piece: string): string => renderUnsafe(piece, (code) => (isLineSeparator(code) ? ' ' : ''), '\r');
  if (!keepColour) return clean(text);
  let out = '';
  let start = 0;
  for (let i = text.indexOf('\x1b'); i !== -1; i = text.indexOf('\x1b', i + 1)) {
    const sgr = SGR.exec(text.slice(i, i + 16));
    if (!sgr) continue;
    out += clean(text.slice(start, i)) + sgr[0];
    start = i + sgr[0].length;
    i = start - 1;
  }
  return out + clean(text.slice(start));
}

/**
 * One output stream (stdout or stderr) made safe: `write` cleans each piece of text as above and
 * hands it on. It keeps the end of the current line, so that a command is caught when one write
 * ends inside it and the next completes it.
 */
export class SafeStream {
  readonly #write: (text: string) => void;
  readonly #colour: boolean;
  /** The current line as written so far (its last TAIL characters). */
  #line = '';
  /** Whether #line holds the line from its start (or, when cut, only blanks were cut). */
  #whole = true;

  constructor(write: (text: string) => void, colour: boolean) {
    this.#write = write;
    this.#colour = colour;
  }

  write(text: string): void {
    const out = this.clean(text);
    if (out !== '') this.#write(out);
  }

  /** A workflow command line built by workflowCommandLine (its parts already made safe), on a line of its own. */
  writeCommand(line: string): void {
    const begun = !(this.#whole && this.#line === '');
    this.#write(`${begun ? '\n' : ''}${line}\n`);
    this.#whole = true;
    this.#line = '';
  }

  /** The text as it will be written; updates what the stream remembers of its line. */
  clean(text: string): string {
    const plain = withoutControls(text, this.#colour);
    // What came before, as one line: a line start is a newline, and `\0` (never written, it is
    // a control character) stands for a line that already holds something.
    const prefix = `${this.#whole ? '\n' : '\0'}${this.#line}`;
    const combined = prefix + plain;
    const at = new Set<number>();
    const mark = (start: number, end: number): void => {
      // The first character of the command that this write brings (the rest was written
      // already), a space aside: it has no fullwidth form to take (`^^^` + ` +++`).
      let first = Math.max(start, prefix.length);
      while (first < end && combined.charAt(first) === ' ') first += 1;
      if (first < end) at.add(first);
    };
    for (const m of combined.matchAll(ANYWHERE)) mark(m.index, m.index + m[0].length);
    for (const m of combined.matchAll(AT_LINE_START)) {
      const opener = m[1] ?? '';
      const start = m.index + m[0].length - opener.length;
      mark(start, start + opener.length);
    }
    let out = plain;
    if (at.size > 0) {
      const chars = [...plain.split('')];
      for (const index of at) chars[index - prefix.length] = fullwidth(chars[index - prefix.length] ?? '');
      out = chars.join('');
    }
    const lastNewline = out.lastIndexOf('\n');
    const line = lastNewline === -1 ? this.#line + out : out.slice(lastNewline + 1);
    if (lastNewline !== -1) this.#whole = true;
    if (line.length > TAIL) {
      // Cutting blanks loses nothing a line-start command needs; cutting anything else does.
      this.#whole &&= /^[^\S\n]*$/.test(line.slice(0, -TAIL));
      this.#line = line.slice(-TAIL);
    } else this.#line = line;
    return out;
  }
}

/**
 * A GitHub Actions workflow command the harness writes itself (`lint --format github-actions`:
 * `::error file=…,line=…,title=…::message`), whose parts are text it did not write (a file name, a
 * document's words): each is cleaned as the stream cleans text, its CI openers broken, and escaped
 * as the runner unescapes it (% CR LF; in a property also `:` and `,`), so that it stays one
 * command with these properties and this message, on a line of its own.
 */
export interface WorkflowCommand {
  command: 'error' | 'warning' | 'notice';
  properties: Readonly<Record<string, string | number | undefined>>;
  message: string;
}

/** Text in a workflow command: no control, no CI opener (`##[`), escaped for the runner. */
function commandText(text: string, property: boolean): string {
  const clean = withoutControls(text, false).replace(ANYWHERE, (m) => fullwidth(m.charAt(0)) + m.slice(1));
  const escaped = clean.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  return property ? escaped.replace(/:/g, '%3A').replace(/,/g, '%2C') : escaped;
}

/** The line of a workflow command, as the runner reads it. */
export function workflowCommandLine(c: WorkflowCommand): string {
  const props = Object.entries(c.properties)
    .filter((e): e is [string, string | number] => e[1] !== undefined && /^[a-zA-Z]+$/.test(e[0]))
    .map(([k, v]) => `${k}=${commandText(String(v), true)}`)
    .join(',');
  return `::${c.command}${props === '' ? '' : ` ${props}`}::${commandText(c.message, false)}`;
}

/** The CLI's two output functions, each through its own SafeStream, and the one way to write a workflow command. */
export function safeOutput<T extends { out: (text: string) => void; err: (text: string) => void; color: boolean }>(
  io: T,
): T & { command: (c: WorkflowCommand) => void } {
  const out = new SafeStream(io.out, io.color);
  const err = new SafeStream(io.err, io.color);
  // `err` is given one line at a time and ends it itself: the stream must know the line ended.
  return {
    ...io,
    out: (text: string) => out.write(text),
    err: (text: string) => err.write(text.endsWith('\n') ? text : `${text}\n`),
    // On a line of its own: a line begun is ended first; the stream then starts a new one.
    command: (c: WorkflowCommand) => out.writeCommand(workflowCommandLine(c)),
  };
}
