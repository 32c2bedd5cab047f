import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ajvDraft04 from 'ajv-draft-04';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { CANDIDATES_PER_RULE, capFindings, FINDINGS_PER_PLACE, FINDINGS_PER_RULE } from '../src/lint/caps.js';
import { lint } from '../src/lint/command.js';
import { renderJUnit, renderSarif, type LintFinding, type LintReport } from '../src/lint/outputs.js';
import { lintForRun } from '../src/lint/in-run.js';
import { documentHeadline } from '../src/report/document.js';

/**
 * lint's output is bounded like its input (issue 37 item 11). A 206 KB document whose YAML aliases
 * repeat one wide schema under every operation (what a YAML dump of a dereferenced document looks
 * like; this file's, with 1,110 operations) made 177 601 findings: 48.6 MB of CI log, a 193 MB
 * SARIF file, 2.4 GB of memory. Each output lists at most FINDINGS_PER_RULE findings of a rule and
 * FINDINGS_PER_PLACE at one place per document, and counts the rest; the SARIF messages, which
 * GitHub code scanning renders as Markdown, carry the document's text neutralised.
 */

const ROOT = resolve(import.meta.dirname, '..');
const OPERATIONS = 150;
const WIDE = 12;
const INNER = 12;

/** `Wide` (WIDE optional properties, each an alias of `Inner`, INNER optional strings) as the response of OPERATIONS GETs, by alias. */
function aliasedDocument(): string {
  const lines = [
    'openapi: 3.0.3',
    "info: {title: aliases, version: '1'}",
    'components:',
    '  schemas:',
    '    Inner: &inner',
    '      type: object',
    '      properties:',
  ];
  for (let i = 0; i < INNER; i += 1) lines.push(`        field_${i}: {type: string}`);
  lines.push('    Wide: &wide', '      type: object', '      properties:');
  for (let i = 0; i < WIDE; i += 1) lines.push(`        part_${i}: *inner`);
  lines.push('paths:');
  for (let i = 0; i < OPERATIONS; i += 1) {
    lines.push(
      `  /tenants/{tenantId}/things_${i}/{id}:`,
      '    get:',
      '      responses:',
      "        '200':",
      '          description: One',
      '          content:',
      '            application/json:',
      '              schema: *wide',
    );
  }
  return `${lines.join('\n')}\n`;
}

/** Property names and an enum value carrying a Markdown link, an autolink, HTML and bidirectional overrides. */
const HOSTILE = `openapi: 3.1.0
info: {title: hostile text, version: '1'}
paths:
  /tenants/{tenantId}/notes:
    get:
      responses:
        '200':
          description: A note
          content:
            application/json:
              schema:
                type: object
                properties:
                  "[click here](https://evil.example/steal)": {type: string}
                  "see https://evil.example/x <img src=x onerror=alert(1)>": {type: string}
                  "admin\u202Eresu": {type: string}
                  kind: {type: integer, enum: ["**bold** [x](https://evil.example/y)"]}
`;

let dir: string;
let aliased: string;
let hostile: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lint-output-'));
  aliased = join(dir, 'aliases.yaml');
  hostile = join(dir, 'hostile.yaml');
  await writeFile(aliased, aliasedDocument());
  await writeFile(hostile, HOSTILE);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function cli(args: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const code = await main(args, { out: (t) => void (out += t), err: () => undefined, color: false });
  return { code, out };
}

const place = (f: LintFinding): string => (f.line === undefined ? `${f.file} ${f.pointer}` : `${f.file}:${f.line}`);
const countBy = (list: readonly string[]): Map<string, number> => {
  const counts = new Map<string, number>();
  for (const k of list) counts.set(k, (counts.get(k) ?? 0) + 1);
  return counts;
};
const notListedOf = (report: LintReport, rule: string): number =>
  (report.notListed ?? []).filter((n) => n.rule === rule).reduce((s, n) => s + n.count, 0);

describe('caps: per rule and per place, the rest counted', () => {
  it('lists a rule’s first finding whatever its place, then at most so many of a rule and at one place', () => {
    const findings = [
      ...Array.from({ length: 30 }, (_, i) => ({ rule: 'OAS-NULLABLE' as const, place: 'a.yaml:1', i })),
      { rule: 'OAS-NULL-REQUIRED' as const, place: 'a.yaml:1', i: 30 },
      ...Array.from({ length: 300 }, (_, i) => ({
        rule: 'OAS-NULLABLE' as const,
        place: `a.yaml:${i + 2}`,
        i: 31 + i,
      })),
    ];
    const { listed, notListed } = capFindings(findings, 100, 10);
    expect(listed.filter((f) => f.rule === 'OAS-NULLABLE')).toHaveLength(100);
    expect(listed.filter((f) => f.place === 'a.yaml:1').map((f) => f.rule)).toEqual([
      ...Array.from({ length: 10 }, () => 'OAS-NULLABLE'),
      'OAS-NULL-REQUIRED',
    ]);
    expect(Object.fromEntries(notListed)).toEqual({ 'OAS-NULLABLE': 230 });
  });
});

