/**
 * The Node options a thread of the CLI's process starts with: the process's own, but those that
 * only a string entry allows (`node --input-type=module -e …`, as scripts and the tests run the
 * CLI), which make a thread with a file entry fail (ERR_INPUT_TYPE_NOT_ALLOWED).
 */
export function threadExecArgv(execArgv: readonly string[] = process.execArgv): string[] {
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i += 1) {
    const arg = execArgv[i] as string;
    if (['-e', '--eval', '-p', '--print', '--input-type'].includes(arg)) {
      i += 1;
      continue;
    }
    if (/^--(input-type|eval|print)=/.test(arg)) continue;
    out.push(arg);
  }
  return out;
}
