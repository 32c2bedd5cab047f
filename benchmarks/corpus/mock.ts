/**
 * One document of the corpus, served conformantly: the document mock (test/support/document-mock.ts
 * DocumentData, inside the reference server that does everything the platform's spec requires
 * around it), with the corpus's own list rule (classify.ts), nulls for optional properties
 * without data, and every body it serves checked by the oracle (oracle.ts) on its way out.
 *
 * An endpoint whose bodies the oracle refused, or could not read, or that the generator could not
 * make, is recorded as such: a failure the harness reports there is not counted as false (the mock
 * may be what is wrong), but apart, as "mock could not generate valid data".
 */
import { createHash } from 'node:crypto';
import type { DocumentAnswer, DocumentRoutes } from '../../src/reference/behaviour.js';
import { DocumentData, type MockFault } from '../../test/support/document-mock.js';
import { decide, type Decision, type HandLabel } from './classify.js';
import { Oracle } from './oracle.js';

type Json = Record<string, unknown>;

export interface EndpointRecord {
  /** Tenant-relative, as in the re-rooted document (`users/{userId}`). */
  template: string;
  /** How the mock classified it, and why. */
  decision: Decision;
  /** The mock answers it with a JSON body the oracle can judge. */
  hasBody: boolean;
  /** Bodies served and checked (precheck included), distinct. */
  checked: number;
  /** Bodies the oracle refused, and the first refusal. */
  refused: number;
  refusal?: string;
  /** The oracle could not read the schema. */
  unreadable?: string;
  /** The generator threw. */
  mockError?: string;
}

export interface MockedDocument {
  readonly data: DocumentData;
  readonly oracle: Oracle;
  /** By template. */
  readonly records: Map<string, EndpointRecord>;
  /** DocumentData's routes with every body checked on its way out. */
  readonly routes: DocumentRoutes;
  /** Makes and checks the bodies of every endpoint before a run: pages 1 and 2 of a list, three bodies of a resource. */
  precheck(): void;
}

const line = (err: unknown): string =>
  (err instanceof Error ? err.message : String(err)).split('\n')[0]?.slice(0, 300) ?? 'error';

