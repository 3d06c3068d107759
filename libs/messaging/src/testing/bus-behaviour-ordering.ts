import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { AppError } from '@caravel/errors';
import type { Delivery } from '../bus.port.js';
import type { BehaviourContext } from './bus-behaviour-context.js';
import {
  probeFamily,
  probeMessage,
  threadsInDifferentPartitions,
  threadsInSamePartition,
  uniqueName,
  type ProbeData,
  type ProbeDefinition,
} from './bus-test-messages.js';
import { eventually, sleep, type Gate } from './eventually.js';

interface ThreadLog {
  order: number[];
  inFlight: number;
  maxInFlight: number;
}

/** Per-thread ordering across replicas, with parallelism across partitions. */
export function describeOrderingBehaviour(ctx: BehaviourContext): void {
  describe('ordering', () => {
    it('handles one thread in publish order across two replicas while another partition runs in parallel', async () => {
      const probe = probeMessage('cmd', 'ordered');
      const durable = uniqueName('ordered');
      const [threadA, threadB] = threadsInDifferentPartitions();
      const perThread = 6;
      const logs = new Map<string, ThreadLog>([
        [threadA, { order: [], inFlight: 0, maxInFlight: 0 }],
        [threadB, { order: [], inFlight: 0, maxInFlight: 0 }],
      ]);
      const started = new Map<string, Gate>([
        [threadA, ctx.gate()],
        [threadB, ctx.gate()],
      ]);
      const overlaps: boolean[] = [];

      const handler = async (delivery: Delivery<ProbeData>): Promise<void> => {
        const { threadId, n } = delivery.envelope.data;
        const log = logs.get(threadId)!;
        log.inFlight += 1;
        log.maxInFlight = Math.max(log.maxInFlight, log.inFlight);
        if (n === 0) {
          // Each thread's first command waits for the other thread's: only parallel partitions meet.
          started.get(threadId)!.release();
          const other = threadId === threadA ? threadB : threadA;
          overlaps.push(await started.get(other)!.wait(15_000));
        }
        // Later commands finish sooner: without ordering they would overtake earlier ones.
        await sleep((perThread - n) * 25);
        log.order.push(n);
        log.inFlight -= 1;
      };
      const buses = await ctx.replicas(2);
      for (const bus of buses)
        await bus.consume(probe, { durable, ordered: true, concurrency: 4 }, handler);

      for (let n = 0; n < perThread; n += 1) {
        for (const threadId of [threadA, threadB]) {
          await buses[n % 2]!.publish(probe, probe.create({ threadId, n }, { source: 'suite' }));
        }
      }

      const expected = Array.from({ length: perThread }, (_, n) => n);
      await eventually(() => {
        expect(logs.get(threadA)!.order).toEqual(expected);
        expect(logs.get(threadB)!.order).toEqual(expected);
      });
      expect(logs.get(threadA)!.maxInFlight).toBe(1);
      expect(logs.get(threadB)!.maxInFlight).toBe(1);
      expect(overlaps).toEqual([true, true]);
    });

    it("handles a family's members in one thread's publish order through one durable, and dead-letters a non-member", async () => {
      const { family, members, outsider } = probeFamily('family', ['slow', 'quick']);
      const [slow, quick] = members as [ProbeDefinition, ProbeDefinition];
      const durable = uniqueName('family');
      const thread = randomUUID();
      const order: string[] = [];
      let inFlight = 0;
      let maxInFlight = 0;
      const handler = async (delivery: Delivery<ProbeData>): Promise<void> => {
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        // The slow member's messages take longer: through a durable each, quick ones overtook them.
        await sleep(delivery.envelope.type === slow.type ? 150 : 0);
        order.push(`${delivery.envelope.type.split('.').at(-1)} ${delivery.envelope.data.n}`);
        inFlight -= 1;
      };
      const buses = await ctx.replicas(2);
      for (const bus of buses) await bus.consume(family, { durable, ordered: true }, handler);

      const sequence = [slow, quick, slow, outsider, quick, slow, quick];
      for (const [n, definition] of sequence.entries()) {
        await buses[n % 2]!.publish(
          definition,
          definition.create({ threadId: thread, n }, { source: 'suite' }),
        );
      }

      await eventually(() => expect(order).toHaveLength(6));
      expect(order).toEqual(['slow 0', 'quick 1', 'slow 2', 'quick 4', 'slow 5', 'quick 6']);
      expect(maxInFlight).toBe(1);
      await eventually(async () => {
        const letters = await buses[0]!.deadLetters({ consumer: durable });
        expect(letters.map((letter) => letter.reason)).toEqual([
          expect.stringContaining(`${outsider.type} v1 is not a member of ${family.type}`),
        ]);
      });
    });

    it('lets the other threads of a partition go on while one thread keeps failing, keeps that thread in order and dead-letters its message once', async () => {
      const probe = probeMessage('cmd', 'head-of-line');
      const durable = uniqueName('headofline');
      const [failing, healthy] = threadsInSamePartition();
      const maxDeliver = 4;
      const events: string[] = [];
      const healthyDone = ctx.gate();
      const overtaken: boolean[] = [];

      const handler = async (delivery: Delivery<ProbeData>): Promise<void> => {
        const { threadId, n } = delivery.envelope.data;
        if (threadId === healthy) {
          events.push(`healthy ${n}`);
          if (n === 2) healthyDone.release();
          return;
        }
        if (n > 0) {
          events.push(`failing ${n}`);
          return;
        }
        events.push(`failing 0 attempt ${delivery.deliveryCount}`);
        // The second attempt waits for the healthy thread: with head-of-line blocking the
        // healthy thread's messages could not be handled while this one holds the partition.
        if (delivery.deliveryCount === 2) overtaken.push(await healthyDone.wait(20_000));
        throw new AppError('TIMEOUT', 'the thread store did not answer in time');
      };
      const buses = await ctx.replicas(2);
      for (const bus of buses) {
        await bus.consume(
          probe,
          { durable, ordered: true, maxDeliver, backoffMs: [200], ackWaitMs: 30_000 },
          handler,
        );
      }

      const publish = (threadId: string, n: number) =>
        buses[0]!.publish(probe, probe.create({ threadId, n }, { source: 'suite' }));
      const poison = await publish(failing, 0);
      await publish(healthy, 0);
      await publish(failing, 1);
      await publish(healthy, 1);
      await publish(healthy, 2);
      await publish(failing, 2);

      await eventually(() => expect(events).toContain('failing 2'), { timeoutMs: 40_000 });
      expect(overtaken).toEqual([true]);
      const attempts = Array.from({ length: maxDeliver }, (_, i) => `failing 0 attempt ${i + 1}`);
      expect(events.filter((event) => event.startsWith('failing'))).toEqual([
        ...attempts,
        'failing 1',
        'failing 2',
      ]);
      expect(events.filter((event) => event.startsWith('healthy'))).toEqual([
        'healthy 0',
        'healthy 1',
        'healthy 2',
      ]);
      const letters = await buses[1]!.deadLetters({ consumer: durable });
      expect(letters).toHaveLength(1);
      expect(letters[0]).toMatchObject({
        consumer: durable,
        sequence: poison.sequence,
        deliveries: maxDeliver,
      });
      expect(letters[0]!.reason).toContain(`max deliveries reached (${maxDeliver}/${maxDeliver})`);
    });

    it('gets an ordered thread past a message whose handler never settles: dead-lettered once, then the next one runs', async () => {
      const probe = probeMessage('cmd', 'ordered-hung');
      const durable = uniqueName('orderedhung');
      const [hung, neighbour] = threadsInSamePartition();
      const stuck = ctx.gate();
      const events: string[] = [];
      const bus = await ctx.replica('worker');
      await bus.consume(
        probe,
        { durable, ordered: true, maxDeliver: 2, ackWaitMs: 1000 },
        async (delivery) => {
          const { threadId, n } = delivery.envelope.data;
          const label = threadId === hung ? 'hung' : 'neighbour';
          events.push(`${label} ${n} attempt ${delivery.deliveryCount}`);
          if (threadId === hung && n === 0) await stuck.wait();
        },
      );

      const publish = (threadId: string, n: number) =>
        bus.publish(probe, probe.create({ threadId, n }, { source: 'suite' }));
      const first = await publish(hung, 0);
      await publish(hung, 1);
      await publish(neighbour, 0);

      await eventually(() => expect(events).toContain('hung 1 attempt 1'), { timeoutMs: 30_000 });
      expect(events.filter((event) => event.startsWith('hung'))).toEqual([
        'hung 0 attempt 1',
        'hung 0 attempt 2',
        'hung 1 attempt 1',
      ]);
      expect(events).toContain('neighbour 0 attempt 1');
      const letters = await bus.deadLetters({ consumer: durable });
      expect(letters).toHaveLength(1);
      expect(letters[0]).toMatchObject({ sequence: first.sequence, deliveries: 2 });
      expect(letters[0]!.reason).toMatch(/never settled/);
    });
  });
}
