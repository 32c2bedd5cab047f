/**
 * `npm run bench`: how long the harness takes, against what it cannot do without.
 *
 * Every figure is the median of RUNS runs (default 5, BENCH_RUNS to change), with min and max,
 * measured in this one process run, the runs of compared figures interleaved, so that the ratios
 * hold on a noisy machine. Each harness run
 * is the real CLI process (`bin/carrier-conformance.js`), timed from spawn to exit; the servers
 * are reference servers started here, on loopback.
 *
 * 1. battery: the whole battery but expiry; beside it the runner's floor (a bare `vitest run` of
 *    one trivial test) and the work's floor (a plain undici script replaying the same requests).
 * 2. expiry overlap: the whole battery with a token lifetime T of 5 s, minus T.
 * 3. list walk: the pagination suite over 100 000 items in pages of 100, against a plain undici
 *    walk of the same pages at the same concurrency; and the harness's peak RSS.
 * 4. requests: how many a full run sends, and how many of them go to the token endpoint.
 *
 * The figures are printed and written to reports/bench.json.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { startReferenceServer, type ReferenceOptions, type ReferenceServer } from '../src/reference/index.js';
import type { RunReport } from '../src/report/model.js';
import { readFileSync } from 'node:fs';

const ROOT = new URL('../../..', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/carrier-conformance.js');
const HERE = new URL('.', import.meta.url).pathname;
const RUNS = Math.max(5, Number(process.env.BENCH_RUNS ?? 5));
const WITHOUT_EXPIRY = ['token', 'auth', 'versioning', 'user', 'legacy', 'tenant', 'pagination', 'nulls'].flatMap((s) => ['--suite', s]);
const EXPIRY_TTL_SECONDS = 5;
const LIST_ITEMS = 100_000;
const LIST_PAGE_SIZE = 100;
const WALK_CONCURRENCY = 4;
/** How many requests the harness has in flight at most: Vitest's maxConcurrency for the checks. */
const HARNESS_CONCURRENCY = 16;

interface Timed {
  ms: number;
  code: number | null;
  stdout: string;
  stderr: string;
}

interface Stats {
  median: number;
  min: number;
  max: number;
  runs: number[];
}

function stats(values: number[]): Stats {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  const median = sorted.length % 2 ? (sorted[Math.floor(mid)] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
  return { median: Math.round(median), min: Math.round(sorted[0] ?? 0), max: Math.round(sorted.at(-1) ?? 0), runs: values.map(Math.round) };
}

function timed(args: string[], env: Record<string, string> = {}): Promise<Timed> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { env: { ...process.env, NO_COLOR: '1', ...env }, cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, code, stdout, stderr }));
  });
}

interface Contender {
  what: string;
  run: () => Promise<Timed>;
  check?: (t: Timed) => void;
}

/**
 * Runs each contender RUNS times, interleaved (a, b, a, b, ...), so that a machine that speeds
 * up or slows down during the benchmark affects all of them alike and their ratios hold.
 */
async function interleave(...contenders: Contender[]): Promise<Timed[][]> {
  const results: Timed[][] = contenders.map(() => []);
  for (let i = 0; i < RUNS; i += 1) {
    for (const [k, c] of contenders.entries()) {
      const t = await c.run();
      c.check?.(t);
      results[k]?.push(t);
      process.stderr.write(`  ${c.what} ${i + 1}/${RUNS}: ${Math.round(t.ms)} ms\n`);
    }
  }
  return results;
}

function mustExit(code: number) {
  return (t: Timed): void => {
    if (t.code !== code) throw new Error(`expected exit ${code}, got ${t.code}:\n${t.stdout}\n${t.stderr}`);
  };
}

async function server(options: ReferenceOptions): Promise<ReferenceServer> {
  return startReferenceServer(options);
}

async function harness(s: ReferenceServer, reportsDir: string, args: string[], expectations: string): Promise<Timed> {
  return timed([BIN, 'run', '--base-url', s.url, '--client-id', s.clientId, '--paged-path', 'shipments', '--foreign-tenant-id', s.foreignTenantId, '--expectations', expectations, '--reports-dir', reportsDir, ...args], {
    CARRIER_CLIENT_SECRET: s.clientSecret,
    CARRIER_PROFILE: '1',
  });
}

function peakRssMb(t: Timed): number {
  return Number(/peak RSS (\d+) MB/.exec(t.stderr)?.[1] ?? NaN);
}

const work = await mkdtemp(join(tmpdir(), 'carrier-bench-'));
const ms = (s: Stats): string => `${s.median} ms (min ${s.min}, max ${s.max})`;
process.stderr.write(`carrier-conformance benchmark: ${RUNS} runs of each, in ${work}\n`);

