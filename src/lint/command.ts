import { writeFileSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { LINT_RULES } from './rules.js';
import { fails, LINT_FORMATS, render, renderConsole, shownPath, type LintFinding, type LintFormat, type LintReport } from './format.js';
import { Locator } from './locate.js';
import { readForLint, type ReadOptions } from './read.js';
import { lintDocument } from './rules.js';

/**
 * `carrier-conformance lint FILE…` (issue 33): the platform's conventions checked in OpenAPI
 * documents. Exit codes as `run`'s: 0 when no MUST rule has a finding (SHOULD ones are warnings,
 * failures with --strict), 1 when one does, 2 when a document cannot be read (one line on stderr).
 */

export interface LintOptions extends ReadOptions {
  format?: LintFormat;
  output?: string | undefined;
  strict?: boolean;
}

interface IO {
  out: (text: string) => void;
  err: (text: string) => void;
}

const levelOf = new Map<string, (typeof LINT_RULES)[number]['level']>(LINT_RULES.map((r) => [r.id, r.level]));

/** Lints the documents; every finding located in the file it was written in. */
export async function lint(files: readonly string[], options: LintOptions = {}): Promise<LintReport> {
  const findings: LintFinding[] = [];
  for (const file of files) {
    const document = await readForLint(file, options);
    const locator = new Locator(document);
    const raw = lintDocument(document.bundled).map((f) => {
      // A converted Swagger 2.0 document: the finding where the 2.0 document wrote it, or, for a
      // place the conversion made, its closest one, said in the message.
      const source = document.sourcePointer(f.pointer);
      const message = source.exact ? f.message : `${f.message} (located at the closest place the Swagger 2.0 document has)`;
      return { ...f, message, at: locator.trace(source.pointer) };
    });
    for (const f of raw) locator.request(f.at);
    locator.resolveLines();
    for (const f of raw) {
      const at = locator.locate(f.at);
      findings.push({
        document: file,
        rule: f.rule,
        level: levelOf.get(f.rule) ?? 'MUST',
        message: f.message,
        file: shownPath(at.path),
        pointer: at.pointer,
        ...(at.line === undefined ? {} : { line: at.line }),
        ...(at.column === undefined ? {} : { column: at.column }),
      });
    }
  }
  // One finding per place: a schema used by many operations is reported where it is written, once.
  const seen = new Set<string>();
  const unique = findings.filter((f) => {
    const key = `${f.document}\u0000${f.rule}\u0000${f.file}\u0000${f.pointer}\u0000${f.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return { documents: [...files], findings: unique, strict: options.strict === true };
}

export async function lintCommand(files: readonly string[], options: LintOptions, io: IO): Promise<number> {
  const format = options.format ?? 'console';
  if (!(LINT_FORMATS as readonly string[]).includes(format)) throw new UsageError(`--format ${String(format)}: give one of ${LINT_FORMATS.join(', ')}`);
  if (files.length === 0) throw new UsageError('lint: give one or more OpenAPI documents');
  const report = await lint(files, options);
  const text = render(report, format);
  if (options.output !== undefined) {
    try {
      writeFileSync(options.output, text);
    } catch (err) {
      throw new UsageError(`--output ${options.output}: cannot write it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
    // The log still shows what was found; the file is for the tool that reads it.
    if (format !== 'console') io.out(renderConsole(report));
  } else {
    io.out(text);
  }
  return report.findings.some((f) => fails(f, report.strict)) ? ExitCode.NonConformant : ExitCode.Conformant;
}
