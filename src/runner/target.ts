import { randomBytes, randomUUID } from 'node:crypto';
import { loadExpectations, type Expectations, type RunOptions } from '../config.js';
import { ciMarker } from '../environment.js';
import { UsageError } from '../errors.js';
import { FILE_LIMITS, readTextFile } from '../files.js';
import type { TlsSettings } from '../http/dispatcher.js';
import type { ReferenceServer } from '../reference/index.js';

/**
 * What a run tests: the deployment at --base-url with the given credentials, or, without a base
 * URL, the embedded reference server started on loopback with its own credentials and data.
 */

export interface ResolvedTarget {
  baseUrl: string;
  authUrl: string;
  embedded: boolean;
  clientId: string;
  clientSecret: string;
  pagedPaths: string[];
  /** Single-resource tenant endpoints the target itself names (the embedded server's). */
  singlePaths: string[];
  /** The target's own OpenAPI document, used when no --openapi is given (the embedded server's). */
  openapiFile?: string;
  foreignTenantId: string;
  expectations?: Expectations;
  tls: TlsSettings;
  /** The embedded server, to be closed after the run. */
  reference?: ReferenceServer;
}

/**
 * A secret for the embedded server that exercises RFC 6749 §2.3.1 encoding on every run: the
 * characters form-encoding changes, within the printable ASCII of RFC 6749 Appendix A.2.
 */
function embeddedSecret(): string {
  return `${randomBytes(12).toString('base64url')} +%:&=/`;
}


/** The client secret: --client-secret (or CARRIER_CLIENT_SECRET), or the first line of --client-secret-file. */
function clientSecretOf(options: RunOptions): string | undefined {
  if (options.clientSecretFile === undefined) return options.clientSecret;
  if (options.clientSecret !== undefined) throw new UsageError('--client-secret and --client-secret-file are both given; keep one (the file is safer)');
  const secret = readTextFile(options.clientSecretFile, '--client-secret-file', FILE_LIMITS.secret).replace(/\r?\n$/, '');
  if (secret === '') throw new UsageError(`--client-secret-file ${options.clientSecretFile}: the file is empty; put the client secret in it`);
  return secret;
}

function tlsOf(options: RunOptions): TlsSettings {
  if (options.caFile === undefined) return { insecure: options.insecure };
  const pem = readTextFile(options.caFile, '--ca-file', FILE_LIMITS.ca);
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new UsageError(`--ca-file ${options.caFile}: no PEM certificate in it (expected -----BEGIN CERTIFICATE-----)`);
  return { caPem: pem, insecure: options.insecure };
}

/** What the options say about the target, every file read and checked: no server started yet. */
export interface TargetPlan {
  options: RunOptions;
  expectations?: Expectations;
  tls: TlsSettings;
  clientSecret?: string;
}

/**
 * Without a base URL the embedded reference server is tested, but only where nobody can have
 * meant a real target: a CI job or given client credentials say that someone did (a secret
 * renamed, a typo in CARRIER_BASE_URL), and a gate that silently tests the harness's own server
 * passes whatever the deployment does. There, --embedded must say it.
 */
function checkEmbeddedWanted(options: RunOptions, env: NodeJS.ProcessEnv): void {
  if (options.baseUrl !== undefined) {
    if (options.embedded) throw new UsageError('--embedded and --base-url contradict each other: keep --base-url to test a deployment, or --embedded to test the built-in reference server');
    return;
  }
  if (options.embedded) return;
  const fix = 'give the API under test with --base-url (CARRIER_BASE_URL), or --embedded to test the built-in reference server';
  if (options.clientId !== undefined || options.clientSecret !== undefined || options.clientSecretFile !== undefined) {
    throw new UsageError(`no --base-url, but client credentials are given, so a real target was meant: ${fix}`);
  }
  const ci = ciMarker(env);
  if (ci !== undefined) throw new UsageError(`no --base-url in a CI job (${ci}), where testing the built-in reference server instead would pass the gate unseen: ${fix}`);
}

/** Reads and checks everything the target needs from the user (files, credentials): usage errors now. */
export function planTarget(options: RunOptions, env: NodeJS.ProcessEnv = process.env): TargetPlan {
  checkEmbeddedWanted(options, env);
  const expectations = options.expectations === undefined ? undefined : loadExpectations(options.expectations);
  const tls = tlsOf(options);
  if (options.baseUrl === undefined) {
    if (options.authUrl !== undefined) throw new UsageError('--auth-url needs --base-url: without a base URL the embedded reference server is used');
    return { options, tls, ...(expectations ? { expectations } : {}) };
  }
  const clientSecret = clientSecretOf(options);
  if (options.clientId === undefined) throw new UsageError('--client-id is missing: give the API client id (or set CARRIER_CLIENT_ID)');
  if (clientSecret === undefined) throw new UsageError('--client-secret is missing: set CARRIER_CLIENT_SECRET or use --client-secret-file (safer than the command line, which other users can see)');
  return { options, tls, clientSecret, ...(expectations ? { expectations } : {}) };
}

/** The target to test: the one the options name, or the embedded reference server, started now. */
export async function openTarget(plan: TargetPlan, note: (line: string) => void): Promise<ResolvedTarget> {
  const { options, expectations, tls } = plan;
  if (options.baseUrl === undefined) {
    if (options.clientId !== undefined || options.clientSecret !== undefined || options.clientSecretFile !== undefined) note('note: ignoring the given client credentials: the embedded reference server has its own');
    // Loaded only when used: a run against a real target does not pay for it.
    const { startReferenceServer } = await import('../reference/index.js');
    const reference = await startReferenceServer({ clientSecret: embeddedSecret() });
    return {
      baseUrl: reference.url,
      authUrl: reference.url,
      embedded: true,
      clientId: reference.clientId,
      clientSecret: reference.clientSecret,
      pagedPaths: options.pagedPath.length > 0 ? options.pagedPath : reference.pagedPaths,
      singlePaths: options.pagedPath.length > 0 || options.endpoint.length > 0 ? [] : reference.singlePaths,
      openapiFile: reference.openapiFile,
      foreignTenantId: options.foreignTenantId ?? reference.foreignTenantId,
      // The reference server's own data, as the user would write it in an --expectations file.
      expectations: expectations ?? (structuredClone(reference.expectations) as unknown as Expectations),
      tls,
      reference,
    };
  }
  return {
    baseUrl: options.baseUrl,
    authUrl: options.authUrl ?? options.baseUrl,
    embedded: false,
    clientId: options.clientId ?? '',
    clientSecret: plan.clientSecret ?? '',
    pagedPaths: options.pagedPath,
    singlePaths: [],
    foreignTenantId: options.foreignTenantId ?? randomUUID(),
    ...(expectations ? { expectations } : {}),
    tls,
  };
}
