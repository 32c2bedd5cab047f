import { z } from '../core/zod.js';
import { runReportSchema } from '../model/run-report.js';
import type { RunReport } from '../model/run-report.js';

/**
 * `report.json`: the RunReport exactly as `runReportSchema` documents it. The report is validated
 * first so that a bug upstream fails here, loudly, instead of producing a file its consumers
 * (baselines, dashboards) cannot read; parsing also drops keys the schema does not know, so
 * nothing undocumented leaks into the file.
 */
export function renderJsonReport(report: RunReport): string {
  const parsed = runReportSchema.safeParse(report);
  if (!parsed.success) {
    throw new Error(
      `The run report does not match its schema, so report.json was not written:\n${z.prettifyError(parsed.error)}`,
    );
  }
  return `${JSON.stringify(parsed.data, null, 2)}\n`;
}
