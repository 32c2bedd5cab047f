/**
 * Hostile targets: whatever the target does, the harness finishes within a bound, writes a report
 * that says what happened, keeps its exit codes honest and sends credentials nowhere else.
 * Each test puts a misbehaving loopback front (test/support/hostile.ts) before a reference server.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunReport } from '../src/model/run-report.js';
import { startReferenceServer, type ReferenceServer } from '../src/reference/index.js';
import { startHostile, startRecorder, type Hostile, type HostileOptions } from './support/hostile.js';
import { BIN, runMain, tempDir } from './support/harness.js';

const LEGACY_USERINFO = (path: string): boolean => path === '/uaa/userinfo';
const EVERYTHING = (): boolean => true;

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of cleanup.reverse()) await close();
  cleanup = [];
});

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
  report: RunReport;
  seconds: number;
  hostile: Hostile;
}

/** A reference server behind a hostile front; the harness run against the front. */
const SUITES = ['--suite', 'token', '--suite', 'auth', '--suite', 'versioning', '--suite', 'user', '--suite', 'legacy'];

async function runHostile(
  front: Omit<HostileOptions, 'upstream'>,
  args: string[] = [],
  selection: string[] = SUITES,
): Promise<Outcome> {
  const server: ReferenceServer = await startReferenceServer({ tokenTtlSeconds: 60 });
  cleanup.push(() => server.close());
  const hostile = await startHostile({ ...front, upstream: server.url });
  cleanup.push(() => hostile.close());
  const reportsDir = await tempDir();
  process.env.CARRIER_CLIENT_SECRET = server.clientSecret;
  const started = performance.now();
  try {
    const result = await runMain([
      'run',
      '--base-url',
      hostile.url,
      '--client-id',
      server.clientId,
      '--paged-path',
      'shipments',
      '--reports-dir',
      reportsDir,
      ...selection,
      ...args,
    ]);
    const report = JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
    return { ...result, report, seconds: (performance.now() - started) / 1000, hostile };
  } finally {
    delete process.env.CARRIER_CLIENT_SECRET;
  }
}

const status = (report: RunReport, id: string) => report.checks.find((c) => c.id === id);

describe('a target that cannot be reached at all', () => {
  it.each([
    ['accepts connections and never answers', 'silent' as const],
    ['drips its answer a byte a second', 'drip' as const],
    ['resets every connection', 'reset' as const],
  ])('%s: exit 3 within the timeout, one clear line, an incomplete report', async (_what, misbehaviour) => {
    const run = await runHostile({ misbehaviour, match: EVERYTHING }, ['--timeout', '500']);

    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(
      /cannot reach the token endpoint at http:\/\/127\.0\.0\.1:\d+: (no (complete )?response( headers)? within 500 ms|connection (reset|to .* closed))/,
    );
    expect(run.report.verdict).toBe('incomplete');
    // Bounded by the timeout, not by the target (which never ends its answer): the slack is for a
    // loaded machine, where starting the harness alone has taken 10 s (three test files at a time
    // on two cores), not for waiting; a run that waited on the target would meet the test's 60 s.
    expect(run.seconds).toBeLessThan(30);
  });
});

