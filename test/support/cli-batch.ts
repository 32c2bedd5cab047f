import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CliResult } from './harness.js';
import { collect, tempDir } from './harness.js';

/**
 * Many CLI invocations in one child process: the built CLI's `main` (dist/src/cli/main.js, what
 * the executable runs), called once per case, one after another, each with its own environment
 * and its own output. A process start costs about half a second of CPU, and the tests of hostile
 * files make a hundred invocations that each end at once (CI's 900 s is CPU time on two cores).
 *
 * A case that hangs (a FIFO opened: the open blocks inside a synchronous call) hangs the child,
 * which is killed after `timeoutMs`: every case of the batch then fails, naming the batch, and
 * the test run goes on.
 */

export interface BatchCase {
  args: readonly string[];
  env?: Record<string, string>;
}

export interface BatchResult extends CliResult {
  /** How long the case took, in ms. */
  ms: number;
}

const MAIN = new URL('../../dist/src/cli/main.js', import.meta.url).href;

/** The child: reads the cases, runs each, writes the results as JSON on stdout. */
const CHILD = `
const [, mainUrl, casesFile] = process.argv;
const { readFileSync } = await import('node:fs');
const { main } = await import(mainUrl);
const cases = JSON.parse(readFileSync(casesFile, 'utf8'));
const results = [];
for (const c of cases) {
  const saved = {};
  for (const [k, v] of Object.entries(c.env ?? {})) { saved[k] = process.env[k]; process.env[k] = v; }
  let stdout = '';
  let stderr = '';
  const started = performance.now();
  let code;
  try {
    code = await main(c.args, {
      out: (t) => void (stdout += t),
      err: (t) => void (stderr += t.endsWith('\\n') ? t : t + '\\n'),
      color: false,
    });
  } catch (err) {
    code = -1;
    stderr += 'main threw: ' + (err instanceof Error ? err.stack : String(err)) + '\\n';
  }
  results.push({ code, stdout, stderr, ms: performance.now() - started });
  for (const [k, v] of Object.entries(saved)) { if (v === undefined) delete process.env[k]; else process.env[k] = v; }
}
process.stdout.write(JSON.stringify(results));
`;

export async function runCliBatch(cases: readonly BatchCase[], timeoutMs: number): Promise<BatchResult[]> {
  const file = join(await tempDir('carrier-cli-batch-'), 'cases.json');
  await writeFile(file, JSON.stringify(cases));
  const { code, stdout, stderr } = await collect(
    spawn(process.execPath, ['--input-type=module', '-e', CHILD, MAIN, file], {
      env: { ...process.env, NO_COLOR: '1' },
    }),
    timeoutMs,
  );
  if (code !== 0)
    throw new Error(
      `the batch of ${cases.length} CLI cases ended with exit code ${code} (killed after ${timeoutMs} ms if null): ${stderr.slice(0, 2000)}`,
    );
  return JSON.parse(stdout) as BatchResult[];
}

/**
 * The cases of one describe, prepared in order and run together in one child on the first ask:
 * `result(i)` is case i's. Each test then asserts its own case.
 */
export function lazyBatch<C>(
  cases: readonly C[],
  prepare: (c: C) => Promise<BatchCase>,
  timeoutMs: number,
): (i: number) => Promise<BatchResult> {
  let results: Promise<BatchResult[]> | undefined;
  return async (i) => {
    results ??= (async () => {
      const prepared: BatchCase[] = [];
      for (const c of cases) prepared.push(await prepare(c));
      return runCliBatch(prepared, timeoutMs);
    })();
    const result = (await results)[i];
    if (!result) throw new Error(`no result for case ${i}`);
    return result;
  };
}
