/**
 * The floor of the work: the requests a battery run sent, replayed with plain undici (one
 * keep-alive pool, `concurrency` in flight), with every response body read. Run as its own
 * process by bench.ts so that its time includes the process start, as the harness's does.
 *
 *   node replay.js <requests.json> <base-url> <concurrency>
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import type { ServedRequest } from '../src/reference/index.js';

const [file = '', base = '', concurrency = '16'] = process.argv.slice(2);
const requests = JSON.parse(readFileSync(file, 'utf8')) as ServedRequest[];
const agent = new Agent({ keepAliveTimeout: 4000 });
let next = 0;

async function worker(): Promise<void> {
  while (next < requests.length) {
    const r = requests[next++];
    if (!r) return;
    const headers = Object.fromEntries(
      r.headers.filter(([n]) => !['host', 'content-length', 'connection'].includes(n.toLowerCase())),
    );
    const res = await request(`${base}${r.target}`, {
      method: r.method as 'GET',
      headers,
      body: r.body === '' ? null : r.body,
      dispatcher: agent,
    });
    await res.body.text();
  }
}

await Promise.all(Array.from({ length: Number(concurrency) }, worker));
await agent.close();
