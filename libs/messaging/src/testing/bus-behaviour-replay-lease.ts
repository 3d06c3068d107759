import { randomUUID } from 'node:crypto';
import { STREAMS } from '@caravel/contracts';
import { describe, expect, it } from '@jest/globals';
import { collect, type BehaviourContext } from './bus-behaviour-context.js';
import { probeMessage, uniqueName, type ProbeData } from './bus-test-messages.js';
import { eventually, sleep } from './eventually.js';

const dataOf = (m: { envelope: { data: unknown } }): ProbeData => m.envelope.data as ProbeData;

/** Replay of one thread's events, and leases with compare-and-set and expiry. */
export function describeReplayAndLeaseBehaviour(ctx: BehaviourContext): void {
  describe('replay', () => {
    it("replays only one thread's events, in order, from a sequence and from a time", async () => {
      const probe = probeMessage('evt', 'replay');
      const bus = await ctx.replica('reader');
      const [mine, other] = [randomUUID(), randomUUID()];
      const publishRound = async (from: number, to: number): Promise<void> => {
        for (let n = from; n < to; n += 1) {
          await bus.publish(probe, probe.create({ threadId: mine, n }, { source: 'suite' }));
          await bus.publish(probe, probe.create({ threadId: other, n }, { source: 'suite' }));
        }
      };
      await publishRound(0, 3);
      await sleep(50);
      const midpoint = new Date();
      await sleep(50);
      await publishRound(3, 5);

      const all = await collect(bus.replay(STREAMS.EVENTS, { threadId: mine }));
      expect(all.map(dataOf).map((d) => d.n)).toEqual([0, 1, 2, 3, 4]);
      expect(all.every((m) => dataOf(m).threadId === mine)).toBe(true);
      expect(all.every((m) => m.subject.includes(mine))).toBe(true);

      const fromSequence = await collect(
        bus.replay(STREAMS.EVENTS, { threadId: mine, fromSequence: all[2]!.sequence }),
      );
      expect(fromSequence.map(dataOf).map((d) => d.n)).toEqual([2, 3, 4]);

      const fromTime = await collect(
        bus.replay(STREAMS.EVENTS, { threadId: mine, fromTime: midpoint }),
      );
      expect(fromTime.map(dataOf).map((d) => d.n)).toEqual([3, 4]);
    });
  });

  describe('leases', () => {
    it('grants a lease to exactly one of 50 concurrent claimants', async () => {
      const buses = await ctx.replicas(2);
      const key = `thread:${randomUUID()}`;
      const claims = Array.from({ length: 50 }, (_, i) =>
        buses[i % 2]!.leases.acquire(key, `runner-${i}`, 30_000),
      );

      const winners = (await Promise.all(claims)).filter((lease) => lease !== null);
      expect(winners).toHaveLength(1);
      const held = await buses[0]!.leases.get(key);
      expect(held?.holder).toBe(winners[0]!.holder);
    });

    it('refuses to renew or release with a stale revision', async () => {
      const bus = await ctx.replica('runner');
      const key = `thread:${randomUUID()}`;
      const first = await bus.leases.acquire(key, 'runner-a', 30_000);
      expect(first).not.toBeNull();

      const renewed = await bus.leases.renew(first!, 30_000);
      expect(renewed).not.toBeNull();
      expect(renewed!.revision).not.toBe(first!.revision);
      expect(await bus.leases.renew(first!, 30_000)).toBeNull();
      expect(await bus.leases.release(first!)).toBe(false);
      expect(await bus.leases.acquire(key, 'runner-b', 30_000)).toBeNull();

      expect(await bus.leases.release(renewed!)).toBe(true);
      expect(await bus.leases.get(key)).toBeNull();
      expect((await bus.leases.acquire(key, 'runner-b', 30_000))?.holder).toBe('runner-b');
    });

    it('hands the lease to another claimant once a killed holder stops renewing past its TTL', async () => {
      const [holder, claimant] = await ctx.replicas(2);
      const key = `thread:${uniqueName('lease')}`;
      expect(await holder!.leases.acquire(key, 'runner-dead', 1500)).not.toBeNull();
      await ctx.kill(holder!);

      expect(await claimant!.leases.acquire(key, 'runner-alive', 1500)).toBeNull();
      const taken = await eventually(async () => {
        const lease = await claimant!.leases.acquire(key, 'runner-alive', 30_000);
        expect(lease).not.toBeNull();
        return lease!;
      });
      expect(taken.holder).toBe('runner-alive');
      expect((await claimant!.leases.get(key))?.holder).toBe('runner-alive');
    });
  });
}
