import { randomBytes, randomUUID } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { loadExpectations, type Expectations, type RunOptions } from '../config/options.js';
import { ciMarker } from '../core/environment.js';
import { UsageError } from '../core/errors.js';
import { FILE_LIMITS, readTextFile } from '../core/files.js';
import type { TlsSettings } from '../http/dispatcher.js';
import type { ReferenceServer } from '../reference/index.js';
import { redactor } from '../core/redact.js';

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
  /** A tenant this client may not access that the user named (--foreign-tenant-id, or the embedded server's). */
  foreignTenantId?: string;
  /** A tenant id made up for the run, which names no tenant (TENANT-UNKNOWN). */
  unknownTenantId: string;
  /** The second client, of another tenant (--second-client-id): TENANT-FOREIGN proves isolation with it. */
  secondClient?: SecondClient;
  expectations?: Expectations;
  tls: TlsSettings;
  /** Form fields of every token request (--token-param, --scope; src/carrier/requests.ts Target). */
  tokenParams: [string, string][];
  /** How the run's own token requests authenticate (--client-auth). */
  clientAuth: 'basic' | 'post';
  /** The embedded server, to be closed after the run. */
  reference?: ReferenceServer;
}

/** A second API client and, if given, its tenant (--second-tenant-id). */
export interface SecondClient {
  clientId: string;
  clientSecret: string;
  tenantId?: string;
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
  return secretOf(options.clientSecret, options.clientSecretFile, '--client-secret', 'the client secret');
}

function secretOf(value: string | undefined, file: string | undefined, flag: string, what: string): string | undefined {
  if (file === undefined) return value;
  if (value !== undefined)
    throw new UsageError(`${flag} and ${flag}-file are both given; keep one (the file is safer)`);
  const secret = readTextFile(file, `${flag}-file`, FILE_LIMITS.secret).replace(/\r?\n$/, '');
  if (secret === '') throw new UsageError(`${flag}-file ${file}: the file is empty; put ${what} in it`);
  return secret;
}

/**
 * The second client (--second-client-id and its secret): both or neither, and another client than
 * the first. Its secret is registered with the redactor at once, as the first client's is.
 */
function secondClientOf(options: RunOptions): SecondClient | undefined {
  if (options.secondClientId === undefined) {
    // An exported CARRIER_SECOND_CLIENT_SECRET is shared with every job of the environment (the
    // expiry job of a two-job proof needs none): only a file given for it says it was meant.
    if (options.secondClientSecretFile !== undefined)
      throw new UsageError(
        "--second-client-secret-file is given without --second-client-id: give the second client's id too (CARRIER_SECOND_CLIENT_ID)",
      );
    if (options.secondTenantId !== undefined)
      throw new UsageError("--second-tenant-id needs --second-client-id: it names the second client's tenant");
    return undefined;
  }
  const secret = secretOf(
    options.secondClientSecret,
    options.secondClientSecretFile,
    '--second-client-secret',
    "the second client's secret",
  );
  if (secret === undefined)
    throw new UsageError(
      "--second-client-id needs the second client's secret: set CARRIER_SECOND_CLIENT_SECRET or use --second-client-secret-file (never the command line)",
    );
  if (options.secondClientId === options.clientId)
    throw new UsageError(
      '--second-client-id is the same as --client-id: isolation is proven between two clients of different tenants; give another client',
    );
  redactor.addClientCredentials(options.secondClientId, secret);
  return {
    clientId: options.secondClientId,
    clientSecret: secret,
    ...(options.secondTenantId !== undefined ? { tenantId: options.secondTenantId } : {}),
  };
}

function tlsOf(options: RunOptions): TlsSettings {
  const clientCertificate = clientCertificateOf(options);
  const identity = clientCertificate ? { clientCertificate } : {};
  if (options.caFile === undefined) return { insecure: options.insecure, ...identity };
  const pem = readTextFile(options.caFile, '--ca-file', FILE_LIMITS.ca);
  if (!pem.includes('-----BEGIN CERTIFICATE-----'))
    throw new UsageError(
      `--ca-file ${options.caFile}: no PEM certificate in it (expected -----BEGIN CERTIFICATE-----)`,
    );
  return { caPem: pem, insecure: options.insecure, ...identity };
}

