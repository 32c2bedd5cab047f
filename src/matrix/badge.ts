/** Outcomes of one level's checks on one target; `total` is the catalogue's count, so a subset shows. */
export interface Tally {
  total: number;
  passed: number;
  warning: number;
  failed: number;
  error: number;
  skipped: number;
  expected: number;
  notRun: number;
}

/**
 * Where a target stands, from its MUST checks, in the matrix's own words: `conformant` only when
 * every MUST check of the catalogue passed; `partial` when none failed but some were skipped or not
 * run (a run's verdict may call that conformant: the matrix puts targets side by side, and a
 * target that was checked less must not look like one checked fully); `non-conformant` when one
 * failed or is only accepted by a baseline; `not-proven` when none failed but one could not be
 * carried out (a timeout; with --require-complete, a skip), or the run's verdict is not-proven:
 * not shown red, as if the target broke a rule; `incomplete` when the run could not finish or
 * checked nothing.
 */
export type Standing = 'conformant' | 'partial' | 'non-conformant' | 'not-proven' | 'incomplete';

/**
 * A shields.io endpoint badge (https://shields.io/badges/endpoint-badge): a JSON file that
 * `https://img.shields.io/endpoint?url=<where it is served>` turns into "conformance | 49/49 MUST".
 * The colour says what the numbers cannot: red for a MUST check that failed, errored or is only
 * accepted by a baseline; orange, "not proven", when one could not be carried out and none
 * failed; yellow when MUST checks were not run; green with SHOULD warnings;
 * bright green when everything passed; grey for a run that could not be carried out.
 */

export interface Badge {
  schemaVersion: 1;
  label: string;
  message: string;
  color: 'brightgreen' | 'green' | 'yellow' | 'orange' | 'red' | 'lightgrey';
}

export function badgeOf(standing: Standing, must: Tally, should: Tally): Badge {
  const badge = (message: string, color: Badge['color']): Badge => ({
    schemaVersion: 1,
    label: 'conformance',
    message,
    color,
  });
  const message = `${must.passed}/${must.total} MUST`;
  switch (standing) {
    case 'incomplete':
      return badge('incomplete', 'lightgrey');
    case 'non-conformant':
      return badge(message, 'red');
    case 'not-proven':
      // Not red: nothing shows the target breaks a rule, only that a required check could not run.
      return badge(`not proven, ${message}`, 'orange');
    case 'partial':
      return badge(message, 'yellow');
    case 'conformant':
      return badge(message, should.passed < should.total ? 'green' : 'brightgreen');
  }
}
