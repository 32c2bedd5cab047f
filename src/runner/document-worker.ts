import { parentPort, workerData } from 'node:worker_threads';
import type { ApiDescription } from '../carrier/endpoint-specs.js';
import { UsageError } from '../core/errors.js';
import { lintForRun } from '../lint/in-run.js';
import { precompileIfFew } from '../openapi/document-ajv.js';
import { loadOpenApiAsRead } from '../openapi/load.js';
import type { LoadReply } from './document-thread.js';

/** The thread of document-thread.ts: reads one OpenAPI document, compiles its endpoints' validators, lints it, and posts them, or why it could not. */
const { file, root } = workerData as { file: string; root?: string };
let reply: LoadReply;
const started = performance.now();
try {
  const { api, read, digests } = await loadOpenApiAsRead(file, { root });
  // Linted here too, off the main thread, on the very document read for the endpoints: the run reports its findings apart (issue 33).
  reply = { ok: true, api: { ...api, ...validatorsOf(api), lint: await lintForRun(file, root, read) }, digests };
} catch (err) {
  reply = { ok: false, usage: err instanceof UsageError, message: err instanceof Error ? err.message : String(err) };
}
// The document's load time (parse, endpoint model, validators, lint; or until refused): CARRIER_PROFILE=1 prints it, `npm run corpus` reports it.
parentPort?.postMessage({ ...reply, ms: Math.round(performance.now() - started) });

/**
 * The endpoints' validators, compiled here (document-ajv.ts) when their schemas are few; a schema
 * that does not compile is left out with why (the battery reports it on its endpoint alone), and
 * none if compiling fails as a whole: the battery compiles them then.
 */
function validatorsOf(api: ApiDescription): Pick<ApiDescription, 'validators'> {
  if (!api.document) return {};
  try {
    const validators = precompileIfFew(
      api.document,
      api.endpoints.flatMap((e) => (e.schema === undefined ? [] : [e.schema])),
    );
    return validators ? { validators } : {};
  } catch {
    return {};
  }
}
