/**
 * Every behaviour knob of the reference server, in one place.
 *
 * `ReferenceOptions` is what callers may set; `resolveBehaviour` turns it into the complete,
 * validated `ReferenceBehaviour` that every module reads. Later faults (each breaking exactly one
 * rule) and variants (unusual but conformant behaviour) belong here as further fields, so that a
 * switch is declared once and read in exactly one module.
 */

import { GENERATED_ITEMS } from './generated.js';

/** Default access-token lifetime; short so that the expiry suite does not wait long. */
export const DEFAULT_TOKEN_TTL_SECONDS = 5;
export const REFERENCE_CLIENT_ID = 'conformance-client';
/**
 * Contains `+ % : & =` and a space on purpose: a client that forgets to form-urlencode the
 * credentials before Base64 (RFC 6749 §2.3.1, Appendix B) fails against it. Printable ASCII
 * only, as RFC 6749 Appendix A.2 defines client_secret (*VSCHAR).
 */
export const REFERENCE_CLIENT_SECRET = 'ref secret+%:&=/2026';
/**
 * The second client, of another tenant ("Rival Logistics", which the first may not access): the
 * proof of tenant isolation reads that tenant's data with this client's token, then asks for it
 * with the first client's (TENANT-FOREIGN, `run --second-client-id`). Its secret has the same
 * characters that RFC 6749 §2.3.1 form-encodes.
 */
export const REFERENCE_SECOND_CLIENT_ID = 'conformance-second-client';
export const REFERENCE_SECOND_CLIENT_SECRET = 'second secret+%:&=/2026';
/** RFC 6749 Appendix A.1, A.2: client_id and client_secret are *VSCHAR, %x20-7E. */
const VSCHARS = /^[\x20-\x7e]*$/;
export const DEFAULT_SHIPMENT_COUNT = 23;
export const DEFAULT_PAGE_SIZE = 10;
export const DEFAULT_PAGE_SIZE_MAX = 50;

export interface ReferenceOptions {
  /**
   * What the server does with `Expect: 100-continue` (RFC 9110 §10.1.1): `judge` (the default)
   * answers from the header section when it decides the status, and asks for the content
   * otherwise; `auto` asks for it at once, as node:http does for an application that does not
   * listen for `checkContinue` (conformant too: the write checks cannot prove anything then).
   */
  expectContinue?: 'judge' | 'auto';
  /** Listen address; default '127.0.0.1'. */
  host?: string;
  /** Listen port; default 0 (a free port). */
  port?: number;
  /** Access-token lifetime in whole seconds (`expires_in`); default 5. */
  tokenTtlSeconds?: number;
  clientId?: string;
  clientSecret?: string;
  /** The second client, whose tenant is the one the first may not access (REFERENCE_SECOND_CLIENT_ID). */
  secondClientId?: string;
  secondClientSecret?: string;
  /** Shipments of the main tenant; generated on demand, so 100 000 costs no memory. Default 23. */
  shipmentCount?: number;
  /** `size` when the request has none; default 10. */
  pageSizeDefault?: number;
  /** Larger `size` values are capped to this, and Page-Size says so; default 50. */
  pageSizeMax?: number;
  /** Faults to switch on, by name (src/reference/faults.ts): each breaks one rule. */
  faults?: readonly string[];
  /** Variants to switch on, by name (src/reference/variants.ts): unusual but conformant. */
  variants?: readonly string[];
  /** Keep a log of every request served (for the benchmark's replay and request counts). */
  recordRequests?: boolean;
  /**
   * Rewrite the legacy paths itself (src/reference/gateway.ts); default true. False when a real
   * gateway in front does it (spec: "the gateway rewrites it"): the legacy paths are then unknown.
   */
  legacyRewrites?: boolean;
  /** Generated lists (and resources by id) under every tenant, c001 … cNNN, for scale; default 0. */
  generatedCollections?: number;
  /** Items of each generated list (`generatedCollections`); default GENERATED_ITEMS (12, two pages of the default size). */
  generatedItems?: number;
  /**
   * Play a rate-limiting gateway: a request that arrives while this many are being answered gets
   * 429 Too Many Requests with `Retry-After: 1` (RFC 6585 §4). Default: no limit.
   */
  maxInFlight?: number;
  /**
   * Tenant sub-paths answered by a described API instead of the fixed ones (test/support/document-mock.ts
   * serves an OpenAPI document's GETs through it): consulted after the tenant checks, so token,
   * versioning, authentication, tenant access and paging stay the reference's own.
   */
  documentRoutes?: DocumentRoutes;
}

/**
 * A described API's answer to `GET /tenants/{tenantId}/<subPath>?<query>`: a list (paged here, by
 * src/reference/paging.ts, with the spec's headers; `wrap` makes the body of a page when the
 * list body is an object around the items), one body, or a refusal. Undefined: not described.
 */
