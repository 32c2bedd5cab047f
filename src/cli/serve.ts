import { once } from 'node:events';
import { isAbsolute, relative } from 'node:path';
import { envName, type OptionKind } from '../core/environment.js';
import { UsageError } from '../core/errors.js';
import { ExitCode } from '../core/exit-codes.js';
import { FAULTS, VARIANTS } from '../reference/catalogue.js';
import { REFERENCE_CLIENT_SECRET, REFERENCE_SECOND_CLIENT_SECRET, startReferenceServer } from '../reference/index.js';
import { REFERENCE_EXPECTATIONS_FILE } from '../reference/seeded.js';
import { shellWord } from '../report/reproduce.js';
import type { CliIO } from './io.js';

export interface ServeOptions {
  port: number;
  host: string;
  tokenTtl: number;
  clientId?: string;
  clientSecret?: string;
  secondClientId?: string;
  /** From CARRIER_SECOND_CLIENT_SECRET only, as `run` reads it. */
  secondClientSecret?: string;
  faults: readonly string[];
  variants: readonly string[];
  shipments?: number;
}

/**
 * `serve --faults`: every fault and variant, one line each with what it does (and, for a fault,
 * the checks that must catch it), so that nobody has to read src/reference/ to pick one.
 */
export function renderAlterations(): string {
  const width = Math.max(...[...FAULTS, ...VARIANTS].map((a) => a.name.length));
  const line = (name: string, text: string): string => `  ${name.padEnd(width)}  ${text}`;
  return [
    `Faults (--fault NAME, repeatable): each breaks a rule; in brackets, the checks that must catch it. ${FAULTS.length} faults.`,
    ...FAULTS.map((f) => line(f.name, `${f.description} [${f.breaks.join(', ')}]`)),
    '',
    `Variants (--variant NAME, repeatable): unusual but conformant; the verdict stays the reference's. ${VARIANTS.length} variants.`,
    ...VARIANTS.map((v) => line(v.name, v.description)),
    '',
  ].join('\n');
}

/** The options of `serve`, each also read from `CARRIER_<NAME>`. */
export const SERVE_OPTION_KINDS = {
  port: 'number',
  host: 'string',
  tokenTtl: 'number',
  clientId: 'string',
  clientSecret: 'string',
  secondClientId: 'string',
  secondClientSecret: 'string',
  fault: 'list',
  variant: 'list',
  shipments: 'number',
} as const satisfies Record<string, OptionKind>;
type ServeKey = keyof typeof SERVE_OPTION_KINDS;

/** `serve`'s options from argv (given ones only) over the environment over the defaults, checked. */
export function resolveServeOptions(argv: Record<string, unknown>, env: Record<string, unknown>): ServeOptions {
  const value = (key: ServeKey): unknown => argv[key] ?? env[key];
  // A problem is named as the user wrote it: the flag, or the variable.
  const name = (key: ServeKey): string =>
    argv[key] !== undefined ? `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}` : envName(key);
  const integer = (key: ServeKey, fallback: number, min: number, max: number, what: string): number => {
    const v = value(key) ?? fallback;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
      throw new UsageError(`${name(key)}: ${JSON.stringify(v)} is not ${what}`);
    return v;
  };
  const names = (key: 'fault' | 'variant', known: readonly { name: string }[]): string[] => {
    const v = value(key);
    const list =
      v === undefined ? [] : (Array.isArray(v) ? v : [v]).map((n) => (typeof n === 'string' ? n : JSON.stringify(n)));
    // `--fault` without a name must not start a server with no fault, as if one had been asked for.
    if ((v !== undefined && list.length === 0) || list.some((n) => n.trim() === '')) {
      throw new UsageError(
        `${name(key)} needs the name of a ${key}; the ${key}s are: ${known.map((k) => k.name).join(', ')}`,
      );
    }
    return list;
  };
  const text = (
    key: 'host' | 'clientId' | 'clientSecret' | 'secondClientId' | 'secondClientSecret',
  ): string | undefined => {
    const v = value(key);
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || v === '') throw new UsageError(`${name(key)}: must not be empty`);
    return v;
  };
  const clientId = text('clientId');
  const clientSecret = text('clientSecret');
  const secondClientId = text('secondClientId');
  const secondClientSecret = text('secondClientSecret');
  const shipments =
    value('shipments') === undefined
      ? undefined
      : integer('shipments', 0, 0, 1_000_000, 'a number of shipments (0 to 1000000)');
  return {
    port: integer('port', 8080, 0, 65535, 'a port number (0-65535)'),
    host: text('host') ?? '127.0.0.1',
    tokenTtl: integer('tokenTtl', 5, 1, 86_400, 'a whole number of seconds, at least 1'),
    ...(clientId !== undefined ? { clientId } : {}),
    ...(clientSecret !== undefined ? { clientSecret } : {}),
    ...(secondClientId !== undefined ? { secondClientId } : {}),
    ...(secondClientSecret !== undefined ? { secondClientSecret } : {}),
    faults: names('fault', FAULTS),
    variants: names('variant', VARIANTS),
    ...(shipments !== undefined ? { shipments } : {}),
  };
}

