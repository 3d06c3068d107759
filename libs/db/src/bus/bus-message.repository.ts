import { sql, type Kysely } from 'kysely';
import type { DB } from '../generated/types.js';
import { GroupCommit } from '../repositories/group-commit.js';
import { ShapedInsert } from '../repositories/shaped-insert.js';
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

/** How {@link BusMessageRepository} may append. */
export interface BusMessageRepositoryOptions {
  /**
   * True when every statement on the database runs one after another (PGlite: one session,
   * shared under a mutex), so each append commits before the next takes its sequence. Appends
   * are then autocommit inserts, and those made while one is in flight go together as one
   * multi-row insert ({@link GroupCommit}). Otherwise (PostgreSQL, where sessions run side by
   * side) each takes a per-stream advisory lock in a transaction.
   */
  appendsSerialised?: boolean;
}

/** An append's values, each a parameter. */
interface AppendValues {
  stream: string;
  subject: string;
  thread_id: string | null;
  message_id: string;
  payload: string;
}

const APPEND_COLUMNS = [
  'stream',
  'subject',
  'thread_id',
  'message_id',
  'payload',
] as const satisfies readonly (keyof AppendValues)[];

interface AppendedRow {
  sequence: string | number | bigint;
  stream: string;
  message_id: string;
}

/** The embedded bus's append-only log (`bus_messages`). */
export class BusMessageRepository {
  /** Appends of a batch: compiled once per batch size (the statement is the same on any executor). */
  private readonly inserts = new ShapedInsert<AppendValues, AppendedRow>(APPEND_COLUMNS, (rows) =>
    this.db
      .insertInto('bus_messages')
      .values(rows)
      .onConflict((oc) => oc.columns(['stream', 'message_id']).doNothing())
      .returning(['sequence', 'stream', 'message_id']),
  );
  /** Group-committed appends, where appends are serialised; else none. */
  private readonly appends: GroupCommit<NewBusMessage, AppendResult | undefined> | null;

  constructor(
    private readonly db: Kysely<DB>,
    options: BusMessageRepositoryOptions = {},
  ) {
    this.appends = options.appendsSerialised
      ? new GroupCommit((batch) => this.insert(this.db, batch))
      : null;
  }

  /**
   * Appends a message; a message id already in the stream returns the stored sequence instead.
   * Sequences become visible in order, so a consumer cursor that passed sequence N never misses a
   * smaller sequence committed later: on a database whose statements run one at a time
   * (`appendsSerialised`) each append, or each group of appends made together, commits before
   * the next starts; elsewhere appends to one stream are serialised with a transaction-scoped
   * advisory lock.
   */
  async append(message: NewBusMessage): Promise<AppendResult> {
    if (this.appends) {
      // The look-up of a repeat is its own statement, outside the group's insert: a group whose
      // statement failed is run again item by item, which an insert that went in must not be.
      const appended = await this.appends.submit(message);
      return appended ?? this.stored(this.db, message);
    }
    return this.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtext(${message.stream}))`.execute(trx);
      const [inserted] = await this.insert(trx, [message]);
      return inserted ?? this.stored(trx, message);
    });
  }

  /** Inserts the messages; for each, its new sequence, or undefined when its id was taken. */
  private async insert(
    executor: Kysely<DB>,
    messages: readonly NewBusMessage[],
  ): Promise<(AppendResult | undefined)[]> {
    const { rows } = await executor.executeQuery(
      this.inserts.compile(
        messages.map((message) => ({
          stream: message.stream,
          subject: message.subject,
          thread_id: message.threadId,
          message_id: message.messageId,
          payload: message.payload,
        })),
      ),
    );
    const sequences = new Map(
      rows.map((row) => [keyOf(row.stream, row.message_id), toSequence(row.sequence)]),
    );
    return messages.map((message) => {
      const key = keyOf(message.stream, message.messageId);
      const sequence = sequences.get(key);
      sequences.delete(key);
      return sequence === undefined ? undefined : { sequence, duplicate: false };
    });
  }

  private async stored(executor: Kysely<DB>, message: NewBusMessage): Promise<AppendResult> {
    const existing = await executor
      .selectFrom('bus_messages')
      .select('sequence')
      .where('stream', '=', message.stream)
      .where('message_id', '=', message.messageId)
      .executeTakeFirstOrThrow();
    return { sequence: toSequence(existing.sequence), duplicate: true };
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

const keyOf = (stream: string, messageId: string): string => `${stream}\n${messageId}`;
