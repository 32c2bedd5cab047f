/**
 * The Carrier-Platform API as Python teams write it, served by Debian 12's system Python
 * (`/usr/bin/python3`; PYTHON_PATH points at another): FastAPI 0.92 + pydantic 1.10
 * (test/support/stacks/python/fastapi_app.py) or Django 3.2 + Django REST framework 3.14
 * (test/support/stacks/python/drf/), both on uvicorn. One process per framework serves every
 * app asked for, each on a loopback port of its own (its variants share the start-up), each with
 * the OpenAPI document its framework generates for it (FastAPI's /openapi.json, DRF's
 * `generateschema`).
 *
 * The data is the reference server's data set (src/reference/data.ts), handed to Python as JSON,
 * with one value it never has: a webhook URL in the main tenant's settings (DRF documents a
 * URLField with a `pattern`). The expectations are its seeded items as the data set writes them
 * (`…T00:00:00.000Z`), keyed by the document's paths (DRF's router: `shipments/`).
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  buildTenants,
  buildUser,
  invoicesSlice,
  settingsOf,
  shipmentsSlice,
  type TenantRecord,
} from '../../../src/reference/data.js';
import { seededResources } from '../../../src/reference/seeded.js';
import { stopChild, trackChild } from '../children.js';
import { tempDir } from '../harness.js';

export type PythonFramework = 'fastapi' | 'drf';

export const PYTHON = process.env.PYTHON_PATH ?? '/usr/bin/python3';

/** The Debian packages each framework needs (what `.ci/run` installs), and the modules they provide. */
export const PYTHON_PACKAGES: Readonly<
  Record<PythonFramework, { debian: readonly string[]; modules: readonly string[] }>
> = {
  fastapi: {
    debian: ['python3-fastapi', 'python3-uvicorn', 'python3-multipart'],
    modules: ['fastapi', 'uvicorn', 'multipart'],
  },
  drf: {
    debian: ['python3-djangorestframework', 'python3-uvicorn', 'python3-uritemplate', 'python3-yaml'],
    modules: ['rest_framework', 'django', 'uvicorn', 'uritemplate', 'yaml'],
  },
};

const SCRIPTS: Readonly<Record<PythonFramework, string>> = {
  fastapi: new URL('python/fastapi_app.py', import.meta.url).pathname,
  drf: new URL('python/drf/serve_drf.py', import.meta.url).pathname,
};

/** Whether PYTHON has the framework's modules (looked up, not imported: fast enough for collection time). */
export function havePythonFramework(framework: PythonFramework): boolean {
  const probe =
    'import importlib.util, sys; sys.exit(0 if all(importlib.util.find_spec(m) for m in sys.argv[1:]) else 1)';
  const result = spawnSync(PYTHON, ['-c', probe, ...PYTHON_PACKAGES[framework].modules], {
    timeout: 10_000,
    stdio: 'ignore',
  });
  return result.status === 0;
}

export interface PythonStackOptions {
  framework: PythonFramework;
  /**
   * The apps to serve, each with the `expires_in` of its tokens in seconds (short where the expiry
   * suite waits it out, long where a run under load must not outlive its tokens): `conformant`, or
   * defects joined by `+` (see each framework's module).
   */
  apps: Readonly<Record<string, number>>;
  /** Shipments of the main tenant; default 60 (more than a page size capped at 25). */
  shipmentCount?: number;
  /** Bounded wait for the ready line; default 30 s (Django creates and fills its database first). */
  startTimeoutMs?: number;
}

export interface PythonStack {
  readonly framework: PythonFramework;
  /** Base URL of an app, e.g. `http://127.0.0.1:41234`. */
  url(app: string): string;
  /** The OpenAPI document the framework generated for the app. */
  openapiFile(app: string): string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly tenantId: string;
  readonly foreignTenantId: string;
  /** Ground truth for --expectations: the user and the seeded resources of the main tenant. */
  readonly expectations: { user: unknown; resources: Record<string, unknown> };
  /** What the process wrote to stderr: for a failure message. */
  diagnostics(): string;
  /** Ends the process (its stdin closes; SIGKILL if it lingers) and removes its temp dir. Idempotent. */
  close(): Promise<void>;
}

