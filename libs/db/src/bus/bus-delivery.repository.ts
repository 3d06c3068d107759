import { sql, type Kysely } from 'kysely';
import type { DB } from '../generated/types.js';
import { nowPlusMs, toSequence, type DeliveryKey } from './bus-sql.js';

/** What a replica asks for when it has room for more work. */
export interface ClaimRequest {
  stream: string;
  durable: string;
  holder: string;
  limit: number;
  ackWaitMs: number;
  /**
   * A delivery that has used this many (outage failures excepted) is never claimed again: it is
   * dead-lettered.
   */
  maxDeliver: number;
  /** Only the oldest unsettled message of each thread may be claimed. */
  ordered: boolean;
}

/** A delivery this replica now holds until its deadline. */
export interface ClaimedDelivery {
  sequence: number;
  deliveryCount: number;
  /** Earlier deliveries that failed with an outage. */
  outages: number;
  subject: string;
  payload: string;
  storedAt: Date;
}

/**
 * Delivery state of the embedded bus (`bus_deliveries`): claiming, settling and expiring the
 * unsettled messages of each durable consumer. Every state change is a single statement guarded
 * by row locks, so replicas in several processes never hold the same delivery at once.
 */
export class BusDeliveryRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /**
   * Takes up to `limit` deliveries that are pending and visible, or in flight past their
   * deadline, and marks them in flight for `holder`. `SKIP LOCKED` lets concurrent claimers pass
   * each other instead of queueing or taking the same row.
   */
  async claim(request: ClaimRequest): Promise<ClaimedDelivery[]> {
    const threadHead = request.ordered
      ? sql`and not exists (
          select 1 from bus_deliveries e
          where e.stream = c.stream and e.durable = c.durable
            and e.thread_id = c.thread_id and e.sequence < c.sequence)`
      : sql``;
    const result = await sql<{
      sequence: string | number;
      delivery_count: number;
      outages: number;
      subject: string;
      payload: string;
      stored_at: Date | string;
    }>`
      with picked as (
        select c.stream, c.durable, c.sequence from bus_deliveries c
        where c.stream = ${request.stream} and c.durable = ${request.durable}
          and c.delivery_count - c.outages < ${request.maxDeliver}
          and ((c.state = 'pending' and c.visible_at <= now())
            or (c.state = 'inflight' and c.deadline_at <= now()))
          ${threadHead}
        order by c.sequence
        limit ${request.limit}
        for update skip locked
      )
      update bus_deliveries d
      set state = 'inflight', holder = ${request.holder}, delivery_count = d.delivery_count + 1,
          deadline_at = ${nowPlusMs(request.ackWaitMs)}, updated_at = now()
      from picked p, bus_messages m
      where d.stream = p.stream and d.durable = p.durable and d.sequence = p.sequence
        and m.sequence = d.sequence
      returning d.sequence, d.delivery_count, d.outages, m.subject, m.payload, m.stored_at`.execute(
      this.db,
    );
    return result.rows
      .map((row) => ({
        sequence: toSequence(row.sequence),
        deliveryCount: row.delivery_count,
        outages: row.outages,
        subject: row.subject,
        payload: row.payload,
        storedAt: new Date(row.stored_at),
      }))
      .sort((a, b) => a.sequence - b.sequence);
  }

  /**
   * Milliseconds until the next of a durable's deliveries needs a look without anyone settling
   * or publishing: a nak'd one becoming visible, or an attempt reaching its deadline. Null when
   * nothing is waiting on a clock; 0 when something is due already. `lookBackMs` also counts a
   * pending delivery that became visible within that many ms (0, due now): a caller whose claim
   * began that long ago passes it, so what became visible after the claim looked is not missed.
   */
  async msUntilDue(stream: string, durable: string, lookBackMs = 0): Promise<number | null> {
    const result = await sql<{ ms: string | number | null }>`
      select extract(epoch from (min(due) - now())) * 1000 as ms from (
        select min(visible_at) as due from bus_deliveries
        where stream = ${stream} and durable = ${durable} and state = 'pending'
          and visible_at > now() - make_interval(secs => ${lookBackMs / 1000}::double precision)
        union all
        select min(deadline_at) from bus_deliveries
        where stream = ${stream} and durable = ${durable} and state = 'inflight'
      ) timers`.execute(this.db);
    const ms = result.rows[0]?.ms;
    // (GREATEST would ignore a null and answer 0: nothing waiting must stay null.)
    return ms === null || ms === undefined ? null : Math.max(0, Math.ceil(Number(ms)));
  }

  /** Settles a delivery as done. A late ack from an earlier attempt still counts, as in JetStream. */
  async ack(key: DeliveryKey): Promise<void> {
    await this.db
      .deleteFrom('bus_deliveries')
      .where('stream', '=', key.stream)
      .where('durable', '=', key.durable)
      .where(sql<boolean>`sequence = ${key.sequence}`)
      .execute();
  }

  /**
   * Makes the delivery visible again after `delayMs`; ignored when the attempt is stale. An
   * `outage` nak is counted as such: it does not use up one of the message's deliveries.
   */
  async nak(key: DeliveryKey, attempt: number, delayMs: number, outage = false): Promise<boolean> {
    const result = await this.whereAttempt(key, attempt)
      .set({
        state: 'pending',
        outages: sql`outages + ${outage ? 1 : 0}`,
        holder: null,
        deadline_at: null,
        visible_at: nowPlusMs(delayMs),
        updated_at: sql`now()`,
      })
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Pushes the deadline of a held attempt (`working()`); false when the attempt was lost. */
  async extend(key: DeliveryKey, attempt: number, ackWaitMs: number): Promise<boolean> {
    const result = await this.whereAttempt(key, attempt)
      .set({ deadline_at: nowPlusMs(ackWaitMs), updated_at: sql`now()` })
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /**
   * Gives up on a held attempt: the delivery is removed and one dead letter recorded, in one
   * statement. False when the attempt is stale (someone else holds the message now).
   */
  async deadLetter(key: DeliveryKey, attempt: number, reason: string): Promise<boolean> {
    const result = await sql<{ sequence: string | number }>`
      with gone as (
        delete from bus_deliveries
        where stream = ${key.stream} and durable = ${key.durable} and sequence = ${key.sequence}
          and state = 'inflight' and delivery_count = ${attempt}
        returning stream, durable, sequence, delivery_count
      )
      ${this.recordDeadLetters(reason)}`.execute(this.db);
    return result.rows.length > 0;
  }

  /**
   * Dead-letters every in-flight delivery whose deadline passed on its last allowed attempt
   * (outage failures excepted), with `reason`; returns their sequences. Concurrent callers delete each row once, so each
   * message gets one record.
   */
  async expireExhausted(
    stream: string,
    durable: string,
    maxDeliver: number,
    reason: string,
  ): Promise<number[]> {
    const result = await sql<{ sequence: string | number }>`
      with gone as (
        delete from bus_deliveries
        where stream = ${stream} and durable = ${durable} and state = 'inflight'
          and deadline_at <= now() and delivery_count - outages >= ${maxDeliver}
        returning stream, durable, sequence, delivery_count
      )
      ${this.recordDeadLetters(reason)}`.execute(this.db);
    return result.rows.map((row) => toSequence(row.sequence));
  }

  private recordDeadLetters(reason: string) {
    return sql`
      insert into bus_dead_letters (stream, durable, sequence, subject, deliveries, reason, payload)
      select g.stream, g.durable, g.sequence, m.subject, g.delivery_count, ${reason}, m.payload
      from gone g join bus_messages m on m.sequence = g.sequence
      on conflict do nothing
      returning sequence`;
  }

  private whereAttempt(key: DeliveryKey, attempt: number) {
    return this.db
      .updateTable('bus_deliveries')
      .where('stream', '=', key.stream)
      .where('durable', '=', key.durable)
      .where(sql<boolean>`sequence = ${key.sequence}`)
      .where('state', '=', 'inflight')
      .where('delivery_count', '=', attempt);
  }
}