export type DocumentAnswer =
  | {
      readonly list: {
        readonly count: number;
        item(index: number): unknown;
        wrap?(
          items: unknown[],
          page: {
            readonly page: number;
            readonly size: number;
            readonly totalElements: number;
            readonly totalPages: number;
          },
        ): unknown;
      };
      readonly contentType?: string;
    }
  | { readonly body: unknown; readonly status?: number; readonly contentType?: string }
  | { readonly refusal: { readonly status: number; readonly error: string; readonly description: string } };

export interface DocumentRoutes {
  /** `subPath`: percent-encoded, without the leading slash. `tenant.empty`: the tenant with no data. `headers`: the request's, names in lower case. */
  answer(
    subPath: string,
    query: URLSearchParams,
    tenant: { readonly id: string; readonly empty: boolean },
    headers: Readonly<Record<string, string | string[] | undefined>>,
  ): DocumentAnswer | undefined;
}

export interface ReferenceBehaviour {
  readonly host: string;
  readonly port: number;
  /** The `realm` of every challenge (RFC 7617 §2, RFC 6750 §3). */
  readonly realm: string;
  readonly tokenTtlSeconds: number;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly secondClientId: string;
  readonly secondClientSecret: string;
  readonly shipmentCount: number;
  readonly pageSizeDefault: number;
  readonly pageSizeMax: number;
  /** Accept-Version values served (spec §Versioning 1: the documented value is `1`). */
  readonly supportedVersions: readonly string[];
  /** Largest token request body read; the form has one short field, so a few KiB is ample. */
  readonly maxTokenBodyBytes: number;
  readonly legacyRewrites: boolean;
  readonly generatedCollections: number;
  readonly generatedItems: number;
  /** Tenant sub-paths answered by a described API (ReferenceOptions.documentRoutes). */
  readonly documentRoutes?: DocumentRoutes;
}

function integerOption(name: string, value: number | undefined, fallback: number, min: number): number {
  const v = value ?? fallback;
  if (!Number.isSafeInteger(v) || v < min) throw new RangeError(`${name} must be an integer >= ${min}, got ${v}`);
  return v;
}

export function resolveBehaviour(options: ReferenceOptions = {}): ReferenceBehaviour {
  const pageSizeMax = integerOption('pageSizeMax', options.pageSizeMax, DEFAULT_PAGE_SIZE_MAX, 1);
  const pageSizeDefault = integerOption('pageSizeDefault', options.pageSizeDefault, DEFAULT_PAGE_SIZE, 1);
  if (pageSizeDefault > pageSizeMax) {
    throw new RangeError(`pageSizeDefault (${pageSizeDefault}) must not exceed pageSizeMax (${pageSizeMax})`);
  }
  const clientId = options.clientId ?? REFERENCE_CLIENT_ID;
  const clientSecret = options.clientSecret ?? REFERENCE_CLIENT_SECRET;
  const secondClientId = options.secondClientId ?? REFERENCE_SECOND_CLIENT_ID;
  const secondClientSecret = options.secondClientSecret ?? REFERENCE_SECOND_CLIENT_SECRET;
  if (clientId === '' || secondClientId === '') throw new RangeError('clientId must not be empty');
  if (secondClientId === clientId) throw new RangeError('the second client id must differ from the client id');
  for (const [name, value] of [
    ['client id', clientId],
    ['client secret', clientSecret],
    ['second client id', secondClientId],
    ['second client secret', secondClientSecret],
  ] as const) {
    if (!VSCHARS.test(value))
      throw new RangeError(`the ${name} must be printable ASCII (RFC 6749 Appendix A: *VSCHAR, %x20-7E)`);
  }
  return {
    host: options.host ?? '127.0.0.1',
    port: integerOption('port', options.port, 0, 0),
    realm: 'carrier-platform',
    // expires_in is an integer number of seconds (RFC 6749 §5.1), so the lifetime is one too.
    tokenTtlSeconds: integerOption('tokenTtlSeconds', options.tokenTtlSeconds, DEFAULT_TOKEN_TTL_SECONDS, 1),
    clientId,
    clientSecret,
    secondClientId,
    secondClientSecret,
    shipmentCount: integerOption('shipmentCount', options.shipmentCount, DEFAULT_SHIPMENT_COUNT, 0),
    pageSizeDefault,
    pageSizeMax,
    generatedCollections: integerOption('generatedCollections', options.generatedCollections, 0, 0),
    generatedItems: integerOption('generatedItems', options.generatedItems, GENERATED_ITEMS, 0),
    supportedVersions: ['1'],
    maxTokenBodyBytes: 8 * 1024,
    legacyRewrites: options.legacyRewrites ?? true,
    ...(options.documentRoutes ? { documentRoutes: options.documentRoutes } : {}),
  };
}
