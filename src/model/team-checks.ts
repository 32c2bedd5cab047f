/**
 * A platform team's own checks (`--team-checks FILE`, issue 42 item 5): rules of the team's
 * beyond the spec (a header every answer carries, an error body's shape), run by the battery on
 * every endpoint or every list through the same HTTP layer as the catalogue's checks, reported
 * as they are, and kept apart from the spec's verdict (docs/team-checks.md).
 *
 * Plain types, no zod: the battery's workers load this.
 */

/** What a team check is applied to: every GET endpoint the run tests, or the tenant lists only. */
export const TEAM_CHECK_TARGETS = ['endpoints', 'lists'] as const;
export type TeamCheckTarget = (typeof TEAM_CHECK_TARGETS)[number];

/** A team check as its module declares it, without its function: what the runner and the reports know of it. */
export interface TeamCheckInfo {
  /** Upper-case words joined by "-", as the catalogue's; never one of the catalogue's ids. */
  id: string;
  level: 'MUST' | 'SHOULD';
  title: string;
  /** Where the team's rule is written (a handbook section, a URL): the report cites it as a check's spec reference. */
  reference: string;
  on: TeamCheckTarget;
}

/** A module of team checks, as the runner loaded it: its absolute path and its checks, in order. */
export interface TeamModule {
  file: string;
  checks: TeamCheckInfo[];
}

/** A module's checks as it exports them: `export default [...]` or `export const checks = [...]`. */
export function exportedChecks(exported: Record<string, unknown>): unknown {
  return exported.default ?? exported.checks;
}
