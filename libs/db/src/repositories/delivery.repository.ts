import type { TriggerSource } from '@caravel/contracts';
import { sql, type RawBuilder, type Selectable } from 'kysely';
import { toJson } from '../connection/json.js';
import type { Delivery } from '../generated/types.js';
import { timeOr, type Executor } from './executor.js';
import { GroupCommit } from './group-commit.js';
import { rowOf, type RowOf } from './row-of.js';
import { ShapedInsert } from './shaped-insert.js';

/** An accepted webhook delivery (`deliveries`). */
export type DeliveryRow = RowOf<Delivery>;

export interface NewDelivery {
  id: string;
  source: TriggerSource;
  /** The sender's delivery id (e.g. GitHub's X-GitHub-Delivery). */
  deliveryId: string;
  /** A key that identifies the same event across different delivery ids, if the source has one. */
  semanticKey?: string | null;
  threadId: string;
  event: string;
  /** The body as it is to be stored: already storable (the caller's boundary makes it so). */
  payload: unknown;
  /**
   * `payload`'s JSON text, when the caller has it (the body as received, which reading changed
   * in nothing): stored as it is instead of `payload` serialised again.
   */
  payloadJson?: string | undefined;
  /** Hex SHA-256 of the raw bytes received. */
  payloadSha256?: string | null;
  receivedAt?: Date;
}

/**
 * What {@link DeliveryRepository.claim} found: `claimed` (this request now holds the delivery),
 * `settled` (a repeat: the same delivery id or semantic key was already published or recorded)
 * or `pending` (another request holds the claim and has not settled it: one still in flight, or
 * one that crashed or lost its database before it could).
 */
export type DeliveryClaim =
  | { outcome: 'claimed' }
  | { outcome: 'settled'; existing: DeliveryRow }
  | { outcome: 'pending'; existing: DeliveryRow | null };

const CLAIMED: DeliveryClaim = Object.freeze({ outcome: 'claimed' });

/** Claim attempts when the row in the way is released between the insert and the look. */
const CLAIM_ATTEMPTS = 3;

const toRow: (row: Selectable<Delivery>) => DeliveryRow = rowOf<Delivery>;

/** A claim's values, each a parameter; `received_at` null is the statement's time. */
interface ClaimValues {
  id: string;
  source: TriggerSource;
  delivery_id: string;
  semantic_key: string | null;
  thread_id: string;
  event: string;
  payload: string;
  payload_sha256: string | null;
  received_at: Date | null;
}

const CLAIM_COLUMNS = [
  'id',
  'source',
  'delivery_id',
  'semantic_key',
  'thread_id',
  'event',
  'payload',
  'payload_sha256',
  'received_at',
] as const satisfies readonly (keyof ClaimValues)[];

function claimValuesOf(delivery: NewDelivery): ClaimValues {
  return {
    id: delivery.id,
    source: delivery.source,
    delivery_id: delivery.deliveryId,
    semantic_key: delivery.semanticKey ?? null,
    thread_id: delivery.threadId,
    event: delivery.event,
    payload: delivery.payloadJson ?? toJson(delivery.payload),
    payload_sha256: delivery.payloadSha256 ?? null,
    received_at: delivery.receivedAt ?? null,
  };
}

function valuesOf(delivery: NewDelivery, settledAt: Date | RawBuilder<Date> | null) {
  return {
    ...claimValuesOf(delivery),
    received_at: timeOr(delivery.receivedAt),
    settled_at: settledAt,
  };
}

/** Options of {@link DeliveryRepository}. */
export interface DeliveryRepositoryOptions {
  /**
   * True where the database runs its statements on this thread (PGlite): a claim then waits for
   * the event loop's turn to end, so the claims of requests read in that turn go together (see
   * GroupCommit's `gatherForOneTurn`). Default false: the first claim goes at once.
   */
  statementsOnThisThread?: boolean;
  /**
   * How long a settle waits for others to go with it (see GroupCommit's `gatherForMs`): for a
   * caller that answers its request before the settle is done. Default 0: at once.
   */
  settleGatherMs?: number;
}

/**
 * Webhook deliveries, deduplicated on (source, delivery id) and on (source, semantic key). A
 * delivery that publishes is claimed first (an unsettled row), settled once its message is
 * acknowledged, and released when the publish fails, so the sender's retry can claim it again.
 *
 * Claims and settles on the repository's own database are group-committed ({@link GroupCommit}):
 * those of concurrent requests go as one multi-row statement, one round trip for all of them.
 * Those given a transaction run on it, alone.
 */
export class DeliveryRepository {
  private readonly claims: GroupCommit<NewDelivery, boolean>;
  private readonly settles: GroupCommit<string, void>;
  /** A batch of claims, unsettled: compiled once per batch size. */
  private readonly claimInsert = new ShapedInsert<ClaimValues, { id: string }>(
    CLAIM_COLUMNS,
    (rows) =>
      this.db
        .insertInto('deliveries')
        .values(
          rows.map((row) => ({
            ...row,
            received_at: sql<Date>`coalesce(${row.received_at}::timestamptz, now())`,
          })),
        )
        .onConflict((conflict) => conflict.doNothing())
        .returning('id'),
  );

