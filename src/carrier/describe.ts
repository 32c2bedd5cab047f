/**
 * A value as a message shows it: a leaf, so that what reads reports (the bundle's evidence,
 * src/bundle/evidence.ts) can use the resource judge without the battery's runtime (Vitest).
 */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'no such field';
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  return JSON.stringify(value);
}
