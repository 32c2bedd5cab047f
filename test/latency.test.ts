/**
 * A verdict is about the target, not about the network or the pace of the run: against the same
 * conformant reference server, the battery must give the same verdict (every check passed, exit
 * 0) whatever the round trip, --concurrency, the length of the list and the token's lifetime,
 * and whether an idle keep-alive connection is closed under it. Each run goes through the chaos
 * proxy (test/support/chaos-proxy.ts), which adds the latency and plays the gateway.
 *
 * The sizes are calibrated on the 2-core machine (figures of today's harness, which other jobs
 * shared): a walk of 3000 pages of 1 item takes 8-9 s at --concurrency 16 and a 20 ms round trip,
 * 7-10 s at --concurrency 4 and 6 ms, each several lifetimes of a 2 s token; 150 pages at a 20 ms
 * round trip take ~4 s at --concurrency 1, 40 pages at 200 ms ~2 s at the default 4.
 */
import { describe, expect, it } from 'vitest';
import { notPassed, runScenario, verdictDifferences, type Outcome, type Scenario } from './support/verdicts.js';

/** expires_in of the reference server's tokens: short, so that walks outlast it and expiry is quick. */
const TOKEN_TTL_SECONDS = 2;

function describeRun(label: string, o: Outcome): string {
  const proxy = o.proxy
    ? `, proxy: ${o.proxy.connections} connections, ${o.proxy.idleCloses} idle closes, ${o.proxy.lateChunks} chunks lost to the close race`
    : '';
  const transport =
    o.transportErrors.length > 0 ? `\n  transport errors: ${o.transportErrors.slice(0, 10).join('; ')}` : '';
  return `${label}: exit ${o.code} in ${(o.elapsedMs / 1000).toFixed(1)} s, ${o.requests} requests, ${o.tokensIssued} tokens issued${proxy}${transport}`;
}

/** Fails with every check that did not pass, with its message and the run's circumstances. */
function expectAllPassed(label: string, o: Outcome): void {
  const problems = notPassed(o);
  expect(problems, `${describeRun(label, o)}\n  ${problems.join('\n  ')}`).toEqual([]);
}

/** Runs each scenario in turn (never together: they would slow each other down). */
async function runEach(scenarios: Record<string, Scenario>): Promise<[string, Outcome][]> {
  const out: [string, Outcome][] = [];
  for (const [label, scenario] of Object.entries(scenarios)) out.push([label, await runScenario(scenario)]);
  return out;
}

/** Fails unless every run gave the verdicts of the first, listing the checks that differ. */
function expectSameVerdicts(runs: [string, Outcome][]): void {
  const [first, ...rest] = runs;
  if (!first) return;
  for (const [label, o] of rest) {
    const differences = verdictDifferences(first[1], o, [first[0], label]);
    expect(
      differences,
      `the verdicts differ between ${first[0]} and ${label}:\n  ${differences.join('\n  ')}\n${describeRun(first[0], first[1])}\n${describeRun(label, o)}`,
    ).toEqual([]);
  }
}

describe('the verdicts do not depend on the network or the pace of the run', () => {
  it('are the same at 0 ms and at 200 ms round trip, with a 2 s token and the expiry suite', async () => {
    // 40 pages of 1: at 200 ms round trip the walk takes about as long as the token lives.
    const server = { tokenTtlSeconds: TOKEN_TTL_SECONDS, shipmentCount: 40 };
    const args = ['--page-size', '1'];
    const runs = await runEach({
      '0 ms RTT': { server, proxy: { delayMs: 0 }, args },
      '200 ms RTT': { server, proxy: { delayMs: 100 }, args },
    });
    expectSameVerdicts(runs);
    for (const [label, o] of runs) expectAllPassed(label, o);
  }, 120_000);

  it('are the same at --concurrency 1, 4 and 16', async () => {
    // 150 pages of 1 at 20 ms round trip: at --concurrency 1 the walk outlasts the token.
    const server = { tokenTtlSeconds: TOKEN_TTL_SECONDS, shipmentCount: 150 };
    const proxy = { delayMs: 10 };
    const runs = await runEach(
      Object.fromEntries(
        [1, 4, 16].map((c) => [
          `--concurrency ${c}`,
          { server, proxy, args: ['--page-size', '1', '--concurrency', String(c)] },
        ]),
      ),
    );
    expectSameVerdicts(runs);
    for (const [label, o] of runs) expectAllPassed(label, o);
  }, 120_000);

  it('pass a walk of 3000 pages that outlasts a 2 s token several times over, at --concurrency 4 and 16', async () => {
    const server = { tokenTtlSeconds: TOKEN_TTL_SECONDS, shipmentCount: 3000 };
    // A round trip per concurrency that makes each walk last three token lifetimes or more even
    // on a fast machine (3000 / 16 × 20 ms, 3000 / 4 × 6 ms, plus the harness's own time), and
    // no longer than needed: the test's time is the walk's.
    const walk = (concurrency: number, delayMs: number): Scenario => ({
      server,
      proxy: { delayMs },
      args: ['--page-size', '1', '--concurrency', String(concurrency)],
    });
    const runs = await runEach({
      '--concurrency 16, 20 ms RTT': walk(16, 10),
      '--concurrency 4, 6 ms RTT': walk(4, 3),
    });
    for (const [label, o] of runs) {
      expectAllPassed(label, o);
      // The premise: the run outlasted the token at least twice; if the harness ever gets this
      // fast, the list must grow for the test to keep its point.
      expect(o.elapsedMs, `${describeRun(label, o)}: too fast to outlast the token`).toBeGreaterThan(
        2 * TOKEN_TTL_SECONDS * 1000,
      );
    }
    expectSameVerdicts(runs);
  }, 180_000);

  it('are not errors when a gateway closes connections idle for 300 ms (no "other side closed")', async () => {
    // At 100 ms round trip, a request sent onto a connection that the client has seen idle for
    // 200 to 300 ms crosses the gateway's FIN: the connection is closed under it. The run is
    // spaced enough (each exchange takes 100 ms) for many connections to sit idle that long.
    const o = await runScenario({
      server: { tokenTtlSeconds: TOKEN_TTL_SECONDS },
      proxy: { delayMs: 50, idleCloseMs: 300 },
    });
    const closed = [...o.verdicts]
      .filter(([, v]) => /other side closed|closed unexpectedly/.test(v.message ?? ''))
      .map(([id, v]) => `${id}: ${v.status} (${v.message ?? ''})`);
    expect(closed, `${describeRun('idle close 300 ms, 100 ms RTT', o)}\n  ${closed.join('\n  ')}`).toEqual([]);
    expectAllPassed('idle close 300 ms, 100 ms RTT', o);
    // The premise: the gateway did close idle connections during the run.
    expect(o.proxy?.idleCloses ?? 0).toBeGreaterThan(0);
  }, 60_000);
});
