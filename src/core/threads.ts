/** Options only a string entry allows (`node --input-type=module -e …`); a thread with a file entry that inherits them fails (ERR_INPUT_TYPE_NOT_ALLOWED). */
const STRING_ENTRY = ['-e', '--eval', '-p', '--print', '--input-type'];

/**
 * The Node options a thread of the CLI's process (the OpenAPI document's) is started with:
 * `undefined`, so that it inherits the process's options as Node parsed them, V8's
 * (`node --max-old-space-size=4096 …`) included. Given explicitly, a V8 option makes Node refuse
 * the thread (ERR_WORKER_INVALID_EXEC_ARGV), which failed the whole run.
 *
 * Only when the process was started from a string entry (as scripts and the tests run the CLI)
 * does the thread get an explicit list: the process's options without those of the entry. Node
 * may still refuse that list (a V8 option beside `-e`); the caller then does the thread's work
 * itself (document-thread.ts).
 */
export function threadExecArgv(execArgv: readonly string[] = process.execArgv): string[] | undefined {
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i += 1) {
    const arg = execArgv[i] as string;
    if (STRING_ENTRY.includes(arg)) {
      i += 1;
      continue;
    }
    if (/^--(input-type|eval|print)=/.test(arg)) continue;
    out.push(arg);
  }
  // Nothing dropped: no string entry, so the thread inherits.
  return out.length === execArgv.length ? undefined : out;
}
