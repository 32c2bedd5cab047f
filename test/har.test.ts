// report.har (issue 32 item 3): the run's recorded exchanges as HAR 1.2, valid against the HAR
// 1.2 JSON schema (the har-schema package), redacted as report.json is.
import { createRequire } from 'node:module';
import { Ajv, type AnySchemaObject } from 'ajv';
import { describe, expect, it } from 'vitest';
import { renderHar } from '../src/report/har.js';
import { makeRunReport } from './fixtures/report/run-report.js';

function harValidator(): ReturnType<Ajv['compile']> {
  const schemas = createRequire(import.meta.url)('har-schema') as Record<string, AnySchemaObject>;
  // har-schema is draft-06; its ids are file names ("log.json#") that its $refs use.
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, logger: false });
  for (const schema of Object.values(schemas)) {
    const copy = { ...schema };
    delete copy.$schema;
    ajv.addSchema(copy);
  }
  const validate = ajv.getSchema('har.json#');
  if (!validate) throw new Error('har-schema has no har.json');
  return validate;
}

describe('renderHar', () => {
  const report = makeRunReport();
  const har = JSON.parse(renderHar(report)) as {
    log: {
      version: string;
      creator: { name: string };
      entries: {
        startedDateTime: string;
        request: { url: string; headers: { name: string; value: string }[] };
        response: { status: number; content: { text?: string } };
        comment: string;
      }[];
    };
  };
  const exchanges = report.checks.flatMap((c) => c.exchanges);

  it('is valid HAR 1.2', () => {
    const validate = harValidator();
    const valid = validate(har);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    expect(har.log.version).toBe('1.2');
    expect(har.log.creator.name).toBe(report.tool.name);
  });

  it('holds every exchange the report recorded, once, in the order they were sent, as redacted as report.json', () => {
    expect(exchanges.length).toBeGreaterThan(0);
    const distinct = new Set(exchanges.map((e) => `${e.startedAt} ${e.request.method} ${e.request.url} ${e.purpose}`));
    expect(har.log.entries).toHaveLength(distinct.size);
    const times = har.log.entries.map((e) => Date.parse(e.startedDateTime));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const text = JSON.stringify(har);
    // Nothing but what report.json holds: a redacted value stays redacted.
    for (const e of exchanges)
      for (const [, value] of e.request.headers) expect(text).toContain(JSON.stringify(value).slice(1, -1));
    expect(text).not.toMatch(/Bearer (?!\[REDACTED)[A-Za-z0-9._-]{20,}/);
  });

  it('writes an exchange without a response (a transport failure) as status 0, still valid', () => {
    const broken = makeRunReport();
    const first = broken.checks.find((c) => c.exchanges.length > 0);
    const ex = first?.exchanges[0];
    if (!first || !ex) throw new Error('fixture changed');
    first.exchanges = [{ ...ex, response: undefined, error: 'connect ECONNREFUSED' }];
    broken.checks = [first];
    const parsed = JSON.parse(renderHar(broken)) as typeof har;
    expect(harValidator()(parsed)).toBe(true);
    expect(parsed.log.entries[0]?.response.status).toBe(0);
    expect(parsed.log.entries[0]?.comment).toContain('connect ECONNREFUSED');
  });
});
