import { RunFinishedV1, type DataOf } from '@caravel/contracts';
import type { RunRow } from '@caravel/db';
import { AppError } from '@caravel/errors';
import type { Lease, LeaseStore } from '@caravel/messaging';

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
 * The ending a runner recorded for a run whose end dispatch has not recorded (the runner died
 * between the two): what a start for that run publishes again. Null for any other run.
 */
export function endingToPublishAgain(run: RunRow): DataOf<typeof RunFinishedV1> | null {
  if (run.finishedAt !== null || run.concludedAt === null) return null;
  const ending = RunFinishedV1.dataSchema.safeParse(run.conclusion);
  return ending.success ? ending.data : null;
}

/**
 * Decides what a `cmd.run.start` may do, so that a run executes once however often its start
 * arrives (republished after the bus's duplicate window, redelivered after a crash). A run that
 * has ended is not run again; a run another runner holds by a live lease is that runner's; a run
 * whose runner died (its lease expired, the run not ended) is resumed; a thread busy with another
 * run answers `LEASE_HELD` (retryable: the command comes back once that run ends).
 */
export class RunClaims {
  constructor(
    private readonly leases: LeaseStore,
    private readonly runs: RunRecords,
    private readonly runner: string,
    private readonly ttlMs: number,
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

  private async heldBy(threadId: string, runId: string): Promise<RunClaim> {
    const current = await this.leases.get(threadLeaseKey(threadId));
    // An expired lease is not a live runner: the command comes back and takes it (a resume).
    const live = current !== null && current.expiresAt > this.now();
    if (live && runOfHolder(current.holder) === runId)
      return { kind: 'held', holder: current.holder };
    throw new AppError('LEASE_HELD', `thread ${threadId} already has an active run`);
  }
}
