import { STATUS_CODES } from 'node:http';
import type { RecordedExchange, RunReport } from '../model/run-report.js';

/**
 * Exchanges as an HTTP Archive (HAR 1.2, http://www.softwareishard.com/blog/har-12-spec/): the
 * format browsers' developer tools, Insomnia and proxies open (`--reporter har`, report.har).
 *
 * A run writes every exchange it made (src/report/exchanges.ts streams them from the run's
 * exchange log), each entry naming the checks that used it (`_checks`, and its comment).
 * `renderHar` makes one from a report alone (the exchanges its findings cite), for a report without
 * a log: a run that did not start. Bodies are as recorded: cut at the recording limit (the entry's
 * comment says so).
 */

interface HarHeader {
  name: string;
  value: string;
}

export function renderHar(report: RunReport): string {
  const seen = new Set<string>();
  const entries: { startedAt: number; order: number; entry: Record<string, unknown> }[] = [];
  for (const check of report.checks) {
    for (const exchange of check.exchanges) {
      // The same exchange copied into several checks' reports is one request.
      const key = `${exchange.startedAt}\u0000${exchange.request.method}\u0000${exchange.request.url}\u0000${exchange.purpose}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const started = Date.parse(exchange.startedAt);
      entries.push({
        startedAt: Number.isNaN(started) ? 0 : started,
        order: entries.length,
        entry: harEntry(exchange, [check.id]),
      });
    }
  }
  entries.sort((a, b) => a.startedAt - b.startedAt || a.order - b.order);
  const har = {
    log: {
      version: '1.2',
      creator: { name: report.tool.name, version: report.tool.version },
      comment: `${report.target.baseUrl}: the exchanges the run's findings cite (redacted), not every request it sent`,
      entries: entries.map((e) => e.entry),
    },
  };
  return `${JSON.stringify(har, null, 2)}\n`;
}

/** One exchange as a HAR entry; `checks`: the checks that used it (`_checks`; none: the run's own preflight). */
export function harEntry(exchange: RecordedExchange, checks: readonly string[], id?: string): Record<string, unknown> {
  const { request, response } = exchange;
  const url = parseUrl(request.url);
  const requestHeaders = headers(request.headers);
  const requestBody = request.body;
  const time = Math.max(0, exchange.durationMs);
  const notes = [`${checks.length > 0 ? checks.join(', ') : 'the run itself'}: ${exchange.purpose}`];
  if (exchange.error !== undefined) notes.push(`transport error: ${exchange.error}`);
  if (response?.bodyTruncated === true) notes.push('response body cut at the recording limit');
  const responseMime = headerValue(response?.headers ?? [], 'content-type') ?? '';
  return {
    startedDateTime: Number.isNaN(Date.parse(exchange.startedAt))
      ? new Date(0).toISOString()
      : new Date(exchange.startedAt).toISOString(),
    time,
    request: {
      method: request.method,
      url: request.url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: requestHeaders,
      queryString: url === undefined ? [] : [...url.searchParams].map(([name, value]) => ({ name, value })),
      ...(requestBody === undefined
        ? {}
        : { postData: { mimeType: headerValue(request.headers, 'content-type') ?? '', text: requestBody } }),
      headersSize: -1,
      bodySize: requestBody === undefined ? 0 : Buffer.byteLength(requestBody, 'utf8'),
    },
    response: {
      // HAR has no "no response": a transport failure is status 0, as browsers write it.
      status: response?.status ?? 0,
      statusText: response === undefined ? '' : (STATUS_CODES[response.status] ?? ''),
      httpVersion: response === undefined ? '' : 'HTTP/1.1',
      cookies: [],
      headers: headers(response?.headers ?? []),
      content: {
        size: response === undefined ? 0 : Buffer.byteLength(response.body, 'utf8'),
        mimeType: responseMime,
        ...(response === undefined ? {} : { text: response.body }),
        // HAR 1.2 allows fields of one's own: a reader of this file (`traffic`) must not judge a cut body.
        ...(response?.bodyTruncated === true ? { _bodyTruncated: true } : {}),
      },
      redirectURL: headerValue(response?.headers ?? [], 'location') ?? '',
      headersSize: -1,
      // The size on the wire is not recorded (bodies are decoded, and may be cut).
      bodySize: -1,
    },
    cache: {},
    // Only the whole exchange is timed: HAR's send and receive are then 0, its wait the rest.
    timings: { send: 0, wait: time, receive: 0 },
    comment: notes.join('; '),
    // HAR 1.2 allows fields of one's own, named with a leading underscore.
    ...(id !== undefined ? { _id: id } : {}),
    _checks: [...checks],
  };
}

function headers(list: readonly (readonly [string, string])[]): HarHeader[] {
  return list.map(([name, value]) => ({ name, value }));
}

function headerValue(list: readonly (readonly [string, string])[], name: string): string | undefined {
  return list.find(([n]) => n.toLowerCase() === name)?.[1];
}

function parseUrl(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}
