import {
  sql,
  type Expression,
  type ExpressionBuilder,
  type RawBuilder,
  type Selectable,
  type SqlBool,
} from 'kysely';
import type { DB, ThreadMessage } from '../generated/types.js';
import { timeOr, type Executor } from './executor.js';
import { rowOf, type RowOf } from './row-of.js';
import type { FollowUpDelivery, FollowUpKind } from './states.js';

/** A follow-up message waiting for (or taken by) a thread's run (`thread_messages`). */
export type ThreadMessageRow = RowOf<ThreadMessage>;

export interface NewThreadMessage {
  /** The trigger's envelope id, so a redelivered trigger is queued once. */
  id: string;
  threadId: string;
  author: string;
  text: string;
  trusted: boolean;
  /** Default `inject`. */
  delivery?: FollowUpDelivery;
  /** Default `message`. */
  kind?: FollowUpKind;
  receivedAt?: Date;
}

const toRow: (row: Selectable<ThreadMessage>) => ThreadMessageRow = rowOf<ThreadMessage>;

/**
 * When a follow-up queued now is received: now, or a millisecond after the thread's latest,
 * whichever is later. Follow-ups are read oldest first, and two queued within one tick of the
 * clock (PGlite's is coarse) tied, to be ordered by their random ids; a millisecond apart they
 * keep the order they came in, also where rows are sorted as `Date`s (millisecond precision).
 */
function afterLatest(threadId: string): RawBuilder<Date> {
  return sql<Date>`greatest(now(), (select max(received_at) + interval '1 millisecond' from thread_messages where thread_id = ${threadId}))`;
}

function oldestFirst(a: ThreadMessageRow, b: ThreadMessageRow): number {
  return a.receivedAt.getTime() - b.receivedAt.getTime() || a.id.localeCompare(b.id);
}

/** A follow-up a running agent claimed; `fresh` when this claim took it from the waiting ones. */
export type ClaimedThreadMessage = ThreadMessageRow & { fresh: boolean };

/** Follow-ups per thread: queued once, each taken by exactly one run. */
export class ThreadMessageRepository {
  constructor(private readonly db: Executor) {}

  /** Queues a follow-up; false when that message was queued before. */
  async enqueue(message: NewThreadMessage, executor: Executor = this.db): Promise<boolean> {
    const inserted = await executor
      .insertInto('thread_messages')
      .values({
        id: message.id,
        thread_id: message.threadId,
        author: message.author,
        text: message.text,
        trusted: message.trusted,
        delivery: message.delivery ?? 'inject',
        kind: message.kind ?? 'message',
        received_at: message.receivedAt ?? afterLatest(message.threadId),
      })
      .onConflict((conflict) => conflict.column('id').doNothing())
      .returning('id')
      .executeTakeFirst();
    return inserted !== undefined;
  }

  /**
   * Takes the thread's waiting follow-ups (of the given kinds, default all) for good for `runId`,
   * with those `runId` claimed and has not settled, oldest first: the follow-ups a new run is
   * started for (they are its prompt), or those a stop drops (the stopped run's own claims
   * included, so its settle cannot put them back to start another run). A running agent
   * {@link claim}s instead.
   */
  async take(
    threadId: string,
    runId: string,
    kinds: readonly FollowUpKind[] = ['message', 'command'],
    executor: Executor = this.db,
  ): Promise<ThreadMessageRow[]> {
    const rows = await executor
      .updateTable('thread_messages')
      .set({ consumed_by_run: runId, consumed_at: timeOr(undefined) })
      .where('thread_id', '=', threadId)
      .where((eb) => eb.or([eb('consumed_by_run', 'is', null), eb('consumed_by_run', '=', runId)]))
      .where('consumed_at', 'is', null)
      .where('kind', 'in', [...kinds])
      .returningAll()
      .execute();
    return rows.map(toRow).sort(oldestFirst);
  }

