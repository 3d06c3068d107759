import { sql, type Selectable } from 'kysely';
import type { ThreadWakeup } from '../generated/types.js';
import { timeOr, type Executor } from './executor.js';
import { rowOf, type RowOf } from './row-of.js';

/** A scheduled wakeup of a thread (`thread_wakeups`). */
export type ThreadWakeupRow = RowOf<ThreadWakeup>;

export interface NewThreadWakeup {
  id: string;
  threadId: string;
  runId?: string | null;
  prompt: string;
  dueAt: Date;
  createdAt?: Date;
}

/** What {@link ThreadWakeupRepository.scheduleWithin} did. */
export interface WakeupScheduling {
  /** The wakeup as stored, or null when the budget was spent. */
  wakeup: ThreadWakeupRow | null;
  /** Wakeups of the thread counted against the budget, this one included when scheduled. */
  counted: number;
}

const toRow: (row: Selectable<ThreadWakeup>) => ThreadWakeupRow = rowOf<ThreadWakeup>;

/** Wakeups: scheduled within a per-thread budget, each fired once. */
export class ThreadWakeupRepository {
  constructor(private readonly db: Executor) {}

  /**
   * Stores the wakeup unless the thread already has `budget` wakeups created at or after `since`
   * (all of them when `since` is null). Parallel calls for one thread are serialised by an
   * advisory lock, so they share the budget. A repeated id returns the stored wakeup.
   */
  scheduleWithin(
    wakeup: NewThreadWakeup,
    since: Date | null,
    budget: number,
  ): Promise<WakeupScheduling> {
    return this.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtext(${`caravel.wakeups:${wakeup.threadId}`}))`.execute(
        trx,
      );
      const existing = await trx
        .selectFrom('thread_wakeups')
        .selectAll()
        .where('id', '=', wakeup.id)
        .executeTakeFirst();
      const counted = await this.countSince(wakeup.threadId, since, trx);
      if (existing) return { wakeup: toRow(existing), counted };
      if (counted >= budget) return { wakeup: null, counted };
      const row = await trx
        .insertInto('thread_wakeups')
        .values({
          id: wakeup.id,
          thread_id: wakeup.threadId,
          run_id: wakeup.runId ?? null,
          prompt: wakeup.prompt,
          due_at: wakeup.dueAt,
          created_at: timeOr(wakeup.createdAt),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return { wakeup: toRow(row), counted: counted + 1 };
    });
  }

  /** Wakeups of the thread created at or after `since` (all when null). */
  async countSince(
    threadId: string,
    since: Date | null,
    executor: Executor = this.db,
  ): Promise<number> {
    let select = executor
      .selectFrom('thread_wakeups')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('thread_id', '=', threadId);
    if (since) select = select.where('created_at', '>=', since);
    const row = await select.executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Wakeups neither fired nor withdrawn, due at or before `now`, earliest first. */
  async due(now: Date, limit = 100, executor: Executor = this.db): Promise<ThreadWakeupRow[]> {
    const rows = await executor
      .selectFrom('thread_wakeups')
      .selectAll()
      .where('fired_at', 'is', null)
      .where('withdrawn_at', 'is', null)
      .where('due_at', '<=', now)
      .orderBy('due_at', 'asc')
      .orderBy('id', 'asc')
      .limit(limit)
      .execute();
    return rows.map(toRow);
  }

  /** Withdraws a wakeup that has not fired (its thread was stopped); false when it had. */
  async withdraw(id: string, at?: Date, executor: Executor = this.db): Promise<boolean> {
    const row = await executor
      .updateTable('thread_wakeups')
      .set({ withdrawn_at: timeOr(at) })
      .where('id', '=', id)
      .where('fired_at', 'is', null)
      .where('withdrawn_at', 'is', null)
      .returning('id')
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Marks a wakeup fired; false when it was fired before. */
  async markFired(id: string, at?: Date, executor: Executor = this.db): Promise<boolean> {
    const row = await executor
      .updateTable('thread_wakeups')
      .set({ fired_at: timeOr(at) })
      .where('id', '=', id)
      .where('fired_at', 'is', null)
      .returning('id')
      .executeTakeFirst();
    return row !== undefined;
  }
}
