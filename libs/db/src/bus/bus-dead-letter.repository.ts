import { sql, type Kysely } from 'kysely';
import type { DB } from '../generated/types.js';
import { toSequence } from './bus-sql.js';

/** A dead letter of the embedded bus. */
export interface BusDeadLetterRow {
  stream: string;
  durable: string;
  sequence: number;
  subject: string;
  deliveries: number;
  reason: string;
  payload: string;
  recordedAt: Date;
}

export interface DeadLetterQuery {
  /** Only streams whose stored name starts with this (a bus namespace). */
  streamPrefix?: string;
  durable?: string;
}

/** Reads the embedded bus's dead letters (`bus_dead_letters`); they are written on settlement. */
export class BusDeadLetterRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async list(query: DeadLetterQuery = {}): Promise<BusDeadLetterRow[]> {
    let select = this.db.selectFrom('bus_dead_letters').selectAll();
    if (query.streamPrefix)
      select = select.where(sql<boolean>`starts_with(stream, ${query.streamPrefix})`);
    if (query.durable !== undefined) select = select.where('durable', '=', query.durable);
    const rows = await select.orderBy('recorded_at').orderBy('sequence').execute();
    return rows.map((row) => ({
      stream: row.stream,
      durable: row.durable,
      sequence: toSequence(row.sequence),
      subject: row.subject,
      deliveries: row.deliveries,
      reason: row.reason,
      payload: row.payload,
      recordedAt: new Date(row.recorded_at),
    }));
  }
}
