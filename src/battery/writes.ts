import { randomUUID } from 'node:crypto';
import { operationLabel, pathParameters, wirePath, type WriteOperationSpec } from '../carrier/endpoint-specs.js';
import { tenantPath } from '../carrier/paths.js';
import { writeWithInvalidContent, writeWithoutContent, type VersionHeader } from '../carrier/requests.js';
import type { HttpResponse, RequestAuth } from '../http/client.js';
import type { CheckContext } from './check.js';
import { endpointHeaders, sharedProbe } from './endpoints.js';
import { describeStatus } from './expect.js';
import { mapBounded } from './bounded.js';
import { proxyFor } from '../http/proxy.js';
import { isJsonMediaType } from '../http/media-type.js';

/**
 * Write operations (issue 41): the spec's header rules hold on every endpoint ("Every endpoint
 * requires the Accept-Version header. Every endpoint except the token endpoint requires the
 * Authorization header", spec §Endpoints), and its tenant rules on every tenant-scoped one, POST,
 * PUT, PATCH and DELETE as much as GET. The harness never sends a write that a server could carry
 * out: every probe here
 * - carries one defect (no Accept-Version, an invalid one, no token, a bad token, another tenant,
 *   a tenant id that is not a UUID), so a conformant server refuses it;
 * - names an id that cannot exist (a UUID made up for the run) for every path parameter but the
 *   tenant's;
 * - announces its content (`Expect: 100-continue` and a Content-Length) and never sends it, where
 *   the operation takes content (src/http/header-only.ts). RFC 9110 §10.1.1: the server answers a
 *   final status at once when the header section decides it, or asks for the content with 100
 *   (Continue), and then gets a closed connection. An operation that takes no content (a DELETE)
 *   is probed only when a made-up id in its path leaves nothing to act on.
 *
 * A final answer is judged as the GET checks judge theirs, with a differential in place of their
 * precondition (a GET probe is evidence only when the valid GET works): the same request with
 * valid headers (the *control*; with content to take, announced and never sent; without, as it is,
 * to the made-up id, where a conformant server has nothing to act on). A probe answered as the
 * control is not proven, whatever the rule says of that status: the made-up id (404), a client
 * that may not write (403) or the framing may be its cause. A probe answered otherwise is the
 * defect's: passed when the rule allows the answer, failed when not. Some answers fail whatever
 * the control got: data or a redirect (2xx, 3xx) to a defective write, a server error (5xx), a
 * 401 without a Bearer challenge (RFC 9110 §11.6.1, RFC 6750 §3).
 */

/** An id that no resource has: every path parameter of a probe but the tenant's. */
const MADE_UP_ID = randomUUID();

/** Operations judged at once per check; the HTTP client's politeness bound decides the wire. */
const OPERATION_CONCURRENCY = 64;

/** What a probe varies of the valid request. */
export interface WriteVariation extends VersionHeader {
  auth?: RequestAuth;
  /** The tenant id in the path (default: the tenant under test). */
  tenantId?: string;
}

/** The outcome of one probe: judged (passed or failed), or not proven, with why. */
export type ProbeOutcome = 'judged' | { unproven: string };

/** The write operations under test. */
export function writeOperations(c: CheckContext): readonly WriteOperationSpec[] {
  return c.settings.writes ?? [];
}

/** The probe's request path in `tenantId`, or why the operation is not probed. */
function probePath(op: WriteOperationSpec, tenantId: string): string | { unresolved: string } {
  const template = wirePath(op.path);
  const parameters = pathParameters(template);
  if (op.contentType === undefined && parameters.length === 0)
    return {
      unresolved:
        'not probed: it takes no content, so a probe cannot ask to be judged on its header section alone (RFC 9110 §10.1.1), and its path has no id to make up: a server that skipped the rule would carry it out',
    };
  let path = template;
  for (const name of parameters) path = path.replace(`{${name}}`, MADE_UP_ID);
  const query = new URLSearchParams();
  for (const { name, value, problem } of op.query ?? []) {
    if (value === undefined)
      return { unresolved: `not probed: ${problem ?? `required query parameter ${name} has no value`}` };
    query.append(name, value);
  }
  for (const { name, value, problem } of op.headers ?? [])
    if (value === undefined)
      return { unresolved: `not probed: ${problem ?? `required header parameter ${name} has no value`}` };
  const search = query.toString();
  return `${tenantPath(tenantId, path.split('?')[0] ?? path)}${search === '' ? '' : `?${search}`}`;
}

