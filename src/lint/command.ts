import { writeFileSync } from 'node:fs';
import { UsageError } from '../core/errors.js';
import { urlInsteadOfFile } from '../core/files.js';
import { ExitCode } from '../core/exit-codes.js';
import type { WorkflowCommand } from '../core/console-safety.js';
import { LINT_RULES } from './rules.js';
import { capFindings, FindingSink, type Placed } from './caps.js';
import {
  annotations,
  failsAny,
  LINT_FORMATS,
  render,
  renderConsole,
  renderStylish,
  shownPath,
  type LintFinding,
  type LintFormat,
  type LintReport,
  type NotListed,
} from './outputs.js';
import { Locator } from './locate.js';
import { readForLint, type ReadDocument, type ReadOptions } from './read.js';
import { lintDocument, oneFindingPerMistake } from './rules.js';
import { applyWaivers, loadWaivers } from './waivers.js';

/**
 * `carrier-conformance lint FILE…` (issue 33): the platform's conventions checked in OpenAPI
 * documents. Exit codes as `run`'s: 0 when no MUST rule has a finding (SHOULD ones are warnings,
 * failures with --strict), 1 when one does, 2 when a document cannot be read (one line on stderr).
 */

export interface LintOptions extends ReadOptions {
  format?: LintFormat;
  output?: string | undefined;
  strict?: boolean;
  /** A file of findings the team accepts, with their reasons (src/lint/waivers.ts). */
  waivers?: string | undefined;
}

interface IO {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Workflow commands (src/core/console-safety.ts): `--format github-actions` writes its annotations so. */
  command?: (c: WorkflowCommand) => void;
}

/** A listed finding as the report has it: its place was for the caps. */
function withoutPlace(f: LintFinding & Placed): LintFinding {
  const finding: LintFinding & Partial<Placed> = { ...f };
  delete finding.place;
  return finding;
}

const levelOf = new Map<string, (typeof LINT_RULES)[number]['level']>(LINT_RULES.map((r) => [r.id, r.level]));

/**
 * Lints the documents; every finding located in the file it was written in. What is listed is
 * capped per rule and per place, the rest counted (src/lint/caps.ts).
 */
export async function lint(files: readonly string[], options: LintOptions = {}): Promise<LintReport> {
  // Read first: a mistake in it is exit 2 before any document is read.
  const waivers = options.waivers === undefined ? undefined : loadWaivers(options.waivers);
  const findings: LintFinding[] = [];
  const notListed: NotListed[] = [];
  for (const file of files) {
    const one = lintRead(await readForLint(file, options));
    findings.push(...one.findings);
    notListed.push(...one.notListed);
  }
  const report: LintReport = { documents: [...files], findings, notListed, strict: options.strict === true };
  if (waivers === undefined || options.waivers === undefined) return report;
  const applied = applyWaivers(findings, waivers);
  return {
    ...report,
    findings: applied.findings,
    waived: applied.waived,
    unusedWaivers: applied.unused,
    waiversFile: options.waivers,
  };
}

/** Lints one document as read (readForLint, or the run's own read of it: src/lint/in-run.ts). */
export function lintRead(document: ReadDocument): { findings: LintFinding[]; notListed: NotListed[] } {
  const file = document.file;
  const findings: LintFinding[] = [];
  const notListed: NotListed[] = [];
  {
    const locator = new Locator(document);
    const sink = new FindingSink();
    lintDocument(document.bundled, sink);
    const traced = oneFindingPerMistake(sink.kept).map((f) => {
      // A converted Swagger 2.0 document: the finding where the 2.0 document wrote it, or, for a
      // place the conversion made, its closest one, said in the message.
      const source = document.sourcePointer(f.pointer);
      const message = source.exact
        ? f.message
        : `${f.message} (located at the closest place the Swagger 2.0 document has)`;
      return { ...f, message, at: locator.trace(source.pointer) };
    });
    for (const f of traced) locator.request(f.at);
    locator.resolveLines();
    // One finding per place: a schema used by many operations is reported where it is written, once.
    const seen = new Set<string>();
    const located: (LintFinding & Placed)[] = [];
    for (const f of traced) {
      const at = locator.locate(f.at);
      const shown = shownPath(at.path);
      const key = `${f.rule}\u0000${shown}\u0000${at.pointer}\u0000${f.message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      located.push({
        document: file,
        rule: f.rule,
        level: levelOf.get(f.rule) ?? 'MUST',
        message: f.message,
        file: shown,
        pointer: at.pointer,
        ...(at.line === undefined ? {} : { line: at.line }),
        ...(at.column === undefined ? {} : { column: at.column }),
        place: at.line === undefined ? `${shown} ${at.pointer}` : `${shown}:${at.line}`,
      });
    }
    const capped = capFindings(located);
    for (const f of capped.listed) findings.push(withoutPlace(f));
    const counts = new Map(capped.notListed);
    for (const [rule, n] of sink.dropped()) counts.set(rule, (counts.get(rule) ?? 0) + n);
    for (const rule of LINT_RULES) {
      const count = counts.get(rule.id) ?? 0;
      if (count > 0) notListed.push({ document: file, rule: rule.id, count });
    }
  }
  return { findings, notListed };
}

export async function lintCommand(files: readonly string[], options: LintOptions, io: IO): Promise<number> {
  const format = options.format ?? 'console';
  if (!(LINT_FORMATS as readonly string[]).includes(format))
    throw new UsageError(`--format ${String(format)}: give one of ${LINT_FORMATS.join(', ')}`);
  if (files.length === 0) throw new UsageError('lint: give one or more OpenAPI documents');
  for (const file of files) {
    const url = urlInsteadOfFile(file, 'lint');
    if (url !== undefined) throw new UsageError(`lint: ${url}`);
  }
  const report = await lint(files, options);
  const text = render(report, format);
  if (options.output !== undefined) {
    try {
      writeFileSync(options.output, text);
    } catch (err) {
      throw new UsageError(
        `--output ${options.output}: cannot write it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      );
    }
    // The log still shows what was found; the file is for the tool that reads it.
    if (format !== 'console') io.out(renderConsole(report));
  } else if (format === 'github-actions') {
    // The annotations through the one trusted path for workflow commands, then the summary for the log.
    for (const c of annotations(report)) io.command?.(c);
    io.out(renderStylish(report));
  } else {
    io.out(text);
  }
  return failsAny(report) ? ExitCode.NonConformant : ExitCode.Conformant;
}
