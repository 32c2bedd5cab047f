/**
 * The pairs of rules whose order the spec leaves open (issue 41 item 4), as checks of two defects
 * at once judge them (src/battery/precedence.ts) and a certification profile pins them
 * (`precedence`, src/certification/verify.ts): for each pair, the checks that observe which rule
 * the target answered for, and the choices it can make.
 */

/** Whose rule an answer followed: Accept-Version's, the unknown tenant's, authentication's, or both at once. */
export type PrecedenceChoice = 'version' | 'tenant' | 'auth' | 'both';

export const PRECEDENCE_PAIRS = {
  versionAndAuth: {
    checks: ['VERSION-AND-AUTH-MISSING', 'WRITE-VERSION-AND-AUTH-MISSING'],
    choices: ['version', 'auth'],
  },
  tenantAndAuth: {
    checks: ['TENANT-UNKNOWN-NO-AUTH', 'WRITE-TENANT-UNKNOWN-NO-AUTH'],
    choices: ['tenant', 'auth'],
  },
} as const;

export type PrecedencePairName = keyof typeof PRECEDENCE_PAIRS;

/** A choice in words: "Accept-Version's answer (400)". */
export const CHOICE_WORDS: Readonly<Record<PrecedenceChoice, string>> = {
  version: "Accept-Version's answer (400)",
  tenant: "the unknown tenant's answer (403 or 404)",
  auth: "authentication's answer (a refusal with a Bearer challenge)",
  both: 'an answer both rules allow (403 or 404, or 400, with a Bearer challenge)',
};
