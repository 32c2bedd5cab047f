import { ExitCode } from '../exit-codes.js';
import { main } from './main.js';
import { mark } from '../profile.js';

mark('cli: modules loaded');

/** Process glue: the real streams, signals, and the exit code set once the run has ended. */

// A reader that went away (`carrier-conformance list | head`) is not an error worth a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? ExitCode.Conformant);
    throw err;
  });
}

// A run needs Vitest: its loading starts now, while the options are parsed and the target resolved.
if (!['list', 'serve', '--help', '--version', '-h'].includes(process.argv[2] ?? '')) void import('vitest/node').catch(() => undefined);

// The first Ctrl-C or SIGTERM stops the run and writes a partial report; a second one quits at once.
const interrupt = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupt.signal.aborted) process.exit(ExitCode.Incomplete);
    process.stderr.write(`\ncarrier-conformance: ${signal}: stopping; the report will say what ran (${signal} again to quit at once)\n`);
    interrupt.abort(`interrupted by ${signal}`);
  });
}

const code = await main(
  process.argv.slice(2),
  {
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
    color: Boolean(process.stdout.isTTY) && !process.env.NO_COLOR,
  },
  interrupt.signal,
).catch(() => ExitCode.Incomplete);

// Exit as soon as the work is done, once stdout and stderr are flushed: worker threads and
// sockets winding down in the background must not hold a CI job (or the benchmark) for longer.
await Promise.all([process.stdout, process.stderr].map((stream) => new Promise((resolve) => stream.write('', resolve))));
mark(`cli: exiting (peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB)`);
process.exit(code);
