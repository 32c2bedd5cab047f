/**
 * Every `run` option is declared once (src/config/options.ts RUN_OPTIONS, issue 40 item 4): the
 * yargs options, the kinds the environment and a config file are read by, and the config
 * schema's keys come from that table. The options reference a user reads (docs/reference.md,
 * *Options*) is held to it here: a new option, a renamed or removed one, and the test fails.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { RUN_OPTIONS, RUN_OPTION_KINDS, flagName } from '../src/config/options.js';
import { envName } from '../src/core/environment.js';
import { runMain } from './support/harness.js';

/** Options of `run` that are not RunOptions: the config file itself, and the certification profile (which sets others). */
const BESIDES = ['--config', '--profile'];
/** On the command line but refused there with a reason (a secret), or a config file's object: not in the reference table. */
const NOT_LISTED = ['--second-client-secret', '--parameters'];

async function referenceRows(): Promise<{ flags: string[]; env: string[] }[]> {
  const text = await readFile(new URL('../docs/reference.md', import.meta.url), 'utf8');
  const start = text.indexOf('## Options');
  const section = text.slice(start, text.indexOf('\n## ', start + 5));
  return section
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .map((row) => {
      const [, first = '', second = ''] = row.split('|');
      return {
        flags: [...first.matchAll(/`(--[a-z-]+)/g)].map((m) => m[1] ?? ''),
        env: [...second.matchAll(/`(CARRIER_[A-Z_]+)`/g)].map((m) => m[1] ?? ''),
      };
    });
}

describe('the one option table', () => {
  it('gives every option its kind, and --help shows each it describes', async () => {
    expect(Object.keys(RUN_OPTION_KINDS)).toEqual(Object.keys(RUN_OPTIONS));
    const help = (await runMain(['run', '--help'])).stdout;
    for (const [key, spec] of Object.entries(RUN_OPTIONS)) {
      const flag = flagName(key);
      if ('describe' in spec) expect(help, flag).toMatch(new RegExp(`\\s${flag}(?![\\w-])`));
      else expect(help, flag).not.toMatch(new RegExp(`\\s${flag}(?![\\w-])`));
    }
  });

  it("docs/reference.md's options table lists exactly the options --help shows, and each variable it names is its option's", async () => {
    const rows = await referenceRows();
    const listed = new Set(rows.flatMap((r) => r.flags));
    const shown = [
      ...Object.entries(RUN_OPTIONS)
        .filter(([, spec]) => 'describe' in spec)
        .map(([key]) => flagName(key)),
      ...BESIDES,
    ].filter((f) => !NOT_LISTED.includes(f));
    expect(
      shown.filter((f) => !listed.has(f)),
      'options missing from docs/reference.md',
    ).toEqual([]);
    expect(
      [...listed].filter((f) => !shown.includes(f)),
      'options in docs/reference.md that run does not have',
    ).toEqual([]);
    // An option refused on the command line (the second client's secret) is given by its variable alone, beside its client's row.
    const hidden = Object.entries(RUN_OPTIONS)
      .filter(([, spec]) => !('describe' in spec))
      .map(([key]) => envName(key));
    for (const { flags, env } of rows) {
      const variables = [
        ...flags.map((f) => envName(f.slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()))),
        ...hidden,
      ];
      for (const name of env) expect(variables, `${flags.join(', ')}: ${name}`).toContain(name);
    }
  });
});
