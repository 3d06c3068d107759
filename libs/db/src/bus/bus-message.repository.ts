import { sql, type Kysely } from 'kysely';
import type { DB } from '../generated/types.js';
import { toSequence } from './bus-sql.js';

/** A message to append to the embedded bus log. */
export interface NewBusMessage {
  stream: string;
  subject: string;
  threadId: string | null;
  messageId: string;
  payload: string;
}

export interface AppendResult {
  sequence: number;
  duplicate: boolean;
}

/** A row of the log, as replay reads it. */
export interface BusMessageRow {
  sequence: number;
  stream: string;
  subject: string;
  threadId: string | null;
  payload: string;
  storedAt: Date;
}

/** Which part of a stream to read, in sequence order. */
export interface LogQuery {
  stream: string;
  afterSequence: number;
  /** Regular expression (PostgreSQL `~`) the subject must match. */
  subjectRegex?: string;
  threadId?: string;
  fromTime?: Date;
  limit: number;
}

/** The embedded bus's append-only log (`bus_messages`). */
export class BusMessageRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /**
   * Appends a message; a message id already in the stream returns the stored sequence instead.
   * Appends to one stream are serialised with a transaction-scoped advisory lock so sequences
   * become visible in order: a consumer cursor that passed sequence N never misses a smaller
   * sequence committed later.
   */
  async append(message: NewBusMessage): Promise<AppendResult> {
    return this.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtext(${message.stream}))`.execute(trx);
      const inserted = await trx
        .insertInto('bus_messages')
        .values({
          stream: message.stream,
          subject: message.subject,
          thread_id: message.threadId,
          message_id: message.messageId,
          payload: message.payload,
        })
        .onConflict((oc) => oc.columns(['stream', 'message_id']).doNothing())
        .returning('sequence')
        .executeTakeFirst();
      if (inserted) return { sequence: toSequence(inserted.sequence), duplicate: false };
      const existing = await trx
        .selectFrom('bus_messages')
        .select('sequence')
        .where('stream', '=', message.stream)
        .where('message_id', '=', message.messageId)
        .executeTakeFirstOrThrow();
      return { sequence: toSequence(existing.sequence), duplicate: true };
    });
  }

  /** One page of a stream in sequence order. */
  async read(query: LogQuery): Promise<BusMessageRow[]> {
    let select = this.db
      .selectFrom('bus_messages')
      .select(['sequence', 'stream', 'subject', 'thread_id', 'payload', 'stored_at'])
      .where('stream', '=', query.stream)
      .where(sql<boolean>`sequence > ${query.afterSequence}`);
    if (query.subjectRegex !== undefined) {
      select = select.where(sql<boolean>`subject ~ ${query.subjectRegex}`);
    }
    if (query.threadId !== undefined) select = select.where('thread_id', '=', query.threadId);
    if (query.fromTime !== undefined) select = select.where('stored_at', '>=', query.fromTime);
    const rows = await select.orderBy('sequence').limit(query.limit).execute();
    return rows.map((row) => ({
      sequence: toSequence(row.sequence),
      stream: row.stream,
      subject: row.subject,
      threadId: row.thread_id,
      payload: row.payload,
      storedAt: new Date(row.stored_at),
    }));
  }
}
