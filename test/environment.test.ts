/**
 * The pieces the command line reads its environment with (src/core/environment.ts,
 * src/cli/yes-no-flags.ts); the behaviour end to end is in cli-environment.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { normalizeYesNoFlags } from '../src/cli/yes-no-flags.js';
import { ciMarker, envName, optionsFromEnv, parseBooleanWord } from '../src/core/environment.js';

describe('the environment', () => {
  it('reads CI the way CI systems set it', () => {
    expect(ciMarker({ CI: 'true' })).toBe('CI=true');
    expect(ciMarker({ CI: '1' })).toBe('CI=1');
    expect(ciMarker({ CI: 'woodpecker' })).toBe('CI=woodpecker');
    expect(ciMarker({ CI: 'false' })).toBeUndefined();
    expect(ciMarker({ CI: '' })).toBeUndefined();
    expect(ciMarker({ TF_BUILD: 'True' })).toBe('TF_BUILD=True');
    expect(ciMarker({})).toBeUndefined();
  });

  it('parses the words, and nothing more', () => {
    for (const yes of ['1', 'true', 'TRUE', 'True', 'yes', 'YES', 'on', ' yes '])
      expect(parseBooleanWord(yes), yes).toBe(true);
    for (const no of ['0', 'false', 'FALSE', 'no', 'No', 'off']) expect(parseBooleanWord(no), no).toBe(false);
    for (const other of ['maybe', '', 'y', 'n', '2', 'truee', 'enabled'])
      expect(parseBooleanWord(other), other).toBeUndefined();
  });

  it('rewrites --flag=VALUE and --flag VALUE, and refuses any other value', () => {
    const flags = ['strict', 'strictBaseline'];
    expect(normalizeYesNoFlags(['run', '--strict=YES', '--strict-baseline', '0', '--suite', 'token'], flags)).toEqual([
      'run',
      '--strict',
      '--no-strict-baseline',
      '--suite',
      'token',
    ]);
    expect(normalizeYesNoFlags(['--strict', '--suite', 'yes'], flags)).toEqual(['--strict', '--suite', 'yes']);
    expect(normalizeYesNoFlags(['--', '--strict=maybe'], flags)).toEqual(['--', '--strict=maybe']);
    expect(() => normalizeYesNoFlags(['--strict=maybe'], flags)).toThrow(
      /^--strict=maybe: "maybe" is not a yes\/no value; write --strict or --no-strict/,
    );
  });

  it('an option of the command is read from its variable, list options split at commas and spaces', () => {
    expect(envName('strictBaseline')).toBe('CARRIER_STRICT_BASELINE');
    expect(
      optionsFromEnv(
        { pagedPath: 'list', timeout: 'number', strict: 'boolean' },
        { CARRIER_PAGED_PATH: 'shipments, orders', CARRIER_TIMEOUT: '5000', CARRIER_STRICT: 'no', CARRIER_OTHER: 'x' },
      ),
    ).toEqual({
      pagedPath: ['shipments', 'orders'],
      timeout: 5000,
      strict: false,
    });
    expect(optionsFromEnv({ timeout: 'number' }, { CARRIER_TIMEOUT: 'soon' })).toEqual({ timeout: 'soon' });
  });
});
