import type { Selectable } from 'kysely';
import type { TriggerRefusal } from '../generated/types.js';
import type { Executor } from './executor.js';
import { rowOf, type RowOf } from './row-of.js';

/** A trigger dispatch refused before it created anything (`trigger_refusals`). */
export type TriggerRefusalRow = RowOf<TriggerRefusal>;

/** What a refusal records; `refusedAt` defaults to the database's now. */
export interface NewTriggerRefusal {
  triggerId: string;
  threadId: string;
  source: TriggerRefusal['source'];
  /** `source:externalId`. */
  author: string;
  rule: 'public_repo_gate' | 'repository_access';
  reason: string;
  refusedAt?: Date;
}

const toRow: (row: Selectable<TriggerRefusal>) => TriggerRefusalRow = rowOf<TriggerRefusal>;

/**
 * Triggers refused by who may have Caravel act, for operators to see: one row per trigger, so a
 * redelivered refusal records nothing new; old rows are deleted by age.
 */
export class TriggerRefusalRepository {
  constructor(private readonly db: Executor) {}

  /** Records a refusal; false when the trigger's refusal was recorded already. */
  async record(refusal: NewTriggerRefusal): Promise<boolean> {
    const inserted = await this.db
      .insertInto('trigger_refusals')
      .values({
        trigger_id: refusal.triggerId,
        thread_id: refusal.threadId,
        source: refusal.source,
        author: refusal.author,
        rule: refusal.rule,
        reason: refusal.reason,
        ...(refusal.refusedAt ? { refused_at: refusal.refusedAt } : {}),
      })
      .onConflict((conflict) => conflict.column('trigger_id').doNothing())
      .returning('trigger_id')
      .executeTakeFirst();
    return inserted !== undefined;
  }

  /** The refusals of a thread's triggers, oldest first. */
  async listByThread(threadId: string): Promise<TriggerRefusalRow[]> {
    const rows = await this.db
      .selectFrom('trigger_refusals')
      .selectAll()
      .where('thread_id', '=', threadId)
      .orderBy('refused_at')
      .orderBy('trigger_id')
      .execute();
    return rows.map(toRow);
  }

  /** Deletes refusals recorded before `before`; how many. */
  async deleteBefore(before: Date): Promise<number> {
    const result = await this.db
      .deleteFrom('trigger_refusals')
      .where('refused_at', '<', before)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
