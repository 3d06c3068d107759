import type { DataOf, DeadLetterRecordedV1 } from '@caravel/contracts';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../generated/types.js';
import { toSequence, type DeliveryKey } from './bus-sql.js';

/**
 * A message a consumer gave up on, as every bus adapter lists it: the fields of the
 * `DeadLetterRecordedV1` record (`consumer` is the logical durable name), its id, when it was
 * recorded and when it was replayed. The one definition of the shape; `@caravel/messaging`
 * re-exports it as its `DeadLetter`.
 */
export interface DeadLetter extends DataOf<typeof DeadLetterRecordedV1> {
  /** `<stream>:<consumer>:<sequence>`: one record per message and consumer. */
  id: string;
  recordedAt: Date;
  /** When it was handed back to its consumer; null until then. */
  replayedAt: Date | null;
}

/** The id of a consumer's dead letter for a stream's message. */
export function deadLetterId(stream: string, consumer: string, sequence: number): string {
  return `${stream}:${consumer}:${sequence}`;
}

/** Which dead letters to list or replay; every given criterion must hold. */
export interface DeadLetterSelection {
  /** The logical durable name. */
  consumer?: string;
  /** Dead-letter ids (`<stream>:<consumer>:<sequence>`). */
  ids?: readonly string[];
  /** Recorded at or after. */
  since?: Date;
  /** Recorded before. */
  until?: Date;
}

/** Whether a dead letter matches a selection (for adapters that filter in memory). */
export function selectsDeadLetter(selection: DeadLetterSelection, letter: DeadLetter): boolean {
  if (selection.consumer !== undefined && letter.consumer !== selection.consumer) return false;
  if (selection.ids !== undefined && !selection.ids.includes(letter.id)) return false;
  if (selection.since !== undefined && letter.recordedAt < selection.since) return false;
  if (selection.until !== undefined && letter.recordedAt >= selection.until) return false;
  return true;
}

export interface DeadLetterQuery extends DeadLetterSelection {
  /** Only streams whose stored name starts with this (a bus namespace); it is cut from names. */
  streamPrefix?: string;
}

/** What replaying one dead letter did. */
export type ReplayOutcome = 'replayed' | 'already-replayed';

/**
 * The embedded bus's dead letters (`bus_dead_letters`): written on settlement (see
 * `BusDeliveryRepository`), listed here, and replayed — handed back to their consumer.
 */
export class BusDeadLetterRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async list(query: DeadLetterQuery = {}): Promise<DeadLetter[]> {
    const prefix = query.streamPrefix ?? '';
    let select = this.db.selectFrom('bus_dead_letters').selectAll();
    if (prefix) select = select.where(sql<boolean>`starts_with(stream, ${prefix})`);
    if (query.consumer !== undefined) select = select.where('durable', '=', query.consumer);
    if (query.since !== undefined) select = select.where('recorded_at', '>=', query.since);
    if (query.until !== undefined) select = select.where('recorded_at', '<', query.until);
    const rows = await select.orderBy('recorded_at').orderBy('sequence').execute();
    const letters = rows.map((row) => {
      const stream = row.stream.slice(prefix.length);
      const sequence = toSequence(row.sequence);
      return {
        id: deadLetterId(stream, row.durable, sequence),
        stream,
        consumer: row.durable,
        sequence,
        subject: row.subject,
        deliveries: row.deliveries,
        reason: row.reason,
        payload: row.payload,
        recordedAt: new Date(row.recorded_at),
        replayedAt: row.replayed_at === null ? null : new Date(row.replayed_at),
      };
    });
    const ids = query.ids;
    return ids === undefined ? letters : letters.filter((letter) => ids.includes(letter.id));
  }

  /**
   * Hands a dead letter back to its consumer, once: marks it replayed and makes its message a
   * fresh pending delivery of that consumer (no deliveries used), in one statement. A letter
   * already replayed changes nothing. For an ordered consumer the message, being older, comes
   * before the thread's later unsettled messages.
   */
  async replay(key: DeliveryKey): Promise<ReplayOutcome> {
    const result = await sql<{ sequence: string | number }>`
      with letter as (
        update bus_dead_letters set replayed_at = now()
        where stream = ${key.stream} and durable = ${key.durable} and sequence = ${key.sequence}
          and replayed_at is null
        returning stream, durable, sequence
      ), delivery as (
        insert into bus_deliveries
          (stream, durable, sequence, thread_id, state, delivery_count, visible_at)
        select l.stream, l.durable, l.sequence, m.thread_id, 'pending', 0, now()
        from letter l join bus_messages m on m.sequence = l.sequence
        on conflict do nothing
      )
      select sequence from letter`.execute(this.db);
    return result.rows.length > 0 ? 'replayed' : 'already-replayed';
  }
}
