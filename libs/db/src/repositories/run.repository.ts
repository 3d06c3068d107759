import { sql, type Selectable } from 'kysely';
import { AppError } from '@caravel/errors';
import { toJson } from '../connection/json.js';
import type { Run } from '../generated/types.js';
import { timeOr, type Executor } from './executor.js';
import type { RowOf } from './row-of.js';
import type { FinishedRunStatus, RunStatus } from './states.js';

/** One agent run (`runs`). */
export type RunRow = RowOf<Run>;

/** Limits past which a run without a sign of life counts as stuck. */
export interface StaleQuery {
  /** `queued` (admitted, not started) runs last seen before this time. */
  pendingBefore: Date;
  /** `running` runs last seen before this time. */
  runningBefore: Date;
  limit?: number;
}

export interface NewRun {
  id: string;
  threadId: string;
  triggerId: string;
  runner?: string | null;
  createdAt?: Date;
}

export interface RunFinish {
  status: FinishedRunStatus;
  exitStatus?: string | null;
  summary?: string;
  at?: Date;
}

function toRow(row: Selectable<Run>): RunRow {
  return {
    id: row.id,
    threadId: row.thread_id,
    triggerId: row.trigger_id,
    status: row.status,
    exitStatus: row.exit_status,
    summary: row.summary,
    runner: row.runner,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    heartbeatAt: row.heartbeat_at,
    concludedAt: row.concluded_at,
    conclusion: typeof row.conclusion === 'string' ? JSON.parse(row.conclusion) : row.conclusion,
  };
}

/** Runs; a trigger starts at most one run (unique `trigger_id`). */
export class RunRepository {
  constructor(private readonly db: Executor) {}

  /**
   * Creates the run for a trigger, or returns the run that trigger already created
   * (`created: false`). A run id reused for another trigger is a DUPLICATE.
   */
  async create(
    run: NewRun,
    executor: Executor = this.db,
  ): Promise<{ run: RunRow; created: boolean }> {
    const inserted = await executor
      .insertInto('runs')
      .values({
        id: run.id,
        thread_id: run.threadId,
        trigger_id: run.triggerId,
        runner: run.runner ?? null,
        created_at: timeOr(run.createdAt),
      })
      .onConflict((conflict) => conflict.doNothing())
      .returningAll()
      .executeTakeFirst();
    if (inserted) return { run: toRow(inserted), created: true };
    const existing = await this.findByTrigger(run.triggerId, executor);
    if (!existing) {
      throw new AppError('DUPLICATE', `run id ${run.id} already exists for another trigger`, {
        details: { runId: run.id, triggerId: run.triggerId },
      });
    }
    return { run: existing, created: false };
  }

  async get(id: string, executor: Executor = this.db): Promise<RunRow | null> {
    const row = await executor
      .selectFrom('runs')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toRow(row) : null;
  }

  async findByTrigger(triggerId: string, executor: Executor = this.db): Promise<RunRow | null> {
    const row = await executor
      .selectFrom('runs')
      .selectAll()
      .where('trigger_id', '=', triggerId)
      .executeTakeFirst();
    return row ? toRow(row) : null;
  }

  /** Status `running`, the runner that took it and when; null when the run does not exist. */
  async markStarted(
    id: string,
    start: { runner: string; at?: Date },
    executor: Executor = this.db,
  ): Promise<RunRow | null> {
    const row = await executor
      .updateTable('runs')
      .set({
        status: 'running',
        runner: start.runner,
        started_at: timeOr(start.at),
        heartbeat_at: timeOr(start.at),
      })
      .where('id', '=', id)
      // A run's end may be handled before its start (separate consumers): never un-finish it.
      .where('finished_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
    return row ? toRow(row) : null;
  }

  /** Records a sign of life of an unfinished run (a later time wins); false when none changed. */
  async touch(id: string, at?: Date, executor: Executor = this.db): Promise<boolean> {
    const row = await executor
      .updateTable('runs')
      .set({ heartbeat_at: sql`greatest(heartbeat_at, ${timeOr(at)})` })
      .where('id', '=', id)
      .where('status', 'in', ['queued', 'running'])
      .returning('id')
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Admitted runs that gave no sign of life in time: `queued` ones last seen before
   * `pendingBefore`, `running` ones before `runningBefore` (oldest first). Runs waiting in the
   * queue are never stale.
   */
  async listStale(query: StaleQuery, executor: Executor = this.db): Promise<RunRow[]> {
    const lastSeen = sql<Date>`coalesce(heartbeat_at, started_at, created_at)`;
    const rows = await executor
      .selectFrom('runs')
      .selectAll()
      .where((eb) =>
        eb.or([
          eb.and([eb('status', '=', 'queued'), eb(lastSeen, '<', query.pendingBefore)]),
          eb.and([eb('status', '=', 'running'), eb(lastSeen, '<', query.runningBefore)]),
        ]),
      )
      .orderBy(lastSeen, 'asc')
      .limit(query.limit ?? 100)
      .execute();
    return rows.map(toRow);
  }

  /** Final status, exit status, summary and time; null when the run does not exist. */
  async markFinished(
    id: string,
    finish: RunFinish,
    executor: Executor = this.db,
  ): Promise<RunRow | null> {
    const row = await executor
      .updateTable('runs')
      .set({
        status: finish.status,
        exit_status: finish.exitStatus ?? null,
        ...(finish.summary === undefined ? {} : { summary: finish.summary }),
        finished_at: timeOr(finish.at),
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    return row ? toRow(row) : null;
  }

  /**
   * Records, once, that the runner concluded the run and the ending it publishes; false when the
   * run was concluded before (or does not exist).
   */
  async recordConclusion(
    id: string,
    conclusion: unknown,
    at?: Date,
    executor: Executor = this.db,
  ): Promise<boolean> {
    const row = await executor
      .updateTable('runs')
      .set({ concluded_at: timeOr(at), conclusion: toJson(conclusion) })
      .where('id', '=', id)
      .where('concluded_at', 'is', null)
      .returning('id')
      .executeTakeFirst();
    return row !== undefined;
  }

  /** A thread's runs, oldest first. */
  async listByThread(threadId: string, executor: Executor = this.db): Promise<RunRow[]> {
    const rows = await executor
      .selectFrom('runs')
      .selectAll()
      .where('thread_id', '=', threadId)
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .execute();
    return rows.map(toRow);
  }

  /** The latest runs across threads, newest first. */
  async listRecent(
    query: { limit?: number; status?: RunStatus } = {},
    executor: Executor = this.db,
  ): Promise<RunRow[]> {
    let select = executor.selectFrom('runs').selectAll();
    if (query.status !== undefined) select = select.where('status', '=', query.status);
    const rows = await select
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(query.limit ?? 50)
      .execute();
    return rows.map(toRow);
  }
}
