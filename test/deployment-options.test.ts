/**
 * Options real deployments need (issue 32 item 2), each against a loopback server that needs it:
 * a gateway key beside OAuth (--header); a token endpoint that needs an audience and takes the
 * client credentials in the form body (--token-param, --scope, --client-auth post); a gateway that
 * requires a client certificate (--cert, --key); a YAML config file; `list` filters and
 * `serve --faults`.
 */
import { randomBytes } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_PATH } from '../src/carrier/paths.js';
import { loadConfigFile, parseRunOptions } from '../src/config/options.js';
import { formEncode } from '../src/core/basic-credentials.js';
import type { RecordedExchange, RunReport } from '../src/model/run-report.js';
import { curlCommand } from '../src/report/reproduce.js';
import { startReferenceServer, type ReferenceServer } from '../src/reference/index.js';
import { startFront, type Front } from './support/front.js';
import { runBin, runMain, tempDir } from './support/harness.js';
import { CHECKS, type Check } from '../src/catalogue/index.js';
import { FAULTS, VARIANTS } from '../src/reference/catalogue.js';
import { forward, serveOnLoopback } from './support/hostile.js';
import { clientCertificate, privateCa, type PrivateCa } from './support/tls.js';
import { onLoopback } from './support/loopback.js';

let server: ReferenceServer;

beforeAll(async () => {
  server = await startReferenceServer({ tokenTtlSeconds: 60 });
});

afterAll(async () => {
  await server.close();
});

const NO_PROXY_ENV = { HTTP_PROXY: '', HTTPS_PROXY: '', http_proxy: '', https_proxy: '' };

/** Every file the run wrote, as text, with its console output: where a secret must not be. */
async function everythingWritten(reportsDir: string, console: { stdout: string; stderr: string }): Promise<string> {
  const files = await readdir(reportsDir, { recursive: true, withFileTypes: true });
  const texts = await Promise.all(
    files.filter((f) => f.isFile()).map((f) => readFile(join(f.parentPath, f.name), 'utf8')),
  );
  return [console.stdout, console.stderr, ...texts].join('\n');
}

async function run(baseUrl: string, args: string[], env: Record<string, string> = {}) {
  const reportsDir = await tempDir();
  const result = await runBin(
    [
      'run',
      '--base-url',
      baseUrl,
      '--client-id',
      server.clientId,
      '--suite',
      'token',
      '--suite',
      'user',
      '--reports-dir',
      reportsDir,
      ...args,
    ],
    {
      env: { CARRIER_CLIENT_SECRET: server.clientSecret, ...NO_PROXY_ENV, ...env },
    },
  );
  const report = JSON.parse(
    await readFile(join(reportsDir, 'report.json'), 'utf8').catch(() => 'null'),
  ) as RunReport | null;
  return { ...result, reportsDir, report };
}

