import type { LeaseRepository, LeaseRow } from '@caravel/db';
import type { Lease, LeaseStore } from '../bus.port.js';
import { namespaced } from './embedded-bus.options.js';

/** The port's lease store over the `leases` table; keys are namespaced like streams. */
export class EmbeddedLeaseStore implements LeaseStore {
  constructor(
    private readonly repository: LeaseRepository,
    private readonly namespace: string,
  ) {}

  async acquire(key: string, holder: string, ttlMs: number): Promise<Lease | null> {
    return this.present(key, await this.repository.acquire(this.stored(key), holder, ttlMs));
  }

  async renew(lease: Lease, ttlMs: number): Promise<Lease | null> {
    const row = await this.repository.renew(
      this.stored(lease.key),
      lease.holder,
      lease.revision,
      ttlMs,
    );
    return this.present(lease.key, row);
  }

  async release(lease: Lease): Promise<boolean> {
    return this.repository.release(this.stored(lease.key), lease.holder, lease.revision);
  }

  async get(key: string): Promise<Lease | null> {
    return this.present(key, await this.repository.get(this.stored(key)));
  }

  private stored(key: string): string {
    return namespaced(this.namespace, key);
  }

  private present(key: string, row: LeaseRow | null): Lease | null {
    return row
      ? { key, holder: row.holder, revision: row.revision, expiresAt: row.expiresAt }
      : null;
  }
}
