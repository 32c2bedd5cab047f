import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { logFiles, type LoggedExchange } from '../http/exchange-log.js';
import { writeAtomicallyWith } from './atomic.js';
import { harEntry } from './har.js';
import type { RunReport } from '../model/run-report.js';

/**
 * Every exchange of a run, as evidence (issue 39, item 2): read back from the run's exchange log
 * (src/http/exchange-log.ts) a line at a time and written as HAR entries, each naming the checks
 * that used it, so that a walk of a million items is written in the memory of one entry.
 *
 * - `report.har` (`--reporter har`): a HAR 1.2 document, for the tools that open one;
 * - a bundle's `exchanges.jsonl`: one HAR entry per line, which `verify-bundle` reads a line at a
 *   time to cross-check the verdicts with (src/bundle/evidence.ts).
 */

export interface RunExchanges {
  /** The run's exchange log directory. */
  dir: string;
  /** The checks that used each exchange, by its id in the log. */
  checksOf: ReadonlyMap<string, readonly string[]>;
}

/** The exchange ids each check reported (CheckMeta.exchangeIds), turned around: the checks of each id. */
export function checksByExchange(
  checks: Iterable<{ checkId: string; exchangeIds?: readonly string[] }>,
): Map<string, string[]> {
  const byId = new Map<string, string[]>();
  for (const { checkId, exchangeIds } of checks) {
    for (const id of exchangeIds ?? []) {
      const list = byId.get(id);
      if (list === undefined) byId.set(id, [checkId]);
      else if (!list.includes(checkId)) list.push(checkId);
    }
  }
  return byId;
}

/** Each logged exchange as a HAR entry's JSON text, in the order logged. */
async function* entries(exchanges: RunExchanges): AsyncGenerator<string> {
  for (const file of logFiles(exchanges.dir)) {
    const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
    for await (const line of lines) {
      if (line === '') continue;
      const { id, ...exchange } = JSON.parse(line) as LoggedExchange;
      yield JSON.stringify(harEntry(exchange, exchanges.checksOf.get(id) ?? [], id));
    }
  }
}

/** Writes `path` atomically (src/report/atomic.ts) from what `write` puts, in batches; its SHA-256 and size. */
async function writeStreamed(
  path: string,
  write: (put: (text: string) => Promise<void>) => Promise<void>,
): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  await writeAtomicallyWith(path, async (handle) => {
    let buffer: string[] = [];
    let buffered = 0;
    const drain = async (): Promise<void> => {
      const text = buffer.join('');
      buffer = [];
      buffered = 0;
      hash.update(text, 'utf8');
      bytes += Buffer.byteLength(text, 'utf8');
      await handle.write(text, null, 'utf8');
    };
    await write(async (text) => {
      buffer.push(text);
      buffered += text.length;
      if (buffered >= 256 * 1024) await drain();
    });
    await drain();
  });
  return { sha256: hash.digest('hex'), bytes };
}

/** report.har: every exchange of the run, each naming its checks. */
export async function writeHarFile(report: RunReport, exchanges: RunExchanges, path: string): Promise<void> {
  await writeStreamed(path, async (put) => {
    const head = {
      version: '1.2',
      creator: { name: report.tool.name, version: report.tool.version },
      comment: `${report.target.baseUrl}: every exchange of the run (redacted, bodies cut at the recording limit), each naming the checks that used it (_checks)`,
    };
    await put(`{\n  "log": ${JSON.stringify(head).slice(0, -1)},\n    "entries": [`);
    let first = true;
    for await (const entry of entries(exchanges)) {
      await put(`${first ? '\n' : ',\n'}      ${entry}`);
      first = false;
    }
    await put(`${first ? '' : '\n    '}]\n  }\n}\n`);
  });
}

/** A bundle's exchanges.jsonl: one HAR entry per line; its SHA-256 and size, for the manifest. */
export async function writeExchangesJsonl(
  exchanges: RunExchanges,
  path: string,
): Promise<{ sha256: string; bytes: number }> {
  return writeStreamed(path, async (put) => {
    for await (const entry of entries(exchanges)) await put(`${entry}\n`);
  });
}
