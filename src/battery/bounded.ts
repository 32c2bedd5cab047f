/** Runs `fn` over `inputs` with at most `limit` in flight; results in input order. */
export async function mapBounded<T, R>(
  inputs: readonly T[],
  limit: number,
  fn: (input: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(inputs.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < inputs.length) {
      const i = next;
      next += 1;
      results[i] = await fn(inputs[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), inputs.length) }, worker));
  return results;
}
