import { connect, createServer, type Server, type Socket } from 'node:net';
import { closeServer, onLoopback } from './loopback.js';

/**
 * A TCP proxy on loopback that plays a far-away gateway in front of an upstream server:
 *
 * - latency: every chunk, in each direction, reaches the other side `delayMs` after it was sent
 *   (one way; the round trip is twice that). It is a delay line, not a sleep per connection:
 *   chunks are in flight together and leave in the order they came, so throughput is not
 *   stalled, only shifted in time;
 * - a short keep-alive timeout: with `idleCloseMs`, a connection on which the gateway has answered
 *   and then heard nothing for that long is closed by the gateway (FIN, as a gateway or load
 *   balancer with a short keep-alive timeout does). The FIN needs `delayMs` to reach the client,
 *   so a request the client writes meanwhile meets a connection that is already closed: the race
 *   behind "other side closed" (RFC 9112 §9.3.1 lets a client retry such an idempotent request).
 *
 * The gateway stands at the upstream's end of the link: it sees a request `delayMs` after the
 * client sent it, and its idle timer counts from the last chunk it sent back, so a request is
 * never cut off while the gateway waits for the upstream's answer.
 */

export interface ChaosProxyOptions {
  /** The server behind the proxy, e.g. 'http://127.0.0.1:41234' (only host and port are used). */
  upstream: string;
  /** One-way delay of every chunk and every FIN, in ms (default 0: forwarded at once). */
  delayMs?: number;
  /** Close a connection that has been idle this long after an answer (default: never). */
  idleCloseMs?: number;
  /** Bytes queued in one direction (delay line and socket buffer) before the sender is paused. */
  maxQueuedBytes?: number;
  /** Connections accepted at once; more are refused by the listening socket. */
  maxConnections?: number;
}

export interface ChaosProxy {
  /** 'http://127.0.0.1:port': the base URL to give the client instead of the upstream's. */
  readonly url: string;
  /** Client connections accepted so far. */
  readonly connections: number;
  /** Client connections open now. */
  readonly open: number;
  /** Connections the gateway closed for being idle. */
  readonly idleCloses: number;
  /** Chunks a client sent onto a connection the gateway had already closed (the race happened). */
  readonly lateChunks: number;
  /** Stops listening and destroys every socket. */
  close(): Promise<void>;
}

type Entry = { due: number; chunk: Buffer } | { due: number; end: true };

/**
 * One direction of the link: chunks go in, and come out `delayMs` later in the same order. One
 * timer, for the head of the queue; a constant delay keeps the due times in order.
 */
class DelayLine {
  readonly #queue: Entry[] = [];
  #timer: NodeJS.Timeout | undefined;
  #queuedBytes = 0;

  constructor(
    private readonly delayMs: number,
    private readonly deliver: (chunk: Buffer) => void,
    private readonly deliverEnd: () => void,
  ) {}

  get queuedBytes(): number {
    return this.#queuedBytes;
  }

  push(chunk: Buffer): void {
    if (this.delayMs <= 0 && this.#queue.length === 0) return this.deliver(chunk);
    this.#queuedBytes += chunk.length;
    this.#enqueue({ due: Date.now() + this.delayMs, chunk });
  }

  /** The FIN travels behind the data sent before it. */
  pushEnd(): void {
    if (this.delayMs <= 0 && this.#queue.length === 0) return this.deliverEnd();
    this.#enqueue({ due: Date.now() + this.delayMs, end: true });
  }

  /** Drops what is on the way; returns how many chunks were dropped. */
  clear(): number {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const dropped = this.#queue.filter((e) => 'chunk' in e).length;
    this.#queue.length = 0;
    this.#queuedBytes = 0;
    return dropped;
  }

  #enqueue(entry: Entry): void {
    this.#queue.push(entry);
    if (this.#timer === undefined) this.#arm();
  }

  #arm(): void {
    const head = this.#queue[0];
    if (head === undefined) return;
    this.#timer = setTimeout(() => this.#flush(), Math.max(0, head.due - Date.now()));
  }

  #flush(): void {
    this.#timer = undefined;
    const now = Date.now();
    while (this.#queue.length > 0 && (this.#queue[0]?.due ?? Infinity) <= now) {
      const entry = this.#queue.shift() as Entry;
      if ('end' in entry) {
        this.deliverEnd();
      } else {
        this.#queuedBytes -= entry.chunk.length;
        this.deliver(entry.chunk);
      }
    }
    this.#arm();
  }
}

