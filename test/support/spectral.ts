import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { pointerOf } from '../../src/openapi/pointer.js';

/** The repository root: where spectral.yaml and node_modules are. */
const ROOT = resolve(import.meta.dirname, '../..');

/** One Spectral result as the lint tests compare it with lint's: the rule, the file (absolute), line and JSON Pointer; and the message. */
export interface SpectralFinding {
  rule: string;
  file: string;
  line: number;
  pointer: string;
  message: string;
}

/**
 * @stoplight/spectral-cli with the shipped ruleset (spectral.yaml) on the documents, run as users'
 * CI runs it (one process for all of them). Spectral exits 1 on findings of severity error: the
 * JSON on stdout is what counts.
 */
export async function spectralFindings(documents: readonly string[]): Promise<SpectralFinding[]> {
  const bin = join(ROOT, 'node_modules/@stoplight/spectral-cli/dist/index.js');
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [bin, 'lint', '--ruleset', 'spectral.yaml', '--format', 'json', '--quiet', ...documents],
    { cwd: ROOT, maxBuffer: 16 * 1024 * 1024, timeout: 120_000 },
  ).catch((err: { stdout?: string; stderr?: string }) => {
    if (typeof err.stdout === 'string' && err.stdout.trim().startsWith('[')) return { stdout: err.stdout };
    throw new Error(`spectral failed: ${err.stderr ?? 'no output'}`);
  });
  return (
    JSON.parse(stdout) as {
      code: string;
      path: (string | number)[];
      source: string;
      message: string;
      range: { start: { line: number } };
    }[]
  ).map((r) => ({
    rule: r.code,
    file: r.source,
    line: r.range.start.line + 1,
    pointer: r.path.map((t) => `/${pointerOf(String(t))}`).join(''),
    message: r.message,
  }));
}
