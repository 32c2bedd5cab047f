/**
 * `npm run bench`: how long the harness takes and how much memory it needs, against what it
 * cannot do without. Every figure is the median of the runs (min–max), measured in this one
 * process run, the runs of compared figures interleaved so that the ratios hold on a noisy
 * machine. Each harness run is the real CLI process (`bin/carrier-conformance.js`), timed from
 * spawn to exit; the servers are reference servers started here, on loopback.
 *
 * 1. start-up: the default battery (the embedded server's API and OpenAPI document, expiry
 *    excluded), against the runner's floor (a bare `vitest run` of one trivial test) and the
 *    work's floor (a plain undici script replaying the same requests).
 * 2. round trips: the same battery through a TCP delay line (test/support/chaos-proxy.ts) at two
 *    round-trip times; the slope of the wall time is the number of round trips on its critical
 *    path.
 * 3. expiry overlap: the whole battery with a token lifetime T of 5 s, minus T.
 * 4. list walks: the pagination, nulls and resources suites over 100 000 and 1 000 000 items in
 *    pages of 100, against a plain undici walk of the same pages at the same concurrency; the
 *    harness's peak RSS (the whole process, workers included) at both sizes.
 * 5. adaptive concurrency: a walk of 200 pages at a 40 ms round trip, with the default
 *    concurrency and with --concurrency 4.
 * 6. scale: the battery against a generated API of 200 tenant operations, and of 20.
 * 7. requests: how many a full run sends, and how many go to the token endpoint.
 * 8. a wide API: the battery against a generated API of 300 tenant operations (150 lists of 45
 *    items, 150 resources by id), through a delay line at 50 ms and at 0 ms round trip: its wall
 *    time against the politeness bound's (requests × RTT ÷ the bound in flight, plus the run's
 *    start-up), its CPU per request (also beyond the fixed CPU of a run against 2 operations),
 *    the requests it keeps in flight (a gauge between the harness and the delay line,
 *    benchmarks/in-flight-tap.ts), and its peak RSS.
 *
 * BENCH_RUNS (default 5) and BENCH_WALK_RUNS (default 3, for the long walks) set the runs;
 * BENCH_ONLY=2,4 runs some sections; BENCH_WALK_ITEMS=100000 walks one size only. BENCH_BEFORE=DIR (another checkout of the harness, built)
 * adds its CLI beside this one in sections 1, 2, 4, 5, 6 and 8, runs interleaved: before and after
 * side by side, measured in one run. The figures are printed and written to reports/bench.json.
 */
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { generatedOpenApi } from '../src/reference/generated.js';
import { startReferenceServer, type ReferenceOptions, type ReferenceServer } from '../src/reference/index.js';
import type { RunReport } from '../src/model/run-report.js';
import { startChaosProxy, type ChaosProxy } from '../test/support/chaos-proxy.js';
import { MAX_IN_FLIGHT } from '../src/http/limit.js';
import { startInFlightTap, type InFlightReading, type InFlightTap } from './in-flight-tap.js';
import {
  interleave,
  markAt,
  ms,
  mustExit,
  peakRssMb,
  ROOT,
  BIN,
  stats,
  timed,
  timedWithUsage,
  HAS_TIME,
  type Stats,
  type Timed,
  type Used,
} from './measure.js';

/** The harness under test ('after'), and with BENCH_BEFORE the one it is compared with ('before'). */
interface Version {
  name: 'after' | 'before';
  bin: string;
}
const BEFORE = process.env.BENCH_BEFORE;
const VERSIONS: Version[] = [
  { name: 'after', bin: BIN },
  ...(BEFORE ? [{ name: 'before' as const, bin: join(BEFORE, 'bin/carrier-conformance.js') }] : []),
];
/** A figure's label, naming the version only when two are compared. */
const label = (what: string, v: Version): string => (VERSIONS.length > 1 ? `${what} [${v.name}]` : what);

