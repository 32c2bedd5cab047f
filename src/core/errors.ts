import { ExitCode, type ExitCodeValue } from './exit-codes.js';

/**
 * Errors that end the process with a documented exit code and a one-line message, never a
 * stack trace. Anything else that escapes is a harness bug (see `cli/main.ts`).
 */
export class HarnessExit extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCodeValue,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Bad options, config or input files. The message names the problem and the fix. */
export class UsageError extends HarnessExit {
  constructor(message: string) {
    super(message, ExitCode.Usage);
  }
}

/** The run could not be carried out: the target is unreachable, or the run was aborted. */
export class RunAbortedError extends HarnessExit {
  constructor(message: string) {
    super(message, ExitCode.Incomplete);
  }
}
