/**
 * Whether a comma-separated directive list (Cache-Control, RFC 9111 §5.2; Pragma, §5.4) holds
 * `name`. Directive names are case-insensitive; `name=value` forms count as the name.
 */
export function hasDirective(fieldValue: string | undefined, name: string): boolean {
  if (fieldValue === undefined) return false;
  const wanted = name.toLowerCase();
  return fieldValue.split(',').some((part) => (part.split('=')[0] ?? '').trim().toLowerCase() === wanted);
}
