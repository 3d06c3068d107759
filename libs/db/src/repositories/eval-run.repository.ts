import { sql, type Selectable } from 'kysely';
import type { EvalAttempt, EvalRun } from '../generated/types.js';
import { toJson } from '../connection/json.js';
import { timeOr, type Executor } from './executor.js';
import { rowOf, type RowOf } from './row-of.js';
import type { EvalRunKind } from './states.js';

/** A recorded eval run (`eval_runs`), its settings parsed. */
export type EvalRunRow = Omit<RowOf<EvalRun>, 'settings'> & {
  settings: Record<string, string>;
};

/** A run with what its attempts add up to so far. */
export interface EvalRunSummaryRow extends EvalRunRow {
  /** Tasks with at least one recorded attempt (Harbor runs). */
  tasks: number;
  attempts: number;
  resolvedAttempts: number;
  /** Review runs: cases recorded, and defects, findings and matched pairs summed over them. */
  cases: number;
  expected: number;
  found: number;
  matched: number;
  costUsd: number;
}

/** A run to record; the id is the run's own (its ledger's), so a resumed run finds its row. */
export interface NewEvalRun {
  id: string;
  suite: string;
  config: string;
  model: string;
  settings: Readonly<Record<string, string>>;
  attemptsPerTask: number;
  outDir?: string | null;
  createdAt: Date;
  /** `harbor` unless said (a reviewer eval is `review`). */
  kind?: EvalRunKind;
  /** The scheduled suite and night that started it. */
  schedule?: { id: string; slot: Date } | null;
}

/** One graded attempt of a run's task (`eval_attempts`). */
export type EvalAttemptRow = Omit<RowOf<EvalAttempt>, 'runId' | 'recordedAt'>;

/** Which runs to list, newest first. */
export interface EvalRunQuery {
  suite?: string;
  kind?: EvalRunKind;
  scheduleId?: string;
  limit: number;
}

/** Eval runs and their graded attempts: a run is recorded once, each attempt once. */
export class EvalRunRepository {
  constructor(private readonly db: Executor) {}

  /** Records a run, or finds it when it was recorded before (a resumed run keeps its row). */
  async start(run: NewEvalRun): Promise<EvalRunRow> {
    await this.db
      .insertInto('eval_runs')
      .values({
        id: run.id,
        suite: run.suite,
        config: run.config,
        model: run.model,
        settings: toJson(run.settings),
        attempts_per_task: run.attemptsPerTask,
        out_dir: run.outDir ?? null,
        created_at: run.createdAt,
        kind: run.kind ?? 'harbor',
        schedule_id: run.schedule?.id ?? null,
        schedule_slot: run.schedule?.slot ?? null,
      })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    const row = await this.find(run.id);
    if (!row) throw new Error(`eval run ${run.id}: not found after it was recorded`);
    return row;
  }

  /** Records the attempts the run does not hold yet; returns how many were new. */
  async recordAttempts(runId: string, attempts: readonly EvalAttemptRow[]): Promise<number> {
    if (attempts.length === 0) return 0;
    const inserted = await this.db
      .insertInto('eval_attempts')
      .values(
        attempts.map((a) => ({
          run_id: runId,
          task_id: a.taskId,
          attempt: a.attempt,
          resolved: a.resolved,
          exit_status: a.exitStatus,
          cost_usd: a.costUsd,
          model_calls: a.modelCalls,
          input_tokens: a.inputTokens,
          output_tokens: a.outputTokens,
          wall_ms: a.wallMs,
          patch: a.patch,
          traj_path: a.trajPath,
          error: a.error,
        })),
      )
      .onConflict((oc) => oc.columns(['run_id', 'task_id', 'attempt']).doNothing())
      .returning('attempt')
      .execute();
    return inserted.length;
  }

  /** Marks the run finished: every attempt it planned is recorded. */
  async finish(runId: string, at?: Date): Promise<void> {
    await this.db
      .updateTable('eval_runs')
      .set({ status: 'finished', finished_at: timeOr(at) })
      .where('id', '=', runId)
      .execute();
  }

  async find(id: string): Promise<EvalRunRow | null> {
    const row = await this.db
      .selectFrom('eval_runs')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? runOf(row) : null;
  }