/**
 * The client certificate for mutual TLS (--cert, --key), read and tried now: a key that does not
 * match the certificate, or a wrong passphrase, is a usage error before the run, not a TLS
 * failure on the first request. The passphrase is a secret: from CARRIER_KEY_PASSPHRASE or a
 * file (a trailing newline is ignored), registered with the redactor.
 */
function clientCertificateOf(options: RunOptions): TlsSettings['clientCertificate'] {
  const passphraseGiven = options.keyPassphrase !== undefined || options.keyPassphraseFile !== undefined;
  if (options.cert === undefined && options.key === undefined) {
    if (passphraseGiven)
      throw new UsageError(
        'a key passphrase is given without --cert and --key: give the client certificate and its key too',
      );
    return undefined;
  }
  if (options.cert === undefined || options.key === undefined)
    throw new UsageError(
      `${options.cert === undefined ? '--key needs --cert' : '--cert needs --key'}: mutual TLS takes the client certificate and its private key (two PEM files)`,
    );
  if (options.keyPassphrase !== undefined && options.keyPassphraseFile !== undefined)
    throw new UsageError('--key-passphrase and --key-passphrase-file are both given; keep one (the file is safer)');
  const certPem = readTextFile(options.cert, '--cert', FILE_LIMITS.certificate);
  if (!certPem.includes('-----BEGIN CERTIFICATE-----'))
    throw new UsageError(`--cert ${options.cert}: no PEM certificate in it (expected -----BEGIN CERTIFICATE-----)`);
  const keyPem = readTextFile(options.key, '--key', FILE_LIMITS.key);
  if (!/-----BEGIN (?:[A-Z]+ )?(?:ENCRYPTED )?PRIVATE KEY-----/.test(keyPem))
    throw new UsageError(`--key ${options.key}: no PEM private key in it (expected -----BEGIN PRIVATE KEY-----)`);
  const passphrase =
    options.keyPassphraseFile === undefined
      ? options.keyPassphrase
      : readTextFile(options.keyPassphraseFile, '--key-passphrase-file', FILE_LIMITS.passphrase).replace(/\r?\n$/, '');
  redactor.addSecret(passphrase, 'secret');
  const identity = { certPem, keyPem, ...(passphrase !== undefined ? { passphrase } : {}) };
  try {
    createSecureContext({ cert: certPem, key: keyPem, ...(passphrase !== undefined ? { passphrase } : {}) });
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    const text = `${code} ${(err as Error).message}`;
    // A wrong passphrase mostly fails the decryption ("bad decrypt"); now and then the wrong key's
    // output passes the padding check by chance, and OpenSSL 3 fails decoding the garbage instead
    // ("DECODER routines::unsupported"). On an encrypted key given a passphrase, that is the same cause.
    const encrypted = /-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type: 4,ENCRYPTED/.test(keyPem);
    const why =
      /bad decrypt|BAD_DECRYPT|passphrase|PEM_R_BAD_PASSWORD_READ|interrupted or cancelled/i.test(text) ||
      (encrypted && passphrase !== undefined && /DECODER routines|unsupported/i.test(text))
        ? `the key is encrypted and ${passphrase === undefined ? 'no passphrase is given (CARRIER_KEY_PASSPHRASE or --key-passphrase-file)' : 'the passphrase does not open it'}`
        : /KEY_VALUES_MISMATCH|key values mismatch/i.test(text)
          ? "the key is not the certificate's"
          : `the certificate or key is not usable (${redactor.redact((err as Error).message)})`;
    throw new UsageError(`--cert ${options.cert} and --key ${options.key}: ${why}`);
  }
  return identity;
}

/** What the options say about the target, every file read and checked: no server started yet. */
export interface TargetPlan {
  options: RunOptions;
  expectations?: Expectations;
  tls: TlsSettings;
  clientSecret?: string;
  secondClient?: SecondClient;
}

/**
 * Without a base URL the embedded reference server is tested, but only where nobody can have
 * meant a real target: a CI job or given client credentials say that someone did (a secret
 * renamed, a typo in CARRIER_BASE_URL), and a gate that silently tests the harness's own server
 * passes whatever the deployment does. There, --embedded must say it.
 */
