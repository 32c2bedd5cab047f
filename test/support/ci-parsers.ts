/**
 * What each CI system acts on in a job's log, after its documented grammar, stricter where the
 * documentation is loose (every one of them splits lines on any line break here, and finds a
 * command in any case). A test feeds the harness's console output to each and asserts that none
 * finds anything: the text the harness quotes can be anything.
 *
 * - GitHub Actions (workflow commands): a line whose trimmed text starts with `::name …::`; the
 *   legacy `##[name …]` anywhere in a line. The runner's line reader (.NET) breaks lines at CR too.
 * - Azure Pipelines (logging commands): `##vso[area.action …]` anywhere in a line, any case;
 *   formatting commands `##[group]`, `##[section]`, `##[error]` … .
 * - TeamCity (service messages): `##teamcity[name …]` anywhere in a line.
 * - GitLab (collapsible sections): `section_start:<time>:<name>[options]` + CR + `ESC[0K`, and
 *   any ANSI sequence the log renders.
 * - Buildkite (log groups): a line starting with `--- `, `+++ `, `~~~ ` or `^^^ +++`; its
 *   timestamps (`ESC_bk;…`) and inline images (`ESC]1337;File=`).
 * - The terminal: any ESC sequence but colour (SGR) when colour was asked for, and C1 controls.
 */

export interface CiCommand {
  ci: string;
  line: string;
}

const LINE_BREAKS = /\r\n|[\r\n\v\f\u0085\u2028\u2029]/;

/** .NET's String.Trim: Char.IsWhiteSpace (JavaScript's \s, and U+0085). */
const trimmed = (line: string): string => line.replace(/^[\s\u0085]+/, '');

/* eslint-disable no-control-regex -- the grammars are about control characters */
export const PARSERS: Record<string, (line: string) => boolean> = {
  'GitHub Actions': (line) => /^::[A-Za-z-]+( [^:]*)?::/.test(trimmed(line)) || /##\[[A-Za-z-]*( [^\]]*)?\]/.test(line),
  'Azure Pipelines': (line) =>
    /##vso\[/i.test(line) || /##\[(group|endgroup|section|warning|error|debug|command)\]/i.test(line),
  TeamCity: (line) => /##teamcity\[/i.test(line),
  GitLab: (line) => /section_(start|end):\d+:[A-Za-z0-9_.-]+(\[[^\]]*\])?\r?\x1b\[0K/.test(line),
  Buildkite: (line) => /^\s*(--- |\+\+\+ |~~~ |\^\^\^ \+\+\+)/.test(line) || /\x1b_bk;|\x1b\]1337;/.test(line),
};

/** Every command any of the CIs would act on in `log`. */
export function ciCommandsIn(log: string): CiCommand[] {
  const found: CiCommand[] = [];
  // GitLab's markers span a CR: look for them before the lines are split.
  if (PARSERS.GitLab?.(log)) found.push({ ci: 'GitLab', line: log });
  for (const line of log.split(LINE_BREAKS)) {
    for (const [ci, parse] of Object.entries(PARSERS)) if (ci !== 'GitLab' && parse(line)) found.push({ ci, line });
  }
  return found;
}

/** Terminal control: ESC sequences (but colour when `colour`), C1 controls, other C0 but tab and newline. */
export function terminalControlsIn(log: string, colour = false): string[] {
  const withoutColour = colour ? log.replace(/\x1b\[[0-9;]*m/g, '') : log;
  return [...withoutColour.matchAll(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g)].map((m) =>
    JSON.stringify(m[0]),
  );
}

/* eslint-enable no-control-regex */

/**
 * Hostile lines: each CI's commands, in the spellings and places their parsers accept, and with
 * the characters a cleaner removes placed so that removing them would join a command.
 */
export function hostileLines(): string[] {
  const openers = [
    '::error file=README.md,line=1::forged annotation',
    '::add-mask::NON-CONFORMANT',
    '::set-output name=verdict::conformant',
    '::stop-commands::token',
    '##[error]forged',
    '##[add-mask]NON-CONFORMANT',
    '##[group]hidden',
    '##vso[task.setvariable variable=PWNED;]yes',
    '##VSO[task.prependpath]/tmp/evil',
    '##vso[task.complete result=Succeeded;]done',
    "##teamcity[buildStatus status='SUCCESS' text='forged']",
    "##teamcity[setParameter name='env.PATH' value='/tmp']",
    '--- :white_check_mark: CONFORMANT',
    '+++ expanded',
    '~~~ collapsed',
    '^^^ +++',
    'section_start:1700000000:forged[collapsed=true]\r\x1b[0Khidden',
    '\x1b_bk;t=0\x07',
    '\x1b]1337;File=inline=1:AAAA\x07',
  ];
  const lines: string[] = [];
  for (const opener of openers) {
    lines.push(
      opener,
      `  \t${opener}`,
      `\u00a0\u2003\u3000${opener}`,
      `text before\r${opener}`,
      `text before\n${opener}`,
      `before\u2028${opener}`,
      `before\u0085${opener}`,
      `quoted "${opener}" inside`,
    );
    // A removed character between the opener's first two: a naive cleaner joins them again.
    if (opener.length > 2)
      for (const removed of ['\x00', '\x1b', '\x9b', '\u202e', '\r'])
        lines.push(opener.slice(0, 1) + removed + opener.slice(1));
  }
  lines.push(
    '\x1b]0;window title\x07',
    '\x1b[2J\x1b[H',
    '\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\',
    '\x9b31mC1 CSI',
    '\x1bc',
    'bidi \u202egnirts\u202c',
  );
  return lines;
}
