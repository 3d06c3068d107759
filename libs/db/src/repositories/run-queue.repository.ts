import { sql, type Selectable } from 'kysely';
import type { RunQueueEntry } from '../generated/types.js';
import { toJson } from '../connection/json.js';
import { timeOr, type Executor } from './executor.js';
import { queuePositions, type QueuePosition } from './run-queue-order.js';
import type {
  KeyLastAdmitted,
  NewRunQueueEntry,
  QueueSnapshot,
  RunQueueRow,
} from './run-queue.types.js';
import type { RunStatus } from './states.js';

export type {
  ActiveQueueRun,
  KeyLastAdmitted,
  NewRunQueueEntry,
  QueueSnapshot,
  RunQueueRow,
} from './run-queue.types.js';

/** Statuses of an admitted run that still holds a slot. */
const ACTIVE: readonly RunStatus[] = ['queued', 'running'];

function toRow(row: Selectable<RunQueueEntry>): RunQueueRow {
  return {
    runId: row.run_id,
    threadId: row.thread_id,
    repositoryKey: row.repository_key,
    userKey: row.user_key,
    command: typeof row.command === 'string' ? JSON.parse(row.command) : row.command,
    enqueuedAt: row.enqueued_at,
    admittedAt: row.admitted_at,
    startPublishedAt: row.start_published_at,
  };
}

/**
 * The durable run queue. Admission decisions are taken inside {@link RunQueueRepository.exclusive}
 * (a transaction holding an advisory lock), so concurrent dispatch replicas never admit past a
 * limit; each admission is also a compare-and-set on the entry and on the run's status.
 */
export class RunQueueRepository {
  constructor(private readonly db: Executor) {}

