import { AppError } from '@caravel/errors';
import type { Lease, LeaseStore } from '@caravel/messaging';
import type { ThreadLock } from '@caravel/sandbox';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

/** A holder that died frees the thread this long after its last renewal. */
const LOCK_TTL_MS = 60_000;
/** How long a claimant waits for the thread before giving up (retryable). */
const WAIT_MS = 120_000;

/**
 * The per-thread lock of sandbox lifecycle decisions, as a bus lease (`sandbox.<threadId>`): it
 * serializes claimants in this process and across broker replicas. Held leases are renewed while
 * the work runs (a clone can be slow) and released after it.
 */
export class BusThreadLock implements ThreadLock {
  constructor(
    private readonly leases: LeaseStore,
    private readonly holder: string,
  ) {}

  async run<T>(threadId: string, work: () => Promise<T>): Promise<T> {
    const lease = await this.take(`sandbox.${threadId}`);
    const keepAlive = setInterval(() => void this.renew(lease), LOCK_TTL_MS / 3);
    try {
      return await work();
    } finally {
      clearInterval(keepAlive);
      await this.leases.release(lease).catch(() => false);
    }
  }

  private async take(key: string): Promise<Lease> {
    const holder = `${this.holder}:${randomUUID()}`;
    const deadline = Date.now() + WAIT_MS;
    for (let delay = 10; ; delay = Math.min(delay * 2, 200)) {
      const lease = await this.leases.acquire(key, holder, LOCK_TTL_MS);
      if (lease) return lease;
      if (Date.now() > deadline) {
        throw new AppError('LEASE_HELD', `${key} stayed locked for ${WAIT_MS} ms`, {
          retryable: true,
        });
      }
      await sleep(delay);
    }
  }

  private async renew(lease: Lease): Promise<void> {
    const renewed = await this.leases.renew(lease, LOCK_TTL_MS).catch(() => null);
    if (renewed) Object.assign(lease, renewed);
  }
}
