import type { RunRow } from '@caravel/db';
import { factory } from '@caravel/db/testing';
import { staleCutoffs, staleVerdict } from './reconcile-policy.js';

const NOW = new Date('2026-11-30T12:00:00Z');
const minutesAgo = (m: number) => new Date(NOW.getTime() - m * 60_000);
const limits = { pendingMs: 30 * 60_000, heartbeatMs: 10 * 60_000 };

/** A run on runner-1, started 100 minutes ago and silent since. */
function run(overrides: Partial<RunRow>): RunRow {
  return factory.run({
    status: 'running',
    runner: 'runner-1',
    createdAt: minutesAgo(120),
    startedAt: minutesAgo(100),
    ...overrides,
  });
}

describe('reconcile policy', () => {
  it('asks the database for runs silent past each limit', () => {
    expect(staleCutoffs(NOW, limits)).toEqual({
      pendingBefore: minutesAgo(30),
      runningBefore: minutesAgo(10),
    });
  });

  it('fails a running run silent past the heartbeat limit whose thread lease is gone', () => {
    const silent = run({ heartbeatAt: minutesAgo(11) });
    expect(staleVerdict(silent, NOW, limits, false)).toEqual({
      exitStatus: 'exit_no_heartbeat',
      summary: expect.stringContaining('11 minutes') as string,
    });
  });

  it('keeps a quiet run whose runner still renews the thread lease, and a recent one', () => {
    expect(staleVerdict(run({ heartbeatAt: minutesAgo(60) }), NOW, limits, true)).toBeNull();
    expect(staleVerdict(run({ heartbeatAt: minutesAgo(9) }), NOW, limits, false)).toBeNull();
  });

  it('fails an admitted run no runner started within the pending limit, not before', () => {
    const pending = run({ status: 'queued', startedAt: null, heartbeatAt: minutesAgo(31) });
    expect(staleVerdict(pending, NOW, limits, false)?.exitStatus).toBe('exit_not_started');
    expect(
      staleVerdict({ ...pending, heartbeatAt: minutesAgo(29) }, NOW, limits, false),
    ).toBeNull();
  });

  it('never fails a run waiting in the queue or one that ended', () => {
    expect(staleVerdict(run({ status: 'waiting' }), NOW, limits, false)).toBeNull();
    expect(staleVerdict(run({ status: 'completed' }), NOW, limits, false)).toBeNull();
  });
});
