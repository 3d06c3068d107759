/** Default nak delays: 1 s, 5 s, 30 s, then every 2 min. */
export const DEFAULT_BACKOFF_MS: readonly number[] = [1_000, 5_000, 30_000, 120_000];

/**
 * The delay before redelivering a message whose `deliveryCount`-th delivery failed: the first
 * failure takes the first entry, and the last entry repeats. An empty schedule means no delay.
 */
export function backoffDelay(schedule: readonly number[], deliveryCount: number): number {
  if (schedule.length === 0) return 0;
  const index = Math.min(Math.max(deliveryCount, 1), schedule.length) - 1;
  return schedule[index] ?? 0;
}
