import { ExitCode } from '../core/exit-codes.js';
import { main } from './main.js';
import { mark } from '../core/startup-timing.js';
import { keepHeapsNearWhatTheyHold } from './heap.js';
import { keepWebAssemblyInItsBaselineTier } from './wasm-tiering.js';
import { startEarlyWorker } from '../runner/early-worker.js';

mark('cli: modules loaded');
// Now, with the CLI's modules loaded and before Vitest loads and starts its workers (see heap.ts).
keepHeapsNearWhatTheyHold();
// Before undici compiles its HTTP parser, in this thread or another (see wasm-tiering.ts).
keepWebAssemblyInItsBaselineTier();

/** Process glue: the real streams, signals, and the exit code set once the run has ended. */

// A reader that went away (`carrier-conformance run | head -3`) is not an error worth a stack
// trace, nor a reason to stop: the run goes on without that stream, and the exit code is still the
// verdict (CI scripts pipe the output and read the code). Any other write error ends the stream too,
// said once on the other one: a failed console line must not cost the report or the exit code.
const outputStreams = [process.stdout, process.stderr];
for (const stream of outputStreams) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE' || stream !== process.stdout) return;
    writeTo(
      process.stderr,
      `carrier-conformance: standard output failed (${err.code ?? err.message}); the run goes on without it\n`,
    );
  });
}

/** Writes unless the stream is gone (destroyed by a write error, or ended). */
function writeTo(stream: NodeJS.WriteStream, text: string): void {
  if (stream.writable) stream.write(text);
}

/** Resolves once what was written to `stream` is handed to the OS, or at once if the stream is gone. */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  if (!stream.writable) return Promise.resolve();
  return new Promise((resolve) => {
    // The callback runs on an error too; 'close' covers a stream destroyed while waiting.
    stream.write('', () => resolve());
    stream.once('close', () => resolve());
  });
}

// A run of the battery (`run`, or no command at all: `run` is the default; not its help) needs
// Vitest: its loading starts now, while the options are parsed and the target resolved, and the
// battery's worker thread boots meanwhile on the other core (src/runner/early-worker.ts). The
// other commands (list, diff, matrix, verify-bundle, serve) need neither.
const command = process.argv[2];
const runsBattery =
  (command === undefined || command === 'run' || command.startsWith('-')) &&
  !process.argv.some((a) => ['--help', '-h', '--version'].includes(a));
if (runsBattery) {
  startEarlyWorker();
  void import('vitest/node').catch(() => undefined);
}

// The first Ctrl-C or SIGTERM stops the run and writes a partial report; a second one quits at once.
// Only `run` and `serve` have something to finish: every other command (verify-bundle, matrix,
// combine-bundles, diff, lint, list) keeps the default, which ends the process at once, even in
// the middle of a long synchronous step (issue 39 item 9: verify-bundle ignored Ctrl-C for minutes).
const interrupt = new AbortController();
const finishes = runsBattery || command === 'run' || command === 'serve';
for (const signal of finishes ? (['SIGINT', 'SIGTERM'] as const) : []) {
  process.on(signal, () => {
    if (interrupt.signal.aborted) process.exit(ExitCode.Incomplete);
    // Only a run has a report to finish; serve just stops its server.
    const what = command === 'serve' ? 'stopping the reference server' : 'stopping; the report will say what ran';
    writeTo(process.stderr, `\ncarrier-conformance: ${signal}: ${what} (${signal} again to quit at once)\n`);
    interrupt.abort(`interrupted by ${signal}`);
  });
}

const code = await main(
  process.argv.slice(2),
  {
    out: (text) => writeTo(process.stdout, text),
    err: (text) => writeTo(process.stderr, text.endsWith('\n') ? text : `${text}\n`),
    color: Boolean(process.stdout.isTTY) && !process.env.NO_COLOR,
  },
  interrupt.signal,
).catch(() => ExitCode.Incomplete);

// Exit as soon as the work is done, once stdout and stderr are flushed: worker threads and
// sockets winding down in the background must not hold a CI job (or the benchmark) for longer.
await Promise.all(outputStreams.map(flushed));
mark(`cli: exiting (peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB)`);
process.exit(code);
