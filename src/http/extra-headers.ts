/**
 * Header fields the user adds to every request (`--header 'X-Api-Key: …'`): the key an API
 * gateway (Azure APIM's Ocp-Apim-Subscription-Key, Kong's apikey, AWS API Gateway's x-api-key)
 * demands beside OAuth. Their values are secrets: the HTTP layer registers them with the redactor
 * (src/http/settings.ts), so reports and the console show a marker, and the reports' curl
 * commands a variable, never the value.
 */

/** RFC 9110 §5.6.2: a field name is a token. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Fields the harness sets on purpose, request by request: a check that sends no Accept-Version,
 * a malformed Authorization or another media type must send exactly that (spec §Versioning,
 * §Authentication), and the framing fields are the HTTP layer's own (RFC 9112 §6). A user's
 * field of these names would change what the checks test: it is refused, not merged.
 */
export const RESERVED_HEADER_NAMES: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'accept-version',
  'accept',
  'accept-encoding',
  'content-type',
  'content-length',
  'transfer-encoding',
  'host',
  'connection',
  'te',
  'upgrade',
  'keep-alive',
  'expect',
];

/** `Name: value` → [name, value], or the reason it is refused (never quoting the value: it is a secret). */
export function parseHeaderLine(line: string): [string, string] | { problem: string } {
  const colon = line.indexOf(':');
  if (colon <= 0) return { problem: 'is not "Name: value"; give e.g. \'X-Api-Key: …\'' };
  const name = line.slice(0, colon).trim();
  if (!TOKEN.test(name))
    return {
      problem: `${JSON.stringify(name)} is not a header field name (RFC 9110 §5.6.2: letters, digits and !#$%&'*+.^_\`|~-)`,
    };
  if (RESERVED_HEADER_NAMES.includes(name.toLowerCase()))
    return {
      problem: `${name} is set by the harness itself, check by check (the checks test it); it cannot be added to every request`,
    };
  // RFC 9110 §5.5: leading and trailing whitespace is not part of the value; CR, LF and NUL never are.
  const value = line.slice(colon + 1).trim();
  if (/[\0\r\n]/.test(value) || [...value].some((c) => c.charCodeAt(0) < 0x20 && c !== '\t'))
    return { problem: `the value of ${name} holds a control character (RFC 9110 §5.5)` };
  if (value === '') return { problem: `${name} has no value; give e.g. '${name}: …'` };
  return [name, value];
}

/** The parsed fields of valid `Name: value` lines (the options' schema has refused invalid ones). */
export function headerFields(lines: readonly string[]): [string, string][] {
  return lines.flatMap((line) => {
    const parsed = parseHeaderLine(line);
    return Array.isArray(parsed) ? [parsed] : [];
  });
}
