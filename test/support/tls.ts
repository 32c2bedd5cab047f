import { execFile } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { forward, serveOnLoopback } from './hostile.js';
import { tempDir } from './harness.js';
import { onLoopback, closeServer } from './loopback.js';

/** TLS and proxy fixtures, all on loopback, generated per test run. */

export interface Certificate {
  certFile: string;
  cert: string;
  key: string;
}

/** A self-signed certificate for 127.0.0.1, made with the system's openssl. */
export async function selfSignedCertificate(): Promise<Certificate> {
  const dir = await tempDir('carrier-tls-');
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  await promisify(execFile)('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    keyFile,
    '-out',
    certFile,
    '-days',
    '2',
    '-subj',
    '/CN=127.0.0.1',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
  ]);
  return { certFile, cert: await readFile(certFile, 'utf8'), key: await readFile(keyFile, 'utf8') };
}

export interface PrivateCa {
  /** The CA certificate alone: what a client trusts (`--ca-file`). */
  caFile: string;
  /** A server certificate for 127.0.0.1 signed by the CA, and its key. */
  certFile: string;
  keyFile: string;
}

/**
 * A private CA and a server certificate for 127.0.0.1 that it signed, made with the system's
 * openssl in `dir`: the chain a platform team's internal PKI gives a gateway, unlike a
 * self-signed certificate. P-256 keys, because they are made in milliseconds.
 */
export async function privateCa(dir: string): Promise<PrivateCa> {
  const run = (args: string[]) => promisify(execFile)('openssl', args, { cwd: dir });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  await run([
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca-key.pem',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=carrier-conformance test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  await run(['req', ...ec, '-keyout', 'server-key.pem', '-out', 'server.csr', '-subj', '/CN=127.0.0.1']);
  // RFC 6125 §6.4.4 / RFC 9110 §4.3.4: an IP reference identity is matched against an IP SAN only.
  await writeFile(
    join(dir, 'server-ext.cnf'),
    'subjectAltName=IP:127.0.0.1\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n',
  );
  await run([
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca-key.pem',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'server-ext.cnf',
  ]);
  return { caFile: join(dir, 'ca.pem'), certFile: join(dir, 'server.pem'), keyFile: join(dir, 'server-key.pem') };
}

/**
 * A client certificate for mutual TLS, signed by the CA `privateCa` made in `dir`: its key in
 * the clear, and the same key encrypted (PKCS#8, AES-256) with `passphrase`.
 */
export async function clientCertificate(
  dir: string,
  passphrase: string,
): Promise<{ certFile: string; keyFile: string; encryptedKeyFile: string }> {
  const run = (args: string[]) => promisify(execFile)('openssl', args, { cwd: dir });
  await run([
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    'client-key.pem',
    '-out',
    'client.csr',
    '-subj',
    '/CN=carrier-conformance test client',
  ]);
  await writeFile(
    join(dir, 'client-ext.cnf'),
    'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n',
  );
  await run([
    'x509',
    '-req',
    '-in',
    'client.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca-key.pem',
    '-CAcreateserial',
    '-out',
    'client.pem',
    '-days',
    '2',
    '-extfile',
    'client-ext.cnf',
  ]);
  await run([
    'pkcs8',
    '-topk8',
    '-v2',
    'aes-256-cbc',
    '-in',
    'client-key.pem',
    '-out',
    'client-key-encrypted.pem',
    '-passout',
    `pass:${passphrase}`,
  ]);
  return {
    certFile: join(dir, 'client.pem'),
    keyFile: join(dir, 'client-key.pem'),
    encryptedKeyFile: join(dir, 'client-key-encrypted.pem'),
  };
}

/** An HTTPS front for `upstream`, with the given certificate. */
export async function startTlsFront(
  upstream: string,
  certificate: Certificate,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createHttpsServer(
    { cert: certificate.cert, key: certificate.key },
    (req, res) => void forward(upstream, req, res).catch(() => res.destroy()),
  );
  return serveOnLoopback(server);
}

/** A forward proxy on loopback: CONNECT tunnels and absolute-form requests, counted. */
export async function startProxy(): Promise<{ url: string; tunnels: string[]; close(): Promise<void> }> {
  const tunnels: string[] = [];
  const sockets = new Set<Socket>();
  const server = createHttpServer((req, res) => {
    // Absolute-form (plain HTTP through the proxy): forward to the origin in the request line.
    const target = new URL(req.url ?? '/');
    tunnels.push(`GET-form ${target.host}`);
    req.url = `${target.pathname}${target.search}`;
    void forward(target.origin, req, res).catch(() => res.destroy());
  });
  server.on('connect', (req, client: Socket, head: Buffer) => {
    tunnels.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host ?? '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => s.destroy());
      s.on('close', () => sockets.delete(s));
    }
  });
  await onLoopback(server);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tunnels,
    close: () => {
      for (const s of sockets) s.destroy();
      server.closeAllConnections();
      return closeServer(server);
    },
  };
}
