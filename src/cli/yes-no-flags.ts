import { BOOLEAN_SPELLINGS, parseBooleanWord } from '../core/environment.js';
import { UsageError } from '../core/errors.js';

/**
 * yargs reads `--strict=yes`, `--strict=1` and `--strict=maybe` all as "off", without a word. Before
 * yargs sees them, yes/no flags written with a value (`--strict=VALUE`, or `--strict VALUE` when
 * VALUE is a yes/no word) are rewritten to `--strict` or `--no-strict`, and any other value is
 * refused: a gate must never run lenient because of a spelling.
 */

const kebab = (name: string): string => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

export function normalizeYesNoFlags(args: readonly string[], flags: readonly string[]): string[] {
  const names = new Set(flags.flatMap((f) => [kebab(f), f]));
  const out: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] ?? '';
    if (arg === '--') {
      out.push(...args.slice(i));
      break;
    }
    const withValue = /^--([^=]+)=(.*)$/s.exec(arg);
    if (withValue?.[1] !== undefined && names.has(withValue[1])) {
      const [, name, value = ''] = withValue;
      const yes = parseBooleanWord(value);
      if (yes === undefined)
        throw new UsageError(
          `--${name}=${value}: ${JSON.stringify(value)} is not a yes/no value; write --${name} or --no-${name}, or a value among ${BOOLEAN_SPELLINGS}`,
        );
      out.push(yes ? `--${name}` : `--no-${name}`);
      continue;
    }
    const bare = /^--(.+)$/.exec(arg)?.[1];
    const next = args[i + 1];
    const yes = next === undefined ? undefined : parseBooleanWord(next);
    if (bare !== undefined && names.has(bare) && yes !== undefined) {
      out.push(yes ? `--${bare}` : `--no-${bare}`);
      i += 1;
      continue;
    }
    out.push(arg);
  }
  return out;
}
