/**
 * The reports' curl commands against an HTTPS target with a private CA (--ca-file): the command in
 * junit.xml must trust that CA as the harness did (`--cacert`), or it reproduces nothing but a
 * certificate error. With curl on the machine, the command is run and must get the status the
 * harness recorded.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../src/model/run-report.js';
import { startReferenceServer, type ReferenceServer } from '../src/reference/index.js';
import { childElements, parseXml, textOf } from './fixtures/report/xml.js';
import { runBin, tempDir } from './support/harness.js';
import { selfSignedCertificate, startTlsFront, type Certificate } from './support/tls.js';

const IN_CI = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';
const HAVE_CURL = spawnSync('sh', ['-c', 'command -v curl'], { timeout: 5_000 }).status === 0;
const NO_PROXY_ENV = { HTTP_PROXY: '', HTTPS_PROXY: '', http_proxy: '', https_proxy: '' };
/** A secret RFC 6749 §2.3.1 leaves as it is, so that `curl -u "$ID:$SECRET"` sends what the harness sent. */
const SECRET = 'plain-secret-2026';
const CHECK = 'VERSION-MISSING';

let server: ReferenceServer;
let certificate: Certificate;
let https: { url: string; close(): Promise<void> };

interface Reproduced {
  report: RunReport;
  /** The `Reproduce:` commands of CHECK in junit.xml, by exchange index. */
  commands: Map<number, string>;
}

let withCaFile: Reproduced;

/** The `Reproduce:` commands of the test case `id` in junit.xml's system-out, by exchange index. */
async function reproduceCommandsIn(junitXml: string, id: string): Promise<Map<number, string>> {
  const root = await parseXml(junitXml);
  const testcase = childElements(root, 'testsuite')
    .flatMap((suite) => childElements(suite, 'testcase'))
    .find((tc) => tc.attrs.name?.startsWith(`${id} `));
  const out = testcase && childElements(testcase, 'system-out')[0];
  if (!out) throw new Error(`no system-out for ${id} in junit.xml`);
  // Sections are separated by blank lines: `Exchange #N:` and then its `Reproduce:` command.
  const commands = new Map<number, string>();
  let exchange: number | undefined;
  for (const section of textOf(out).split('\n\n')) {
    const number = /^Exchange #(\d+):/.exec(section)?.[1];
    if (number !== undefined) exchange = Number(number) - 1;
    else if (section.startsWith('Reproduce:\n') && exchange !== undefined)
      commands.set(exchange, section.slice('Reproduce:\n'.length));
  }
  return commands;
}