  /** The run's attempts by task, then attempt number. */
  async attemptsOf(runId: string): Promise<EvalAttemptRow[]> {
    const rows = await this.db
      .selectFrom('eval_attempts')
      .selectAll()
      .where('run_id', '=', runId)
      .orderBy('task_id')
      .orderBy('attempt')
      .execute();
    return rows.map(attemptOf);
  }

  /**
   * The suite's latest finished run under the configuration (any configuration when none is
   * given; with `notProposed`, none a proposal was measured with), or null when it has none. Only
   * runs of `kind` (default `harbor`): a review set of the same name is another suite.
   */
  async latestFinished(
    suite: string,
    filter: { config?: string; notProposed?: boolean; kind?: EvalRunKind } = {},
  ): Promise<EvalRunRow | null> {
    let select = this.db
      .selectFrom('eval_runs as r')
      .selectAll('r')
      .where('r.suite', '=', suite)
      .where('r.kind', '=', filter.kind ?? 'harbor')
      .where('r.status', '=', 'finished')
      .orderBy('r.finished_at', 'desc')
      .orderBy('r.created_at', 'desc')
      .limit(1);
    if (filter.config !== undefined) select = select.where('r.config', '=', filter.config);
    if (filter.notProposed)
      select = select.where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('eval_proposals as p')
              .select('p.id')
              .whereRef('p.candidate_run_id', '=', 'r.id'),
          ),
        ),
      );
    const row = await select.executeTakeFirst();
    return row ? runOf(row) : null;
  }

  /** Runs (of one suite, or all) with their attempts' totals, the newest first. */
  async list(query: EvalRunQuery): Promise<EvalRunSummaryRow[]> {
    let select = this.db
      .selectFrom('eval_runs as r')
      .leftJoin('eval_attempts as a', 'a.run_id', 'r.id')
      .selectAll('r')
      .select([
        sql<number>`count(distinct a.task_id)::int`.as('task_count'),
        sql<number>`count(a.attempt)::int`.as('attempt_count'),
        sql<number>`count(*) filter (where a.resolved)::int`.as('resolved_count'),
        sql<number>`coalesce(sum(a.cost_usd), 0)::float8`.as('cost_total'),
        sql<ReviewSums>`(select json_build_object('cases', count(*), 'expected', coalesce(sum(c.expected), 0), 'found', coalesce(sum(c.found), 0), 'matched', coalesce(sum(c.matched), 0), 'cost', coalesce(sum(c.cost_usd), 0)) from eval_review_cases c where c.run_id = r.id and c.error is null)`.as(
          'review',
        ),
      ])
      .groupBy('r.id')
      .orderBy('r.created_at', 'desc')
      .orderBy('r.id')
      .limit(query.limit);
    if (query.suite !== undefined) select = select.where('r.suite', '=', query.suite);
    if (query.kind !== undefined) select = select.where('r.kind', '=', query.kind);
    if (query.scheduleId !== undefined)
      select = select.where('r.schedule_id', '=', query.scheduleId);
    const rows = await select.execute();
    return rows.map(({ task_count, attempt_count, resolved_count, cost_total, review, ...run }) => {
      const sums = typeof review === 'string' ? (JSON.parse(review) as ReviewSums) : review;
      return {
        ...runOf(run),
        tasks: task_count,
        attempts: attempt_count,
        resolvedAttempts: resolved_count,
        cases: Number(sums.cases),
        expected: Number(sums.expected),
        found: Number(sums.found),
        matched: Number(sums.matched),
        costUsd: cost_total + Number(sums.cost),
      };
    });
  }
}

/** A review run's cases summed (reviewed ones only), as the list's subquery returns them. */
interface ReviewSums {
  cases: number | string;
  expected: number | string;
  found: number | string;
  matched: number | string;
  cost: number | string;
}

/** A run's row as the repository returns it. */
export function runOf(row: Selectable<EvalRun>): EvalRunRow {
  return { ...rowOf<EvalRun>(row), settings: row.settings as Record<string, string> };
}

function attemptOf(row: Selectable<EvalAttempt>): EvalAttemptRow {
  return {
    taskId: row.task_id,
    attempt: row.attempt,
    resolved: row.resolved,
    exitStatus: row.exit_status,
    costUsd: row.cost_usd,
    modelCalls: row.model_calls,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    wallMs: row.wall_ms,
    patch: row.patch,
    trajPath: row.traj_path,
    error: row.error,
  };
}
