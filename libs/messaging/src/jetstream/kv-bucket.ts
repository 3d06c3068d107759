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

  constructor(
    private readonly nc: NatsConnection,
    private readonly name: string,
  ) {}

  open(): Promise<KV> {
    this.bucket ??= new Kvm(this.nc).create(this.name, { history: 1 }).catch((error: unknown) => {
      this.bucket = null;
      throw error;
    });
    return this.bucket;
  }
}