describe('a document of 30 KB whose aliases make 24 000 findings', () => {
  const nullable = OPERATIONS * (WIDE + WIDE * INNER);
  let report: LintReport;
  beforeAll(async () => {
    report = await lint([aliased]);
  });

  it('lint lists at most so many of a rule and at one place, and counts every other', () => {
    for (const [rule, n] of countBy(report.findings.map((f) => f.rule)))
      expect(n, rule).toBeLessThanOrEqual(FINDINGS_PER_RULE);
    for (const [at, n] of countBy(report.findings.map(place))) expect(n, at).toBeLessThanOrEqual(FINDINGS_PER_PLACE);
    const listedNullable = report.findings.filter((f) => f.rule === 'OAS-NULLABLE').length;
    expect(listedNullable).toBe(FINDINGS_PER_RULE);
    expect(listedNullable + notListedOf(report, 'OAS-NULLABLE')).toBe(nullable);
    expect(nullable).toBeGreaterThan(CANDIDATES_PER_RULE);
    // One per operation: every operation lacks Accept-Version and a bearer token.
    expect(
      report.findings.filter((f) => f.rule === 'OAS-VERSION-HEADER').length + notListedOf(report, 'OAS-VERSION-HEADER'),
    ).toBe(OPERATIONS);
  });

  it('console: each rule’s list ends with the count of the rest; the summary gives both; the log stays small', async () => {
    const { code, out } = await cli(['lint', aliased]);
    expect(code).toBe(1);
    expect(out.length).toBeLessThan(150_000);
    expect(out).toContain(
      `       … and ${nullable - FINDINGS_PER_RULE} more not listed (a document lists at most ${FINDINGS_PER_RULE} findings of a rule and ${FINDINGS_PER_PLACE} at one place; fix those and lint again)\n`,
    );
    expect(out).toMatch(
      new RegExp(`aliases\\.yaml: \\d+ rules passed, 5 failed, 1 warned \\((\\d+) findings, (\\d+) listed\\)\\n$`),
    );
  });

  it('JSON, SARIF (valid 2.1.0) and JUnit list the same and count the rest', async () => {
    const { out } = await cli(['lint', '--format', 'json', aliased]);
    const json = JSON.parse(out) as {
      findings: unknown[];
      notListed: { document: string; rule: string; count: number }[];
      limits: unknown;
    };
    expect(json.findings).toHaveLength(report.findings.length);
    expect(json.notListed).toContainEqual({
      document: aliased,
      rule: 'OAS-NULLABLE',
      count: nullable - FINDINGS_PER_RULE,
    });
    expect(json.limits).toEqual({ findingsPerRule: FINDINGS_PER_RULE, findingsPerPlace: FINDINGS_PER_PLACE });

    const text = renderSarif(report);
    expect(text.length).toBeLessThan(1_000_000);
    const schema = JSON.parse(
      await readFile(join(ROOT, 'test/fixtures/lint/sarif/sarif-2.1.0-rtm.5.json'), 'utf8'),
    ) as object;
    const validate = new ajvDraft04.default({
      allErrors: true,
      strict: false,
      validateFormats: false,
      unicodeRegExp: false,
    }).compile(schema);
    const sarif = JSON.parse(text) as {
      runs: {
        results: unknown[];
        invocations: { toolExecutionNotifications: { message: { text: string }; associatedRule: { id: string } }[] }[];
      }[];
    };
    expect(validate(sarif), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
    expect(sarif.runs[0]?.results).toHaveLength(report.findings.length);
    const note = sarif.runs[0]?.invocations[0]?.toolExecutionNotifications.find(
      (n) => n.associatedRule.id === 'OAS-NULLABLE',
    );
    expect(note?.message.text).toMatch(
      new RegExp(`^${nullable - FINDINGS_PER_RULE} more OAS-NULLABLE findings in .*aliases\\.yaml not listed`),
    );

    const xml = renderJUnit(report);
    expect(xml).toContain(`failure message="${nullable} findings; first:`);
    expect(xml).toContain(`… and ${nullable - FINDINGS_PER_RULE} more not listed`);
  });

  it("the run's document section (report.json) reuses lint: the same list, the rest counted, the headline with both", async () => {
    const section = await lintForRun(aliased, undefined);
    expect(section.findings).toHaveLength(report.findings.length);
    expect(section.notListed).toContainEqual({ rule: 'OAS-NULLABLE', count: nullable - FINDINGS_PER_RULE });
    const total = section.findings.length + (section.notListed ?? []).reduce((n, r) => n + r.count, 0);
    expect(documentHeadline(section)).toMatch(
      new RegExp(`^${total} findings, ${section.findings.length} listed \\(OAS-VERSION-HEADER ×${OPERATIONS}, `),
    );
  });
});

describe("SARIF messages carry the document's text neutralised (GitHub code scanning renders them as Markdown)", () => {
  it('no live link, autolink, HTML or bidirectional override; the console and JSON keep the text as it is', async () => {
    const report = await lint([hostile]);
    const messages =
      (
        JSON.parse(renderSarif(report)) as { runs: { results: { message: { text: string } }[] }[] }
      ).runs[0]?.results.map((r) => r.message.text) ?? [];
    const named = messages.filter((m) => /click here|evil\.example|resu|bold/.test(m));
    expect(named.length).toBeGreaterThanOrEqual(4);
    for (const m of named) {
      expect(m).not.toMatch(/\]\(|https:\/\/|<img|\*\*bold/);
      expect(m).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
    }
    expect(named.join('\n')).toContain('\\[click here\\]\\(https\\://evil.example/steal\\)');
    // The JSON report is data for tools: the names as the document wrote them.
    expect(report.findings.some((f) => f.message.includes('"[click here](https://evil.example/steal)"'))).toBe(true);
  });
});

/**
 * Lint as the linters teams know (issue 42 item 6): one finding per mistake where it is written,
 * `--format stylish` (a line per finding, by file) and `--format github-actions` (annotations on
 * the pull request without code scanning), whose document text cannot become another command.
 */
describe('one mistake, one finding; stylish and github-actions formats', () => {
  let dir: string;
  let file: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'carrier-lint-formats-'));
    // The reference document with its shared Accept-Version parameter made optional, and an
    // operation whose summary carries a CI command and a terminal escape.
    const document = (await readFile(join(ROOT, 'docs', 'openapi.yaml'), 'utf8')).replace(
      'name: Accept-Version\n      in: header\n      required: true',
      'name: Accept-Version\n      in: header\n      required: false',
    );
    file = join(dir, 'openapi%,x.yaml');
    await writeFile(file, document);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a shared parameter written once with required: false is one finding at its line, naming the 10 operations (before: 10 findings, 10 code-scanning alerts)', async () => {
    const { findings } = await lint([file]);
    const version = findings.filter((f) => f.rule === 'OAS-VERSION-HEADER');
    expect(version).toHaveLength(1);
    expect(version[0]?.pointer).toBe('/components/parameters/AcceptVersion');
    expect(version[0]?.message).toMatch(
      /^the Accept-Version header is not required: true, on 10 operations \(POST \/uaa\/oauth2\/token, GET \/users\/me, .*\)$/,
    );
  });

  it('--format stylish: the file, then line:column, severity, message and rule; the count of problems', async () => {
    const run = await cli(['lint', '--format', 'stylish', file]);
    expect(run.code).toBe(1);
    const lines = run.out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/openapi%,x\.yaml$/);
    expect(lines[1]).toMatch(
      /^ {2}\d+:\d+ {2}error {4}the Accept-Version header is not required: true, on 10 operations .* {2}OAS-VERSION-HEADER$/,
    );
    expect(lines.at(-1)).toBe('1 problem (1 error, 0 warnings)');
  });

  it('--format github-actions: one ::error per finding, its file and title escaped as the runner reads them, then the stylish summary; a hostile message stays one command', async () => {
    const lines: string[] = [];
    const code = await main(['lint', '--format', 'github-actions', file], {
      out: (t) => void lines.push(t),
      err: () => undefined,
      color: false,
    });
    expect(code).toBe(1);
    const text = lines.join('');
    const command = text.split('\n').find((l) => l.startsWith('::'));
    expect(command).toMatch(
      /^::error file=.*openapi%25%2Cx\.yaml,line=\d+,col=\d+,title=OAS-VERSION-HEADER \(MUST\)::the Accept-Version header is not required: true, on 10 operations /,
    );
    expect(text.split('\n').filter((l) => l.startsWith('::'))).toHaveLength(1);
    expect(text).toContain('1 problem (1 error, 0 warnings)');

    const { workflowCommandLine } = await import('../src/core/console-safety.js');
    expect(
      workflowCommandLine({
        command: 'warning',
        properties: { file: 'a,b:c.yaml', line: 3, title: 'T' },
        message: 'x\n::set-env name=PATH::/tmp\r\n##[error]forged \u001b]0;title\u0007 100%',
      }),
    ).toBe(
      '::warning file=a%2Cb%3Ac.yaml,line=3,title=T::x%0A::set-env name=PATH::/tmp%0A＃#[error]forged ]0;title 100%25',
    );
  });
});

