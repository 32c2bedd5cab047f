import { closeSync, mkdirSync, openSync, readdirSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordedExchange } from '../model/run-report.js';

/**
 * Every exchange of a run, kept as evidence (issue 39, item 2): the HTTP layer appends each one
 * (redacted, its body cut at the recording limit) to a file of the run's log directory as it is
 * made, one JSON line each, so that a walk of a million items costs the run disk, not memory. The
 * CLI process and each battery worker write a file of their own; each exchange has an id unique in
 * the run (`<file>-<n>`), which the recorders keep for the checks that used it (src/http/client.ts
 * Recorder.ids), and the reports name the checks of each entry (src/report/exchanges.ts).
 */

/** Lines buffered before a write: a walk's pages go to disk in batches, never all in memory. */
const FLUSH_BYTES = 256 * 1024;

/** One line of the log: the exchange, with its id. */
export type LoggedExchange = RecordedExchange & { id: string };

export class ExchangeLog {
  readonly #fd: number;
  readonly #name: string;
  #buffer: string[] = [];
  #bytes = 0;
  #seq = 0;
  #closed = false;

  /** Appends to `<dir>/<name>.jsonl` (the directory is made if need be). */
  constructor(dir: string, name: string) {
    mkdirSync(dir, { recursive: true });
    this.#name = name;
    this.#fd = openSync(join(dir, `${name}.jsonl`), 'a');
  }

  /** Logs the exchange; its id in the run. */
  append(record: RecordedExchange): string {
    this.#seq += 1;
    const id = `${this.#name}-${this.#seq}`;
    if (this.#closed) return id;
    const line = `${JSON.stringify({ id, ...record })}\n`;
    this.#buffer.push(line);
    this.#bytes += line.length;
    if (this.#bytes >= FLUSH_BYTES) this.flush();
    return id;
  }

  /** Writes what is buffered (at the end of each check, and before the log is read). */
  flush(): void {
    if (this.#buffer.length === 0 || this.#closed) return;
    const text = this.#buffer.join('');
    this.#buffer = [];
    this.#bytes = 0;
    writeSync(this.#fd, text);
  }

  close(): void {
    if (this.#closed) return;
    this.flush();
    this.#closed = true;
    closeSync(this.#fd);
  }
}

/** The log files of a run's log directory, in a stable order (the CLI process's first). */
export function logFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.jsonl'));
  } catch {
    return [];
  }
  return names
    .sort((a, b) => (a.startsWith('runner') ? -1 : b.startsWith('runner') ? 1 : a.localeCompare(b)))
    .map((n) => join(dir, n));
}
