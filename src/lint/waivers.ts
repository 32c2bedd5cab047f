import { UsageError } from '../core/errors.js';
import { FILE_LIMITS, readJsonFile } from '../core/files.js';
import { didYouMean } from '../core/suggest.js';
import { oneLine, printable } from '../core/wording.js';
import { z } from '../core/zod.js';
import { LINT_RULES } from './rules.js';
import type { LintFinding } from './outputs.js';

/**
 * Waived lint findings (`lint --waivers FILE`, issue 42 item 6): the team's own file of findings it
 * accepts, each with the reason, as Spectral's `overrides` or a lint baseline. A waived finding
 * fails nothing and is still reported as waived (the console, stylish, JSON, SARIF as a suppressed
 * result, which code scanning closes; JUnit's count); a waiver that matches no finding is reported
 * so that it can go.
 *
 *   {"waivers": [{"rule": "OAS-NULLABLE", "file": "openapi.yaml",
 *                 "pointer": "/components/schemas/Invoice/properties/note", "reason": "PLAT-7: …"}]}
 *
 * `file` (as lint shows it: relative to the working directory) and `pointer` narrow it; without
 * them a waiver holds for the rule in every file, or everywhere in the file.
 */

const RULE_IDS = LINT_RULES.map((r) => r.id as string);

const waiverSchema = z
  .object({
    waivers: z.array(
      z
        .object({
          rule: z.string().refine((id) => RULE_IDS.includes(id), {
            error: (issue) =>
              `unknown rule ${JSON.stringify(issue.input)}${didYouMean(String(issue.input), RULE_IDS, (id) => JSON.stringify(id))}`,
          }),
          file: z.string().min(1).optional(),
          pointer: z.string().optional(),
          reason: z.string().trim().min(1, { error: 'needs a reason: why is this finding accepted?' }),
        })
        .strict(),
      { error: 'must be a list of waivers' },
    ),
  })
  .strict();

export type Waiver = z.output<typeof waiverSchema>['waivers'][number];

/** Reads a --waivers file; a mistake is one line (exit 2). */
export function loadWaivers(path: string): Waiver[] {
  const raw = readJsonFile(path, 'waivers file', FILE_LIMITS.baseline);
  const result = waiverSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    const problem =
      issue?.code === 'unrecognized_keys'
        ? `unknown key ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`
        : (issue?.message ?? 'invalid');
    throw new UsageError(
      `--waivers ${path}: ${where}${oneLine(printable(problem), 200)}; expected {"waivers": [{"rule": "ID", "file": "openapi.yaml", "pointer": "/…", "reason": "why"}]}`,
    );
  }
  return result.data.waivers;
}

const matches = (w: Waiver, f: LintFinding): boolean =>
  w.rule === f.rule &&
  (w.file === undefined || w.file === f.file) &&
  (w.pointer === undefined || w.pointer === f.pointer);

/** The findings split into those that stand and those a waiver accepts; the waivers that matched nothing. */
export function applyWaivers(
  findings: readonly LintFinding[],
  waivers: readonly Waiver[],
): { findings: LintFinding[]; waived: { finding: LintFinding; reason: string }[]; unused: Waiver[] } {
  const used = new Set<Waiver>();
  const standing: LintFinding[] = [];
  const waived: { finding: LintFinding; reason: string }[] = [];
  for (const finding of findings) {
    const waiver = waivers.find((w) => matches(w, finding));
    if (waiver === undefined) standing.push(finding);
    else {
      used.add(waiver);
      waived.push({ finding, reason: waiver.reason });
    }
  }
  return { findings: standing, waived, unused: waivers.filter((w) => !used.has(w)) };
}
