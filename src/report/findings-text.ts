import type { CheckResult, Finding, RecordedExchange } from '../model/run-report.js';
import { formatDuration, plural } from '../core/wording.js';

/**
 * Plain-text pieces shared by every reporter (JUnit, the console summary, Markdown, HTML).
 * Nothing here escapes for a particular output: the JUnit writer strips XML-invalid characters and
 * the console strips terminal control characters, each from the finished text.
 */

/** "POST https://auth.example/uaa/oauth2/token → 401": what a finding's bullet points at. */
export function summarizeExchange(ex: RecordedExchange): string {
  const outcome = ex.response ? String(ex.response.status) : ex.error !== undefined ? 'transport error' : 'no response';
  return `${ex.request.method} ${ex.request.url} → ${outcome}`;
}

/**
 * One recorded exchange as an HTTP message, curl -v style: `*` describes, `>` is sent, `<` is
 * received, `!` went wrong. Bodies are printed as they are (no prefix) after a blank line, so a
 * JSON body can be copied out whole.
 */
export function formatExchange(ex: RecordedExchange): string {
  const lines: string[] = [
    `* ${ex.purpose} (${formatDuration(ex.durationMs)}, auth: ${ex.auth}, started ${ex.startedAt})`,
  ];

  lines.push(`> ${ex.request.method} ${ex.request.url}`);
  for (const [name, value] of ex.request.headers) lines.push(`> ${name}: ${value}`);
  const requestBody = ex.request.body;
  if (requestBody !== undefined && requestBody !== '') {
    lines.push('', requestBody);
    // Ends the request body, so that a body line is never read as part of the response.
    lines.push('');
  }

  const res = ex.response;
  if (res) {
    lines.push(`< ${res.status}`);
    for (const [name, value] of res.headers) lines.push(`< ${name}: ${value}`);
    if (res.body !== '') lines.push('', res.body);
    if (res.bodyTruncated) lines.push('[response body truncated: it was longer than the recording limit]');
  }
  if (ex.error !== undefined) lines.push(`! transport error: ${ex.error}`);
  if (!res && ex.error === undefined) lines.push('! no response was recorded');

  return lines.join('\n');
}

function findingBullet(finding: Finding, exchanges: readonly RecordedExchange[]): string {
  const bullet = `- ${finding.kind}: ${finding.message}`;
  if (finding.exchange === undefined) return bullet;
  const ex = exchanges[finding.exchange];
  const label = `exchange #${finding.exchange + 1}`;
  return ex ? `${bullet} [${label}: ${summarizeExchange(ex)}]` : `${bullet} [${label} was not recorded]`;
}

/**
 * The findings as bullets, each naming its exchange in one line. Short enough for a JUnit
 * failure body, where some consumers (dorny/test-reporter, mikepenz) show nothing else.
 */
export function formatFindingBullets(result: Pick<CheckResult, 'findings' | 'exchanges'>): string {
  return result.findings.map((f) => findingBullet(f, result.exchanges)).join('\n');
}

/**
 * Every finding as a bullet, then every exchange a finding points at, in full and only once:
 * several findings often point at the same response (wrong status and no challenge, say).
 */
export function formatFindings(
  result: Pick<CheckResult, 'findings' | 'exchanges'>,
  reproduce?: (ex: RecordedExchange) => string,
): string {
  if (result.findings.length === 0) return '';
  const parts = [formatFindingBullets(result)];

  const referenced = referencedExchanges(result);
  for (const index of referenced) {
    const ex = result.exchanges[index];
    if (!ex) continue;
    parts.push(`Exchange #${index + 1}:\n${formatExchange(ex)}`);
    if (reproduce) parts.push(`Reproduce:\n${reproduce(ex)}`);
  }

  const others = result.exchanges.length - referenced.length;
  if (others > 0) {
    const what = plural(others, referenced.length > 0 ? 'further exchange' : 'exchange');
    parts.push(`(${what} of this check ${others === 1 ? 'is' : 'are'} in report.json)`);
  }
  return parts.join('\n\n');
}