// ── 1. battery ──────────────────────────────────────────────────────────────────────────────
const s1 = await server({ tokenTtlSeconds: 300, recordRequests: true });
const expectations = join(work, 'expectations.json');
await writeFile(expectations, JSON.stringify(s1.expectations));
const perRun: { served: number; tokenEndpoint: number; sharedToken: number }[] = [];
const batteryRun = async (): Promise<Timed> => {
  const before = s1.requestLog().length;
  const dir = join(work, `battery-${perRun.length}`);
  const result = await harness(s1, dir, WITHOUT_EXPIRY, expectations);
  const log = s1.requestLog().slice(before);
  const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as RunReport;
  perRun.push({ served: log.length, tokenEndpoint: log.filter((r) => r.endpoint === '/uaa/oauth2/token').length, sharedToken: report.stats?.sharedTokenRequests ?? NaN });
  return result;
};
// One run first, whose requests the work floor replays.
mustExit(0)(await batteryRun());
const replayFile = join(work, 'requests.json');
await writeFile(replayFile, JSON.stringify(s1.requestLog().slice(-(perRun.at(-1)?.served ?? 0))));
const [battery = [], runnerFloor = [], workFloor = []] = await interleave(
  { what: 'battery (no expiry)', run: batteryRun, check: mustExit(0) },
  { what: 'runner floor (vitest run, one trivial test)', run: () => timed([join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--root', join(ROOT, 'benchmarks/floor')]), check: mustExit(0) },
  { what: 'work floor (undici replay)', run: () => timed([join(HERE, 'replay.js'), replayFile, s1.url, String(HARNESS_CONCURRENCY)]), check: mustExit(0) },
);
await s1.close();

// ── 2. expiry overlap ───────────────────────────────────────────────────────────────────────
const s2 = await server({ tokenTtlSeconds: EXPIRY_TTL_SECONDS, recordRequests: true });
const fullRuns: { served: number; tokenEndpoint: number; sharedToken: number }[] = [];
const [full = []] = await interleave({ what: `full battery, T = ${EXPIRY_TTL_SECONDS} s`, check: mustExit(0), run: async () => {
  const before = s2.requestLog().length;
  const dir = join(work, `full-${fullRuns.length}`);
  const result = await harness(s2, dir, [], expectations);
  const log = s2.requestLog().slice(before);
  const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as RunReport;
  fullRuns.push({ served: log.length, tokenEndpoint: log.filter((r) => r.endpoint === '/uaa/oauth2/token').length, sharedToken: report.stats?.sharedTokenRequests ?? NaN });
  return result;
} });
await s2.close();

// ── 3. list walk ────────────────────────────────────────────────────────────────────────────
const s3 = await server({ tokenTtlSeconds: 600, shipmentCount: LIST_ITEMS, pageSizeDefault: LIST_PAGE_SIZE, pageSizeMax: LIST_PAGE_SIZE });
const walkArgs = ['--suite', 'pagination', '--page-size', String(LIST_PAGE_SIZE), '--concurrency', String(WALK_CONCURRENCY)];
const tokenRes = await request(`${s3.url}/uaa/oauth2/token`, {
  method: 'POST',
  headers: { 'accept-version': '1', 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${encodeURIComponent(s3.clientId)}:${new URLSearchParams([['', s3.clientSecret]]).toString().slice(1)}`).toString('base64')}` },
  body: 'grant_type=client_credentials',
});
const token = ((await tokenRes.body.json()) as { access_token: string }).access_token;
const walkPhases: number[] = [];
const plainPhases: number[] = [];
const [harnessWalk = [], plainWalk = []] = await interleave(
  {
    what: 'list walk, harness',
    check: mustExit(0),
    run: async () => {
      const t = await harness(s3, join(work, 'walk'), walkArgs, expectations);
      // The walk phase: PAGE-WALK waits for the whole walk, which starts with the suite.
      const report = JSON.parse(readFileSync(join(work, 'walk', 'report.json'), 'utf8')) as RunReport;
      walkPhases.push(report.checks.find((c) => c.id === 'PAGE-WALK')?.durationMs ?? NaN);
      return t;
    },
  },
  {
    what: 'list walk, plain undici',
    run: () => timed([join(HERE, 'plain-walk.js'), `${s3.url}/tenants/${s3.tenantId}/shipments`, token, String(LIST_PAGE_SIZE), String(WALK_CONCURRENCY)]),
    check: (t) => {
      const [items, elapsed] = t.stdout.trim().split(' ');
      if (items !== String(LIST_ITEMS)) throw new Error(`the plain walk saw ${items} items`);
      plainPhases.push(Number(elapsed));
    },
  },
);
await s3.close();

// ── the figures ─────────────────────────────────────────────────────────────────────────────
const b = stats(battery.map((t) => t.ms));
const rf = stats(runnerFloor.map((t) => t.ms));
const wf = stats(workFloor.map((t) => t.ms));
const overlap = stats(full.map((t) => t.ms - EXPIRY_TTL_SECONDS * 1000));
const hw = stats(harnessWalk.map((t) => t.ms));
const pw = stats(plainWalk.map((t) => t.ms));
const rss = stats(harnessWalk.map(peakRssMb));
const ratio = Math.round((hw.median / pw.median) * 100) / 100;
const hPhase = stats(walkPhases);
const pPhase = stats(plainPhases);
const phaseRatio = Math.round((hPhase.median / pPhase.median) * 100) / 100;
const last = fullRuns.at(-1) ?? { served: NaN, tokenEndpoint: NaN, sharedToken: NaN };
const targets = [
  { name: 'battery within the runner floor + 0.5 s', target: `<= ${rf.median + 500} ms`, measured: `${b.median} ms`, met: b.median <= rf.median + 500 },
  { name: 'expiry overlap at most 1.5 s beyond T', target: '<= 1500 ms', measured: `${overlap.median} ms`, met: overlap.median <= 1500 },
  { name: 'list walk at most 1.2 x the plain walk (whole processes)', target: '<= 1.2', measured: `${ratio}`, met: ratio <= 1.2 },
  { name: 'list walk at most 1.2 x the plain walk (the walks alone)', target: '<= 1.2', measured: `${phaseRatio}`, met: phaseRatio <= 1.2 },
  { name: 'list walk peak RSS under 200 MB', target: '< 200 MB', measured: `${rss.max} MB`, met: rss.max < 200 },
  { name: 'token requests: the token checks\' own + at most 2', target: 'shared-token requests <= 2', measured: `${last.sharedToken}`, met: last.sharedToken <= 2 },
];
const figures = {
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown', memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version, platform: `${process.platform} ${process.arch}` },
  runs: RUNS,
  battery: { harness: b, runnerFloor: rf, workFloor: wf, overRunnerFloorMs: b.median - rf.median, requestsPerRun: perRun.at(-1)?.served ?? NaN },
  expiryOverlap: { tokenLifetimeSeconds: EXPIRY_TTL_SECONDS, beyondT: overlap, wall: stats(full.map((t) => t.ms)) },
  listWalk: { items: LIST_ITEMS, pageSize: LIST_PAGE_SIZE, concurrency: WALK_CONCURRENCY, harness: hw, plain: pw, ratio, walkPhase: { harness: hPhase, plain: pPhase, ratio: phaseRatio }, peakRssMb: rss },
  requests: { fullRun: last.served, tokenEndpoint: last.tokenEndpoint, sharedToken: last.sharedToken, tokenChecksOwn: last.tokenEndpoint - last.sharedToken, withoutExpiry: perRun.at(-1) },
  targets,
};
await mkdir(join(ROOT, 'reports'), { recursive: true });
await writeFile(join(ROOT, 'reports/bench.json'), `${JSON.stringify(figures, null, 2)}\n`);

const lines = [
  '',
  `carrier-conformance benchmark, ${figures.date}, ${figures.machine.cpus} x ${figures.machine.model}, Node ${figures.machine.node}; median of ${RUNS} (min, max)`,
  '',
  `1. battery (expiry excluded)       ${ms(b)}`,
  `   runner floor (vitest, 1 test)   ${ms(rf)}`,
  `   work floor (undici replay)      ${ms(wf)}   ${figures.battery.requestsPerRun} requests`,
  `2. expiry overlap (T = ${EXPIRY_TTL_SECONDS} s)        ${ms(overlap)} beyond T`,
  `3. list walk, ${LIST_ITEMS} items by ${LIST_PAGE_SIZE}    processes: harness ${ms(hw)}, plain ${ms(pw)}, ratio ${ratio}`,
  `                                   walks alone: harness ${ms(hPhase)}, plain ${ms(pPhase)}, ratio ${phaseRatio}; harness peak RSS ${rss.median} MB (max ${rss.max})`,
  `4. requests of a full run          ${last.served}, of which ${last.tokenEndpoint} to the token endpoint: ${last.tokenEndpoint - last.sharedToken} by the token checks, ${last.sharedToken} for the shared token`,
  '',
  ...targets.map((t) => `${t.met ? 'met    ' : 'MISSED '} ${t.name}: ${t.measured} (target ${t.target})`),
  '',
  'Written to reports/bench.json',
  '',
];
process.stdout.write(lines.join('\n'));
