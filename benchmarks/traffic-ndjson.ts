/**
 * `npm run bench:traffic`: `carrier-conformance traffic` judging an NDJSON capture of a million
 * exchanges (issue 43), in bounded memory. A client's session is recorded first against the
 * embedded reference server, on loopback (a token by HTTP Basic, the user, pages of a list, a
 * request without Accept-Version and one without Authorization), whole headers and bodies; the
 * capture then cycles through those exchanges, a fresh random access token every 3 600 of them
 * (in the Authorization fields and in the token response's body, as a day of traffic has many
 * tokens), startedAt increasing. It is streamed to a temporary file, never held in memory, and the
 * built CLI judges it as a child process under GNU time: its wall time, exit code and peak RSS.
 * Then its reports and its console output are searched for a sample of 100 of the tokens and the
 * client's credentials: none may have leaked.
 *
 *   node dist/bench/benchmarks/traffic-ndjson.js [--exchanges N] [--keep] [--fault NAME…]
 *
 * --exchanges: how many exchanges the capture holds (default 1 000 000); --keep: leave the
 * temporary directory (the capture and the reports) in place; --fault: record the session against
 * a reference server with that fault (src/reference/faults.ts), so that findings cite exchanges as
 * evidence and the leak check has something to bite on (a conformant capture keeps none). The CLI is dist/cli/entry.js
 * (`npm run build` or `npm run build:emit` first); it is stopped after 15 minutes.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { startReferenceServer, type ReferenceServer } from '../src/reference/index.js';
import { ROOT } from './measure.js';

const { values: args } = parseArgs({
  options: {
    exchanges: { type: 'string', default: '1000000' },
    keep: { type: 'boolean', default: false },
    fault: { type: 'string', multiple: true, default: [] },
  },
});
const EXCHANGES = Number(args.exchanges);
if (!Number.isSafeInteger(EXCHANGES) || EXCHANGES < 1)
  throw new Error(`--exchanges ${args.exchanges}: give a whole number above 0`);
/** Exchanges per access token: a token an hour at one exchange a second. */
const TOKEN_EVERY = 3600;
/** Tokens searched for in the outputs: every one is too many at a million exchanges. */
const TOKEN_SAMPLE = 100;
const CHILD_TIMEOUT_MS = 15 * 60_000;
const REQUEST_TIMEOUT_MS = 10_000;
/** A day of traffic: startedAt advances by this much per exchange (86 400 s over a million). */
const STEP_MS = 86.4;
const START = Date.parse('2026-01-05T00:00:00.000Z');
const ENTRY = join(ROOT, 'dist/cli/entry.js');
const TIME = '/usr/bin/time';
const MiB = 1024 * 1024;

if (!existsSync(ENTRY)) throw new Error(`${ENTRY} is missing: run \`npm run build\` first`);

/** One recorded exchange, as an NDJSON record holds it (without startedAt, added per line). */
interface Recorded {
  request: { method: string; url: string; headers: Record<string, string>; body?: string };
  response: { status: number; headers: Record<string, string | string[]>; body: string };
}

const form = (s: string): string => encodeURIComponent(s).replace(/%20/g, '+');

/** A client's session against `server`, every response's headers and body whole; and the token it was issued. */
async function recordSession(server: ReferenceServer): Promise<{ exchanges: Recorded[]; token: string }> {
  const exchanges: Recorded[] = [];
  const send = async (method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: string) => {
    const url = `${server.url}${path}`;
    const res = await request(url, {
      method,
      headers,
      ...(body !== undefined ? { body } : {}),
      headersTimeout: REQUEST_TIMEOUT_MS,
      bodyTimeout: REQUEST_TIMEOUT_MS,
    });
    const text = await res.body.text();
    const responseHeaders: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) responseHeaders[name] = value;
    exchanges.push({
      request: { method, url, headers, ...(body !== undefined ? { body } : {}) },
      response: { status: res.statusCode, headers: responseHeaders, body: text },
    });
    return text;
  };
  const basic = `Basic ${Buffer.from(`${form(server.clientId)}:${form(server.clientSecret)}`).toString('base64')}`;
  const issued = await send(
    'POST',
    '/uaa/oauth2/token',
    { authorization: basic, 'accept-version': '1', 'content-type': 'application/x-www-form-urlencoded' },
    'grant_type=client_credentials',
  );
  const token = (JSON.parse(issued) as { access_token?: unknown }).access_token;
  if (typeof token !== 'string' || token.length < 16) throw new Error(`no access token issued: ${issued}`);
  const bearer = `Bearer ${token}`;
  const v1 = { authorization: bearer, 'accept-version': '1' };
  await send('GET', '/users/me', v1);
  const list = `/tenants/${server.tenantId}/shipments`;
  for (const page of [1, 2, 3, 4]) await send('GET', `${list}?page=${page}&size=5`, v1);
  await send('GET', '/users/me', { authorization: bearer });
  await send('GET', `${list}?page=1&size=5`, { 'accept-version': '1' });
  return { exchanges, token };
}

