import type { BusConsumerRepository, BusDeliveryRepository, ClaimedDelivery } from '@caravel/db';
import { AppError } from '@caravel/errors';
import { strictMock, type Stubs } from '@caravel/testing/doubles';
import { describe, expect, it } from '@jest/globals';
import type { Delivery } from '../bus.port.js';
import { resolveConsumerOptions, silentLogger } from '../settlement/index.js';
import { probeMessage, type ProbeData } from '../testing/bus-test-messages.js';
import { EmbeddedConsumer } from './embedded-consumer.js';

/** Longer than any test runs: a consumer that waits for the poll never gets there in time. */
const POLL_MS = 3_600_000;

/**
 * One message's delivery row, as `bus_deliveries` keeps it, with the time a nak's backoff ends
 * given by the order of events instead of a clock: the backoff ends right after the first claim
 * that finds the message pending and not yet visible. Strict: any call it does not model throws.
 */
function oneMessageStore(payload: string) {
  const row = {
    state: 'pending' as 'pending' | 'inflight' | 'acked',
    visible: true,
    /** Became visible after the last claim looked. */
    sinceClaim: false,
    count: 0,
  };
  const deliveries: Stubs<BusDeliveryRepository> = {
    expireExhausted: () => Promise.resolve([]),
    msUntilDue: (_stream: string, _durable: string, lookBackMs = 0) => {
      // As the SQL reads it: an invisible pending row is a timer; a visible one is due now only
      // if it became visible within the look-back (here: since the last claim looked).
      if (row.state === 'pending' && !row.visible) return Promise.resolve(1);
      if (row.state === 'pending')
        return Promise.resolve(row.sinceClaim && lookBackMs > 0 ? 0 : null);
      return Promise.resolve(row.state === 'inflight' ? 30_000 : null);
    },
    claim: (): Promise<ClaimedDelivery[]> => {
      row.sinceClaim = false;
      if (row.state !== 'pending') return Promise.resolve([]);
      if (!row.visible) {
        // The backoff ends just after this claim looked.
        Object.assign(row, { visible: true, sinceClaim: true });
        return Promise.resolve([]);
      }
      row.state = 'inflight';
      row.count += 1;
      const claimed = { sequence: 1, deliveryCount: row.count, outages: 0, subject: 's', payload };
      return Promise.resolve([{ ...claimed, storedAt: new Date() }]);
    },
    nak: () => {
      Object.assign(row, { state: 'pending', visible: false });
      return Promise.resolve(true);
    },
    ack: () => {
      row.state = 'acked';
      return Promise.resolve();
    },
  };
  return {
    deliveries: strictMock<BusDeliveryRepository>(deliveries, 'deliveries'),
    consumers: strictMock<BusConsumerRepository>({ fill: () => Promise.resolve(0) }, 'consumers'),
  };
}

describe('embedded consumer', () => {
  it('takes a message whose backoff ends just after an outage probe found nothing, without waiting for the poll', async () => {
    const probe = probeMessage('cmd', 'missed-wake');
    const envelope = probe.create({ threadId: crypto.randomUUID(), n: 0 }, { source: 'spec' });
    const store = oneMessageStore(JSON.stringify(envelope));
    const attempts: number[] = [];
    let handled!: () => void;
    const secondAttempt = new Promise<void>((resolve) => (handled = resolve));
    const consumer = new EmbeddedConsumer({
      deliveries: store.deliveries,
      consumers: store.consumers,
      definition: probe,
      // One at a time and a 1 ms backoff: the outage's probe falls due just before the nak'd
      // message becomes visible, finds nothing, and hands on.
      options: resolveConsumerOptions({ durable: 'missed-wake', concurrency: 1, backoffMs: [1] }),
      handler: (delivery: Delivery<ProbeData>) => {
        attempts.push(delivery.deliveryCount);
        if (attempts.length === 1)
          return Promise.reject(new AppError('DEPENDENCY_UNAVAILABLE', 'down'));
        handled();
        return Promise.resolve();
      },
      storedStream: 'stream',
      stream: 'stream',
      subjectRegex: '.*',
      holder: 'spec',
      pollIntervalMs: POLL_MS,
      settled: () => {},
      logger: silentLogger,
    });
    consumer.start();
    try {
      const outcome = await Promise.race([
        secondAttempt.then(() => 'handled'),
        new Promise((resolve) => setTimeout(() => resolve('still waiting'), 8_000).unref()),
      ]);
      expect(outcome).toBe('handled');
      expect(attempts).toEqual([1, 2]);
    } finally {
      await consumer.drain();
    }
  });
});