  /** Runs `work` in a transaction that holds the platform-wide admission lock. */
  exclusive<T>(work: (trx: Executor) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtext('caravel.run-admission'))`.execute(trx);
      return work(trx);
    });
  }

  /** Adds a run to the queue; false when it was there already. */
  async enqueue(entry: NewRunQueueEntry, executor: Executor = this.db): Promise<boolean> {
    const inserted = await executor
      .insertInto('run_queue')
      .values({
        run_id: entry.runId,
        thread_id: entry.threadId,
        repository_key: entry.repositoryKey,
        user_key: entry.userKey,
        command: toJson(entry.command),
        enqueued_at: timeOr(entry.enqueuedAt),
      })
      .onConflict((conflict) => conflict.column('run_id').doNothing())
      .returning('run_id')
      .executeTakeFirst();
    return inserted !== undefined;
  }

  async get(runId: string, executor: Executor = this.db): Promise<RunQueueRow | null> {
    const row = await executor
      .selectFrom('run_queue')
      .selectAll()
      .where('run_id', '=', runId)
      .executeTakeFirst();
    return row ? toRow(row) : null;
  }

  /** Waiting runs (their run still `waiting`), active runs and when each key was last served. */
  async snapshot(executor: Executor = this.db): Promise<QueueSnapshot> {
    const waiting = await executor
      .selectFrom('run_queue')
      .innerJoin('runs', 'runs.id', 'run_queue.run_id')
      .selectAll('run_queue')
      .where('run_queue.admitted_at', 'is', null)
      .where('runs.status', '=', 'waiting')
      .orderBy('run_queue.enqueued_at', 'asc')
      .orderBy('run_queue.run_id', 'asc')
      .execute();
    const active = await executor
      .selectFrom('run_queue')
      .innerJoin('runs', 'runs.id', 'run_queue.run_id')
      .select(['run_queue.run_id', 'run_queue.repository_key', 'run_queue.user_key'])
      .where('run_queue.admitted_at', 'is not', null)
      .where('runs.status', 'in', ACTIVE)
      .execute();
    return {
      waiting: waiting.map(toRow),
      active: active.map((row) => ({
        runId: row.run_id,
        repositoryKey: row.repository_key,
        userKey: row.user_key,
      })),
      repositoriesLastAdmitted: await this.lastAdmitted('repository_key', executor),
      usersLastAdmitted: await this.lastAdmitted('user_key', executor),
    };
  }

  /**
   * Every waiting run's place in the fair-share order, overall and in its repository, as the
   * queue stands now (read without the admission lock: a view, not a decision).
   */
  async positions(executor: Executor = this.db): Promise<QueuePosition[]> {
    return queuePositions(await this.snapshot(executor));
  }

  /** How many runs wait for room and how many admitted ones are active (what /metrics shows). */
  async depth(executor: Executor = this.db): Promise<{ waiting: number; active: number }> {
    const row = await executor
      .selectFrom('run_queue')
      .innerJoin('runs', 'runs.id', 'run_queue.run_id')
      .select((eb) => [
        eb.fn
          .countAll<string>()
          .filterWhere((w) =>
            w.and([w('run_queue.admitted_at', 'is', null), w('runs.status', '=', 'waiting')]),
          )
          .as('waiting'),
        eb.fn
          .countAll<string>()
          .filterWhere((w) =>
            w.and([w('run_queue.admitted_at', 'is not', null), w('runs.status', 'in', ACTIVE)]),
          )
          .as('active'),
      ])
      .executeTakeFirstOrThrow();
    return { waiting: Number(row.waiting), active: Number(row.active) };
  }

  /** Parks a run that found no room: its status becomes `waiting` (from `queued`). */
  async park(runId: string, executor: Executor = this.db): Promise<boolean> {
    const row = await executor
      .updateTable('runs')
      .set({ status: 'waiting' })
      .where('id', '=', runId)
      .where('status', '=', 'queued')
      .returning('id')
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Admits a run: the entry gets its admission time and a `waiting` (or just created `queued`)
   * run becomes `queued` with a first heartbeat. False when it was admitted before or its run
   * went elsewhere.
   */
  async admit(runId: string, at?: Date, executor: Executor = this.db): Promise<boolean> {
    const entry = await executor
      .updateTable('run_queue')
      .set({ admitted_at: timeOr(at) })
      .where('run_id', '=', runId)
      .where('admitted_at', 'is', null)
      .returning('run_id')
      .executeTakeFirst();
    if (!entry) return false;
    const run = await executor
      .updateTable('runs')
      .set({ status: 'queued', heartbeat_at: timeOr(at) })
      .where('id', '=', runId)
      .where('status', 'in', ['waiting', 'queued'])
      .returning('id')
      .executeTakeFirst();
    return run !== undefined;
  }

  /**
   * Claims the publication of an admitted run's start command: true for the one caller that may
   * publish it, false once it was claimed (a run's start is published once, never again).
   */
  async claimStartPublication(
    runId: string,
    at?: Date,
    executor: Executor = this.db,
  ): Promise<boolean> {
    const row = await executor
      .updateTable('run_queue')
      .set({ start_published_at: timeOr(at) })
      .where('run_id', '=', runId)
      .where('admitted_at', 'is not', null)
      .where('start_published_at', 'is', null)
      .returning('run_id')
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Gives a claim back when the start command could not be published, so it can be again. */
  async releaseStartPublication(runId: string, executor: Executor = this.db): Promise<void> {
    await executor
      .updateTable('run_queue')
      .set({ start_published_at: null })
      .where('run_id', '=', runId)
      .execute();
  }

  private async lastAdmitted(
    column: 'repository_key' | 'user_key',
    executor: Executor,
  ): Promise<KeyLastAdmitted[]> {
    const rows = await executor
      .selectFrom('run_queue')
      .select([column, (eb) => eb.fn.max('admitted_at').as('at')])
      .where('admitted_at', 'is not', null)
      .groupBy(column)
      .execute();
    return rows.flatMap((row) => {
      const at = row.at as Date | string | null;
      return at === null ? [] : [{ key: row[column], at: new Date(at) }];
    });
  }
}
