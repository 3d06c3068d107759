/**
 * A lease as `@caravel/messaging`'s `LeaseStore` answers it: typed here, not imported, so the
 * messaging library's own specs can use this library without a dependency cycle.
 */
interface Lease {
  key: string;
  holder: string;
  revision: number;
  expiresAt: Date;
}

/**
 * The bus's lease store in memory, on the test's clock: one holder per key until the lease
 * expires or is released, a revision that grows on each acquire and renew: a `LeaseStore` for
 * unit specs of work held under a lease (the leased sweeps). The real stores pass the messaging
 * behaviour suite.
 */
export class MemoryLeases {
  private readonly held = new Map<string, Lease>();

  constructor(private readonly clock: { now(): Date } = { now: () => new Date() }) {}

  acquire(key: string, holder: string, ttlMs: number): Promise<Lease | null> {
    const live = this.live(key);
    if (live) return Promise.resolve(null);
    return Promise.resolve(this.hold(key, holder, ttlMs));
  }

  renew(lease: Lease, ttlMs: number): Promise<Lease | null> {
    const live = this.live(lease.key);
    if (live?.revision !== lease.revision) return Promise.resolve(null);
    return Promise.resolve(this.hold(lease.key, lease.holder, ttlMs));
  }

  release(lease: Lease): Promise<boolean> {
    if (this.held.get(lease.key)?.revision !== lease.revision) return Promise.resolve(false);
    return Promise.resolve(this.held.delete(lease.key));
  }

  get(key: string): Promise<Lease | null> {
    return Promise.resolve(this.live(key));
  }

  private live(key: string): Lease | null {
    const lease = this.held.get(key);
    return lease && lease.expiresAt.getTime() > this.clock.now().getTime() ? lease : null;
  }

  private hold(key: string, holder: string, ttlMs: number): Lease {
    const revision = (this.held.get(key)?.revision ?? 0) + 1;
    const expiresAt = new Date(this.clock.now().getTime() + ttlMs);
    const lease = { key, holder, revision, expiresAt };
    this.held.set(key, lease);
    return lease;
  }
}
