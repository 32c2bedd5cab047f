import { pathToFileURL } from 'node:url';

/** A SARIF artifact URI: relative (to %SRCROOT%, the working directory) when inside it, else a file: URL. */
export function artifactLocation(file: string): { uri: string; uriBaseId?: string } {
  if (file.startsWith('/') || /^[a-zA-Z]:/.test(file)) return { uri: pathToFileURL(file).href };
  return { uri: file.split('/').map(encodeURIComponent).join('/'), uriBaseId: '%SRCROOT%' };
}
