import { mergeEndpoints, type ApiDescription } from '../api/endpoint-specs.js';
import type { RunOptions } from '../config.js';
import type { ResolvedTarget } from './target.js';

/**
 * The tenant endpoints a run tests: those of the OpenAPI document (--openapi; the embedded
 * server's own docs/openapi.yaml when it is the target and no document is given), then every
 * --paged-path and --endpoint. The document is read only when there is one: the parser is loaded
 * on demand.
 */
export async function describeApi(options: RunOptions, target: ResolvedTarget): Promise<ApiDescription> {
  const file = options.openapi ?? target.openapiFile;
  const loaded = file === undefined ? undefined : await (await import('../openapi/load.js')).loadOpenApi(file);
  return {
    endpoints: mergeEndpoints(loaded?.endpoints ?? [], target.pagedPaths, [...target.singlePaths, ...options.endpoint]),
    ...(loaded?.document ? { document: loaded.document } : {}),
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
