// undici's HTTP parser (llhttp, WebAssembly) stays in V8's baseline tier in a run of the CLI: its
// recompile by the optimising tier cost ~0.2 s of CPU and ~42 MB in every battery (src/cli/wasm-tiering.ts).
// V8 says which tier compiled each function with --trace-wasm-compilation-times (on stdout).
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runBin, tempDir } from './support/harness.js';

const TIERING = new URL('../dist/src/cli/wasm-tiering.js', import.meta.url).href;
const UNDICI = new URL('../node_modules/undici/index.js', import.meta.url).href;

/** Stdout of a process that makes `requests` undici requests to a loopback server, after keepWebAssemblyInItsBaselineTier when `baseline`. */
function requestsTraced(requests: number, baseline: boolean): Promise<string> {
  const script = `
    ${baseline ? `(await import(${JSON.stringify(TIERING)})).keepWebAssemblyInItsBaselineTier();` : ''}
    const { createServer } = await import('node:http');
    const { request } = await import(${JSON.stringify(UNDICI)});
    const server = createServer((req, res) => res.end(JSON.stringify({ items: [1, 2, 3], path: req.url })));
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    for (let i = 0; i < ${requests}; i += 1) await (await request('http://127.0.0.1:' + server.address().port + '/tenants/t/items?page=' + i)).body.text();
    server.close();
    process.exit(0);`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--trace-wasm-compilation-times', '--input-type=module', '-e', script]);
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`))));
  });
}

describe('undici’s parser in WebAssembly', () => {
  it('is recompiled by the optimising tier after enough responses, by default (what the test can see)', async () => {
    const trace = await requestsTraced(1500, false);
    expect(trace).toMatch(/using Liftoff/);
    expect(trace).toMatch(/using TurboFan/);
  });

  it('stays in the baseline tier once keepWebAssemblyInItsBaselineTier has run', async () => {
    const trace = await requestsTraced(1500, true);
    expect(trace).toMatch(/using Liftoff/);
    expect(trace).not.toMatch(/using TurboFan/);
  });

  it('stays there in a run of the CLI, in every thread', async () => {
    const reportsDir = await tempDir();
    const result = await runBin(
      [
        'run',
        '--embedded',
        '--suite',
        'tenant',
        '--suite',
        'pagination',
        '--suite',
        'user',
        '--reports-dir',
        reportsDir,
      ],
      { nodeArgs: ['--trace-wasm-compilation-times'] },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/using Liftoff/);
    expect(result.stdout).not.toMatch(/using TurboFan/);
  });
});
