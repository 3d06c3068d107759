import type { KV, KvEntry } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/nats-core';
import { casOrNull, KvBucket } from './kv-bucket.js';

/**
 * One thread of an ordered consumer, set aside while its oldest message keeps failing: the
 * messages wait here (by stream sequence, in publish order) instead of holding up the thread's
 * partition, and the first is retried on its own schedule. A shared consumer parks a single
 * message that failed with an outage the same way, as a thread of its own (`seq-<sequence>`),
 * and a dead letter handed back to its consumer is parked too.
 */
export interface ParkedThread {
  /** Stream sequences in publish order; the first is the one being retried. */
  sequences: number[];
  /** Deliveries the first has had so far (the partition's included). */
  deliveries: number;
  /** Of those, the ones that failed with an outage (not counted against maxDeliver; absent: 0). */
  outages?: number;
  /** Epoch ms from which the first may be tried again. */
  dueAt: number;
  /** The replica trying the first now, until `heldUntil`; then another may take over. */
  holder: string | null;
  heldUntil: number;
}

/** A parked thread as stored, with the revision every change is compared against. */
export interface ParkedEntry {
  /** The thread id, or `seq-<sequence>` for a shared consumer's message. */
  threadId: string;
  value: ParkedThread;
  revision: number;
}

/** What the watch reports: a thread parked or changed (`entry`), or released (`null`). */
export interface ParkedChange {
  threadId: string;
  entry: ParkedEntry | null;
}

/** `thread.<threadId>.…`: the thread a thread-scoped subject belongs to (its parked key). */
export function threadOf(subject: string): string {
  return subject.split('.')[1] ?? '';
}

/** A shared consumer parks a message on its own: its key in the parked bucket. */
export function parkedMessageKey(sequence: number): string {
  return `seq-${sequence}`;
}

/**
 * The parked threads of one ordered consumer, in a KV bucket shared by every replica: key
 * `<stream>.<durable>.<threadId>`. Every change is a compare-and-set on the key's revision, so
 * the partition that parks followers and the replicas that retry the first never lose an update.
 */
export class ParkedThreads {
  private readonly bucket: KvBucket;

  constructor(
    nc: NatsConnection,
    bucketName: string,
    /** `<stream>.<durable>`: the consumer's own part of the bucket. */
    private readonly scope: string,
  ) {
    this.bucket = new KvBucket(nc, bucketName);
  }

  /** Creates (or opens) the bucket; safe to call repeatedly. */
  ensure(): Promise<KV> {
    return this.bucket.open();
  }

  async get(threadId: string): Promise<ParkedEntry | null> {
    const kv = await this.ensure();
    return this.toEntry(threadId, await kv.get(this.key(threadId)));
  }

  /** Parks a thread that has no record; false when one appeared first. */
  async create(threadId: string, value: ParkedThread): Promise<boolean> {
    const kv = await this.ensure();
    return (await casOrNull(kv.create(this.key(threadId), JSON.stringify(value)))) !== null;
  }

  /** Replaces the record if it is still at `entry.revision`; null when it changed meanwhile. */
  async update(entry: ParkedEntry, value: ParkedThread): Promise<ParkedEntry | null> {
    const kv = await this.ensure();
    const revision = await casOrNull(
      kv.update(this.key(entry.threadId), JSON.stringify(value), entry.revision),
    );
    return revision === null ? null : { threadId: entry.threadId, value, revision };
  }

  /** Releases the thread if its record is still at `entry.revision`. */
  async remove(entry: ParkedEntry): Promise<boolean> {
    const kv = await this.ensure();
    const done = await casOrNull(
      kv.delete(this.key(entry.threadId), { previousSeq: entry.revision }).then(() => true),
    );
    return done ?? false;
  }

  /** Every parked thread now, then each change, until `stop()` is called. */
  async watch(): Promise<{ changes: AsyncIterable<ParkedChange>; stop(): void }> {
    const kv = await this.ensure();
    const entries = await kv.watch({ key: `${this.scope}.>` });
    const prefix = `${this.scope}.`;
    const toEntry = (threadId: string, entry: KvEntry) => this.toEntry(threadId, entry);
    async function* changes(): AsyncIterable<ParkedChange> {
      for await (const entry of entries) {
        const threadId = entry.key.slice(prefix.length);
        yield { threadId, entry: toEntry(threadId, entry) };
      }
    }
    return { changes: changes(), stop: () => entries.stop() };
  }

  private key(threadId: string): string {
    return `${this.scope}.${threadId}`;
  }

  private toEntry(threadId: string, entry: KvEntry | null): ParkedEntry | null {
    if (!entry || entry.operation !== 'PUT') return null;
    return { threadId, value: entry.json<ParkedThread>(), revision: entry.revision };
  }
}
