/** How a check ends when it does not pass; the collector tells them apart by the findings' kinds. */

/** A prerequisite of the check is missing (no token, no tenant): the check errors, it does not fail. */
export class PrerequisiteError extends Error {
  override name = 'PrerequisiteError';
}

/** Thrown at the end of a check with failures, so that Vitest marks the test failed. */
export class NonConformance extends Error {
  override name = 'NonConformance';
}

/** Thrown at the end of a check that could not be carried out. */
export class CheckError extends Error {
  override name = 'CheckError';
}
