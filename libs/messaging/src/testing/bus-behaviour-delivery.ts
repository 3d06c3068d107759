import { randomUUID } from 'node:crypto';
import { STREAMS } from '@caravel/contracts';
import { AppError } from '@caravel/errors';
import { describe, expect, it } from '@jest/globals';
import {
  collect,
  recording,
  type BehaviourContext,
  type SeenDelivery,
} from './bus-behaviour-context.js';
import { probeMessage, uniqueName, type ProbeData } from './bus-test-messages.js';
import { eventually, sleep } from './eventually.js';

/** Publishing, shared durables, ack-after-effects, crash redelivery, idempotent setup. */
export function describeDeliveryBehaviour(ctx: BehaviourContext): void {
  describe('delivery', () => {
    it('stores a message once when the same envelope id is published twice', async () => {
      const probe = probeMessage('cmd', 'dedupe');
      const bus = await ctx.replica('publisher');
      const threadId = randomUUID();
      const envelope = probe.create({ threadId, n: 1 }, { source: 'suite' });

      const first = await bus.publish(probe, envelope);
      const second = await bus.publish(probe, envelope);

      expect(first.duplicate).toBe(false);
      expect(second.duplicate).toBe(true);
      expect(second.sequence).toBe(first.sequence);
      const stored = await collect(bus.replay(STREAMS.COMMANDS, { threadId }));
      expect(stored.map((m) => m.envelope.id)).toEqual([envelope.id]);
    });

    it('shares one durable across three replicas: each message handled once, by more than one replica', async () => {
      const probe = probeMessage('cmd', 'shared');
      const durable = uniqueName('shared');
      const buses = await ctx.replicas(3);
      const seen: SeenDelivery<ProbeData>[] = [];
      for (const [i, bus] of buses.entries()) {
        await bus.consume(
          probe,
          { durable, concurrency: 2 },
          recording(seen, `r${i}`, () => sleep(15)),
        );
      }
      const publisher = buses[0]!;
      const total = 60;
      for (let n = 0; n < total; n += 1) {
        await publisher.publish(
          probe,
          probe.create({ threadId: randomUUID(), n }, { source: 'suite' }),
        );
      }

      await eventually(() => expect(seen.length).toBeGreaterThanOrEqual(total));
      await sleep(300);
      expect(seen).toHaveLength(total);
      expect(new Set(seen.map((s) => s.id)).size).toBe(total);
      expect(new Set(seen.map((s) => s.replica)).size).toBeGreaterThan(1);
    });

    it('acks only after the handler succeeds, so a throwing handler has its effect retried', async () => {
      const probe = probeMessage('cmd', 'ack-after-effect');
      const bus = await ctx.replica('worker');
      const committed: string[] = [];
      const attempts: number[] = [];
      await bus.consume(
        probe,
        { durable: uniqueName('effects'), backoffMs: [100] },
        async (delivery) => {
          attempts.push(delivery.deliveryCount);
          if (delivery.deliveryCount === 1) throw new Error('the database went away mid-write');
          committed.push(delivery.envelope.id);
        },
      );
      const envelope = probe.create({ threadId: randomUUID(), n: 1 }, { source: 'suite' });
      await bus.publish(probe, envelope);

      await eventually(() => expect(committed).toEqual([envelope.id]));
      expect(attempts).toEqual([1, 2]);
    });

    it("redelivers a killed replica's un-acked delivery to a surviving replica", async () => {
      const probe = probeMessage('cmd', 'crash');
      const durable = uniqueName('crash');
      const buses = await ctx.replicas(2);
      const seen: SeenDelivery<ProbeData>[] = [];
      const never = ctx.gate();
      for (const [i, bus] of buses.entries()) {
        await bus.consume(
          probe,
          { durable, ackWaitMs: 1000 },
          recording(seen, `r${i}`, async (d) => {
            if (d.deliveryCount === 1) await never.wait();
          }),
        );
      }
      const envelope = probe.create({ threadId: randomUUID(), n: 1 }, { source: 'suite' });
      await buses[0]!.publish(probe, envelope);

      const victim = await eventually(() => {
        expect(seen).toHaveLength(1);
        return seen[0]!.replica;
      });
      await ctx.kill(buses[victim === 'r0' ? 0 : 1]!);

      const retry = await eventually(() => {
        const again = seen.find((s) => s.deliveryCount > 1);
        expect(again).toBeDefined();
        return again!;
      });
      expect(retry.id).toBe(envelope.id);
      expect(retry.replica).not.toBe(victim);
    });

    it("tells a draining replica's handler to stop, and hands what it gives back to another replica", async () => {
      const probe = probeMessage('cmd', 'stopping');
      const durable = uniqueName('stopping');
      const [leaving, staying] = await ctx.replicas(2);
      const seen: SeenDelivery<ProbeData>[] = [];
      let stopped = false;
      const subscription = await leaving!.consume(
        probe,
        { durable },
        recording(seen, 'leaving', async (delivery) => {
          // A shutdown's hand-back: stop at a safe point, throw a retryable outage.
          await new Promise((resolve) => delivery.stopping.addEventListener('abort', resolve));
          stopped = true;
          throw new AppError('DEPENDENCY_UNAVAILABLE', 'this replica is shutting down', {
            retryable: true,
          });
        }),
      );
      const envelope = probe.create({ threadId: randomUUID(), n: 1 }, { source: 'suite' });
      await leaving!.publish(probe, envelope);
      await eventually(() => expect(seen).toHaveLength(1));
      await staying!.consume(probe, { durable }, recording(seen, 'staying'));

      await subscription.drain();

      expect(stopped).toBe(true);
      const taken = await eventually(() => {
        expect(seen).toHaveLength(2);
        return seen[1]!;
      });
      expect(taken).toMatchObject({ replica: 'staying', id: envelope.id });
    });

    it('creates streams idempotently: ensureStreams twice keeps what is stored', async () => {
      const probe = probeMessage('cmd', 'ensure');
      const bus = await ctx.replica('admin');
      const threadId = randomUUID();
      await bus.publish(probe, probe.create({ threadId, n: 0 }, { source: 'suite' }));

      await bus.ensureStreams(Object.values(STREAMS));
      await bus.ensureStreams(Object.values(STREAMS));
      await bus.publish(probe, probe.create({ threadId, n: 1 }, { source: 'suite' }));

      const stored = await collect(bus.replay(STREAMS.COMMANDS, { threadId }));
      expect(stored.map((m) => (m.envelope.data as ProbeData).n)).toEqual([0, 1]);
    });

    it('reports each durable backlog: what waits and what is in handlers, nothing once handled', async () => {
      const probe = probeMessage('cmd', 'backlog');
      const durable = uniqueName('backlog');
      const bus = await ctx.replica('worker');
      const held = ctx.gate();
      const started: string[] = [];
      await bus.consume(probe, { durable, concurrency: 1, ackWaitMs: 30_000 }, async (d) => {
        started.push(d.envelope.id);
        await held.wait();
      });
      for (let n = 0; n < 3; n += 1) {
        await bus.publish(probe, probe.create({ threadId: randomUUID(), n }, { source: 'suite' }));
      }
      await eventually(() => expect(started).toHaveLength(1));

      // How a store splits waiting from handed out differs (JetStream pulls ahead of the
      // handlers); every message is one or the other, and the one in its handler is handed out.
      const backlogOf = async () => (await bus.backlog()).find((b) => b.consumer === durable);
      const busy = await eventually(async () => {
        const backlog = await backlogOf();
        expect((backlog?.waiting ?? 0) + (backlog?.inHandlers ?? 0)).toBe(3);
        return backlog;
      });
      expect(busy?.inHandlers).toBeGreaterThanOrEqual(1);
      held.release();
      await eventually(async () =>
        expect(await backlogOf()).toEqual({ consumer: durable, waiting: 0, inHandlers: 0 }),
      );
      expect(started).toHaveLength(3);
    });
  });
}