const HERE = new URL('.', import.meta.url).pathname;
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 5));
const WALK_RUNS = Math.max(1, Number(process.env.BENCH_WALK_RUNS ?? 3));
const ONLY = new Set((process.env.BENCH_ONLY ?? '1,2,3,4,5,6,7,8').split(',').map(Number));
const WITHOUT_EXPIRY = [
  'token',
  'auth',
  'versioning',
  'user',
  'legacy',
  'tenant',
  'pagination',
  'nulls',
  'resources',
].flatMap((s) => ['--suite', s]);
const WALK_SUITES = ['pagination', 'nulls', 'resources'].flatMap((s) => ['--suite', s]);
/** Round-trip times of the latency figure: 2 × the proxy's one-way delay; far apart, so that the slope stands above the noise of a shared machine (±0.3 s). */
const RTTS_MS = [80, 400] as const;
const EXPIRY_TTL_SECONDS = 5;
/** Section 8: generated lists of this many items (a page of the default size 10, so five pages each) and as many resources by id. */
const WIDE_COLLECTIONS = 150;
const WIDE_ITEMS = 45;
/** Section 8's round-trip times: a far-away API, and none (where the harness's own CPU is the limit). */
const WIDE_RTTS_MS = [50, 0] as const;
/** BENCH_WALK_ITEMS=100000 walks that one size only: quicker, without the RSS growth figure, which needs both. */
const WALK_SIZES: readonly number[] = process.env.BENCH_WALK_ITEMS
  ? [Number(process.env.BENCH_WALK_ITEMS)]
  : [100_000, 1_000_000];
const WALK_PAGE_SIZE = 100;
const WALK_CONCURRENCY = 4;
/** Requests the work floor's replay has in flight. */
const REPLAY_CONCURRENCY = 16;

const work = await mkdtemp(join(tmpdir(), 'carrier-bench-'));
process.stderr.write(
  `carrier-conformance benchmark: ${RUNS} runs (${WALK_RUNS} of the long walks), in ${work}, load ${loadavg()[0]?.toFixed(2)}\n`,
);

interface Target {
  url: string;
  server: ReferenceServer;
}

/** The harness against a reference server (directly, or through a proxy at `url`), with the profile on. */
function harness(
  t: Target,
  reportsDir: string,
  args: readonly string[],
  version: Version = VERSIONS[0] as Version,
): Promise<Timed> {
  const { server } = t;
  return timed(
    [
      version.bin,
      'run',
      '--base-url',
      t.url,
      '--client-id',
      server.clientId,
      '--foreign-tenant-id',
      server.foreignTenantId,
      '--reports-dir',
      reportsDir,
      ...args,
    ],
    {
      CARRIER_CLIENT_SECRET: server.clientSecret,
      CARRIER_PROFILE: '1',
    },
  );
}

function readReport(dir: string): RunReport {
  return JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as RunReport;
}

let runCounter = 0;
const freshDir = (what: string): string => join(work, `${what}-${(runCounter += 1)}`);

async function expectationsOf(server: ReferenceServer): Promise<string> {
  const file = join(work, 'expectations.json');
  await writeFile(file, JSON.stringify(server.expectations));
  return file;
}

const server = (options: ReferenceOptions): Promise<ReferenceServer> => startReferenceServer(options);
const figures: Record<string, unknown> = {};
const lines: string[] = [];
const targets: { name: string; target: string; measured: string; met: boolean }[] = [];

