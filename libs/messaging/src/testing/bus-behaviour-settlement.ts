import { randomUUID } from 'node:crypto';
import { AppError } from '@caravel/errors';
import { describe, expect, it } from '@jest/globals';
import type { Bus } from '../bus.port.js';
import { recording, type BehaviourContext, type SeenDelivery } from './bus-behaviour-context.js';
import {
  probeMessage,
  uniqueName,
  type ProbeData,
  type ProbeDefinition,
} from './bus-test-messages.js';
import { eventually, sleep } from './eventually.js';

async function publishOne(bus: Bus, probe: ProbeDefinition): Promise<string> {
  const envelope = probe.create({ threadId: randomUUID(), n: 1 }, { source: 'suite' });
  await bus.publish(probe, envelope);
  return envelope.id;
}

/** Nak with backoff, ack deadlines and heartbeats, dead letters for exhausted and poison messages. */
export function describeSettlementBehaviour(ctx: BehaviourContext): void {
  describe('settlement', () => {
    it('naks a retryable error and redelivers it after at least the backoff, with deliveryCount 2', async () => {
      const probe = probeMessage('cmd', 'nak');
      const bus = await ctx.replica('worker');
      const seen: SeenDelivery<ProbeData>[] = [];
      let failedAt = 0;
      await bus.consume(
        probe,
        { durable: uniqueName('nak'), backoffMs: [700], ackWaitMs: 5000 },
        recording(seen, 'r0', async (d) => {
          if (d.deliveryCount > 1) return;
          failedAt = Date.now();
          throw new AppError('TIMEOUT', 'the sandbox broker did not answer in time');
        }),
      );
      await publishOne(bus, probe);

      await eventually(() => expect(seen).toHaveLength(2));
      expect(seen.map((s) => s.deliveryCount)).toEqual([1, 2]);
      // A lower bound on the backoff is the behaviour; 20 ms covers timer granularity.
      expect(seen[1]!.at - failedAt).toBeGreaterThanOrEqual(700 - 20);
    });

    it('redelivers a delivery that is neither settled nor heartbeated once the ack deadline passes', async () => {
      const probe = probeMessage('cmd', 'ack-wait');
      const bus = await ctx.replica('worker');
      const seen: SeenDelivery<ProbeData>[] = [];
      const stuck = ctx.gate();
      await bus.consume(
        probe,
        { durable: uniqueName('ackwait'), ackWaitMs: 1000 },
        recording(seen, 'r0', async (d) => {
          if (d.deliveryCount === 1) await stuck.wait();
        }),
      );
      const id = await publishOne(bus, probe);

      await eventually(() => expect(seen.map((s) => s.deliveryCount)).toEqual([1, 2]));
      expect(seen.every((s) => s.id === id)).toBe(true);
    });

    it('keeps a long handler that heartbeats with working() from being redelivered', async () => {
      const probe = probeMessage('cmd', 'heartbeat');
      const bus = await ctx.replica('worker');
      const seen: SeenDelivery<ProbeData>[] = [];
      const finished: string[] = [];
      await bus.consume(
        probe,
        { durable: uniqueName('heartbeat'), ackWaitMs: 1000 },
        recording(seen, 'r0', async (d) => {
          for (let beat = 0; beat < 12; beat += 1) {
            await sleep(300);
            await d.working();
          }
          finished.push(d.envelope.id);
        }),
      );
      await publishOne(bus, probe);

      await eventually(() => expect(finished.length).toBeGreaterThanOrEqual(1));
      await sleep(1200);
      expect(seen.map((s) => s.deliveryCount)).toEqual([1]);
      expect(finished).toHaveLength(1);
    });

    it('dead-letters a message once when it runs out of deliveries, then stops delivering it', async () => {
      const probe = probeMessage('cmd', 'max-deliver');
      const durable = uniqueName('maxdeliver');
      const bus = await ctx.replica('worker');
      const seen: SeenDelivery<ProbeData>[] = [];
      await bus.consume(
        probe,
        { durable, maxDeliver: 3, backoffMs: [50], ackWaitMs: 1000 },
        recording(seen, 'r0', async () => {
          throw new AppError('TIMEOUT', 'the sandbox broker did not answer in time');
        }),
      );
      await publishOne(bus, probe);

      const letters = await eventually(async () => {
        const found = await bus.deadLetters({ consumer: durable });
        expect(found).toHaveLength(1);
        return found;
      });
      expect(letters[0]!.reason).toBe(
        'max deliveries reached (3/3): TIMEOUT: the sandbox broker did not answer in time',
      );
      expect(letters[0]!.deliveries).toBe(3);
      await sleep(1500);
      expect(seen.map((s) => s.deliveryCount)).toEqual([1, 2, 3]);
      expect(await bus.deadLetters({ consumer: durable })).toHaveLength(1);
    });

    it('dead-letters a message whose handler keeps missing the ack deadline', async () => {
      const probe = probeMessage('cmd', 'timeouts');
      const durable = uniqueName('timeouts');
      const bus = await ctx.replica('worker');
      const seen: SeenDelivery<ProbeData>[] = [];
      const stuck = ctx.gate();
      await bus.consume(
        probe,
        { durable, maxDeliver: 2, ackWaitMs: 1000 },
        recording(seen, 'r0', () => stuck.wait().then(() => undefined)),
      );
      await publishOne(bus, probe);

      const letters = await eventually(async () => {
        const found = await bus.deadLetters({ consumer: durable });
        expect(found).toHaveLength(1);
        return found;
      });
      expect(letters[0]!.deliveries).toBe(2);
      expect(letters[0]!.reason).toMatch(/deliver/i);
      expect(seen.map((s) => s.deliveryCount)).toEqual([1, 2]);
    });

    it('terms a non-retryable error: never redelivered, one dead letter with the reason', async () => {
      const probe = probeMessage('cmd', 'poison');
      const durable = uniqueName('poison');
      const bus = await ctx.replica('worker');
      const seen: SeenDelivery<ProbeData>[] = [];
      await bus.consume(
        probe,
        { durable, ackWaitMs: 1000 },
        recording(seen, 'r0', async () => {
          throw new AppError('PRECONDITION_FAILED', 'the repository was archived');
        }),
      );
      await publishOne(bus, probe);

      const letters = await eventually(async () => {
        const found = await bus.deadLetters({ consumer: durable });
        expect(found).toHaveLength(1);
        return found;
      });
      expect(letters[0]!.reason).toContain('PRECONDITION_FAILED');
      expect(letters[0]!.reason).toContain('the repository was archived');
      await sleep(1500);
      expect(seen).toHaveLength(1);
      expect(await bus.deadLetters({ consumer: durable })).toHaveLength(1);
    });

    it('terms an envelope that fails its schema without calling the handler', async () => {
      const probe = probeMessage('cmd', 'malformed');
      const durable = uniqueName('malformed');
      const bus = await ctx.replica('worker');
      const seen: SeenDelivery<ProbeData>[] = [];
      await bus.consume(probe, { durable, ackWaitMs: 1000 }, recording(seen, 'r0'));
      const good = probe.create({ threadId: randomUUID(), n: 1 }, { source: 'suite' });
      const broken = { ...good, id: randomUUID(), data: { ...good.data, n: 'one' } };
      await bus.publish(probe, broken as unknown as typeof good);

      const letters = await eventually(async () => {
        const found = await bus.deadLetters({ consumer: durable });
        expect(found).toHaveLength(1);
        return found;
      });
      expect(letters[0]!.reason).toContain('MESSAGE_MALFORMED');
      expect(letters[0]!.payload).toContain(broken.id);
      await sleep(1500);
      expect(seen).toHaveLength(0);
    });
  });
}
