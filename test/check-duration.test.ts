// A check's own duration (issue 32 item 4): every check starts at once, so the time its requests
// only waited for a slot behind other checks' is not its own (Recorder.slotWaitMs, CheckMeta.ownMs).
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkWatchdogMs } from '../src/battery/watchdog.js';
import { Recorder } from '../src/http/client.js';
import { CheckCollector } from '../src/runner/collector.js';
import { testClient } from './support/test-client.js';
import { onLoopback } from './support/loopback.js';

const SLOW_MS = 300;
let server: Server;
let origin = '';

beforeAll(async () => {
  server = createServer((_req, res) => setTimeout(() => res.end('ok'), SLOW_MS));
  origin = await onLoopback(server);
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('Recorder.slotWaitMs', () => {
  it("counts the time a request only waited for a slot behind another recorder's request, and nothing else", async () => {
    const http = testClient(origin, { maxInFlight: 1 });
    try {
      const first = new Recorder(false);
      const second = new Recorder(false);
      await Promise.all([
        http.send({ method: 'GET', url: `${origin}/a`, purpose: 'a' }, first),
        http.send({ method: 'GET', url: `${origin}/b`, purpose: 'b' }, second),
      ]);
      expect(first.slotWaitMs).toBeLessThan(50);
      expect(second.slotWaitMs).toBeGreaterThan(SLOW_MS * 0.8);
      // Its own requests one after another (a slot held, then waited for again) are not waits behind others.
      const third = new Recorder(false);
      await http.send({ method: 'GET', url: `${origin}/c`, purpose: 'c' }, third);
      await http.send({ method: 'GET', url: `${origin}/d`, purpose: 'd' }, third);
      expect(third.slotWaitMs).toBeLessThan(50);
    } finally {
      await http.close();
    }
  });
});

describe('CheckCollector', () => {
  it("reports a check's own time (CheckMeta.ownMs), not Vitest's wall time of its test", () => {
    const collector = new CheckCollector();
    const test = {
      name: 'TOKEN-ISSUE x',
      meta: () => ({
        carrier: {
          checkId: 'TOKEN-ISSUE',
          findings: [],
          notes: [],
          exchanges: [],
          requests: 1,
          sharedTokenRequests: 0,
          ownMs: 12.5,
        },
      }),
      result: () => ({ state: 'passed', errors: [] }),
      diagnostic: () => ({ duration: 9_100 }),
    };
    const module = {
      moduleId: '/x/battery.test.ts',
      relativeModuleId: 'battery.test.ts',
      errors: () => [],
      children: { allTests: () => [test] },
    };
    collector.onTestRunEnd([module] as never, [], 'passed');
    expect(collector.collected.tests.get('TOKEN-ISSUE')?.durationMs).toBe(12.5);
  });
});

describe('checkWatchdogMs', () => {
  it("grows with the endpoints a check judges: a document of 5,824 GETs (Microsoft Graph) is not cut at 200 s; a small one still is (before: LINK-* erred 'Test timed out in 200000ms')", () => {
    expect(checkWatchdogMs(10_000, 5)).toBe(200_000);
    expect(checkWatchdogMs(1_000, 0)).toBe(60_000);
    expect(checkWatchdogMs(10_000, 5_824)).toBeGreaterThan(3_600_000);
    expect(checkWatchdogMs(10_000, 33)).toBe(400_000);
  });
});
