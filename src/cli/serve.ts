import { once } from 'node:events';
import { UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { REFERENCE_CLIENT_SECRET, startReferenceServer } from '../reference/index.js';
import type { CliIO } from './main.js';

export interface ServeOptions {
  port: number;
  host: string;
  tokenTtl: number;
  clientId?: string;
  clientSecret?: string;
  faults: readonly string[];
  variants: readonly string[];
  shipments?: number;
}

/**
 * `serve`: the reference server in the foreground until `stop` (Ctrl-C or SIGTERM). It prints how to
 * point the harness at it, but never the client secret itself.
 */
export async function serve(options: ServeOptions, io: CliIO, stop: AbortSignal): Promise<number> {
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) throw new UsageError(`--port: ${options.port} is not a port number (0-65535)`);
  if (!Number.isInteger(options.tokenTtl) || options.tokenTtl < 1) throw new UsageError(`--token-ttl: ${options.tokenTtl} must be a whole number of seconds, at least 1`);
  let server;
  try {
    server = await startReferenceServer({
      host: options.host,
      port: options.port,
      tokenTtlSeconds: options.tokenTtl,
      ...(options.clientId !== undefined ? { clientId: options.clientId } : {}),
      ...(options.clientSecret !== undefined ? { clientSecret: options.clientSecret } : {}),
      ...(options.shipments !== undefined ? { shipmentCount: options.shipments } : {}),
      faults: options.faults,
      variants: options.variants,
    });
  } catch (err) {
    if (err instanceof RangeError) throw new UsageError(err.message);
    const code = (err as { code?: string }).code;
    if (code === 'EADDRINUSE') throw new UsageError(`--port ${options.port}: the port is in use; pick another or 0 for any free port`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new UsageError(`--host ${options.host}: not an address of this machine`);
    throw err;
  }
  const secretSource = options.clientSecret === undefined ? `the documented reference secret (README), ${JSON.stringify(REFERENCE_CLIENT_SECRET).length - 2} characters` : 'the one you gave (CARRIER_CLIENT_SECRET or --client-secret)';
  io.out(
    [
      `Carrier-Platform reference server listening at ${server.url}`,
      `  client id:       ${server.clientId}`,
      `  client secret:   ${secretSource}`,
      `  tenant:          ${server.tenantId}`,
      `  foreign tenant:  ${server.foreignTenantId} (exists, not accessible)`,
      `  paged paths:     ${server.pagedPaths.join(', ')}`,
      `  OpenAPI:         ${server.openapiFile}`,
      `  token lifetime:  ${options.tokenTtl} s`,
      ...(options.faults.length > 0 ? [`  faults:          ${options.faults.join(', ')}`] : []),
      ...(options.variants.length > 0 ? [`  variants:        ${options.variants.join(', ')}`] : []),
      '',
      'Run the battery against it with the client secret in CARRIER_CLIENT_SECRET:',
      `  carrier-conformance run --base-url ${server.url} --client-id ${server.clientId} --openapi ${server.openapiFile}`,
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
