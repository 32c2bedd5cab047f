import { sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TOOL_NAME, TOOL_VERSION } from '../core/version.js';

/** A SARIF artifact URI: relative (to %SRCROOT%, the working directory) when inside it, else a file: URL. */
export function artifactLocation(file: string): { uri: string; uriBaseId?: string } {
  if (file.startsWith('/') || /^[a-zA-Z]:/.test(file)) return { uri: pathToFileURL(file).href };
  return { uri: file.split('/').map(encodeURIComponent).join('/'), uriBaseId: '%SRCROOT%' };
}

/**
 * A SARIF 2.1.0 log of one run of this tool, as GitHub code scanning reads it (`lint`, `traffic`):
 * the driver with its `rules`, the working directory as %SRCROOT% (what `artifactLocation` paths
 * are relative to), and the rest of the run (`invocations`, `results`, `properties`).
 */
export function renderSarifLog(rules: readonly unknown[], run: Record<string, unknown>, cwd: string): string {
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: TOOL_NAME, version: TOOL_VERSION, semanticVersion: TOOL_VERSION, rules } },
        originalUriBaseIds: { '%SRCROOT%': { uri: pathToFileURL(cwd.endsWith(sep) ? cwd : `${cwd}${sep}`).href } },
        ...run,
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}
