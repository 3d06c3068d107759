import type { Selectable } from 'kysely';
import type { BudgetPause } from '../generated/types.js';
import { inTransaction, timeOr, type Executor } from './executor.js';
import { rowOf, type RowOf } from './row-of.js';

/** A run paused at its budget, and the grant that continues it (`budget_pauses`). */
export type BudgetPauseRow = RowOf<BudgetPause>;

const toRow: (row: Selectable<BudgetPause>) => BudgetPauseRow = rowOf<BudgetPause>;

/**
 * Where a pause no run continued yet stands: `open` (its run ended paused, or is ending, and no
 * later run took the thread), `ended` (its run ended otherwise), `stopped` (its run was stopped or
 * cancelled instead, or the thread was stopped while it waited) or `superseded` (a later run
 * worked on the thread before any grant).
 */
export type BudgetPauseStanding = 'open' | 'ended' | 'stopped' | 'superseded';

/** A pause awaiting continuation, with its run's ending and where it stands. */
export interface AwaitingBudgetPause extends BudgetPauseRow {
  standing: BudgetPauseStanding;
  /** The first later run that took the thread, when one did. */
  supersededBy: string | null;
}

export interface AwaitingPauseQuery {
  /** One thread's pauses (else every thread's). */
  threadId?: string;
  /** A run started by this trigger does not supersede (a grant's own, redelivered). */
  ignoringTrigger?: string;
  limit?: number;
}

const ENDING = new Set(['waiting', 'queued', 'running']);

function standingOf(
  run: { status: string | null; exit: string | null },
  later: string | null,
  withdrawn: boolean,
) {
  if (withdrawn) return 'stopped';
  const { status, exit } = run;
  if (status === 'completed' || status === 'failed' || status === 'merged') return 'ended';
  if (status === 'interrupted' && exit !== 'exit_budget_paused') return 'stopped';
  if (later !== null) return 'superseded';
  return status === null || ENDING.has(status) || exit === 'exit_budget_paused' ? 'open' : 'ended';
}

/**
 * Budget pauses: a run records its own once (a repeat keeps the first), an authorised person's
 * grant is set on the thread's latest pause not continued yet, and the run that continues it
 * takes the grant once.
 */
export class BudgetPauseRepository {
  constructor(private readonly db: Executor) {}

  /** Records the run's pause; false when it was recorded before. */
  async record(
    pause: { runId: string; threadId: string; budgetUsd: number; spentUsd: number; at?: Date },
    executor: Executor = this.db,
  ): Promise<boolean> {
    const inserted = await executor
      .insertInto('budget_pauses')
      .values({
        run_id: pause.runId,
        thread_id: pause.threadId,
        budget_usd: pause.budgetUsd,
        spent_usd: pause.spentUsd,
        paused_at: timeOr(pause.at),
      })
      .onConflict((conflict) => conflict.column('run_id').doNothing())
      .returning('run_id')
      .executeTakeFirst();
    return inserted !== undefined;
  }

