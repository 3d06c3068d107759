import type { RunRow } from '@caravel/db';
import { AppError } from '@caravel/errors';
import type { Lease, LeaseStore } from '@caravel/messaging';

/** How long a start command may go without a sign of life before the bus delivers it again. */
export const START_ACK_WAIT_MS = 30_000;

/**
 * A dead runner's lease frees its thread this long after its last renewal: well within the start
 * command's ack wait, so the command its death sends back finds the lease expired and resumes
 * the run, while a start that finds the lease live is a duplicate of a run being worked on.
 */
export const LEASE_TTL_MS = START_ACK_WAIT_MS - 10_000;

/** What a runner reads of a run to decide whether a start command may run it. */
export interface RunRecords {
  get(runId: string): Promise<RunRow | null>;
}

/** How a start command finds its run. */
export type RunClaim =
  /** The runner holds the thread's lease: a fresh run, or one whose last runner died (resume). */
  | { kind: 'run'; lease: Lease }
  /** The run ended (dispatch recorded its end, or a runner concluded it): nothing to run. */
  | { kind: 'ended'; run: RunRow }
  /** A runner with a live lease works on this very run: it will end it, nothing to run here. */
  | { kind: 'held'; holder: string };

/** The thread's lease: one run per thread at a time. */
export function threadLeaseKey(threadId: string): string {
  return `thread.${threadId}`;
}

/** The lease holder of a runner working on a run: the run is part of it. */
export function runLeaseHolder(runner: string, runId: string): string {
  return `${runner}/run/${runId}`;
}

/** The run a lease holder works on; undefined for a holder that does not say. */
export function runOfHolder(holder: string): string | undefined {
  return /\/run\/([^/]+)$/.exec(holder)?.[1];
}

/** A run dispatch has ended, or a runner has concluded: never run again. */
export function hasEnded(run: RunRow): boolean {
  return run.finishedAt !== null || run.concludedAt !== null;
}

/**
 * Keeps one run per thread, and each run once, however often its `cmd.run.start` arrives
 * (republished after the bus's duplicate window, redelivered after a crash). {@link claim}
 * decides what a start may do: a run that has ended is not run again; a run another runner holds
 * by a live lease is that runner's; a run whose runner died (its lease expired, the run not ended)
 * is resumed; a thread busy with another run answers `LEASE_HELD` (retryable: the command comes
 * back once that run ends). {@link hold} keeps the claimed lease alive while the run works and
 * lets the thread go when it ends.
 */
export class LeaseKeeper {
  constructor(
    private readonly leases: LeaseStore,
    private readonly runs: RunRecords,
    private readonly runner: string,
    private readonly ttlMs: number = LEASE_TTL_MS,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async claim(threadId: string, runId: string): Promise<RunClaim> {
    const before = await this.runs.get(runId);
    if (before && hasEnded(before)) return { kind: 'ended', run: before };
    const key = threadLeaseKey(threadId);
    const lease = await this.leases.acquire(key, runLeaseHolder(this.runner, runId), this.ttlMs);
    if (!lease) return this.heldBy(threadId, runId);
    // A runner may have concluded the run (and let the thread go) since the first look.
    const after = await this.runs.get(runId);
    if (after && hasEnded(after)) {
      await this.leases.release(lease).catch(() => false);
      return { kind: 'ended', run: after };
    }
    return { kind: 'run', lease };
  }

  /**
   * Runs `work` under the claimed lease: renewed every quarter of its life, each time with the
   * start command's `heartbeat` (so the bus does not deliver it again meanwhile), and released
   * when the work ends, however it ends.
   */
  async hold<T>(lease: Lease, heartbeat: () => Promise<void>, work: () => Promise<T>): Promise<T> {
    const keepAlive = setInterval(() => void this.renew(lease, heartbeat), this.ttlMs / 4);
    try {
      return await work();
    } finally {
      clearInterval(keepAlive);
      await this.leases.release(lease).catch(() => false);
    }
  }

  private async heldBy(threadId: string, runId: string): Promise<RunClaim> {
    const current = await this.leases.get(threadLeaseKey(threadId));
    // An expired lease is not a live runner: the command comes back and takes it (a resume).
    const live = current !== null && current.expiresAt > this.now();
    if (live && runOfHolder(current.holder) === runId)
      return { kind: 'held', holder: current.holder };
    throw new AppError('LEASE_HELD', `thread ${threadId} already has an active run`);
  }

  private async renew(lease: Lease, heartbeat: () => Promise<void>): Promise<void> {
    await heartbeat().catch(() => undefined);
    const renewed = await this.leases.renew(lease, this.ttlMs).catch(() => null);
    if (renewed) Object.assign(lease, renewed);
  }
}
