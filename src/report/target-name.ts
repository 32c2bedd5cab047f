import type { RunReport } from './model.js';

/** The host (with port) of a URL, or the text itself when it is not one (a placeholder). */
export function hostOf(url: string): string {
  try {
    return new URL(url).host || url;
  } catch {
    return url;
  }
}

/**
 * What diffs, matrices, badges and bundles call a report's target: the recorded --target-name,
 * else the base URL's host (the default `run` records too, and all older reports get).
 */
export function targetName(report: Pick<RunReport, 'target'>): string {
  return report.target.name ?? hostOf(report.target.baseUrl);
}
