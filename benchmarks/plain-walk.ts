/**
 * A plain undici walk of a paged list, the baseline of bench.ts's list-walk figure: page 1,
 * then the rest at `concurrency` in flight, every body parsed as JSON, as the harness does.
 *
 *   node plain-walk.js <list-url> <bearer-token> <page-size> <concurrency>
 */
import { Agent, request } from 'undici';
import { collectionCounter } from '../src/core/startup-timing.js';

const [url = '', token = '', size = '100', concurrency = '4'] = process.argv.slice(2);
const agent = new Agent({ keepAliveTimeout: 4000 });
const headers = { 'accept-version': '1', authorization: `Bearer ${token}`, accept: 'application/json' };

async function page(n: number): Promise<{ totalPages: number; items: number }> {
  const res = await request(`${url}?page=${n}&size=${size}`, { headers, dispatcher: agent });
  const items = (await res.body.json()) as unknown[];
  return { totalPages: Number(res.headers['total-pages']), items: items.length };
}

// Its garbage collections, full and young, beside the harness's (the walk's profile line).
const collections = collectionCounter();

const started = performance.now();
const first = await page(1);
let next = 2;
let items = first.items;
await Promise.all(
  Array.from({ length: Number(concurrency) }, async () => {
    while (next <= first.totalPages) {
      const { items: count } = await page(next++);
      items += count;
    }
  }),
);
await agent.close();
const elapsed = Math.round(performance.now() - started);
const { full, young } = collections.stop();
// The item count, the walk's own time (without the process start) for the phase ratio, and its collections.
process.stdout.write(`${items} ${elapsed} ${full} ${young}\n`);
