/**
 * The process exit codes: the one place they are defined. The README and `--help` print
 * `EXIT_CODES_HELP`, so the documentation cannot drift from the code.
 */
export const ExitCode = {
  /**
   * Every required (MUST) check that was carried out passed; with --strict, every SHOULD check
   * too. The verdict says which checks were carried out (src/report/verdict.ts).
   */
  Conformant: 0,
  /**
   * One or more required checks failed, or could not be carried out (error; with
   * --require-complete, a skipped one too); or --strict-baseline found entries that now pass.
   */
  NonConformant: 1,
  /**
   * Usage or configuration error: one line on stderr says what and how to fix it. Client
   * credentials that the token endpoint refuses are one, and so is a token endpoint that answers
   * 404 (src/runner/preflight.ts).
   */
  Usage: 2,
  /** The run could not be carried out: target unreachable (a gateway's 502/504 included), run aborted or interrupted, or no check carried out. */
  Incomplete: 3,
  /**
   * `verify-bundle` only: the bundle is complete, consistent and conformant, but no key the
   * verifier trusts signed it (no --public-key, or none of the keys given). Anyone can make such a
   * bundle from scratch, unsigned or signed with a key of their own, so it is never 0: a gate
   * reads exit codes, not caveats. No `run` ends with it.
   */
  SignerNotProven: 4,
  /**
   * `run` only: the main job of a two-job expiry proof. Nothing failed, and the only required
   * checks not carried out are EXPIRY-* ones this run did not wait out (--max-expiry-wait below
   * the token's expires_in): the expiry job (`run --suite expiry`, then `combine-bundles`) proves
   * them. A CI step allows exactly this (`|| test $? -eq 5`), never a failure (issue 39 item 5).
   */
  ExpiryLeft: 5,
  /**
   * `run` only, with --team-checks: the spec's verdict would exit 0 (or 5), and a team check
   * blocks: a MUST one failed or erred (with --strict, a SHOULD one failed). The verdict is still
   * the spec's (CONFORMANT): the team's rules are the team's gate, not the spec's (issue 42 item 5).
   */
  TeamChecksFailed: 6,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

export const EXIT_CODES_HELP = [
  'Exit codes:',
  `  ${ExitCode.Conformant}  every required check that was carried out passed (the verdict says which were)`,
  `  ${ExitCode.NonConformant}  one or more required checks failed or could not be carried out`,
  `  ${ExitCode.Usage}  usage or configuration error (credentials refused, 404 at the token endpoint)`,
  `  ${ExitCode.Incomplete}  the run could not be carried out (target unreachable, run aborted, no check carried out)`,
  `  ${ExitCode.ExpiryLeft}  nothing failed; only EXPIRY-* were not waited out (a two-job expiry proof's main job)`,
  `  ${ExitCode.TeamChecksFailed}  the spec found nothing wrong, but a check of --team-checks failed or could not be carried out`,
].join('\n');

/** `run --compare-with`: the exit code says whether anything got worse. */
export const COMPARE_EXIT_CODES_HELP = [
  `With --compare-with OLD: ${ExitCode.NonConformant} when a check regressed since OLD, else ${ExitCode.Conformant} (${ExitCode.Usage}, ${ExitCode.Incomplete} and ${ExitCode.TeamChecksFailed} as above)`,
].join('\n');

/** `diff OLD NEW`. */
export const DIFF_EXIT_CODES_HELP = [
  'Exit codes:',
  `  ${ExitCode.Conformant}  nothing regressed`,
  `  ${ExitCode.NonConformant}  a check regressed: passed or warning before, failed or error now; or a MUST check no longer run`,
  `  ${ExitCode.Usage}  unusable input: a file that is missing, too large or not a report.json (one line on stderr)`,
].join('\n');

/** `matrix REPORT…`. */
export const MATRIX_EXIT_CODES_HELP = [
  'Exit codes:',
  `  ${ExitCode.Conformant}  the matrix was written (whatever the targets' verdicts: each target's own run is its gate)`,
  `  ${ExitCode.Usage}  reports that cannot be combined (different catalogues, one target twice) or read, or --out not writable`,
].join('\n');

/** `verify-bundle DIR`. */
export const VERIFY_EXIT_CODES_HELP = [
  'Exit codes:',
  `  ${ExitCode.Conformant}  the bundle is complete, untampered, conformant and signed by the key given with --public-key (or one of --trusted-keys); with --profile, every item of the profile proven`,
  `  ${ExitCode.NonConformant}  it is not: every finding is printed (a file changed, a MUST check missing, skipped, errored or failed, an item of --profile not proven, …)`,
  `  ${ExitCode.Usage}  DIR is not a directory, or --public-key, --trusted-keys or --profile cannot be used (one line on stderr)`,
  `  ${ExitCode.SignerNotProven}  consistent and conformant, signer not proven: no --public-key nor --trusted-keys given, so anyone could have made it`,
].join('\n');

/** `lint FILE…`: as `run`'s, a finding of a rule in place of a failed check. */
export const LINT_EXIT_CODES_HELP = [
  'Exit codes:',
  `  ${ExitCode.Conformant}  no MUST rule has a finding (SHOULD findings are warnings; with --strict they fail too)`,
  `  ${ExitCode.NonConformant}  a MUST rule has a finding (with --strict, any rule)`,
  `  ${ExitCode.Usage}  a document cannot be read: missing, not Swagger 2.0 or OpenAPI 3.0-3.2, a $ref outside the root, over a limit (one line on stderr)`,
].join('\n');

/** `traffic FILE…` (issue 43): as `run`'s, judged on what the captures show. */
export const TRAFFIC_EXIT_CODES_HELP = [
  'Exit codes:',
  `  ${ExitCode.Conformant}  no required check failed on what the captures show (the verdict says which checks they observed)`,
  `  ${ExitCode.NonConformant}  a required check failed on a captured exchange (with --strict, a SHOULD one too)`,
  `  ${ExitCode.Usage}  a capture cannot be read: missing, not a regular file, over a limit, no HAR nor exchange records (one line on stderr)`,
  `  ${ExitCode.Incomplete}  nothing in the captures could be judged, or --deadline or a signal stopped the judging`,
].join('\n');
