import type { RunQueueEntry } from '../generated/types.js';
import type { RowOf } from './row-of.js';

// The queue's row and snapshot shapes, apart from the repository so that the fair order
// (run-queue-order.ts), which the repository uses for positions, reads them without a cycle.

/**
 * A run in the dispatch queue (`run_queue`): waiting while `admittedAt` is null, then admitted
 * (its run `queued`), then its start published. Fair share counts by `repositoryKey` (`owner/name`)
 * and `userKey`; `command` is the run's `cmd.run.start` data.
 */
export type RunQueueRow = RowOf<RunQueueEntry>;

export interface NewRunQueueEntry {
  runId: string;
  threadId: string;
  repositoryKey: string;
  userKey: string;
  command: unknown;
  enqueuedAt?: Date;
}

/** An admitted run that has not finished yet, by its fair-share keys. */
export interface ActiveQueueRun {
  runId: string;
  repositoryKey: string;
  userKey: string;
}

/** When a fair-share key last had a run admitted. */
export interface KeyLastAdmitted {
  key: string;
  at: Date;
}

/** Everything an admission decision reads, taken under the admission lock. */
export interface QueueSnapshot {
  /** Runs waiting for room, oldest first. */
  waiting: RunQueueRow[];
  active: ActiveQueueRun[];
  repositoriesLastAdmitted: KeyLastAdmitted[];
  usersLastAdmitted: KeyLastAdmitted[];
}
