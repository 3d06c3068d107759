import type { Selectable } from 'kysely';
import { toJson } from '../connection/json.js';
import type { Delivery } from '../generated/types.js';
import { timeOr, type Executor } from './executor.js';

/** An accepted webhook delivery (`deliveries`). */
export interface DeliveryRow {
  id: string;
  source: string;
  deliveryId: string;
  semanticKey: string | null;
  threadId: string;
  event: string;
  receivedAt: Date;
  payload: unknown;
}

export interface NewDelivery {
  id: string;
  source: string;
  /** The sender's delivery id (e.g. GitHub's X-GitHub-Delivery). */
  deliveryId: string;
  /** A key that identifies the same event across different delivery ids, if the source has one. */
  semanticKey?: string | null;
  threadId: string;
  event: string;
  payload: unknown;
  receivedAt?: Date;
}

function toRow(row: Selectable<Delivery>): DeliveryRow {
  return {
    id: row.id,
    source: row.source,
    deliveryId: row.delivery_id,
    semanticKey: row.semantic_key,
    threadId: row.thread_id,
    event: row.event,
    receivedAt: row.received_at,
    payload: row.payload,
  };
}

/** Webhook deliveries, deduplicated on (source, delivery id) and on (source, semantic key). */
export class DeliveryRepository {
  constructor(private readonly db: Executor) {}

  /** Records a delivery; false when either unique key was already seen (nothing is written). */
  async record(delivery: NewDelivery, executor: Executor = this.db): Promise<boolean> {
    const inserted = await executor
      .insertInto('deliveries')
      .values({
        id: delivery.id,
        source: delivery.source,
        delivery_id: delivery.deliveryId,
        semantic_key: delivery.semanticKey ?? null,
        thread_id: delivery.threadId,
        event: delivery.event,
        payload: toJson(delivery.payload),
        received_at: timeOr(delivery.receivedAt),
      })
      .onConflict((conflict) => conflict.doNothing())
      .returning('id')
      .executeTakeFirst();
    return inserted !== undefined;
  }

  async get(id: string, executor: Executor = this.db): Promise<DeliveryRow | null> {
    const row = await executor
      .selectFrom('deliveries')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toRow(row) : null;
  }

  /**
   * Deletes up to `limit` deliveries received before `cutoff`, oldest first; returns how many.
   * Past the senders' redelivery windows a record dedupes nothing any more.
   */
  async deleteReceivedBefore(
    cutoff: Date,
    limit: number,
    executor: Executor = this.db,
  ): Promise<number> {
    const deleted = await executor
      .deleteFrom('deliveries')
      .where(
        'id',
        'in',
        executor
          .selectFrom('deliveries')
          .select('id')
          .where('received_at', '<', cutoff)
          .orderBy('received_at', 'asc')
          .limit(limit),
      )
      .executeTakeFirst();
    return Number(deleted.numDeletedRows);
  }

  async findBySourceDelivery(
    source: string,
    deliveryId: string,
    executor: Executor = this.db,
  ): Promise<DeliveryRow | null> {
    const row = await executor
      .selectFrom('deliveries')
      .selectAll()
      .where('source', '=', source)
      .where('delivery_id', '=', deliveryId)
      .executeTakeFirst();
    return row ? toRow(row) : null;
  }
}
