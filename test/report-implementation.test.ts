// The reports name the implementation (issue 32 item 4): --target-name, --target-version and
// --operator in report.html's title and header, and in junit.xml's suite properties.
import { describe, expect, it } from 'vitest';
import { renderHtmlReport } from '../src/report/html.js';
import { renderJUnit } from '../src/report/junit.js';
import type { RunReport } from '../src/model/run-report.js';
import { makeRunReport } from './fixtures/report/run-report.js';
import { XSD_FILES, childElements, loadXsd, parseXml, validateAgainst } from './fixtures/report/xml.js';

function named(): RunReport {
  const report = makeRunReport();
  report.target = { ...report.target, name: 'Acme <Carrier>', version: '2.1.0', operator: 'Acme Ops & Co' };
  return report;
}

describe('report.html', () => {
  it('is titled and headed with the implementation, its version and operator, and still shows the base URL', () => {
    const page = renderHtmlReport(named());
    expect(page).toContain(
      '<title>Carrier-Platform API conformance: NON-CONFORMANT, Acme &lt;Carrier&gt; 2.1.0, operated by Acme Ops &amp; Co at https://api.example.test</title>',
    );
    expect(page).toContain('<h1>Acme &lt;Carrier&gt; 2.1.0, operated by Acme Ops &amp; Co</h1>');
    expect(page).toContain('<dt>Base URL</dt><dd><code>https://api.example.test</code></dd>');
  });

  it('keeps the base URL as title and heading when the run was told no name', () => {
    const page = renderHtmlReport(makeRunReport());
    expect(page).toContain('<title>Carrier-Platform API conformance: NON-CONFORMANT, https://api.example.test</title>');
    expect(page).toContain('<h1>https://api.example.test</h1>');
    // The name `run` records by default (the host) is no name the run was told.
    const byHost = makeRunReport();
    byHost.target = { ...byHost.target, name: 'api.example.test' };
    expect(renderHtmlReport(byHost)).toContain('<h1>https://api.example.test</h1>');
  });
});

describe('junit.xml', () => {
  it('names the implementation in every suite’s properties, and stays valid against both XSDs', async () => {
    const xml = renderJUnit(named());
    const root = await parseXml(xml);
    const suites = childElements(root, 'testsuite');
    expect(suites.length).toBeGreaterThan(0);
    for (const suite of suites) {
      const props: Record<string, string | undefined> = Object.fromEntries(
        childElements(childElements(suite, 'properties')[0] ?? suite, 'property').map(
          (p): [string, string | undefined] => [p.attrs.name ?? '', p.attrs.value],
        ),
      );
      expect(props).toMatchObject({
        'target.name': 'Acme <Carrier>',
        'target.version': '2.1.0',
        'target.operator': 'Acme Ops & Co',
      });
    }
    for (const name of XSD_FILES)
      expect(await validateAgainst(xml, await loadXsd(name))).toEqual({ valid: true, errors: [] });
  });

  it('names the target by its host when the run was told no name, and writes no empty version or operator', async () => {
    const root = await parseXml(renderJUnit(makeRunReport()));
    const suite = childElements(root, 'testsuite')[0];
    if (!suite) throw new Error('no suite');
    const names = childElements(childElements(suite, 'properties')[0] ?? suite, 'property').map((p) => [
      p.attrs.name,
      p.attrs.value,
    ]);
    expect(names).toContainEqual(['target.name', 'api.example.test']);
    expect(names.map(([n]) => n)).not.toContain('target.version');
    expect(names.map(([n]) => n)).not.toContain('target.operator');
  });
});
