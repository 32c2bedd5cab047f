import { inline } from '../report/markdown.js';
import { artifactLocation, renderSarifLog } from '../report/sarif-location.js';
import type { PassiveResult } from './judge.js';
import { notObserved, whereIs } from './report.js';

/** A SARIF message's length at most. */
const SARIF_MESSAGE_MAX = 2000;

/**
 * `traffic`'s findings as SARIF 2.1.0 (issue 43), as GitHub code scanning reads it: each passive
 * check a rule (MUST `error`, SHOULD `warning`, `error` with --strict), each cause a result located
 * in the capture (the line of an NDJSON capture; a HAR's entry as a logical location). A check the
 * capture did not observe is a notification, so that what was not proven is said there too.
 */
export function renderTrafficSarif(results: readonly PassiveResult[], strict: boolean, cwd = process.cwd()): string {
  const index = new Map(results.map((r, i) => [r.id, i]));
  return renderSarifLog(
    results.map((r) => ({
      id: r.id,
      shortDescription: { text: r.title },
      fullDescription: { text: `${r.title} (${r.refs.join('; ')})` },
      defaultConfiguration: { level: r.level === 'MUST' || strict ? 'error' : 'warning' },
      properties: { tags: ['traffic', r.level], level: r.level, refs: [...r.refs] },
    })),
    {
      invocations: [
        {
          executionSuccessful: true,
          toolExecutionNotifications: results
            .filter((r) => r.status === 'not-observed')
            .map((r) => ({
              level: 'note',
              message: { text: inline(`${r.id} ${notObserved(r)}`, SARIF_MESSAGE_MAX) },
              associatedRule: { id: r.id, index: index.get(r.id) ?? 0 },
            })),
        },
      ],
      results: results.flatMap((r) =>
        r.findings.map((f) => ({
          ruleId: r.id,
          ruleIndex: index.get(r.id) ?? 0,
          level: r.level === 'MUST' || strict ? 'error' : 'warning',
          // Code scanning renders a message as Markdown: the capture's text in it is neutralised.
          message: {
            text: inline(
              `${f.message} (${whereIs(f.exchange)}${f.count > 1 ? `; ${f.count - 1} more like it` : ''})`,
              SARIF_MESSAGE_MAX,
            ),
          },
          locations: [
            {
              ...(f.exchange.file === undefined
                ? {}
                : {
                    physicalLocation: {
                      artifactLocation: artifactLocation(f.exchange.file),
                      ...(f.exchange.line === undefined ? {} : { region: { startLine: f.exchange.line } }),
                    },
                  }),
              logicalLocations: [
                {
                  fullyQualifiedName:
                    f.exchange.line === undefined ? `log.entries[${f.exchange.index}]` : `line ${f.exchange.line}`,
                  kind: 'object',
                },
              ],
            },
          ],
          partialFingerprints: { endpointCause: `${r.id}:${f.endpoint}` },
        })),
      ),
    },
    cwd,
  );
}
