import { jest } from '@jest/globals';
import type { RunRow } from '@caravel/db';
import type { Lease, LeaseStore } from '@caravel/messaging';
import { strictMock } from '@caravel/testing/doubles';
import { LeaseKeeper, runLeaseHolder, runOfHolder } from './lease-keeper.js';

const NOW = new Date('2026-12-01T12:00:00Z');
const later = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);
const THREAD = 't-1';
const RUN = 'r-1';
const TTL_MS = 20_000;

function run(overrides: Partial<RunRow> = {}): RunRow {
  return {
    id: RUN,
    threadId: THREAD,
    triggerId: 'g-1',
    status: 'running',
    exitStatus: null,
    summary: '',
    runner: 'runner-a',
    createdAt: NOW,
    startedAt: NOW,
    finishedAt: null,
    heartbeatAt: NOW,
    concludedAt: null,
    conclusion: null,
    ...overrides,
  };
}

const lease = (holder: string, expiresAt: Date): Lease => ({
  key: `thread.${THREAD}`,
  holder,
  revision: 1,
  expiresAt,
});

/**
 * A keeper on a lease store whose thread lease is `current` (null: free) and a run that reads as
 * `records` in turn (the last one repeats). Taking a free lease succeeds; a held one is refused.
 * Renewing is not stubbed: only the tests of `hold` expect it.
 */
function keeperWith(current: Lease | null, ...records: (RunRow | null)[]) {
  const released: Lease[] = [];
  const leases = strictMock<LeaseStore>(
    {
      acquire: (key, holder) =>
        Promise.resolve(current ? null : { key, holder, revision: 1, expiresAt: later(20) }),
      get: () => Promise.resolve(current),
      release: (held) => {
        released.push(held);
        return Promise.resolve(true);
      },
    },
    'leases',
  );
  const reads = [...records];
  const runs = { get: () => Promise.resolve(reads.length > 1 ? reads.shift()! : reads[0]!) };
  return { keeper: new LeaseKeeper(leases, runs, 'runner-b', TTL_MS, () => NOW), leases, released };
}

describe('LeaseKeeper', () => {
  describe('claim', () => {
    it('takes the thread for a run that has not ended, naming the run in the lease', async () => {
      const { keeper } = keeperWith(null, run({ status: 'queued', startedAt: null }));
      const claim = await keeper.claim(THREAD, RUN);
      expect(claim.kind).toBe('run');
      expect(claim.kind === 'run' && runOfHolder(claim.lease.holder)).toBe(RUN);
    });

    it('runs nothing for a run that dispatch ended or a runner concluded, even with the thread free', async () => {
      const finished = run({ status: 'completed', finishedAt: NOW });
      const concluded = run({ concludedAt: NOW, conclusion: { outcome: 'completed' } });
      expect((await keeperWith(null, finished).keeper.claim(THREAD, RUN)).kind).toBe('ended');
      expect((await keeperWith(null, concluded).keeper.claim(THREAD, RUN)).kind).toBe('ended');
    });

    it('lets the thread go again when the run was concluded while the lease was being taken', async () => {
      const { keeper, released } = keeperWith(null, run(), run({ concludedAt: NOW }));
      expect((await keeper.claim(THREAD, RUN)).kind).toBe('ended');
      expect(released).toHaveLength(1);
    });

    it('leaves a run that a live runner holds to that runner', async () => {
      const holder = runLeaseHolder('runner-a', RUN);
      const claim = await keeperWith(lease(holder, later(5)), run()).keeper.claim(THREAD, RUN);
      expect(claim).toEqual({ kind: 'held', holder });
    });

    it('sends the command back while the thread works on another run, or its runner just died', async () => {
      const otherRun = keeperWith(lease(runLeaseHolder('runner-a', 'r-0'), later(5)), run());
      await expect(otherRun.keeper.claim(THREAD, RUN)).rejects.toMatchObject({
        code: 'LEASE_HELD',
        retryable: true,
      });
      // Seen expired between the failed take and the read: the next delivery resumes the run.
      const expired = keeperWith(lease(runLeaseHolder('runner-a', RUN), later(-1)), run());
      await expect(expired.keeper.claim(THREAD, RUN)).rejects.toMatchObject({
        code: 'LEASE_HELD',
      });
    });

    it('proceeds without a record of the run (nothing says it ended)', async () => {
      expect((await keeperWith(null, null).keeper.claim(THREAD, RUN)).kind).toBe('run');
    });
  });

  describe('hold', () => {
    beforeEach(() => jest.useFakeTimers({ now: NOW }));
    afterEach(() => jest.useRealTimers());

    it('renews the lease with a heartbeat every quarter of its life until the work ends, then releases it', async () => {
      const { keeper, leases, released } = keeperWith(null, run());
      const held = lease(runLeaseHolder('runner-b', RUN), later(20));
      const renewals: number[] = [];
      leases.renew = (current, ttlMs) => {
        renewals.push(ttlMs);
        return Promise.resolve({ ...current, revision: current.revision + 1 });
      };
      let beats = 0;
      let finish!: (value: string) => void;
      const holding = keeper.hold(
        held,
        () => Promise.resolve(void beats++),
        () => new Promise<string>((resolve) => (finish = resolve)),
      );

      await jest.advanceTimersByTimeAsync(TTL_MS / 2);
      expect({ beats, renewals, revision: held.revision }).toEqual({
        beats: 2,
        renewals: [TTL_MS, TTL_MS],
        revision: 3,
      });
      expect(released).toEqual([]);

      finish('done');
      await expect(holding).resolves.toBe('done');
      expect(released).toEqual([held]);
      await jest.advanceTimersByTimeAsync(TTL_MS);
      expect(beats).toBe(2);
    });

    it('releases the thread when the work fails, and keeps renewing through failed heartbeats and renewals', async () => {
      const { keeper, leases, released } = keeperWith(null, run());
      const held = lease(runLeaseHolder('runner-b', RUN), later(20));
      let renewals = 0;
      leases.renew = () => Promise.reject(new Error(`renewal ${++renewals} lost`));
      let fail!: (error: Error) => void;
      const holding = keeper.hold(
        held,
        () => Promise.reject(new Error('no bus')),
        () => new Promise<never>((_resolve, reject) => (fail = reject)),
      );

      await jest.advanceTimersByTimeAsync(TTL_MS / 2);
      expect(renewals).toBe(2);
      fail(new Error('the run broke'));
      await expect(holding).rejects.toThrow('the run broke');
      expect(released).toEqual([held]);
    });
  });
});
