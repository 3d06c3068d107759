/** How `runBounded` stops early. */
export interface PoolOptions {
  /** Aborted: no further item starts; the ones running finish (or stop on the same signal). */
  signal?: AbortSignal;
}

/**
 * Runs `worker` over `items` in order with at most `limit` at once (the slot number, from 0, is
 * the worker's own: at most one item uses a slot at a time). The first failure, or an abort,
 * stops further items from starting; the running ones are waited for, then the failure (or the
 * abort's reason) is thrown. Resolves when every item has run.
 */
export async function runBounded<T>(
  items: readonly T[],
  limit: number,
  worker: (item: T, slot: number) => Promise<void>,
  options: PoolOptions = {},
): Promise<void> {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`concurrency must be a whole number from 1, not ${limit}`);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const stopped = () => failure !== undefined || options.signal?.aborted === true;
  const lane = async (slot: number): Promise<void> => {
    while (!stopped() && next < items.length) {
      const item = items[next++] as T;
      try {
        await worker(item, slot);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, (_, slot) => lane(slot)));
  if (failure) throw failure.error;
  options.signal?.throwIfAborted();
}