/** Runs a reproduction command with sh and the real curl, with the credentials it asks for; killed after 15 s. */
function runCommand(shellCommand: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // Asynchronous: the TLS front and the server run in this process and must answer meanwhile.
    const child = spawn('sh', ['-c', shellCommand], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        ...NO_PROXY_ENV,
        CARRIER_CLIENT_ID: server.clientId,
        CARRIER_CLIENT_SECRET: SECRET,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** Runs the real CLI against the HTTPS front with `tlsArgs`: it must find the fault (exit 1). */
async function runHarness(tlsArgs: string[]): Promise<Reproduced> {
  const reportsDir = await tempDir();
  const result = await runBin(
    [
      'run',
      '--base-url',
      https.url,
      '--client-id',
      server.clientId,
      '--suite',
      'versioning',
      ...tlsArgs,
      '--reports-dir',
      reportsDir,
    ],
    {
      env: { CARRIER_CLIENT_SECRET: SECRET, ...NO_PROXY_ENV },
    },
  );
  expect(result.code, result.stderr).toBe(1);
  const report = JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
  return { report, commands: await reproduceCommandsIn(await readFile(join(reportsDir, 'junit.xml'), 'utf8'), CHECK) };
}

beforeAll(async () => {
  // Serves a request without Accept-Version (spec §Versioning 2): VERSION-MISSING fails on token
  // requests and on requests that need a token, so some commands obtain one first, over TLS too.
  server = await startReferenceServer({
    faults: ['version-missing-accepted'],
    clientSecret: SECRET,
    tokenTtlSeconds: 60,
  });
  certificate = await selfSignedCertificate();
  https = await startTlsFront(server.url, certificate);
  withCaFile = await runHarness(['--ca-file', certificate.certFile]);
});

afterAll(async () => {
  await https?.close();
  await server?.close();
});

describe('curl commands of a run with --ca-file', () => {
  it('trust the CA file, for the token request and for the request itself', () => {
    const { report, commands } = withCaFile;
    expect(report.target.caFile).toBe(certificate.certFile);
    const check = report.checks.find((c) => c.id === CHECK);
    expect(check?.status).toBe('failed');
    // The token requests without Accept-Version, and the resource requests with a token.
    expect([...commands.keys()]).toEqual(check?.exchanges.map((_, i) => i));
    const auths = check?.exchanges.map((ex) => ex.auth) ?? [];
    expect(auths).toContain('client-basic');
    expect(auths).toContain('bearer');
    const cacert = `--cacert '${certificate.certFile}' `;
    for (const [index, command] of commands) {
      const lines = command.split('\n');
      expect(lines.at(-1)?.startsWith(`curl -i ${cacert}`), `exchange ${index}: ${command}`).toBe(true);
      // A bearer request gets its token first (after the guards on its variables), with the same trust.
      const tokenLine = lines.find((line) => line.startsWith('CARRIER_ACCESS_TOKEN='));
      if (auths[index] === 'bearer')
        expect(
          tokenLine?.startsWith(`CARRIER_ACCESS_TOKEN=$(curl -sS ${cacert}-u `),
          `exchange ${index}: ${command}`,
        ).toBe(true);
      expect(command).not.toContain('--insecure');
    }
  });

  it.skipIf(!HAVE_CURL && !IN_CI)(
    `get the status the harness recorded, run with curl${HAVE_CURL ? '' : ' (skipped: no curl; `apt-get install curl`)'}`,
    async () => {
      const { report, commands } = withCaFile;
      const check = report.checks.find((c) => c.id === CHECK);
      for (const [index, command] of commands) {
        const recorded = check?.exchanges[index]?.response?.status;
        expect(recorded, `exchange ${index}`).toBeTypeOf('number');
        const run = await runCommand(command);
        expect(run.stderr, `exchange ${index}`).not.toMatch(/curl: \(\d+\)/);
        expect(run.status, `exchange ${index}`).toBe(0);
        expect(run.stdout, `exchange ${index}`).toMatch(new RegExp(`^HTTP/[\\d.]+ ${recorded}\\b`));
      }
      // Without --cacert curl refuses the certificate (exit 60): the option is what reproduces it.
      const [first] = commands.values();
      expect((await runCommand((first ?? '').replace(/--cacert '[^']+' /g, ''))).status).toBe(60);
    },
  );
});

describe('curl commands of a run with --insecure', () => {
  it.skipIf(!HAVE_CURL && !IN_CI)(
    `skip verification too, and get the status the harness recorded${HAVE_CURL ? '' : ' (skipped: no curl)'}`,
    async () => {
      const { report, commands } = await runHarness(['--insecure']);
      expect(report.target).toMatchObject({ insecure: true });
      expect(report.target.caFile).toBeUndefined();
      const check = report.checks.find((c) => c.id === CHECK);
      const bearer = check?.exchanges.findIndex((ex) => ex.auth === 'bearer') ?? -1;
      const command = commands.get(bearer) ?? '';
      const curls = command.split('\n').filter((line) => /\bcurl /.test(line));
      expect(curls).toHaveLength(2);
      for (const line of curls) expect(line).toMatch(/curl -\w+ --insecure /);
      expect(command).not.toContain('--cacert');
      const run = await runCommand(command);
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(new RegExp(`^HTTP/[\\d.]+ ${check?.exchanges[bearer]?.response?.status}\\b`));
    },
  );
});
