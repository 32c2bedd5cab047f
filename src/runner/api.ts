import { mergeEndpoints, type ApiDescription } from '../api/endpoint-specs.js';
import type { RunOptions } from '../config.js';
import { loadOpenApiInThread } from '../openapi/load-in-thread.js';
import type { ResolvedTarget } from './target.js';

/** An OpenAPI document being read ahead of the target's start (see `readApiEarly`). */
export interface EarlyDocument {
  file: string;
  loaded: Promise<ApiDescription>;
}

/**
 * Starts reading the --openapi document now, on its own thread (src/openapi/load-in-thread.ts):
 * a run knows the file from its options, long before the target is open. Its errors are reported
 * where describeApi awaits it, in the same order as before. `signal` stops the reading (the run's
 * deadline, Ctrl-C, SIGTERM): the thread is terminated.
 */
export function readApiEarly(options: RunOptions, signal?: AbortSignal): EarlyDocument | undefined {
  if (options.openapi === undefined) return undefined;
  const loaded = loadOpenApiInThread(options.openapi, { root: options.openapiRoot, signal });
  loaded.catch(() => undefined);
  return { file: options.openapi, loaded };
}

/**
 * The tenant endpoints a run tests: those of the OpenAPI document (--openapi; the embedded
 * server's own docs/openapi.yaml when it is the target and no document is given), then every
 * --paged-path and --endpoint. The document is read only when there is one: the parser is loaded
 * on demand.
 */
export async function describeApi(options: RunOptions, target: ResolvedTarget, early?: EarlyDocument, signal?: AbortSignal): Promise<ApiDescription> {
  const file = options.openapi ?? target.openapiFile;
  // --openapi-root is the folder of the operator's document; the embedded server's own is read from its folder.
  const root = options.openapi !== undefined ? options.openapiRoot : undefined;
  const loaded = file === undefined ? undefined : await (early?.file === file ? early.loaded : loadOpenApiInThread(file, { root, signal }));
  return {
    endpoints: mergeEndpoints(loaded?.endpoints ?? [], target.pagedPaths, [...target.singlePaths, ...options.endpoint]),
    ...(loaded?.operations !== undefined ? { operations: loaded.operations } : {}),
    ...(loaded?.document ? { document: loaded.document } : {}),
    ...(loaded?.validators ? { validators: loaded.validators } : {}),
    ...(loaded?.lint ? { lint: loaded.lint } : {}),
    ...(file !== undefined ? { file } : {}),
  };
}

/** The path parameter values the user gave: `parameters` of a config file, then --parameter NAME=VALUE. */
export function parameterValues(options: RunOptions): Record<string, string> {
  const out: Record<string, string> = { ...options.parameters };
  for (const assignment of options.parameter) {
    const at = assignment.indexOf('=');
    out[assignment.slice(0, at)] = assignment.slice(at + 1);
  }
  return out;
}