/**
 * Writes `count` exchanges to `file`, cycling through `recorded`, a fresh token every TOKEN_EVERY;
 * streamed, a batch of lines at a time, waiting for the stream to drain. Returns the sampled tokens.
 */
async function writeCapture(file: string, recorded: readonly Recorded[], token: string, count: number) {
  // Each exchange as a line template, split where the recorded token was: `{"startedAt":…,` + parts joined by the token.
  const templates = recorded.map((r) => JSON.stringify(r).slice(1).split(token));
  const tokens = Math.ceil(count / TOKEN_EVERY);
  const sampled = new Set(
    tokens <= TOKEN_SAMPLE
      ? Array.from({ length: tokens }, (_, i) => i)
      : Array.from({ length: TOKEN_SAMPLE }, (_, k) => Math.floor((k * (tokens - 1)) / (TOKEN_SAMPLE - 1))),
  );
  const sample: string[] = [];
  const out = createWriteStream(file, { highWaterMark: MiB });
  const failed = new Promise<never>((_, reject) => out.once('error', reject));
  let batch = '';
  let current = '';
  for (let i = 0; i < count; i += 1) {
    if (i % TOKEN_EVERY === 0) {
      current = randomBytes(32).toString('base64url');
      if (sampled.has(i / TOKEN_EVERY)) sample.push(current);
    }
    const parts = templates[i % templates.length] ?? [];
    batch += `{"startedAt":"${new Date(START + i * STEP_MS).toISOString()}",${parts.join(current)}\n`;
    if (batch.length >= 256 * 1024) {
      if (!out.write(batch)) await Promise.race([once(out, 'drain'), failed]);
      batch = '';
    }
  }
  out.end(batch);
  await Promise.race([once(out, 'finish'), failed]);
  return { sample, tokens };
}

interface ChildRun {
  ms: number;
  code: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  maxRssKb: number;
}

/** Keeps the last `max` characters of a stream: a child that prints a lot cannot fill this process's memory. */
const tail = (text: string, max = MiB): string => (text.length > max ? text.slice(-max) : text);

/** The CLI judging `file`, under GNU time -v when there is one; killed (its process group) after CHILD_TIMEOUT_MS. */
function judgeCapture(file: string, reportsDir: string): Promise<ChildRun> {
  const cli = [ENTRY, 'traffic', file, '--reports-dir', reportsDir];
  const [command, argv] = existsSync(TIME) ? [TIME, ['-v', process.execPath, ...cli]] : [process.execPath, cli];
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, argv, { cwd: ROOT, detached: true, env: { ...process.env, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, CHILD_TIMEOUT_MS);
    child.stdout.on('data', (d: Buffer) => (stdout = tail(stdout + d.toString())));
    child.stderr.on('data', (d: Buffer) => (stderr = tail(stderr + d.toString())));
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const exit = /^\s*Exit status: (\d+)$/m.exec(stderr);
      resolve({
        ms: Number(process.hrtime.bigint() - started) / 1e6,
        code: exit ? Number(exit[1]) : code,
        timedOut,
        stdout,
        stderr,
        maxRssKb: Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1] ?? NaN),
      });
    });
  });
}

