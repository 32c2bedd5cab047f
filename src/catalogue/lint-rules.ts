import type { Level } from './types.js';

/**
 * The lint rules as data, beside the run's checks (src/catalogue/checks.ts): their ids, levels,
 * titles, spec references and sentences, and how many findings a document lists (the caps). The
 * rules' code is src/lint/rules.ts; the reports (JUnit, the document's section) read only this.
 */

export interface LintRule {
  /** Stable id: the Spectral rule's name too, so both tools' findings read alike. */
  id: string;
  level: Level;
  title: string;
  refs: string[];
  /** The spec's sentence the rule comes from, quoted. */
  sentence: string;
}

export const LINT_RULES = [
  {
    id: 'OAS-VERSION-HEADER',
    level: 'MUST',
    title: 'Every operation declares the Accept-Version request header, required',
    refs: ['spec §Versioning 1', 'spec §Endpoints'],
    sentence: 'Every endpoint requires the request header `Accept-Version`.',
  },
  {
    id: 'OAS-VERSION-400',
    level: 'SHOULD',
    title: 'Every operation documents the 400 a missing or invalid Accept-Version gets',
    refs: ['spec §Versioning 2', 'spec §Errors', 'OAS 3.1 §4.8.16'],
    // SHOULD, not the sentence's MUST: the MUST binds the server's answer; a document that leaves
    // a known error out is incomplete, not wrong (OAS: responses are "expected to cover ... any
    // known errors"). 400 covers both cases: an invalid version may get 404 or 400.
    sentence: 'A missing header gives status `400`. An invalid version can give `404` or `400`.',
  },
  {
    id: 'OAS-BEARER',
    level: 'MUST',
    title: 'Every operation but the token endpoint requires a bearer token (and nothing else instead)',
    refs: ['spec §Authentication 4', 'spec §Endpoints', 'RFC 6750 §2.1'],
    sentence:
      'Every API request other than the token request must carry the header `Authorization: Bearer <ACCESS_TOKEN>` (RFC 6750).',
  },
  {
    id: 'OAS-TOKEN-ENDPOINT',
    level: 'MUST',
    title: 'Tokens come from the client credentials grant at /uaa/oauth2/token',
    refs: ['spec §Obtain an access token', 'spec §Authentication 1'],
    sentence:
      'Method and path: `POST {auth_url}/uaa/oauth2/token`; the client credentials grant (RFC 6749) is used to obtain an access token.',
  },
  {
    id: 'OAS-TENANT-PATH',
    level: 'MUST',
    title: 'Every path but authentication is under /tenants/{tenantId}/ (the parameter by any name)',
    refs: ['spec §Tenant-scoped endpoints', 'spec §Authentication 5'],
    sentence:
      'All endpoints except authentication are within a tenant context; path shape `{base_url}/tenants/{tenantId}/<endpoint_path>`.',
  },
  {
    id: 'OAS-TENANT-UUID',
    level: 'MUST',
    title: 'The tenant path parameter (tenantId, or as the path names it) is declared, a string of format uuid',
    refs: ['spec §Tenant identifier', 'spec §Tenant-scoped endpoints'],
    sentence: 'A tenant is identified by a UUID, used as the `tenantId` path segment.',
  },
  {
    id: 'OAS-PAGE-PARAMS',
    level: 'MUST',
    title: 'Every operation returning multiple elements declares the page and size query parameters, integers',
    refs: ['spec §Pagination'],
    sentence: 'Results are paged. Query parameters: `page` (integer, default 1), `size` (integer).',
  },
  {
    id: 'OAS-PAGE-HEADERS',
    level: 'MUST',
    title: 'Every operation returning multiple elements declares the five paging response headers',
    refs: ['spec §Pagination'],
    sentence: 'Response headers on paged responses: Total-Pages, Page-Size, Page-Number, Total-Elements, Link.',
  },
  {
    id: 'OAS-NULLABLE',
    level: 'MUST',
    title: 'Every optional response property allows null',
    refs: ['spec §Generic rules for optional fields 1'],
    sentence: 'An optional field that has no data is sent as `null`.',
  },
  {
    id: 'OAS-NULL-REQUIRED',
    level: 'SHOULD',
    title: 'Every response property that allows null is listed in required (it is never omitted)',
    refs: ['spec §Generic rules for optional fields 1'],
    // SHOULD: a schema that leaves it out of `required` still accepts every answer the spec
    // allows; it only fails to say that the field is always there.
    sentence: 'An optional field that has no data is sent as `null`.',
  },
  // Schemas no server can satisfy (issue 37 item 8; src/lint/satisfiable.ts). The spec's
  // sentence is JSON Schema's: a response the document describes there fails the document's own
  // schema, so RESOURCE-SCHEMA would fail every deployment; the document is at fault.
  {
    id: 'OAS-ENUM-TYPE',
    level: 'MUST',
    title: "Every enum and const value of a response schema is of the schema's own type",
    refs: ['JSON Schema validation 2020-12 §6.1.1–6.1.3', 'OAS 3.1 §4.8.24'],
    sentence:
      "An instance validates successfully against [enum] if its value is equal to one of the elements in this keyword's array value; [type]: if its JSON type matches the type represented by the value of the string.",
  },
  {
    id: 'OAS-ONEOF-DISTINCT',
    level: 'MUST',
    title: 'The branches of every oneOf in a response schema can be told apart (a value of one does not match another)',
    refs: ['JSON Schema core 2020-12 §10.2.1.3', 'OAS 3.1 §4.8.24, §4.8.25'],
    sentence:
      "An instance validates successfully against [oneOf] if it validates successfully against exactly one schema defined by this keyword's value.",
  },
  {
    id: 'OAS-CLOSED-SCHEMA',
    level: 'MUST',
    title:
      'additionalProperties: false does not forbid what its own schema or its allOf/anyOf/oneOf branches require or declare',
    refs: ['JSON Schema core 2020-12 §10.3.2.3', 'OAS 3.1 §4.8.24'],
    sentence:
      'Validation with "additionalProperties" applies only to the child values of instance names that do not appear in the annotation results of either "properties" or "patternProperties".',
  },
] as const satisfies readonly LintRule[];

export type LintRuleId = (typeof LINT_RULES)[number]['id'];

/**
 * Lint's output is bounded like its input (issue 37 item 11; src/lint/caps.ts applies it): a
 * document lists at most FINDINGS_PER_RULE findings of a rule and FINDINGS_PER_PLACE at one place;
 * a rule keeps at most CANDIDATES_PER_RULE findings to choose from.
 */
export const FINDINGS_PER_RULE = 100;
export const FINDINGS_PER_PLACE = 10;
export const CANDIDATES_PER_RULE = 2_000;

/** Why some findings are not listed, in one clause (every output says it alike). */
export const CAPS_NOTE = `a document lists at most ${FINDINGS_PER_RULE} findings of a rule and ${FINDINGS_PER_PLACE} at one place; fix those and lint again`;
