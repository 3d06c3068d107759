import type { Selectable } from 'kysely';
import { duplicateAs } from '../connection/database-errors.js';
import { toJson } from '../connection/json.js';
import type { RunEvent } from '../generated/types.js';
import type { Executor } from './executor.js';
import { rowOf, type RowOf } from './row-of.js';

/** One event of a run, indexed for replay (`run_events`). */
export type RunEventRow = RowOf<RunEvent>;

export type NewRunEvent = Omit<RunEventRow, 'runId'> & { runId?: string | null };

export interface RunEventQuery {
  /** Events that occurred at or after this time. */
  from?: Date;
  /** Events with a stream sequence strictly greater than this one. */
  afterSequence?: number;
  limit?: number;
  /** Only events of these types (e.g. a thread's replays). */
  types?: readonly string[];
  /**
   * In stream-sequence order instead of occurrence order: what a reader paging with
   * `afterSequence` needs, so each page continues where its last sequence left off.
   */
  bySequence?: boolean;
}

const toRow: (row: Selectable<RunEvent>) => RunEventRow = rowOf<RunEvent>;

/** The run event index, appended idempotently on the event id. */
export class RunEventRepository {
  constructor(private readonly db: Executor) {}

  /**
   * Appends the event; false when that event id is already stored (a redelivery). Another event
   * at the same (stream, sequence) is a DUPLICATE error: two events cannot share a position.
   */
  async append(event: NewRunEvent, executor: Executor = this.db): Promise<boolean> {
    const inserted = await duplicateAs(
      `run event position ${event.stream}/${event.sequence} is taken`,
      () =>
        executor
          .insertInto('run_events')
          .values({
            id: event.id,
            thread_id: event.threadId,
            run_id: event.runId ?? null,
            type: event.type,
            stream: event.stream,
            sequence: event.sequence,
            occurred_at: event.occurredAt,
            data: toJson(event.data),
          })
          .onConflict((conflict) => conflict.column('id').doNothing())
          .returning('id')
          .executeTakeFirst(),
    );
    return inserted !== undefined;
  }

  /**
   * A thread's events in order of occurrence (then sequence; or by sequence alone), from a time
   * and/or a sequence.
   */
  async listByThread(
    threadId: string,
    query: RunEventQuery = {},
    executor: Executor = this.db,
  ): Promise<RunEventRow[]> {
    let select = executor.selectFrom('run_events').selectAll().where('thread_id', '=', threadId);
    if (query.from !== undefined) select = select.where('occurred_at', '>=', query.from);
    if (query.afterSequence !== undefined)
      select = select.where('sequence', '>', query.afterSequence);
    if (query.types?.length) select = select.where('type', 'in', [...query.types]);
    const ordered = query.bySequence
      ? select.orderBy('sequence', 'asc')
      : select.orderBy('occurred_at', 'asc').orderBy('sequence', 'asc');
    const rows = await ordered.limit(query.limit ?? 1000).execute();
    return rows.map(toRow);
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
