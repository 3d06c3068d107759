import { sql, type Kysely } from 'kysely';
import type { DB } from '../generated/types.js';
import { toSequence } from './bus-sql.js';

/** A durable consumer's declaration. */
export interface BusConsumerSpec {
  stream: string;
  durable: string;
  /** Subject filter as given (NATS syntax), kept for operators. */
  filter: string;
  ordered: boolean;
  config: Record<string, unknown>;
}

/** How far a fill may read ahead of the consumer's unsettled work. */
export interface FillOptions {
  /** Regular expression (PostgreSQL `~`) the subject must match. */
  subjectRegex: string;
  /** Messages taken into the consumer's pending set per call. */
  batch: number;
  /** No fill while this many deliveries are unsettled (JetStream's MaxAckPending). */
  maxUnsettled: number;
}

/**
 * Durable consumers of the embedded bus (`bus_consumers`). Each keeps `delivered_through`, the
 * sequence up to which matching messages have entered `bus_deliveries` (settled ones are deleted
 * from there), and `ack_floor`, below which everything is settled. Both make the pending scan
 * independent of the log's length.
 */
export class BusConsumerRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /**
   * Creates the consumer or updates its declaration; its position is kept. Says in the same
   * statement whether it has anything to do: messages past its cursor (matching or not: the
   * next fill decides) or deliveries not yet settled. A consumer with neither need not pull
   * until something wakes it, which saves every idle consumer four queries at each start.
   */
  async register(spec: BusConsumerSpec): Promise<{ idle: boolean }> {
    const row = await this.db
      .insertInto('bus_consumers')
      .values({
        stream: spec.stream,
        durable: spec.durable,
        filter: spec.filter,
        ordered: spec.ordered,
        config: JSON.stringify(spec.config),
      })
      .onConflict((oc) =>
        oc.columns(['stream', 'durable']).doUpdateSet((eb) => ({
          filter: eb.ref('excluded.filter'),
          ordered: eb.ref('excluded.ordered'),
          config: eb.ref('excluded.config'),
        })),
      )
      .returning((eb) => [
        'delivered_through',
        eb
          .selectFrom('bus_messages')
          .select((m) => m.fn.max('sequence').as('head'))
          .where('stream', '=', spec.stream)
          .as('head'),
        eb
          .exists(
            eb
              .selectFrom('bus_deliveries')
              .select(sql<number>`1`.as('one'))
              .where('stream', '=', spec.stream)
              .where('durable', '=', spec.durable),
          )
          .as('unsettled'),
      ])
      .executeTakeFirstOrThrow();
    const head = row.head == null ? 0 : toSequence(row.head);
    return { idle: !row.unsettled && head <= toSequence(row.delivered_through) };
  }

  /**
   * Moves newly published matching messages into the consumer's pending set and advances its
   * cursor; returns how many entered. The consumer row is locked (skipping when another replica
   * holds it), so two replicas never fill at once and an acked delivery is never filled again.
   */
  async fill(stream: string, durable: string, options: FillOptions): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const consumer = await trx
        .selectFrom('bus_consumers')
        .select(['delivered_through'])
        .where('stream', '=', stream)
        .where('durable', '=', durable)
        .forUpdate()
        .skipLocked()
        .executeTakeFirst();
      if (!consumer) return 0;
      const cursor = toSequence(consumer.delivered_through);
      const unsettled = await trx
        .selectFrom('bus_deliveries')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('stream', '=', stream)
        .where('durable', '=', durable)
        .executeTakeFirstOrThrow();
      if (Number(unsettled.n) >= options.maxUnsettled) return 0;
      // Read the head first: everything up to it is visible to the next statement, because
      // appends to one stream commit in sequence order.
      const head = await trx
        .selectFrom('bus_messages')
        .select((eb) => eb.fn.max('sequence').as('head'))
        .where('stream', '=', stream)
        .executeTakeFirst();
      const headSequence = head?.head == null ? 0 : toSequence(head.head);
      if (headSequence <= cursor) return 0;
      const entered = await sql<{ sequence: string | number }>`
        insert into bus_deliveries (stream, durable, sequence, thread_id, state, delivery_count, visible_at)
        select m.stream, ${durable}, m.sequence, m.thread_id, 'pending', 0, now()
        from bus_messages m
        where m.stream = ${stream} and m.sequence > ${cursor} and m.sequence <= ${headSequence}
          and m.subject ~ ${options.subjectRegex}
        order by m.sequence
        limit ${options.batch}
        on conflict do nothing
        returning sequence`.execute(trx);
      const sequences = entered.rows.map((row) => toSequence(row.sequence));
      const reached = sequences.length >= options.batch ? Math.max(...sequences) : headSequence;
      await this.advance(trx, stream, durable, reached);
      return sequences.length;
    });
  }

  /**
   * How far behind the durable is: messages past its cursor that match its filter plus its
   * deliveries not handed out (`waiting`), and its deliveries out in handlers (`inHandlers`).
   */
  async backlog(
    stream: string,
    durable: string,
    subjectRegex: string,
  ): Promise<{ waiting: number; inHandlers: number }> {
    const { rows } = await sql<{
      unseen: string | number;
      pending: string | number;
      inflight: string | number;
    }>`
      select
        (select count(*) from bus_messages m
          where m.stream = ${stream} and m.subject ~ ${subjectRegex}
            and m.sequence > coalesce((select c.delivered_through from bus_consumers c
              where c.stream = ${stream} and c.durable = ${durable}), 0)) as unseen,
        (select count(*) from bus_deliveries d
          where d.stream = ${stream} and d.durable = ${durable} and d.state = 'pending') as pending,
        (select count(*) from bus_deliveries d
          where d.stream = ${stream} and d.durable = ${durable} and d.state = 'inflight') as inflight`.execute(
      this.db,
    );
    const row = rows[0];
    return {
      waiting: Number(row?.unseen ?? 0) + Number(row?.pending ?? 0),
      inHandlers: Number(row?.inflight ?? 0),
    };
  }

  private async advance(
    trx: Kysely<DB>,
    stream: string,
    durable: string,
    through: number,
  ): Promise<void> {
    await sql`
      update bus_consumers c
      set delivered_through = ${through},
          ack_floor = coalesce(
            (select min(d.sequence) - 1 from bus_deliveries d
             where d.stream = c.stream and d.durable = c.durable),
            ${through})
      where c.stream = ${stream} and c.durable = ${durable}`.execute(trx);
  }
}
