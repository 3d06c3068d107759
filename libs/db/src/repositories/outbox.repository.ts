import type { Selectable } from 'kysely';
import { toJson } from '../connection/json.js';
import type { OutboxEntry } from '../generated/types.js';
import { timeOr, type Executor } from './executor.js';
import { rowOf, type RowOf } from './row-of.js';

/** A message waiting to be (or already) relayed to the bus (`outbox`). */
export type OutboxRow = RowOf<OutboxEntry>;

export interface NewOutboxEntry {
  id: string;
  subject: string;
  pattern: string;
  envelope: unknown;
  createdAt?: Date;
}

export interface UnpublishedQuery {
  limit?: number;
  /**
   * Lock the returned rows (FOR UPDATE SKIP LOCKED) so concurrent relays take different
   * messages; only meaningful inside a transaction.
   */
  lock?: boolean;
}

const toRow: (row: Selectable<OutboxEntry>) => OutboxRow = rowOf<OutboxEntry>;

/** Transactional outbox: written with the state change, relayed to the bus afterwards. */
export class OutboxRepository {
  constructor(private readonly db: Executor) {}

  /** Adds a message in the caller's transaction. */
  async enqueue(entry: NewOutboxEntry, trx: Executor): Promise<void> {
    await trx
      .insertInto('outbox')
      .values({
        id: entry.id,
        subject: entry.subject,
        pattern: entry.pattern,
        envelope: toJson(entry.envelope),
        created_at: timeOr(entry.createdAt),
      })
      .execute();
  }

  /** Unpublished messages, oldest first. */
  async fetchUnpublished(
    query: UnpublishedQuery = {},
    executor: Executor = this.db,
  ): Promise<OutboxRow[]> {
    let select = executor
      .selectFrom('outbox')
      .selectAll()
      .where('published_at', 'is', null)
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .limit(query.limit ?? 100);
    if (query.lock) select = select.forUpdate().skipLocked();
    const rows = await select.execute();
    return rows.map(toRow);
  }

  /** false when the message does not exist or was already marked published. */
  async markPublished(id: string, at?: Date, executor: Executor = this.db): Promise<boolean> {
    const result = await executor
      .updateTable('outbox')
      .set({ published_at: timeOr(at) })
      .where('id', '=', id)
      .where('published_at', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Counts a failed relay attempt and keeps its error; false when the message does not exist. */
  async markFailed(id: string, error: string, executor: Executor = this.db): Promise<boolean> {
    const result = await executor
      .updateTable('outbox')
      .set((eb) => ({ attempts: eb('attempts', '+', 1), last_error: error }))
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}
