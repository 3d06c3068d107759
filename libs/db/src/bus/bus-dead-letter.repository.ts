import type { DataOf, DeadLetterRecordedV1 } from '@caravel/contracts';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../generated/types.js';
import { toSequence } from './bus-sql.js';

/**
 * A message a consumer gave up on, as every bus adapter lists it: the fields of the
 * `DeadLetterRecordedV1` record (`consumer` is the logical durable name) and when it was recorded.
 * The one definition of the shape; `@caravel/messaging` re-exports it as its `DeadLetter`.
 */
export interface DeadLetter extends DataOf<typeof DeadLetterRecordedV1> {
  recordedAt: Date;
}

export interface DeadLetterQuery {
  /** Only streams whose stored name starts with this (a bus namespace). */
  streamPrefix?: string;
  /** The logical durable name. */
  consumer?: string;
}

/** Reads the embedded bus's dead letters (`bus_dead_letters`); they are written on settlement. */
export class BusDeadLetterRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async list(query: DeadLetterQuery = {}): Promise<DeadLetter[]> {
    let select = this.db.selectFrom('bus_dead_letters').selectAll();
    if (query.streamPrefix)
      select = select.where(sql<boolean>`starts_with(stream, ${query.streamPrefix})`);
    if (query.consumer !== undefined) select = select.where('durable', '=', query.consumer);
    const rows = await select.orderBy('recorded_at').orderBy('sequence').execute();
    return rows.map((row) => ({
      stream: row.stream,
      consumer: row.durable,
      sequence: toSequence(row.sequence),
      subject: row.subject,
      deliveries: row.deliveries,
      reason: row.reason,
      payload: row.payload,
      recordedAt: new Date(row.recorded_at),
    }));
  }
}