describe('--header: a gateway key beside OAuth', () => {
  // As AWS API Gateway does without its x-api-key: 403 {"message":"Forbidden"}, token endpoint included.
  const key = `gw-${randomBytes(12).toString('hex')}`;
  let front: Front;
  let withoutKey = 0;
  beforeAll(async () => {
    front = await startFront(server.url, (req, res) => {
      if (req.headers['x-api-key'] === key) return false;
      withoutKey += 1;
      res.writeHead(403, { 'content-type': 'application/json' }).end('{"message":"Forbidden"}');
      return true;
    });
  });
  afterAll(async () => {
    await front.close();
  });

  it('without the key the gateway refuses every request: the run is not conformant, and says why', async () => {
    const result = await run(front.url, []);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/token endpoint answered 403|answered 403/);
  });

  it('with --header the run is conformant, every request carries the key, and its value is nowhere in the output', async () => {
    withoutKey = 0;
    const result = await run(front.url, ['--header', `X-Api-Key: ${key}`, '--header', 'X-Trace: harness']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(withoutKey).toBe(0);
    expect(await everythingWritten(result.reportsDir, result)).not.toContain(key);
  });

  it("a failed check's recorded request and its curl reproduction show the key as redacted / a variable, never its value", async () => {
    const faulty = await startReferenceServer({ tokenTtlSeconds: 60, faults: ['token-cacheable'] });
    const gate = await startFront(faulty.url, (req, res) =>
      req.headers['x-api-key'] === key ? false : (res.writeHead(403).end(), true),
    );
    try {
      const reportsDir = await tempDir();
      const result = await runBin(
        [
          'run',
          '--base-url',
          gate.url,
          '--client-id',
          faulty.clientId,
          '--suite',
          'token',
          '--reports-dir',
          reportsDir,
          '--header',
          `X-Api-Key: ${key}`,
          '--header',
          'X-Trace: harness',
        ],
        {
          env: { CARRIER_CLIENT_SECRET: faulty.clientSecret, ...NO_PROXY_ENV },
        },
      );
      expect(result.code).toBe(1);
      const report = JSON.parse(await readFile(join(reportsDir, 'report.json'), 'utf8')) as RunReport;
      const exchanges = report.checks.flatMap((c) => c.exchanges);
      const headers = exchanges.flatMap((e) => e.request.headers);
      expect(headers.some(([n, v]) => n === 'X-Api-Key' && /^\[REDACTED/.test(v))).toBe(true);
      // Every value is a secret, whatever the field's name: the harness cannot tell a key from a label.
      expect(headers.filter(([n]) => n === 'X-Trace')).toContainEqual(['X-Trace', '[REDACTED:secret]']);
      const curl = curlCommand(
        exchanges.find((e) => e.request.headers.some(([n]) => n === 'X-Api-Key')) as RecordedExchange,
        report,
      );
      expect(curl).toContain('-H "X-Api-Key: $CARRIER_HIDDEN_1"');
      expect(await everythingWritten(reportsDir, result)).not.toContain(key);
    } finally {
      await gate.close();
      await faulty.close();
    }
  });

  it('CARRIER_HEADER (one field per line) and a config file\'s "header" do the same', async () => {
    const viaEnv = await run(front.url, [], { CARRIER_HEADER: `X-Api-Key: ${key}\nX-Trace: env` });
    expect(viaEnv.code).toBe(0);
    const dir = await tempDir();
    const config = join(dir, 'config.json');
    await writeFile(config, JSON.stringify({ header: [`X-Api-Key: ${key}`] }));
    const viaConfig = await run(front.url, ['--config', config]);
    expect(viaConfig.code).toBe(0);
    expect(await everythingWritten(viaConfig.reportsDir, viaConfig)).not.toContain(key);
  });

  it.each([
    ['Authorization: Bearer x', /--header: Authorization is set by the harness itself/],
    ['Accept-Version: 2', /--header: Accept-Version is set by the harness itself/],
    ['no colon here', /--header: is not "Name: value"/],
    ['X-Api-Key:', /--header: X-Api-Key has no value/],
  ])('refuses %j with exit 2, without echoing the value', async (line, message) => {
    const result = await run(front.url, ['--header', line]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});

/**
 * A token endpoint as Auth0's: it needs `audience` (400 invalid_request without it) and, unless
 * `basic`, takes the client credentials only in the form body (client_secret_post), refusing
 * HTTP Basic with 401 invalid_client. In front of the reference server, to which it passes the
 * request on as the spec's (Basic, without audience); every other request passes unchanged.
 */
async function startOAuthFront(upstream: string, rules: { audience: string; scope?: string; basic: boolean }) {
  const seen = { post: 0, basic: 0 };
  const server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      let body: string | undefined = chunks.length > 0 ? Buffer.concat(chunks).toString('utf8') : undefined;
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (
          value === undefined ||
          ['host', 'connection', 'content-length', 'accept-encoding', 'transfer-encoding'].includes(name)
        )
          continue;
        for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
      }
      const refuse = (status: number, error: string): void =>
        void res
          .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
          .end(JSON.stringify({ error, error_description: `front: ${error}` }));
      if (req.method === 'POST' && req.url === TOKEN_PATH) {
        const form = new URLSearchParams(body ?? '');
        if (form.get('audience') !== rules.audience || (rules.scope !== undefined && form.get('scope') !== rules.scope))
          return refuse(400, 'invalid_request');
        form.delete('audience');
        form.delete('scope');
        const id = form.get('client_id');
        const secret = form.get('client_secret');
        if (id !== null && secret !== null) {
          // RFC 6749 §2.3: a client MUST NOT use more than one authentication method per request.
          if (headers.has('authorization')) return refuse(400, 'invalid_request');
          seen.post += 1;
          form.delete('client_id');
          form.delete('client_secret');
          headers.set(
            'authorization',
            `Basic ${Buffer.from(`${formEncode(id)}:${formEncode(secret)}`).toString('base64')}`,
          );
        } else if (headers.has('authorization')) {
          seen.basic += 1;
          if (!rules.basic) return refuse(401, 'invalid_client');
        }
        body = form.toString();
      }
      const answer = await fetch(`${upstream}${req.url ?? '/'}`, {
        method: req.method ?? 'GET',
        headers,
        ...(body !== undefined ? { body } : {}),
        redirect: 'manual',
      });
      const out: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive'].includes(name))
          out[name] = value;
      });
      res.writeHead(answer.status, out).end(Buffer.from(await answer.arrayBuffer()));
    })().catch(() => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
  });
  await onLoopback(server);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("--token-param, --scope and --client-auth: a token endpoint like Auth0's", () => {
  const audience = 'https://carrier.example.com/api';

  it("needing an audience: refused without it, conformant with --token-param (every token request carries it, the checks' too)", async () => {
    const front = await startOAuthFront(server.url, { audience, scope: 'read:shipments read:users', basic: true });
    try {
      const without = await run(front.url, []);
      expect(without.code).not.toBe(0);
      expect(without.stderr).toMatch(/token request with the configured credentials answered 400 invalid_request/);
      const withParams = await run(front.url, [
        '--token-param',
        `audience=${audience}`,
        '--scope',
        'read:shipments read:users',
      ]);
      expect(withParams.stderr).toBe('');
      expect(withParams.code).toBe(0);
      // The same from the environment (one per line: a value may hold spaces).
      const viaEnv = await run(front.url, [], {
        CARRIER_TOKEN_PARAM: `audience=${audience}\nscope=read:shipments read:users`,
      });
      expect(viaEnv.code).toBe(0);
    } finally {
      await front.close();
    }
  });

  it('taking client_secret_post only: found without --client-auth (TOKEN-ISSUE fails, the run goes on with it); --client-auth post gets the run its token, noted as a deviation; the token checks still test Basic, and fail', async () => {
    const front = await startOAuthFront(server.url, { audience, basic: false });
    try {
      // Issue 38: it used to stop with exit 2, "refused the configured client credentials … check
      // --client-id", and a team hunted for a typo. One more request tells the cases apart.
      const basic = await run(front.url, ['--token-param', `audience=${audience}`]);
      expect(basic.stderr).toMatch(
        /^warning: the token endpoint refused the client credentials in HTTP Basic \(401 invalid_client\) and issued a token for the same credentials in the form body \(client_secret_post, RFC 6749 §2\.3\.1\): the run goes on with client_secret_post so that the rest of the battery is judged; TOKEN-ISSUE fails \(spec §Obtain an access token: HTTP Basic\)$/m,
      );
      expect(basic.stderr).not.toMatch(/check --client-id/);
      expect(basic.code).toBe(1);
      expect(basic.report?.target.clientAuth).toBe('post');
      const outcome = (id: string): string | undefined => basic.report?.checks.find((c) => c.id === id)?.status;
      const issue = basic.report?.checks.find((c) => c.id === 'TOKEN-ISSUE');
      expect(issue?.status).toBe('failed');
      expect(issue?.findings.map((f) => f.message)).toEqual([
        'refuses HTTP Basic, accepts client_secret_post: the token request with the client credentials in HTTP Basic, as spec §Obtain an access token and §Authentication 2 require, answered 401 invalid_client, while the same credentials in the form body (client_secret_post, RFC 6749 §2.3.1) got a token; the rest of the run used client_secret_post',
      ]);
      // Both exchanges are in the report: the refusal it cites, and the request that worked.
      const authorization = (e: { request: { headers: [string, string][] } }): string =>
        e.request.headers.find(([name]) => name.toLowerCase() === 'authorization')?.[1] ?? '';
      expect(
        issue?.exchanges.map((e) => `${e.response?.status ?? ''} ${authorization(e)} ${e.request.body ?? ''}`),
      ).toEqual([
        expect.stringMatching(/^401 Basic \[REDACTED:basic-credentials\] grant_type=client_credentials&audience=/),
        expect.stringMatching(
          /^200 {2}grant_type=client_credentials&audience=.*&client_id=.*&client_secret=\[REDACTED/,
        ),
      ]);
      // The rest is judged on client_secret_post: the token response, the token, /users/me.
      for (const id of [
        'TOKEN-ACCESS-TOKEN',
        'TOKEN-TYPE',
        'TOKEN-EXPIRES-IN',
        'TOKEN-NO-STORE',
        'TOKEN-WORKS',
        'TOKEN-GRANT-MISSING',
        'TOKEN-GRANT-UNSUPPORTED',
        'TOKEN-GRANT-OTHERS',
        'USER-OK',
      ])
        expect(outcome(id), id).toBe('passed');
      for (const id of ['TOKEN-WRONG-SECRET', 'TOKEN-UNKNOWN-CLIENT', 'TOKEN-NO-CREDENTIALS', 'TOKEN-BASIC-CASE'])
        expect(outcome(id), id).toBe('error');
      const detected = await everythingWritten(basic.reportsDir, basic);
      expect(detected).not.toContain(server.clientSecret);
      expect(detected).not.toContain(formEncode(server.clientSecret));

      const users = await run(front.url, [
        '--token-param',
        `audience=${audience}`,
        '--client-auth',
        'post',
        '--suite',
        'user',
      ]);
      expect(users.stderr).toMatch(
        /note: --client-auth post: .*client_secret_post, RFC 6749 §2\.3\.1: NOT RECOMMENDED\), a deviation from the spec's HTTP Basic/,
      );
      expect(users.report?.target.clientAuth).toBe('post');
      expect(front.seen.post).toBeGreaterThan(0);
      const status = (id: string): string | undefined => users.report?.checks.find((c) => c.id === id)?.status;
      expect(status('USER-OK')).toBe('passed');
      expect(status('TOKEN-ISSUE')).toBe('failed');
      expect(users.code).toBe(1);
      // The secret went in the body: redacted there, as in a Basic header.
      const written = await everythingWritten(users.reportsDir, users);
      expect(written).not.toContain(server.clientSecret);
      expect(written).not.toContain(formEncode(server.clientSecret));
    } finally {
      await front.close();
    }
  });

  it.each([
    [['--client-auth', 'form'], /--client-auth: "form" is neither basic/],
    [['--token-param', 'grant_type=password'], /--token-param: "grant_type" is set by the harness itself/],
    [['--token-param', 'audience'], /--token-param: "audience" is not NAME=VALUE/],
    [['--token-param', 'scope=a', '--scope', 'b'], /--scope and --token-param scope=… both give the scope/],
  ])('refuses %j with exit 2', async (args, message) => {
    const result = await run(server.url, args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});

describe('--cert and --key: a gateway that requires a client certificate (mutual TLS)', () => {
  const passphrase = `pass-${randomBytes(8).toString('hex')}`;
  let ca: PrivateCa;
  let client: { certFile: string; keyFile: string; encryptedKeyFile: string };
  let gateway: { url: string; close(): Promise<void> };
  let handshakes = 0;

  beforeAll(async () => {
    const dir = await tempDir('carrier-mtls-');
    ca = await privateCa(dir);
    client = await clientCertificate(dir, passphrase);
    const [cert, key, caPem] = await Promise.all([
      readFile(ca.certFile, 'utf8'),
      readFile(ca.keyFile, 'utf8'),
      readFile(ca.caFile, 'utf8'),
    ]);
    // requestCert + rejectUnauthorized: the handshake fails without a certificate the CA signed.
    const tls = createHttpsServer(
      { cert, key, ca: caPem, requestCert: true, rejectUnauthorized: true },
      (req, res) => void forward(server.url, req, res).catch(() => res.destroy()),
    );
    tls.on('secureConnection', () => (handshakes += 1));
    gateway = await serveOnLoopback(tls);
  });
  afterAll(async () => {
    await gateway.close();
  });
  it('without a client certificate the handshake is refused: exit 3, nothing tested', async () => {
    const result = await run(gateway.url, ['--ca-file', ca.caFile]);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/cannot reach the token endpoint/);
  });

  it('with --cert and --key the run is conformant', async () => {
    handshakes = 0;
    const result = await run(gateway.url, ['--ca-file', ca.caFile, '--cert', client.certFile, '--key', client.keyFile]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(handshakes).toBeGreaterThan(0);
  });

  it('an encrypted key opens with the passphrase from the environment or a file, which appears nowhere', async () => {
    const viaEnv = await run(
      gateway.url,
      ['--ca-file', ca.caFile, '--cert', client.certFile, '--key', client.encryptedKeyFile],
      { CARRIER_KEY_PASSPHRASE: passphrase },
    );
    expect(viaEnv.code).toBe(0);
    const dir = await tempDir();
    await writeFile(join(dir, 'passphrase'), `${passphrase}\n`);
    // And from a config file, its paths relative to it.
    await writeFile(
      join(dir, 'config.json'),
      JSON.stringify({
        cert: client.certFile,
        key: client.encryptedKeyFile,
        keyPassphraseFile: 'passphrase',
        caFile: ca.caFile,
      }),
    );
    const viaFile = await run(gateway.url, ['--config', join(dir, 'config.json')]);
    expect(viaFile.code).toBe(0);
    // The command line's file wins over an exported passphrase, as --client-secret-file does over CARRIER_CLIENT_SECRET.
    const argvWins = await run(
      gateway.url,
      [
        '--ca-file',
        ca.caFile,
        '--cert',
        client.certFile,
        '--key',
        client.encryptedKeyFile,
        '--key-passphrase-file',
        join(dir, 'passphrase'),
      ],
      { CARRIER_KEY_PASSPHRASE: 'wrong' },
    );
    expect(argvWins.code).toBe(0);
    expect(await everythingWritten(viaFile.reportsDir, viaFile)).not.toContain(passphrase);
  });

  it.each([
    [() => ['--cert', client.certFile], /--cert needs --key/],
    [
      () => ['--cert', client.certFile, '--key', client.encryptedKeyFile],
      /the key is encrypted and no passphrase is given/,
    ],
    [
      () => ['--cert', client.certFile, '--key', client.encryptedKeyFile, '--key-passphrase', 'wrong'],
      /the key is encrypted and the passphrase does not open it/,
    ],
    [() => ['--cert', client.certFile, '--key', ca.keyFile], /the key is not the certificate's/],
    [() => ['--cert', client.keyFile, '--key', client.keyFile], /no PEM certificate in it/],
    [() => ['--cert', '/dev/zero', '--key', client.keyFile], /--cert \/dev\/zero: cannot read it/],
    [
      () => [
        '--cert',
        client.certFile,
        '--key',
        client.encryptedKeyFile,
        '--key-passphrase',
        'x',
        '--key-passphrase-file',
        '/etc/hostname',
      ],
      /--key-passphrase and --key-passphrase-file are both given/,
    ],
  ])('refuses bad client certificate options with exit 2 (%#)', async (args, message) => {
    const result = await run(gateway.url, ['--ca-file', ca.caFile, ...args()]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toContain(passphrase);
  });
});

describe('a YAML config file (.yaml, .yml) beside JSON', () => {
  async function file(name: string, content: string): Promise<string> {
    const path = join(await tempDir(), name);
    await writeFile(path, content);
    return path;
  }
  const message = (fn: () => unknown): string => {
    try {
      fn();
    } catch (err) {
      return (err as Error).message;
    }
    throw new Error('expected a usage error');
  };

  it('reads the options as the JSON file gives them, kebab-case keys and relative paths included', async () => {
    const yaml = await file(
      'carrier.yaml',
      'base-url: https://api.example.test\npagedPath:\n  - shipments\nstrict: yes\ntimeout: 5000\nheader:\n  - "X-Api-Key: k-123456"\ncaFile: ca.pem\n',
    );
    const json = await file(
      'carrier.json',
      JSON.stringify({
        'base-url': 'https://api.example.test',
        pagedPath: ['shipments'],
        strict: 'yes',
        timeout: 5000,
        header: ['X-Api-Key: k-123456'],
        caFile: 'ca.pem',
      }),
    );
    const fromYaml = loadConfigFile(yaml);
    expect({ ...fromYaml, caFile: undefined }).toEqual({ ...loadConfigFile(json), caFile: undefined });
    expect(fromYaml.caFile).toBe(join(yaml, '..', 'ca.pem'));
    expect(parseRunOptions(fromYaml)).toMatchObject({
      baseUrl: 'https://api.example.test',
      strict: true,
      header: ['X-Api-Key: k-123456'],
    });
  });

  it.each([
    ['a wrong-typed field', 'timeout: soon\n', /^config file .*\.yml: "timeout": must be a number \(milliseconds\)$/],
    ['an unknown key', 'colour: true\n', /: unknown option "colour"; /],
    ['a list', '- 1\n- 2\n', /: must be a YAML mapping of options, e\.g\. "baseUrl: https/],
    ['an empty file', '', /: not valid YAML \(.*empty/],
    ['invalid YAML', 'baseUrl: [unclosed\n', /: not valid YAML \(.* at line \d+\)$/],
    ['a duplicated key', 'timeout: 1\ntimeout: 2\n', /: not valid YAML \(duplicated mapping key/],
    [
      'an alias bomb',
      `a: &a ["lol"]\n${Array.from({ length: 9 }, (_, i) => `b${i}: *a`).join('\n')}\n`,
      /: not valid YAML \(.*maxAliases/,
    ],
    ['deep nesting', `x: ${'['.repeat(40)}${']'.repeat(40)}\n`, /: not valid YAML \(.*maxDepth/],
  ])('refuses %s with one line naming the file (and the key as written)', async (_what, content, expected) => {
    const path = await file('carrier.yml', content);
    const text = message(() => loadConfigFile(path));
    expect(text).toMatch(/^config file \S+\.yml: /);
    expect(text).toMatch(expected);
    expect(text).not.toMatch(/[\r\n]/);
  });

  it('a run takes its options from a .yml file: a token endpoint that needs an audience', async () => {
    const front = await startOAuthFront(server.url, { audience: 'https://carrier.example.com/api', basic: true });
    try {
      const config = await file(
        'carrier.yml',
        '# the deployment\ntoken-param:\n  - audience=https://carrier.example.com/api\nclientAuth: basic\n',
      );
      const result = await run(front.url, ['--config', config]);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const without = await run(front.url, ['--config', await file('other.yml', 'clientAuth: basic\n')]);
      expect(without.code).not.toBe(0);
    } finally {
      await front.close();
    }
  });
});

describe('list filters and serve --faults', () => {
  it('list --suite and --level keep only those checks, in catalogue order; --json gives their refs and notes', async () => {
    const result = await runMain(['list', '--suite', 'token', '--suite', 'expiry', '--level', 'should', '--json']);
    expect(result.code).toBe(0);
    const listed = JSON.parse(result.stdout) as Check[];
    expect(listed).toEqual(CHECKS.filter((c) => (c.suite === 'token' || c.suite === 'expiry') && c.level === 'SHOULD'));
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.every((c) => c.refs.length > 0)).toBe(true);
    const noted = JSON.parse((await runMain(['list', '--json'])).stdout) as Check[];
    expect(noted.filter((c) => c.notes !== undefined).length).toBe(CHECKS.filter((c) => c.notes !== undefined).length);
    const table = await runMain(['list', '--level', 'MUST', '--suite', 'user']);
    expect(table.stdout).toContain('USER-OK');
    expect(table.stdout).not.toMatch(/TOKEN-| SHOULD {2}/);
  });

  it.each([
    [['list', '--suite', 'tokens'], /--suite: unknown suite "tokens"; the suites are token, expiry/],
    [['list', '--level', 'MAY'], /--level: unknown level "MAY"; the levels are MUST, SHOULD/],
  ])('list refuses %j with exit 2', async (args, message) => {
    const result = await runMain(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  it('serve --faults lists every fault and variant, one line each, and starts no server', async () => {
    const result = await runMain(['serve', '--faults']);
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    for (const fault of FAULTS)
      expect(lines.filter((l) => l.startsWith(`  ${fault.name} `))).toEqual([
        expect.stringContaining(`${fault.description} [${fault.breaks.join(', ')}]`),
      ]);
    for (const variant of VARIANTS)
      expect(lines.filter((l) => l.startsWith(`  ${variant.name} `))).toEqual([
        expect.stringContaining(variant.description),
      ]);
    const help = await runMain(['serve', '--help']);
    expect(help.stdout).toContain('serve --faults');
    expect(help.stdout).not.toContain('src/reference/');
  });
});
