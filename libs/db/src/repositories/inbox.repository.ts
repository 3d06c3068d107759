import type { Executor } from './executor.js';

/**
 * Handler-side dedupe (`inbox`). `claim` runs in the handler's transaction, so the claim commits
 * or rolls back together with the handler's effects.
 */
export class InboxRepository {
  constructor(private readonly db: Executor) {}

  /** Marks the message processed by `consumer`; false when it already was. */
  async claim(consumer: string, messageId: string, trx: Executor): Promise<boolean> {
    // ON CONFLICT rather than catching 23505: on PostgreSQL a failed insert aborts the transaction.
    const inserted = await trx
      .insertInto('inbox')
      .values({ consumer, message_id: messageId })
      .onConflict((conflict) => conflict.doNothing())
      .returning('message_id')
      .executeTakeFirst();
    return inserted !== undefined;
  }

  async isProcessed(
    consumer: string,
    messageId: string,
    executor: Executor = this.db,
  ): Promise<boolean> {
    const row = await executor
      .selectFrom('inbox')
      .select('message_id')
      .where('consumer', '=', consumer)
      .where('message_id', '=', messageId)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Deletes entries processed before `before` (retention); returns how many. */
  async prune(before: Date, executor: Executor = this.db): Promise<number> {
    const result = await executor
      .deleteFrom('inbox')
      .where('processed_at', '<', before)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
