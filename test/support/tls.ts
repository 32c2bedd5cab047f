import { execFile } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { forward } from './hostile.js';
import { tempDir } from './harness.js';

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
  await promisify(execFile)('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1']);
  return { certFile, cert: await readFile(certFile, 'utf8'), key: await readFile(keyFile, 'utf8') };
}

/** An HTTPS front for `upstream`, with the given certificate. */
export async function startTlsFront(upstream: string, certificate: Certificate): Promise<{ url: string; close(): Promise<void> }> {
  const server = createHttpsServer({ cert: certificate.cert, key: certificate.key }, (req, res) => void forward(upstream, req, res).catch(() => res.destroy()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tunnels,
    close: () => {
      for (const s of sockets) s.destroy();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
