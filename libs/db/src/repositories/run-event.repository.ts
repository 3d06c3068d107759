import { AppError } from '@caravel/errors';
import { sql, type Selectable } from 'kysely';
import { isUniqueViolation } from '../connection/database-errors.js';
import { toJson } from '../connection/json.js';
import type { RunEvent } from '../generated/types.js';
import type { Executor } from './executor.js';
import { rowOf, type RowOf } from './row-of.js';

/** One event of a run, indexed for replay (`run_events`). */
export type RunEventRow = RowOf<RunEvent>;

/** An event to index: its thread position is assigned when it is appended. */
export type NewRunEvent = Omit<RunEventRow, 'runId' | 'position'> & { runId?: string | null };

export interface RunEventQuery {
  /** Events that occurred at or after this time. */
  from?: Date;
  /**
   * Events indexed after this thread position, in position order: what a reader following a
   * thread pages by. Every event at or before a position it has seen is already visible to it.
   */
  afterPosition?: number;
  limit?: number;
  /** Only events of these types (e.g. a thread's replays). */
  types?: readonly string[];
}

/**
 * Appends racing for one thread position: each loser of a race takes the next. Far more than
 * the consumers that index one thread at once (one per event type, times the replicas).
 */
const POSITION_ATTEMPTS = 50;

const toRow: (row: Selectable<RunEvent>) => RunEventRow = rowOf<RunEvent>;

/** The run event index, appended idempotently on the event id. */
export class RunEventRepository {
  constructor(private readonly db: Executor) {}

  /**
   * Appends the event at the thread's next position; false when that event id is already stored
   * (a redelivery). Another event at the same (stream, sequence) is a DUPLICATE error: two events
   * cannot share a stream position. The next position is read and claimed in one statement; two
   * appends that claim the same one meet at the unique key, where the second waits for the first
   * to commit and then fails and retries. So a position is visible only once every position before
   * it is. Not for use inside a caller's transaction: a lost race aborts a PostgreSQL transaction.
   */
  async append(event: NewRunEvent, executor: Executor = this.db): Promise<boolean> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        const inserted = await executor
          .insertInto('run_events')
          .values({
            id: event.id,
            thread_id: event.threadId,
            run_id: event.runId ?? null,
            type: event.type,
            stream: event.stream,
            sequence: event.sequence,
            position: sql<number>`(select coalesce(max(position), 0) + 1 from run_events where thread_id = ${event.threadId})`,
            occurred_at: event.occurredAt,
            data: toJson(event.data),
          })
          .onConflict((conflict) => conflict.column('id').doNothing())
          .returning('id')
          .executeTakeFirst();
        return inserted !== undefined;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        if (await this.sequenceTaken(event, executor))
          throw new AppError(
            'DUPLICATE',
            `run event position ${event.stream}/${event.sequence} is taken`,
            { cause: error },
          );
        if (attempt >= POSITION_ATTEMPTS) throw error;
      }
    }
  }

  private async sequenceTaken(event: NewRunEvent, executor: Executor): Promise<boolean> {
    const { stream, sequence } = event;
    const holder = await executor
      .selectFrom('run_events')
      .select('id')
      .where((where) => where.and({ stream, sequence }))
      .executeTakeFirst();
    return holder !== undefined && holder.id !== event.id;
  }

  /**
   * A thread's events in order of occurrence (then sequence), from a time; or, after a position,
   * in position order.
   */
  async listByThread(
    threadId: string,
    query: RunEventQuery = {},
    executor: Executor = this.db,
  ): Promise<RunEventRow[]> {
    let select = executor.selectFrom('run_events').selectAll().where('thread_id', '=', threadId);
    if (query.from !== undefined) select = select.where('occurred_at', '>=', query.from);
    if (query.afterPosition !== undefined)
      select = select.where('position', '>', query.afterPosition);
    if (query.types?.length) select = select.where('type', 'in', [...query.types]);
    const ordered =
      query.afterPosition !== undefined
        ? select.orderBy('position', 'asc')
        : select.orderBy('occurred_at', 'asc').orderBy('sequence', 'asc');
    const rows = await ordered.limit(query.limit ?? 1000).execute();
    return rows.map(toRow);
  }

  /**
   * The thread's latest run step (`evt.run.step`, by position) with a successful result of the
   * tool `tool` (e.g. the `commit_and_open_pr` that opened its pull request), or null.
   */
  async latestStepWithResult(
    threadId: string,
    tool: string,
    executor: Executor = this.db,
  ): Promise<RunEventRow | null> {
    const result = toJson([{ name: tool, status: 'success' }]);
    const row = await executor
      .selectFrom('run_events')
      .selectAll()
      .where('thread_id', '=', threadId)
      .where('type', '=', 'evt.run.step')
      .where(sql<boolean>`data -> 'results' @> ${result}::jsonb`)
      .orderBy('position', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? toRow(row) : null;
  }

  async listByRun(runId: string, executor: Executor = this.db): Promise<RunEventRow[]> {
    const rows = await executor
      .selectFrom('run_events')
      .selectAll()
      .where('run_id', '=', runId)
      .orderBy('occurred_at', 'asc')
      .orderBy('sequence', 'asc')
      .execute();
    return rows.map(toRow);
  }
}
