import { describe, expect, it, jest } from '@jest/globals';
import type { KV, Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/nats-core';
import { strictMock } from '@caravel/testing/doubles';
import { KvBucket } from './kv-bucket.js';

const nc = strictMock<NatsConnection>({}, 'nats connection');
const bucket = strictMock<KV>({}, 'leases bucket');
const overlap = new Error('subjects overlap with an existing stream');

function kvmAnswering(...answers: (KV | Error)[]) {
  const create = jest.fn((_name: string) => {
    const answer = answers.shift();
    if (answer === undefined) throw new Error('create called more often than scripted');
    return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
  });
  return { kvm: strictMock<Pick<Kvm, 'create'>>({ create }, 'kvm'), create };
}

describe('KvBucket', () => {
  it('opens the bucket another process created while this one lost the race to create it', async () => {
    const { kvm, create } = kvmAnswering(overlap, bucket);
    const kv = new KvBucket(nc, 'leases', kvm);
    expect(await kv.open()).toBe(bucket);
    expect(await kv.open()).toBe(bucket);
    expect(create).toHaveBeenCalledTimes(2);
  });

  it('fails when the second try fails too, and tries again at the next open', async () => {
    const { kvm, create } = kvmAnswering(overlap, overlap, bucket);
    const kv = new KvBucket(nc, 'leases', kvm);
    await expect(kv.open()).rejects.toBe(overlap);
    expect(await kv.open()).toBe(bucket);
    expect(create).toHaveBeenCalledTimes(3);
  });
});
