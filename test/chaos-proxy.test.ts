/**
 * The chaos proxy (test/support/chaos-proxy.ts) that test/latency.test.ts puts between the harness
 * and the reference server: its delay is the one asked for, it does not serialise traffic, bytes
 * come through intact and in order, and the idle close happens when it should.
 */
import { createHash, randomBytes } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChaosProxy, type ChaosProxy } from './support/chaos-proxy.js';
import { onLoopback, closeServer } from './support/loopback.js';

let echo: Server;
let echoUrl: string;
const proxies: ChaosProxy[] = [];
const clients: Socket[] = [];

beforeAll(async () => {
  // Echoes every byte back: the answer to a chunk is the chunk itself.
  echo = createServer({ allowHalfOpen: true }, (socket) => {
    socket.on('error', () => socket.destroy());
    socket.pipe(socket);
  });
  echoUrl = await onLoopback(echo);
});

afterAll(async () => {
  for (const client of clients) client.destroy();
  await Promise.all(proxies.map((p) => p.close()));
  await closeServer(echo);
});

async function proxy(options: { delayMs?: number; idleCloseMs?: number }): Promise<ChaosProxy> {
  const p = await startChaosProxy({ upstream: echoUrl, ...options });
  proxies.push(p);
  return p;
}

async function open(p: ChaosProxy): Promise<Socket> {
  const { port } = new URL(p.url);
  const socket = connect({ host: '127.0.0.1', port: Number(port), noDelay: true });
  clients.push(socket);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return socket;
}

/** Resolves with the bytes read once `length` have arrived (bounded by `timeoutMs`). */
function read(socket: Socket, length: number, timeoutMs = 5_000): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let got = 0;
    const timer = setTimeout(() => done(new Error(`read ${got} of ${length} bytes in ${timeoutMs} ms`)), timeoutMs);
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      got += chunk.length;
      if (got >= length) done();
    };
    const done = (error?: Error): void => {
      clearTimeout(timer);
      socket.off('data', onData);
      if (error) reject(error);
      else resolve(Buffer.concat(chunks));
    };
    socket.on('data', onData);
  });
}

function ended(socket: Socket, timeoutMs = 5_000): Promise<'end' | 'timeout'> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('timeout'), timeoutMs);
    socket.once('end', () => {
      clearTimeout(timer);
      resolve('end');
    });
  });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('the chaos proxy', () => {
  it('delays each direction by the one-way delay: a round trip takes twice it', async () => {
    const socket = await open(await proxy({ delayMs: 60 }));
    const rtts: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const started = performance.now();
      socket.write('ping');
      expect((await read(socket, 4)).toString()).toBe('ping');
      rtts.push(performance.now() - started);
    }
    // Timers fire no earlier than asked (give or take their 1 ms rounding); the upper bound only
    // says the delay is not much more, with room for a loaded machine.
    for (const rtt of rtts) {
      expect(rtt).toBeGreaterThanOrEqual(118);
      expect(rtt).toBeLessThan(400);
    }
  });

  it('is a delay line: chunks are in flight together, so throughput is not stalled', async () => {
    const socket = await open(await proxy({ delayMs: 100 }));
    const started = performance.now();
    const answer = read(socket, 20 * 3);
    for (let i = 0; i < 20; i += 1) {
      socket.write(String(i).padStart(3, '0'));
      await sleep(10);
    }
    const text = (await answer).toString();
    const elapsed = performance.now() - started;
    expect(text).toBe(Array.from({ length: 20 }, (_, i) => String(i).padStart(3, '0')).join(''));
    // 200 ms for the round trip plus ~200 ms of sending; a sleep per chunk would take 20 × 200 ms.
    expect(elapsed).toBeGreaterThanOrEqual(390);
    expect(elapsed).toBeLessThan(1_000);
  });

  it('passes 8 MiB through both ways intact and in order, with back-pressure', async () => {
    const p = await startChaosProxy({ upstream: echoUrl, delayMs: 5, maxQueuedBytes: 256 * 1024 });
    proxies.push(p);
    const socket = await open(p);
    const data = randomBytes(8 * 1024 * 1024);
    const answer = read(socket, data.length, 20_000);
    for (let offset = 0; offset < data.length; offset += 64 * 1024)
      socket.write(data.subarray(offset, offset + 64 * 1024));
    const back = await answer;
    expect(back.length).toBe(data.length);
    expect(createHash('sha256').update(back).digest('hex')).toBe(createHash('sha256').update(data).digest('hex'));
  });

  it('closes a connection idle after an answer (FIN), and counts it', async () => {
    const p = await proxy({ delayMs: 10, idleCloseMs: 150 });
    const socket = await open(p);
    socket.write('a');
    await read(socket, 1);
    const started = performance.now();
    expect(await ended(socket)).toBe('end');
    const idle = performance.now() - started;
    // Closed 150 ms after the gateway answered, seen one delay later.
    expect(idle).toBeGreaterThanOrEqual(140);
    expect(idle).toBeLessThan(1_000);
    expect(p.idleCloses).toBe(1);
    expect(p.connections).toBe(1);
    socket.end();
  });

  it('does not close a fresh connection before its first answer, however late the first request', async () => {
    const p = await proxy({ delayMs: 5, idleCloseMs: 100 });
    const socket = await open(p);
    await sleep(300);
    socket.write('e');
    expect((await read(socket, 1)).toString()).toBe('e');
    expect(p.idleCloses).toBe(0);
    socket.destroy();
  });

  it('does not close a connection that stays busy', async () => {
    const p = await proxy({ delayMs: 5, idleCloseMs: 400 });
    const socket = await open(p);
    for (let i = 0; i < 10; i += 1) {
      socket.write('b');
      await read(socket, 1);
      await sleep(50);
    }
    expect(p.idleCloses).toBe(0);
    socket.destroy();
  });

  it('loses what a client writes while the FIN is on its way: the race of a short keep-alive', async () => {
    const p = await proxy({ delayMs: 100, idleCloseMs: 200 });
    const socket = await open(p);
    socket.write('c');
    await read(socket, 1);
    // The gateway answered one delay (100 ms) ago and closes 200 ms after answering; its FIN
    // reaches the client 100 ms after that. A request written in between (100 ms from now, the
    // middle of that window) reaches a closed connection and is never answered.
    await sleep(100);
    let answered = false;
    socket.on('data', () => (answered = true));
    socket.write('d');
    expect(await ended(socket)).toBe('end');
    expect(answered).toBe(false);
    expect(p.idleCloses).toBe(1);
    expect(p.lateChunks).toBe(1);
    socket.destroy();
  });

  it('destroys every socket on close', async () => {
    const p = await startChaosProxy({ upstream: echoUrl, delayMs: 50 });
    const sockets = await Promise.all([open(p), open(p), open(p)]);
    for (const s of sockets) s.write('x');
    await sleep(20);
    expect(p.open).toBe(3);
    const closed = sockets.map((s) => new Promise<void>((resolve) => s.once('close', () => resolve())));
    for (const s of sockets) s.on('error', () => undefined);
    await p.close();
    await Promise.all(closed);
    expect(p.open).toBe(0);
  });
});
