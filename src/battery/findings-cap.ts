/**
 * Findings listed per endpoint and per check; the rest are counted. A list of 10 000 pages that
 * all break one rule must not make a report of 10 000 findings (nor keep 10 000 exchanges): the
 * first of them show the problem, and the count says how widespread it is. The first failure of
 * a check is always listed, so that the check is reported as failed, not as an error.
 */
export const FINDINGS_PER_ENDPOINT = 25;
export const FINDINGS_PER_CHECK = 100;