describe('a target that misbehaves on one endpoint', () => {
  it.each([
    // Every other request of the run must beat the timeout too: on a loaded machine 500 ms is not
    // enough for them, so only the case that waits out the timeout keeps it short.
    ['never answers', 'silent' as const, '2000', /no (complete )?response( headers)? within 2000 ms/],
    ['resets the connection', 'reset' as const, '10000', /connection (reset by|to) .*|other side closed/],
    [
      'sends less than its Content-Length',
      'truncated' as const,
      '10000',
      /does not match its Content-Length|closed unexpectedly|reset/,
    ],
  ])(
    '%s: the checks that need it report an error with the reason, the others still run, exit 1',
    async (_what, misbehaviour, timeout, reason) => {
      const run = await runHostile({ misbehaviour, match: LEGACY_USERINFO }, ['--timeout', timeout]);

      expect(run.code).toBe(1);
      const legacy = status(run.report, 'LEGACY-USERINFO');
      expect(legacy?.status).toBe('error');
      expect(legacy?.message).toMatch(reason);
      for (const id of ['TOKEN-ISSUE', 'USER-OK', 'USER-SCHEMA', 'LEGACY-TOKEN'])
        expect(status(run.report, id)?.status, id).toBe('passed');
      expect(run.seconds).toBeLessThan(30);
    },
  );

  it('answers invalid JSON: a failure that says so', async () => {
    const run = await runHostile({ misbehaviour: 'invalid-json', match: LEGACY_USERINFO });
    expect(run.code).toBe(1);
    expect(status(run.report, 'LEGACY-USERINFO')?.message).toMatch(/GET \/uaa\/userinfo: the body is not valid JSON/);
  });

  it('answers without Content-Type: USER-OK fails and says what came back', async () => {
    const run = await runHostile({ misbehaviour: 'no-content-type', match: (p) => p === '/users/me' });
    expect(run.code).toBe(1);
    expect(status(run.report, 'USER-OK')?.message).toMatch(
      /expected a JSON body \(Content-Type application\/json\), got Content-Type \(none\)/,
    );
  });

  it('answers with a body of 300 MB: cut at --max-body-bytes, reported, memory bounded', async () => {
    const server = await startReferenceServer({ tokenTtlSeconds: 60 });
    cleanup.push(() => server.close());
    const hostile = await startHostile({ upstream: server.url, misbehaviour: 'huge', match: LEGACY_USERINFO });
    cleanup.push(() => hostile.close());
    const reportsDir = await tempDir();
    // A child process, so that its peak memory is its own.
    const script = `const { main } = await import(${JSON.stringify(new URL('../dist/src/cli/main.js', import.meta.url).href)});
      const code = await main(process.argv.slice(1), { out: () => {}, err: (t) => process.stderr.write(t + '\\n'), color: false });
      process.stderr.write('maxRSS=' + process.resourceUsage().maxRSS + '\\n'); process.exitCode = code;`;
    const args = [
      '--input-type=module',
      '-e',
      script,
      'run',
      '--base-url',
      hostile.url,
      '--client-id',
      server.clientId,
      '--reports-dir',
      reportsDir,
      '--suite',
      'legacy',
      '--max-body-bytes',
      '4000000',
    ];
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, args, {
        env: { ...process.env, CARRIER_CLIENT_SECRET: server.clientSecret },
      });
      let err = '';
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.on('close', (c) => resolve({ code: c, stderr: err }));
    });
    const report = JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
    const maxRssMb = Number(/maxRSS=(\d+)/.exec(stderr)?.[1]) / 1024;

    expect(code).toBe(1);
    expect(status(report, 'LEGACY-USERINFO')?.message).toMatch(/larger than the 4000000-byte cap \(--max-body-bytes\)/);
    // The harness alone takes some 250 MB (Vitest and its worker threads); 300 MB more would show.
    expect(maxRssMb).toBeLessThan(450);
  });
});

describe('redirects', () => {
  it('are not followed: a same-origin 302 is a finding, and the new location is never requested', async () => {
    const run = await runHostile({ misbehaviour: 'redirect-same', match: LEGACY_USERINFO });
    expect(run.code).toBe(1);
    expect(status(run.report, 'LEGACY-NO-REDIRECT')?.message).toMatch(
      /\/uaa\/userinfo: expected the gateway to serve it directly, got a 302 redirect/,
    );
  });

  it('to another origin: credentials never reach it, nothing does', async () => {
    const other = await startRecorder();
    cleanup.push(() => other.close());
    const run = await runHostile({
      misbehaviour: 'redirect-cross',
      match: (p) => p === '/uaa/userinfo' || p === '/uaa/oauth/token',
      redirectTo: other.url,
    });

    expect(run.code).toBe(1);
    // Both legacy paths were answered with the redirect (each valid request once, and the probes).
    expect(run.hostile.misbehaved).toBeGreaterThanOrEqual(2);
    expect(other.requests).toEqual([]);
  });
});

