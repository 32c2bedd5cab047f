// The threads the CLI starts (Vitest's, the OpenAPI document's) inherit the process's Node
// options, except those that only a string entry allows: a script that runs the CLI with
// `node --input-type=module -e …` would otherwise fail to start them.
import { describe, expect, it } from 'vitest';
import { threadExecArgv } from '../src/threads.js';

describe('threadExecArgv', () => {
  it('keeps the options a thread can take', () => {
    expect(threadExecArgv(['--max-old-space-size=512', '--cpu-prof', '--enable-source-maps'])).toEqual(['--max-old-space-size=512', '--cpu-prof', '--enable-source-maps']);
  });

  it('drops the string entry and its input type, in either spelling', () => {
    expect(threadExecArgv(['--input-type=module', '-e', 'await main()', '--cpu-prof'])).toEqual(['--cpu-prof']);
    expect(threadExecArgv(['--input-type', 'module', '--eval', 'x', '-p', '1+1', '--print=2', '--eval=y'])).toEqual([]);
  });
});
