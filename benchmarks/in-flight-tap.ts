import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

/**
 * The benchmark's gauge of requests in flight, as the client sees them: a TCP pass-through on
 * loopback placed between the harness and the delay line. HTTP/1.1 without pipelining (undici's
 * default, RFC 9112 §9.3.2) puts one request at a time on a connection, so a request is in flight
 * from the chunk that starts it (a method token and a space) to the first chunk of its answer
 * (`HTTP/1.`). The count's integral over time, from the first request to the last answer, gives
 * the average in flight; the time spent at each count, how long the bound was full. The network
 * phase measured starts at the first request whose request line matches `phaseStart` (the
 * battery's first request to the API under test, not the preflight before the runner starts).
 */
export interface InFlightTap {
  readonly url: string;
  /** Requests in flight now. */
  readonly inFlight: number;
  /** Starts a measurement afresh (between runs). */
  reset(): void;
  /** The measurement since the last reset. */
  read(): InFlightReading;
  close(): Promise<void>;
}

export interface InFlightReading {
  /** Requests seen. */
  requests: number;
  /** Most in flight at once. */
  peak: number;
  /** ms from the phase's first request to the last answer. */
  spanMs: number;
  /** Time-weighted average in flight over `spanMs`. */
  average: number;
  /** Fraction of `spanMs` with at least `n` in flight. */
  atLeast(n: number): number;
}

const REQUEST_START = /^(?:GET|HEAD|POST|PUT|DELETE|OPTIONS|PATCH) /;

export async function startInFlightTap(upstream: string, phaseStart: RegExp = /./): Promise<InFlightTap> {
  const target = new URL(upstream);
  const sockets = new Set<Socket>();
  let inFlight = 0;
  let requests = 0;
  let peak = 0;
  let first = NaN;
  let last = NaN;
  let changedAt = NaN;
  /** ms spent at each count, by count. */
  let timeAt: number[] = [];

  const change = (delta: number): void => {
    const now = performance.now();
    if (!Number.isNaN(first))
      timeAt[inFlight] =
        (timeAt[inFlight] ?? 0) + (now - (Number.isNaN(changedAt) ? first : Math.max(first, changedAt)));
    changedAt = now;
    last = now;
    inFlight = Math.max(0, inFlight + delta);
    peak = Math.max(peak, inFlight);
  };

  const server = createServer({ noDelay: true, allowHalfOpen: true }, (client) => {
    const up = connect({ host: target.hostname, port: Number(target.port), noDelay: true, allowHalfOpen: true });
    sockets.add(client).add(up);
    let pending = 0;
    client.on('data', (chunk: Buffer) => {
      const head = chunk.toString('latin1', 0, 200);
      if (REQUEST_START.test(head)) {
        if (Number.isNaN(first) && phaseStart.test(head.slice(0, head.indexOf('\r\n')))) first = performance.now();
        requests += 1;
        pending += 1;
        change(+1);
      }
      up.write(chunk);
    });
    up.on('data', (chunk: Buffer) => {
      if (pending > 0 && chunk.toString('latin1', 0, 7) === 'HTTP/1.') {
        pending -= 1;
        change(-1);
      }
      client.write(chunk);
    });
    const settle = (): void => {
      // A connection dropped with a request outstanding: it is no longer in flight.
      if (pending > 0) change(-pending);
      pending = 0;
    };
    client.on('end', () => up.end());
    up.on('end', () => client.end());
    for (const s of [client, up]) {
      s.on('error', () => {
        client.destroy();
        up.destroy();
      });
      s.on('close', () => {
        settle();
        sockets.delete(s);
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get inFlight() {
      return inFlight;
    },
    reset() {
      [requests, peak, first, last, changedAt, timeAt] = [0, inFlight, NaN, NaN, NaN, []];
    },
    read() {
      const spanMs = Number.isNaN(first) ? 0 : last - first;
      const weighted = timeAt.reduce((sum, t, n) => sum + (t ?? 0) * n, 0);
      return {
        requests,
        peak,
        spanMs,
        average: spanMs > 0 ? weighted / spanMs : 0,
        atLeast: (n) => (spanMs > 0 ? timeAt.reduce((sum, t, k) => sum + (k >= n ? (t ?? 0) : 0), 0) / spanMs : 0),
      };
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
