import { describe, expect, it } from '@jest/globals';
import type { Delivery } from '../bus.port.js';
import type { BehaviourContext } from './bus-behaviour-context.js';
import {
  probeMessage,
  threadsInDifferentPartitions,
  uniqueName,
  type ProbeData,
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
  });
}