/**
 * `serve`: the reference server in the foreground until `stop` (Ctrl-C or SIGTERM). It prints a
 * command that runs the battery against it, ready to paste: the secret in the environment, as the
 * README recommends. The documented reference secret is public and printed; a secret the user gave
 * is theirs, and never printed.
 */
/**
 * A path as the user would type it where serve runs: relative when below the current directory
 * (node_modules/carrier-conformance/docs/openapi.yaml in a project that installed the package,
 * as the README shows), absolute otherwise.
 */
function typedPath(file: string): string {
  const below = relative(process.cwd(), file);
  return below !== '' && !below.startsWith('..') && !isAbsolute(below) ? below : file;
}

export async function serve(options: ServeOptions, io: CliIO, stop: AbortSignal): Promise<number> {
  let server;
  try {
    server = await startReferenceServer({
      host: options.host,
      port: options.port,
      tokenTtlSeconds: options.tokenTtl,
      ...(options.clientId !== undefined ? { clientId: options.clientId } : {}),
      ...(options.clientSecret !== undefined ? { clientSecret: options.clientSecret } : {}),
      ...(options.secondClientId !== undefined ? { secondClientId: options.secondClientId } : {}),
      ...(options.secondClientSecret !== undefined ? { secondClientSecret: options.secondClientSecret } : {}),
      ...(options.shipments !== undefined ? { shipmentCount: options.shipments } : {}),
      faults: options.faults,
      variants: options.variants,
    });
  } catch (err) {
    if (err instanceof RangeError) throw new UsageError(err.message);
    const code = (err as { code?: string }).code;
    if (code === 'EADDRINUSE')
      throw new UsageError(`--port ${options.port}: the port is in use; pick another or 0 for any free port`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
      throw new UsageError(`--host ${options.host}: not an address of this machine`);
    throw err;
  }
  const documented = options.clientSecret === undefined;
  const secondDocumented = options.secondClientSecret === undefined;
  const openapi = typedPath(server.openapiFile);
  // The second client proves tenant isolation both ways (TENANT-FOREIGN): its tenant is the foreign one.
  // The test account's data, where the server holds the default one: every check then judges (RESOURCE-/USER-EXPECTED-VALUES too).
  const expectations =
    options.shipments === undefined && options.variants.length === 0
      ? typedPath(REFERENCE_EXPECTATIONS_FILE)
      : undefined;
  const run = [
    'npx',
    'carrier-conformance',
    'run',
    '--base-url',
    server.url,
    '--client-id',
    server.clientId,
    '--second-client-id',
    server.secondClientId,
    '--openapi',
    openapi,
    ...(expectations !== undefined ? ['--expectations', expectations] : []),
  ];
  io.out(
    [
      `Carrier-Platform reference server listening at ${server.url}`,
      `  client id:       ${server.clientId}`,
      `  client secret:   ${documented ? `${REFERENCE_CLIENT_SECRET} (the documented reference secret)` : 'the one you gave (CARRIER_CLIENT_SECRET or --client-secret)'}`,
      `  tenant:          ${server.tenantId}`,
      `  second client:   ${server.secondClientId}, secret ${secondDocumented ? `${REFERENCE_SECOND_CLIENT_SECRET} (the documented reference secret)` : 'the one you gave (CARRIER_SECOND_CLIENT_SECRET)'}`,
      `  foreign tenant:  ${server.foreignTenantId} (the second client's; the first may not access it)`,
      `  paged paths:     ${server.pagedPaths.join(', ')}`,
      `  OpenAPI:         ${openapi}`,
      ...(expectations !== undefined ? [`  expectations:    ${expectations} (the test account's data)`] : []),
      `  token lifetime:  ${options.tokenTtl} s`,
      ...(options.faults.length > 0 ? [`  faults:          ${options.faults.join(', ')}`] : []),
      ...(options.variants.length > 0 ? [`  variants:        ${options.variants.join(', ')}`] : []),
      '',
      'Run the battery against it (the client secret in the environment, not on the command line):',
      '',
      documented
        ? `  export CARRIER_CLIENT_SECRET=${shellWord(REFERENCE_CLIENT_SECRET)}`
        : '  # CARRIER_CLIENT_SECRET: the secret this server was started with',
      secondDocumented
        ? `  export CARRIER_SECOND_CLIENT_SECRET=${shellWord(REFERENCE_SECOND_CLIENT_SECRET)}`
        : '  # CARRIER_SECOND_CLIENT_SECRET: the second secret this server was started with',
      `  ${run.map(shellWord).join(' ')}`,
      '',
      'Ctrl-C stops it.',
      '',
    ].join('\n'),
  );
  if (!stop.aborted) await once(stop, 'abort');
  await server.close();
  io.out('reference server stopped\n');
  return ExitCode.Conformant;
}
