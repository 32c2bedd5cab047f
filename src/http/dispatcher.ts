import { createSecureContext, rootCertificates } from 'node:tls';
import type { Dispatcher } from 'undici';
import { proxyConfigured, proxySettings } from './proxy.js';
import { Agent, EnvHttpProxyAgent } from './undici.js';

/**
 * The connection pool the HTTP layer sends through: keep-alive, the TLS trust the user asked for
 * (`--ca-file`, `--insecure`), a client certificate (`--cert`, `--key`), and the standard proxy variables (HTTP_PROXY, HTTPS_PROXY,
 * NO_PROXY, in either case), which undici's EnvHttpProxyAgent implements.
 */

export interface TlsSettings {
  /** PEM of extra certificate authorities to trust, besides the system's (--ca-file). */
  caPem?: string;
  /** Accept any certificate (--insecure): only for a test target, and loudly warned about. */
  insecure: boolean;
  /**
   * A client certificate for mutual TLS (--cert, --key): RFC 8446 §4.4.2, sent when the server
   * asks for one (CertificateRequest), as gateways that authenticate clients by certificate do
   * (RFC 8705 §2 for OAuth). PEM; the key may be encrypted, with its passphrase.
   */
  clientCertificate?: { certPem: string; keyPem: string; passphrase?: string };
}

export function createDispatcher(timeoutMs: number, tls: TlsSettings): Dispatcher {
  // The trust store is built once: passing `ca` instead would make every new TLS connection parse
  // the ~140 system roots again (about 50 ms of blocked event loop each, measured), which behind a
  // gateway that closes idle connections quickly stalls a run for seconds.
  // The client certificate goes in the same context; without --ca-file it keeps the default roots.
  const client = tls.clientCertificate;
  const identity = client
    ? {
        cert: client.certPem,
        key: client.keyPem,
        ...(client.passphrase !== undefined ? { passphrase: client.passphrase } : {}),
      }
    : {};
  const secureContext =
    tls.caPem || client
      ? createSecureContext({ ...(tls.caPem ? { ca: [...rootCertificates, tls.caPem] } : {}), ...identity })
      : undefined;
  const trust = { rejectUnauthorized: !tls.insecure, ...(secureContext ? { secureContext } : {}) };
  const base = { keepAliveTimeout: 4_000, connect: { timeout: timeoutMs, ...trust } };
  // The proxy's own TLS (an https:// proxy) gets the same trust as the target's.
  // The settings given explicitly, so that what proxyFor says of a URL is what the agent does.
  return proxyConfigured()
    ? new EnvHttpProxyAgent({ ...base, ...proxySettings(), requestTls: trust, proxyTls: trust })
    : new Agent(base);
}