function checkEmbeddedWanted(options: RunOptions, env: NodeJS.ProcessEnv): void {
  if (options.baseUrl !== undefined) {
    if (options.embedded)
      throw new UsageError(
        '--embedded and --base-url contradict each other: keep --base-url to test a deployment, or --embedded to test the built-in reference server',
      );
    return;
  }
  if (options.embedded) return;
  const fix =
    'give the API under test with --base-url (CARRIER_BASE_URL), or --embedded to test the built-in reference server';
  if (options.clientId !== undefined || options.clientSecret !== undefined || options.clientSecretFile !== undefined) {
    throw new UsageError(`no --base-url, but client credentials are given, so a real target was meant: ${fix}`);
  }
  const ci = ciMarker(env);
  if (ci !== undefined)
    throw new UsageError(
      `no --base-url in a CI job (${ci}), where testing the built-in reference server instead would pass the gate unseen: ${fix}`,
    );
}

/** Reads and checks everything the target needs from the user (files, credentials): usage errors now. */
export function planTarget(options: RunOptions, env: NodeJS.ProcessEnv = process.env): TargetPlan {
  checkEmbeddedWanted(options, env);
  if (options.scope !== undefined && options.tokenParam.some((p) => p.startsWith('scope=')))
    throw new UsageError('--scope and --token-param scope=… both give the scope; keep one');
  // issue 41 item 3: content goes to a target only on the operator's word that it is not production.
  if (options.writeProbes === 'invalid-content' && !options.allowWrites && options.baseUrl !== undefined)
    throw new UsageError(
      '--write-probes invalid-content sends write requests with content (not JSON, each with one defective header) to the target: say that it is not production with --allow-writes, or keep --write-probes headers, which never sends content',
    );
  const expectations = options.expectations === undefined ? undefined : loadExpectations(options.expectations);
  const tls = tlsOf(options);
  if (options.baseUrl === undefined) {
    if (options.authUrl !== undefined)
      throw new UsageError('--auth-url needs --base-url: without a base URL the embedded reference server is used');
    return { options, tls, ...(expectations ? { expectations } : {}) };
  }
  const clientSecret = clientSecretOf(options);
  if (options.clientId === undefined)
    throw new UsageError('--client-id is missing: give the API client id (or set CARRIER_CLIENT_ID)');
  if (clientSecret === undefined)
    throw new UsageError(
      '--client-secret is missing: set CARRIER_CLIENT_SECRET or use --client-secret-file (safer than the command line, which other users can see)',
    );
  const secondClient = secondClientOf(options);
  return {
    options,
    tls,
    clientSecret,
    ...(secondClient ? { secondClient } : {}),
    ...(expectations ? { expectations } : {}),
  };
}

/** The target to test: the one the options name, or the embedded reference server, started now. */
export async function openTarget(plan: TargetPlan, note: (line: string) => void): Promise<ResolvedTarget> {
  const { options, expectations, tls } = plan;
  if (options.baseUrl === undefined) {
    if (options.clientId !== undefined || options.clientSecret !== undefined || options.clientSecretFile !== undefined)
      note('note: ignoring the given client credentials: the embedded reference server has its own');
    // Loaded only when used: a run against a real target does not pay for it.
    const { startReferenceServer } = await import('../reference/index.js');
    const reference = await startReferenceServer({
      clientSecret: embeddedSecret(),
      secondClientSecret: embeddedSecret(),
    });
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
      unknownTenantId: randomUUID(),
      // The reference server's second client, whose tenant is the foreign one: isolation is proven both ways.
      secondClient: { clientId: reference.secondClientId, clientSecret: reference.secondClientSecret },
      // The reference server's own data, as the user would write it in an --expectations file.
      expectations: expectations ?? (structuredClone(reference.expectations) as unknown as Expectations),
      tls,
      ...tokenRequestOf(options),
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
    ...(options.foreignTenantId !== undefined ? { foreignTenantId: options.foreignTenantId } : {}),
    unknownTenantId: randomUUID(),
    ...(plan.secondClient ? { secondClient: plan.secondClient } : {}),
    ...(expectations ? { expectations } : {}),
    tls,
    ...tokenRequestOf(options),
  };
}

/** --token-param NAME=VALUE (the first `=` splits) and --scope, in that order; --client-auth. */
function tokenRequestOf(options: RunOptions): Pick<ResolvedTarget, 'tokenParams' | 'clientAuth'> {
  const tokenParams = options.tokenParam.map((p): [string, string] => [
    p.slice(0, p.indexOf('=')),
    p.slice(p.indexOf('=') + 1),
  ]);
  if (options.scope !== undefined) tokenParams.push(['scope', options.scope]);
  return { tokenParams, clientAuth: options.clientAuth };
}
