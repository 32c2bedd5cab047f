import { readPagingHeaders, type PagingValues } from '../carrier/paging-headers.js';
import { HttpResponse } from '../http/client.js';
import { fieldLines, jsonDepth, type CapturedExchange } from './capture.js';
import type { Json } from '../openapi/pointer.js';
import type { ObservedEndpoint } from './endpoints.js';

/**
 * A captured exchange as the passive rules see it (src/traffic/rules.ts): its endpoint, its
 * request's fields and query, and its answer as the battery's judges take one (an HttpResponse),
 * the body parsed once, on demand.
 */

/** The body is no JSON a rule can read: none captured, cut by the capture, or not JSON. */
export const NO_JSON: unique symbol = Symbol('no JSON');
/** The body is JSON nested deeper than any body of the API's: not parsed, and judged by no rule (a hostile capture). */
export const TOO_DEEP: unique symbol = Symbol('too deep');
const MAX_BODY_DEPTH = 64;

export class Observation {
  readonly method: string;
  readonly status: number | undefined;
  /** The answer, as the battery's judges take one; undefined when the capture holds none. */
  readonly res: HttpResponse | undefined;
  readonly query: URLSearchParams;
  /** `GET /tenants/…/shipments?page=2`: the request as findings name it (path and query). */
  readonly label: string;
  #json: unknown = undefined;
  #parsed = false;
  #paging: PagingValues | undefined;

  constructor(
    readonly exchange: CapturedExchange,
    readonly endpoint: ObservedEndpoint,
    /** The --openapi document, bundled: what the resource rules judge bodies against. */
    readonly document?: Json,
  ) {
    this.method = exchange.method.toUpperCase();
    const response = exchange.response;
    let url: URL | undefined;
    try {
      url = new URL(exchange.url);
    } catch {
      url = undefined;
    }
    this.query = url?.searchParams ?? new URLSearchParams();
    this.label = `${this.method} ${url ? `${url.pathname}${url.search}` : exchange.url}`;
    this.status = response?.status;
    if (response)
      this.res = new HttpResponse(exchange.url, response.status, fieldLines(response.headers), response.body ?? '', -1);
  }

  /** Every line of a request field, as captured. */
  requestLines(name: string): string[] {
    const lower = name.toLowerCase();
    return this.exchange.request.headers.filter(([n]) => n.toLowerCase() === lower).map(([, v]) => v);
  }

  /** Whether the capture records this request field (present or absent); a log may record only some. */
  requestKnown(name: string): boolean {
    const fields = this.exchange.request.fields;
    return fields === undefined || fields.includes(name.toLowerCase());
  }

  /** Whether the capture records this field of the answer. */
  responseKnown(name: string): boolean {
    const fields = this.exchange.response?.fields;
    return this.exchange.response !== undefined && (fields === undefined || fields.includes(name.toLowerCase()));
  }

  /** The answer's body as JSON, or NO_JSON when the capture holds no readable JSON body. */
  json(): unknown {
    if (!this.#parsed) {
      this.#parsed = true;
      const response = this.exchange.response;
      this.#json = NO_JSON;
      if (response?.body !== undefined && response.bodyTruncated !== true && response.body !== '')
        if (jsonDepth(response.body) > MAX_BODY_DEPTH) this.#json = TOO_DEEP;
        else
          try {
            this.#json = JSON.parse(response.body);
          } catch {
            this.#json = NO_JSON;
          }
    }
    return this.#json;
  }

  /** The paging headers (spec §Pagination), read once: every page rule reads them. Only for an exchange with an answer. */
  paging(): PagingValues {
    this.#paging ??= readPagingHeaders(this.res ?? new HttpResponse(this.exchange.url, 0, {}, '', -1));
    return this.#paging;
  }

  /** The body as a JSON object, or undefined. */
  object(): Record<string, unknown> | undefined {
    const value = this.json();
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  }
}
