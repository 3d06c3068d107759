import type { KV, KvEntry } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Lease, LeaseStore } from '../bus.port.js';
import { casOrNull, KvBucket } from './kv-bucket.js';

interface LeaseValue {
  holder: string;
  expiresAt: number;
}

/** KV keys allow few characters; base64url keeps any lease key (e.g. `thread:<uuid>`) valid. */
export function leaseKvKey(key: string): string {
  return Buffer.from(key, 'utf8').toString('base64url');
}

/**
 * Leases on a NATS KV bucket. Every change is a compare-and-set on the key's revision; expiry
 * lives in the value (2.9 has no per-key TTL), so an expired lease is taken over by an `update`
 * against the revision the claimant observed.
 */
export class KvLeaseStore implements LeaseStore {
  private readonly bucket: KvBucket;

  constructor(
    nc: NatsConnection,
    bucketName: string,
    private readonly now: () => number = Date.now,
  ) {
    this.bucket = new KvBucket(nc, bucketName);
  }

  /** Creates (or opens) the bucket; safe to call repeatedly. */
  ensure(): Promise<KV> {
    return this.bucket.open();
  }

  async acquire(key: string, holder: string, ttlMs: number): Promise<Lease | null> {
    const kv = await this.ensure();
    const kvKey = leaseKvKey(key);
    const current = await kv.get(kvKey);
    const expiresAt = this.now() + ttlMs;
    const value = this.encode({ holder, expiresAt });
    const live = current ? this.decode(current) : null;
    if (live && live.expiresAt > this.now()) return null;
    const revision = live
      ? await casOrNull(kv.update(kvKey, value, current!.revision))
      : await casOrNull(kv.create(kvKey, value));
    return revision === null ? null : { key, holder, revision, expiresAt: new Date(expiresAt) };
  }

  async renew(lease: Lease, ttlMs: number): Promise<Lease | null> {
    const kv = await this.ensure();
    const expiresAt = this.now() + ttlMs;
    const value = this.encode({ holder: lease.holder, expiresAt });
    const revision = await casOrNull(kv.update(leaseKvKey(lease.key), value, lease.revision));
    return revision === null ? null : { ...lease, revision, expiresAt: new Date(expiresAt) };
  }

  async release(lease: Lease): Promise<boolean> {
    const kv = await this.ensure();
    const done = await casOrNull(
      kv.delete(leaseKvKey(lease.key), { previousSeq: lease.revision }).then(() => true),
    );
    return done ?? false;
  }

  async get(key: string): Promise<Lease | null> {
    const kv = await this.ensure();
    const entry = await kv.get(leaseKvKey(key));
    const live = entry ? this.decode(entry) : null;
    if (!entry || !live || live.expiresAt <= this.now()) return null;
    return {
      key,
      holder: live.holder,
      revision: entry.revision,
      expiresAt: new Date(live.expiresAt),
    };
  }

  private encode(value: LeaseValue): string {
    return JSON.stringify(value);
  }

  /** The stored lease, or null for a deleted key. */
  private decode(entry: KvEntry): LeaseValue | null {
    if (entry.operation !== 'PUT') return null;
    return entry.json<LeaseValue>();
  }
}