export function mockDocument(
  document: Json,
  options: { labels?: ReadonlyMap<string, HandLabel>; listSize?: number; fault?: MockFault } = {},
): MockedDocument {
  const decisions = new Map<string, Decision>();
  const data = new DocumentData(document, {
    nulls: true,
    ...(options.listSize !== undefined ? { listSize: options.listSize } : {}),
    ...(options.fault ? { fault: options.fault } : {}),
    lists: (op) => {
      const decision = decide(op.template, op.params, op.shape, options.labels?.get(op.template));
      decisions.set(op.template, decision);
      // Ambiguous ones are paged too: paging headers on a single resource break no rule, a list without them does.
      return decision.label === 'single' ? undefined : decision.shape;
    },
  });
  const oracle = new Oracle(document);
  const records = new Map<string, EndpointRecord>();
  for (const op of data.operations) {
    const decision = decisions.get(op.template) ?? {
      label: 'single',
      why: 'no decision',
      labelled: false,
      shape: undefined,
    };
    records.set(op.template, {
      template: op.template,
      decision,
      hasBody: op.body !== undefined,
      checked: 0,
      refused: 0,
    });
  }
  const seen = new Set<string>();

  const check = (record: EndpointRecord, pointer: string | undefined, body: unknown): void => {
    if (pointer === undefined) return;
    const text = JSON.stringify(body) ?? 'undefined';
    const key = createHash('sha1').update(record.template).update('\0').update(text).digest('base64');
    if (seen.has(key)) return;
    seen.add(key);
    record.checked += 1;
    const verdict = oracle.check(pointer, body);
    if (verdict.unreadable !== undefined) record.unreadable ??= verdict.unreadable;
    if (verdict.error !== undefined) {
      record.refused += 1;
      record.refusal ??= verdict.error;
    }
  };

  const routes: DocumentRoutes = {
    answer(
      subPath: string,
      query: URLSearchParams,
      tenant: { readonly id: string; readonly empty: boolean },
      headers: Readonly<Record<string, string | string[] | undefined>>,
    ): DocumentAnswer | undefined {
      const endpoint = data.endpointOf(subPath, query);
      const record = endpoint && records.get(endpoint.template);
      let answer: DocumentAnswer | undefined;
      try {
        answer = data.answer(subPath, query, tenant, headers);
      } catch (err) {
        if (record) record.mockError ??= line(err);
        return { refusal: { status: 500, error: 'mock_error', description: 'the mock could not make this body' } };
      }
      if (!answer || !record || !endpoint) return answer;
      if ('body' in answer) {
        check(record, endpoint.body, answer.body);
        return answer;
      }
      if (!('list' in answer)) return answer;
      const { list } = answer;
      return {
        ...answer,
        list: {
          count: list.count,
          item: (i) => {
            try {
              return list.item(i);
            } catch (err) {
              record.mockError ??= line(err);
              return null;
            }
          },
          wrap: (items, page) => {
            const body = list.wrap ? list.wrap(items, page) : items;
            check(record, endpoint.body, body);
            return body;
          },
        },
      };
    },
  };

  const precheck = (): void => {
    const tenant = { id: 'precheck', empty: false };
    for (const op of data.operations) {
      const record = records.get(op.template);
      if (!record || op.body === undefined) continue;
      try {
        if (op.list) {
          const [pathPart = '', queryPart = ''] = op.template.replace(/#.*$/s, '').split('?');
          const subPath = pathPart.replace(/\{[^}/]*\}/g, 'x');
          const query = new URLSearchParams(queryPart);
          const headers: Record<string, string> = {};
          for (const p of op.params) {
            if (p.required !== true || typeof p.name !== 'string') continue;
            if (p.in === 'query' && !query.has(p.name)) query.set(p.name, '1');
            if (p.in === 'header') headers[p.name.toLowerCase()] = '1';
          }
          const answer =
            data.endpointOf(subPath, query)?.template === op.template
              ? routes.answer(subPath, query, tenant, headers)
              : undefined;
          if (answer && 'list' in answer) {
            const { list } = answer;
            const size = 10;
            const ids = new Set<string>();
            for (let page = 1; (page - 1) * size < list.count; page += 1) {
              const items = Array.from({ length: Math.min(size, list.count - (page - 1) * size) }, (_, k) =>
                list.item((page - 1) * size + k),
              );
              list.wrap?.(items, { page, size, totalElements: list.count, totalPages: Math.ceil(list.count / size) });
              // One id twice is one element twice (PAGE-WALK): a schema that allows fewer ids than the
              // mock serves items (Amadeus's id, a number from 1 to 10) is no data a conformant list holds.
              for (const item of items) {
                const id =
                  typeof item === 'object' && item !== null && !Array.isArray(item)
                    ? idOf((item as Record<string, unknown>).id)
                    : undefined;
                if (id === undefined) continue;
                if (ids.has(id))
                  record.mockError ??= `the items' ids repeat (${JSON.stringify(id).slice(0, 60)} twice in ${list.count} items): the schema allows too few distinct ids`;
                ids.add(id);
              }
            }
          }
        } else {
          for (let seed = 0; seed < 3; seed += 1) check(record, op.body, data.top(op.body, seed));
        }
      } catch (err) {
        record.mockError ??= line(err);
      }
    }
  };

  return { data, oracle, records, routes, precheck };
}

/** Whether the mock's answers on an endpoint can be trusted: every body made, and accepted by the oracle. */
export function trusted(record: EndpointRecord): boolean {
  return record.mockError === undefined && record.refused === 0 && record.unreadable === undefined;
}

/** Every GET and its path as the harness names it (`GET /tenants/{tenantId}/…`). */
export const endpointName = (template: string): string => `GET /tenants/{tenantId}/${template}`;

/** An item's `id` as the harness reads it (src/battery/list-items.ts itemId): a string, or a number in decimal. */
function idOf(id: unknown): string | undefined {
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}
