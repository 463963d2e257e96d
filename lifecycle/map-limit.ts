/**
 * Runs an async function over items with at most `limit` in flight, keeping result order. The
 * lifecycle's guards and batches run concurrently through this — AO ran them one after another,
 * which is why its cycle took 66 s at 50 sessions — but never unboundedly (GitHub's secondary
 * limit allows 100 concurrent requests per token, shared with every agent).
 */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
  return results;
}
