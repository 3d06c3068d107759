import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { describeEachDatabase } from '@caravel/testing';
import type { Database } from '../connection/database.types.js';
import { openDatabase } from '../connection/open-database.js';
import { DeliveryRepository, type NewDelivery } from './delivery.repository.js';

await describeEachDatabase('delivery claims', openDatabase, (target) => {
  let database: Database;
  let deliveries: DeliveryRepository;

  beforeAll(async () => {
    database = await target.open();
    deliveries = new DeliveryRepository(database.db);
  });

  afterAll(async () => {
    await database?.close();
  });

  const delivery = (overrides: Partial<NewDelivery> = {}): NewDelivery => ({
    id: randomUUID(),
    source: 'github',
    deliveryId: randomUUID(),
    semanticKey: `issue_comment:${randomUUID()}`,
    threadId: randomUUID(),
    event: 'issue_comment.created',
    payload: { comment: { body: '@caravel go' } },
    payloadSha256: createHash('sha256').update('raw').digest('hex'),
    ...overrides,
  });

  it('claims a delivery once; a repeat sees the claim pending, then settled', async () => {
    const first = delivery();
    expect(await deliveries.claim(first)).toEqual({ outcome: 'claimed' });
    const retry = await deliveries.claim({ ...first, id: randomUUID() });
    expect(retry).toMatchObject({
      outcome: 'pending',
      existing: { id: first.id, settledAt: null },
    });

    await deliveries.settle(first.id);
    expect(await deliveries.claim({ ...first, id: randomUUID() })).toMatchObject({
      outcome: 'settled',
      existing: { id: first.id, settledAt: expect.any(Date) as unknown },
    });
    const twin = delivery({ semanticKey: first.semanticKey ?? null });
    expect(await deliveries.claim(twin)).toMatchObject({
      outcome: 'settled',
      existing: { id: first.id },
    });
  });

  it('releases an unsettled claim so the retry claims it again, and never a settled one', async () => {
    const failed = delivery();
    expect(await deliveries.claim(failed)).toEqual({ outcome: 'claimed' });
    expect(await deliveries.release(failed.id)).toBe(true);
    expect(await deliveries.get(failed.id)).toBeNull();
    expect(await deliveries.claim(failed)).toEqual({ outcome: 'claimed' });

    await deliveries.settle(failed.id);
    expect(await deliveries.release(failed.id)).toBe(false);
    expect(await deliveries.get(failed.id)).toMatchObject({
      settledAt: expect.any(Date) as unknown,
    });
  });

  it('keeps the first settle time, and a settle after a release changes nothing', async () => {
    const once = delivery();
    await deliveries.claim(once);
    const at = new Date(Date.UTC(2026, 0, 2, 10));
    await deliveries.settle(once.id, at);
    await deliveries.settle(once.id, new Date(Date.UTC(2026, 0, 3)));
    expect((await deliveries.get(once.id))?.settledAt).toEqual(at);

    const gone = delivery();
    await deliveries.claim(gone);
    await deliveries.release(gone.id);
    await deliveries.settle(gone.id);
    expect(await deliveries.get(gone.id)).toBeNull();
  });

  it('records a delivery settled at once, and keeps the raw bytes fingerprint with it', async () => {
    const recorded = delivery({ semanticKey: null });
    expect(await deliveries.record(recorded)).toBe(true);
    expect(await deliveries.get(recorded.id)).toMatchObject({
      payloadSha256: recorded.payloadSha256,
      settledAt: expect.any(Date) as unknown,
    });
    expect(await deliveries.claim({ ...recorded, id: randomUUID() })).toMatchObject({
      outcome: 'settled',
    });
  });

  describe('what the database accepts', () => {
    it('stores replacement characters, pairs and control characters as given', async () => {
      const payload = { text: 'a\uFFFDb 😀 \u0001\u001b', '\uFFFDkey': ['\uFFFD'] };
      const stored = delivery({ payload });
      await deliveries.claim(stored);
      expect((await deliveries.get(stored.id))?.payload).toEqual(payload);
    });

    it.each([
      ['NUL', { text: 'a\u0000b' }],
      ['a lone surrogate', { text: 'a\uD800b' }],
    ])(
      'refuses %s, which is why the ingress boundary replaces it before anything is stored',
      async (_, payload) => {
        await expect(deliveries.claim(delivery({ payload }))).rejects.toThrow(/json|unicode/i);
      },
    );
  });
});