/** Indexes of the recorded exchanges the findings point at, in order of first mention, once each. */
export function referencedExchanges(result: Pick<CheckResult, 'findings' | 'exchanges'>): number[] {
  const referenced: number[] = [];
  for (const f of result.findings) {
    if (f.exchange !== undefined && f.exchange < result.exchanges.length && !referenced.includes(f.exchange)) {
      referenced.push(f.exchange);
    }
  }
  return referenced;
}

/**
 * Why the check ended as it did: its own message, else its first finding's; undefined when
 * neither says anything. Every reporter words the missing case itself.
 */
export function checkReason(check: Pick<CheckResult, 'message' | 'findings'>): string | undefined {
  if (check.message?.trim()) return check.message;
  return check.findings.find((f) => f.message.trim() !== '')?.message;
}

/** checkReason, or a plain "(no reason recorded)". */
export function reasonOrNone(check: Pick<CheckResult, 'message' | 'findings'>): string {
  return checkReason(check) ?? '(no reason recorded)';
}

/**
 * reasonOrNone for a line of `max` characters, which cuts its end, where the cause is: across
 * several endpoints the reason starts with their names ("2 endpoints, 2 failed: GET …, GET ….
 * <the cause>"), so when it is too long they give way to the cause, which names its endpoint
 * itself ("2 endpoints, 2 failed. <the cause>"). The reports' full texts keep them.
 */
export function reasonWithin(check: Pick<CheckResult, 'message' | 'findings' | 'endpoints'>, max: number): string {
  const text = reasonOrNone(check);
  const named = endpointSummary(check.endpoints);
  if (text.length <= max || named === undefined || !text.startsWith(`${named}. `)) return text;
  return `${endpointSummary(check.endpoints, false) ?? ''}. ${text.slice(named.length + 2)}`;
}

/** Who the check is, as labelled lines: id, level, title, spec references. */
export function describeCheck(result: Pick<CheckResult, 'id' | 'level' | 'title' | 'refs'>): string {
  return [
    `Check: ${result.id}`,
    `Level: ${result.level}`,
    `Title: ${result.title}`,
    `Refs: ${result.refs.length > 0 ? result.refs.join('; ') : '(none)'}`,
  ].join('\n');
}

/** An endpoint a check was applied to, as the report records it. */
type EndpointResult = NonNullable<CheckResult['endpoints']>[number];

const SUMMARY_LABELS = 3;

/**
 * "23 endpoints, 1 failed: GET /tenants/{tenantId}/invoices/{invoiceId}": how a check fared across
 * the endpoints it was applied to, naming those that did not pass (a few, then how many more).
 * Undefined when the check is not about endpoints. Without `labels`, the counts alone.
 */
export function endpointSummary(endpoints: readonly EndpointResult[] | undefined, labels = true): string | undefined {
  if (!endpoints || endpoints.length === 0) return undefined;
  const parts = [plural(endpoints.length, 'endpoint')];
  const words: [EndpointResult['status'], string, string][] = [
    ['failed', 'failed', 'failed'],
    ['warning', 'warned', 'warned'],
    ['error', 'error', 'errors'],
    ['skipped', 'skipped', 'skipped'],
  ];
  for (const [status, one, many] of words) {
    const names = endpoints.filter((e) => e.status === status).map((e) => e.endpoint);
    if (names.length === 0) continue;
    const shown = names.slice(0, SUMMARY_LABELS).join(', ');
    const more = names.length > SUMMARY_LABELS ? ` and ${names.length - SUMMARY_LABELS} more` : '';
    parts.push(`${names.length} ${names.length === 1 ? one : many}${labels ? `: ${shown}${more}` : ''}`);
  }
  if (parts.length === 1) parts.push(endpoints.length === 1 ? 'passed' : 'all passed');
  return parts.join(', ');
}

/** Every endpoint a check was applied to, a line each: "- failed  GET /…: why". */
export function formatEndpoints(endpoints: readonly EndpointResult[] | undefined): string {
  return (endpoints ?? [])
    .map((e) => `- ${e.status.padEnd(7)} ${e.endpoint}${e.message ? `: ${e.message}` : ''}`)
    .join('\n');
}
