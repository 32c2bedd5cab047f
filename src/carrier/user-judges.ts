import { USER_FIELDS, USER_TENANT_FIELDS, schemaProblems, userSchema } from './schemas.js';

/**
 * The User's rules as pure judges (spec §User, §Generic rules for optional fields 1): one place
 * for the rule and its words, for the battery's user checks (suites/user.test.ts) and for
 * judging captured traffic (src/traffic/), which has the body and nothing to send.
 */

/** USER-SCHEMA: each way the User departs from the documented types. */
export function userSchemaProblems(user: Record<string, unknown>): string[] {
  return schemaProblems(userSchema, user).map((problem) => `User: ${problem}`);
}

/** USER-FIELDS-PRESENT: each documented field omitted, where a field without data must be null. */
export function userFieldProblems(user: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const field of USER_FIELDS)
    if (!(field in user))
      problems.push(`User: the field "${field}" is omitted; a field without data must be sent as null`);
  const tenants = Array.isArray(user.tenants) ? (user.tenants as unknown[]) : [];
  tenants.forEach((tenant, i) => {
    if (tenant === null || typeof tenant !== 'object') return;
    for (const field of USER_TENANT_FIELDS)
      if (!(field in tenant))
        problems.push(`User: tenants[${i}] omits the field "${field}"; a field without data must be sent as null`);
  });
  return problems;
}
