import type { Bus } from '@caravel/messaging';

/** A bus lease a piece of scheduled work holds while it runs. */
export interface WorkLease {
  /** The lease's key (`dispatch.sweep`). */
  key: string;
  /** Who holds it: the runtime's name. */
  holder: string;
  /** How long it is held at most, should the holder die mid-run. */
  ttlMs: number;
}

/**
 * The lease of work run every `intervalMs`: held at most two intervals (a minute at least), so a
 * replica that dies mid-run frees the work for the next tick elsewhere.
 */
export function periodicLease(key: string, holder: string, intervalMs: number): WorkLease {
  return { key, holder, ttlMs: Math.max(60_000, intervalMs * 2) };
}

/**
 * Runs `work` on one replica at a time: under the bus lease, released once it ends (a failed
 * release is left to expire). Null when another replica holds the lease.
 */
export async function underLease<T>(
  leases: Bus['leases'],
  lease: WorkLease,
  work: () => Promise<T>,
): Promise<T | null> {
  const held = await leases.acquire(lease.key, lease.holder, lease.ttlMs);
  if (!held) return null;
  try {
    return await work();
  } finally {
    await leases.release(held).catch(() => false);
  }
}
