import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Ajv as AjvClass, ErrorObject, ValidateFunction } from 'ajv';
import { evaluate, precompile, type PrecompiledValidators } from './standalone.js';
import { builtFile, FROM_BUILD } from '../core/version.js';

/**
 * JSON Schemas of the API payloads (spec §Resources and their fields), validated with ajv.
 * They check types only: whether a documented field is present at all is a separate check
 * (spec §Generic rules for optional fields 1), and extra fields are always allowed (spec
 * §Versioning 3: fields are added, not removed).
 */

/** spec §Tenant identifier: a UUID, in the 8-4-4-4-12 hex form (any version). */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const uuid = { type: 'string', pattern: UUID_PATTERN } as const;
const stringOrNull = { type: ['string', 'null'] } as const;

/** The fields of a User (spec §User); the spec's table names the tenants array "the service". */
export const USER_FIELDS = ['id', 'name', 'email', 'tenants'] as const;
export const USER_TENANT_FIELDS = ['id', 'name'] as const;

export const userSchema = {
  $id: 'User',
  type: 'object',
  properties: {
    id: uuid,
    name: stringOrNull,
    email: stringOrNull,
    tenants: {
      type: 'array',
      items: {
        type: 'object',
        properties: { id: uuid, name: stringOrNull },
      },
    },
  },
} as const;

/** spec §Access token response; RFC 6749 §5.1. `expires_in` must be an integer JSON number. */
export const tokenResponseSchema = {
  $id: 'AccessTokenResponse',
  type: 'object',
  required: ['access_token', 'token_type', 'expires_in'],
  properties: {
    access_token: { type: 'string', minLength: 1 },
    token_type: { type: 'string' },
    expires_in: { type: 'integer', exclusiveMinimum: 0 },
  },
} as const;

/**
 * RFC 6749 §5.2 error response: `error` is required; its characters and those of
 * `error_description` are limited to %x20-21 / %x23-5B / %x5D-7E (no `"` and no `\`).
 */
export const oauthErrorSchema = {
  $id: 'OAuthError',
  type: 'object',
  required: ['error'],
  properties: {
    error: { type: 'string', minLength: 1, pattern: '^[\\x20-\\x21\\x23-\\x5B\\x5D-\\x7E]+$' },
    error_description: { type: 'string', pattern: '^[\\x20-\\x21\\x23-\\x5B\\x5D-\\x7E]*$' },
    error_uri: { type: 'string' },
  },
} as const;

/** The harness's own schemas, by $id: what src/build/compile-schemas.ts compiles at build time. */
export const OWN_SCHEMAS = [userSchema, tokenResponseSchema, oauthErrorSchema] as const;

/**
 * How they are compiled. The schemas are the harness's own, so they are not validated against
 * the meta-schema (compiling it costs more than all of them); strict mode still rejects unknown
 * keywords.
 */
export const OWN_SCHEMA_OPTIONS = { allErrors: true, strict: true, validateSchema: false } as const;

/**
 * Where the build writes their compiled validators (src/carrier/standalone.ts): beside the compiled
 * module, dist/src/carrier/; from the sources, beside this one, where the build writes none.
 */
export const COMPILED_SCHEMAS_FILE = FROM_BUILD
  ? builtFile('src/carrier/schema-validators.json')
  : new URL('./schema-validators.json', import.meta.url);

const require = createRequire(import.meta.url);

/** What the build writes to COMPILED_SCHEMAS_FILE: the validators, and the schemas they came from. */
export interface CompiledSchemas {
  validators: PrecompiledValidators;
  /** Each schema as JSON, by $id: a validator is used only for the schema it was compiled from. */
  schemas: Record<string, string>;
}

/** Compiles the harness's own schemas into standalone validators (src/build/compile-schemas.ts, at build time). */
export function compileOwnSchemas(): CompiledSchemas {
  const { Ajv } = require('ajv') as { Ajv: typeof AjvClass };
  const byId = new Map<string, object>(OWN_SCHEMAS.map((s) => [s.$id, s]));
  const validators = precompile(
    new Ajv({ ...OWN_SCHEMA_OPTIONS, code: { source: true } }),
    [...byId.keys()],
    (id) => byId.get(id) as object,
  );
  return { validators, schemas: Object.fromEntries(OWN_SCHEMAS.map((s) => [s.$id, JSON.stringify(s)])) };
}

let ajv: AjvClass | undefined;
let built: Map<string, ValidateFunction> | undefined;
const compiled = new Map<string, ValidateFunction>();

/**
 * The validators compiled at build time (`file`, written by compile-schemas.js), for the schemas
 * that are still the ones they were compiled from: a build that skipped compile-schemas.js, or a
 * schema changed since, falls back to compiling at run time. None when running from the sources.
 */
export function loadBuiltValidators(file: URL): Map<string, ValidateFunction> {
  const out = new Map<string, ValidateFunction>();
  let stored: CompiledSchemas;
  try {
    stored = JSON.parse(readFileSync(file, 'utf8')) as typeof stored;
  } catch {
    return out;
  }
  const current = new Set<string>(
    OWN_SCHEMAS.filter((s) => stored.schemas[s.$id] === JSON.stringify(s)).map((s) => s.$id),
  );
  for (const [id, fn] of evaluate(stored.validators)) if (current.has(id)) out.set(id, fn);
  return out;
}

function validator(schema: { $id: string }): ValidateFunction {
  built ??= loadBuiltValidators(COMPILED_SCHEMAS_FILE);
  let fn = built.get(schema.$id) ?? compiled.get(schema.$id);
  if (!fn) {
    // ajv is loaded at the first validation that needs it, not when the battery starts.
    ajv ??= new (require('ajv') as { Ajv: typeof AjvClass }).Ajv(OWN_SCHEMA_OPTIONS);
    fn = ajv.compile(schema);
    compiled.set(schema.$id, fn);
  }
  return fn;
}

/** Validates `value`; returns one readable line per problem (`/tenants/0/id must match pattern ...`). */
export function schemaProblems(schema: { $id: string }, value: unknown): string[] {
  const validate = validator(schema);
  if (validate(value)) return [];
  return (validate.errors ?? []).map(describeAjvError);
}

function describeAjvError(e: ErrorObject): string {
  const where = e.instancePath === '' ? 'the body' : e.instancePath;
  if (e.keyword === 'pattern' && e.params.pattern === UUID_PATTERN) return `${where} must be a UUID`;
  if (e.keyword === 'required') return `${where} lacks the required field "${String(e.params.missingProperty)}"`;
  return `${where} ${e.message ?? 'is invalid'}`;
}