describe('--waivers: findings the team accepts, with their reasons (issue 42 item 6)', () => {
  let dir: string;
  let file: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'carrier-lint-waivers-'));
    const document = (await readFile(join(ROOT, 'docs', 'openapi.yaml'), 'utf8')).replace(
      'name: Accept-Version\n      in: header\n      required: true',
      'name: Accept-Version\n      in: header\n      required: false',
    );
    file = join(dir, 'openapi.yaml');
    await writeFile(file, document);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const waiversFile = async (content: unknown): Promise<string> => {
    const path = join(dir, `waivers-${Math.random().toString(36).slice(2)}.json`);
    await writeFile(path, JSON.stringify(content));
    return path;
  };

  it('a waived finding fails nothing and is reported as waived in every format; a waiver that matches nothing is reported so it can go', async () => {
    const waivers = await waiversFile({
      waivers: [
        {
          rule: 'OAS-VERSION-HEADER',
          pointer: '/components/parameters/AcceptVersion',
          reason: 'PLAT-9: the gateway adds Accept-Version',
        },
        { rule: 'OAS-NULLABLE', file: 'elsewhere.yaml', reason: 'an old waiver' },
      ],
    });
    const consoleRun = await cli(['lint', '--waivers', waivers, file]);
    expect(consoleRun.code).toBe(0);
    expect(consoleRun.out).toContain(`WAIVED (1), by ${waivers}:\n  OAS-VERSION-HEADER ${file}:`);
    expect(consoleRun.out).toContain(': PLAT-9: the gateway adds Accept-Version');
    expect(consoleRun.out).toContain(
      `WAIVERS THAT MATCH NO FINDING (remove them from ${waivers}) (1):\n  OAS-NULLABLE elsewhere.yaml: an old waiver`,
    );
    expect(consoleRun.out).toMatch(/0 failed, 0 warned \(0 findings; 1 waived\)\n$/);

    const sarifPath = join(dir, 'lint.sarif');
    expect((await cli(['lint', '--waivers', waivers, '--format', 'sarif', '--output', sarifPath, file])).code).toBe(0);
    const results = (
      JSON.parse(await readFile(sarifPath, 'utf8')) as {
        runs: { results: { ruleId: string; suppressions?: unknown }[] }[];
      }
    ).runs[0]?.results;
    expect(results).toEqual([
      expect.objectContaining({
        ruleId: 'OAS-VERSION-HEADER',
        suppressions: [
          { kind: 'external', status: 'accepted', justification: 'PLAT-9: the gateway adds Accept-Version' },
        ],
      }),
    ]);
    const json = await cli(['lint', '--waivers', waivers, '--format', 'json', file]);
    const parsed = JSON.parse(json.out) as {
      findings: unknown[];
      waived: { reason: string }[];
      unusedWaivers: unknown[];
    };
    expect([parsed.findings.length, parsed.waived.map((w) => w.reason), parsed.unusedWaivers.length]).toEqual([
      0,
      ['PLAT-9: the gateway adds Accept-Version'],
      1,
    ]);
    // Without the waivers, the same document fails.
    expect((await cli(['lint', file])).code).toBe(1);
  });

  it('a waivers file with a mistake: one line, exit 2, before any document is read', async () => {
    const errors: string[] = [];
    const code = await main(
      ['lint', '--waivers', await waiversFile({ waivers: [{ rule: 'OAS-VERSION-HEADR', reason: 'x' }] }), file],
      {
        out: () => undefined,
        err: (t) => void errors.push(t),
        color: false,
      },
    );
    expect(code).toBe(2);
    expect(errors.join('')).toMatch(
      /--waivers .*: waivers\.0\.rule: unknown rule "OAS-VERSION-HEADR" \(did you mean "OAS-VERSION-HEADER"\?\)/,
    );
  });
});