/** Sends one probe of `op` (no content, ever). */
function sendProbe(
  c: CheckContext,
  op: WriteOperationSpec,
  path: string,
  variation: WriteVariation,
  purpose: string,
  send = c.send,
  invalidContent = false,
): Promise<HttpResponse> {
  const request = {
    method: op.method,
    path,
    auth: variation.auth ?? c.bearer(),
    ...(variation.acceptVersion !== undefined ? { acceptVersion: variation.acceptVersion } : {}),
    headers: endpointHeaders(op),
    purpose: `${operationLabel(op)}: ${purpose}`,
  };
  if (invalidContent && op.contentType !== undefined)
    return writeWithInvalidContent(send, c.target, { ...request, contentType: op.contentType });
  return writeWithoutContent(send, c.target, {
    ...request,
    ...(op.contentType !== undefined ? { contentType: op.contentType } : {}),
  });
}

/**
 * The control of an operation: the same request with valid headers, once per worker. With content
 * to take, it announces the content and never sends it; without (a DELETE), it goes as it is, to
 * the made-up id, where a conformant server has nothing to act on (as it would have, were it to
 * skip a probe's defect, for the probe itself).
 */
function control(c: CheckContext, op: WriteOperationSpec, path: string): Promise<HttpResponse> {
  const label = operationLabel(op);
  const what =
    op.contentType === undefined
      ? 'valid headers (the control)'
      : 'valid headers, its content announced and never sent (the control)';
  return sharedProbe(c, `${label} with ${what}`, (send) => sendProbe(c, op, path, {}, what, send));
}

/**
 * Whether a probe the server asked for the content of (100) is sent again with content that is not
 * JSON (issue 41, tier 2: --write-probes invalid-content, on a target marked --allow-writes): only
 * for an operation whose content is JSON, which no server can act on when it does not parse.
 */
function withInvalidContent(c: CheckContext, op: WriteOperationSpec): boolean {
  return c.settings.writeProbes === 'invalid-content' && isJsonMediaType(op.contentType);
}

/** The tier-2 control: valid headers and the same content that is not JSON, once per worker. */
function invalidContentControl(c: CheckContext, op: WriteOperationSpec, path: string): Promise<HttpResponse> {
  const label = operationLabel(op);
  return sharedProbe(c, `${label} with valid headers and content that is not JSON`, (send) =>
    sendProbe(c, op, path, {}, 'valid headers and content that is not JSON (the control)', send, true),
  );
}

/** A probe: what it varies, and the words for it. */
export interface WriteProbe {
  variation: WriteVariation;
  label: string;
}

/** The rule a check holds a probe's final answer to. */
export interface WriteRule {
  /** Whether the answer is what the rule asks for. */
  holds(res: HttpResponse): boolean;
  /** What the rule asks for, in a finding: "400", "a 4xx with a Bearer challenge". */
  expected: string;
  /** Judged without a control: a 401 is authentication's refusal whatever else is wrong (the AUTH rules). */
  certain?(res: HttpResponse): boolean;
  /** Records the finding for an answer the rule does not allow, in the GET checks' words (src/battery/expect.ts). */
  fail(e: CheckContext, res: HttpResponse, what: string): void;
  /** Records what the target chose, for an answer the rule allows where it allows a choice (src/battery/precedence.ts). */
  observe?(e: CheckContext, res: HttpResponse): void;
}

/**
 * Applies a check to every write operation: each probe is sent (beside the control), and its
 * answer judged by `rule`. An operation is passed when every probe was judged and none failed,
 * failed when one failed, and skipped, saying why, when a probe could not be judged.
 */