const CLIENT_ID = 'python-client';
const WEBHOOK_URL = 'https://hooks.example.com/carrier';
/** Characters that must be form-urlencoded before Base64 (RFC 6749 §2.3.1). */
const CLIENT_SECRET = 'python secret+%:&=/5';

export async function startPythonStack(options: PythonStackOptions): Promise<PythonStack> {
  const { framework } = options;
  const dir = await tempDir(`carrier-${framework}-`);
  const tenants = buildTenants(options.shipmentCount ?? 60);
  const all = [...tenants.values()];
  const main = all[0];
  const user = buildUser(tenants);
  const settingsFor = (tenant: TenantRecord) => ({
    ...settingsOf(tenant),
    webhookUrl: tenant === main ? WEBHOOK_URL : null,
  });
  const data = {
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    user,
    tenants: all.map((t) => ({ id: t.id, name: t.name, accessible: t.accessible })),
    shipments: Object.fromEntries(all.map((t) => [t.id, shipmentsSlice(t, 0, t.shipmentCount)])),
    invoices: Object.fromEntries(all.map((t) => [t.id, invoicesSlice(t, 0, t.invoiceCount)])),
    settings: Object.fromEntries(all.map((t) => [t.id, settingsFor(t)])),
  };
  const dataFile = join(dir, 'data.json');
  await writeFile(dataFile, JSON.stringify(data));

  const args = [
    SCRIPTS[framework],
    '--data',
    dataFile,
    '--out',
    dir,
    ...Object.entries(options.apps).flatMap(([app, ttl]) => ['--app', `${app}@${ttl}`]),
  ];
  // No bytecode files next to the sources; stdin open: the process ends when it closes.
  const child = spawn(PYTHON, args, {
    cwd: dir,
    detached: true,
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONUNBUFFERED: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  trackChild(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  let spawnError: Error | undefined;
  child.once('error', (err) => (spawnError = err));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      await stopChild(child, exited, () => child.stdin.end());
      await rm(dir, { recursive: true, force: true });
    })();
    return closing;
  };

  const timeoutMs = options.startTimeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  let ports: Record<string, number> | undefined;
  while (ports === undefined) {
    const line = stdout.split('\n').length > 1 ? stdout.slice(0, stdout.indexOf('\n')) : undefined;
    if (line !== undefined) {
      ports = (JSON.parse(line) as { ports: Record<string, number> }).ports;
      break;
    }
    if (spawnError || child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
      await Promise.race([exited, sleep(500)]);
      const why = spawnError
        ? spawnError.message
        : child.exitCode !== null || child.signalCode !== null
          ? `exit ${child.exitCode ?? child.signalCode}`
          : `no ready line within ${timeoutMs} ms`;
      await close();
      throw new Error(`${framework} did not start (${why}): ${PYTHON} ${args.join(' ')}\n${stderr}`);
    }
    await sleep(25);
  }

  const known = (app: string): number => {
    const port = ports[app];
    if (port === undefined) throw new Error(`${framework}: no app ${app} (started: ${Object.keys(ports).join(', ')})`);
    return port;
  };
  const seeded = { ...seededResources(tenants), ...(main ? { settings: settingsFor(main) } : {}) };
  // DRF's router documents its lists with a trailing slash: the expectations use the document's paths.
  const resources =
    framework === 'drf'
      ? Object.fromEntries(Object.entries(seeded).map(([path, value]) => [`${path}/`, value]))
      : seeded;
  const extension = framework === 'drf' ? 'yaml' : 'json';
  // The documents exist once the ready line is written; read here so that a missing one fails now.
  await Promise.all(Object.keys(ports).map((app) => readFile(join(dir, `${app}.${extension}`))));
  return {
    framework,
    url: (app) => `http://127.0.0.1:${known(app)}`,
    openapiFile: (app) => {
      known(app);
      return join(dir, `${app}.${extension}`);
    },
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    tenantId: main?.id ?? '',
    foreignTenantId: all.find((t) => !t.accessible)?.id ?? '',
    expectations: { user, resources },
    diagnostics: () => stderr,
    close,
  };
}