/** Every file under `dir`. */
async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

/** The secrets (by name) that appear in a report under `dir` or in `texts`, and where. */
async function leaks(dir: string, texts: Record<string, string>, secrets: Record<string, string>): Promise<string[]> {
  const places: [string, string][] = Object.entries(texts);
  if (existsSync(dir)) for (const f of await filesUnder(dir)) places.push([f, await readFile(f, 'utf8')]);
  const found: string[] = [];
  for (const [name, secret] of Object.entries(secrets))
    for (const [where, text] of places) if (text.includes(secret)) found.push(`${name} in ${where}`);
  return found;
}

const work = await mkdtemp(join(tmpdir(), 'carrier-traffic-bench-'));
const capture = join(work, 'capture.ndjson');
const reportsDir = join(work, 'reports');
const line = (what: string, value: string): void => console.log(`traffic-ndjson ${what}: ${value}`);
try {
  const server = await startReferenceServer({ host: '127.0.0.1', tokenTtlSeconds: 3600, faults: args.fault });
  let session: Awaited<ReturnType<typeof recordSession>>;
  try {
    session = await recordSession(server);
  } finally {
    await server.close();
  }
  process.stderr.write(
    `recorded ${session.exchanges.length} exchanges (${session.exchanges
      .map(
        (e) =>
          `${e.request.method} ${new URL(e.request.url).pathname}${new URL(e.request.url).search} ${e.response.status}`,
      )
      .join('; ')}); writing ${EXCHANGES} to ${capture}\n`,
  );
  const writeStarted = process.hrtime.bigint();
  const { sample, tokens } = await writeCapture(capture, session.exchanges, session.token, EXCHANGES);
  const writeMs = Number(process.hrtime.bigint() - writeStarted) / 1e6;
  const bytes = (await stat(capture)).size;
  process.stderr.write(`written in ${(writeMs / 1000).toFixed(1)} s; judging…\n`);

  const run = await judgeCapture(capture, reportsDir);
  const secrets: Record<string, string> = {
    'client secret': server.clientSecret,
    'Basic credentials': Buffer.from(`${form(server.clientId)}:${form(server.clientSecret)}`).toString('base64'),
  };
  for (const [i, t] of sample.entries()) secrets[`token #${i + 1} of the sample`] = t;
  const leaked = await leaks(reportsDir, { stdout: run.stdout, stderr: run.stderr }, secrets);

  const faults = args.fault.length > 0 ? `; faults ${args.fault.join(', ')}` : '';
  line('exchanges', `${EXCHANGES} (${session.exchanges.length} recorded, cycled; ${tokens} access tokens${faults})`);
  line('file size', `${(bytes / MiB).toFixed(1)} MiB (${bytes} bytes; written in ${(writeMs / 1000).toFixed(1)} s)`);
  line('wall time', `${(run.ms / 1000).toFixed(1)} s${run.timedOut ? ' (stopped: over the 15-minute timeout)' : ''}`);
  line('exchanges/s', `${Math.round(EXCHANGES / (run.ms / 1000))}`);
  line('max RSS', Number.isNaN(run.maxRssKb) ? 'unknown (no GNU time)' : `${Math.round(run.maxRssKb / 1024)} MiB`);
  line('exit code', String(run.code));
  line('verdict', run.stdout.split('\n').find((l) => l.trim() !== '') ?? '(no console output)');
  line(
    'leak check',
    leaked.length === 0
      ? `none of ${Object.keys(secrets).length} secrets (${sample.length} sampled tokens, the client secret, its Basic credentials) in the reports, stdout or stderr`
      : `LEAKED: ${leaked.slice(0, 10).join('; ')}${leaked.length > 10 ? ` (and ${leaked.length - 10} more)` : ''}`,
  );
  if (run.code !== 0 && run.code !== 1) process.stderr.write(`child stderr (tail):\n${run.stderr.slice(-4000)}\n`);
  process.exitCode = leaked.length > 0 || run.timedOut ? 1 : 0;
} finally {
  if (args.keep) process.stderr.write(`kept ${work}\n`);
  else await rm(work, { recursive: true, force: true });
}
