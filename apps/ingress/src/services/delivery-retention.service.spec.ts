import type { DeliveryRepository } from '@caravel/db';
import { strictMock } from '@caravel/testing/doubles';
import { ingressConfigFrom, ingressEnvSchema } from '../ingress.config.js';
import { DeliveryRetentionService } from './delivery-retention.service.js';

const NOW = new Date('2026-11-30T12:00:00Z');

/** A repository double holding `stored` rows' receive times; deletes like the real one. */
function storeOf(stored: Date[]) {
  const cutoffs: Date[] = [];
  const repository = strictMock<DeliveryRepository>(
    {
      deleteReceivedBefore: (cutoff: Date, limit: number) => {
        cutoffs.push(cutoff);
        const expired = stored.filter((at) => at < cutoff).slice(0, limit);
        for (const at of expired) stored.splice(stored.indexOf(at), 1);
        return Promise.resolve(expired.length);
      },
    },
    'deliveries',
  );
  return { repository, cutoffs, stored };
}

const hoursAgo = (hours: number) => new Date(NOW.getTime() - hours * 3_600_000);

describe('DeliveryRetentionService', () => {
  it('deletes every delivery older than the retention, batch after batch, and keeps the rest', async () => {
    const old = Array.from({ length: 2_500 }, (_, i) => hoursAgo(200 + i));
    const store = storeOf([...old, hoursAgo(1), hoursAgo(167)]);
    const config = ingressConfigFrom({ DELIVERY_RETENTION_HOURS: '168' });
    const service = new DeliveryRetentionService(store.repository, config, { now: () => NOW });

    await expect(service.sweep()).resolves.toBe(2_500);
    expect(store.stored).toEqual([hoursAgo(1), hoursAgo(167)]);
    expect(store.cutoffs).toHaveLength(3);
    expect(store.cutoffs[0]).toEqual(hoursAgo(168));
  });

  it('answers null for a failed sweep and deletes on the next one', async () => {
    const store = storeOf([hoursAgo(200)]);
    let calls = 0;
    const flaky = strictMock<DeliveryRepository>({
      deleteReceivedBefore: (cutoff, limit) =>
        ++calls === 1
          ? Promise.reject(new Error('connection reset'))
          : store.repository.deleteReceivedBefore(cutoff, limit),
    });
    const service = new DeliveryRetentionService(flaky, ingressConfigFrom({}), { now: () => NOW });

    await expect(service.sweep()).resolves.toBeNull();
    await expect(service.sweep()).resolves.toBe(1);
    expect(store.stored).toEqual([]);
  });

  it('refuses a retention shorter than GitHub redelivers (72 hours)', () => {
    expect(ingressEnvSchema.safeParse({ DELIVERY_RETENTION_HOURS: '24' }).success).toBe(false);
    expect(ingressConfigFrom({}).deliveryRetentionHours).toBe(168);
  });
});