// ── 1. start-up ─────────────────────────────────────────────────────────────────────────────
if (ONLY.has(1)) {
  const s = await server({ tokenTtlSeconds: 300, recordRequests: true });
  const args = [...WITHOUT_EXPIRY, '--openapi', s.openapiFile, '--expectations', await expectationsOf(s)];
  const requests: Partial<Record<Version['name'], number>> = {};
  const batteryRun = async (v: Version): Promise<Timed> => {
    const before = s.requestLog().length;
    const t = await harness({ url: s.url, server: s }, freshDir('battery'), args, v);
    requests[v.name] = s.requestLog().length - before;
    return t;
  };
  // The requests of this version's run, for the work floor to replay.
  mustExit(0)(await batteryRun(VERSIONS[0] as Version));
  const replayFile = join(work, 'requests.json');
  await writeFile(replayFile, JSON.stringify(s.requestLog().slice(-(requests.after ?? 0))));
  const results = await interleave(
    RUNS,
    ...VERSIONS.map((v) => ({
      what: label('battery (expiry excluded)', v),
      run: () => batteryRun(v),
      check: mustExit(0),
    })),
    {
      what: 'runner floor (vitest run, one trivial test)',
      run: () => timed([join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--root', join(ROOT, 'benchmarks/floor')]),
      check: mustExit(0),
    },
    {
      what: 'work floor (undici replay)',
      run: () => timed([join(HERE, 'replay.js'), replayFile, s.url, String(REPLAY_CONCURRENCY)]),
      check: mustExit(0),
    },
  );
  await s.close();
  const runnerFloor = results[VERSIONS.length] ?? [];
  const workFloor = results[VERSIONS.length + 1] ?? [];
  const rf = stats(runnerFloor.map((t) => t.ms));
  const wf = stats(workFloor.map((t) => t.ms));
  const startUp: Record<string, unknown> = { runnerFloor: rf, workFloor: wf };
  for (const [i, v] of VERSIONS.entries()) {
    const battery = results[i] ?? [];
    const b = stats(battery.map((t) => t.ms));
    const phases = [
      'cli: modules loaded',
      'run: target resolved',
      'run: preflight done',
      'battery: vitest created',
      'battery.test.js started',
      'battery.test.js ended',
      'run: reports written',
    ].map((p) => [p, stats(battery.map((t) => markAt(t, p)))] as const);
    startUp[v.name] = {
      harness: b,
      overRunnerFloorMs: b.median - rf.median,
      requests: requests[v.name],
      phases: Object.fromEntries(phases.map(([p, st]) => [p, st.median])),
    };
    lines.push(
      `1. ${label('battery, expiry excluded', v)}`.padEnd(35) +
        ` ${ms(b)} (+${b.median - rf.median} over the runner floor), ${requests[v.name]} requests`,
      `   phases (ms since start)         ${phases.map(([p, st]) => `${p.replace(/^\w+: /, '').replace('battery.test.js ', 'checks ')} ${st.median}`).join(', ')}`,
    );
    if (v.name === 'after')
      targets.push({
        name: 'start-up: battery within the runner floor + 0.5 s',
        target: `<= ${rf.median + 500} ms`,
        measured: `${b.median} ms (+${b.median - rf.median})`,
        met: b.median <= rf.median + 500,
      });
  }
  figures.startUp = startUp;
  lines.push(`   runner floor (vitest, 1 test)   ${ms(rf)}`, `   work floor (undici replay)      ${ms(wf)}`);
}

// ── 2. round trips ──────────────────────────────────────────────────────────────────────────
if (ONLY.has(2)) {
  const s = await server({ tokenTtlSeconds: 300, recordRequests: true });
  const args = [...WITHOUT_EXPIRY, '--openapi', s.openapiFile, '--expectations', await expectationsOf(s)];
  const proxies: ChaosProxy[] = [];
  for (const rtt of RTTS_MS) proxies.push(await startChaosProxy({ upstream: s.url, delayMs: rtt / 2 }));
  const requests: Partial<Record<Version['name'], number>> = {};
  const contenders = VERSIONS.flatMap((v) =>
    proxies.map((p, i) => ({
      what: label(`battery at ${RTTS_MS[i]} ms round trip`, v),
      check: mustExit(0),
      run: async () => {
        const before = s.requestCount();
        const t = await harness({ url: p.url, server: s }, freshDir('latency'), args, v);
        requests[v.name] = s.requestCount() - before;
        return t;
      },
    })),
  );
  const results = await interleave(RUNS, ...contenders);
  for (const p of proxies) await p.close();
  await s.close();
  const roundTrips: Record<string, unknown> = { rttsMs: RTTS_MS };
  for (const [k, v] of VERSIONS.entries()) {
    const [low, high] = results
      .slice(k * RTTS_MS.length, (k + 1) * RTTS_MS.length)
      .map((r) => stats(r.map((t) => t.ms))) as [Stats, Stats];
    const slope = Math.round(((high.median - low.median) / (RTTS_MS[1] - RTTS_MS[0])) * 10) / 10;
    const intercept = Math.round(low.median - slope * RTTS_MS[0]);
    roundTrips[v.name] = {
      wall: { [RTTS_MS[0]]: low, [RTTS_MS[1]]: high },
      slopeRtts: slope,
      interceptMs: intercept,
      requests: requests[v.name],
    };
    lines.push(
      `2. ${label('battery through a delay line', v)}`.padEnd(35) +
        ` ${RTTS_MS[0]} ms RTT: ${ms(low)}; ${RTTS_MS[1]} ms RTT: ${ms(high)}; ${requests[v.name]} requests`,
      `                                   = ${intercept} ms + ${slope} × RTT`,
    );
    if (v.name === 'after')
      targets.push({
        name: 'round trips on the critical path (expiry excluded)',
        target: '<= 8',
        measured: `${slope}`,
        met: slope <= 8,
      });
  }
  figures.roundTrips = roundTrips;
}

// ── 3. expiry overlap ───────────────────────────────────────────────────────────────────────
let fullRun: { served: number; tokenEndpoint: number; sharedToken: number } | undefined;
if (ONLY.has(3) || ONLY.has(7)) {
  const s = await server({ tokenTtlSeconds: EXPIRY_TTL_SECONDS, recordRequests: true });
  const args = ['--openapi', s.openapiFile, '--expectations', await expectationsOf(s)];
  const [full = []] = await interleave(ONLY.has(3) ? RUNS : 1, {
    what: `full battery, T = ${EXPIRY_TTL_SECONDS} s`,
    check: mustExit(0),
    run: async () => {
      const before = s.requestLog().length;
      const dir = freshDir('full');
      const t = await harness({ url: s.url, server: s }, dir, args);
      const log = s.requestLog().slice(before);
      fullRun = {
        served: log.length,
        tokenEndpoint: log.filter((r) => r.endpoint === '/uaa/oauth2/token').length,
        sharedToken: readReport(dir).stats?.sharedTokenRequests ?? NaN,
      };
      return t;
    },
  });
  await s.close();
  if (ONLY.has(3)) {
    const overlap = stats(full.map((t) => t.ms - EXPIRY_TTL_SECONDS * 1000));
    figures.expiryOverlap = { tokenLifetimeSeconds: EXPIRY_TTL_SECONDS, beyondT: overlap };
    lines.push(`3. expiry overlap (T = ${EXPIRY_TTL_SECONDS} s)        ${ms(overlap)} beyond T`);
    targets.push({
      name: 'expiry overlap at most 1.5 s beyond T',
      target: '<= 1500 ms',
      measured: `${overlap.median} ms`,
      met: overlap.median <= 1500,
    });
  }
}

// ── 4. list walks ───────────────────────────────────────────────────────────────────────────
async function bearerFor(s: ReferenceServer): Promise<string> {
  const form = (v: string): string => new URLSearchParams([['', v]]).toString().slice(1);
  const res = await request(`${s.url}/uaa/oauth2/token`, {
    method: 'POST',
    headers: {
      'accept-version': '1',
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${form(s.clientId)}:${form(s.clientSecret)}`).toString('base64')}`,
    },
    body: 'grant_type=client_credentials',
  });
  return ((await res.body.json()) as { access_token: string }).access_token;
}

if (ONLY.has(4)) {
  const walkFigures: Record<string, unknown> = {};
  const peaks: number[] = [];
  for (const items of WALK_SIZES) {
    const s = await server({
      tokenTtlSeconds: 600,
      shipmentCount: items,
      pageSizeDefault: WALK_PAGE_SIZE,
      pageSizeMax: WALK_PAGE_SIZE,
    });
    const args = [
      ...WALK_SUITES,
      '--openapi',
      s.openapiFile,
      '--expectations',
      await expectationsOf(s),
      '--page-size',
      String(WALK_PAGE_SIZE),
      '--concurrency',
      String(WALK_CONCURRENCY),
      '--reporter',
      'json',
    ];
    const token = await bearerFor(s);
    const harnessPhase: number[][] = VERSIONS.map(() => []);
    const plainPhase: number[] = [];
    // Full and young garbage collections in the walk: the battery worker's (its profile line), the plain walk's.
    const harnessFull: number[][] = VERSIONS.map(() => []);
    const harnessYoung: number[][] = VERSIONS.map(() => []);
    const plainFull: number[] = [];
    const plainYoung: number[] = [];
    const runs = items > 100_000 ? WALK_RUNS : RUNS;
    const results = await interleave(
      runs,
      ...VERSIONS.map((v, k) => ({
        what: label(`walk of ${items} items, harness`, v),
        check: mustExit(0),
        show: (t: Timed) => `${Math.round(t.ms)} ms, peak RSS ${peakRssMb(t)} MB`,
        run: async () => {
          const dir = freshDir('walk');
          const t = await harness({ url: s.url, server: s }, dir, args, v);
          // PAGE-WALK waits for the whole walk, which starts with the battery.
          harnessPhase[k]?.push(readReport(dir).checks.find((c) => c.id === 'PAGE-WALK')?.durationMs ?? NaN);
          // The walk of the big list (the battery walks its other lists too, a page or so each).
          const [gc] = [
            ...t.stderr.matchAll(/walk of [^:]*: (\d+) pages, (\d+) full and (\d+) young collections/g),
          ].sort((a, b) => Number(b[1]) - Number(a[1]));
          harnessFull[k]?.push(Number(gc?.[2] ?? NaN));
          harnessYoung[k]?.push(Number(gc?.[3] ?? NaN));
          return t;
        },
      })),
      {
        what: `walk of ${items} items, plain undici`,
        run: () =>
          timed([
            join(HERE, 'plain-walk.js'),
            `${s.url}/tenants/${s.tenantId}/shipments`,
            token,
            String(WALK_PAGE_SIZE),
            String(WALK_CONCURRENCY),
          ]),
        check: (t: Timed) => {
          const [seen, elapsed, full, young] = t.stdout.trim().split(' ');
          if (seen !== String(items)) throw new Error(`the plain walk saw ${seen} items`);
          plainPhase.push(Number(elapsed));
          plainFull.push(Number(full));
          plainYoung.push(Number(young));
        },
      },
    );
    await s.close();
    const pw = stats((results[VERSIONS.length] ?? []).map((t) => t.ms));
    const pp = stats(plainPhase);
    const sizeFigures: Record<string, unknown> = {
      pageSize: WALK_PAGE_SIZE,
      concurrency: WALK_CONCURRENCY,
      plain: { process: pw, walk: pp },
    };
    for (const [k, v] of VERSIONS.entries()) {
      const harnessWalk = results[k] ?? [];
      const hw = stats(harnessWalk.map((t) => t.ms));
      const hp = stats(harnessPhase[k] ?? []);
      const rss = stats(harnessWalk.map(peakRssMb));
      const ratio = Math.round((hp.median / pp.median) * 100) / 100;
      // A build without the walk's profile line (before it was added) has no collection counts.
      const counted = (harnessFull[k] ?? []).some(Number.isFinite);
      const full = stats((harnessFull[k] ?? []).filter(Number.isFinite));
      const young = stats((harnessYoung[k] ?? []).filter(Number.isFinite));
      const collections = counted ? `${full.median} full, ${young.median} young` : 'not reported by this build';
      sizeFigures[v.name] = {
        process: hw,
        walk: hp,
        ratio,
        peakRssMb: rss,
        ...(counted ? { fullCollections: full, youngCollections: young } : {}),
      };
      lines.push(
        `4. ${label(`walk of ${items} items by ${WALK_PAGE_SIZE}`, v)}`.padEnd(35) +
          ` walks: harness ${ms(hp)}, plain ${ms(pp)}, ratio ${ratio}`,
        `${''.padEnd(35)} processes: harness ${ms(hw)}, plain ${ms(pw)}; harness peak RSS ${rss.median} MB (${rss.min}–${rss.max})`,
        `${''.padEnd(35)} garbage collections (medians): harness's battery worker ${collections}; plain walk ${stats(plainFull).median} full, ${stats(plainYoung).median} young`,
      );
      if (v.name !== 'after') continue;
      peaks.push(rss.median);
      targets.push({
        name: `walk of ${items} items at most 1.3 x a plain undici walk`,
        target: '<= 1.3',
        measured: `${ratio}`,
        met: ratio <= 1.3,
      });
      if (items === 1_000_000)
        targets.push({
          name: 'walk of 1 000 000 items: peak RSS under 200 MB',
          target: '< 200 MB',
          measured: `${rss.max} MB (max)`,
          met: rss.max < 200,
        });
    }
    walkFigures[items] = sizeFigures;
  }
  figures.listWalks = walkFigures;
  const [small, large] = peaks;
  if (small !== undefined && large !== undefined) {
    const growth = Math.round((large / small - 1) * 1000) / 10;
    walkFigures.rssGrowthPercent = growth;
    targets.push({
      name: 'walk peak RSS the same at 100 000 and 1 000 000 items',
      target: '<= +10 %',
      measured: `${growth >= 0 ? '+' : ''}${growth} %`,
      met: growth <= 10,
    });
  }
}

// ── 5. adaptive concurrency ─────────────────────────────────────────────────────────────────
if (ONLY.has(5)) {
  const s = await server({ tokenTtlSeconds: 600, shipmentCount: 2000 });
  const proxy = await startChaosProxy({ upstream: s.url, delayMs: 20 });
  const base = ['--suite', 'pagination', '--paged-path', 'shipments'];
  const concurrencyOf = (dir: string): string =>
    readReport(dir)
      .checks.flatMap((c) => c.notes)
      .find((n) => /concurrency/.test(n)) ?? '(not reported)';
  const reached: string[] = [];
  const results = await interleave(
    RUNS,
    ...VERSIONS.map((v) => ({
      what: label('walk of 200 pages at 40 ms RTT, default concurrency', v),
      check: mustExit(0),
      run: async () => {
        const dir = freshDir('adaptive');
        const t = await harness({ url: proxy.url, server: s }, dir, base, v);
        if (v.name === 'after') reached.push(concurrencyOf(dir));
        return t;
      },
    })),
    {
      what: 'walk of 200 pages at 40 ms RTT, --concurrency 4',
      check: mustExit(0),
      run: () => harness({ url: proxy.url, server: s }, freshDir('fixed'), [...base, '--concurrency', '4']),
    },
  );
  await proxy.close();
  await s.close();
  const f = stats((results[VERSIONS.length] ?? []).map((t) => t.ms));
  const adaptive: Record<string, unknown> = { pages: 200, rttMs: 40, concurrency4: f, reached: reached.at(-1) };
  for (const [k, v] of VERSIONS.entries()) {
    const a = stats((results[k] ?? []).map((t) => t.ms));
    adaptive[v.name] = a;
    lines.push(`5. ${label('walk of 200 pages at 40 ms RTT', v)}`.padEnd(35) + ` default concurrency: ${ms(a)}`);
  }
  lines.push(
    `   --concurrency 4                 ${ms(f)}`,
    `                                   ${reached.at(-1) ?? ''}`,
  );
  figures.adaptive = adaptive;
}

// ── 6. scale ────────────────────────────────────────────────────────────────────────────────
if (ONLY.has(6)) {
  const s = await server({ tokenTtlSeconds: 600, generatedCollections: 100 });
  const docs = await Promise.all(
    [100, 10].map(async (n) => {
      const file = join(work, `generated-${n}.json`);
      await writeFile(file, JSON.stringify(generatedOpenApi(n)));
      return file;
    }),
  );
  const counts: Record<string, number> = {};
  const sizes = [200, 20] as const;
  const results = await interleave(
    RUNS,
    ...VERSIONS.flatMap((v) =>
      docs.map((doc, i) => ({
        what: label(`battery against ${sizes[i]} tenant operations`, v),
        check: mustExit(0),
        show: (t: Timed) => `${Math.round(t.ms)} ms, peak RSS ${peakRssMb(t)} MB`,
        run: async () => {
          const before = s.requestCount();
          const t = await harness(
            { url: s.url, server: s },
            freshDir('scale'),
            [...WITHOUT_EXPIRY, '--openapi', doc],
            v,
          );
          counts[`${v.name}${i}`] = s.requestCount() - before;
          return t;
        },
      })),
    ),
  );
  await s.close();
  const scale: Record<string, unknown> = {};
  for (const [k, v] of VERSIONS.entries()) {
    const [big = [], small = []] = results.slice(k * 2, k * 2 + 2);
    const [bw, sw] = [stats(big.map((t) => t.ms)), stats(small.map((t) => t.ms))];
    const [br, sr] = [stats(big.map(peakRssMb)), stats(small.map(peakRssMb))];
    scale[v.name] = {
      operations200: { wall: bw, peakRssMb: br, requests: counts[`${v.name}0`] },
      operations20: { wall: sw, peakRssMb: sr, requests: counts[`${v.name}1`] },
    };
    lines.push(
      `6. ${label('200 tenant operations', v)}`.padEnd(35) +
        ` ${ms(bw)}, ${counts[`${v.name}0`]} requests, peak RSS ${br.median} MB`,
      `   ${label('20 tenant operations', v)}`.padEnd(35) +
        ` ${ms(sw)}, ${counts[`${v.name}1`]} requests, peak RSS ${sr.median} MB`,
    );
  }
  figures.scale = scale;
}

// ── 7. requests ─────────────────────────────────────────────────────────────────────────────
if (ONLY.has(7) && fullRun) {
  figures.requests = {
    fullRun: fullRun.served,
    tokenEndpoint: fullRun.tokenEndpoint,
    sharedToken: fullRun.sharedToken,
    tokenChecksOwn: fullRun.tokenEndpoint - fullRun.sharedToken,
  };
  lines.push(
    `7. requests of a full run           ${fullRun.served}, of which ${fullRun.tokenEndpoint} to the token endpoint: ${fullRun.tokenEndpoint - fullRun.sharedToken} by the token checks, ${fullRun.sharedToken} for the shared token`,
  );
  targets.push({
    name: "token requests: the token checks' own + at most 2",
    target: 'shared-token requests <= 2',
    measured: `${fullRun.sharedToken}`,
    met: fullRun.sharedToken <= 2,
  });
}

// ── 8. a wide API through a delay line ──────────────────────────────────────────────────────
if (ONLY.has(8)) {
  const s = await server({ tokenTtlSeconds: 600, generatedCollections: WIDE_COLLECTIONS, generatedItems: WIDE_ITEMS });
  const docs = await Promise.all(
    [WIDE_COLLECTIONS, 1].map(async (n) => {
      const file = join(work, `generated-${n}.json`);
      await writeFile(file, JSON.stringify(generatedOpenApi(n)));
      return file;
    }),
  );
  // harness → in-flight gauge → delay line → server: the gauge sees the requests as the harness sends them.
  const links = await Promise.all(
    WIDE_RTTS_MS.map(async (rtt) => {
      const proxy = await startChaosProxy({ upstream: s.url, delayMs: rtt / 2 });
      return { rtt, proxy, tap: await startInFlightTap(proxy.url, /^GET \/tenants\/[^/ ]+\/c\d{3}/) };
    }),
  );
  type Wide = Used & { requests: number; inFlight: InFlightReading };
  const wideRun = (v: Version, tap: InFlightTap, doc: string) => async (): Promise<Wide> => {
    const before = s.requestCount();
    tap.reset();
    const args = [
      'run',
      '--base-url',
      tap.url,
      '--client-id',
      s.clientId,
      '--foreign-tenant-id',
      s.foreignTenantId,
      '--reports-dir',
      freshDir('wide'),
      ...WITHOUT_EXPIRY,
      '--openapi',
      doc,
    ];
    // Without the profile, as users run it (its lines cost the walks a write each), unless its peak RSS is needed.
    const t = await timedWithUsage([v.bin, ...args], {
      CARRIER_CLIENT_SECRET: s.clientSecret,
      ...(HAS_TIME ? {} : { CARRIER_PROFILE: '1' }),
    });
    return { ...t, requests: s.requestCount() - before, inFlight: tap.read() };
  };
  const show = (t: Wide): string =>
    `${Math.round(t.ms)} ms, ${t.requests} requests, CPU ${Math.round(t.cpuMs)} ms, ${t.inFlight.average.toFixed(1)} in flight, peak RSS ${t.maxRssMb} MB`;
  const zeroTap = (links.find((l) => l.rtt === 0) ?? links[0])?.tap as InFlightTap;
  // Per version: each round trip on the wide API, then the API of 2 operations at 0 ms (the run's fixed CPU).
  const perVersion = WIDE_RTTS_MS.length + 1;
  const results = await interleave<Wide>(
    RUNS,
    ...VERSIONS.flatMap((v) => [
      ...links.map(({ rtt, tap }) => ({
        what: label(`${WIDE_COLLECTIONS * 2} operations at ${rtt} ms RTT`, v),
        check: mustExit(0),
        show,
        run: wideRun(v, tap, docs[0] as string),
      })),
      {
        what: label('2 operations at 0 ms RTT', v),
        check: mustExit(0),
        show,
        run: wideRun(v, zeroTap, docs[1] as string),
      },
    ]),
  );
  for (const { proxy, tap } of links) {
    await tap.close();
    await proxy.close();
  }
  await s.close();
  const wide: Record<string, unknown> = {
    operations: WIDE_COLLECTIONS * 2,
    itemsPerList: WIDE_ITEMS,
    bound: MAX_IN_FLIGHT,
  };
  for (const [k, v] of VERSIONS.entries()) {
    const byRtt: Record<string, unknown> = {};
    const small = results[k * perVersion + WIDE_RTTS_MS.length] ?? [];
    const smallCpu = stats(small.map((t) => t.cpuMs));
    const smallRequests = stats(small.map((t) => t.requests));
    for (const [i, rtt] of WIDE_RTTS_MS.entries()) {
      const runs = results[k * perVersion + i] ?? [];
      const wall = stats(runs.map((t) => t.ms));
      const requests = stats(runs.map((t) => t.requests));
      const phase = stats(runs.map((t) => t.inFlight.spanMs));
      // Start-up: the run's time outside its network phase (spawn to the first request to the API, the last answer to exit).
      const startUp = stats(runs.map((t) => t.ms - t.inFlight.spanMs));
      const bound = stats(runs.map((t) => (t.requests * rtt) / MAX_IN_FLIGHT + (t.ms - t.inFlight.spanMs)));
      const ratio = Math.round((wall.median / bound.median) * 100) / 100;
      const cpuPerRequest = Math.round(stats(runs.map((t) => (t.cpuMs / t.requests) * 1000)).median) / 1000;
      // What each request adds to the CPU of a run that sends a few (the fixed cost: start-up, reports).
      const marginal =
        Math.round(
          stats(runs.map((t) => ((t.cpuMs - smallCpu.median) / (t.requests - smallRequests.median)) * 1000)).median,
        ) / 1000;
      const inFlight = Math.round(stats(runs.map((t) => t.inFlight.average * 10)).median) / 10;
      const full = Math.round(stats(runs.map((t) => t.inFlight.atLeast(MAX_IN_FLIGHT) * 100)).median);
      const rss = stats(runs.map((t) => t.maxRssMb));
      byRtt[rtt] = {
        wall,
        requests,
        networkPhase: phase,
        startUp,
        ...(rtt > 0 ? { bound, ratio } : {}),
        cpuMs: stats(runs.map((t) => t.cpuMs)),
        cpuMsPerRequest: cpuPerRequest,
        marginalCpuMsPerRequest: marginal,
        averageInFlight: inFlight,
        percentAtBound: full,
        peakRssMb: rss,
      };
      const head =
        `8. ${label(`${WIDE_COLLECTIONS * 2} operations, ${rtt} ms RTT`, v)}`.padEnd(35) +
        ` ${ms(wall)}, ${requests.median} requests`;
      lines.push(
        rtt > 0
          ? `${head}; bound ${bound.median} ms (start-up ${startUp.median}), ratio ${ratio}`
          : `${head}; network phase ${phase.median} ms (start-up ${startUp.median})`,
        `${''.padEnd(35)} CPU ${cpuPerRequest} ms per request (${marginal} ms beyond the fixed ${smallCpu.median} ms); ${inFlight} in flight on average, at the bound (${MAX_IN_FLIGHT}) ${full} % of the network phase; peak RSS ${rss.median} MB`,
      );
      if (v.name !== 'after') continue;
      if (rtt > 0) {
        targets.push({
          name: `${WIDE_COLLECTIONS * 2} operations at ${rtt} ms RTT within 1.1 x (requests x RTT / ${MAX_IN_FLIGHT}) + start-up`,
          target: '<= 1.1',
          measured: `${ratio}`,
          met: ratio <= 1.1,
        });
        targets.push({
          name: `${WIDE_COLLECTIONS * 2} operations at ${rtt} ms RTT: the bound full for most of the network phase`,
          target: '> 50 %',
          measured: `${full} %`,
          met: full > 50,
        });
      } else {
        targets.push({
          name: `${WIDE_COLLECTIONS * 2} operations at 0 ms RTT: harness CPU per request`,
          target: '<= 0.6 ms',
          measured: `${cpuPerRequest} ms`,
          met: cpuPerRequest <= 0.6,
        });
      }
      targets.push({
        name: `${WIDE_COLLECTIONS * 2} operations at ${rtt} ms RTT: peak RSS`,
        target: '< 250 MB',
        measured: `${rss.max} MB (max)`,
        met: rss.max < 250,
      });
    }
    byRtt.twoOperations = { cpuMs: smallCpu, requests: smallRequests };
    wide[v.name] = byRtt;
  }
  figures.wideApi = wide;
}

// ── 9. a Stripe-sized document (issue 29): its load, and its validators compiled as judged ──
if (ONLY.has(9) || process.env.BENCH_ONLY === undefined) {
  const { measureLoad } = await import('./big-document.js');
  const real = process.env.BENCH_DOCUMENT;
  const m = await measureLoad(real !== undefined ? { document: real } : {});
  const round = (n: number): string => `${Math.round(n)} ms`;
  figures.bigDocument = { ...m, ...(real !== undefined ? { document: real } : {}) };
  const what = real !== undefined ? `9. ${real.split('/').pop() ?? real}` : '9. a Stripe-sized document (generated)';
  lines.push(
    `${what.padEnd(36)} ${(m.bytes / 1e6).toFixed(1)} MB, ${m.schemas} schemas, ${m.endpoints} operations: load ${round(m.loadWallMs)} (CPU ${round(m.loadCpuMs)}); the battery compiles the validators of all ${m.endpoints} as it judges them: CPU ${round(m.batteryCompileCpuMs)}`,
  );
  // The target is the load and every judged operation's validator: the compilation moved into the run, it did not go away.
  const total = m.loadWallMs + m.batteryCompileCpuMs;
  targets.push({
    name: `${real !== undefined ? 'the document' : 'Stripe-sized document'} (${m.endpoints} operations): load, and the validators of all of them compiled`,
    target: '< 3 s',
    measured: round(total),
    met: total < 3000,
  });
}

const date = new Date().toISOString();
const machine = {
  cpus: cpus().length,
  model: cpus()[0]?.model ?? 'unknown',
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  node: process.version,
  platform: `${process.platform} ${process.arch}`,
  loadAfter: loadavg()[0],
};
await mkdir(join(ROOT, 'reports'), { recursive: true });
await writeFile(
  join(ROOT, 'reports/bench.json'),
  `${JSON.stringify({ date, machine, runs: RUNS, walkRuns: WALK_RUNS, ...figures, targets }, null, 2)}\n`,
);
process.stdout.write(
  [
    '',
    `carrier-conformance benchmark, ${date}, ${machine.cpus} x ${machine.model}, Node ${machine.node}; median of ${RUNS} (min–max), load ${machine.loadAfter?.toFixed(2)}`,
    '',
    ...lines,
    '',
    ...targets.map((t) => `${t.met ? 'met    ' : 'MISSED '} ${t.name}: ${t.measured} (target ${t.target})`),
    '',
    'Written to reports/bench.json',
    '',
  ].join('\n'),
);
