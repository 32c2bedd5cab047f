import type { DocumentSection } from '../model/run-report.js';
import { resolve } from 'node:path';
import { DOCUMENT_LIMITS } from '../openapi/document-files.js';
import type { DocumentAsRead } from '../openapi/load.js';
import { lint, lintRead } from './command.js';
import { LINT_RULES } from './rules.js';

/**
 * `run --openapi FILE` lints the document it tests against (issue 33), where it reads it: on the
 * document's thread (src/runner/document-worker.ts), or in this one when run from the sources. The
 * findings are the lint command's, located the same way (src/lint/locate.ts), so that the run's
 * report and `carrier-conformance lint FILE` say the same of the same document.
 *
 * The document was already read for the run, so a failure here is not the run's: the section
 * says why it has no findings, and the run goes on.
 */
export async function lintForRun(
  file: string,
  root: string | undefined,
  read?: DocumentAsRead,
): Promise<DocumentSection> {
  try {
    // The document the run read (one read: the endpoints and the findings come from the same
    // bytes); read again only when none is given.
    const report =
      read === undefined
        ? await lint([file], { root })
        : lintRead({ file, path: resolve(file), ...read, limits: DOCUMENT_LIMITS });
    const notListed = (report.notListed ?? []).map(({ rule, count }) => ({ rule, count }));
    return {
      file,
      rules: LINT_RULES.length,
      findings: report.findings.map(({ document: _document, ...finding }) => finding),
      ...(notListed.length > 0 ? { notListed } : {}),
    };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { file, rules: LINT_RULES.length, findings: [], error: message.replace(/\s+/g, ' ').trim().slice(0, 300) };
  }
}
