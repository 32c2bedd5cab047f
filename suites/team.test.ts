/**
 * team: the platform team's own checks (--team-checks, docs/team-checks.md), beside the spec's.
 * Nothing here is the spec's: the runner reports these apart, and never in the verdict.
 */
import { registerTeamChecks } from '../src/battery/team.js';

await registerTeamChecks();
