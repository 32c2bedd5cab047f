/**
 * Servers the tests start themselves, on loopback only (the harness's tests talk to nothing else).
 */
import type { Server } from 'node:net';

/** Listens on a free port of 127.0.0.1; resolves to the origin (`http://127.0.0.1:PORT`). */
export async function onLoopback(server: Server, scheme: 'http' | 'https' = 'http'): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('a loopback server without a port');
  return `${scheme}://127.0.0.1:${address.port}`;
}

/** Closes a server, ending the connections it still holds (keep-alive ones would hold close up). */
export async function closeServer(server: Server & { closeAllConnections?: () => void }): Promise<void> {
  server.closeAllConnections?.();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