export async function startChaosProxy(options: ChaosProxyOptions): Promise<ChaosProxy> {
  const target = new URL(options.upstream);
  const upstreamPort = Number(target.port || 80);
  const upstreamHost = target.hostname.replace(/^\[|\]$/g, '');
  const delayMs = options.delayMs ?? 0;
  const maxQueued = options.maxQueuedBytes ?? 4 * 1024 * 1024;
  const stats = { connections: 0, idleCloses: 0, lateChunks: 0 };
  const sockets = new Set<Socket>();
  const clients = new Set<Socket>();
  const teardowns = new Set<() => void>();

  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  };

  /**
   * `from` → delay line → `to`, with back-pressure: the sender is paused while more than
   * `maxQueued` bytes are on the way, so a fast sender cannot grow the queue without bound.
   */
  const link = (from: Socket, to: Socket, onDelivered: (chunk: Buffer) => void): DelayLine => {
    const backlog = (): number => line.queuedBytes + to.writableLength;
    const line: DelayLine = new DelayLine(
      delayMs,
      (chunk) => {
        if (to.destroyed) return;
        onDelivered(chunk);
        to.write(chunk);
        if (from.isPaused() && backlog() <= maxQueued / 2) from.resume();
      },
      () => {
        if (!to.destroyed) to.end();
      },
    );
    to.on('drain', () => {
      if (from.isPaused() && backlog() <= maxQueued / 2) from.resume();
    });
    from.on('data', (chunk: Buffer) => {
      line.push(chunk);
      if (backlog() > maxQueued) from.pause();
    });
    return line;
  };

  const server: Server = createServer({ allowHalfOpen: true, noDelay: true }, (client) => {
    stats.connections += 1;
    track(client);
    clients.add(client);
    client.on('close', () => clients.delete(client));
    const upstream = connect({ host: upstreamHost, port: upstreamPort, allowHalfOpen: true, noDelay: true });
    track(upstream);

    // The gateway's side of the keep-alive timeout (see the module comment).
    let closedByGateway = false;
    let idleTimer: NodeJS.Timeout | undefined;
    let graceTimer: NodeJS.Timeout | undefined;
    const stopIdleTimer = (): void => {
      clearTimeout(idleTimer);
      idleTimer = undefined;
    };
    const startIdleTimer = (): void => {
      stopIdleTimer();
      if (options.idleCloseMs !== undefined) idleTimer = setTimeout(closeIdle, options.idleCloseMs);
    };

    const toUpstream = link(client, upstream, () => stopIdleTimer());
    const toClient = link(upstream, client, () => undefined);
    // The gateway answers: from now on the connection is idle until the next request arrives.
    upstream.on('data', () => startIdleTimer());

    function closeIdle(): void {
      idleTimer = undefined;
      closedByGateway = true;
      stats.idleCloses += 1;
      upstream.destroy();
      // Requests still on their way to the gateway are lost with the connection.
      stats.lateChunks += toUpstream.clear();
      // The FIN reaches the client one delay later; a client that has not closed its side by
      // then is cut off after a grace period, as the gateway's kernel would reset it.
      toClient.pushEnd();
      graceTimer = setTimeout(() => client.destroy(), 2 * delayMs + 1_000);
    }

    // Whatever the client sends after the gateway closed is lost, not forwarded.
    client.prependListener('data', () => {
      if (closedByGateway) stats.lateChunks += 1;
    });
    client.on('end', () => {
      if (!closedByGateway) toUpstream.pushEnd();
    });
    upstream.on('end', () => toClient.pushEnd());

    const teardown = (): void => {
      stopIdleTimer();
      clearTimeout(graceTimer);
      toUpstream.clear();
      toClient.clear();
      client.destroy();
      upstream.destroy();
      teardowns.delete(teardown);
    };
    teardowns.add(teardown);
    client.on('error', teardown);
    upstream.on('error', teardown);
    client.on('close', teardown);
    // The upstream closing on its own is passed on with its FIN; after the gateway's idle close,
    // the client's socket lives on until the FIN has reached it.
    upstream.on('close', () => {
      if (!closedByGateway && upstream.readableEnded === false) teardown();
    });
    // No idle timer before the first answer: a keep-alive timeout counts from an answer. (Timed
    // from the accept, a client whose thread was busy for the timeout between connecting and
    // writing its first request, as the harness's can be when tests share the machine, met a
    // close on a fresh connection: a race of this proxy, not the keep-alive race it stands for.)
  });
  server.maxConnections = options.maxConnections ?? 512;

  const url = await onLoopback(server);

  let closing: Promise<void> | undefined;
  return {
    url,
    get connections() {
      return stats.connections;
    },
    get open() {
      return clients.size;
    },
    get idleCloses() {
      return stats.idleCloses;
    },
    get lateChunks() {
      return stats.lateChunks;
    },
    close() {
      closing ??= (async () => {
        const listening = closeServer(server);
        const closed = [...sockets].map(
          (s) => new Promise<void>((resolve) => (s.closed ? resolve() : s.once('close', () => resolve()))),
        );
        for (const teardown of [...teardowns]) teardown();
        for (const socket of sockets) socket.destroy();
        await Promise.all([listening, ...closed]);
      })();
      return closing;
    },
  };
}
