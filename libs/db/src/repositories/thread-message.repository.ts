import type { Expression, ExpressionBuilder, Selectable, SqlBool } from 'kysely';
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

function oldestFirst(a: ThreadMessageRow, b: ThreadMessageRow): number {
  return a.receivedAt.getTime() - b.receivedAt.getTime() || a.id.localeCompare(b.id);
}

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
        received_at: timeOr(message.receivedAt),
      })
      .onConflict((conflict) => conflict.column('id').doNothing())
      .returning('id')
      .executeTakeFirst();
    return inserted !== undefined;
  }

  /**
   * Marks the thread's waiting follow-ups (of the given kinds, default all) as taken by `runId`;
   * returns them oldest first. Only a running agent takes commands: they run between its steps.
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
      .where('consumed_at', 'is', null)
      .where('kind', 'in', [...kinds])
      .returningAll()
      .execute();
    return rows.map(toRow).sort(oldestFirst);
  }

  /** The thread's follow-ups (of the given kinds, default all) no run has taken yet, oldest first. */
  async waiting(
    threadId: string,
    kinds: readonly FollowUpKind[] = ['message', 'command'],
    executor: Executor = this.db,
  ): Promise<ThreadMessageRow[]> {
    return this.oldestFirst(executor, threadId, (eb) =>
      eb.and([eb('consumed_at', 'is', null), eb('kind', 'in', [...kinds])]),
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
      .where('delivery', '=', 'interrupt')
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }
}
