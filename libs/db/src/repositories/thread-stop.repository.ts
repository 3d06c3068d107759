import type { Selectable } from 'kysely';
import type { ThreadStop } from '../generated/types.js';
import type { Executor } from './executor.js';
import { rowOf, type RowOf } from './row-of.js';

/** The latest stop a person asked of a thread (`thread_stops`). */
export type ThreadStopRow = RowOf<ThreadStop>;

const toRow: (row: Selectable<ThreadStop>) => ThreadStopRow = rowOf<ThreadStop>;

/**
 * The latest stop of each thread. The stop consumer and the trigger consumer are separate
 * durables, so a stop can be handled before a trigger that was received first; the trigger asks
 * here whether a stop came after it. A stop recorded again, or an older one handled late, keeps
 * the latest.
 */
export class ThreadStopRepository {
  constructor(private readonly db: Executor) {}

  /** Records a stop of the thread asked at `at` by `by`, unless a later one is recorded. */
  async record(stop: { threadId: string; at: Date; by: string }): Promise<void> {
    await this.db
      .insertInto('thread_stops')
      .values({ thread_id: stop.threadId, requested_at: stop.at, requested_by: stop.by })
      .onConflict((conflict) =>
        conflict
          .column('thread_id')
          .doUpdateSet((eb) => ({
            requested_at: eb.ref('excluded.requested_at'),
            requested_by: eb.ref('excluded.requested_by'),
          }))
          .where('thread_stops.requested_at', '<', (eb) => eb.ref('excluded.requested_at')),
      )
      .execute();
  }

  /** The thread's latest stop when it was asked at or after `at`; null otherwise. */
  async since(threadId: string, at: Date): Promise<ThreadStopRow | null> {
    const row = await this.db
      .selectFrom('thread_stops')
      .selectAll()
      .where('thread_id', '=', threadId)
      .where('requested_at', '>=', at)
      .executeTakeFirst();
    return row ? toRow(row) : null;
  }
}
