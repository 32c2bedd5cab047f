import { readFileSync } from 'node:fs';
import { UsageError } from './errors.js';

/**
 * Reading the user's files (config, expectations, baseline, secret, CA): a file that cannot be
 * read or parsed is a usage error with one line that names the file and the reason.
 */

export function readTextFile(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as { code?: string }).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'it is a directory' : (err as Error).message;
    throw new UsageError(`${what} ${path}: cannot read it (${reason})`);
  }
}

export function readJsonFile(path: string, what: string): unknown {
  const text = readTextFile(path, what);
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new UsageError(`${what} ${path}: not valid JSON (${(err as Error).message})`);
  }
}
