// The OpenAPI document's thread inherits the process's Node options, V8's included, unless the
// process was started from a string entry (`node --input-type=module -e …`), whose options would
// make a thread with a file entry fail; then it gets the others explicitly.
import { describe, expect, it } from 'vitest';
import { threadExecArgv } from '../src/core/threads.js';

describe('threadExecArgv', () => {
  it('leaves a file entry’s options to be inherited, V8’s included (given explicitly, Node refuses them)', () => {
    expect(threadExecArgv(['--max-old-space-size=512', '--cpu-prof', '--enable-source-maps'])).toBeUndefined();
    expect(threadExecArgv([])).toBeUndefined();
  });

  it('drops the string entry and its input type, in either spelling, and keeps the rest', () => {
    expect(threadExecArgv(['--input-type=module', '-e', 'await main()', '--cpu-prof'])).toEqual(['--cpu-prof']);
    expect(threadExecArgv(['--input-type', 'module', '--eval', 'x', '-p', '1+1', '--print=2', '--eval=y'])).toEqual([]);
  });
});
