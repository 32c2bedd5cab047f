import { ExitCode } from '../exit-codes.js';
import { main } from './main.js';

/** Process glue: the real streams, and the exit code set once the run has ended. */

// A reader that went away (`carrier-conformance list | head`) is not an error worth a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? ExitCode.Conformant);
    throw err;
  });
}

const code = await main(process.argv.slice(2), {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
  color: Boolean(process.stdout.isTTY) && !process.env.NO_COLOR,
}).catch(() => ExitCode.Incomplete);
process.exitCode = code;
