import type { RunReport } from '../model/run-report.js';

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

/**
 * The implementation a report is of, as the run was told it (--target-name, --target-version,
 * --operator): "Acme Carrier 2.1, operated by Acme Ops". Undefined when the run was told none of
 * them (the name is then only the base URL's host), so that such reports keep naming the base URL alone.
 */
export function implementationLabel(report: Pick<RunReport, 'target'>): string | undefined {
  const { name, version, operator, baseUrl } = report.target;
  if ((name === undefined || name === hostOf(baseUrl)) && version === undefined && operator === undefined)
    return undefined;
  const named = [targetName(report), version].filter((part) => part !== undefined && part !== '').join(' ');
  return operator === undefined ? named : `${named}, operated by ${operator}`;
}
