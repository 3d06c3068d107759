import type { RunRow } from '@caravel/db';

/** How long a run may go without a sign of life. */
export interface StaleLimits {
  pendingMs: number;
  heartbeatMs: number;
}

/** Why the sweep fails a run, as it ends it. */
export interface StaleVerdict {
  exitStatus: 'exit_not_started' | 'exit_no_heartbeat';
  summary: string;
}

/** The cut-off times the database is asked for candidates with. */
export function staleCutoffs(
  now: Date,
  limits: StaleLimits,
): { pendingBefore: Date; runningBefore: Date } {
  return {
    pendingBefore: new Date(now.getTime() - limits.pendingMs),
    runningBefore: new Date(now.getTime() - limits.heartbeatMs),
  };
}

/**
 * Whether the sweep ends a run: an admitted run no runner started within the pending limit, or a
 * running one silent past the heartbeat limit, unless a runner still holds its thread's lease (a
 * long model call or command renews the lease without emitting steps).
 */
export function staleVerdict(
  run: RunRow,
  now: Date,
  limits: StaleLimits,
  threadLeaseLive: boolean,
): StaleVerdict | null {
  if (threadLeaseLive) return null;
  const lastSeen = (run.heartbeatAt ?? run.startedAt ?? run.createdAt).getTime();
  const silentMs = now.getTime() - lastSeen;
  const minutes = Math.round(silentMs / 60_000);
  switch (run.status) {
    case 'queued':
      if (silentMs <= limits.pendingMs) return null;
      return {
        exitStatus: 'exit_not_started',
        summary: `No runner started this run within ${minutes} minutes.`,
      };
    case 'running':
      if (silentMs <= limits.heartbeatMs) return null;
      return {
        exitStatus: 'exit_no_heartbeat',
        summary: `The runner stopped reporting ${minutes} minutes ago and holds no lease on the thread.`,
      };
    case 'waiting': // in the queue: no runner was asked yet
    case 'merged':
    case 'completed':
    case 'failed':
    case 'interrupted':
      return null;
  }
}