  /**
   * A running agent's read of its queue: claims the thread's waiting follow-ups (of the given
   * kinds) for `runId` and returns them, with those the run claimed before and has not settled,
   * oldest first (`fresh` tells which were claimed now). A claimed follow-up is the run's until
   * {@link settle}: one whose checkpoint was never written (the runner died, the model call
   * failed) is handed to the run again rather than lost.
   */
  async claim(
    threadId: string,
    runId: string,
    kinds: readonly FollowUpKind[] = ['message', 'command'],
    executor: Executor = this.db,
  ): Promise<ClaimedThreadMessage[]> {
    // The outer select reads the table as it was before the update: what this call claims comes
    // from `fresh` only, what the run claimed before from the table.
    const rows = await executor
      .with('fresh', (db) =>
        db
          .updateTable('thread_messages')
          .set({ consumed_by_run: runId })
          .where('thread_id', '=', threadId)
          .where('consumed_by_run', 'is', null)
          .where('consumed_at', 'is', null)
          .where('kind', 'in', [...kinds])
          .returningAll(),
      )
      .selectFrom('fresh')
      .selectAll()
      .select(sql<boolean>`true`.as('fresh'))
      .unionAll((db) =>
        db
          .selectFrom('thread_messages')
          .selectAll()
          .select(sql<boolean>`false`.as('fresh'))
          .where('thread_id', '=', threadId)
          .where('consumed_by_run', '=', runId)
          .where('consumed_at', 'is', null)
          .where('kind', 'in', [...kinds]),
      )
      .execute();
    return rows.map(({ fresh, ...row }) => ({ ...toRow(row), fresh })).sort(oldestFirst);
  }

  /**
   * Settles what `runId` claimed: the follow-ups in `held` (a checkpoint holds them) and every
   * command are taken for good, the other messages go back to waiting for the thread's next run.
   * Returns how many went back.
   */
  async settle(
    threadId: string,
    runId: string,
    held: readonly string[],
    executor: Executor = this.db,
  ): Promise<number> {
    const claimed = (db: Executor) =>
      db
        .updateTable('thread_messages')
        .where('thread_id', '=', threadId)
        .where('consumed_by_run', '=', runId)
        .where('consumed_at', 'is', null);
    // A person's command is never put back: a claimed one ran (or may have), and must not run twice.
    await claimed(executor)
      .set({ consumed_at: timeOr(undefined) })
      .where((eb) =>
        held.length > 0
          ? eb.or([eb('id', 'in', [...held]), eb('kind', '=', 'command')])
          : eb('kind', '=', 'command'),
      )
      .execute();
    const released = await claimed(executor).set({ consumed_by_run: null }).executeTakeFirst();
    return Number(released.numUpdatedRows);
  }

  /** The thread's follow-ups (of the given kinds, default all) no run has taken yet, oldest first. */
  async waiting(
    threadId: string,
    kinds: readonly FollowUpKind[] = ['message', 'command'],
    executor: Executor = this.db,
  ): Promise<ThreadMessageRow[]> {
    return this.oldestFirst(executor, threadId, (eb) =>
      eb.and([
        eb('consumed_at', 'is', null),
        eb('consumed_by_run', 'is', null),
        eb('kind', 'in', [...kinds]),
      ]),
    );
  }

  /** The follow-ups `runId` took, oldest first (a run of follow-ups: what its prompt is made of). */
  async takenBy(
    threadId: string,
    runId: string,
    executor: Executor = this.db,
  ): Promise<ThreadMessageRow[]> {
    return this.oldestFirst(executor, threadId, (eb) => eb('consumed_by_run', '=', runId));
  }

  /** The thread's follow-ups that `narrow` keeps, oldest first. */
  private async oldestFirst(
    executor: Executor,
    threadId: string,
    narrow: (eb: ExpressionBuilder<DB, 'thread_messages'>) => Expression<SqlBool>,
  ): Promise<ThreadMessageRow[]> {
    const rows = await executor
      .selectFrom('thread_messages')
      .selectAll()
      .where('thread_id', '=', threadId)
      .where(narrow)
      .orderBy('received_at', 'asc')
      .orderBy('id', 'asc')
      .execute();
    return rows.map(toRow);
  }

  /** Whether a follow-up that asks to interrupt the thread's run is waiting. */
  async interruptWaiting(threadId: string, executor: Executor = this.db): Promise<boolean> {
    const row = await executor
      .selectFrom('thread_messages')
      .select('id')
      .where('thread_id', '=', threadId)
      .where('consumed_at', 'is', null)
      .where('consumed_by_run', 'is', null)
      .where('delivery', '=', 'interrupt')
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }
}
