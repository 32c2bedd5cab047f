/**
 * The mock of one document, in a process of its own (`npm run corpus` forks one per document):
 * a document that takes the generator or the oracle gigabytes or minutes costs that document,
 * never the benchmark; and the harness's figures are its own process's, not shared with the mock.
 *
 * Over IPC: the parent sends `start` (the document, its hand labels, a folder to write the
 * re-rooted document in); the child answers `ready` (where the server listens, the document's
 * figures, the mock's classification) or `failed`; on `stop` it answers `records` (what the
 * oracle said of every body served) and exits.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startReferenceServer, type ReferenceServer } from '../../src/reference/index.js';
import { reRoot } from '../../test/support/document-mock.js';
import type { HandLabel } from './classify.js';
import { mockDocument, type EndpointRecord, type MockedDocument } from './mock.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

export interface StartMessage {
  type: 'start';
  /** Absolute path of the document. */
  file: string;
  labels: HandLabel[];
  /** Folder for the re-rooted document. */
  workDir: string;
}

export interface DocumentFacts {
  /** `openapi` as the document writes it. */
  version: string;
  bytes: number;
  /** Operations of every method in the original document, and its GETs. */
  operations: number;
  gets: number;
  /** GETs re-rooted under /tenants/{tenantId}/ and served. */
  tenantGets: number;
  /** Milliseconds: reading and re-rooting; building the mock and the oracle; prechecking every endpoint. */
  readMs: number;
  mockMs: number;
  precheckMs: number;
  /** The mock process's peak RSS after the precheck, MB. */
  mockRssMb: number;
}

export type ChildReply =
  | {
      type: 'ready';
      url: string;
      clientId: string;
      clientSecret: string;
      foreignTenantId: string;
      openapiFile: string;
      facts: DocumentFacts;
      records: EndpointRecord[];
    }
  | { type: 'failed'; stage: 'read' | 'mock' | 'server'; message: string; facts?: Partial<DocumentFacts> }
  | { type: 'records'; records: EndpointRecord[]; unreadablePatterns: number };

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace', 'query'];

function send(reply: ChildReply): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) return resolve();
    process.send(reply, undefined, undefined, () => resolve());
  });
}

const oneLine = (err: unknown): string =>
  (err instanceof Error ? err.message : String(err)).split('\n')[0]?.slice(0, 300) ?? 'error';

async function start(message: StartMessage): Promise<{ server: ReferenceServer; mock: MockedDocument } | undefined> {
  const t0 = performance.now();
  const facts: Partial<DocumentFacts> = {};
  let reRooted: Json;
  try {
    const text = await readFile(message.file, 'utf8');
    facts.bytes = Buffer.byteLength(text);
    const document = JSON.parse(text) as Json;
    facts.version =
      typeof document.openapi === 'string'
        ? document.openapi
        : typeof document.swagger === 'string'
          ? `swagger ${document.swagger}`
          : 'unknown';
    const paths = isObject(document.paths) ? Object.values(document.paths).filter(isObject) : [];
    facts.operations = paths.reduce((n, item) => n + METHODS.filter((m) => isObject(item[m])).length, 0);
    facts.gets = paths.filter((item) => isObject(item.get)).length;
    // Every operation kept, as a user's document has them (a GET's $ref may lead into a POST); the mock serves the GETs.
    reRooted = reRoot(document, undefined, 'all');
    facts.tenantGets = Object.values(reRooted.paths as Json).filter(
      (item) => isObject(item) && isObject(item.get),
    ).length;
    facts.readMs = Math.round(performance.now() - t0);
  } catch (err) {
    await send({ type: 'failed', stage: 'read', message: oneLine(err), facts });
    return undefined;
  }
  const openapiFile = join(message.workDir, 'openapi.json');
  let mock: MockedDocument;
  try {
    await writeFile(openapiFile, JSON.stringify(reRooted));
    const t1 = performance.now();
    const labels = new Map(message.labels.map((l) => [l.path === '/' ? 'root' : l.path.replace(/^\//, ''), l]));
    mock = mockDocument(reRooted, { labels });
    facts.mockMs = Math.round(performance.now() - t1);
    const t2 = performance.now();
    mock.precheck();
    facts.precheckMs = Math.round(performance.now() - t2);
    facts.mockRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
  } catch (err) {
    await send({ type: 'failed', stage: 'mock', message: oneLine(err), facts });
    return undefined;
  }
  try {
    const server = await startReferenceServer({ tokenTtlSeconds: 300, documentRoutes: mock.routes });
    await send({
      type: 'ready',
      url: server.url,
      clientId: server.clientId,
      clientSecret: server.clientSecret,
      foreignTenantId: server.foreignTenantId,
      openapiFile,
      facts: facts as DocumentFacts,
      records: [...mock.records.values()],
    });
    return { server, mock };
  } catch (err) {
    await send({ type: 'failed', stage: 'server', message: oneLine(err), facts });
    return undefined;
  }
}

let running: Promise<{ server: ReferenceServer; mock: MockedDocument } | undefined> | undefined;
process.on('message', (message: StartMessage | { type: 'stop' }) => {
  if (message.type === 'start') {
    running = start(message);
    void running.then((r) => {
      if (!r) process.exit(0);
    });
  } else if (message.type === 'stop') {
    void (async () => {
      const r = await running;
      if (r) {
        await send({
          type: 'records',
          records: [...r.mock.records.values()],
          unreadablePatterns: r.mock.oracle.unreadablePatterns,
        });
        await r.server.close();
      }
      process.exit(0);
    })();
  }
});
// The parent gone, nothing is left to serve.
process.on('disconnect', () => process.exit(0));
