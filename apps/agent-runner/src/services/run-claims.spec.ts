import type { RunRow } from '@caravel/db';
import type { Lease, LeaseStore } from '@caravel/messaging';
import { RunFinishedV1 } from '@caravel/contracts';
import { endingToPublishAgain, RunClaims, runLeaseHolder, runOfHolder } from './run-claims.js';

const NOW = new Date('2026-12-01T12:00:00Z');
const later = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);
const THREAD = 't-1';
const RUN = 'r-1';

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
 * A lease store whose thread lease is `current` (null: free) and a run that reads as `records`
 * in turn (the last one repeats). Taking a free lease succeeds; a held one is refused.
 */
function claims(current: Lease | null, ...records: (RunRow | null)[]) {
  const released: Lease[] = [];
  const leases: LeaseStore = {
    acquire: (key, holder) =>
      Promise.resolve(current ? null : { key, holder, revision: 1, expiresAt: later(20) }),
    get: () => Promise.resolve(current),
    release: (held) => {
      released.push(held);
      return Promise.resolve(true);
    },
    renew: () => Promise.reject(new Error('unexpected call: renew')),
  };
  const reads = [...records];
  const runs = { get: () => Promise.resolve(reads.length > 1 ? reads.shift()! : reads[0]!) };
  return { claims: new RunClaims(leases, runs, 'runner-b', 20_000, () => NOW), released };
}

describe('RunClaims', () => {
  it('takes the thread for a run that has not ended, naming the run in the lease', async () => {
    const { claims: c } = claims(null, run({ status: 'queued', startedAt: null }));
    const claim = await c.claim(THREAD, RUN);
    expect(claim.kind).toBe('run');
    expect(claim.kind === 'run' && runOfHolder(claim.lease.holder)).toBe(RUN);
  });

  it('runs nothing for a run that dispatch ended or a runner concluded, even with the thread free', async () => {
    const finished = run({ status: 'completed', finishedAt: NOW });
    const concluded = run({ concludedAt: NOW, conclusion: { outcome: 'completed' } });
    expect((await claims(null, finished).claims.claim(THREAD, RUN)).kind).toBe('ended');
    expect((await claims(null, concluded).claims.claim(THREAD, RUN)).kind).toBe('ended');
  });

  it('lets the thread go again when the run was concluded while the lease was being taken', async () => {
    const { claims: c, released } = claims(null, run(), run({ concludedAt: NOW }));
    expect((await c.claim(THREAD, RUN)).kind).toBe('ended');
    expect(released).toHaveLength(1);
  });

  it('leaves a run that a live runner holds to that runner', async () => {
    const holder = runLeaseHolder('runner-a', RUN);
    const claim = await claims(lease(holder, later(5)), run()).claims.claim(THREAD, RUN);
    expect(claim).toEqual({ kind: 'held', holder });
  });

  it('sends the command back while the thread works on another run, or its runner just died', async () => {
    const otherRun = claims(lease(runLeaseHolder('runner-a', 'r-0'), later(5)), run());
    await expect(otherRun.claims.claim(THREAD, RUN)).rejects.toMatchObject({
      code: 'LEASE_HELD',
      retryable: true,
    });
    // Seen expired between the failed take and the read: the next delivery resumes the run.
    const expired = claims(lease(runLeaseHolder('runner-a', RUN), later(-1)), run());
    await expect(expired.claims.claim(THREAD, RUN)).rejects.toMatchObject({ code: 'LEASE_HELD' });
  });

  it('proceeds without a record of the run (nothing says it ended)', async () => {
    expect((await claims(null, null).claims.claim(THREAD, RUN)).kind).toBe('run');
  });

  it("publishes again the ending a runner recorded, only while dispatch has not recorded the run's end", () => {
    const ending = RunFinishedV1.fixture().data;
    expect(endingToPublishAgain(run({ concludedAt: NOW, conclusion: ending }))).toEqual(ending);
    expect(
      endingToPublishAgain(run({ concludedAt: NOW, conclusion: ending, finishedAt: NOW })),
    ).toBeNull();
    expect(endingToPublishAgain(run({ concludedAt: NOW, conclusion: { runId: 7 } }))).toBeNull();
    expect(endingToPublishAgain(run())).toBeNull();
  });
});
