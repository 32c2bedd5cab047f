import {
  mergeEndpoints,
  pathKey,
  pathParameters,
  type ApiDescription,
  type EndpointSpec,
} from '../carrier/endpoint-specs.js';
import { parameterValues, type Expectations, type RunOptions } from '../config/options.js';
import { headerFields } from '../http/extra-headers.js';
import { loadOpenApiInThread } from './document-thread.js';
import type { ResolvedTarget } from './target.js';

/** An OpenAPI document being read ahead of the target's start (see `readApiEarly`). */
export interface EarlyDocument {
  file: string;
  loaded: Promise<ApiDescription>;
}

/**
 * Starts reading the --openapi document now, on its own thread (src/runner/document-thread.ts):
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
export async function describeApi(
  options: RunOptions,
  target: ResolvedTarget,
  early?: EarlyDocument,
  signal?: AbortSignal,
): Promise<ApiDescription> {
  const file = options.openapi ?? target.openapiFile;
  // --openapi-root is the folder of the operator's document; the embedded server's own is read from its folder.
  const root = options.openapi !== undefined ? options.openapiRoot : undefined;
  const loaded =
    file === undefined
      ? undefined
      : await (early?.file === file ? early.loaded : loadOpenApiInThread(file, { root, signal }));
  return {
    endpoints: withoutGivenHeaders(
      withGivenValues(
        mergeEndpoints(loaded?.endpoints ?? [], target.pagedPaths, [...target.singlePaths, ...options.endpoint]),
        parameterValues(options),
      ),
      headerFields(options.header).map(([name]) => name.toLowerCase()),
    ),
    ...(loaded?.writes ? { writes: loaded.writes } : {}),
    ...(loaded?.operations !== undefined ? { operations: loaded.operations } : {}),
    ...(loaded?.document ? { document: loaded.document } : {}),
    ...(loaded?.validators ? { validators: loaded.validators } : {}),
    ...(loaded?.lint ? { lint: loaded.lint } : {}),
    ...(loaded?.files ? { files: loaded.files } : {}),
    ...(file !== undefined ? { file } : {}),
  };
}

/**
 * The endpoints with the query values the user gave (`PATH:NAME`, else `NAME`) in place of the
 * document's, so that what the console and the report say of them is what the run sends; the
 * battery looks the same values up (src/battery/endpoints.ts resolvePath).
 */
function withGivenValues(endpoints: EndpointSpec[], given: Record<string, string>): EndpointSpec[] {
  return endpoints.map((e) => {
    if (!e.query?.some((p) => given[`${e.path}:${p.name}`] !== undefined || given[p.name] !== undefined)) return e;
    return {
      ...e,
      query: e.query.map((p) =>
        (given[`${e.path}:${p.name}`] ?? given[p.name]) === undefined
          ? p
          : {
              name: p.name,
              value: (given[`${e.path}:${p.name}`] ?? given[p.name]) as string,
              from: 'parameter' as const,
              ...(p.whole ? { whole: true } : {}),
            },
      ),
    };
  });
}

/** The endpoints without the required header parameters that --header sends with every request already. */
function withoutGivenHeaders(endpoints: EndpointSpec[], given: readonly string[]): EndpointSpec[] {
  if (given.length === 0) return endpoints;
  return endpoints.map((e) => {
    if (!e.headers?.some((h) => given.includes(h.name.toLowerCase()))) return e;
    const { headers, ...rest } = e;
    const left = headers.filter((h) => !given.includes(h.name.toLowerCase()));
    return left.length > 0 ? { ...rest, headers: left } : rest;
  });
}

/**
 * What the run's --parameter values fit no endpoint of: a `PATH:` that is no endpoint's path, a
 * name that is neither a path nor a required query parameter there (or anywhere). One line each,
 * for a warning: a typo otherwise leaves the endpoint skipped without a word.
 */
export function unusedParameters(endpoints: readonly EndpointSpec[], given: Record<string, string>): string[] {
  const namesOf = (e: EndpointSpec): string[] => [...pathParameters(e.path), ...(e.query ?? []).map((p) => p.name)];
  const out: string[] = [];
  for (const key of Object.keys(given)) {
    const at = key.lastIndexOf(':');
    if (at < 0) {
      if (!endpoints.some((e) => namesOf(e).includes(key)))
        out.push(`--parameter ${key}=…: no endpoint under test has a path or required query parameter named ${key}`);
      continue;
    }
    const path = key.slice(0, at);
    const name = key.slice(at + 1);
    const endpoint = endpoints.find((e) => e.path === path);
    if (!endpoint)
      out.push(
        `--parameter ${key}=…: ${path} is not a tenant endpoint under test (PATH is the path under /tenants/{tenantId}/, as the document writes it: ${endpoints
          .slice(0, 3)
          .map((e) => e.path)
          .join(', ')}${endpoints.length > 3 ? ', …' : ''})`,
      );
    else if (!namesOf(endpoint).includes(name))
      out.push(`--parameter ${key}=…: ${path} has no path or required query parameter named ${name}`);
  }
  return out;
}

/**
 * The paths of the --expectations file's "resources" that name no endpoint under test (trailing
 * slashes aside, as the battery matches them: src/battery/resources.ts), one line each for a
 * warning that says which paths there are: otherwise RESOURCE-EXPECTED-VALUES skips the path
 * without a word (issue 38 item 9: `shipments` against DRF's `shipments/`).
 */
export function unusedExpectations(
  endpoints: readonly EndpointSpec[],
  expectations: Expectations | undefined,
): string[] {
  const known = new Set(endpoints.map((e) => pathKey(e.path)));
  // A single resource's seeded items may be given under its list's path (`invoices` for `invoices/{invoiceId}`).
  for (const e of endpoints) if (e.kind === 'single') known.add(pathKey(e.path).replace(/\/\{[^}]+\}$/, ''));
  const paths = endpoints.map((e) => e.path);
  const shown = `${paths.slice(0, 6).join(', ')}${paths.length > 6 ? `, and ${paths.length - 6} more` : ''}`;
  const unused = Object.keys(expectations?.resources ?? {}).filter((path) => !known.has(pathKey(path)));
  // With no endpoint at all, one line says why rather than one per path.
  if (paths.length === 0)
    return unused.length === 0
      ? []
      : [
          `--expectations: "resources" names ${unused.length} path(s) (${unused
            .slice(0, 3)
            .map((p) => JSON.stringify(p))
            .join(
              ', ',
            )}${unused.length > 3 ? ', …' : ''}), but no tenant endpoint is under test (give --openapi, --paged-path or --endpoint); their known data is not compared`,
        ];
  return unused.map(
    (path) =>
      `--expectations: "resources" names ${JSON.stringify(path)}, which is no tenant endpoint under test (their paths: ${shown}); its known data is not compared`,
  );
}