  /** The thread's latest pause that no run has continued yet nor a stop withdrew, granted or not. */
  async awaiting(threadId: string, executor: Executor = this.db): Promise<BudgetPauseRow | null> {
    const row = await executor
      .selectFrom('budget_pauses')
      .selectAll()
      .where('thread_id', '=', threadId)
      .where('resumed_by', 'is', null)
      .where('withdrawn_at', 'is', null)
      .orderBy('paused_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? toRow(row) : null;
  }

  /**
   * Pauses no run has continued yet, newest first, each with where it stands: a later run on the
   * thread (not merged into another, not started by the pause's own grant) supersedes it.
   */
  async listAwaiting(
    query: AwaitingPauseQuery = {},
    executor: Executor = this.db,
  ): Promise<AwaitingBudgetPause[]> {
    const ignoring = query.ignoringTrigger ?? null;
    let select = executor
      .selectFrom('budget_pauses as p')
      .leftJoin('runs as r', 'r.id', 'p.run_id')
      .selectAll('p')
      .select(['r.status as run_status', 'r.exit_status as run_exit_status'])
      .select((eb) =>
        eb
          .selectFrom('runs as later')
          .select('later.id')
          .whereRef('later.thread_id', '=', 'p.thread_id')
          .whereRef('later.id', '<>', 'p.run_id')
          .where('later.status', '<>', 'merged')
          .where((w) =>
            w.and([
              w.or([
                w('r.created_at', 'is', null),
                w('later.created_at', '>', w.ref('r.created_at')),
              ]),
              w.or([
                w('p.granted_at', 'is', null),
                w('later.created_at', '<', w.ref('p.granted_at')),
              ]),
              ...(ignoring === null ? [] : [w('later.trigger_id', '<>', ignoring)]),
            ]),
          )
          .orderBy('later.created_at')
          .limit(1)
          .as('superseded_by'),
      )
      .where('p.resumed_by', 'is', null)
      .orderBy('p.paused_at', 'desc')
      .limit(query.limit ?? 100);
    if (query.threadId !== undefined) select = select.where('p.thread_id', '=', query.threadId);
    const rows = await select.execute();
    return rows.map(({ run_status, run_exit_status, superseded_by, ...pause }) => ({
      ...toRow(pause),
      standing: standingOf(
        { status: run_status, exit: run_exit_status },
        superseded_by,
        pause.withdrawn_at !== null,
      ),
      supersededBy: superseded_by,
    }));
  }

  /**
   * A stop of the thread: every pause of it that no run continued yet is withdrawn, so no later
   * grant continues it; the run ids withdrawn (none when nothing waited).
   */
  async withdraw(
    stop: { threadId: string; by: string; at?: Date },
    executor: Executor = this.db,
  ): Promise<string[]> {
    const rows = await executor
      .updateTable('budget_pauses')
      .set({ withdrawn_at: timeOr(stop.at), withdrawn_by: stop.by })
      .where('thread_id', '=', stop.threadId)
      .where('resumed_by', 'is', null)
      .where('withdrawn_at', 'is', null)
      .returning('run_id')
      .execute();
    return rows.map((row) => row.run_id);
  }

  /**
   * Sets the grant of the thread's pause awaiting continuation to `usd` (the latest grant wins,
   * so a repeated reply does not add up); null when no pause awaits.
   */
  async grant(
    grant: { threadId: string; usd: number; by: string; at?: Date },
    executor: Executor = this.db,
  ): Promise<BudgetPauseRow | null> {
    return inTransaction(executor, async (trx) => {
      const pause = await this.awaiting(grant.threadId, trx);
      if (!pause) return null;
      const row = await trx
        .updateTable('budget_pauses')
        .set({
          granted_usd: grant.usd,
          granted_by: grant.by,
          granted_at: timeOr(grant.at),
        })
        .where('run_id', '=', pause.runId)
        .returningAll()
        .executeTakeFirstOrThrow();
      return toRow(row);
    });
  }

  /**
   * The granted pause `runId` continues: taken once (a resumed or redelivered start of the same
   * run gets the same one back); null when the thread has no granted pause for it.
   */
  async takeGrant(
    threadId: string,
    runId: string,
    executor: Executor = this.db,
  ): Promise<BudgetPauseRow | null> {
    return inTransaction(executor, async (trx) => {
      const taken = await trx
        .selectFrom('budget_pauses')
        .selectAll()
        .where('thread_id', '=', threadId)
        .where('resumed_by', '=', runId)
        .executeTakeFirst();
      if (taken) return toRow(taken);
      const pause = await this.awaiting(threadId, trx);
      if (!pause || pause.grantedUsd === null || pause.runId === runId) return null;
      const row = await trx
        .updateTable('budget_pauses')
        .set({ resumed_by: runId })
        .where('run_id', '=', pause.runId)
        .where('resumed_by', 'is', null)
        .returningAll()
        .executeTakeFirst();
      return row ? toRow(row) : null;
    });
  }
}
