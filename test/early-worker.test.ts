/**
 * The battery's worker thread started with the CLI (src/runner/early-worker.ts): Vitest takes it
 * only when it asks for exactly that thread, and otherwise starts its own.
 */
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { expectedSpawn, sameSpawn, startEarlyWorker, takeEarlyWorker, type Spawn } from '../src/runner/early-worker.js';
import { runBin, tempDir } from './support/harness.js';

/** A thread entry that waits for messages and stays alive until it is terminated. */
async function idleEntry(): Promise<string> {
  const file = join(await tempDir(), 'idle.mjs');
  await writeFile(
    file,
    "import { parentPort } from 'node:worker_threads';\nparentPort.on('message', (m) => parentPort.postMessage(m));\n",
  );
  return file;
}

const taken: Worker[] = [];
afterEach(async () => {
  await Promise.all(taken.splice(0).map((w) => w.terminate()));
});

describe('sameSpawn', () => {
  const spawn: Spawn = { entry: '/x/threads.js', env: { A: '1', B: '2' }, execArgv: ['--conditions', 'node'] };

  it('holds for the same entry, Node options and environment (unset variables aside)', () => {
    expect(
      sameSpawn(spawn, {
        entry: '/x/threads.js',
        env: { B: '2', A: '1', C: undefined },
        execArgv: ['--conditions', 'node'],
      }),
    ).toBe(true);
  });

  it.each([
    ['another entry', { ...spawn, entry: '/y/threads.js' }],
    ['another Node option', { ...spawn, execArgv: ['--conditions', 'production'] }],
    ['Node options in another order', { ...spawn, execArgv: ['node', '--conditions'] }],
    ['another value', { ...spawn, env: { A: '1', B: '3' } }],
    ['one more variable', { ...spawn, env: { A: '1', B: '2', C: '' } }],
    ['one variable less', { ...spawn, env: { A: '1' } }],
  ])('fails for %s', (_what, other: Spawn) => {
    expect(sameSpawn(spawn, other)).toBe(false);
  });
});

describe('takeEarlyWorker', () => {
  it('hands over the early thread, alive, when Vitest asks for the very same spawn; only once', async () => {
    const spawn: Spawn = { entry: await idleEntry(), env: { ...process.env }, execArgv: [] };
    startEarlyWorker(spawn);
    const worker = takeEarlyWorker({ ...spawn, env: { ...spawn.env } });
    expect(worker).toBeDefined();
    taken.push(worker as Worker);
    worker?.postMessage('ping');
    const [echo] = (await once(worker as Worker, 'message')) as [string];
    expect(echo).toBe('ping');
    expect(takeEarlyWorker(spawn)).toBeUndefined();
  });

  it('stops the early thread and hands over nothing when Vitest asks for another spawn', async () => {
    const spawn: Spawn = { entry: await idleEntry(), env: { ...process.env }, execArgv: [] };
    const worker = startEarlyWorker(spawn);
    expect(worker).toBeDefined();
    const exited = once(worker as Worker, 'exit');
    expect(takeEarlyWorker({ ...spawn, env: { ...spawn.env, NODE_ENV: 'something else' } })).toBeUndefined();
    // The thread would wait for messages for ever (see the test above): it ends because it was stopped.
    await exited;
  });

  it('hands over nothing when no thread was started early (the harness run from its sources)', () => {
    expect(takeEarlyWorker(expectedSpawn())).toBeUndefined();
  });
});

describe('a run of the CLI', () => {
  it.each([
    ['run', ['run']],
    ['the default command, without `run`', []],
  ])(
    "gives Vitest the thread started early (%s): the prediction of Vitest's spawn holds for the installed Vitest",
    async (_how, command: string[]) => {
      const reportsDir = await tempDir();
      const result = await runBin([...command, '--embedded', '--suite', 'user', '--reports-dir', reportsDir], {
        env: { CARRIER_PROFILE: '1' },
      });

      expect(result.code).toBe(0);
      expect(result.stderr).toMatch(/^profile \d+ battery: the early worker is Vitest's$/m);
      expect(result.stderr).not.toMatch(/not what Vitest asked for/);
      // The worker's own profile lines come through Vitest's console, which shows them when profiling.
      expect(result.stderr).toMatch(/^profile \d+ thread: first harness module \(thread\)$/m);
    },
  );
});