  constructor(
    private readonly db: Executor,
    options: DeliveryRepositoryOptions = {},
  ) {
    this.claims = new GroupCommit((batch) => this.insertClaims(batch), {
      gatherForOneTurn: options.statementsOnThisThread ?? false,
    });
    this.settles = new GroupCommit<string, void>(
      async (ids) => {
        await this.settleEach(ids, undefined, this.db);
        return ids.map(() => undefined);
      },
      { gatherForMs: options.settleGatherMs ?? 0 },
    );
  }

  /** Records a settled delivery at once; false when either unique key was already seen. */
  async record(delivery: NewDelivery, executor: Executor = this.db): Promise<boolean> {
    return this.insert(delivery, timeOr(delivery.receivedAt), executor);
  }

  /**
   * Claims a delivery before its message is published: inserts it unsettled, or says what holds
   * either of its keys already (see {@link DeliveryClaim}).
   */
  async claim(delivery: NewDelivery, executor: Executor = this.db): Promise<DeliveryClaim> {
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt += 1) {
      const inserted =
        executor === this.db
          ? await this.claims.submit(delivery)
          : await this.insert(delivery, null, executor);
      if (inserted) return CLAIMED;
      const holders = await this.holdersOf(delivery, executor);
      const settled = holders.find((row) => row.settledAt !== null);
      if (settled) return { outcome: 'settled', existing: settled };
      if (holders[0]) return { outcome: 'pending', existing: holders[0] };
      // The holder was released between the insert and the look: try again.
    }
    return { outcome: 'pending', existing: null };
  }

  /**
   * Marks a claimed delivery settled (its message was acknowledged); a settled one stays as is.
   * Without `at` or an executor, the settle is group-committed (settled at the statement's time).
   */
  async settle(id: string, at?: Date, executor: Executor = this.db): Promise<void> {
    if (at === undefined && executor === this.db) return this.settles.submit(id);
    await this.settleEach([id], at, executor);
  }

  /** Gives up an unsettled claim (its publish failed); true when there was one to release. */
  async release(id: string, executor: Executor = this.db): Promise<boolean> {
    const deleted = await executor
      .deleteFrom('deliveries')
      .where('id', '=', id)
      .where('settled_at', 'is', null)
      .executeTakeFirst();
    return Number(deleted.numDeletedRows) > 0;
  }

  private async insert(
    delivery: NewDelivery,
    settledAt: Date | RawBuilder<Date> | null,
    executor: Executor,
  ): Promise<boolean> {
    const inserted = await executor
      .insertInto('deliveries')
      .values(valuesOf(delivery, settledAt))
      .onConflict((conflict) => conflict.doNothing())
      .returning('id')
      .executeTakeFirst();
    return inserted !== undefined;
  }

  /**
   * One group commit of claims: one multi-row insert; for each delivery, whether its row went in.
   * Of two in the batch with the same id (a retry alongside its original), only the first counts
   * as inserted: the other looks at the holder as any repeat does.
   */
  private async insertClaims(batch: readonly NewDelivery[]): Promise<boolean[]> {
    const { rows } = await this.db.executeQuery(this.claimInsert.compile(batch.map(claimValuesOf)));
    // The database answers a uuid in lower case, whatever case it was given in.
    const inserted = new Set(rows.map((row) => row.id));
    return batch.map((delivery) => inserted.delete(delivery.id.toLowerCase()));
  }

  private async settleEach(
    ids: readonly string[],
    at: Date | undefined,
    executor: Executor,
  ): Promise<void> {
    await executor
      .updateTable('deliveries')
      .set({ settled_at: timeOr(at) })
      .where('id', 'in', ids)
      .where('settled_at', 'is', null)
      .execute();
  }

  /** The rows holding the delivery's id or its semantic key (at most one of each). */
  private async holdersOf(delivery: NewDelivery, executor: Executor): Promise<DeliveryRow[]> {
    const semanticKey = delivery.semanticKey ?? null;
    const rows = await executor
      .selectFrom('deliveries')
      .selectAll()
      .where('source', '=', delivery.source)
      .where((eb) =>
        semanticKey === null
          ? eb('delivery_id', '=', delivery.deliveryId)
          : eb.or([
              eb('delivery_id', '=', delivery.deliveryId),
              eb('semantic_key', '=', semanticKey),
            ]),
      )
      .execute();
    return rows.map(toRow);
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

  /** The delivery of a source that carried `semanticKey` (a Slack message's `message:<channel>:<ts>`). */
  findBySemanticKey(
    source: TriggerSource,
    semanticKey: string,
    executor: Executor = this.db,
  ): Promise<DeliveryRow | null> {
    return this.findOne(source, 'semantic_key', semanticKey, executor);
  }

  findBySourceDelivery(
    source: TriggerSource,
    deliveryId: string,
    executor: Executor = this.db,
  ): Promise<DeliveryRow | null> {
    return this.findOne(source, 'delivery_id', deliveryId, executor);
  }

  private async findOne(
    source: TriggerSource,
    column: 'delivery_id' | 'semantic_key',
    value: string,
    executor: Executor,
  ): Promise<DeliveryRow | null> {
    const row = await executor
      .selectFrom('deliveries')
      .selectAll()
      .where('source', '=', source)
      .where(column, '=', value)
      .executeTakeFirst();
    return row ? toRow(row) : null;
  }
}
