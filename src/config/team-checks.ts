import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { findCheck } from '../catalogue/index.js';
import { checkIdSchema } from '../catalogue/schema.js';
import { RunAbortedError, UsageError } from '../core/errors.js';
import { readRegularFile } from '../core/files.js';
import { untilStopped } from '../core/until-stopped.js';
import { didYouMean } from '../core/suggest.js';
import { z } from '../core/zod.js';
import { exportedChecks, TEAM_CHECK_TARGETS, type TeamModule } from '../model/team-checks.js';

/**
 * Loads the modules of `--team-checks` (docs/team-checks.md): each exports its checks, as
 * `export default [...]` or `export const checks = [...]`. A module is the operator's own code,
 * named on their command line or in their config, as trusted as the command itself; it is
 * loaded here to be checked, then by the battery's worker that runs it.
 *
 * Anything wrong with a module is one line and exit 2, before the run: a team check that cannot
 * run must not look like one that passed.
 */

const FIELDS = ['id', 'level', 'title', 'reference', 'on', 'check'];

const teamCheckSchema = z
  .object({
    id: checkIdSchema,
    level: z.enum(['MUST', 'SHOULD'], { error: 'must be "MUST" or "SHOULD"' }),
    title: z.string({ error: 'must be a string' }).trim().min(1, { error: 'must not be empty' }),
    reference: z.string({ error: 'must be a string' }).trim().min(1, { error: 'must say where the rule is written' }),
    on: z.enum(TEAM_CHECK_TARGETS, { error: `must be ${TEAM_CHECK_TARGETS.join(' or ')}` }).default('endpoints'),
    check: z.custom<(...args: unknown[]) => unknown>((v) => typeof v === 'function', {
      error: 'must be a function: async check(endpoint, t) { … }',
    }),
  })
  .strict();

/** The JavaScript Node loads as it is; TypeScript needs compiling first (Node 20 does not strip types). */
const LOADABLE = new Set(['.js', '.mjs', '.cjs']);

/** Generous for a module of rules; a limit all the same, as for every file the harness reads. */
const MODULE_LIMIT = { maxBytes: 4 * 1024 * 1024, of: 'a team checks module' };

/**
 * `signal` (the run's --deadline, Ctrl-C) stops the wait for a module whose loading does not end
 * (a top-level await that never settles): the run ends with the reason instead of hanging.
 */
export async function loadTeamChecks(files: readonly string[], signal?: AbortSignal): Promise<TeamModule[]> {
  const modules: TeamModule[] = [];
  const seen = new Map<string, string>();
  for (const given of files) {
    const what = `--team-checks ${given}`;
    const file = resolve(given);
    // A regular file, as every file the harness opens (a FIFO would block the import).
    readRegularFile(file, '--team-checks', MODULE_LIMIT);
    if (!LOADABLE.has(extname(file)))
      throw new UsageError(
        `${what}: not a JavaScript module (.js, .mjs or .cjs); a TypeScript module must be compiled first`,
      );
    let exported: Record<string, unknown>;
    try {
      exported = (await untilStopped(import(pathToFileURL(file).href), signal)) as Record<string, unknown>;
    } catch (err) {
      if (err instanceof RunAbortedError) throw new RunAbortedError(`${what}: ${err.message}, while it was loading`);
      throw new UsageError(`${what}: cannot load it: ${oneLine(err)}`);
    }
    const list = exportedChecks(exported);
    if (!Array.isArray(list))
      throw new UsageError(
        `${what}: exports no checks; export them as an array: export default [{ id, level, title, reference, on, check }]`,
      );
    if (list.length === 0) throw new UsageError(`${what}: its array of checks is empty`);
    const checks = list.map((raw: unknown, i) => {
      const where = `${what}: check ${i + 1}${typeof (raw as { id?: unknown })?.id === 'string' ? ` (${(raw as { id: string }).id})` : ''}`;
      // A misspelt field first: `refrence` is what to fix, not the `reference` it leaves missing.
      const unknown =
        raw !== null && typeof raw === 'object' ? Object.keys(raw).find((k) => !FIELDS.includes(k)) : undefined;
      if (unknown !== undefined)
        throw new UsageError(
          `${where}: unknown field "${unknown}"${didYouMean(unknown, FIELDS)}; the fields are ${FIELDS.join(', ')}`,
        );
      const parsed = teamCheckSchema.safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const field = issue?.path[0];
        throw new UsageError(
          `${where}: ${field === undefined ? 'must be an object' : `"${String(field)}" ${issue?.message ?? 'is invalid'}`}`,
        );
      }
      const { id, level, title, reference, on } = parsed.data;
      if (findCheck(id) !== undefined)
        throw new UsageError(`${where}: ${id} is a check of the catalogue; a team check needs an id of its own`);
      const earlier = seen.get(id);
      if (earlier !== undefined) throw new UsageError(`${where}: the id ${id} is taken already, in ${earlier}`);
      seen.set(id, given);
      return { id, level, title, reference, on };
    });
    modules.push({ file, checks });
  }
  return modules;
}

/** An error as one line: a module's syntax error comes with the source line and a caret. */
function oneLine(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text.split('\n')[0] ?? text;
}
