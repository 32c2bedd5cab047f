import type { Standing, Tally } from './combine.js';

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
  const badge = (message: string, color: Badge['color']): Badge => ({ schemaVersion: 1, label: 'conformance', message, color });
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