describe('429 with Retry-After', () => {
  it('is retried after the wait it asks for, and the report says so', async () => {
    const run = await runHostile({ misbehaviour: 'rate-limit', match: LEGACY_USERINFO, times: 1 });

    expect(run.code).toBe(0);
    const notes = run.report.checks.flatMap((c) => c.notes);
    expect(notes).toContainEqual(
      expect.stringMatching(
        /GET \/uaa\/userinfo answered 429 with Retry-After: 1; retried after 1\.0 s \(retry 1 of 2\)/,
      ),
    );
  });

  // Throttling says nothing about conformance: after the retries the check errs, it does not judge the 429.
  it('is retried a bounded number of times, then reported as an error, never judged', async () => {
    const run = await runHostile(
      { misbehaviour: 'rate-limit', match: LEGACY_USERINFO, times: 1000 },
      ['--max-retries', '1', '--max-retry-wait', '0.2'],
      ['--check', 'LEGACY-USERINFO'],
    );

    expect(run.code).toBe(1);
    expect(status(run.report, 'LEGACY-USERINFO')?.status).toBe('error');
    expect(status(run.report, 'LEGACY-USERINFO')?.message).toMatch(
      /\/uaa\/userinfo answered 429 Too Many Requests \(rate limited\) 2 times; the target is throttling or unavailable, so nothing was judged/,
    );
    // One request, one retry: two attempts at the one request the check sends.
    expect(run.hostile.misbehaved).toBe(2);
  });
});

describe('the overall deadline', () => {
  it('ends the run with a partial report marked incomplete and exit 3', async () => {
    const run = await runHostile({ misbehaviour: 'silent', match: LEGACY_USERINFO }, [
      '--timeout',
      '60000',
      '--deadline',
      '5',
    ]);

    expect(run.code).toBe(3);
    expect(run.report.verdict).toBe('incomplete');
    expect(run.report.incompleteReason).toBe('the run exceeded its --deadline of 5 s');
    expect(status(run.report, 'TOKEN-ISSUE')?.status).toBe('passed');
    expect(status(run.report, 'LEGACY-USERINFO')?.status).toBe('error');
    // The deadline and the few seconds a loaded machine needs to start and end a run.
    expect(run.seconds).toBeLessThan(9);
  });
});

