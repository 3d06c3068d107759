import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/nats-core';

function isCasConflict(error: unknown): boolean {
  return (
    error instanceof JetStreamApiError &&
    (error.code === JetStreamApiCodes.StreamWrongLastSequence ||
      error.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

/** `null` on a lost compare-and-set (a KV `create`/`update`/`delete`), rethrowing anything else. */
export async function casOrNull<T>(attempt: Promise<T>): Promise<T | null> {
  try {
    return await attempt;
  } catch (error) {
    if (isCasConflict(error)) return null;
    throw error;
  }
}

/** A KV bucket (history 1) created or opened on first use; a failed open is tried again next time. */
export class KvBucket {
  private bucket: Promise<KV> | null = null;

  private readonly kvm: Pick<Kvm, 'create'>;

  /** @param kvm the KV manager (default: one on `nc`; a double in specs). */
  constructor(
    nc: NatsConnection,
    private readonly name: string,
    kvm?: Pick<Kvm, 'create'>,
  ) {
    this.kvm = kvm ?? new Kvm(nc);
  }

  open(): Promise<KV> {
    this.bucket ??= this.createOnce().catch((error: unknown) => {
      this.bucket = null;
      throw error;
    });
    return this.bucket;
  }

  /**
   * Creates the bucket, or opens it when it exists. Services starting together create it at
   * once: the server may tell the one that lost the race that its stream's subjects overlap the
   * winner's, so a failed create is tried once more, which then finds the bucket (as
   * `applyStreams` does for the streams).
   */
  private async createOnce(): Promise<KV> {
    try {
      return await this.kvm.create(this.name, { history: 1 });
    } catch {
      return this.kvm.create(this.name, { history: 1 });
    }
  }
}