export async function onEveryWrite(
  c: CheckContext,
  probes: (op: WriteOperationSpec) => readonly WriteProbe[],
  rule: WriteRule,
): Promise<void> {
  const ops = writeOperations(c);
  if (ops.length === 0)
    c.skip(
      c.settings.openapi === undefined
        ? 'no write operation to probe: they come from an OpenAPI document (--openapi)'
        : 'no write operation to probe: the document has none (POST, PUT, PATCH, DELETE) under /tenants/{tenantId}/, or --write-probes none',
    );
  const proxy = proxyFor(c.target.baseUrl);
  if (proxy !== undefined)
    c.skip(
      `not probed: the run goes through a proxy (${proxy}), and a request that announces content it never sends goes to the target directly or not at all (src/http/header-only.ts); set NO_PROXY for the target's host to probe the write operations`,
    );
  const { tenantId, tenantProblem } = c.settings;
  await mapBounded(ops, OPERATION_CONCURRENCY, (op) => {
    const e = c.at(operationLabel(op));
    return e.judgeEndpoint(async () => {
      if (tenantId === undefined)
        return e.error(`cannot probe it: ${tenantProblem ?? 'no tenant under test'} (pass --tenant-id)`);
      const own = probePath(op, tenantId);
      if (typeof own !== 'string') return e.skipEndpoint(own.unresolved);
      const sent = probes(op).map((p) => {
        const path = p.variation.tenantId === undefined ? own : probePath(op, p.variation.tenantId);
        if (typeof path !== 'string') throw new Error(`${operationLabel(op)}: ${path.unresolved}`);
        const answer = sendProbe(e, op, path, p.variation, p.label);
        // Judged in order below: one that fails while an earlier one is judged is not left unhandled.
        answer.catch(() => undefined);
        return { probe: p, path, answer };
      });
      const valid = control(e, op, own);
      valid.catch(() => undefined);
      const unproven: string[] = [];
      for (const { probe, path, answer } of sent) {
        const what = `${operationLabel(op)} with ${probe.label}`;
        const res = await answer;
        let outcome = await judgeWrite(
          e,
          res,
          valid,
          what,
          rule,
          op.contentType === undefined ? 'no content' : CONTENT_NEVER_SENT,
        );
        if (outcome !== 'judged' && res.status === 100 && withInvalidContent(e, op))
          outcome = await judgeWrite(
            e,
            await sendProbe(e, op, path, probe.variation, `${probe.label}, and content that is not JSON`, e.send, true),
            invalidContentControl(e, op, own),
            `${what} and content that is not JSON`,
            rule,
            'the same content that is not JSON',
          );
        if (outcome !== 'judged') unproven.push(outcome.unproven);
      }
      if (unproven.length > 0 && !e.failed) e.skipEndpoint(unproven.join('; '));
    });
  });
}

/** Statuses that say something of the request other than the probe's defect, whatever the control got. */
const NOT_ABOUT_HEADERS: Record<number, string> = {
  405: 'the deployment does not allow the method here, though the document declares the operation (405)',
  411: 'the server wants a length it was given (411)',
  413: 'the server refuses the announced content as too large (413)',
  415: 'the server refuses the content type the document declares (415)',
  417: 'the server, or a gateway before it, refuses the expectation Expect: 100-continue (417), so the request could not be judged on its header section',
};

/** Judges one probe's answer (see the module's comment); returns whether it was judged. */
async function judgeWrite(
  e: CheckContext,
  res: HttpResponse,
  valid: Promise<HttpResponse>,
  what: string,
  rule: WriteRule,
  /** What the control has besides valid headers, in words. */
  controlHas = CONTENT_NEVER_SENT,
): Promise<ProbeOutcome> {
  if (res.status === 100)
    return {
      unproven: `${what}: not proven: the server (or a gateway in front of it) asked for the content (100 Continue) before judging the header section, and the harness never sends a write's content; a server that refuses from the header section alone, as RFC 9110 §10.1.1 asks when the header fields decide the status, is judged (docs/writes.md)`,
    };
  // The findings are worded as the GET checks word theirs, so that one wrong behaviour on reads and
  // writes is one cause in the report; why the answer is evidence goes in a note.
  const fail = (basis: string): ProbeOutcome => {
    rule.fail(e, res, what);
    e.note(`${what}: ${res.status} judged: ${basis}`);
    return 'judged';
  };
  if (res.status >= 200 && res.status < 400)
    return fail(`the write was ${res.status < 300 ? 'accepted' : 'redirected'} with the defect`);
  if (res.status >= 500) return fail('a server error answers no client error');
  const aside = NOT_ABOUT_HEADERS[res.status];
  if (aside !== undefined) return { unproven: `${what}: not proven: ${aside}` };
  if (rule.certain?.(res) && !rule.holds(res)) return fail("a 401 is authentication's refusal, whatever else is wrong");
  // The differential: an answer is the defect's only where the same request with valid headers gets another.
  const base = await valid;
  if (base.status === res.status)
    return {
      unproven: `${what}: not proven: ${res.status}, but the same request with valid headers and ${controlHas} gets ${describeStatus(base)} too (the made-up id in the path, a client that may not write${controlHas === CONTENT_NEVER_SENT || controlHas === 'no content' ? '' : ', the content'}), so the answer may be for that`,
    };
  if (rule.holds(res)) {
    rule.observe?.(e, res);
    return 'judged';
  }
  return fail(
    base.status === 100
      ? 'with valid headers the same request was asked for its content (100 Continue), so nothing but the defect was refused'
      : `with valid headers and ${controlHas} the same request gets ${base.status}: the defect changed the answer`,
  );
}

/** What the control of a probe without content has besides valid headers, in words. */
const CONTENT_NEVER_SENT = 'its content announced and never sent';