describe('Ctrl-C and SIGTERM', () => {
  // Vitest's logger exits the process on these signals (exit 130) from the moment the harness
  // creates Vitest: a signal while it is being created must reach the harness's own handler only.
  it.each(['SIGINT', 'SIGTERM'] as const)(
    '%s while Vitest is being created still ends with the partial report and exit 3',
    async (signal) => {
      const server = await startReferenceServer({ tokenTtlSeconds: 60 });
      cleanup.push(() => server.close());
      const reportsDir = await tempDir();
      const child = spawn(
        process.execPath,
        [
          BIN,
          'run',
          '--base-url',
          server.url,
          '--client-id',
          server.clientId,
          '--reports-dir',
          reportsDir,
          '--suite',
          'legacy',
        ],
        {
          env: { ...process.env, CARRIER_CLIENT_SECRET: server.clientSecret, CARRIER_PROFILE: '1' },
        },
      );
      let stderr = '';
      let sent = false;
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        // The mark printed just before createVitest is called (src/runner/vitest-run.ts).
        if (!sent && stderr.includes('battery: vitest loaded')) {
          sent = true;
          child.kill(signal);
        }
      });
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));

      expect(sent, stderr).toBe(true);
      expect(code, stderr).toBe(3);
      const report = JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
      expect(report.incompleteReason).toBe(`interrupted by ${signal}`);
    },
  );

  it("SIGTERM while the expiry checks wait out a token lifetime keeps every other check's result (issue 31: a long wait loses nothing)", async () => {
    const server = await startReferenceServer({ tokenTtlSeconds: 40 });
    cleanup.push(() => server.close());
    const reportsDir = await tempDir();
    const child = spawn(
      process.execPath,
      [
        BIN,
        'run',
        '--base-url',
        server.url,
        '--client-id',
        server.clientId,
        '--openapi',
        server.openapiFile,
        '--foreign-tenant-id',
        server.foreignTenantId,
        '--reports-dir',
        reportsDir,
        '--max-expiry-wait',
        '60',
      ],
      {
        env: { ...process.env, CARRIER_CLIENT_SECRET: server.clientSecret, CARRIER_PROGRESS_INTERVAL: '1' },
      },
    );
    let stderr = '';
    let sent = false;
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      // The progress line of the wait (src/runner/expiry-progress.ts): the rest of the battery is done by now or soon.
      if (!sent && /waiting for the access token to expire .* s left/.test(stderr)) {
        sent = true;
        setTimeout(() => child.kill('SIGTERM'), 4000);
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));

    expect(sent, stderr).toBe(true);
    expect(code, stderr).toBe(3);
    const report = JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
    expect(report.verdict).toBe('incomplete');
    expect(report.incompleteReason).toBe('interrupted by SIGTERM');
    // What was judged before the signal is in the report as judged; only the waiting checks are not.
    const passed = report.checks.filter((c) => c.status === 'passed').map((c) => c.id);
    for (const id of ['TOKEN-ISSUE', 'USER-OK', 'TENANT-ACCESS', 'PAGE-WALK', 'RESOURCE-SCHEMA', 'VERSION-MISSING'])
      expect(passed, id).toContain(id);
    const waiting = report.checks.filter((c) => c.id.startsWith('EXPIRY-') && c.status !== 'passed');
    expect(waiting.length).toBeGreaterThan(0);
    for (const c of waiting) expect(c.message, c.id).toMatch(/interrupted by SIGTERM/);
  }, 90_000);

  it.each(['SIGINT', 'SIGTERM'] as const)(
    '%s stops a run promptly, with a partial report marked incomplete and exit 3',
    async (signal) => {
      const server = await startReferenceServer({ tokenTtlSeconds: 60 });
      cleanup.push(() => server.close());
      const hostile = await startHostile({ upstream: server.url, misbehaviour: 'silent', match: LEGACY_USERINFO });
      cleanup.push(() => hostile.close());
      const reportsDir = await tempDir();
      const child = spawn(
        process.execPath,
        [
          BIN,
          'run',
          '--base-url',
          hostile.url,
          '--client-id',
          server.clientId,
          '--reports-dir',
          reportsDir,
          '--suite',
          'legacy',
          '--timeout',
          '60000',
        ],
        {
          env: { ...process.env, CARRIER_CLIENT_SECRET: server.clientSecret },
        },
      );
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      // Once a request hangs on the silent endpoint, interrupt.
      for (let i = 0; i < 100 && hostile.misbehaved === 0; i += 1) await new Promise((r) => setTimeout(r, 100));
      const interruptedAt = performance.now();
      child.kill(signal);
      const code = await exited;

      expect(code).toBe(3);
      expect((performance.now() - interruptedAt) / 1000).toBeLessThan(3);
      expect(stderr).toMatch(new RegExp(`${signal}: stopping`));
      const report = JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
      expect(report.verdict).toBe('incomplete');
      expect(report.incompleteReason).toBe(`interrupted by ${signal}`);
      expect(report.checks.find((c) => c.id === 'LEGACY-USERINFO')?.message).toMatch(
        new RegExp(`interrupted by ${signal}`),
      );
    },
  );
});
